#include "files/textcodec.h"

#include "base/codepage.h"

#include <QStringDecoder>
#include <QStringEncoder>
#include <QStringList>

#include <algorithm>
#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr qsizetype binaryProbeBytes = 8 * 1024;

constexpr QByteArrayView utf8Bom("\xEF\xBB\xBF", 3);
constexpr QByteArrayView utf16LEBom("\xFF\xFE", 2);
constexpr QByteArrayView utf16BEBom("\xFE\xFF", 2);

QString gb18030Name()
{
    return u"GB18030"_s;
}

QString gbkFallbackName()
{
    return u"CP936"_s;
}

bool isGb18030(const QString &encoding)
{
    return encoding.compare(gb18030Name(), Qt::CaseInsensitive) == 0
           || encoding.compare(u"CP54936"_s, Qt::CaseInsensitive) == 0;
}

// One encoding that was tried: the text, or why not.
struct Attempt
{
    std::optional<QString> text;
    qsizetype usedBytes = 0; // of the bytes after the BOM
    QString failure;         // "UTF-8 fails at byte offset 3 (81 20)"
};

// Up to four bytes from offset, in hex: what the model can look for.
QString bytesAt(QByteArrayView bytes, qsizetype offset)
{
    QStringList hex;
    for (qsizetype i = offset; i < bytes.size() && i < offset + 4; ++i)
        hex.append(u"%1"_s.arg(uchar(bytes.at(i)), 2, 16, QChar(u'0')).toUpper());
    return hex.join(u' ');
}

// offset counts from the start of the file (BOM included).
QString describeFailure(const QString &encoding, QByteArrayView file, const DecodingFailure &failure)
{
    if (failure.offset < 0)
        return u"%1 does not decode it"_s.arg(encoding);
    if (failure.cut)
        return u"%1 fails at byte offset %2: the file ends inside a character (%3)"_s
                .arg(encoding, QString::number(failure.offset), bytesAt(file, failure.offset));
    return u"%1 fails at byte offset %2 (%3)"_s.arg(encoding,
                                                    QString::number(failure.offset),
                                                    bytesAt(file, failure.offset));
}

// Valid UTF-8 is the only UTF-8 of its text: how many bytes of it the text stands for.
qsizetype utf8Size(QStringView text)
{
    QStringEncoder encoder(QStringConverter::Utf8);
    const QByteArray bytes = encoder(text);
    return bytes.size();
}

// UTF-8, strictly. A stateful decoder keeps a sequence the bytes end inside of to itself
// (complete == false leaves it out); a stateless one counts it as an error.
Attempt decodeUtf8(QByteArrayView bytes, bool complete)
{
    using Flag = QStringConverter::Flag;
    QStringDecoder decoder(QStringConverter::Utf8,
                           complete ? Flag::Stateless | Flag::ConvertInitialBom
                                    : Flag::ConvertInitialBom);
    Attempt attempt;
    QString text = decoder(bytes);
    if (decoder.hasError())
        return attempt;
    attempt.usedBytes = complete ? bytes.size() : utf8Size(text);
    attempt.text = std::move(text);
    return attempt;
}

// Where bytes stop being UTF-8. A stateful decoder has an error as soon as the bytes it has seen
// cannot begin UTF-8, so the shortest prefix with an error ends at the byte that shows it; the
// bad sequence begins after the text decoded before it.
DecodingFailure utf8Failure(QByteArrayView bytes)
{
    const auto decoded = [&](qsizetype size) -> std::optional<QString> {
        QStringDecoder decoder(QStringConverter::Utf8, QStringConverter::Flag::ConvertInitialBom);
        QString text = decoder(bytes.first(size));
        if (decoder.hasError())
            return std::nullopt;
        return text;
    };
    if (const std::optional<QString> all = decoded(bytes.size()))
        return {utf8Size(*all), true};
    qsizetype good = 0;           // decoded(good) has no error
    qsizetype bad = bytes.size(); // decoded(bad) has one
    while (bad - good > 1) {
        const qsizetype middle = good + (bad - good) / 2;
        if (decoded(middle))
            good = middle;
        else
            bad = middle;
    }
    return {utf8Size(*decoded(good)), false};
}

// The index of the first half of a surrogate pair that has no other half; -1 when none.
qsizetype firstLoneSurrogate(QStringView text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t unit = text.at(i).unicode();
        if (QChar::isHighSurrogate(unit) && i + 1 < text.size()
            && QChar::isLowSurrogate(text.at(i + 1).unicode())) {
            ++i;
            continue;
        }
        if (QChar::isSurrogate(unit))
            return i;
    }
    return -1;
}

// UTF-16 after its BOM. Qt's UTF-16 decoder lets lone surrogates and an odd last byte through
// without an error, so both are checked here.
Attempt decodeUtf16(QByteArrayView bytes,
                    QStringConverter::Encoding encoding,
                    bool complete,
                    const QString &name,
                    QByteArrayView file,
                    qsizetype bomSize)
{
    Attempt attempt;
    qsizetype used = bytes.size() - bytes.size() % 2;
    if (complete && used != bytes.size()) {
        attempt.failure = describeFailure(name, file, {bomSize + used, true});
        return attempt;
    }
    QStringDecoder decoder(encoding,
                           QStringConverter::Flag::Stateless
                                   | QStringConverter::Flag::ConvertInitialBom);
    QString text = decoder(bytes.first(used));
    if (!complete && !text.isEmpty() && QChar::isHighSurrogate(text.back().unicode())) {
        text.chop(1);
        used -= 2;
    }
    const qsizetype lone = firstLoneSurrogate(text);
    if (decoder.hasError() || lone >= 0) {
        const bool cut = lone == text.size() - 1 && QChar::isHighSurrogate(text.back().unicode());
        attempt.failure = describeFailure(name, file, {lone < 0 ? -1 : bomSize + lone * 2, cut});
        return attempt;
    }
    attempt.usedBytes = used;
    attempt.text = std::move(text);
    return attempt;
}

// GB18030 or a legacy code page through the system's converter, and back: what would not be
// written back byte for byte is refused.
Attempt decodeConverted(const QString &encoding, QByteArrayView bytes, bool complete)
{
    Attempt attempt;
    if (!canConvert(encoding)) {
        attempt.failure = u"%1 is not available on this system"_s.arg(encoding);
        return attempt;
    }
    DecodingFailure failure;
    qsizetype used = bytes.size();
    std::optional<QString> text = decodeStrictly(encoding, bytes, &failure);
    if (!text && !complete && failure.cut && failure.offset >= 0) {
        used = failure.offset;
        text = decodeStrictly(encoding, bytes.first(used), &failure);
    }
    if (!text) {
        attempt.failure = describeFailure(encoding, bytes, failure);
        return attempt;
    }
    const std::optional<QByteArray> back = encodeStrictly(encoding, *text);
    if (!back || QByteArrayView(*back) != bytes.first(used)) {
        attempt.failure = u"%1 decodes it, but it would not be written back byte for byte"_s.arg(
                encoding);
        if (back) {
            const QByteArrayView original = bytes.first(used);
            const qsizetype differs = std::mismatch(original.begin(),
                                                    original.end(),
                                                    back->begin(),
                                                    back->end())
                                              .first
                                      - original.begin();
            attempt.failure += u" (the bytes from offset %1, %2, would be written as %3)"_s
                                       .arg(QString::number(differs),
                                            bytesAt(original, differs),
                                            bytesAt(*back, std::min(differs, back->size())));
        }
        return attempt;
    }
    attempt.usedBytes = used;
    attempt.text = std::move(text);
    return attempt;
}

struct LineBreakCount
{
    qsizetype crlf = 0;
    qsizetype lf = 0;

    TextFormat::LineEndings endings() const
    {
        if (crlf > 0 && lf > 0)
            return TextFormat::LineEndings::Mixed;
        if (crlf > 0)
            return TextFormat::LineEndings::CRLF;
        return lf > 0 ? TextFormat::LineEndings::LF : TextFormat::LineEndings::None;
    }
};

LineBreakCount countLineBreaks(QStringView text)
{
    // One plain pass: a call per line would cost more than the decoding (grep decodes every file).
    LineBreakCount count;
    const char16_t *units = text.utf16();
    qsizetype breaks = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (units[i] == u'\n') {
            ++breaks;
            if (i > 0 && units[i - 1] == u'\r')
                ++count.crlf;
        }
    }
    count.lf = breaks - count.crlf;
    return count;
}

// `"中" (U+4E2D) on line 3`: the character at index, for the model.
QString describeCharacter(QStringView text, qsizetype index)
{
    const char16_t unit = text.at(index).unicode();
    const bool pair = QChar::isHighSurrogate(unit) && index + 1 < text.size()
                      && QChar::isLowSurrogate(text.at(index + 1).unicode());
    const char32_t codePoint = pair ? QChar::surrogateToUcs4(unit, text.at(index + 1).unicode())
                                    : char32_t(unit);
    const QString number = u"U+%1"_s.arg(uint(codePoint), 4, 16, QChar(u'0')).toUpper();
    const qsizetype line = text.first(index).count(u'\n') + 1;
    if (QChar::isSurrogate(codePoint))
        return u"%1 (half of a surrogate pair) on line %2"_s.arg(number, QString::number(line));
    if (!QChar::isPrint(codePoint))
        return u"%1 on line %2"_s.arg(number, QString::number(line));
    return u"\"%1\" (%2) on line %3"_s.arg(text.sliced(index, pair ? 2 : 1).toString(),
                                           number,
                                           QString::number(line));
}

} // namespace

QString TextFormat::encodingName() const
{
    const QString withBom = bom ? u" with BOM"_s : QString();
    switch (encoding) {
    case Encoding::Utf8:
        return u"UTF-8"_s + withBom;
    case Encoding::Utf16LE:
        return u"UTF-16 LE"_s + withBom;
    case Encoding::Utf16BE:
        return u"UTF-16 BE"_s + withBom;
    case Encoding::Gb18030:
        return gb18030Name();
    case Encoding::Legacy:
        return legacyName.isEmpty() ? u"the system's legacy code page"_s : legacyName;
    }
    return {};
}

QString TextFormat::lineEndingsName() const
{
    switch (lineEndings) {
    case LineEndings::None:
        return u"none"_s;
    case LineEndings::LF:
        return u"LF"_s;
    case LineEndings::CRLF:
        return u"CRLF"_s;
    case LineEndings::Mixed:
        return u"mixed (CRLF and LF)"_s;
    }
    return {};
}

QString TextFormat::newline() const
{
    const bool crlf = lineEndings == LineEndings::CRLF
                      || (lineEndings == LineEndings::Mixed && crlfCount > lfCount);
    return crlf ? u"\r\n"_s : u"\n"_s;
}

bool looksBinary(QByteArrayView bytes)
{
    if (bytes.startsWith(utf16LEBom) || bytes.startsWith(utf16BEBom))
        return false;
    return bytes.first(std::min(bytes.size(), binaryProbeBytes)).contains('\0');
}

DecodedText decodeText(QByteArrayView bytes, bool complete)
{
    return decodeText(bytes, complete, systemLegacyEncoding());
}

DecodedText decodeText(QByteArrayView bytes, bool complete, const QString &legacyEncoding)
{
    DecodedText result;
    if (looksBinary(bytes)) {
        result.errorCode = u"binary_file"_s;
        result.errorDetail = u"The file looks binary: it has a NUL byte at offset %1."_s.arg(
                bytes.indexOf('\0'));
        return result;
    }

    using Encoding = TextFormat::Encoding;
    TextFormat &format = result.format;
    qsizetype bomSize = 0;
    Attempt attempt;
    QStringList failures;
    bool utf8Failed = false; // where, only once nothing else decodes: finding it takes a while
    if (bytes.startsWith(utf16LEBom) || bytes.startsWith(utf16BEBom)) {
        const bool littleEndian = bytes.startsWith(utf16LEBom);
        format.encoding = littleEndian ? Encoding::Utf16LE : Encoding::Utf16BE;
        format.bom = true;
        bomSize = utf16LEBom.size();
        attempt = decodeUtf16(bytes.sliced(bomSize),
                              littleEndian ? QStringConverter::Utf16LE : QStringConverter::Utf16BE,
                              complete,
                              format.encodingName(),
                              bytes,
                              bomSize);
        failures.append(attempt.failure);
    } else if (bytes.startsWith(utf8Bom)) {
        format.bom = true;
        bomSize = utf8Bom.size();
        attempt = decodeUtf8(bytes.sliced(bomSize), complete);
        if (!attempt.text) {
            DecodingFailure failure = utf8Failure(bytes.sliced(bomSize));
            failure.offset += bomSize;
            failures.append(describeFailure(format.encodingName(), bytes, failure));
        }
    } else {
        attempt = decodeUtf8(bytes, complete);
        // A system without a GB18030 converter (Wine has none) still reads GBK sources through
        // CP936, GB18030's two-byte part, and says so.
        const bool hasGb18030 = canConvert(gb18030Name());
        const QString chinese = hasGb18030 ? gb18030Name() : gbkFallbackName();
        if (!attempt.text) {
            utf8Failed = true;
            attempt = decodeConverted(chinese, bytes, complete);
            format.encoding = hasGb18030 ? Encoding::Gb18030 : Encoding::Legacy;
            format.legacyName = hasGb18030 ? QString() : chinese;
            failures.append(attempt.failure);
        }
        if (!attempt.text && !legacyEncoding.isEmpty() && !isGb18030(legacyEncoding)
            && legacyEncoding.compare(chinese, Qt::CaseInsensitive) != 0) {
            attempt = decodeConverted(legacyEncoding, bytes, complete);
            format.encoding = Encoding::Legacy;
            format.legacyName = legacyEncoding;
            failures.append(attempt.failure);
        }
    }

    if (!attempt.text) {
        if (utf8Failed)
            failures.prepend(describeFailure(u"UTF-8"_s, bytes, utf8Failure(bytes)));
        result.format = {};
        result.errorCode = u"undecodable"_s;
        result.errorDetail = u"The file is not text in any encoding tried: %1."_s.arg(
                failures.join(u"; "_s));
        return result;
    }
    result.text = std::move(*attempt.text);
    result.decodedBytes = bomSize + attempt.usedBytes;
    const LineBreakCount breaks = countLineBreaks(result.text);
    format.lineEndings = breaks.endings();
    format.crlfCount = breaks.crlf;
    format.lfCount = breaks.lf;
    format.finalNewline = result.text.endsWith(u'\n');
    return result;
}

EncodedText encodeText(QStringView text, const TextFormat &format)
{
    EncodedText result;
    // Qt's UTF-16 encoder would write a lone surrogate as it is, its UTF-8 encoder as U+FFFD.
    const qsizetype lone = firstLoneSurrogate(text);
    if (lone >= 0) {
        result.unencodable = describeCharacter(text, lone);
        return result;
    }
    using Encoding = TextFormat::Encoding;
    const auto encodeWithQt = [&](QStringConverter::Encoding encoding, QByteArrayView bom) {
        // The BOM is written here: Qt's WriteBom writes none for an empty text.
        result.bytes = format.bom ? bom.toByteArray() : QByteArray();
        QStringEncoder encoder(encoding);
        result.bytes += QByteArray(encoder(text));
    };
    switch (format.encoding) {
    case Encoding::Utf8:
        encodeWithQt(QStringConverter::Utf8, utf8Bom);
        break;
    case Encoding::Utf16LE:
        encodeWithQt(QStringConverter::Utf16LE, utf16LEBom);
        break;
    case Encoding::Utf16BE:
        encodeWithQt(QStringConverter::Utf16BE, utf16BEBom);
        break;
    case Encoding::Gb18030:
    case Encoding::Legacy: {
        const QString encoding = format.encoding == Encoding::Gb18030 ? gb18030Name()
                                                                      : format.legacyName;
        if (!canConvert(encoding)) {
            result.unencodable = u"any character on this system (it has no %1 converter)"_s.arg(
                    format.encodingName());
            break;
        }
        qsizetype index = -1;
        std::optional<QByteArray> bytes = encodeStrictly(encoding, text, &index);
        if (bytes)
            result.bytes = std::move(*bytes);
        else if (index >= 0 && index < text.size())
            result.unencodable = describeCharacter(text, index);
        else
            result.unencodable = u"a character that %1 cannot store"_s.arg(format.encodingName());
        break;
    }
    }
    return result;
}

TextFormat::LineEndings lineEndingsOf(QStringView text)
{
    return countLineBreaks(text).endings();
}

QString withLineEndings(QStringView text, QStringView newline)
{
    QString result;
    result.reserve(text.size());
    qsizetype start = 0;
    for (qsizetype i = text.indexOf(u'\n'); i >= 0; i = text.indexOf(u'\n', start)) {
        const qsizetype end = i > start && text.at(i - 1) == u'\r' ? i - 1 : i;
        result.append(text.sliced(start, end - start));
        result.append(newline);
        start = i + 1;
    }
    result.append(text.sliced(start));
    return result;
}

} // namespace AgentLoop
