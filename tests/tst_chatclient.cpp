#include "chatclient.h"
#include "fakechatserver.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int signalTimeoutMs = 10000;
const QString testKey = u"sk-test-ChatClientKey-7Qx93mZ1"_s;
// Retries as configured, with waits of a few milliseconds instead of seconds.
constexpr int testMaxRetries = 2;

ProviderSettings settingsFor(const QUrl &baseUrl, const QString &key = testKey)
{
    ProviderSettings settings;
    settings.baseUrl = baseUrl;
    settings.apiKey = key;
    settings.model = u"gpt-4.1"_s;
    settings.requestTimeout = 10s;
    settings.retry.maxRetries = testMaxRetries;
    settings.retry.baseDelay = 2ms;
    settings.retry.maxDelay = 10ms;
    return settings;
}

// A request as the agent would send it: non-ASCII text, escapes and a tool definition.
QByteArray sampleBody()
{
    return "{\"model\":\"gpt-4.1\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a "
           "coding agent.\"},{\"role\":\"user\",\"content\":\"\u8fd0\u884c echo 42 "
           "\xE5\xB9\xB6\xE5\x91\x8A\xE8\xAF\x89\xE6\x88\x91 \\\"quoted\\\"\\n\"}],"
           "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"shell\",\"description\":"
           "\"Run a command.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"command\":"
           "{\"type\":\"string\",\"minLength\":1}},\"required\":[\"command\"],"
           "\"additionalProperties\":false}}}]}";
}

QByteArray headerValue(const HeaderList &headers, QByteArrayView name)
{
    for (const auto &[headerName, value] : headers) {
        if (headerName.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

// Everything an exchange would show in the inspector or write to a transcript.
bool exchangeMentions(const Exchange &exchange, const QByteArray &secret)
{
    if (exchange.requestBody.contains(secret) || exchange.responseBody.contains(secret)
        || exchange.errorString.toUtf8().contains(secret)
        || exchange.url.toString().toUtf8().contains(secret)) {
        return true;
    }
    for (const HeaderList *headers : {&exchange.requestHeaders, &exchange.responseHeaders}) {
        for (const auto &[name, value] : *headers) {
            if (name.contains(secret) || value.contains(secret))
                return true;
        }
    }
    return false;
}

FakeResponse rawResponse(int status, const QByteArray &contentType, const QByteArray &body)
{
    FakeResponse response;
    response.status = status;
    response.contentType = contentType;
    response.body = body;
    return response;
}

const QByteArray htmlPage = QByteArrayLiteral(
        "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>"
        "<body><h1>Corporate proxy</h1><p>Please sign in.</p></body></html>\n");

// The error of the one failed() signal a client emitted.
Error failure(const QSignalSpy &spy)
{
    return spy.isEmpty() ? Error{} : spy.first().first().value<Error>();
}

} // namespace

class tst_ChatClient : public QObject
{
    Q_OBJECT

private slots:
    void init();

    void endpoint_data();
    void endpoint();

    void requestIsWhatTheProviderReceives_data();
    void requestIsWhatTheProviderReceives();
    void keyNeverAppearsInTheExchange();

    void httpErrorStatus_data();
    void httpErrorStatus();
    void httpErrorWithoutJsonBody_data();
    void httpErrorWithoutJsonBody();
    void errorObjectWithStatus200();
    void htmlPageInsteadOfJson();
    void bodyIsNotJson();
    void droppedConnectionIsNetworkError();
    void connectionRefusedIsNetworkError();
    void silentProviderTimesOut();

    void abortEmitsNothing_data();
    void abortEmitsNothing();

    void listModelsSorted();
    void listModelsUnauthorized();
};

void tst_ChatClient::init()
{
    // Whatever the client prints ends up on the CLI's stderr: it must print nothing.
    QTest::failOnWarning(QRegularExpression(u".*"_s));
}

void tst_ChatClient::endpoint_data()
{
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<QString>("expected");

    QTest::newRow("/v1") << u"https://api.openai.com/v1"_s
                         << u"https://api.openai.com/v1/chat/completions"_s;
    QTest::newRow("/v1/") << u"https://api.openai.com/v1/"_s
                          << u"https://api.openai.com/v1/chat/completions"_s;
    QTest::newRow("/v1//") << u"https://api.openai.com/v1//"_s
                           << u"https://api.openai.com/v1/chat/completions"_s;
    QTest::newRow("no path") << u"http://127.0.0.1:8080"_s
                             << u"http://127.0.0.1:8080/chat/completions"_s;
    QTest::newRow("prefix") << u"https://gw.example/openai/v1"_s
                            << u"https://gw.example/openai/v1/chat/completions"_s;
}

void tst_ChatClient::endpoint()
{
    QFETCH(QString, baseUrl);
    QFETCH(QString, expected);
    QCOMPARE(ChatClient::endpoint(QUrl(baseUrl), u"/chat/completions"_s), QUrl(expected));
}

void tst_ChatClient::requestIsWhatTheProviderReceives_data()
{
    QTest::addColumn<bool>("trailingSlash");
    QTest::newRow("base URL /v1") << false;
    QTest::newRow("base URL /v1/") << true;
}

void tst_ChatClient::requestIsWhatTheProviderReceives()
{
    QFETCH(bool, trailingSlash);

    FakeChatServer server;
    QVERIFY(server.isListening());
    const FakeResponse reply = FakeResponse::answer(u"Hello from the fake model"_s);
    server.script({reply});
    QUrl baseUrl = server.baseUrl();
    if (trailingSlash)
        baseUrl.setPath(baseUrl.path() + u'/');

    ChatClient client;
    client.setSettings(settingsFor(baseUrl));
    QSignalSpy sent(&client, &ChatClient::requestSent);
    QSignalSpy received(&client, &ChatClient::responseReceived);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);

    const QByteArray body = sampleBody();
    client.postChatCompletion(7, body);
    QVERIFY(client.isBusy());
    QTRY_COMPARE_WITH_TIMEOUT(completed.size(), 1, signalTimeoutMs);
    QCOMPARE(failed.size(), 0);
    QVERIFY(!client.isBusy());

    // What the provider received.
    QCOMPARE(server.requests().size(), 1);
    const RecordedRequest request = server.requests().first();
    QCOMPARE(request.method, QByteArray("POST"));
    QCOMPARE(request.path, QByteArray("/v1/chat/completions"));
    QCOMPARE(request.header("Authorization"), "Bearer " + testKey.toUtf8());
    QCOMPARE(request.header("Content-Type"), QByteArray("application/json"));
    QCOMPARE(request.body, body);

    // What the inspector and the transcript get: the same bytes, the key redacted.
    QCOMPARE(sent.size(), 1);
    const Exchange out = sent.first().first().value<Exchange>();
    QCOMPARE(out.turn, 7);
    QCOMPARE(out.method, QByteArray("POST"));
    QCOMPARE(out.url, QUrl(u"http://127.0.0.1:%1/v1/chat/completions"_s.arg(server.port())));
    QCOMPARE(out.requestBody, body);
    QCOMPARE(headerValue(out.requestHeaders, "Authorization"), QByteArray("Bearer [REDACTED]"));
    QCOMPARE(headerValue(out.requestHeaders, "Content-Type"), QByteArray("application/json"));
    QVERIFY(!exchangeMentions(out, testKey.toUtf8()));

    QCOMPARE(received.size(), 1);
    const Exchange in = received.first().first().value<Exchange>();
    QCOMPARE(in.turn, 7);
    QCOMPARE(in.httpStatus, 200);
    QCOMPARE(in.requestBody, body);
    QCOMPARE(in.responseBody, reply.body);
    QCOMPARE(headerValue(in.requestHeaders, "Authorization"), QByteArray("Bearer [REDACTED]"));
    QVERIFY(in.errorString.isEmpty());
    QVERIFY(!exchangeMentions(in, testKey.toUtf8()));

    const Completion completion = completed.first().first().value<Completion>();
    QCOMPARE(completion.message.content(), u"Hello from the fake model"_s);
    QCOMPARE(completion.finishReason, u"stop"_s);
}

// A provider that echoes the key (a debugging proxy, an error page) must not put it on screen.
void tst_ChatClient::keyNeverAppearsInTheExchange()
{
    FakeChatServer server;
    server.script({FakeResponse::httpError(400, u"Bad key format: %1"_s.arg(testKey))});
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy received(&client, &ChatClient::responseReceived);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    // The provider did get the real key.
    QCOMPARE(server.requests().first().header("Authorization"), "Bearer " + testKey.toUtf8());

    QCOMPARE(received.size(), 1);
    const Exchange in = received.first().first().value<Exchange>();
    QVERIFY(!exchangeMentions(in, testKey.toUtf8()));
    QVERIFY2(in.responseBody.contains("Bad key format: [REDACTED]"), in.responseBody.constData());
    const Error error = failure(failed);
    QVERIFY2(!error.message.contains(testKey), qPrintable(error.message));
    QVERIFY2(!error.providerMessage.contains(testKey), qPrintable(error.providerMessage));
    QVERIFY2(error.message.contains(u"Bad key format: [REDACTED]"_s), qPrintable(error.message));
}

void tst_ChatClient::httpErrorStatus_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("hint"); // a fragment naming the fix
    QTest::addColumn<bool>("retried"); // sent again, maxRetries times, before giving up

    QTest::newRow("400") << 400 << u"model supports tool calling"_s << false;
    QTest::newRow("401") << 401 << u"OPENAI_API_KEY"_s << false;
    QTest::newRow("403") << 403 << u"OPENAI_API_KEY"_s << false;
    QTest::newRow("404") << 404 << u"/v1"_s << false;
    QTest::newRow("408") << 408 << u"request timeout"_s << true;
    QTest::newRow("429") << 429 << u"Rate limit"_s << true;
    QTest::newRow("500") << 500 << u"try again"_s << true;
    QTest::newRow("502") << 502 << u"try again"_s << true;
    QTest::newRow("503") << 503 << u"try again"_s << true;
    QTest::newRow("504") << 504 << u"request timeout"_s << true;
}

void tst_ChatClient::httpErrorStatus()
{
    QFETCH(int, status);
    QFETCH(QString, hint);
    QFETCH(bool, retried);

    FakeChatServer server;
    const QString providerMessage = u"The provider's own words for %1"_s.arg(status);
    const FakeResponse reply = FakeResponse::httpError(status, providerMessage);
    server.setHandler([reply](const RecordedRequest &) { return reply; });
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy sent(&client, &ChatClient::requestSent);
    QSignalSpy received(&client, &ChatClient::responseReceived);
    QSignalSpy retries(&client, &ChatClient::retryScheduled);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    QTest::qWait(50); // longer than any retry delay here: nothing else is sent
    QCOMPARE(failed.size(), 1);
    QCOMPARE(completed.size(), 0);
    QVERIFY(!client.isBusy());
    // Each request is sent at most 1 + maxRetries times, and only when sending it again can help.
    const int attempts = retried ? 1 + testMaxRetries : 1;
    QCOMPARE(server.requests().size(), attempts);
    for (const RecordedRequest &request : server.requests())
        QCOMPARE(request.body, sampleBody());
    QCOMPARE(sent.size(), attempts);
    QCOMPARE(retries.size(), attempts - 1);
    for (int i = 0; i < retries.size(); ++i) {
        QCOMPARE(retries.at(i).at(2).toInt(), i + 2);              // the next attempt
        QCOMPARE(retries.at(i).at(3).toInt(), 1 + testMaxRetries); // of this many
    }

    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Http);
    QCOMPARE(error.httpStatus, status);
    QCOMPARE(error.providerMessage, providerMessage);
    QCOMPARE(error.message, u"HTTP %1: %2"_s.arg(status).arg(providerMessage));
    QVERIFY2(error.hint.contains(hint, Qt::CaseInsensitive), qPrintable(error.hint));

    QCOMPARE(received.size(), attempts);
    for (int i = 0; i < attempts; ++i) {
        const Exchange in = received.at(i).first().value<Exchange>();
        QCOMPARE(in.attempt, i + 1);
        QCOMPARE(in.httpStatus, status);
        QCOMPARE(in.responseBody, reply.body);
        // Only the attempts that were followed by another one carry a notice.
        QCOMPARE(in.retryNotice.isEmpty(), i == attempts - 1);
    }
}

void tst_ChatClient::httpErrorWithoutJsonBody_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");

    QTest::newRow("plain text") << 502 << QByteArray("text/plain") << QByteArray("upstream down\n")
                                << u"HTTP 502: upstream down"_s;
    QTest::newRow("HTML") << 503 << QByteArray("text/html") << htmlPage
                          << u"HTTP 503: an HTML page"_s;
    QTest::newRow("empty") << 500 << QByteArray("text/plain") << QByteArray() << u"HTTP 500"_s;
    QTest::newRow("error as a string")
            << 429 << QByteArray("application/json") << QByteArray("{\"error\":\"slow down\"}")
            << u"HTTP 429: slow down"_s;
}

void tst_ChatClient::httpErrorWithoutJsonBody()
{
    QFETCH(int, status);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(QString, message);

    FakeChatServer server;
    server.script({rawResponse(status, contentType, body)});
    ChatClient client;
    // About the message of one failed response: retries are httpErrorStatus's subject.
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.retry.maxRetries = 0;
    client.setSettings(settings);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    QCOMPARE(server.requests().size(), 1);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Http);
    QCOMPARE(error.httpStatus, status);
    QCOMPARE(error.message, message);
    QVERIFY(!error.hint.isEmpty());
}

void tst_ChatClient::errorObjectWithStatus200()
{
    FakeChatServer server;
    server.script(
            {FakeResponse::json({{u"error"_s,
                                  QJsonObject{{u"message"_s, u"The model `gpt-9` does not exist"_s},
                                              {u"type"_s, u"invalid_request_error"_s}}}})});
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    QCOMPARE(completed.size(), 0);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Protocol);
    QCOMPARE(error.providerMessage, u"The model `gpt-9` does not exist"_s);
    QVERIFY2(error.message.contains(u"The model `gpt-9` does not exist"_s),
             qPrintable(error.message));
    QVERIFY(!error.hint.isEmpty());
}

void tst_ChatClient::htmlPageInsteadOfJson()
{
    FakeChatServer server;
    server.script({rawResponse(200, "text/html; charset=utf-8", htmlPage)});
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Protocol);
    QVERIFY2(error.message.contains(u"HTML page"_s), qPrintable(error.message));
    QVERIFY2(error.hint.contains(u"proxy"_s), qPrintable(error.hint));
    QVERIFY2(error.hint.contains(u"base URL"_s), qPrintable(error.hint));
    QVERIFY2(error.hint.contains(u"/v1"_s), qPrintable(error.hint));
}

void tst_ChatClient::bodyIsNotJson()
{
    FakeChatServer server;
    server.script({rawResponse(200, "text/plain", "Hello, I am not an API\n")});
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Protocol);
    QVERIFY2(error.message.contains(u"not JSON"_s), qPrintable(error.message));
    QVERIFY2(error.message.contains(u"Hello, I am not an API"_s), qPrintable(error.message));
    QVERIFY2(error.hint.contains(u"base URL"_s), qPrintable(error.hint));
}

void tst_ChatClient::droppedConnectionIsNetworkError()
{
    FakeChatServer server;
    // QNetworkAccessManager resends once after a drop: drop every attempt.
    server.setHandler([](const RecordedRequest &) { return FakeResponse::dropConnection(); });
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy received(&client, &ChatClient::responseReceived);
    QSignalSpy retries(&client, &ChatClient::retryScheduled);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    QCOMPARE(completed.size(), 0);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Network);
    QCOMPARE(error.httpStatus, 0);
    QVERIFY2(error.message.startsWith(u"Network error: "_s), qPrintable(error.message));
    QVERIFY2(error.hint.contains(u"closed the connection"_s), qPrintable(error.hint));

    // Closed before a byte of the answer: worth another try, maxRetries times.
    QCOMPARE(retries.size(), testMaxRetries);
    QCOMPARE(received.size(), 1 + testMaxRetries);
    QVERIFY(server.requests().size() >= 1 + testMaxRetries);
    for (int i = 0; i < received.size(); ++i) {
        const Exchange in = received.at(i).first().value<Exchange>();
        QCOMPARE(in.attempt, i + 1);
        QCOMPARE(in.httpStatus, 0);
        QVERIFY(!in.errorString.isEmpty());
    }
}

void tst_ChatClient::connectionRefusedIsNetworkError()
{
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    } // closed: nothing listens there any more
    ChatClient client;
    client.setSettings(settingsFor(QUrl(u"http://127.0.0.1:%1/v1"_s.arg(port))));
    QSignalSpy sent(&client, &ChatClient::requestSent);
    QSignalSpy retries(&client, &ChatClient::retryScheduled);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    QCOMPARE(retries.size(), testMaxRetries); // the server may be starting: tried again
    QCOMPARE(sent.size(), 1 + testMaxRetries);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Network);
    QVERIFY2(error.hint.contains(u"Nothing is listening at 127.0.0.1:%1"_s.arg(port)),
             qPrintable(error.hint));
}

void tst_ChatClient::silentProviderTimesOut()
{
    FakeChatServer server;
    server.script({FakeResponse::neverAnswer()});
    ChatClient client;
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.requestTimeout = 500ms;
    client.setSettings(settings);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);

    QElapsedTimer clock;
    clock.start();
    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 3000);
    const qint64 elapsed = clock.elapsed();
    QVERIFY2(elapsed >= 400, qPrintable(u"gave up after %1 ms"_s.arg(elapsed)));
    QCOMPARE(completed.size(), 0);
    QTest::qWait(50); // longer than any retry delay here: a timeout is not retried
    QCOMPARE(server.requests().size(), 1);
    const Error error = failure(failed);
    QCOMPARE(error.kind, Error::Timeout);
    QVERIFY2(error.message.contains(u"sent nothing for 0.5 s"_s), qPrintable(error.message));
    QVERIFY2(error.hint.contains(u"request timeout"_s), qPrintable(error.hint));
    QVERIFY(!client.isBusy());
}

void tst_ChatClient::abortEmitsNothing_data()
{
    QTest::addColumn<int>("when");
    QTest::newRow("before the request arrives") << 0;
    QTest::newRow("while the provider is silent") << 1;
    QTest::newRow("just before the answer") << 2;
}

void tst_ChatClient::abortEmitsNothing()
{
    QFETCH(int, when);

    // The abandoned request and the next one differ by body, so the server can tell them apart.
    const QByteArray abandonedBody = sampleBody();
    const QByteArray nextBody = QByteArray("{\"model\":\"gpt-4.1\",\"messages\":[]}");
    FakeChatServer server;
    server.setHandler([&](const RecordedRequest &request) {
        if (request.body != abandonedBody)
            return FakeResponse::answer(u"fresh"_s);
        return when == 1 ? FakeResponse::neverAnswer()
                         : FakeResponse::answer(u"too late"_s).withDelay(150);
    });
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy received(&client, &ChatClient::responseReceived);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);

    client.postChatCompletion(1, abandonedBody);
    if (when > 0)
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, signalTimeoutMs);
    if (when == 2)
        QTest::qWait(100);
    client.abort();
    QVERIFY(!client.isBusy());
    QTest::qWait(400);
    QCOMPARE(received.size(), 0);
    QCOMPARE(completed.size(), 0);
    QCOMPARE(failed.size(), 0);

    // The client is usable again, and only the new request answers.
    client.postChatCompletion(2, nextBody);
    QTRY_COMPARE_WITH_TIMEOUT(completed.size() + failed.size(), 1, signalTimeoutMs);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(completed.first().first().value<Completion>().message.content(), u"fresh"_s);
    QTest::qWait(200);
    QCOMPARE(completed.size(), 1);
    QCOMPARE(received.size(), 1);
}

void tst_ChatClient::listModelsSorted()
{
    FakeChatServer server;
    server.setModels({u"zeta-1"_s, u"alpha-2"_s, u"gpt-4.1"_s});
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy listed(&client, &ChatClient::modelsListed);
    QSignalSpy failed(&client, &ChatClient::modelsFailed);

    client.listModels();
    QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, signalTimeoutMs);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(listed.first().first().toStringList(),
             QStringList({u"alpha-2"_s, u"gpt-4.1"_s, u"zeta-1"_s}));

    QCOMPARE(server.allRequests().size(), 1);
    const RecordedRequest request = server.allRequests().first();
    QCOMPARE(request.method, QByteArray("GET"));
    QCOMPARE(request.path, QByteArray("/v1/models"));
    QCOMPARE(request.header("Authorization"), "Bearer " + testKey.toUtf8());
}

void tst_ChatClient::listModelsUnauthorized()
{
    FakeChatServer server;
    server.setRequiredApiKey("sk-the-right-key-000000");
    ChatClient client;
    client.setSettings(settingsFor(server.baseUrl()));
    QSignalSpy listed(&client, &ChatClient::modelsListed);
    QSignalSpy failed(&client, &ChatClient::modelsFailed);

    client.listModels();
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    QCOMPARE(listed.size(), 0);
    const Error error = failed.first().first().value<Error>();
    QCOMPARE(error.kind, Error::Http);
    QCOMPARE(error.httpStatus, 401);
    QVERIFY2(error.providerMessage.startsWith(u"Incorrect API key provided"_s),
             qPrintable(error.providerMessage));
    QVERIFY2(error.hint.contains(u"OPENAI_API_KEY"_s), qPrintable(error.hint));
    QVERIFY2(!error.message.contains(testKey), qPrintable(error.message));
}

QTEST_GUILESS_MAIN(tst_ChatClient)

#include "tst_chatclient.moc"
