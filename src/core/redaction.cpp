#include "redaction.h"

namespace AgentLoop {

// Very short "keys" (a test's "x") would shred every text they appear in; real keys are long.
static bool worthRedacting(const QString &secret)
{
    return secret.trimmed().size() >= 4;
}

QByteArray redacted(QByteArray bytes, const QString &secret)
{
    if (worthRedacting(secret))
        bytes.replace(secret.toUtf8(), QByteArray(redactedMarker));
    return bytes;
}

QString redacted(QString text, const QString &secret)
{
    if (worthRedacting(secret))
        text.replace(secret, QString::fromLatin1(redactedMarker));
    return text;
}

} // namespace AgentLoop
