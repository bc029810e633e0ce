#include "contextusage.h"

#include "context/tokenestimate.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace AgentLoop {

qint64 estimatedRequestTokens(const RecordedRequest &request)
{
    qint64 tokens = 0;
    const QJsonArray messages = request.messages();
    for (const QJsonValue &value : messages) {
        if (const Result<Message> message = Message::fromJson(value.toObject()))
            tokens += estimateMessageTokens(*message);
    }
    const QJsonValue tools = request.json().value(u"tools"_s);
    if (tools.isArray())
        tokens += estimateTextTokens(
                QString::fromUtf8(QJsonDocument(tools.toArray()).toJson(QJsonDocument::Compact)));
    return tokens;
}

FakeResponse withEstimatedUsage(FakeResponse response, const RecordedRequest &request)
{
    QJsonObject body = QJsonDocument::fromJson(response.body).object();
    const qint64 prompt = estimatedRequestTokens(request);
    body[u"usage"_s] = QJsonObject{{u"prompt_tokens"_s, prompt},
                                   {u"completion_tokens"_s, 10},
                                   {u"total_tokens"_s, prompt + 10}};
    response.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return response;
}

} // namespace AgentLoop
