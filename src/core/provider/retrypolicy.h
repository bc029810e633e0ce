#pragma once

#include "protocol/providersettings.h"

#include <QByteArray>
#include <QDateTime>
#include <QNetworkReply>
#include <QString>

#include <chrono>
#include <functional>
#include <optional>

namespace AgentLoop {

// When a failed request is sent again, and how long to wait first. Pure: no timers, no network.
// "attempt" counts requests, 1-based: attempt 1 is the first request, attempt 2 the first retry.

// 408, 409, 429, 500, 502, 503 and 504: the provider may well answer the same request next time.
// Never 400, 401, 403, 404 (or any other status): sending it again cannot help.
bool isRetryableStatus(int httpStatus);

// A failed attempt. httpStatus is the response's status, or 0 when no response arrived at all.
// With a status, the status decides. Without one, connection failures are retried (refused,
// closed before a byte arrived, a temporary network or proxy failure, a connect timeout); an
// unknown host (most often a typo in the base URL), TLS errors and a cancelled request are not.
// The client's own idle timeout and the user's Stop both abort() the reply, which Qt reports like
// a transfer timeout: decide those from your own flag, not from here.
// A stream that breaks after the model started answering (HTTP 200) is never retried: the user
// would see the beginning of the answer twice.
bool isRetryable(int httpStatus, QNetworkReply::NetworkError networkError);

// The wait a Retry-After header asks for (RFC 9110 §10.2.3): delay-seconds ("120"; a fraction
// such as "1.5" is accepted) or an HTTP-date, in the IMF-fixdate form ("Sun, 06 Nov 1994
// 08:49:37 GMT") or the obsolete RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov
// 6 08:49:37 1994") forms; the weekday is not checked. A date in the past gives 0. A negative
// number or anything else gives std::nullopt; longer waits are capped at maximum.
std::optional<std::chrono::milliseconds> parseRetryAfter(
        const QByteArray &value,
        const QDateTime &now,
        std::chrono::milliseconds maximum = DefaultMaxRetryAfter);

// Returns a number in [0, 1]. Tests pass a fixed one; systemJitter() draws from
// QRandomGenerator::global().
using JitterSource = std::function<double()>;
JitterSource systemJitter();

// The limits of ProviderSettings::retry, put to work.
struct RetryPolicy : RetryLimits
{
    RetryPolicy() = default;
    explicit RetryPolicy(const RetryLimits &limits)
        : RetryLimits(limits)
    {}

    // Whether the request may be sent again after attempt `attempt` failed (and was retryable).
    bool allowsRetryAfter(int attempt) const { return attempt >= 1 && attempt <= maxRetries; }

    // The wait after attempt `attempt` failed. A positive Retry-After is honoured as sent (up to
    // maxRetryAfter): the provider knows when it will answer again. Otherwise exponential backoff
    // with "equal jitter": the ceiling is baseDelay * 2^(attempt - 1), at most maxDelay, and the
    // wait is drawn from [ceiling / 2, ceiling] (1 s, 2 s, 4 s, ... at most 30 s by default).
    // Equal rather than full jitter ([0, ceiling]): one client retrying a rate limit gains nothing
    // from a near-zero wait, and spreading over the upper half still breaks up synchronised
    // retries.
    std::chrono::milliseconds delayForAttempt(int attempt,
                                              std::optional<std::chrono::milliseconds> retryAfter,
                                              const JitterSource &jitter = systemJitter()) const;

    // What a front end shows while it waits: "Retrying in 2 s (attempt 2 of 4)."
    QString notice(std::chrono::milliseconds delay, int failedAttempt) const;
};

} // namespace AgentLoop
