#include "base/displaytext.h"

#include <QChar>

#include <algorithm>
#include <vector>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

bool isUnusualSpace(char32_t c)
{
    // U+3000 (the ideographic space) is left alone: it is as wide as a Chinese character, common
    // in Chinese text, and hides nothing.
    return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F;
}

// Characters that draw nothing although they are not format characters.
bool isInvisibleFiller(char32_t c)
{
    return c == 0x034F                                  // combining grapheme joiner
           || c == 0x115F || c == 0x1160 || c == 0x3164 // Hangul fillers
           || c == 0xFFA0 || c == 0x2800;               // half-width Hangul filler, braille blank
}

bool isVariationSelector(char32_t c)
{
    return (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF);
}

// The ASCII letter or digit a character from another script is drawn like, or 0.
char lookalikeOf(char32_t c)
{
    switch (c) {
    // Cyrillic
    case 0x0430:
        return 'a';
    case 0x0435:
        return 'e';
    case 0x043E:
        return 'o';
    case 0x0440:
        return 'p';
    case 0x0441:
        return 'c';
    case 0x0443:
        return 'y';
    case 0x0445:
        return 'x';
    case 0x0455:
        return 's';
    case 0x0456:
        return 'i';
    case 0x0458:
        return 'j';
    case 0x04BB:
        return 'h';
    case 0x04CF:
        return 'l';
    case 0x0501:
        return 'd';
    case 0x051B:
        return 'q';
    case 0x051D:
        return 'w';
    case 0x0405:
        return 'S';
    case 0x0406:
        return 'I';
    case 0x0408:
        return 'J';
    case 0x0410:
        return 'A';
    case 0x0412:
        return 'B';
    case 0x0415:
        return 'E';
    case 0x041A:
        return 'K';
    case 0x041C:
        return 'M';
    case 0x041D:
        return 'H';
    case 0x041E:
        return 'O';
    case 0x0420:
        return 'P';
    case 0x0421:
        return 'C';
    case 0x0422:
        return 'T';
    case 0x0425:
        return 'X';
    case 0x04AE:
        return 'Y';
    case 0x04C0:
        return 'I';
    case 0x051A:
        return 'Q';
    case 0x051C:
        return 'W';
    // Greek
    case 0x03B1:
        return 'a';
    case 0x03B9:
        return 'i';
    case 0x03BA:
        return 'k';
    case 0x03BD:
        return 'v';
    case 0x03BF:
        return 'o';
    case 0x03C1:
        return 'p';
    case 0x03C5:
        return 'u';
    case 0x03C7:
        return 'x';
    case 0x0391:
        return 'A';
    case 0x0392:
        return 'B';
    case 0x0395:
        return 'E';
    case 0x0396:
        return 'Z';
    case 0x0397:
        return 'H';
    case 0x0399:
        return 'I';
    case 0x039A:
        return 'K';
    case 0x039C:
        return 'M';
    case 0x039D:
        return 'N';
    case 0x039F:
        return 'O';
    case 0x03A1:
        return 'P';
    case 0x03A4:
        return 'T';
    case 0x03A5:
        return 'Y';
    case 0x03A7:
        return 'X';
    // Latin letters outside ASCII drawn like ASCII ones
    case 0x0131:
        return 'i';
    case 0x01C0:
        return 'l';
    default:
        break;
    }
    if (c >= 0xFF21 && c <= 0xFF3A) // fullwidth A-Z
        return char('A' + (c - 0xFF21));
    if (c >= 0xFF41 && c <= 0xFF5A) // fullwidth a-z
        return char('a' + (c - 0xFF41));
    if (c >= 0xFF10 && c <= 0xFF19) // fullwidth 0-9
        return char('0' + (c - 0xFF10));
    if (c >= 0x1D400 && c <= 0x1D6A3) { // mathematical bold, italic, script, ... A-Z a-z
        const int letter = int((c - 0x1D400) % 52);
        return letter < 26 ? char('A' + letter) : char('a' + letter - 26);
    }
    if (c >= 0x1D7CE && c <= 0x1D7FF) // mathematical digits
        return char('0' + (c - 0x1D7CE) % 10);
    return 0;
}

bool isAsciiLetter(char32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isWordCharacter(char32_t c)
{
    return QChar::isLetterOrNumber(c) || QChar::isMark(c);
}

struct CodePoint
{
    char32_t value = 0;
    qsizetype position = 0; // in the input
    qsizetype length = 1;   // 1 or 2 UTF-16 code units
    bool lone = false;      // a surrogate without its partner
};

CodePoint codePointAt(const QString &text, qsizetype i)
{
    const char16_t unit = text.at(i).unicode();
    if (QChar::isHighSurrogate(unit)) {
        if (i + 1 < text.size() && QChar::isLowSurrogate(text.at(i + 1).unicode()))
            return {QChar::surrogateToUcs4(unit, text.at(i + 1).unicode()), i, 2, false};
        return {unit, i, 1, true};
    }
    return {unit, i, 1, QChar::isLowSurrogate(unit)};
}

bool needsEscape(const CodePoint &point, char32_t previous, const DisplayOptions &options)
{
    const char32_t c = point.value;
    if (point.lone)
        return true;
    if (c < 0x20)
        return !((c == u'\n' && options.keepLineFeeds) || (c == u'\t' && options.keepTabs));
    if (c < 0x7F)
        return false;
    if (c <= 0x9F) // DEL and the C1 controls (U+009B is a CSI to VTE terminals)
        return true;
    return isEscapedForDisplay(c, previous);
}

// Which characters of text are look-alikes worth marking: only when the text is otherwise Latin
// (it has ASCII letters), and only in words that are not genuinely of another script (a word
// with a letter that looks like no ASCII one, "привет", is Russian, not a disguise).
std::vector<bool> lookAlikesOf(const QString &text)
{
    std::vector<CodePoint> points;
    bool hasAsciiLetter = false;
    bool hasCandidate = false;
    for (qsizetype i = 0; i < text.size();) {
        const CodePoint point = codePointAt(text, i);
        hasAsciiLetter = hasAsciiLetter || isAsciiLetter(point.value);
        hasCandidate = hasCandidate || lookalikeOf(point.value) != 0;
        points.push_back(point);
        i += point.length;
    }
    std::vector<bool> marked(size_t(text.size()), false);
    if (!hasAsciiLetter || !hasCandidate)
        return marked;
    for (size_t start = 0; start < points.size();) {
        if (!isWordCharacter(points[start].value)) {
            ++start;
            continue;
        }
        size_t end = start;
        bool genuinelyForeign = false;
        while (end < points.size() && isWordCharacter(points[end].value)) {
            const char32_t c = points[end].value;
            if (c >= 0x80 && QChar::isLetter(c) && lookalikeOf(c) == 0)
                genuinelyForeign = true;
            ++end;
        }
        if (!genuinelyForeign) {
            for (size_t k = start; k < end; ++k) {
                if (lookalikeOf(points[k].value) != 0)
                    marked[size_t(points[k].position)] = true;
            }
        }
        start = end;
    }
    return marked;
}

void appendEscape(QString &out, char32_t c, qsizetype count)
{
    out += u'\x27E8'; // ⟨
    out += u"U+"_s;
    out += QString::number(uint(c), 16).toUpper().rightJustified(4, u'0');
    if (count > 1) {
        out += u" \x00D7"_s; // ×
        out += QString::number(count);
    }
    out += u'\x27E9'; // ⟩
}

// The common case, checked before anything is copied: printable ASCII and kept line breaks.
bool isPlainAscii(const QString &text, const DisplayOptions &options)
{
    return std::all_of(text.cbegin(), text.cend(), [&](QChar ch) {
        const char16_t c = ch.unicode();
        return (c >= 0x20 && c < 0x7F) || (c == u'\n' && options.keepLineFeeds)
               || (c == u'\t' && options.keepTabs);
    });
}

} // namespace

bool isEscapedForDisplay(char32_t c)
{
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F))
        return true;
    if (c < 0x7F)
        return false;
    if (c >= 0xD800 && c <= 0xDFFF)
        return true;
    return QChar::category(c) == QChar::Other_Format      // bidi, zero-width, tags, soft hyphen...
           || QChar::category(c) == QChar::Separator_Line // U+2028
           || QChar::category(c) == QChar::Separator_Paragraph // U+2029
           || isUnusualSpace(c) || isInvisibleFiller(c) || isVariationSelector(c);
}

bool isEscapedForDisplay(char32_t c, char32_t previous)
{
    if (isVariationSelector(c))
        // After an emoji or a Chinese character it picks a glyph; anywhere else it only hides.
        return previous < 0x80 || isEscapedForDisplay(previous);
    return isEscapedForDisplay(c);
}

DisplayText displayText(const QString &text, const DisplayOptions &options)
{
    DisplayText result;
    const bool fits = options.maxLength < 0 || text.size() <= options.maxLength;
    if (fits && isPlainAscii(text, options)) {
        result.text = text;
        return result;
    }
    // Only what is shown is searched: a bounded preview of a huge text costs what it shows.
    const std::vector<bool> lookAlike = !options.markLookAlikes ? std::vector<bool>()
                                        : fits                  ? lookAlikesOf(text)
                                               : lookAlikesOf(text.first(options.maxLength));
    QString &out = result.text;
    const qsizetype limit = options.maxLength < 0 ? text.size()
                                                  : std::min(text.size(), options.maxLength);
    // Kept characters are copied a run at a time, and not at all when nothing needs a change.
    qsizetype keptFrom = 0;
    const auto flushKept = [&](qsizetype upTo) {
        if (upTo > keptFrom) {
            if (out.isEmpty())
                out.reserve(limit + 16);
            out += QStringView(text).sliced(keptFrom, upTo - keptFrom);
        }
    };
    char32_t previous = 0;
    qsizetype i = 0;
    while (i < text.size()) {
        const char16_t unit = text.at(i).unicode();
        if ((unit >= 0x20 && unit < 0x7F) || (unit == u'\n' && options.keepLineFeeds)
            || (unit == u'\t' && options.keepTabs)) {
            if (i + 1 > limit)
                break;
            previous = unit;
            ++i;
            continue;
        }
        const CodePoint point = codePointAt(text, i);
        if (i + point.length > limit)
            break;
        if (needsEscape(point, previous, options)) {
            // A run of the same character becomes one escape: 1 500 no-break spaces are one mark.
            qsizetype count = 1;
            qsizetype next = i + point.length;
            while (next + point.length <= limit) {
                const CodePoint following = codePointAt(text, next);
                if (following.value != point.value || following.lone != point.lone)
                    break;
                ++count;
                next += following.length;
            }
            flushKept(i);
            DisplayMark mark;
            mark.kind = DisplayMark::Escaped;
            mark.position = out.size();
            mark.codePoint = point.value;
            mark.count = count;
            appendEscape(out, point.value, count);
            mark.length = out.size() - mark.position;
            result.marks.append(mark);
            result.escapedCharacters += count;
            previous = point.value;
            i = keptFrom = next;
            continue;
        }
        if (size_t(i) < lookAlike.size() && lookAlike[size_t(i)]) {
            DisplayMark mark;
            mark.kind = DisplayMark::LookAlike;
            mark.position = out.size() + (i - keptFrom);
            mark.length = point.length;
            mark.codePoint = point.value;
            mark.lookalikeOf = lookalikeOf(point.value);
            result.marks.append(mark);
            ++result.lookAlikes;
        }
        previous = point.value;
        i += point.length;
    }
    result.cutCharacters = text.size() - i;
    if (result.escapedCharacters == 0 && result.cutCharacters == 0) {
        out = text; // shared, not copied
        return result;
    }
    flushKept(i);
    return result;
}

QString displayed(const QString &text, const DisplayOptions &options)
{
    return displayText(text, options).text;
}

QString displayedLine(const QString &text, qsizetype maxLength)
{
    DisplayOptions options;
    options.keepLineFeeds = false;
    options.keepTabs = false;
    options.maxLength = maxLength;
    const DisplayText shown = displayText(text, options);
    if (shown.cutCharacters == 0)
        return shown.text;
    return shown.text + u"\x2026"_s; // …
}

} // namespace AgentLoop
