// libFuzzer target: the SSE parser on arbitrary bytes in arbitrary chunks. Besides crashes and
// sanitizer reports it checks the parser's promise: the chunking never changes the events.
#include "protocol/sseparser.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <optional>
#include <vector>

using namespace AgentLoop;

namespace {

std::optional<QList<SseEvent>> parse(QByteArrayView input,
                                     const std::vector<qsizetype> &chunkSizes,
                                     qsizetype limit)
{
    SseParser parser(limit);
    QList<SseEvent> events;
    qsizetype at = 0;
    for (size_t i = 0; at < input.size(); ++i) {
        // A size of 0 feeds an empty chunk, which must change nothing.
        const qsizetype size = chunkSizes.empty() ? input.size()
                                                  : chunkSizes[i % chunkSizes.size()];
        const qsizetype n = std::min(size, input.size() - at);
        Result<QList<SseEvent>> fed = parser.feed(input.sliced(at, n));
        if (!fed)
            return std::nullopt;
        events += *fed;
        at += n;
        if (i > size_t(input.size()) * 2 + 64) // only empty chunks: finish the rest at once
            break;
    }
    if (at < input.size()) {
        Result<QList<SseEvent>> fed = parser.feed(input.sliced(at));
        if (!fed)
            return std::nullopt;
        events += *fed;
    }
    Result<QList<SseEvent>> rest = parser.finish();
    if (!rest)
        return std::nullopt;
    return events + *rest;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider provider(data, size);
    const qsizetype limit = provider.ConsumeBool() ? 32 : SseParser::DefaultMaxLineLength;
    std::vector<qsizetype> chunkSizes(provider.ConsumeIntegralInRange<size_t>(1, 8));
    for (qsizetype &chunkSize : chunkSizes)
        chunkSize = provider.ConsumeIntegralInRange<qsizetype>(0, 48);
    const std::string rest = provider.ConsumeRemainingBytesAsString();
    const QByteArrayView input(rest.data(), qsizetype(rest.size()));

    const std::optional<QList<SseEvent>> whole = parse(input, {}, limit);
    const std::optional<QList<SseEvent>> chunked = parse(input, chunkSizes, limit);
    const std::optional<QList<SseEvent>> bytewise = parse(input, {1}, limit);
    if (whole.has_value() != chunked.has_value() || whole.has_value() != bytewise.has_value())
        std::abort(); // the line limit must not depend on the chunking
    if (whole && (*whole != *chunked || *whole != *bytewise))
        std::abort();
    if (whole) {
        for (const SseEvent &event : *whole) {
            if (event.data.size() > limit || event.event.size() > limit || event.id.size() > limit)
                std::abort();
        }
    }
    return 0;
}
