#pragma once

#include <QByteArray>
#include <QString>

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

} // namespace AgentLoop
