// libFuzzer target: everything that reads a provider's answer. The bytes are read as a
// non-streamed response body, as one stream payload, as an SSE stream and as one payload per line.
// An assembled message must survive the wire format and the conversation file's form unchanged,
// and the stream's chunk scanner must read every payload as QJsonDocument does.
#include "protocol/completion.h"
#include "protocol/sseparser.h"
#include "protocol/streamassembler.h"
#include "streamstate.h"

#include <cstdlib>

using namespace AgentLoop;

namespace {

void checkRoundTrip(const Result<Completion> &completion)
{
    if (!completion)
        return;
    // What is sent back next turn reads back as itself, and so does what the conversation file
    // keeps (the two differ by reasoning that is not sent back, and "" beside tool calls is null).
    const Message &message = completion->message;
    const Result<Message> again = Message::fromJson(message.toJson());
    if (!again || again->toJson() != message.toJson())
        std::abort();
    const Result<Message> stored = Message::fromJson(message.toStoredJson());
    if (!stored || stored->toStoredJson() != message.toStoredJson()
        || stored->reasoningContent() != message.reasoningContent())
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));

    checkRoundTrip(parseCompletion(bytes));
    (void) httpError(500, bytes);

    StreamAssembler payload;
    (void) payload.addPayload(bytes);
    checkRoundTrip(payload.result());

    SseParser parser;
    StreamAssembler stream;
    for (const Result<QList<SseEvent>> &events : {parser.feed(bytes), parser.finish()}) {
        if (!events)
            break;
        for (const SseEvent &event : *events)
            (void) stream.addEvent(event);
    }
    (void) stream.takeTextDelta();
    (void) stream.takeReasoningDelta();
    checkRoundTrip(stream.result());

    StreamAssembler lines;
    for (const QByteArray &line : bytes.split('\n')) {
        (void) lines.addPayload(line);
        (void) lines.takeTextDelta();
    }
    (void) lines.toolCalls();
    checkRoundTrip(lines.result());

    if (!compareChunkReadings({bytes}).isEmpty()
        || !compareChunkReadings(bytes.split('\n')).isEmpty())
        std::abort();
    return 0;
}
