#include "streamassembler.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct StreamText
{
    Q_DECLARE_TR_FUNCTIONS(StreamAssembler)
};

QString excerpt(QByteArrayView bytes)
{
    constexpr qsizetype limit = 200;
    QString text = QString::fromUtf8(bytes.first(std::min(bytes.size(), limit))).simplified();
    if (bytes.size() > limit)
        text += u"…"_s;
    return text;
}

Error providerError(const QByteArray &payload)
{
    Error error;
    error.kind = Error::Protocol;
    error.providerMessage = providerErrorMessage(payload);
    error.message = StreamText::tr("The provider reported an error in the stream: %1")
                            .arg(error.providerMessage.isEmpty() ? excerpt(payload)
                                                                 : error.providerMessage);
    error.hint = StreamText::tr("The request reached the provider but it could not answer it; "
                                "read its message above.");
    return error;
}

// Ids and names are whole tokens: the first one sent is kept, repeats in later fragments are not.
void keepFirst(QString &field, const QJsonValue &value)
{
    if (field.isEmpty())
        field = value.toString();
}

} // namespace

Result<void> StreamAssembler::fail(Error error)
{
    m_error = std::move(error);
    return *m_error;
}

Result<void> StreamAssembler::addEvent(const SseEvent &event)
{
    if (event.event == "error") {
        if (m_error)
            return *m_error;
        if (m_done)
            return {};
        return fail(providerError(event.data));
    }
    if (!event.event.isEmpty() && event.event != "message")
        return {};
    return addPayload(event.data);
}

Result<void> StreamAssembler::addPayload(QByteArrayView data)
{
    if (m_error)
        return *m_error;
    if (m_done)
        return {};
    const QByteArrayView payload = data.trimmed();
    if (payload.isEmpty())
        return {};
    if (payload == "[DONE]") {
        m_done = true;
        return {};
    }

    const QByteArray bytes = payload.toByteArray();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        const QString reason = parseError.error != QJsonParseError::NoError
                                       ? parseError.errorString()
                                       : StreamText::tr("not an object");
        return fail(Error{Error::Protocol,
                          StreamText::tr("The provider sent a stream event that is not JSON (%1): "
                                         "%2")
                                  .arg(reason, excerpt(payload)),
                          StreamText::tr("The endpoint is probably not an OpenAI-compatible Chat "
                                         "Completions API, or it does not support streaming: "
                                         "try again with streaming turned off.")});
    }
    const QJsonObject root = document.object();

    const QJsonValue error = root.value(u"error"_s);
    if (!error.isUndefined() && !error.isNull())
        return fail(providerError(bytes));

    if (m_id.isEmpty())
        m_id = root.value(u"id"_s).toString();
    if (m_model.isEmpty())
        m_model = root.value(u"model"_s).toString();
    // With stream_options.include_usage the usage arrives in a last chunk whose choices are [].
    if (const auto usage = usageFromJson(root.value(u"usage"_s)))
        m_usage = usage;
    for (const QJsonValue &choice : root.value(u"choices"_s).toArray()) {
        const QJsonObject choiceObject = choice.toObject();
        const QJsonValue index = choiceObject.value(u"index"_s);
        if (index.isUndefined() || index.isNull() || index.toInteger(-1) == 0)
            addChoice(choiceObject);
    }
    return {};
}

void StreamAssembler::addChoice(const QJsonObject &choice)
{
    m_choiceSeen = true;
    const QJsonObject delta = choice.value(u"delta"_s).toObject();

    const QJsonValue content = delta.value(u"content"_s);
    if (content.isString()) {
        m_contentSeen = true;
        const QString text = content.toString();
        m_content += text;
        m_textDelta += text;
        m_hasOutput = m_hasOutput || !text.isEmpty();
    }
    const QString refusal = delta.value(u"refusal"_s).toString();
    if (!refusal.isEmpty()) {
        m_refusal += refusal;
        m_textDelta += refusal;
        m_hasOutput = true;
    }
    QJsonValue reasoning = delta.value(u"reasoning_content"_s);
    if (!reasoning.isString())
        reasoning = delta.value(u"reasoning"_s);
    if (const QString text = reasoning.toString(); !text.isEmpty()) {
        m_reasoning += text;
        m_reasoningDelta += text;
        m_hasOutput = true;
    }
    for (const QJsonValue &fragment : delta.value(u"tool_calls"_s).toArray())
        addToolCall(fragment.toObject());

    const QString finishReason = choice.value(u"finish_reason"_s).toString();
    if (!finishReason.isEmpty())
        m_finishReason = finishReason;
}

void StreamAssembler::addToolCall(const QJsonObject &fragment)
{
    const QJsonValue indexValue = fragment.value(u"index"_s);
    const QJsonValue idValue = fragment.value(u"id"_s);
    int index = 0;
    if (indexValue.isDouble()) {
        index = int(std::clamp<qint64>(indexValue.toInteger(),
                                       std::numeric_limits<int>::min(),
                                       std::numeric_limits<int>::max()));
    } else if (m_calls.isEmpty()) {
        index = 0;
    } else {
        // No index (some gateways): a new id starts the next call, anything else continues.
        const QString id = idValue.toString();
        const QString lastId = m_calls.value(m_lastCallIndex).id;
        const bool startsNewCall = !id.isEmpty() && !lastId.isEmpty() && id != lastId;
        const int lastKey = m_calls.lastKey();
        index = startsNewCall && lastKey < std::numeric_limits<int>::max() ? lastKey + 1
                                                                           : m_lastCallIndex;
    }
    m_lastCallIndex = index;
    m_hasOutput = true;

    ToolCall &call = m_calls[index];
    keepFirst(call.id, idValue);
    const QJsonObject function = fragment.value(u"function"_s).toObject();
    keepFirst(call.name, function.value(u"name"_s));
    const QJsonValue arguments = function.value(u"arguments"_s);
    if (arguments.isString())
        call.arguments += arguments.toString();
    else if (arguments.isObject()) // some providers send the object itself, whole
        call.arguments = QString::fromUtf8(
                QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact));
}

QList<ToolCall> StreamAssembler::toolCalls() const
{
    return m_calls.values();
}

Result<Completion> StreamAssembler::result() const
{
    if (m_error)
        return *m_error;
    if (!m_done && m_finishReason.isEmpty()) {
        return Error{Error::Network,
                     StreamText::tr("The stream ended before the model finished."),
                     StreamText::tr("The connection was cut while the model was answering; try "
                                    "again.")};
    }
    if (!m_choiceSeen) {
        return Error{Error::Protocol,
                     StreamText::tr("The provider's stream has no choices."),
                     StreamText::tr("The endpoint is probably not fully compatible with Chat "
                                    "Completions: try another provider or model, or turn "
                                    "streaming off.")};
    }

    // The message a non-streamed response would carry, read by the same code.
    QJsonObject message{{u"role"_s, u"assistant"_s}};
    QJsonValue content = m_contentSeen ? QJsonValue(m_content) : QJsonValue(QJsonValue::Null);
    if (m_content.isEmpty() && !m_refusal.isEmpty())
        content = m_refusal; // a refusal is what the user reads, as in parseCompletion
    message.insert(u"content"_s, content);
    if (!m_calls.isEmpty()) {
        QJsonArray calls;
        for (const ToolCall &call : m_calls)
            calls.append(toJson(call));
        message.insert(u"tool_calls"_s, calls);
    }
    // On the message, as a non-streamed answer carries it: providers that require it back get it.
    if (!m_reasoning.isEmpty())
        message.insert(u"reasoning_content"_s, m_reasoning);
    Result<Message> parsed = Message::fromJson(message);
    if (!parsed)
        return parsed.error();

    Completion completion;
    completion.message = *parsed;
    completion.finishReason = m_finishReason;
    completion.usage = m_usage;
    completion.id = m_id;
    completion.model = m_model;
    return completion;
}

} // namespace AgentLoop
