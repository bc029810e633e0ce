#include "protocol/requestbody.h"

#include <QJsonDocument>

namespace AgentLoop {

QByteArray chatRequestBody(const QString &model,
                           const History &history,
                           const QJsonArray &toolDefinitions,
                           bool stream)
{
    // Written by hand around the history's serialised messages, which are reused from turn to
    // turn (see History::messagesJson); everything else is small.
    const QByteArray &messages = history.messagesJson();
    const QByteArray modelArray = QJsonDocument(QJsonArray{model})
                                          .toJson(QJsonDocument::Compact); // ["<escaped model>"]
    QByteArray body;
    body.reserve(messages.size() + 4096);
    body += "{\"model\":";
    body += QByteArrayView(modelArray).sliced(1, modelArray.size() - 2);
    body += ",\"messages\":[";
    body += messages;
    body += ']';
    if (!toolDefinitions.isEmpty()) {
        body += ",\"tools\":";
        body += QJsonDocument(toolDefinitions).toJson(QJsonDocument::Compact);
    }
    if (stream)
        body += ",\"stream\":true,\"stream_options\":{\"include_usage\":true}";
    body += '}';
    return body;
}

} // namespace AgentLoop
