#pragma once

#include "base/codepage.h"
#include "tools/clixml.h"
#include "tools/runrecord.h"

#include <QByteArray>
#include <QString>
#include <QStringDecoder>

#include <memory>

namespace AgentLoop {

// Text of one output stream, bounded in memory however much the command prints: the first and
// last outputLimit/2 characters are kept, and the total is counted.
struct CapturedText
{
    QString head;          // the whole text when nothing was cut
    QString tail;          // empty when nothing was cut
    qint64 totalChars = 0; // characters the command printed on this stream
    // The legacy encoding some lines were decoded with because they were not UTF-8 (e.g.
    // "CP936"); empty when every line was UTF-8.
    QString legacyEncoding;
    bool clixmlDecoded = false; // PowerShell's CLIXML records were turned into plain lines
    StreamDecoding decoding;    // the encoding the text was decoded from, and why

    bool isTruncated() const { return totalChars > head.size() + tail.size(); }
    qint64 cutChars() const { return totalChars - head.size() - tail.size(); }
    // The whole text, or head + "\n[... N characters cut; the stream had M characters in
    // total ...]\n" + tail. English: it is what the model reads.
    QString render() const;
};

struct CaptureOptions
{
    qsizetype limit = 30000; // characters kept: head and tail halves
    // Lines that are not valid UTF-8 are decoded with this encoding (see systemLegacyEncoding());
    // empty: they are decoded as UTF-8 with U+FFFD for what is not.
    QString legacyEncoding;
    bool decodeClixml = false; // PowerShell's standard error
};

// One output stream as it arrives from a pipe. Decoded line by line: a line that is valid UTF-8
// is UTF-8 (what the shells are told to write), any other line comes from a native program
// writing in the system's legacy code page (Python on Chinese Windows writes CP936 to pipes).
// Deciding per line keeps both kinds readable when one command mixes them; a line break is never
// a byte of a multi-byte character in UTF-8 or the East Asian code pages, so cutting there is
// safe. A stream that begins with a UTF-16 byte order mark, or whose first bytes are every other
// one zero (ASCII in UTF-16, as wsl.exe and cmd /u write it; nine pairs of bytes in ten), is UTF-16 throughout instead. Only
// the head and the tail of the text are kept.
class OutputCapture
{
public:
    explicit OutputCapture(CaptureOptions options);
    ~OutputCapture();

    void append(const QByteArray &bytes);
    qint64 totalChars() const { return m_total; }
    CapturedText finish();

private:
    enum class Mode { Undecided, Lines, Utf16LE, Utf16BE };

    void decide(bool streamEnded);
    void appendLines(const QByteArray &bytes);
    QString decodeUtf8(QByteArrayView bytes, bool *valid);
    void decodeLines(QByteArrayView lines);
    void decodeLine(QByteArrayView line, bool streamEnded);
    void pass(const QString &text);
    void keep(QStringView text);

    const qsizetype m_headLimit;
    const qsizetype m_tailLimit;
    std::unique_ptr<LegacyDecoder> m_legacy;
    std::unique_ptr<ClixmlFilter> m_clixml;
    QByteArray m_line; // bytes of the line not yet ended (Undecided: all bytes so far)
    Mode m_mode = Mode::Undecided;
    StreamDecoding::Basis m_basis = StreamDecoding::Basis::NoOutput;
    std::unique_ptr<QStringDecoder> m_utf16;
    qint64 m_utf16Bytes = 0;
    bool m_sawInvalidUtf8 = false;
    bool m_atStart = true;
    bool m_usedLegacy = false;
    QString m_head;
    QString m_tail;
    qint64 m_total = 0;
};

// How many bytes at the end of a UTF-8 text begin a character whose continuation bytes have not
// arrived yet (0: it ends at a character boundary).
qsizetype incompleteUtf8Tail(QByteArrayView bytes);

} // namespace AgentLoop
