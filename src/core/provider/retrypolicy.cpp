#include "provider/retrypolicy.h"

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace AgentLoop {

namespace {

struct RetryText
{
    Q_DECLARE_TR_FUNCTIONS(RetryPolicy)
};

std::optional<std::chrono::milliseconds> parseDelaySeconds(const QByteArray &value,
                                                           std::chrono::milliseconds maximum)
{
    // 1*DIGIT, optionally with a fraction; no sign, no exponent, no spaces inside.
    qsizetype digits = 0;
    qsizetype dots = 0;
    for (const char c : value) {
        if (c >= '0' && c <= '9')
            ++digits;
        else if (c == '.')
            ++dots;
        else
            return std::nullopt;
    }
    if (digits == 0 || dots > 1 || value.startsWith('.'))
        return std::nullopt;
    bool ok = false;
    const double seconds = value.toDouble(&ok); // huge values become inf or large, never UB
    if (!ok || !(seconds >= 0))
        return std::nullopt;
    const double maximumSeconds = double(maximum.count()) / 1000.0;
    if (seconds >= maximumSeconds)
        return maximum;
    return std::chrono::milliseconds(qint64(std::llround(seconds * 1000.0)));
}

int monthFromName(const QString &name)
{
    static const QString names[] = {u"Jan"_s,
                                    u"Feb"_s,
                                    u"Mar"_s,
                                    u"Apr"_s,
                                    u"May"_s,
                                    u"Jun"_s,
                                    u"Jul"_s,
                                    u"Aug"_s,
                                    u"Sep"_s,
                                    u"Oct"_s,
                                    u"Nov"_s,
                                    u"Dec"_s};
    for (int i = 0; i < 12; ++i) {
        if (name.compare(names[i], Qt::CaseInsensitive) == 0)
            return i + 1;
    }
    return 0;
}

int number(const QString &text, int minDigits, int maxDigits)
{
    if (text.size() < minDigits || text.size() > maxDigits)
        return -1;
    for (const QChar c : text) {
        if (c < u'0' || c > u'9')
            return -1;
    }
    return text.toInt();
}

bool isGmt(const QString &zone)
{
    return zone == u"GMT" || zone == u"UTC";
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
int fullYear(int twoDigitYear, const QDateTime &now)
{
    const int currentYear = now.toUTC().date().year();
    int year = currentYear - currentYear % 100 + twoDigitYear;
    if (year > currentYear + 50)
        year -= 100;
    return year;
}

QDateTime parseHttpDate(const QByteArray &value, const QDateTime &now)
{
    QStringList tokens = QString::fromLatin1(value).simplified().split(u' ');
    int day = -1;
    int month = 0;
    int year = -1;
    QString time;
    if (!tokens.isEmpty() && tokens.first().endsWith(u',')) {
        tokens.removeFirst(); // the weekday
        if (tokens.size() == 5 && isGmt(tokens[4])) {
            // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
            day = number(tokens[0], 1, 2);
            month = monthFromName(tokens[1]);
            year = number(tokens[2], 4, 4);
            time = tokens[3];
        } else if (tokens.size() == 3 && isGmt(tokens[2])) {
            // RFC 850: 06-Nov-94 08:49:37 GMT
            const QStringList parts = tokens[0].split(u'-');
            if (parts.size() == 3) {
                day = number(parts[0], 1, 2);
                month = monthFromName(parts[1]);
                const int shortYear = number(parts[2], 2, 2);
                year = shortYear < 0 ? -1 : fullYear(shortYear, now);
            }
            time = tokens[1];
        }
    } else if (tokens.size() == 5) {
        // asctime: Sun Nov  6 08:49:37 1994
        month = monthFromName(tokens[1]);
        day = number(tokens[2], 1, 2);
        time = tokens[3];
        year = number(tokens[4], 4, 4);
    }
    if (day < 0 || month == 0 || year < 0)
        return {};
    const QDate date(year, month, day);
    const QTime clock = QTime::fromString(time, u"hh:mm:ss"_s);
    if (!date.isValid() || !clock.isValid())
        return {};
    return QDateTime(date, clock, QTimeZone::utc());
}

} // namespace

bool isRetryableStatus(int httpStatus)
{
    switch (httpStatus) {
    case 408: // Request Timeout
    case 409: // Conflict: OpenAI uses it for a lock held by a concurrent request
    case 429: // Too Many Requests
    case 500:
    case 502:
    case 503:
    case 504:
    case 529: // Anthropic's "Overloaded" (its OpenAI-compatible endpoint too): like a 503
        return true;
    default:
        return false;
    }
}

bool isRetryable(int httpStatus, QNetworkReply::NetworkError networkError)
{
    if (networkError == QNetworkReply::OperationCanceledError)
        return false;
    if (httpStatus != 0)
        return isRetryableStatus(httpStatus);
    switch (networkError) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyTimeoutError:
        return true;
    default:
        return false;
    }
}

std::optional<std::chrono::milliseconds> parseRetryAfter(const QByteArray &value,
                                                         const QDateTime &now,
                                                         std::chrono::milliseconds maximum)
{
    const QByteArray trimmed = value.trimmed();
    if (trimmed.isEmpty())
        return std::nullopt;
    if (trimmed.front() >= '0' && trimmed.front() <= '9')
        return parseDelaySeconds(trimmed, maximum);
    const QDateTime date = parseHttpDate(trimmed, now);
    if (!date.isValid() || !now.isValid())
        return std::nullopt;
    const qint64 wait = now.msecsTo(date);
    return std::clamp(std::chrono::milliseconds(wait), 0ms, maximum);
}

JitterSource systemJitter()
{
    return [] {
        return QRandomGenerator::global()->generateDouble();
    };
}

std::chrono::milliseconds RetryPolicy::delayForAttempt(
        int attempt,
        std::optional<std::chrono::milliseconds> retryAfter,
        const JitterSource &jitter) const
{
    if (retryAfter && *retryAfter > 0ms)
        return std::min(*retryAfter, maxRetryAfter);

    // Doubling with a bound instead of a shift: no overflow, whatever attempt is.
    std::chrono::milliseconds ceiling = std::max(baseDelay, 0ms);
    for (int i = 1; i < attempt && ceiling > 0ms && ceiling < maxDelay; ++i)
        ceiling *= 2;
    ceiling = std::min(ceiling, maxDelay);

    double fraction = jitter ? jitter() : 0.5;
    if (!(fraction >= 0.0)) // also NaN
        fraction = 0.0;
    fraction = std::min(fraction, 1.0);
    const std::chrono::milliseconds half = ceiling / 2;
    return half
           + std::chrono::milliseconds(
                   qint64(std::llround(fraction * double((ceiling - half).count()))));
}

QString RetryPolicy::notice(std::chrono::milliseconds delay, int failedAttempt) const
{
    const qint64 seconds = (delay.count() + 999) / 1000; // rounded up: 1.5 s reads "2 s"
    return RetryText::tr("Retrying in %1 s (attempt %2 of %3).")
            .arg(seconds)
            .arg(failedAttempt + 1)
            .arg(maxRetries + 1);
}

} // namespace AgentLoop
