#include "testjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QByteArray compact(const QJsonValue &value)
{
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
}

QJsonObject parseObject(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qFatal("test data is not a JSON object: %s", json.constData());
    return document.object();
}

QJsonObject toolCallJson(const QString &id, const QString &name, const QJsonValue &arguments)
{
    return {{u"id"_s, id},
            {u"type"_s, u"function"_s},
            {u"function"_s, QJsonObject{{u"name"_s, name}, {u"arguments"_s, arguments}}}};
}

QString shellArguments(const QString &command)
{
    return QString::fromUtf8(compact(QJsonObject{{u"command"_s, command}}));
}

} // namespace AgentLoop
