#include "tools/outputcapture.h"

#include <QStringDecoder>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// A line longer than this is decoded in pieces (at a character boundary), so that a command
// printing megabytes without a line break is not held in memory.
constexpr qsizetype maxLineBytes = 64 * 1024;

// How many bytes at the end of a UTF-8 text begin a character whose continuation bytes have not
// arrived yet.
qsizetype incompleteUtf8Tail(QByteArrayView bytes)
{
    qsizetype continuations = 0;
    for (qsizetype i = bytes.size() - 1; i >= 0 && continuations < 4; --i) {
        const auto byte = uchar(bytes.at(i));
        if ((byte & 0xC0) == 0x80) {
            ++continuations;
            continue;
        }
        const qsizetype length = byte >= 0xC2 && byte <= 0xDF   ? 2
                                 : byte >= 0xE0 && byte <= 0xEF ? 3
                                 : byte >= 0xF0 && byte <= 0xF4 ? 4
                                                                : 1;
        return length > continuations + 1 ? continuations + 1 : 0;
    }
    return 0;
}

} // namespace

QString CapturedText::render() const
{
    if (!isTruncated())
        return head + tail;
    return head
           + u"\n[... %1 characters cut; the stream had %2 characters in total ...]\n"_s
                     .arg(cutChars())
                     .arg(totalChars)
           + tail;
}

OutputCapture::OutputCapture(CaptureOptions options)
    : m_headLimit(std::max<qsizetype>(options.limit, 0) / 2)
    , m_tailLimit(std::max<qsizetype>(options.limit, 0) - m_headLimit)
{
    if (!options.legacyEncoding.isEmpty()) {
        m_legacy = std::make_unique<LegacyDecoder>(options.legacyEncoding);
        if (!m_legacy->isValid())
            m_legacy.reset();
    }
    if (options.decodeClixml)
        m_clixml = std::make_unique<ClixmlFilter>();
}

OutputCapture::~OutputCapture() = default;

void OutputCapture::append(const QByteArray &bytes)
{
    const qsizetype lastBreak = bytes.lastIndexOf('\n');
    if (lastBreak >= 0) {
        m_line.append(QByteArrayView(bytes).first(lastBreak + 1));
        decodeLines(m_line);
        m_line = bytes.sliced(lastBreak + 1);
    } else {
        m_line.append(bytes);
    }
    if (m_line.size() > maxLineBytes) {
        // Decode what is complete of the long line; the start of a split character waits.
        const qsizetype wait = incompleteUtf8Tail(m_line);
        decodeLine(QByteArrayView(m_line).first(m_line.size() - wait), false);
        m_line.remove(0, m_line.size() - wait);
    }
}

QString OutputCapture::decodeUtf8(QByteArrayView bytes, bool *valid)
{
    // A UTF-8 byte order mark is dropped at the start of the stream only.
    QStringDecoder utf8(QStringDecoder::Utf8,
                        m_atStart ? QStringDecoder::Flag::Stateless
                                  : QStringDecoder::Flag::Stateless
                                            | QStringDecoder::Flag::ConvertInitialBom);
    m_atStart = false;
    QString text = utf8.decode(bytes);
    *valid = !utf8.hasError();
    return text;
}

void OutputCapture::decodeLines(QByteArrayView lines)
{
    // All at once while every line is UTF-8, the usual case; line by line when one is not.
    const bool atStart = m_atStart;
    bool valid = false;
    const QString text = decodeUtf8(lines, &valid);
    if (valid || !m_legacy) {
        pass(text);
        return;
    }
    m_atStart = atStart;
    while (!lines.isEmpty()) {
        const qsizetype end = lines.indexOf('\n') + 1; // lines ends with one
        decodeLine(lines.first(end), false);
        lines = lines.sliced(end);
    }
}

void OutputCapture::decodeLine(QByteArrayView line, bool streamEnded)
{
    if (line.isEmpty())
        return;
    bool valid = false;
    QString text = decodeUtf8(line, &valid);
    if (!valid && m_legacy) {
        text = m_legacy->decode(line);
        if (streamEnded)
            text += m_legacy->finish();
        m_usedLegacy = true;
    }
    pass(text);
}

void OutputCapture::pass(const QString &text)
{
    keep(m_clixml ? m_clixml->feed(text) : text);
}

CapturedText OutputCapture::finish()
{
    decodeLine(m_line, true);
    m_line.clear();
    if (m_clixml)
        keep(m_clixml->finish());
    if (m_tail.size() > m_tailLimit)
        m_tail.remove(0, m_tail.size() - m_tailLimit);

    CapturedText text;
    text.totalChars = m_total;
    text.legacyEncoding = m_usedLegacy ? m_legacy->name() : QString();
    text.clixmlDecoded = m_clixml && m_clixml->decodedAny();
    if (m_total == m_head.size() + m_tail.size()) {
        text.head = m_head + m_tail;
        return text;
    }
    // Never keep half of a surrogate pair at either side of the cut.
    if (!m_head.isEmpty() && m_head.back().isHighSurrogate())
        m_head.chop(1);
    if (!m_tail.isEmpty() && m_tail.front().isLowSurrogate())
        m_tail.remove(0, 1);
    text.head = m_head;
    text.tail = m_tail;
    return text;
}

void OutputCapture::keep(QStringView text)
{
    m_total += text.size();
    if (m_head.size() < m_headLimit) {
        const qsizetype n = std::min(text.size(), m_headLimit - m_head.size());
        m_head.append(text.first(n));
        text = text.sliced(n);
    }
    if (text.isEmpty())
        return;
    if (text.size() >= m_tailLimit) {
        m_tail = text.last(m_tailLimit).toString();
        return;
    }
    // A rolling tail, trimmed only when it has doubled, so that trimming stays amortised.
    m_tail.append(text);
    if (m_tail.size() > 2 * m_tailLimit)
        m_tail.remove(0, m_tail.size() - m_tailLimit);
}

} // namespace AgentLoop
