#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QUrl>

namespace AgentLoop {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// Why a request was sent: a turn of the loop, or one of the extra requests the loop makes for
// itself (shown apart in the inspector).
enum class ExchangePurpose {
    Turn,         // the history, for the model's next step
    Compaction,   // a summary of older turns (context/compaction.h)
    Continuation, // the rest of an answer cut off at the token limit
};

// One HTTP round trip with the provider, as it went over the wire: the exact bytes sent and
// received, for the inspector and transcripts. The API key never appears in it: the
// Authorization header is recorded redacted, and the key is masked anywhere else it shows up.
struct Exchange
{
    int turn = 0; // the model request number within the run, from 1
    ExchangePurpose purpose = ExchangePurpose::Turn;
    QString model;     // the model the request asked for (a fallback's, once the loop switched)
    QByteArray method; // "POST"
    QUrl url;
    HeaderList requestHeaders;
    QByteArray requestBody;
    QDateTime startedAt;

    int httpStatus = 0; // 0 when no HTTP answer arrived
    HeaderList responseHeaders;
    QByteArray responseBody;
    qint64 durationMs = 0;
    // From the request going out to the first byte of the answer's body (for a stream, its first
    // event); -1 when no body arrived.
    qint64 firstByteMs = -1;
    QString errorString; // the network error, when there was one

    int attempt = 1;             // 2 and up for retries of the same request
    bool streamed = false;       // responseBody holds the raw Server-Sent Events as received
    QByteArray assembledMessage; // streamed: the assistant message the loop acted on, as JSON
    QString retryNotice;         // set when this attempt failed and the request is sent again
};

// The request as a POSIX shell command: the exact body on standard input, and the key as
// $OPENAI_API_KEY, never the key itself.
QString curlCommand(const Exchange &exchange);

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::Exchange)
