#include "provider/retrypolicy.h"
#include "testmain.h"

#include <QRandomGenerator>
#include <QTest>
#include <QTimeZone>

#include <cmath>
#include <limits>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

using Milliseconds = std::optional<std::chrono::milliseconds>;
Q_DECLARE_METATYPE(Milliseconds)

namespace QTest {
template<>
char *toString(const Milliseconds &value)
{
    return qstrdup(value ? QByteArray::number(qint64(value->count())) + "ms" : "nullopt");
}
} // namespace QTest

class tst_RetryPolicy : public QObject
{
    Q_OBJECT

private slots:
    void retryableStatus_data();
    void retryableStatus();
    void retryableNetworkError_data();
    void retryableNetworkError();
    void retryAfter_data();
    void retryAfter();
    void retryAfterTwoDigitYears();
    void backoffBounds_data();
    void backoffBounds();
    void backoffWithRandomJitterStaysInBounds();
    void retryAfterIsHonoured();
    void retryCount();
    void notice();
};

namespace {

// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date.
const QDateTime exampleDate(QDate(1994, 11, 6), QTime(8, 49, 37), QTimeZone::utc());

JitterSource fixedJitter(double value)
{
    return [value] {
        return value;
    };
}

} // namespace

void tst_RetryPolicy::retryableStatus_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("retryable");
    // 529: Anthropic's "Overloaded" (https://docs.anthropic.com/en/api/errors), retried like 503.
    for (const int status : {408, 409, 429, 500, 502, 503, 504, 529})
        QTest::addRow("%d", status) << status << true;
    for (const int status :
         {200, 201, 301, 304, 400, 401, 402, 403, 404, 405, 413, 422, 501, 505, 520, 530})
        QTest::addRow("%d", status) << status << false;
}

void tst_RetryPolicy::retryableStatus()
{
    QFETCH(int, status);
    QFETCH(bool, retryable);
    QCOMPARE(isRetryableStatus(status), retryable);
    // With a status, the status decides whatever Qt's error code says.
    QCOMPARE(isRetryable(status, QNetworkReply::UnknownServerError), retryable);
    QCOMPARE(isRetryable(status, QNetworkReply::RemoteHostClosedError), retryable);
}

void tst_RetryPolicy::retryableNetworkError_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QNetworkReply::NetworkError>("error");
    QTest::addColumn<bool>("retryable");

    QTest::newRow("refused") << 0 << QNetworkReply::ConnectionRefusedError << true;
    QTest::newRow("closed before a byte") << 0 << QNetworkReply::RemoteHostClosedError << true;
    QTest::newRow("connect timeout") << 0 << QNetworkReply::TimeoutError << true;
    QTest::newRow("temporary failure") << 0 << QNetworkReply::TemporaryNetworkFailureError << true;
    QTest::newRow("session failed") << 0 << QNetworkReply::NetworkSessionFailedError << true;
    QTest::newRow("unknown network error") << 0 << QNetworkReply::UnknownNetworkError << true;
    QTest::newRow("proxy refused") << 0 << QNetworkReply::ProxyConnectionRefusedError << true;
    QTest::newRow("proxy closed") << 0 << QNetworkReply::ProxyConnectionClosedError << true;
    QTest::newRow("proxy timeout") << 0 << QNetworkReply::ProxyTimeoutError << true;
    QTest::newRow("unknown host") << 0 << QNetworkReply::HostNotFoundError << false;
    QTest::newRow("TLS") << 0 << QNetworkReply::SslHandshakeFailedError << false;
    QTest::newRow("cancelled") << 0 << QNetworkReply::OperationCanceledError << false;
    QTest::newRow("cancelled after a 503") << 503 << QNetworkReply::OperationCanceledError << false;
    QTest::newRow("proxy auth") << 0 << QNetworkReply::ProxyAuthenticationRequiredError << false;
    QTest::newRow("protocol") << 0 << QNetworkReply::ProtocolFailure << false;
    QTest::newRow("no error, no status") << 0 << QNetworkReply::NoError << false;
    // The model had started answering: retrying would show the beginning twice.
    QTest::newRow("stream cut after 200") << 200 << QNetworkReply::RemoteHostClosedError << false;
}

void tst_RetryPolicy::retryableNetworkError()
{
    QFETCH(int, status);
    QFETCH(QNetworkReply::NetworkError, error);
    QFETCH(bool, retryable);
    QCOMPARE(isRetryable(status, error), retryable);
}

void tst_RetryPolicy::retryAfter_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<Milliseconds>("expected");

    QTest::newRow("seconds") << "30"_ba << Milliseconds(30s);
    QTest::newRow("zero") << "0"_ba << Milliseconds(0ms);
    QTest::newRow("surrounding spaces") << " 5 "_ba << Milliseconds(5s);
    QTest::newRow("leading zeros") << "007"_ba << Milliseconds(7s);
    QTest::newRow("fraction") << "1.5"_ba << Milliseconds(1500ms);
    QTest::newRow("capped") << "3600"_ba << Milliseconds(60s);
    QTest::newRow("huge") << "99999999999999999999999999999"_ba << Milliseconds(60s);
    QTest::newRow("negative") << "-5"_ba << Milliseconds();
    QTest::newRow("plus sign") << "+5"_ba << Milliseconds();
    QTest::newRow("unit") << "5s"_ba << Milliseconds();
    QTest::newRow("two numbers") << "5 6"_ba << Milliseconds();
    QTest::newRow("exponent") << "1e3"_ba << Milliseconds();
    QTest::newRow("two dots") << "1.2.3"_ba << Milliseconds();
    QTest::newRow("trailing dot") << "2."_ba << Milliseconds(2s);
    QTest::newRow("empty") << ""_ba << Milliseconds();
    QTest::newRow("garbage") << "soon"_ba << Milliseconds();

    QTest::newRow("IMF-fixdate, 30 s ahead")
            << "Sun, 06 Nov 1994 08:50:07 GMT"_ba << Milliseconds(30s);
    QTest::newRow("IMF-fixdate, now") << "Sun, 06 Nov 1994 08:49:37 GMT"_ba << Milliseconds(0ms);
    QTest::newRow("IMF-fixdate, in the past")
            << "Sun, 06 Nov 1994 08:48:00 GMT"_ba << Milliseconds(0ms);
    QTest::newRow("IMF-fixdate, long ago")
            << "Thu, 01 Jan 1970 00:00:00 GMT"_ba << Milliseconds(0ms);
    QTest::newRow("IMF-fixdate, capped") << "Mon, 07 Nov 1994 08:49:37 GMT"_ba << Milliseconds(60s);
    QTest::newRow("IMF-fixdate, wrong weekday")
            << "Fri, 06 Nov 1994 08:49:47 GMT"_ba << Milliseconds(10s);
    QTest::newRow("IMF-fixdate, one-digit day")
            << "Sun, 6 Nov 1994 08:49:47 GMT"_ba << Milliseconds(10s);
    QTest::newRow("RFC 850") << "Sunday, 06-Nov-94 08:49:47 GMT"_ba << Milliseconds(10s);
    QTest::newRow("asctime") << "Sun Nov  6 08:49:47 1994"_ba << Milliseconds(10s);
    QTest::newRow("asctime, two-digit day") << "Sun Nov 06 08:49:47 1994"_ba << Milliseconds(10s);
    QTest::newRow("lower-case month") << "Sun, 06 nov 1994 08:49:47 GMT"_ba << Milliseconds(10s);
    QTest::newRow("not GMT") << "Sun, 06 Nov 1994 08:49:47 PST"_ba << Milliseconds();
    QTest::newRow("numeric zone") << "Sun, 06 Nov 1994 08:49:47 +0000"_ba << Milliseconds();
    QTest::newRow("no such month") << "Sun, 06 Foo 1994 08:49:47 GMT"_ba << Milliseconds();
    QTest::newRow("no such day") << "Sun, 31 Nov 1994 08:49:47 GMT"_ba << Milliseconds();
    QTest::newRow("bad time") << "Sun, 06 Nov 1994 25:49:47 GMT"_ba << Milliseconds();
    QTest::newRow("short time") << "Sun, 06 Nov 1994 8:49 GMT"_ba << Milliseconds();
    QTest::newRow("date only") << "Sun, 06 Nov 1994"_ba << Milliseconds();
    QTest::newRow("weekday only") << "Sun,"_ba << Milliseconds();
    QTest::newRow("ISO 8601") << "1994-11-06T08:49:47Z"_ba << Milliseconds();
    QTest::newRow("binary") << "\xff\xfe\x00\x01"_ba << Milliseconds();
}

void tst_RetryPolicy::retryAfter()
{
    QFETCH(QByteArray, value);
    QFETCH(Milliseconds, expected);
    QCOMPARE(parseRetryAfter(value, exampleDate), expected);
}

void tst_RetryPolicy::retryAfterTwoDigitYears()
{
    // RFC 9110: a two-digit year more than 50 years ahead is in the previous century.
    const QDateTime now(QDate(2030, 1, 1), QTime(0, 0), QTimeZone::utc());
    QCOMPARE(parseRetryAfter("Tuesday, 01-Jan-30 00:00:05 GMT", now), Milliseconds(5s));
    QCOMPARE(parseRetryAfter("Monday, 01-Jan-79 00:00:00 GMT", now), Milliseconds(60s));    // 2079
    QCOMPARE(parseRetryAfter("Wednesday, 01-Jan-81 00:00:00 GMT", now), Milliseconds(0ms)); // 1981
    const QDateTime late(QDate(2099, 12, 31), QTime(23, 59, 59), QTimeZone::utc());
    QCOMPARE(parseRetryAfter("Saturday, 01-Jan-00 00:00:09 GMT", late), Milliseconds(0ms)); // 2000
    QCOMPARE(parseRetryAfter("Sun, 06 Nov 1994 08:49:47 GMT", QDateTime()), Milliseconds());
    QCOMPARE(parseRetryAfter("12", QDateTime()), Milliseconds(12s)); // seconds need no clock
    QCOMPARE(parseRetryAfter("100", exampleDate, 500ms), Milliseconds(500ms));
}

void tst_RetryPolicy::backoffBounds_data()
{
    QTest::addColumn<int>("attempt");
    QTest::addColumn<qint64>("lowest");
    QTest::addColumn<qint64>("highest");

    QTest::newRow("after attempt 1") << 1 << qint64(500) << qint64(1000);
    QTest::newRow("after attempt 2") << 2 << qint64(1000) << qint64(2000);
    QTest::newRow("after attempt 3") << 3 << qint64(2000) << qint64(4000);
    QTest::newRow("after attempt 4") << 4 << qint64(4000) << qint64(8000);
    QTest::newRow("after attempt 5") << 5 << qint64(8000) << qint64(16000);
    QTest::newRow("after attempt 6: capped") << 6 << qint64(15000) << qint64(30000);
    QTest::newRow("after attempt 100") << 100 << qint64(15000) << qint64(30000);
    QTest::newRow("INT_MAX") << std::numeric_limits<int>::max() << qint64(15000) << qint64(30000);
    QTest::newRow("0 is treated as the first") << 0 << qint64(500) << qint64(1000);
    QTest::newRow("negative is treated as the first") << -3 << qint64(500) << qint64(1000);
}

void tst_RetryPolicy::backoffBounds()
{
    QFETCH(int, attempt);
    QFETCH(qint64, lowest);
    QFETCH(qint64, highest);
    const RetryPolicy policy;
    QCOMPARE(policy.delayForAttempt(attempt, std::nullopt, fixedJitter(0.0)).count(), lowest);
    QCOMPARE(policy.delayForAttempt(attempt, std::nullopt, fixedJitter(1.0)).count(), highest);
    QCOMPARE(policy.delayForAttempt(attempt, std::nullopt, fixedJitter(0.5)).count(),
             (lowest + highest + 1) / 2);
    // A source out of range is clamped, not trusted.
    QCOMPARE(policy.delayForAttempt(attempt, std::nullopt, fixedJitter(-7.0)).count(), lowest);
    QCOMPARE(policy.delayForAttempt(attempt, std::nullopt, fixedJitter(42.0)).count(), highest);
    QCOMPARE(policy.delayForAttempt(attempt, std::nullopt, fixedJitter(std::nan(""))).count(),
             lowest);
    // Retry-After 0 (or a date in the past) means "now": the backoff still applies.
    QCOMPARE(policy.delayForAttempt(attempt, 0ms, fixedJitter(0.0)).count(), lowest);
}

void tst_RetryPolicy::backoffWithRandomJitterStaysInBounds()
{
    QRandomGenerator random(42); // deterministic
    const JitterSource jitter = [&random] {
        return random.generateDouble();
    };
    const RetryPolicy policy;
    std::chrono::milliseconds previousCeiling = 0ms;
    for (int attempt = 1; attempt <= 8; ++attempt) {
        const std::chrono::milliseconds ceiling = std::min(policy.baseDelay * (1 << (attempt - 1)),
                                                           policy.maxDelay);
        QVERIFY(ceiling >= previousCeiling);
        previousCeiling = ceiling;
        std::chrono::milliseconds smallest = ceiling;
        std::chrono::milliseconds largest = 0ms;
        for (int i = 0; i < 200; ++i) {
            const std::chrono::milliseconds delay = policy.delayForAttempt(attempt,
                                                                           std::nullopt,
                                                                           jitter);
            QVERIFY(delay >= ceiling / 2);
            QVERIFY(delay <= ceiling);
            smallest = std::min(smallest, delay);
            largest = std::max(largest, delay);
        }
        QVERIFY(largest - smallest > ceiling / 4); // it really is spread out
    }
    // The default source works too.
    const std::chrono::milliseconds delay = policy.delayForAttempt(1, std::nullopt);
    QVERIFY(delay >= 500ms && delay <= 1000ms);
}

void tst_RetryPolicy::retryAfterIsHonoured()
{
    const RetryPolicy policy;
    QCOMPARE(policy.delayForAttempt(1, 7s, fixedJitter(0.0)), 7000ms);
    QCOMPARE(policy.delayForAttempt(1, 7s, fixedJitter(1.0)), 7000ms);   // no jitter on top
    QCOMPARE(policy.delayForAttempt(3, 200ms, fixedJitter(1.0)), 200ms); // shorter than backoff
    QCOMPARE(policy.delayForAttempt(1, 45s, fixedJitter(0.0)), 45s);     // longer than maxDelay
    QCOMPARE(policy.delayForAttempt(1, 10min, fixedJitter(0.0)), 60s);   // capped
    RetryPolicy shortWaits;
    shortWaits.maxRetryAfter = 5s;
    QCOMPARE(shortWaits.delayForAttempt(1, 7s, fixedJitter(0.0)), 5s);

    // 429 with Retry-After as an HTTP date, as a server sends it.
    const Milliseconds wait = parseRetryAfter("Sun, 06 Nov 1994 08:49:39 GMT", exampleDate);
    QCOMPARE(policy.delayForAttempt(1, wait, fixedJitter(1.0)), 2000ms);
}

void tst_RetryPolicy::retryCount()
{
    const RetryPolicy policy;
    QCOMPARE(policy.maxRetries, 3);
    QVERIFY(!policy.allowsRetryAfter(0));
    QVERIFY(policy.allowsRetryAfter(1));
    QVERIFY(policy.allowsRetryAfter(3));
    QVERIFY(!policy.allowsRetryAfter(4)); // 4 requests in all
    RetryPolicy never;
    never.maxRetries = 0;
    QVERIFY(!never.allowsRetryAfter(1));
}

void tst_RetryPolicy::notice()
{
    const RetryPolicy policy;
    QCOMPARE(policy.notice(2s, 1), u"Retrying in 2 s (attempt 2 of 4)."_s);
    QCOMPARE(policy.notice(1500ms, 3), u"Retrying in 2 s (attempt 4 of 4)."_s);
    QCOMPARE(policy.notice(0ms, 1), u"Retrying in 0 s (attempt 2 of 4)."_s);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_RetryPolicy)
#include "tst_retrypolicy.moc"
