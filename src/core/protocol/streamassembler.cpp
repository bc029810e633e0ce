#include "protocol/streamassembler.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <deque>
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

Error providerError(QByteArrayView payload)
{
    Error error;
    error.kind = Error::Protocol;
    error.providerMessage = providerErrorMessage(payload.toByteArray());
    error.message = StreamText::tr("The provider reported an error in the stream: %1")
                            .arg(error.providerMessage.isEmpty() ? excerpt(payload)
                                                                 : error.providerMessage);
    error.hint = StreamText::tr("The request reached the provider but it could not answer it; "
                                "read its message above.");
    return error;
}

// Ids and names are whole tokens: the first one sent is kept, repeats in later fragments are not.
void keepFirst(QString &field, QStringView value)
{
    if (field.isEmpty())
        field = value.toString();
}

// Keeps a string alive for the views of a ChunkDelta (a deque never moves its elements).
QStringView keep(std::deque<QString> &texts, QString text)
{
    return texts.emplace_back(std::move(text));
}

ToolCallDelta toolCallDeltaFromJson(const QJsonObject &fragment, std::deque<QString> &texts)
{
    ToolCallDelta call;
    if (const QJsonValue index = fragment.value(u"index"_s); index.isDouble())
        call.index = index.toInteger();
    call.id = keep(texts, fragment.value(u"id"_s).toString());
    const QJsonObject function = fragment.value(u"function"_s).toObject();
    call.name = keep(texts, function.value(u"name"_s).toString());
    const QJsonValue arguments = function.value(u"arguments"_s);
    if (arguments.isString()) {
        call.arguments = keep(texts, arguments.toString());
    } else if (arguments.isObject()) { // some providers send the object itself, whole
        call.arguments = keep(texts,
                              QString::fromUtf8(QJsonDocument(arguments.toObject())
                                                        .toJson(QJsonDocument::Compact)));
        call.argumentsAreWhole = true;
    }
    call.extra = toolCallExtra(fragment);
    return call;
}

// The chunk as QJsonDocument reads it: what ChunkScanner must agree with, field for field.
ChunkDelta chunkDeltaFromJson(const QJsonObject &root, std::deque<QString> &texts)
{
    ChunkDelta chunk;
    chunk.id = keep(texts, root.value(u"id"_s).toString());
    chunk.model = keep(texts, root.value(u"model"_s).toString());
    chunk.usage = usageFromJson(root.value(u"usage"_s));
    for (const QJsonValue &choiceValue : root.value(u"choices"_s).toArray()) {
        const QJsonObject choiceObject = choiceValue.toObject();
        const QJsonValue index = choiceObject.value(u"index"_s);
        if (!index.isUndefined() && !index.isNull() && index.toInteger(-1) != 0)
            continue;
        ChoiceDelta &choice = chunk.choices.emplace_back();
        const QJsonObject delta = choiceObject.value(u"delta"_s).toObject();
        const QJsonValue content = delta.value(u"content"_s);
        if (content.isString())
            choice.content = keep(texts, content.toString());
        choice.refusal = keep(texts, delta.value(u"refusal"_s).toString());
        QJsonValue reasoning = delta.value(u"reasoning_content"_s);
        choice.reasoningField = ReasoningField::ReasoningContent;
        if (!reasoning.isString()) {
            reasoning = delta.value(u"reasoning"_s);
            choice.reasoningField = ReasoningField::Reasoning;
        }
        choice.reasoning = keep(texts, reasoning.toString());
        // Mistral's magistral models may stream content as parts, thinking among them.
        if (const std::optional<ContentParts> parts = contentParts(content)) {
            choice.content = keep(texts, parts->text);
            if (choice.reasoning.isEmpty() && !parts->thinking.isEmpty()) {
                choice.reasoning = keep(texts, parts->thinking);
                choice.reasoningField = ReasoningField::Reasoning;
            }
        }
        for (const QJsonValue &fragment : delta.value(u"tool_calls"_s).toArray())
            choice.toolCalls.append(toolCallDeltaFromJson(fragment.toObject(), texts));
        choice.finishReason = keep(texts, choiceObject.value(u"finish_reason"_s).toString());
    }
    return chunk;
}

} // namespace

Result<void> StreamAssembler::fail(Error error)
{
    m_error = std::move(error);
    return *m_error;
}

Result<void> StreamAssembler::addEvent(const SseEventView &event)
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
    if (m_reading == ChunkReading::Scanner) {
        ChunkDelta chunk;
        if (m_scanner.scan(payload, {m_id.isEmpty(), m_model.isEmpty()}, chunk))
            return add(chunk);
    }
    return addWithJsonDocument(payload);
}

Result<void> StreamAssembler::addWithJsonDocument(QByteArrayView payload)
{
    ++m_jsonDocumentChunks;
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

    std::deque<QString> texts;
    return add(chunkDeltaFromJson(root, texts));
}

Result<void> StreamAssembler::add(const ChunkDelta &chunk)
{
    if (m_id.isEmpty())
        m_id = chunk.id.toString();
    if (m_model.isEmpty())
        m_model = chunk.model.toString();
    // With stream_options.include_usage the usage arrives in a last chunk whose choices are [].
    if (chunk.usage)
        m_usage = chunk.usage;
    for (const ChoiceDelta &choice : chunk.choices) {
        if (Result<void> added = addChoice(choice); !added)
            return added;
    }
    return {};
}

Result<void> StreamAssembler::addChoice(const ChoiceDelta &choice)
{
    m_choiceSeen = true;
    if (choice.content) {
        m_contentSeen = true;
        m_content += *choice.content;
        m_textDelta += *choice.content;
        m_hasOutput = m_hasOutput || !choice.content->isEmpty();
    }
    if (!choice.refusal.isEmpty()) {
        m_refusal += choice.refusal;
        m_textDelta += choice.refusal;
        m_hasOutput = true;
    }
    if (!choice.reasoning.isEmpty()) {
        // Sent back when any of it came as `reasoning_content`: the provider knows that field.
        if (choice.reasoningField == ReasoningField::ReasoningContent)
            m_reasoningField = ReasoningField::ReasoningContent;
        m_reasoning += choice.reasoning;
        m_reasoningDelta += choice.reasoning;
        m_hasOutput = true;
    }
    for (const ToolCallDelta &fragment : choice.toolCalls) {
        if (Result<void> added = addToolCall(fragment); !added)
            return added;
    }
    if (!choice.finishReason.isEmpty())
        m_finishReason = choice.finishReason.toString();
    return {};
}

Result<void> StreamAssembler::addToolCall(const ToolCallDelta &fragment)
{
    // The call the fragment belongs to, and the provider index it counts under.
    int index = 0;
    CallKey key;
    bool newCall = true;
    if (fragment.index) {
        index = int(std::clamp<qint64>(*fragment.index,
                                       std::numeric_limits<int>::min(),
                                       std::numeric_limits<int>::max()));
        key = CallKey{index, 0};
        if (const auto newest = m_newestCallAt.constFind(index); newest != m_newestCallAt.cend()) {
            // Some gateways send every call at index 0, each with its own id: a new id where a
            // call with an id is open starts another call, after the others. Qwen's continuations
            // (no id, or the same id again) continue the call.
            const QString &openId = m_calls.value(*newest).id;
            newCall = !fragment.id.isEmpty() && !openId.isEmpty() && fragment.id != openId;
            key = newCall ? CallKey{m_calls.lastKey().index, m_calls.lastKey().serial + 1}
                          : *newest;
        }
    } else if (!m_calls.isEmpty()) {
        // No index (some gateways): a new id starts the next call, anything else continues. (The
        // last index is below maxToolCallsPerMessage, so one more cannot overflow.)
        const QString &lastId = m_calls.value(m_lastCall).id;
        newCall = !fragment.id.isEmpty() && !lastId.isEmpty() && fragment.id != lastId;
        index = m_calls.lastKey().index + 1;
        key = newCall ? CallKey{index, 0} : m_lastCall;
    }
    // Checked before the call is kept: an index of 2000000000 costs nothing.
    if (key.index >= maxToolCallsPerMessage
        || (newCall && m_calls.size() >= maxToolCallsPerMessage)) {
        m_refused = true;
        return fail(tooManyToolCallsError());
    }
    if (newCall)
        m_newestCallAt.insert(index, key);
    m_lastCall = key;
    m_hasOutput = true;

    ToolCall &call = m_calls[key];
    keepFirst(call.id, fragment.id);
    keepFirst(call.name, fragment.name);
    for (auto it = fragment.extra.begin(); it != fragment.extra.end(); ++it) {
        if (!call.extra.contains(it.key()))
            call.extra.insert(it.key(), it.value());
    }
    if (!fragment.arguments)
        return {};
    if (fragment.argumentsAreWhole)
        call.arguments = fragment.arguments->toString();
    else
        call.arguments += *fragment.arguments;
    return {};
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
        assignMissingToolCallIds(calls, m_id);
        message.insert(u"tool_calls"_s, calls);
    }
    // On the message, as a non-streamed answer carries it, under the name it came as.
    if (!m_reasoning.isEmpty()) {
        message.insert(m_reasoningField == ReasoningField::ReasoningContent ? u"reasoning_content"_s
                                                                            : u"reasoning"_s,
                       m_reasoning);
    }
    Result<Message> parsed = Message::fromJson(message);
    if (!parsed)
        return parsed.error();

    Completion completion;
    completion.message = *parsed;
    completion.providerFinishReason = m_finishReason;
    completion.finishReason = finishReasonFromProvider(m_finishReason);
    completion.usage = m_usage;
    completion.id = m_id;
    completion.model = m_model;
    return completion;
}

} // namespace AgentLoop
