#include "protocol/jsondiff.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

QJsonValue undefined()
{
    return QJsonValue(QJsonValue::Undefined);
}

bool isPlainName(const QString &key)
{
    if (key.isEmpty() || key.at(0).isDigit())
        return false;
    return std::all_of(key.begin(), key.end(), [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9')
               || c == u'_';
    });
}

class Differ
{
public:
    explicit Differ(qsizetype maxChanges)
        : m_max(std::max<qsizetype>(0, maxChanges))
    {}

    void compare(const QString &path, const QJsonValue &before, const QJsonValue &after)
    {
        if (before.isObject() && after.isObject())
            return compareObjects(path, before.toObject(), after.toObject());
        if (before.isArray() && after.isArray())
            return compareArrays(path, before.toArray(), after.toArray());
        if (before != after)
            add({JsonChange::Changed, path, before, after});
    }

    JsonDiff result() { return std::move(m_diff); }

private:
    void compareObjects(const QString &path, const QJsonObject &before, const QJsonObject &after)
    {
        // Both key lists are sorted (QJsonObject keeps its keys in order): one merge.
        const QStringList a = before.keys();
        const QStringList b = after.keys();
        qsizetype i = 0;
        qsizetype j = 0;
        while (i < a.size() || j < b.size()) {
            if (j == b.size() || (i < a.size() && a.at(i) < b.at(j))) {
                add({JsonChange::Removed,
                     jsonPathWithKey(path, a.at(i)),
                     before.value(a.at(i)),
                     undefined()});
                ++i;
            } else if (i == a.size() || b.at(j) < a.at(i)) {
                add({JsonChange::Added,
                     jsonPathWithKey(path, b.at(j)),
                     undefined(),
                     after.value(b.at(j))});
                ++j;
            } else {
                compare(jsonPathWithKey(path, a.at(i)), before.value(a.at(i)), after.value(b.at(j)));
                ++i;
                ++j;
            }
        }
    }

    void compareArrays(const QString &path, const QJsonArray &before, const QJsonArray &after)
    {
        const qsizetype common = std::min(before.size(), after.size());
        for (qsizetype i = 0; i < common; ++i)
            compare(jsonPathWithIndex(path, i), before.at(i), after.at(i));
        for (qsizetype i = common; i < before.size(); ++i)
            add({JsonChange::Removed, jsonPathWithIndex(path, i), before.at(i), undefined()});
        for (qsizetype i = common; i < after.size(); ++i)
            add({JsonChange::Added, jsonPathWithIndex(path, i), undefined(), after.at(i)});
    }

    void add(JsonChange change)
    {
        if (m_diff.changes.size() < m_max)
            m_diff.changes.append(std::move(change));
        else
            ++m_diff.omitted;
    }

    qsizetype m_max;
    JsonDiff m_diff;
};

// The document in bytes, or its text when it is none.
QJsonValue documentOf(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return QString::fromUtf8(bytes);
    if (document.isArray())
        return document.array();
    return document.object();
}

QJsonValue messageOf(const Exchange &exchange)
{
    if (exchange.streamed)
        return exchange.assembledMessage.isEmpty()
                       ? QJsonValue(QString::fromUtf8(exchange.responseBody))
                       : documentOf(exchange.assembledMessage);
    const QJsonValue body = documentOf(exchange.responseBody);
    const QJsonValue message = body[u"choices"_s][0][u"message"_s];
    return message.isObject() ? message : body;
}

} // namespace

JsonDiff diffJson(const QJsonValue &before, const QJsonValue &after, qsizetype maxChanges)
{
    Differ differ(maxChanges);
    differ.compare(QString(), before, after);
    return differ.result();
}

QString jsonPathWithKey(const QString &path, const QString &key)
{
    if (isPlainName(key))
        return path.isEmpty() ? key : path + u'.' + key;
    const QByteArray quoted = QJsonDocument(QJsonArray{key}).toJson(QJsonDocument::Compact);
    // ["key"] as JSON: the brackets and the quoted key with its escapes.
    return path + QString::fromUtf8(quoted);
}

QString jsonPathWithIndex(const QString &path, qsizetype index)
{
    return path + u'[' + QString::number(index) + u']';
}

ComparedResponses comparableResponses(const Exchange &before, const Exchange &after)
{
    if (!before.streamed && !after.streamed)
        return {documentOf(before.responseBody), documentOf(after.responseBody), false};
    return {messageOf(before), messageOf(after), true};
}

} // namespace AgentLoop
