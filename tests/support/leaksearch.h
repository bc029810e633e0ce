#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace AgentLoop {

// (encoding name, bytes): every form in which a key could be written and still be recognised by
// someone grepping for it — UTF-8, UTF-16, base64 and base64url at each alignment, hex in either
// case, every character URL-encoded or JSON-escaped (\uXXXX) in either hex case, and the random
// tail alone (a truncated or partly masked copy holding it is a leak too). The first is UTF-8.
using KeyNeedles = QList<QPair<QByteArray, QByteArray>>;
KeyNeedles keyNeedles(const QString &key);

// bytes with %XX and JSON escapes (\uXXXX, surrogate pairs, \/ and the others) decoded, and
// everything else as it is: a key written with only some of its characters escaped is the key.
QByteArray unescaped(const QByteArray &bytes);

// "what: encoding at byte N: ...excerpt..." for each needle found in bytes or, failing that, in
// unescaped(bytes). The excerpt shows the key as <KEY>: a test's own output is a log too.
QStringList keyHits(const QByteArray &bytes, const QString &what, const KeyNeedles &needles);

} // namespace AgentLoop
