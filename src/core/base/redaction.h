#pragma once

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QString>
#include <QStringList>

#include <utility>

namespace AgentLoop {

// What a secret is replaced with wherever a request, a response or an error is shown or written.
inline constexpr char redactedMarker[] = "[REDACTED]";

// Replaces every occurrence of secret with redactedMarker, in each encoding a command or a
// provider writes it in without trying to hide it:
// - as it is;
// - base64 and base64url, at each of the three byte alignments inside a longer base64 text (the
//   characters that depend on the secret alone; those it shares with its neighbours stay);
// - URL-encoded and JSON-escaped, every character or only some (%XX, \uXXXX in either hex case,
//   \/ and the other JSON escapes; in the QString form %XX%XX... also as one UTF-8 character);
// - hex, in lower or in upper case;
// - UTF-16LE and UTF-16BE (in the QString form: its bytes read one character each, as Latin-1
//   or UTF-8 read them; in the QByteArray form the marker is written in that UTF-16 too).
// A secret under 4 characters (after trimming) is not redacted: it would shred any text.
// Text without the secret is returned as it came, not copied. Linear in the text's size.
QByteArray redacted(QByteArray bytes, const QString &secret);
QString redacted(QString text, const QString &secret);
// Whether redacted() would replace anything: the secret is in bytes in one of those encodings.
bool containsSecret(const QByteArray &bytes, const QString &secret);

// Every secret of the list, one after the other.
QString redacted(QString text, const QStringList &secrets);
// Where in text any of the secrets is (in any encoding above): sorted [begin, end) ranges that do
// not overlap.
QList<std::pair<qsizetype, qsizetype>> secretRanges(const QString &text, const QStringList &secrets);

// A text with every secret of a list replaced by redactedMarker, and the way back to the positions
// of the text it was made from. What a tool matches on when its answer must not depend on a
// secret's characters: grep's pattern, edit_file's old_string (a match that found a secret by
// guessing it would tell the model one character at a time).
class MaskedText final
{
public:
    MaskedText(const QString &text, const QStringList &secrets);

    const QString &text() const { return m_text; }
    // The position in the original text of a position in text() that is not inside a marker.
    qsizetype originalPosition(qsizetype maskedPosition) const;
    // Whether [begin, end) of text() holds any part of a marker.
    bool touchesSecret(qsizetype begin, qsizetype end) const;

private:
    struct Marker
    {
        qsizetype maskedBegin;
        qsizetype maskedEnd;
        qsizetype shift; // original position minus masked position, after this marker
    };
    QString m_text;
    QList<Marker> m_markers;
};

// The secrets the app knows: every profile's key, the values MCP settings take
// from variables. Set by the session, read by the tools on their worker threads.
class KnownSecrets final
{
public:
    void set(QStringList secrets);
    QStringList list() const;

private:
    mutable QMutex m_mutex;
    QStringList m_secrets;
};

} // namespace AgentLoop
