#include "leaksearch.h"

#include "base/hexdigit.h"

#include <QChar>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// The value of the digits hex digits at bytes[at], or -1.
int hexAt(const QByteArray &bytes, qsizetype at, int digits)
{
    if (at + digits > bytes.size())
        return -1;
    int value = 0;
    for (int i = 0; i < digits; ++i) {
        const int digit = hexDigitValue(uchar(bytes.at(at + i)));
        if (digit < 0)
            return -1;
        value = value * 16 + digit;
    }
    return value;
}

} // namespace

KeyNeedles keyNeedles(const QString &key)
{
    const QByteArray utf8 = key.toUtf8();
    QByteArray utf16le;
    QByteArray utf16be;
    QByteArray jsonLower;
    for (const QChar c : key) {
        utf16le.append(char(c.unicode() & 0xff)).append(char(c.unicode() >> 8));
        utf16be.append(char(c.unicode() >> 8)).append(char(c.unicode() & 0xff));
        jsonLower.append("\\u").append(QByteArray::number(c.unicode(), 16).rightJustified(4, '0'));
    }
    QByteArray jsonUpper = jsonLower.toUpper().replace("\\U", "\\u");
    QByteArray urlLower;
    for (const char c : utf8)
        urlLower.append('%').append(QByteArray(1, c).toHex());
    KeyNeedles needles{
            {"UTF-8", utf8},
            {"UTF-16LE", utf16le},
            {"UTF-16BE", utf16be},
            // The characters that stand for the key's bits alone, whatever follows it.
            {"base64", utf8.toBase64().left(8 * utf8.size() / 6)},
            {"base64url", utf8.toBase64(QByteArray::Base64UrlEncoding).left(8 * utf8.size() / 6)},
            {"hex", utf8.toHex()},
            {"HEX", utf8.toHex().toUpper()},
            {"URL-encoded", urlLower},
            {"URL-ENCODED", urlLower.toUpper()},
            {"JSON \\u escapes", jsonLower},
            {"JSON \\u ESCAPES", jsonUpper},
            {"random part", utf8.mid(utf8.lastIndexOf('-') + 1)},
    };
    // The key inside a base64 stream at either other alignment ("Bearer <key>", "user:<key>").
    for (const QByteArray &prefix : {QByteArray("x"), QByteArray("xx")}) {
        for (const auto alphabet : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
            const QByteArray encoded = (prefix + utf8)
                                               .toBase64(alphabet | QByteArray::OmitTrailingEquals);
            const QByteArray name = alphabet == QByteArray::Base64Encoding ? "base64" : "base64url";
            needles.append({name + " after " + QByteArray::number(prefix.size()) + " byte(s)",
                            encoded.mid(4, encoded.size() - 8)});
        }
    }
    return needles;
}

QByteArray unescaped(const QByteArray &bytes)
{
    QByteArray decoded;
    decoded.reserve(bytes.size());
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes.at(i);
        if (c == '%') {
            if (const int byte = hexAt(bytes, i + 1, 2); byte >= 0) {
                decoded.append(char(byte));
                i += 2;
                continue;
            }
        } else if (c == '\\' && i + 1 < bytes.size()) {
            const char next = bytes.at(i + 1);
            if (next == 'u') {
                const int unit = hexAt(bytes, i + 2, 4);
                if (unit >= 0) {
                    char32_t point = char32_t(unit);
                    qsizetype length = 6;
                    const int low = bytes.mid(i + 6, 2) == "\\u" ? hexAt(bytes, i + 8, 4) : -1;
                    if (QChar::isHighSurrogate(point) && low >= 0
                        && QChar::isLowSurrogate(char32_t(low))) {
                        point = QChar::surrogateToUcs4(char16_t(unit), char16_t(low));
                        length = 12;
                    }
                    decoded.append(QString::fromUcs4(&point, 1).toUtf8());
                    i += length - 1;
                    continue;
                }
            }
            static const QByteArray simple = "\"\\/bfnrt";
            static const QByteArray meaning = "\"\\/\b\f\n\r\t";
            if (const qsizetype at = simple.indexOf(next); at >= 0) {
                decoded.append(meaning.at(at));
                ++i;
                continue;
            }
        }
        decoded.append(c);
    }
    return decoded;
}

QStringList keyHits(const QByteArray &bytes, const QString &what, const KeyNeedles &needles)
{
    const QString keyText = QString::fromUtf8(needles.constFirst().second);
    QStringList hits;
    const auto report = [&](const QByteArray &haystack, qsizetype at, const QString &encoding) {
        const QString excerpt = QString::fromUtf8(haystack.mid(qMax(qsizetype(0), at - 80), 180))
                                        .replace(keyText, u"<KEY>"_s);
        hits << u"%1: %2 at byte %3: ...%4..."_s.arg(what, encoding, QString::number(at), excerpt);
    };
    // Some characters escaped, others not; or a whole encoding escaped again (a UTF-16 text's
    // zero bytes in JSON): found once the escapes are decoded.
    const QByteArray decoded = unescaped(bytes);
    for (const auto &[encoding, needle] : needles) {
        // (A short key has no base64 characters of its own at some alignments.)
        if (needle.isEmpty())
            continue;
        if (const qsizetype at = bytes.indexOf(needle); at >= 0)
            report(bytes, at, QString::fromLatin1(encoding));
        else if (const qsizetype escaped = decoded.indexOf(needle); escaped >= 0)
            report(decoded, escaped, QString::fromLatin1(encoding) + u", escaped,"_s);
    }
    return hits;
}

} // namespace AgentLoop
