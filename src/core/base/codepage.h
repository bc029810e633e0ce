#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <QStringView>

#include <memory>
#include <optional>

namespace AgentLoop {

// The legacy 8-bit encoding native programs use on this system when they write to a pipe, when
// it is not UTF-8: on Windows the system locale's ANSI code page (e.g. "CP936" on Chinese
// Windows), read from the locale because the app's manifest makes GetACP() answer 65001; on Unix
// the locale's character set. Empty when that is UTF-8 or cannot be told.
QString systemLegacyEncoding();

// Whole buffers converted strictly in one encoding ("GB18030", "CP936", "CP1252", ...): a byte
// that is no character, or a character that has no bytes, fails the conversion; nothing is ever
// replaced by U+FFFD or '?'. Windows: MultiByteToWideChar and WideCharToMultiByte with the code
// page's number ("CP<number>", or "GB18030" for 54936); elsewhere: iconv. The encodings must be
// stateless (every code page and iconv name above is).

// Whether this system has a converter for the encoding at all.
bool canConvert(const QString &encoding);

// Where the bytes stop being characters of the encoding.
struct DecodingFailure
{
    qsizetype offset = -1; // the first byte of the first sequence that is no character; -1 when
                           // the converter does not say, or the encoding is not available
    bool cut = false;      // the bytes from offset on only begin a character: the bytes end early
};

// The characters of all the bytes, or nullopt (and *failure says where) when they are not text in
// the encoding. Windows cannot tell a character cut off by the end from bad bytes there: bad bytes
// within the last MaxCharSize - 1 bytes count as cut.
std::optional<QString> decodeStrictly(const QString &encoding,
                                      QByteArrayView bytes,
                                      DecodingFailure *failure = nullptr);

// The bytes of the text, or nullopt (and *unencodableIndex is the index in text of the first
// character that fails; -1 when the encoding is not available) when a character has no bytes of
// its own in the encoding: none at all, a lone surrogate, or bytes that would read back as another
// character (a "best fit").
std::optional<QByteArray> encodeStrictly(const QString &encoding,
                                         QStringView text,
                                         qsizetype *unencodableIndex = nullptr);

// Decodes a byte stream in one legacy encoding ("CP936", "CP1252", "GBK", ...), piece by piece:
// the lead byte of a double-byte character that ends one piece waits for its trail byte in the
// next. Windows: MultiByteToWideChar with the code page number; elsewhere: iconv.
class LegacyDecoder
{
public:
    explicit LegacyDecoder(const QString &encoding);
    ~LegacyDecoder();
    LegacyDecoder(const LegacyDecoder &) = delete;
    LegacyDecoder &operator=(const LegacyDecoder &) = delete;

    // Whether this system can decode the encoding at all.
    bool isValid() const;
    QString name() const { return m_name; }
    QString decode(QByteArrayView bytes);
    // What is left of a character the stream ended inside of: U+FFFD, or nothing.
    QString finish();

private:
    struct Converter;
    QString m_name;
    QByteArray m_pending; // bytes of a character not yet complete
    std::unique_ptr<Converter> m_converter;
};

} // namespace AgentLoop
