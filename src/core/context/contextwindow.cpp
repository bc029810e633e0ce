#include "context/contextwindow.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace AgentLoop {

std::optional<qint64> builtInContextWindow(const QString &model)
{
    // Longest prefix wins, so "gpt-4o-mini" finds its own row before "gpt-4o".
    struct Row
    {
        QStringView prefix;
        qint64 tokens;
    };
    static const Row table[] = {
            {u"gpt-4o", 128'000},
            {u"gpt-4.1", 1'047'576},
            {u"deepseek-", 128'000},
            {u"qwen-plus", 131'072},
            {u"kimi-k2", 262'144},
            {u"glm-4.6", 200'000},
    };
    const QString id = model.toLower();
    std::optional<qint64> found;
    qsizetype foundLength = 0;
    for (const Row &row : table) {
        if (id.startsWith(row.prefix) && row.prefix.size() > foundLength) {
            found = row.tokens;
            foundLength = row.prefix.size();
        }
    }
    return found;
}

QHash<QString, qint64> contextWindowsFromModelList(const QByteArray &body)
{
    QHash<QString, qint64> windows;
    const QJsonArray models = QJsonDocument::fromJson(body).object().value(u"data"_s).toArray();
    for (const QJsonValue &value : models) {
        const QJsonObject model = value.toObject();
        const QString id = model.value(u"id"_s).toString();
        if (id.isEmpty())
            continue;
        for (const QString &field : {u"context_length"_s, u"max_model_len"_s, u"context_window"_s}) {
            const qint64 tokens = model.value(field).toInteger();
            if (tokens > 0) {
                windows.insert(id, tokens);
                break;
            }
        }
    }
    return windows;
}

ContextWindow resolveContextWindow(const QString &model,
                                   qint64 setting,
                                   std::optional<qint64> reported)
{
    if (setting > 0)
        return {setting, ContextWindow::Source::Setting};
    if (reported && *reported > 0)
        return {*reported, ContextWindow::Source::Provider};
    if (const std::optional<qint64> known = builtInContextWindow(model))
        return {*known, ContextWindow::Source::BuiltIn};
    return {};
}

QString formatTokenCount(qint64 tokens)
{
    const QLocale c = QLocale::c();
    const auto scaled = [&](double value, QChar unit) {
        // One decimal below 100 (31.2k), none above (128k); no trailing ".0".
        QString text = c.toString(value, 'f', value < 100 ? 1 : 0);
        if (text.endsWith(u".0"))
            text.chop(2);
        return text + unit;
    };
    if (tokens < 1000)
        return c.toString(tokens);
    if (tokens < 1'000'000)
        return scaled(tokens / 1000.0, u'k');
    return scaled(tokens / 1'000'000.0, u'M');
}

} // namespace AgentLoop
