#include "base/redaction.h"

#include "base/hexdigit.h"

#include <QMutex>
#include <QStringView>

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

// How it stays fast on a 64 MB body that does not hold the key (the common case: every response
// is searched): the text goes through memory once, 16 KB at a time, and nothing is allocated
// unless something is found.
// 1. The fixed encodings (plain, hex, base64 at each alignment, UTF-16) are searched together,
//    Wu-Manber: a window as long as the shortest of them moves on by as much as its last three
//    units allow, usually nearly its whole length.
// 2. Escaped forms mix literal and escaped characters in any of 2^n ways, so they are decoded,
//    not listed: every '%' and '\' is found with memchr (or Qt's SIMD search), and only an escape
//    that decodes to a character of the key opens a window around it, as wide as an escaped key
//    can be, in which the decoded text is searched with KMP. Overlapping windows are merged, so
//    no character is decoded twice: linear even in a body made of escapes.
// Spans found by either are merged, then replaced in one copy.

namespace AgentLoop {

namespace {

// Very short "keys" (a test's "x") would shred every text they appear in; real keys are long.
bool worthRedacting(const QString &secret)
{
    return secret.trimmed().size() >= 4;
}

enum class Marker : quint8 { Plain, Utf16Le, Utf16Be };

struct Span
{
    qsizetype begin;
    qsizetype end;
    Marker marker;
};

// Spans arrive in the order of their beginnings; overlapping ones become one (a key made of one
// repeated character in a long run of it is one span, not one per position).
void addSpan(std::vector<Span> *spans, const Span &span)
{
    if (!spans->empty() && span.begin < spans->back().end)
        spans->back().end = std::max(spans->back().end, span.end);
    else
        spans->push_back(span);
}

template<typename Unit>
uint codeOf(Unit unit)
{
    if constexpr (sizeof(Unit) == 1)
        return uchar(unit);
    else
        return uint(unit);
}

template<typename Unit>
qsizetype indexOfUnit(const Unit *text, qsizetype from, qsizetype limit, char unit)
{
    if (from >= limit)
        return -1;
    if constexpr (sizeof(Unit) == 1) {
        const void *hit = std::memchr(text + from, unit, size_t(limit - from));
        return hit ? static_cast<const Unit *>(hit) - text : -1;
    } else {
        return QStringView(text, limit).indexOf(QChar(QLatin1Char(unit)), from);
    }
}

// One escape read as the units it stands for: UTF-8 bytes in the QByteArray form, UTF-16 code
// units in the QString form.
template<typename Unit>
struct Token
{
    qsizetype length = 1; // in the text
    int count = 0;
    std::array<Unit, 4> units{};

    void append(uint unit) { units[size_t(count++)] = Unit(unit); }
    void appendCodePoint(char32_t point)
    {
        if constexpr (sizeof(Unit) == 1) {
            if (point < 0x80) {
                append(point);
            } else if (point < 0x800) {
                append(0xC0 | point >> 6);
                append(0x80 | (point & 0x3F));
            } else if (point < 0x10000) {
                append(0xE0 | point >> 12);
                append(0x80 | (point >> 6 & 0x3F));
                append(0x80 | (point & 0x3F));
            } else {
                append(0xF0 | point >> 18);
                append(0x80 | (point >> 12 & 0x3F));
                append(0x80 | (point >> 6 & 0x3F));
                append(0x80 | (point & 0x3F));
            }
        } else {
            if (QChar::requiresSurrogates(point)) {
                append(QChar::highSurrogate(point));
                append(QChar::lowSurrogate(point));
            } else {
                append(point);
            }
        }
    }
};

// The %XX or JSON escape at text[at], or false when there is none (a '%' or '\' as itself).
template<typename Unit>
bool readEscape(const Unit *text, qsizetype at, qsizetype size, Token<Unit> *token)
{
    const auto hexAt = [&](qsizetype from, int digits) {
        if (from + digits > size)
            return -1;
        int value = 0;
        for (int i = 0; i < digits; ++i) {
            const int digit = hexDigitValue(codeOf(text[from + i]));
            if (digit < 0)
                return -1;
            value = value * 16 + digit;
        }
        return value;
    };
    *token = {};
    const uint first = codeOf(text[at]);
    if (first == '%') {
        const int byte = hexAt(at + 1, 2);
        if (byte < 0)
            return false;
        token->length = 3;
        if (sizeof(Unit) == 1 || byte < 0x80) {
            token->append(uint(byte));
            return true;
        }
        // The QString form's units are UTF-16: %E2%82%AC is one character.
        const int length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 ? 2 : 0;
        if (length == 0 || byte > 0xF4)
            return false;
        char32_t point = char32_t(byte) & (0x7Fu >> length);
        for (int i = 1; i < length; ++i) {
            const qsizetype next = at + 3 * i;
            if (next >= size || codeOf(text[next]) != '%')
                return false;
            const int continuation = hexAt(next + 1, 2);
            if (continuation < 0 || (continuation & 0xC0) != 0x80)
                return false;
            point = point << 6 | char32_t(continuation & 0x3F);
        }
        static constexpr char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (point < least[length] || point > 0x10FFFF || QChar::isSurrogate(point))
            return false;
        token->length = 3 * length;
        token->appendCodePoint(point);
        return true;
    }
    if (first != '\\' || at + 1 >= size)
        return false;
    const uint second = codeOf(text[at + 1]);
    token->length = 2;
    switch (second) {
    case '"':
    case '\\':
    case '/':
        token->append(second);
        return true;
    case 'b':
        token->append('\b');
        return true;
    case 'f':
        token->append('\f');
        return true;
    case 'n':
        token->append('\n');
        return true;
    case 'r':
        token->append('\r');
        return true;
    case 't':
        token->append('\t');
        return true;
    case 'u':
        break;
    default:
        return false;
    }
    const int unit = hexAt(at + 2, 4);
    if (unit < 0)
        return false;
    token->length = 6;
    if constexpr (sizeof(Unit) == 2) {
        token->append(uint(unit));
    } else {
        // UTF-8 has no surrogates: a pair is one character, a lone half none.
        char32_t point = char32_t(unit);
        if (QChar::isHighSurrogate(point)) {
            if (at + 8 > size || codeOf(text[at + 6]) != '\\' || codeOf(text[at + 7]) != 'u')
                return false;
            const int low = hexAt(at + 8, 4);
            if (low < 0 || !QChar::isLowSurrogate(char32_t(low)))
                return false;
            point = QChar::surrogateToUcs4(char16_t(unit), char16_t(low));
            token->length = 12;
        } else if (QChar::isLowSurrogate(point)) {
            return false;
        }
        token->appendCodePoint(point);
    }
    return true;
}

template<typename Unit>
struct Needle
{
    std::vector<Unit> units;
    Marker marker = Marker::Plain;
    qsizetype partner = -1; // for UTF-16, the other byte order
};

// One search through one text.
template<typename Unit>
struct Scan
{
    const Unit *text = nullptr;
    qsizetype size = 0;
    std::vector<Span> needles;
    std::vector<Span> escaped;
    qsizetype last = 0;        // Wu-Manber: where the current window ends
    qsizetype windowBegin = 0; // the decoding window, when windowEnd >= 0
    qsizetype windowEnd = -1;
};

// Everything the search needs about one secret, in one form (bytes or UTF-16), made once.
template<typename Unit>
class SecretPattern final
{
public:
    explicit SecretPattern(const QString &secret);

    const QString &secret() const { return m_secret; }
    // Sorted, merged spans of text that hold the secret in some encoding.
    std::vector<Span> find(const Unit *text, qsizetype size) const;

private:
    // Of three units: few triples of ordinary text are also in a needle (pairs often are).
    static uint trigram(const Unit *units)
    {
        return (codeOf(units[0]) << 10 ^ codeOf(units[1]) << 5 ^ codeOf(units[2])) & 0xFFFF;
    }
    bool isKeyUnit(Unit unit) const
    {
        const uint code = codeOf(unit);
        return m_keyUnits[code >> 6] >> (code & 63) & 1;
    }
    // Its index; an encoding the same as another's is searched once.
    qsizetype addNeedle(const QByteArray &bytes, Marker marker);
    // Wu-Manber, for windows that end before limit.
    void findNeedles(Scan<Unit> *scan, qsizetype limit) const;
    // The escapes in [from, limit), each widening the window or starting a new one.
    void findEscaped(Scan<Unit> *scan, qsizetype from, qsizetype limit) const;
    // KMP over the window's decoded units; closes the window.
    void searchDecoded(Scan<Unit> *scan) const;

    QString m_secret;
    std::vector<Unit> m_key;
    std::vector<Needle<Unit>> m_needles;
    qsizetype m_window = 0; // the shortest needle
    std::array<quint8, 65536> m_shift{};
    std::vector<int> m_failure; // KMP's, over m_key
    std::vector<quint64> m_keyUnits;
    qsizetype m_reach = 0; // how far an escaped key can extend on either side of one of its escapes
};

template<typename Unit>
qsizetype SecretPattern<Unit>::addNeedle(const QByteArray &bytes, Marker marker)
{
    Needle<Unit> needle{std::vector<Unit>(bytes.size()), marker};
    std::transform(bytes.cbegin(), bytes.cend(), needle.units.begin(), [](char c) {
        return Unit(uchar(c));
    });
    const auto same = [&](const Needle<Unit> &other) {
        return other.units == needle.units;
    };
    const auto existing = std::find_if(m_needles.cbegin(), m_needles.cend(), same);
    if (existing != m_needles.cend())
        return existing - m_needles.cbegin();
    m_needles.push_back(std::move(needle));
    return qsizetype(m_needles.size()) - 1;
}

template<typename Unit>
SecretPattern<Unit>::SecretPattern(const QString &secret)
    : m_secret(secret)
{
    const QByteArray utf8 = secret.toUtf8();
    if constexpr (sizeof(Unit) == 1) {
        m_key.assign(utf8.cbegin(), utf8.cend());
        addNeedle(utf8, Marker::Plain);
    } else {
        const auto *units = reinterpret_cast<const char16_t *>(secret.constData());
        m_key.assign(units, units + secret.size());
        m_needles.push_back({m_key, Marker::Plain});
    }
    addNeedle(utf8.toHex(), Marker::Plain);
    addNeedle(utf8.toHex().toUpper(), Marker::Plain);
    // Base64 character j stands for bits 6j..6j+5 of its input. With the secret at byte offset
    // `alignment` (mod 3), the characters from ceil(8 * alignment / 6) up to floor(8 *
    // (alignment + n) / 6) stand for its bits alone: they are the same whatever surrounds it.
    const qsizetype n = utf8.size();
    for (const auto alphabet : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
        for (qsizetype alignment = 0; alignment < 3; ++alignment) {
            const QByteArray input = QByteArray(alignment, '\0') + utf8 + QByteArray(3, '\0');
            const QByteArray encoded = input.toBase64(alphabet);
            const qsizetype first = (8 * alignment + 5) / 6;
            const qsizetype last = 8 * (alignment + n) / 6;
            addNeedle(encoded.mid(first, last - first), Marker::Plain);
        }
    }
    QByteArray utf16le;
    QByteArray utf16be;
    for (const QChar c : secret) {
        utf16le.append(char(c.unicode() & 0xFF)).append(char(c.unicode() >> 8));
        utf16be.append(char(c.unicode() >> 8)).append(char(c.unicode() & 0xFF));
    }
    const qsizetype le = addNeedle(utf16le, sizeof(Unit) == 1 ? Marker::Utf16Le : Marker::Plain);
    const qsizetype be = addNeedle(utf16be, sizeof(Unit) == 1 ? Marker::Utf16Be : Marker::Plain);
    m_needles[size_t(le)].partner = be;
    m_needles[size_t(be)].partner = le;

    // Wu-Manber with triples of units: a window of the shortest needle's length (4 or more) may
    // move on by as much as its last triple allows (capped at what the table holds).
    m_window = qsizetype(m_needles.front().units.size());
    for (const Needle<Unit> &needle : m_needles)
        m_window = std::min(m_window, qsizetype(needle.units.size()));
    m_shift.fill(quint8(std::min<qsizetype>(m_window - 2, 255)));
    for (const Needle<Unit> &needle : m_needles) {
        for (qsizetype q = 2; q < m_window; ++q) {
            quint8 &shift = m_shift[trigram(needle.units.data() + q - 2)];
            shift = quint8(std::min<qsizetype>(shift, m_window - 1 - q));
        }
    }

    m_failure.assign(m_key.size(), 0);
    for (size_t i = 1, k = 0; i < m_key.size(); ++i) {
        while (k > 0 && m_key[i] != m_key[k])
            k = size_t(m_failure[k - 1]);
        if (m_key[i] == m_key[k])
            ++k;
        m_failure[i] = int(k);
    }
    m_keyUnits.assign(sizeof(Unit) == 1 ? 4 : 1024, 0);
    for (const Unit unit : m_key)
        m_keyUnits[codeOf(unit) >> 6] |= quint64(1) << (codeOf(unit) & 63);
    // An escape is at most 9 characters per unit (%E2%82%AC); and a window that starts inside an
    // escape reads that one wrongly, so it starts one escape (12) earlier.
    m_reach = 9 * qsizetype(m_key.size()) + 24;
}

template<typename Unit>
void SecretPattern<Unit>::findNeedles(Scan<Unit> *scan, qsizetype limit) const
{
    const Unit *text = scan->text;
    const qsizetype size = scan->size;
    qsizetype last = scan->last;
    while (last < limit) {
        if (const quint8 shift = m_shift[trigram(text + last - 2)]) {
            last += shift;
            continue;
        }
        const qsizetype begin = last - m_window + 1;
        const Needle<Unit> *found = nullptr;
        for (const Needle<Unit> &needle : m_needles) {
            const qsizetype length = qsizetype(needle.units.size());
            if (length <= size - begin && (!found || length > qsizetype(found->units.size()))
                && std::equal(needle.units.cbegin(), needle.units.cend(), text + begin)) {
                found = &needle;
            }
        }
        if (!found) {
            ++last;
            continue;
        }
        // In UTF-16 an ASCII key is also the other byte order one byte earlier ("\0s\0k...\0y"
        // in " \0s\0k\0...y\0"). UTF-16 text starts at an even offset: the match there wins.
        qsizetype start = begin;
        if (found->partner >= 0 && begin % 2 == 1) {
            const Needle<Unit> &partner = m_needles[size_t(found->partner)];
            if (qsizetype(partner.units.size()) <= size - begin - 1
                && std::equal(partner.units.cbegin(), partner.units.cend(), text + begin + 1)) {
                found = &partner;
                start = begin + 1;
            }
        }
        // As QByteArray::replace() does, the search goes on after the match: an overlapping
        // one could only be a key whose end is also its beginning, and what is left of it after
        // the marker is not the key.
        const qsizetype end = start + qsizetype(found->units.size());
        addSpan(&scan->needles, {start, end, found->marker});
        last = end + m_window - 1;
    }
    scan->last = last;
}

template<typename Unit>
void SecretPattern<Unit>::findEscaped(Scan<Unit> *scan, qsizetype from, qsizetype limit) const
{
    const Unit *text = scan->text;
    const qsizetype size = scan->size;
    qsizetype percent = indexOfUnit(text, from, limit, '%');
    qsizetype backslash = indexOfUnit(text, from, limit, '\\');
    while (percent >= 0 || backslash >= 0) {
        qsizetype at;
        if (backslash < 0 || (percent >= 0 && percent < backslash)) {
            at = percent;
            percent = indexOfUnit(text, at + 1, limit, '%');
        } else {
            at = backslash;
            backslash = indexOfUnit(text, at + 1, limit, '\\');
        }
        Token<Unit> token;
        if (!readEscape(text, at, size, &token) || !isKeyUnit(token.units[0]))
            continue;
        const qsizetype begin = std::max<qsizetype>(0, at - m_reach);
        const qsizetype end = std::min(size, at + token.length + m_reach);
        if (scan->windowEnd >= 0 && begin <= scan->windowEnd) {
            scan->windowEnd = std::max(scan->windowEnd, end);
            continue;
        }
        searchDecoded(scan);
        scan->windowBegin = begin;
        scan->windowEnd = end;
    }
}

// KMP over the units the text [begin, end) stands for once its escapes are decoded.
template<typename Unit>
void SecretPattern<Unit>::searchDecoded(Scan<Unit> *scan) const
{
    const Unit *text = scan->text;
    const qsizetype size = scan->size;
    const qsizetype begin = scan->windowBegin;
    const qsizetype end = scan->windowEnd;
    if (end < 0)
        return;
    scan->windowEnd = -1;
    const size_t n = m_key.size();
    // Where the token of each of the last n units starts, as a ring.
    std::vector<qsizetype> starts(n);
    size_t unitCount = 0;
    size_t matched = 0;
    for (qsizetype at = begin; at < end;) {
        Token<Unit> token;
        const uint c = codeOf(text[at]);
        if ((c != '%' && c != '\\') || !readEscape(text, at, size, &token)) {
            token = {};
            token.append(c);
        }
        for (int i = 0; i < token.count; ++i) {
            const Unit unit = token.units[size_t(i)];
            while (matched > 0 && m_key[matched] != unit)
                matched = size_t(m_failure[matched - 1]);
            if (m_key[matched] == unit)
                ++matched;
            starts[unitCount % n] = at;
            ++unitCount;
            if (matched == n) {
                addSpan(&scan->escaped, {starts[unitCount % n], at + token.length, Marker::Plain});
                matched = 0; // the next match begins after this one, as above
            }
        }
        at += token.length;
    }
}

template<typename Unit>
std::vector<Span> SecretPattern<Unit>::find(const Unit *text, qsizetype size) const
{
    Scan<Unit> scan;
    scan.text = text;
    scan.size = size;
    scan.last = m_window - 1;
    // Both searches read one piece of the text while it is in the cache: the text goes through
    // memory once.
    constexpr qsizetype piece = 16 * 1024;
    for (qsizetype from = 0; from < size; from += piece) {
        const qsizetype limit = std::min(size, from + piece);
        findNeedles(&scan, limit);
        findEscaped(&scan, from, limit);
    }
    searchDecoded(&scan);
    if (scan.escaped.empty())
        return std::move(scan.needles);
    if (scan.needles.empty())
        return std::move(scan.escaped);
    std::vector<Span> both;
    std::merge(scan.needles.cbegin(),
               scan.needles.cend(),
               scan.escaped.cbegin(),
               scan.escaped.cend(),
               std::back_inserter(both),
               [](const Span &a, const Span &b) { return a.begin < b.begin; });
    std::vector<Span> merged;
    for (const Span &span : both)
        addSpan(&merged, span);
    return merged;
}

// The keys rarely change: the tables (64 KB each) are made once per secret, not for every text.
// A few are kept (every profile's key, an MCP server's token), the one used longest ago goes.
template<typename Unit>
std::shared_ptr<const SecretPattern<Unit>> patternFor(const QString &secret)
{
    constexpr size_t kept = 16;
    static QMutex mutex;
    static std::vector<std::shared_ptr<const SecretPattern<Unit>>> recent; // most recent last
    const QMutexLocker lock(&mutex);
    const auto found = std::find_if(recent.begin(), recent.end(), [&](const auto &pattern) {
        return pattern->secret() == secret;
    });
    std::shared_ptr<const SecretPattern<Unit>> pattern;
    if (found != recent.end()) {
        pattern = *found;
        recent.erase(found);
    } else {
        pattern = std::make_shared<const SecretPattern<Unit>>(secret);
        if (recent.size() == kept)
            recent.erase(recent.begin());
    }
    recent.push_back(pattern);
    return pattern;
}

// Where any of the secrets is in text, as sorted spans that do not overlap.
std::vector<Span> spansOfAny(const QString &text, const QStringList &secrets)
{
    std::vector<Span> all;
    for (const QString &secret : secrets) {
        if (!worthRedacting(secret) || text.isEmpty())
            continue;
        const std::vector<Span> spans = patternFor<char16_t>(secret)
                                                ->find(reinterpret_cast<const char16_t *>(
                                                               text.constData()),
                                                       text.size());
        all.insert(all.end(), spans.cbegin(), spans.cend());
    }
    std::sort(all.begin(), all.end(), [](const Span &a, const Span &b) {
        return a.begin < b.begin;
    });
    std::vector<Span> merged;
    for (const Span &span : all)
        addSpan(&merged, span);
    return merged;
}

QByteArray markerBytes(Marker marker)
{
    const QByteArray plain(redactedMarker);
    if (marker == Marker::Plain)
        return plain;
    QByteArray utf16;
    for (const char c : plain) {
        if (marker == Marker::Utf16Le)
            utf16.append(c).append('\0');
        else
            utf16.append('\0').append(c);
    }
    return utf16;
}

} // namespace

QByteArray redacted(QByteArray bytes, const QString &secret)
{
    if (!worthRedacting(secret) || bytes.isEmpty())
        return bytes;
    // A streamed response body is tens of MB and almost never holds the key: it is searched in
    // place, and copied only when there is something to replace.
    const std::vector<Span> spans = patternFor<char>(secret)->find(bytes.constData(), bytes.size());
    if (spans.empty())
        return bytes;
    QByteArray result;
    result.reserve(bytes.size() + qsizetype(spans.size()) * 20);
    qsizetype done = 0;
    for (const Span &span : spans) {
        result.append(bytes.constData() + done, span.begin - done).append(markerBytes(span.marker));
        done = span.end;
    }
    return result.append(bytes.constData() + done, bytes.size() - done);
}

bool containsSecret(const QByteArray &bytes, const QString &secret)
{
    return worthRedacting(secret) && !bytes.isEmpty()
           && !patternFor<char>(secret)->find(bytes.constData(), bytes.size()).empty();
}

QString redacted(QString text, const QString &secret)
{
    return redacted(std::move(text), QStringList{secret});
}

QString redacted(QString text, const QStringList &secrets)
{
    const std::vector<Span> spans = spansOfAny(text, secrets);
    if (spans.empty())
        return text;
    const QString marker = QString::fromLatin1(redactedMarker);
    QString result;
    result.reserve(text.size() + qsizetype(spans.size()) * marker.size());
    qsizetype done = 0;
    for (const Span &span : spans) {
        result.append(QStringView(text).sliced(done, span.begin - done)).append(marker);
        done = span.end;
    }
    return result.append(QStringView(text).sliced(done));
}

QList<std::pair<qsizetype, qsizetype>> secretRanges(const QString &text, const QStringList &secrets)
{
    QList<std::pair<qsizetype, qsizetype>> ranges;
    for (const Span &span : spansOfAny(text, secrets))
        ranges.append({span.begin, span.end});
    return ranges;
}

MaskedText::MaskedText(const QString &text, const QStringList &secrets)
{
    const std::vector<Span> spans = spansOfAny(text, secrets);
    if (spans.empty()) {
        m_text = text;
        return;
    }
    const QString marker = QString::fromLatin1(redactedMarker);
    qsizetype done = 0;
    for (const Span &span : spans) {
        m_text.append(QStringView(text).sliced(done, span.begin - done));
        const qsizetype begin = m_text.size();
        m_text.append(marker);
        m_markers.append({begin, m_text.size(), span.end - m_text.size()});
        done = span.end;
    }
    m_text.append(QStringView(text).sliced(done));
}

qsizetype MaskedText::originalPosition(qsizetype maskedPosition) const
{
    // The last marker that ends at or before the position says how far the text moved.
    const auto after = std::upper_bound(m_markers.cbegin(),
                                        m_markers.cend(),
                                        maskedPosition,
                                        [](qsizetype position, const Marker &marker) {
                                            return position < marker.maskedEnd;
                                        });
    return after == m_markers.cbegin() ? maskedPosition : maskedPosition + (after - 1)->shift;
}

bool MaskedText::touchesSecret(qsizetype begin, qsizetype end) const
{
    return std::any_of(m_markers.cbegin(), m_markers.cend(), [&](const Marker &marker) {
        return begin < marker.maskedEnd && marker.maskedBegin < end;
    });
}

void KnownSecrets::set(QStringList secrets)
{
    secrets.removeAll(QString());
    secrets.removeDuplicates();
    const QMutexLocker lock(&m_mutex);
    m_secrets = std::move(secrets);
}

QStringList KnownSecrets::list() const
{
    const QMutexLocker lock(&m_mutex);
    return m_secrets;
}

} // namespace AgentLoop
