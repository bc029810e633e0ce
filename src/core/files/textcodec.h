#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringView>

namespace AgentLoop {

// How a text file is stored: what it takes to write it back byte for byte.
struct TextFormat
{
    enum class Encoding {
        Utf8,
        Utf16LE,
        Utf16BE,
        Gb18030, // GBK's superset, the ANSI code page of Chinese Windows
        Legacy,  // the system's own code page (legacyName), tried last
    };
    enum class LineEndings { None, LF, CRLF, Mixed };

    Encoding encoding = Encoding::Utf8;
    QString legacyName; // Legacy only: e.g. "CP1252"
    bool bom = false;   // the file starts with a byte order mark (Utf8, Utf16LE, Utf16BE)
    LineEndings lineEndings = LineEndings::None;
    bool finalNewline = false; // the text ends with a line break
    // Line breaks of each kind, which decides Mixed's newline(). Only "\r\n" and "\n" break a
    // line: a lone "\r" (classic Mac OS) is a character of its line.
    qsizetype crlfCount = 0;
    qsizetype lfCount = 0;

    // "UTF-8", "UTF-8 with BOM", "UTF-16 LE with BOM", "UTF-16 BE with BOM", "GB18030", "CP1252"
    QString encodingName() const;
    // "LF", "CRLF", "mixed (CRLF and LF)", "none"
    QString lineEndingsName() const;
    // The line break new lines get: "\r\n" for CRLF and for Mixed with more CRLF, else "\n".
    QString newline() const;
};

// The decoded text of a file, or why it has none.
struct DecodedText
{
    QString text; // without the BOM; line endings exactly as in the file
    TextFormat format;
    qsizetype decodedBytes = 0; // bytes the text stands for (BOM included); see decodeText()
    QString errorCode;          // empty, binary_file or undecodable
    QString errorDetail;        // English, for the model: what was found and where

    bool ok() const { return errorCode.isEmpty(); }
};

// NUL bytes in the first 8 KiB (UTF-16 with a BOM is text).
bool looksBinary(QByteArrayView bytes);

// Detects and decodes a file's bytes: a BOM first (UTF-8, UTF-16 LE, UTF-16 BE), then valid
// UTF-8, then GB18030, then the system's legacy code page when it is another one. Strict: bytes
// that no candidate decodes, or that would not encode back to exactly the same bytes, make the
// result `undecodable` (never U+FFFD). With complete == false the bytes are the beginning of a
// longer file: a character cut at their end is left out of text and decodedBytes, and the format
// is that of the beginning (finalNewline too).
// The decoding uses the system's converter (iconv, or MultiByteToWideChar on Windows); a system
// without GB18030 (Wine) skips it.
DecodedText decodeText(QByteArrayView bytes, bool complete = true);
// The same with the legacy code page given (systemLegacyEncoding() above; empty for none).
DecodedText decodeText(QByteArrayView bytes, bool complete, const QString &legacyEncoding);

// The bytes of text in format's encoding, with its BOM (Utf8, Utf16LE, Utf16BE); the text's line
// endings are written as they are. An empty `unencodable` means success; otherwise it names the
// first character the encoding cannot store and its line (`"中" (U+4E2D) on line 3`): only a
// Legacy code page can fail, or any encoding on a lone surrogate; or "any character on this
// system (it has no GB18030 converter)".
struct EncodedText
{
    QByteArray bytes;
    QString unencodable;
};
EncodedText encodeText(QStringView text, const TextFormat &format);

// Line endings of a text, and whether it ends with one.
TextFormat::LineEndings lineEndingsOf(QStringView text);

// text with every line break ("\r\n" or "\n") replaced by newline.
QString withLineEndings(QStringView text, QStringView newline);

} // namespace AgentLoop
