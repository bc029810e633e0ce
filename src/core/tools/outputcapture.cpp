#include "tools/outputcapture.h"

#include <QStringDecoder>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// A line longer than this is decoded in pieces (at a character boundary), so that a command
// printing megabytes without a line break is not held in memory.
constexpr qsizetype maxLineBytes = 64 * 1024;

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
    if (m_mode == Mode::Undecided) {
        m_line.append(bytes);
        // A BOM, or the zeros of UTF-16, show in the first four bytes.
        if (m_line.size() < 4)
            return;
        decide(false);
        return;
    }
    if (m_utf16) {
        m_utf16Bytes += bytes.size();
        pass(m_utf16->decode(bytes));
        return;
    }
    appendLines(bytes);
}

void OutputCapture::decide(bool streamEnded)
{
    const QByteArray bytes = std::exchange(m_line, {});
    if (bytes.isEmpty() && streamEnded)
        return;
    const auto zeroShare = [&bytes](int zeroAt) {
        const qsizetype pairs = std::min<qsizetype>(bytes.size(), 512) / 2;
        qsizetype zeros = 0;
        for (qsizetype i = 0; i < pairs; ++i) {
            if (bytes.at(2 * i + zeroAt) == 0 && bytes.at(2 * i + 1 - zeroAt) != 0)
                ++zeros;
        }
        // Nine pairs in ten: NUL-separated names (find -print0, git ls-files -z) are not UTF-16.
        return pairs >= 2 && zeros * 10 >= pairs * 9;
    };
    if (bytes.startsWith("\xFF\xFE") || bytes.startsWith("\xFE\xFF")) {
        m_mode = bytes.startsWith("\xFF") ? Mode::Utf16LE : Mode::Utf16BE;
        m_basis = StreamDecoding::Basis::Utf16Bom;
    } else if (zeroShare(1) || zeroShare(0)) {
        m_mode = zeroShare(1) ? Mode::Utf16LE : Mode::Utf16BE;
        m_basis = StreamDecoding::Basis::Utf16Zeros;
    } else {
        m_mode = Mode::Lines;
        m_basis = bytes.startsWith("\xEF\xBB\xBF") ? StreamDecoding::Basis::Utf8Bom
                                                   : StreamDecoding::Basis::ValidUtf8;
    }
    if (m_mode != Mode::Lines) {
        // The decoder drops the byte order mark itself.
        m_utf16 = std::make_unique<QStringDecoder>(
                m_mode == Mode::Utf16LE ? QStringDecoder::Utf16LE : QStringDecoder::Utf16BE);
        m_utf16Bytes = bytes.size();
        pass(m_utf16->decode(bytes));
        return;
    }
    appendLines(bytes);
}

void OutputCapture::appendLines(const QByteArray &bytes)
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
        m_sawInvalidUtf8 = m_sawInvalidUtf8 || !valid;
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
    } else if (!valid) {
        m_sawInvalidUtf8 = true;
    }
    pass(text);
}

void OutputCapture::pass(const QString &text)
{
    keep(m_clixml ? m_clixml->feed(text) : text);
}

CapturedText OutputCapture::finish()
{
    if (m_mode == Mode::Undecided)
        decide(true);
    if (m_utf16) {
        // A stream that ended inside a character.
        if (m_utf16Bytes % 2 != 0)
            pass(QString(QChar::ReplacementCharacter));
    } else {
        decodeLine(m_line, true);
    }
    m_line.clear();
    if (m_clixml)
        keep(m_clixml->finish());
    if (m_tail.size() > m_tailLimit)
        m_tail.remove(0, m_tail.size() - m_tailLimit);

    CapturedText text;
    text.totalChars = m_total;
    text.legacyEncoding = m_usedLegacy ? m_legacy->name() : QString();
    text.clixmlDecoded = m_clixml && m_clixml->decodedAny();
    text.decoding.basis = m_basis;
    switch (m_mode) {
    case Mode::Undecided:
        break;
    case Mode::Utf16LE:
        text.decoding.encoding = u"UTF-16LE"_s;
        break;
    case Mode::Utf16BE:
        text.decoding.encoding = u"UTF-16BE"_s;
        break;
    case Mode::Lines:
        text.decoding.encoding = u"UTF-8"_s;
        if (m_usedLegacy) {
            text.decoding.basis = StreamDecoding::Basis::LegacyLines;
            text.decoding.encoding = m_legacy->name();
        } else if (m_sawInvalidUtf8) {
            text.decoding.basis = StreamDecoding::Basis::InvalidUtf8;
        }
        break;
    }
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

} // namespace AgentLoop
