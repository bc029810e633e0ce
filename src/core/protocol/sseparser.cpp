#include "protocol/sseparser.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstring>
#include <utility>

namespace AgentLoop {

namespace {

struct SseParserText
{
    Q_DECLARE_TR_FUNCTIONS(SseParser)
};

constexpr char byteOrderMark[] = "\xEF\xBB\xBF";
constexpr qsizetype byteOrderMarkSize = 3;

// The position of the first '\r' or '\n' in bytes at or after from, or bytes.size().
// memchr keeps this fast even in unoptimised builds; the callers remember the positions found so
// that a chunk is scanned once, however many lines it holds.
qsizetype find(QByteArrayView bytes, qsizetype from, char c)
{
    if (from >= bytes.size())
        return bytes.size();
    const void *hit = std::memchr(bytes.data() + from, c, size_t(bytes.size() - from));
    return hit ? static_cast<const char *>(hit) - bytes.data() : bytes.size();
}

SseParser::EventHandler collectInto(QList<SseEvent> &events)
{
    return [&events](const SseEventView &event) {
        events.append(SseEvent{event.event.toByteArray(),
                               event.data.toByteArray(),
                               event.id.toByteArray()});
    };
}

} // namespace

SseParser::SseParser(qsizetype maxLineLength)
    : m_maxLineLength(maxLineLength)
{}

void SseParser::reset()
{
    *this = SseParser(m_maxLineLength);
}

bool SseParser::fail()
{
    m_error = Error{Error::Protocol,
                    SseParserText::tr("The provider sent a server-sent event longer than %1 bytes.")
                            .arg(m_maxLineLength),
                    SseParserText::tr("The endpoint is probably not streaming Chat Completions "
                                      "events; try again with streaming turned off.")};
    m_line.clear();
    m_data.clear();
    return false;
}

Result<void> SseParser::feed(QByteArrayView chunk, const EventHandler &onEvent)
{
    if (m_error)
        return *m_error;
    // The byte order mark may itself be split across chunks: hold its bytes until it is complete
    // or turns out to be something else.
    while (!m_pastStart && !chunk.isEmpty()) {
        if (chunk.front() == byteOrderMark[m_bomBytesSeen]) {
            chunk = chunk.sliced(1);
            if (++m_bomBytesSeen == byteOrderMarkSize)
                m_pastStart = true;
        } else {
            m_pastStart = true;
            if (!consume(QByteArrayView(byteOrderMark, m_bomBytesSeen), onEvent))
                return *m_error;
        }
    }
    if (!consume(chunk, onEvent))
        return *m_error;
    return {};
}

Result<void> SseParser::finish(const EventHandler &onEvent)
{
    if (m_error)
        return *m_error;
    if (!m_pastStart && !consume(QByteArrayView(byteOrderMark, m_bomBytesSeen), onEvent))
        return *m_error;
    if (!m_line.isEmpty()) {
        const QByteArray line = std::exchange(m_line, {});
        if (!processLine(line, onEvent))
            return *m_error;
    }
    dispatch(onEvent);
    reset();
    return {};
}

Result<QList<SseEvent>> SseParser::feed(QByteArrayView chunk)
{
    QList<SseEvent> events;
    if (const Result<void> fed = feed(chunk, collectInto(events)); !fed)
        return fed.error();
    return events;
}

Result<QList<SseEvent>> SseParser::finish()
{
    QList<SseEvent> events;
    if (const Result<void> finished = finish(collectInto(events)); !finished)
        return finished.error();
    return events;
}

bool SseParser::consume(QByteArrayView bytes, const EventHandler &onEvent)
{
    qsizetype pos = 0;
    if (m_skipLineFeed && !bytes.isEmpty()) {
        m_skipLineFeed = false;
        if (bytes.front() == '\n')
            pos = 1;
    }
    qsizetype nextCr = -1;
    qsizetype nextLf = -1;
    while (pos < bytes.size()) {
        if (nextCr < pos)
            nextCr = find(bytes, pos, '\r');
        if (nextLf < pos)
            nextLf = find(bytes, pos, '\n');
        const qsizetype end = std::min(nextCr, nextLf);
        if (m_line.size() + (end - pos) > m_maxLineLength)
            return fail();
        if (end == bytes.size()) {
            m_line.append(bytes.sliced(pos));
            break;
        }
        bool ok = true;
        if (m_line.isEmpty()) {
            ok = processLine(bytes.sliced(pos, end - pos), onEvent);
        } else {
            m_line.append(bytes.sliced(pos, end - pos));
            ok = processLine(m_line, onEvent);
            m_line.resize(0); // keeps the capacity for the next line split across chunks
        }
        if (!ok)
            return false;
        pos = end + 1;
        if (bytes[end] == '\r') {
            if (pos == bytes.size())
                m_skipLineFeed = true;
            else if (bytes[pos] == '\n')
                ++pos;
        }
    }
    return true;
}

bool SseParser::processLine(QByteArrayView line, const EventHandler &onEvent)
{
    if (line.isEmpty()) {
        dispatch(onEvent);
        return true;
    }
    if (line.front() == ':')
        return true;
    QByteArrayView field = line;
    QByteArrayView value;
    const qsizetype colon = line.indexOf(':');
    if (colon >= 0) {
        field = line.first(colon);
        value = line.sliced(colon + 1);
        if (value.startsWith(' '))
            value = value.sliced(1);
    }
    if (field == "data") {
        if (m_data.size() + value.size() + 1 > m_maxLineLength)
            return fail();
        m_data.append(value);
        m_data.append('\n');
    } else if (field == "event") {
        m_eventType = value.toByteArray();
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_lastEventId = value.toByteArray();
    } else if (field == "retry") {
        // Digits only, as EventSource reads it; more than nine would be days, and could overflow.
        const bool digits = !value.isEmpty() && value.size() <= 9
                            && std::all_of(value.begin(), value.end(), [](char c) {
                                   return c >= '0' && c <= '9';
                               });
        if (digits)
            m_reconnectionTimeMs = value.toLongLong();
    }
    return true;
}

void SseParser::dispatch(const EventHandler &onEvent)
{
    if (!m_data.isEmpty()) // without the '\n' after the last data line
        onEvent(SseEventView{m_eventType, QByteArrayView(m_data).chopped(1), m_lastEventId});
    m_eventType.clear();
    m_data.resize(0); // keeps the capacity: most events are about the same size
}

} // namespace AgentLoop
