#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <memory>

namespace AgentLoop {

// The legacy 8-bit encoding native programs use on this system when they write to a pipe, when
// it is not UTF-8: on Windows the system locale's ANSI code page (e.g. "CP936" on Chinese
// Windows), read from the locale because the app's manifest makes GetACP() answer 65001; on Unix
// the locale's character set. Empty when that is UTF-8 or cannot be told.
QString systemLegacyEncoding();

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
