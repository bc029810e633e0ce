#include "protocol/requestbody.h"

#include <QJsonDocument>

namespace AgentLoop {

namespace {

// The streaming fields close the body, exactly as written here, so that a second attempt can
// take them off again without parsing (and re-serialising) a body of many megabytes.
constexpr char streamField[] = ",\"stream\":true";
constexpr char streamOptionsText[] = ",\"stream_options\":{\"include_usage\":true}";

QByteArray withoutTail(const QByteArray &body, QByteArrayView tail)
{
    const QByteArrayView start = QByteArrayView(body).chopped(1); // before the closing brace
    if (!body.endsWith('}') || !start.endsWith(tail))
        return body;
    return start.chopped(tail.size()).toByteArray() + '}';
}

} // namespace

QByteArray chatRequestBody(const ProviderSettings &provider,
                           const History &history,
                           const QJsonArray &toolDefinitions)
{
    // Written by hand around the history's serialised messages, which are reused from turn to
    // turn (see History::messagesJson); everything else is small.
    const QByteArray &messages = history.messagesJson();
    const QByteArray modelArray = QJsonDocument(QJsonArray{provider.model})
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
    if (provider.maxTokens > 0) {
        body += provider.maxTokensField == MaxTokensField::MaxCompletionTokens
                        ? ",\"max_completion_tokens\":"
                        : ",\"max_tokens\":";
        body += QByteArray::number(provider.maxTokens);
    }
    if (provider.stream) {
        body += streamField;
        if (provider.streamUsage)
            body += streamOptionsText;
    }
    body += '}';
    return body;
}

QByteArray withoutStreamOptions(const QByteArray &body)
{
    return withoutTail(body, streamOptionsText);
}

QByteArray withoutStreaming(const QByteArray &body)
{
    return withoutTail(withoutStreamOptions(body), streamField);
}

} // namespace AgentLoop
