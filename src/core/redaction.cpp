#include "redaction.h"

#include <QByteArrayMatcher>

namespace AgentLoop {

// Very short "keys" (a test's "x") would shred every text they appear in; real keys are long.
static bool worthRedacting(const QString &secret)
{
    return secret.trimmed().size() >= 4;
}

QByteArray redacted(QByteArray bytes, const QString &secret)
{
    if (!worthRedacting(secret))
        return bytes;
    // A streamed response body is tens of MB and almost never holds the key, but replace() copies
    // it all first even when nothing matches: look before. (A matcher, because contains() hashes
    // every position for keys of up to 5 bytes.)
    const QByteArray key = secret.toUtf8();
    if (QByteArrayMatcher(key).indexIn(bytes) >= 0)
        bytes.replace(key, QByteArray(redactedMarker));
    return bytes;
}

QString redacted(QString text, const QString &secret)
{
    if (worthRedacting(secret))
        text.replace(secret, QString::fromLatin1(redactedMarker));
    return text;
}

} // namespace AgentLoop
