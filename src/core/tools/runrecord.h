#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <memory>

namespace AgentLoop {

// How one output stream was turned into the text the model read, and on what evidence.
struct StreamDecoding
{
    enum class Basis {
        NoOutput,    // the stream printed nothing
        ValidUtf8,   // every byte was UTF-8
        Utf8Bom,     // valid UTF-8 that began with a UTF-8 byte order mark (dropped)
        Utf16Bom,    // began with a UTF-16 byte order mark: the whole stream is UTF-16
        Utf16Zeros,  // no BOM, but every other byte of its beginning was zero: UTF-16 (wsl.exe,
                     // cmd /u and .NET programs write that to pipes)
        LegacyLines, // lines that were not UTF-8 were decoded with the system's code page
        InvalidUtf8, // not UTF-8, and no code page to try: U+FFFD for what is not
    };

    Basis basis = Basis::NoOutput;
    // "UTF-8", "UTF-16LE", "UTF-16BE", or the code page of LegacyLines ("CP936")
    QString encoding;
};

// One read from a pipe: when it arrived (milliseconds after the start) and its bytes.
struct RawChunk
{
    qint64 atMs = 0;
    QByteArray bytes;
};

// One output stream as it arrived, bounded: the first keptLimit bytes in their reads, the rest
// only counted (the long-output file has all of it).
struct RawStream
{
    QList<RawChunk> chunks;
    qint64 totalBytes = 0;   // what the command printed on this stream
    qint64 droppedBytes = 0; // past the limit, not kept
    StreamDecoding decoding;
    bool clixml = false; // PowerShell's standard error: CLIXML records were decoded

    QByteArray bytes() const; // the kept chunks, joined
    // Keeps bytes (or the part of them within limit) as one more chunk.
    void append(qint64 atMs, QByteArrayView bytes, qint64 limit);
};

// A variable the command's environment has differently from the app's own.
struct EnvironmentChange
{
    enum Kind { Added, Removed, Changed };
    Kind kind = Added;
    QString name;
    QString value;            // Added, Changed: the command's value; empty when hidden
    bool valueHidden = false; // the name looks like a secret's (KEY, TOKEN, PASSWORD, ...)
};

// Everything about one command the user may want to see after it ran: what was launched,
// exactly, and what came back, byte for byte. Never sent to the model.
struct RunRecord
{
    // Bytes kept of each stream.
    static constexpr qint64 defaultKeptBytes = qint64(1) << 20; // the chat keeps every record

    QString command;         // as the model asked for it
    QString shellName;       // "PowerShell 7 (pwsh)", "/bin/sh"
    QString program;         // as given to QProcess
    QStringList arguments;   // as given to QProcess (empty when nativeArguments are used)
    QString nativeArguments; // Windows, cmd.exe: the command line as given to CreateProcess
    QString script;          // PowerShell: the script file it ran, decoded (no BOM)
    QString workingDirectory;
    QList<EnvironmentChange> environment;
    QString legacyEncoding; // the code page lines that are not UTF-8 were tried in; empty: none
    RawStream standardOutput;
    RawStream standardError;
};

// What the command's environment changes against the app's, by name; secret-looking values are
// hidden, never copied.
QList<EnvironmentChange> environmentChanges(const QProcessEnvironment &base,
                                            const QProcessEnvironment &command);
// Whether a variable of this name probably holds a secret.
bool looksLikeSecretName(const QString &name);

// The text of the bytes as the runner decodes a stream (OutputCapture without a limit), and how.
struct DecodedOutput
{
    QString text;
    StreamDecoding decoding;
};
DecodedOutput decodeOutput(QByteArrayView bytes,
                           const QString &legacyEncoding,
                           bool decodeClixml = false);

// The bytes decoded whole in one encoding ("UTF-8", "UTF-16LE", "UTF-16BE", "ISO-8859-1", or a
// code page for LegacyDecoder: "GB18030", "CP936", "CP950", ...), U+FFFD for what is not a
// character. Empty when the encoding is not available here.
QString decodeAs(QByteArrayView bytes, const QString &encoding);

// The bytes in rows of rowBytes (a hex dump's lines) and the characters of each row: a character
// belongs to the row its last byte is in. With an empty encoding the rows are decoded as the
// runner decoded the stream (decoding; with LegacyLines line by line, UTF-8 where a line is,
// legacyEncoding where not), else as decodeAs(encoding) does.
struct DecodedRows
{
    QString text;               // all of it: decodeAs(), or the runner's characters (no CLIXML)
    QList<qsizetype> rowStarts; // where each row's characters start in text, and text.size()
    QStringView row(qsizetype row) const
    {
        return QStringView(text).sliced(rowStarts.at(row),
                                        rowStarts.at(row + 1) - rowStarts.at(row));
    }
};
DecodedRows decodeRows(QByteArrayView bytes,
                       qsizetype rowBytes,
                       const QString &encoding,
                       const StreamDecoding &decoding = {},
                       const QString &legacyEncoding = {});

// The encodings decodeAs() offers on this system, as {name for decodeAs(), name for people}.
struct EncodingChoice
{
    QString encoding;
    QString label; // "GBK (CP936)"
};
QList<EncodingChoice> availableEncodings();

} // namespace AgentLoop
