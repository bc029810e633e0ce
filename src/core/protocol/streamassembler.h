#pragma once

#include "base/result.h"
#include "protocol/chunkscanner.h"
#include "protocol/completion.h"
#include "protocol/sseparser.h"

#include <QByteArrayView>
#include <QHash>
#include <QMap>
#include <QString>

#include <optional>
#include <utility>

namespace AgentLoop {

// Assembles a streamed chat completion (`stream: true`) from its `chat.completion.chunk`
// payloads into the Completion the same request without streaming would have given: the message
// goes through Message::fromJson like a non-streamed one, so the same leniency applies.
//
//   SseParser parser;                       // one of each per response
//   StreamAssembler assembler;
//   on readyRead:
//       const Result<QList<SseEvent>> events = parser.feed(reply->readAll());
//       if (!events) ...                     // a line over the limit: fail the turn
//       for (const SseEvent &event : *events)
//           (void)assembler.addEvent(event); // an error is also kept for result()
//       if (const QString text = assembler.takeTextDelta(); !text.isEmpty())
//           emit textArrived(text);          // coalesced per network chunk
//   on finished: the same with parser.finish(), then assembler.result().
//
// Only choice 0 is used (n > 1 gives several). Text, refusal and reasoning deltas are
// concatenated; tool-call fragments are assembled by `index`, in index order, wherever the id,
// name and argument pieces arrive (a fragment without an index continues the last call unless it
// brings a new id; a new id at an index whose call has another id starts a call after the others,
// which later fragments at that index continue); the first id and name sent for a call are kept,
// later repeats are ignored, and the call's other members (Gemini's extra_content) are kept. Calls
// that came without an id get one (assignMissingToolCallIds).
// More than maxToolCallsPerMessage calls (an index at or past it, or one call too many) fail the
// stream at once, before anything is kept for that call.
// `[DONE]` ends the stream; payloads after it are ignored. An `error` object (or an `event: error`)
// ends it with the provider's message; events with other names are ignored. Whether the loop
// continues must be read from the message's tool calls, never from finishReason, which may come
// late or not at all.
class StreamAssembler final
{
public:
    // How chunks are read. The scanner reads the usual chunk shapes without building a DOM and
    // leaves every other chunk to QJsonDocument, with the same outcome; JsonDocumentOnly is there
    // for the tests and the fuzzer that compare the two.
    enum class ChunkReading { Scanner, JsonDocumentOnly };

    explicit StreamAssembler(ChunkReading reading = ChunkReading::Scanner)
        : m_reading(reading)
    {}

    // One `data:` payload. An error (a payload that is not a JSON object, an `error` object) is
    // returned, kept for result(), and ends the stream.
    Result<void> addPayload(QByteArrayView data);
    // One event from SseParser: its data, or an error when the event is named `error`.
    Result<void> addEvent(const SseEventView &event);
    Result<void> addEvent(const SseEvent &event)
    {
        return addEvent(SseEventView{event.event, event.data, event.id});
    }

    // The outcome, to ask for once the network reply has finished. A stream cut before both
    // `[DONE]` and a finish_reason is an error (Qt may report a cut chunked stream as success).
    Result<Completion> result() const;

    // Incremental output for the UI, signal-free: each take*() returns what arrived since the
    // previous call to it (or since the start) and forgets it. Refusal deltas count as text: a
    // refusal is shown as the answer, as parseCompletion does.
    QString takeTextDelta() { return std::exchange(m_textDelta, {}); }
    QString takeReasoningDelta() { return std::exchange(m_reasoningDelta, {}); }

    // Everything so far.
    QString content() const { return m_content; }
    QString refusal() const { return m_refusal; }
    // DeepSeek's `reasoning_content` (or `reasoning`, as some gateways name it): kept apart from
    // the answer; some providers require it on the assistant message sent back.
    QString reasoningContent() const { return m_reasoning; }
    // ReasoningContent when any of it came as `reasoning_content` (then it is sent back).
    ReasoningField reasoningField() const { return m_reasoningField; }
    QList<ToolCall> toolCalls() const;
    QString finishReason() const { return m_finishReason; }

    bool isDone() const { return m_done; } // `[DONE]` arrived
    bool hasError() const { return m_error.has_value(); }
    // The message was refused (too many tool calls): nothing more of this stream is of use.
    bool isRefused() const { return m_refused; }
    // True once any part of the answer (text, refusal, reasoning, a tool call) arrived: from then
    // on a broken stream must not be retried silently, or the user would see the text twice.
    bool hasOutput() const { return m_hasOutput; }

    // How many chunks went to QJsonDocument (all of them with JsonDocumentOnly).
    qsizetype jsonDocumentChunks() const { return m_jsonDocumentChunks; }

private:
    Result<void> fail(Error error);
    Result<void> addWithJsonDocument(QByteArrayView payload);
    Result<void> add(const ChunkDelta &chunk);
    Result<void> addChoice(const ChoiceDelta &choice);
    Result<void> addToolCall(const ToolCallDelta &fragment);

    ChunkReading m_reading;
    ChunkScanner m_scanner;
    qsizetype m_jsonDocumentChunks = 0;

    QString m_content;
    QString m_refusal;
    QString m_reasoning;
    QString m_textDelta;
    QString m_reasoningDelta;
    bool m_contentSeen = false; // a `content` string arrived, even "" (else content is null)
    // Calls in the order they are sent back: by the provider's index, then, for calls started at
    // an index that already had one (another id at the same index), in the order they came.
    struct CallKey
    {
        int index = 0;
        int serial = 0;
        friend auto operator<=>(const CallKey &, const CallKey &) = default;
    };
    QMap<CallKey, ToolCall> m_calls;    // arguments still growing
    QHash<int, CallKey> m_newestCallAt; // the provider's index → the call it continues
    CallKey m_lastCall;
    ReasoningField m_reasoningField = ReasoningField::Reasoning;
    QString m_finishReason;
    std::optional<Usage> m_usage;
    QString m_id;
    QString m_model;
    bool m_choiceSeen = false;
    bool m_hasOutput = false;
    bool m_done = false;
    bool m_refused = false;
    std::optional<Error> m_error;
};

} // namespace AgentLoop
