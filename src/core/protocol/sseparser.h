#pragma once

#include "base/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QMetaType>

#include <functional>
#include <optional>

namespace AgentLoop {

// One dispatched server-sent event.
struct SseEvent
{
    QByteArray event; // the `event:` field; empty when none was sent (EventSource says "message")
    QByteArray data;  // the `data:` lines joined with '\n'
    QByteArray id; // the last `id:` seen so far in the stream (it carries over, as in EventSource)

    friend bool operator==(const SseEvent &, const SseEvent &) = default;
};

// The same event as SseParser hands it to a handler: views into the parser's buffers, valid
// during the call only.
struct SseEventView
{
    QByteArrayView event;
    QByteArrayView data;
    QByteArrayView id;
};

// An incremental Server-Sent Events parser (the WHATWG "event stream" format, the subset
// providers use). Feed it the network chunks as they arrive; it returns each event as soon as the
// blank line that ends it has arrived, wherever the chunks were split (inside a line, between
// '\r' and '\n', inside the byte order mark).
//
// Lines end with CRLF, LF or CR. A line starting with ':' is a comment (keep-alive). `field:
// value` drops one space after the colon; a line without a colon is a field with an empty value.
// `data` lines are joined with '\n'; an event without any `data` line is not dispatched. `retry`
// (digits only) is kept for a client that reconnects (MCP's; a chat stream never is); unknown
// fields are ignored. One UTF-8 byte order mark at the start of the stream is skipped.
//
// Unlike EventSource, finish() dispatches an event whose final blank line never came: some
// providers close the stream right after the last `data:` line.
//
// Memory is bounded: a line, or the data of one event, longer than maxLineLength is an error,
// and from then on every call returns that error.
class SseParser final
{
public:
    static constexpr qsizetype DefaultMaxLineLength = 16 * 1024 * 1024;

    using EventHandler = std::function<void(const SseEventView &)>;

    explicit SseParser(qsizetype maxLineLength = DefaultMaxLineLength);

    // Calls onEvent for each event this chunk completes, in order, as soon as it is complete:
    // nothing is copied or collected on the way.
    Result<void> feed(QByteArrayView chunk, const EventHandler &onEvent);
    // The end of the stream: the event still pending, if any. Then resets, ready for a new stream.
    Result<void> finish(const EventHandler &onEvent);
    // The same, with the events collected: those completed by this chunk (often none).
    Result<QList<SseEvent>> feed(QByteArrayView chunk);
    Result<QList<SseEvent>> finish();
    // Forgets everything, as for a new stream.
    void reset();

    qsizetype maxLineLength() const { return m_maxLineLength; }
    // What a reconnection needs, as the stream set them so far (finish() forgets them with the
    // rest): the last `id:`, and the last `retry:` in milliseconds.
    QByteArray lastEventId() const { return m_lastEventId; }
    std::optional<qint64> reconnectionTimeMs() const { return m_reconnectionTimeMs; }

private:
    bool consume(QByteArrayView bytes, const EventHandler &onEvent);
    bool processLine(QByteArrayView line, const EventHandler &onEvent);
    void dispatch(const EventHandler &onEvent);
    bool fail();

    qsizetype m_maxLineLength;
    QByteArray m_line; // the incomplete line at the end of the previous chunk
    QByteArray m_data; // the data lines of the pending event, each followed by '\n'
    QByteArray m_eventType;
    QByteArray m_lastEventId;
    std::optional<qint64> m_reconnectionTimeMs;
    qsizetype m_bomBytesSeen = 0; // bytes of a possible byte order mark seen at the start
    bool m_pastStart = false;     // the byte order mark question is settled
    bool m_skipLineFeed = false;  // the previous chunk ended with '\r'
    bool m_hasData = false;
    std::optional<Error> m_error;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::SseEvent)
