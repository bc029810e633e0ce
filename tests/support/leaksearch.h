#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace AgentLoop {

// (encoding name, bytes): every form in which a key could be written and still be recognised by
// someone grepping for it — UTF-8, UTF-16, base64 at each alignment, base64url, and the random
// tail alone (a truncated or partly masked copy holding it is a leak too).
using KeyNeedles = QList<QPair<QByteArray, QByteArray>>;
KeyNeedles keyNeedles(const QString &key);

// "what: encoding at byte N: ...excerpt..." for each needle found in bytes. The excerpt shows
// the key as <KEY>: a test's own output is a log too.
QStringList keyHits(const QByteArray &bytes, const QString &what, const KeyNeedles &needles);

} // namespace AgentLoop
