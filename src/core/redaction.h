#pragma once

#include <QByteArray>
#include <QString>

namespace AgentLoop {

// What a secret is replaced with wherever a request, a response or an error is shown or written.
inline constexpr char redactedMarker[] = "[REDACTED]";

// Replaces every occurrence of secret (when it is not empty) with redactedMarker.
QByteArray redacted(QByteArray bytes, const QString &secret);
QString redacted(QString text, const QString &secret);

} // namespace AgentLoop
