#include "fakechatserver.h"
#include "protocol/requestbody.h"
#include "provider/chatclient.h"
#include "testmain.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int signalTimeoutMs = Testing::hangGuardMs;
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
        || exchange.assembledMessage.contains(secret)
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

const QByteArray htmlPage = QByteArrayLiteral(
        "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>"
        "<body><h1>Corporate proxy</h1><p>Please sign in.</p></body></html>\n");

// The error of the one failed() signal a client emitted.
Error failure(const QSignalSpy &spy)
{
    return spy.isEmpty() ? Error{} : spy.first().first().value<Error>();
}

constexpr qint64 megabyte = 1024 * 1024;
const QString sizeLimitMessage = u"The answer passed the 1 MB limit; it was given up."_s;

// settingsFor(baseUrl) with answers limited to one megabyte.
ProviderSettings limitedToAMegabyte(const QUrl &baseUrl)
{
    ProviderSettings settings = settingsFor(baseUrl);
    settings.maxResponseBytes = megabyte;
    return settings;
}

// A client on the given settings, with a spy on each signal a test waits for or counts.
struct SpiedClient
{
    explicit SpiedClient(const ProviderSettings &settings) { client.setSettings(settings); }

    // Posts the sample chat completion or, for models, asks for the model list.
    void start(bool models = false)
    {
        if (models)
            client.listModels();
        else
            client.postChatCompletion(1, sampleBody());
    }
    // How many of the signals that end a request have come.
    qsizetype ends() const
    {
        return completed.size() + listed.size() + failed.size() + modelsFailed.size();
    }

    ChatClient client;
    QSignalSpy sent{&client, &ChatClient::requestSent};
    QSignalSpy received{&client, &ChatClient::responseReceived};
    QSignalSpy retries{&client, &ChatClient::retryScheduled};
    QSignalSpy completed{&client, &ChatClient::completed};
    QSignalSpy failed{&client, &ChatClient::failed};
    QSignalSpy listed{&client, &ChatClient::modelsListed};
    QSignalSpy modelsFailed{&client, &ChatClient::modelsFailed};
};

FakeResponse redirect(int status, const QString &location)
{
    FakeResponse response;
    response.status = status;
    response.headers = {{"Location", location.toUtf8()}};
    return response;
}

// One chat.completion.chunk event; delta as OpenAI streams it.
QByteArray streamEvent(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return FakeResponse::sseEvent({{u"object"_s, u"chat.completion.chunk"_s},
                                   {u"choices"_s,
                                    QJsonArray{QJsonObject{{u"index"_s, 0},
                                                           {u"delta"_s, delta},
                                                           {u"finish_reason"_s, finishReason}}}}});
}

// The bytes of body, one chunk each: a provider that drips its answer.
QList<QByteArray> bytewise(const QByteArray &body)
{
    QList<QByteArray> chunks;
    for (const char byte : body)
        chunks.append(QByteArray(1, byte));
    return chunks;
}

// A provider whose answer stream never ends: as long as the connection is open it sends more
// text, as fast as the client takes it. Listens on 127.0.0.1 only.
class EndlessStreamServer
{
public:
    EndlessStreamServer()
    {
        m_listener.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_listener, &QTcpServer::newConnection, &m_listener, [this] {
            while (QTcpSocket *socket = m_listener.nextPendingConnection())
                serve(socket);
        });
    }

    bool isListening() const { return m_listener.isListening(); }
    QUrl baseUrl() const { return QUrl(u"http://127.0.0.1:%1/v1"_s.arg(m_listener.serverPort())); }
    int connections() const { return m_connections; }
    int hangUps() const { return m_hangUps; }
    qint64 bytesSent() const { return m_bytesSent; }

private:
    void serve(QTcpSocket *socket)
    {
        ++m_connections;
        socket->setParent(&m_listener);
        auto request = std::make_shared<QByteArray>();
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, request] {
            const bool answering = request->contains("\r\n\r\n");
            *request += socket->readAll();
            if (answering || !request->contains("\r\n\r\n"))
                return;
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n");
            sendMore(socket);
        });
        QObject::connect(socket, &QTcpSocket::bytesWritten, socket, [this, socket] {
            sendMore(socket);
        });
        // Counted once per connection, by whichever comes first: Wine's sockets report a peer
        // that hung up mid-write as an error and do not always say "disconnected" after it.
        const auto hungUp = [this, socket] {
            if (socket->property("hungUp").toBool())
                return;
            socket->setProperty("hungUp", true);
            ++m_hangUps;
            socket->deleteLater();
        };
        QObject::connect(socket, &QTcpSocket::disconnected, socket, hungUp);
        QObject::connect(socket, &QTcpSocket::errorOccurred, socket, hungUp);
    }

    void sendMore(QTcpSocket *socket)
    {
        static const QByteArray events = [] {
            QByteArray sse;
            for (int i = 0; i < 16; ++i)
                sse += streamEvent({{u"content"_s, QString(1000, u'x')}});
            return QByteArray::number(sse.size(), 16) + "\r\n" + sse + "\r\n";
        }();
        while (socket->state() == QAbstractSocket::ConnectedState
               && socket->bytesToWrite() < 256 * 1024) {
            socket->write(events);
            m_bytesSent += events.size();
        }
    }

    QTcpServer m_listener;
    int m_connections = 0;
    int m_hangUps = 0;
    qint64 m_bytesSent = 0;
};

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
    void firstByteTimeIsWhenTheAnswerBegan();
    void streamedAnswerEchoingTheKeyIsMasked();

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

    // Redirects: the key never leaves the base URL's origin.
    void redirectToAnotherOriginIsRefused_data();
    void redirectToAnotherOriginIsRefused();
    void sameOriginRedirectIsFollowed_data();
    void sameOriginRedirectIsFollowed();

    // Bounds on what one answer may cost.
    void endlessStreamStopsAtTheSizeLimit();
    void largeAnswerStopsAtTheSizeLimit_data();
    void largeAnswerStopsAtTheSizeLimit();
    void largeModelListStopsAtTheSizeLimit();
    void answerTimeLimit_data();
    void answerTimeLimit();
    void answerTimeCountsPerAttempt();
    void tooManyStreamedToolCallsStopTheAnswer();

    // How profiles reach their providers.
    void authStyles_data();
    void authStyles();
    void azureKeepsItsApiVersion();
    void extraHeadersAreSent();
    void refusedStreamOptionsAreLeftOut();
    void serverThatCannotStreamWithToolsGetsWholeAnswers();
    void errorHintsNameTheProvider();
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

// The inspector's "first byte" is the wait before the answer began, not its whole duration: a
// provider that thinks 300 ms and then streams for another 400 ms shows both.
void tst_ChatClient::firstByteTimeIsWhenTheAnswerBegan()
{
    FakeChatServer server;
    FakeResponse slow = FakeResponse::stream({streamEvent({{u"role"_s, u"assistant"_s}}),
                                              streamEvent({{u"content"_s, u"Hel"_s}}),
                                              streamEvent({{u"content"_s, u"lo"_s}}, u"stop"_s),
                                              "data: [DONE]\n\n"},
                                             200);
    slow.delayMs = 300;
    server.script({slow});
    SpiedClient spied(settingsFor(server.baseUrl()));
    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.completed.size(), 1, signalTimeoutMs);

    const Exchange exchange = spied.received.first().first().value<Exchange>();
    QVERIFY2(exchange.firstByteMs >= 290, qPrintable(QString::number(exchange.firstByteMs)));
    QVERIFY2(exchange.durationMs >= exchange.firstByteMs + 390,
             qPrintable(u"%1 / %2"_s.arg(exchange.firstByteMs).arg(exchange.durationMs)));
}

// A streamed answer is assembled from the events as they came: a model that repeats the key (even
// split across two chunks) must not bring it into the message, the inspector or the deltas shown
// live; nor may a response header that echoes it.
void tst_ChatClient::streamedAnswerEchoingTheKeyIsMasked()
{
    FakeChatServer server;
    const qsizetype half = testKey.size() / 2;
    FakeResponse response = FakeResponse::streamedAnswer(
            {u"The key is "_s, testKey.left(half), testKey.mid(half), u"."_s});
    response.headers.append({"X-Debug-Key", testKey.toUtf8()});
    server.script({response});
    SpiedClient spied(settingsFor(server.baseUrl()));
    QString live;
    connect(&spied.client, &ChatClient::textDelta, this, [&](const QString &text) { live += text; });

    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.completed.size(), 1, signalTimeoutMs);
    const Completion completion = spied.completed.first().first().value<Completion>();
    QCOMPARE(completion.message.content(), u"The key is [REDACTED]."_s);
    const Exchange in = spied.received.first().first().value<Exchange>();
    QVERIFY(!exchangeMentions(in, testKey.toUtf8()));
    QVERIFY2(in.assembledMessage.contains("The key is [REDACTED]."),
             in.assembledMessage.constData());
    bool headerSeen = false;
    for (const auto &[name, value] : in.responseHeaders) {
        if (name.compare("X-Debug-Key", Qt::CaseInsensitive) == 0) {
            headerSeen = true;
            QCOMPARE(value, QByteArray("[REDACTED]"));
        }
    }
    QVERIFY(headerSeen);
    // What was shown while it arrived held the key only in pieces; no piece is the whole key.
    QVERIFY(!live.contains(testKey));
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
    server.script({FakeResponse::raw(body, status, contentType)});
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
    server.script({FakeResponse::raw(htmlPage, 200, "text/html; charset=utf-8")});
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
    server.script({FakeResponse::raw("Hello, I am not an API\n", 200, "text/plain")});
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
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    // Not before its time: counted from before the request, so load only lengthens it (a coarse
    // timer fires at most 5 % early).
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

    if (when == 2) {
        // The client hangs up as the request arrives, before the server answers it.
        QObject::connect(&server, &FakeChatServer::requestReceived, &client, [&] {
            if (server.requests().size() == 1)
                client.abort();
        });
    }
    client.postChatCompletion(1, abandonedBody);
    if (when > 0)
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, signalTimeoutMs);
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

void tst_ChatClient::redirectToAnotherOriginIsRefused_data()
{
    QTest::addColumn<bool>("models");      // GET /models instead of the chat completion
    QTest::addColumn<int>("status");       // of the redirect away
    QTest::addColumn<QString>("location"); // %1: the provider's port, %2: the other server's
    QTest::addColumn<bool>("hopFirst");    // a same-origin redirect comes first
    QTest::addColumn<QString>("origin");   // as the error names it
    QTest::addColumn<QString>("baseUrl");  // as the hint suggests it

    const QString elsewhere = u"http://127.0.0.1:%2"_s;
    QTest::newRow("307 to another port")
            << false << 307 << u"http://127.0.0.1:%2/v1/chat/completions"_s << false << elsewhere
            << u"http://127.0.0.1:%2/v1"_s;
    QTest::newRow("308 to another port, after a same-origin redirect")
            << false << 308 << u"http://127.0.0.1:%2/v1/chat/completions"_s << true << elsewhere
            << u"http://127.0.0.1:%2/v1"_s;
    QTest::newRow("301, scheme-relative")
            << false << 301 << u"//127.0.0.1:%2/api/chat/completions"_s << false << elsewhere
            << u"http://127.0.0.1:%2/api"_s;
    QTest::newRow("302 to a login page")
            << false << 302 << u"http://127.0.0.1:%2/login?next=%2Fv1"_s << false << elsewhere
            << u"http://127.0.0.1:%2/login"_s;
    // Another scheme is another origin, even on the same host and port.
    QTest::newRow("307 to https on the same port")
            << false << 307 << u"https://127.0.0.1:%1/v1/chat/completions"_s << false
            << u"https://127.0.0.1:%1"_s << u"https://127.0.0.1:%1/v1"_s;
    QTest::newRow("models, 307 to another port")
            << true << 307 << u"http://127.0.0.1:%2/v1/models"_s << false << elsewhere
            << u"http://127.0.0.1:%2/v1"_s;
}

// A provider that redirects elsewhere never gets the key sent there: the request fails, naming
// the address, and the other server receives nothing.
void tst_ChatClient::redirectToAnotherOriginIsRefused()
{
    QFETCH(bool, models);
    QFETCH(int, status);
    QFETCH(QString, location);
    QFETCH(bool, hopFirst);
    QFETCH(QString, origin);
    QFETCH(QString, baseUrl);

    FakeChatServer provider;
    FakeChatServer elsewhere; // another origin: the same address, another port
    QVERIFY(provider.isListening() && elsewhere.isListening());
    QVERIFY(provider.port() != elsewhere.port());
    const auto fill = [&](const QString &text) {
        return QString(text)
                .replace(u"%1"_s, QString::number(provider.port()))
                .replace(u"%2"_s, QString::number(elsewhere.port()));
    };
    // QString::arg would also replace the %2F of a query; fill() replaces %1 and %2 only.
    location = QString(location).replace(u"%2F"_s, u"%%2F"_s);
    const QString target = fill(location).replace(u"%%"_s, u"%"_s);
    provider.setHandler([&](const RecordedRequest &request) {
        if (hopFirst && !request.path.contains("/moved/"))
            return redirect(307, u"/v1/moved/chat/completions"_s);
        return redirect(status, target);
    });
    SpiedClient spied(settingsFor(provider.baseUrl()));

    spied.start(models);
    QSignalSpy &failure = models ? spied.modelsFailed : spied.failed;
    QTRY_COMPARE_WITH_TIMEOUT(failure.size(), 1, signalTimeoutMs);
    QTest::qWait(100); // time for a request that should not be sent
    QCOMPARE(spied.completed.size() + spied.listed.size(), 0);
    QVERIFY(!spied.client.isBusy());

    const Error error = failure.first().first().value<Error>();
    QCOMPARE(error.kind, Error::Http);
    QCOMPARE(error.httpStatus, status);
    QVERIFY2(error.message.contains(
                     u"redirected the request to another address, %1."_s.arg(fill(origin))),
             qPrintable(error.toString()));
    QVERIFY2(error.hint.contains(u"set the base URL to %1."_s.arg(fill(baseUrl))),
             qPrintable(error.toString()));

    // What each server received: the other one nothing at all, the provider each hop once.
    QCOMPARE(elsewhere.allRequests().size(), 0);
    QCOMPARE(provider.allRequests().size(), hopFirst ? 2 : 1);
    for (const RecordedRequest &request : provider.allRequests())
        QCOMPARE(request.header("Authorization"), "Bearer " + testKey.toUtf8());
    if (models)
        return;
    // Not retried; the inspector shows the redirect and why it stopped there.
    QCOMPARE(spied.sent.size(), 1);
    QCOMPARE(spied.retries.size(), 0);
    QCOMPARE(spied.received.size(), 1);
    const Exchange in = spied.received.first().first().value<Exchange>();
    QCOMPARE(in.errorString, error.message);
    QVERIFY(!exchangeMentions(in, testKey.toUtf8()));
}

void tst_ChatClient::sameOriginRedirectIsFollowed_data()
{
    QTest::addColumn<bool>("models");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("absolute"); // Location names the origin, or is a path

    QTest::newRow("307, path") << false << 307 << false;
    QTest::newRow("308, absolute") << false << 308 << true;
    QTest::newRow("models, 307, path") << true << 307 << false;
    QTest::newRow("models, 301, absolute") << true << 301 << true;
}

// Within the origin a redirect is followed, key and body included: a provider that moved its
// API under another path keeps working.
void tst_ChatClient::sameOriginRedirectIsFollowed()
{
    QFETCH(bool, models);
    QFETCH(int, status);
    QFETCH(bool, absolute);

    FakeChatServer server;
    const QByteArray endpoint = models ? "/models" : "/chat/completions";
    const QString movedPath = u"/v1/moved"_s + QString::fromLatin1(endpoint);
    const QString location = absolute ? u"http://127.0.0.1:%1%2"_s.arg(server.port()).arg(movedPath)
                                      : movedPath;
    server.setModels({u"gpt-4.1"_s});
    server.setHandler([&](const RecordedRequest &request) {
        if (request.path == "/v1" + endpoint)
            return redirect(status, location);
        if (request.path == movedPath.toUtf8())
            return models ? FakeResponse::models({u"moved-model"_s})
                          : FakeResponse::answer(u"Answered from the new path"_s);
        return FakeResponse::httpError(404, u"unexpected path"_s);
    });
    SpiedClient spied(settingsFor(server.baseUrl()));

    spied.start(models);
    QTRY_COMPARE_WITH_TIMEOUT(spied.ends(), 1, signalTimeoutMs);
    QVERIFY2(spied.failed.isEmpty() && spied.modelsFailed.isEmpty(),
             qPrintable(failure(spied.failed.isEmpty() ? spied.modelsFailed : spied.failed)
                                .toString()));
    if (models) {
        QCOMPARE(spied.listed.first().first().toStringList(), QStringList{u"moved-model"_s});
    } else {
        QCOMPARE(spied.completed.first().first().value<Completion>().message.content(),
                 u"Answered from the new path"_s);
        QCOMPARE(spied.received.size(), 1);
        QCOMPARE(spied.received.first().first().value<Exchange>().httpStatus, 200);
    }

    // The redirected request is the same request: method, key and body. (Qt may send a GET again
    // on a kept-alive connection it finds closed, as Wine's sockets sometimes report: a copy of
    // the same request is no second request.)
    QList<RecordedRequest> requests = server.allRequests();
    for (qsizetype i = requests.size() - 1; i > 0; --i) {
        if (requests.at(i).path == requests.at(i - 1).path
            && requests.at(i).body == requests.at(i - 1).body)
            requests.removeAt(i);
    }
    QCOMPARE(requests.size(), 2);
    const RecordedRequest first = requests.at(0);
    const RecordedRequest moved = requests.at(1);
    QCOMPARE(moved.path, movedPath.toUtf8());
    QCOMPARE(moved.method, first.method);
    QCOMPARE(moved.header("Authorization"), "Bearer " + testKey.toUtf8());
    QCOMPARE(moved.body, first.body);
    if (!models)
        QCOMPARE(moved.body, sampleBody());
}

// A stream that never ends is given up at the size limit: what the client keeps, and what it
// shows, stays within it.
void tst_ChatClient::endlessStreamStopsAtTheSizeLimit()
{
    EndlessStreamServer server;
    QVERIFY(server.isListening());
    SpiedClient spied(limitedToAMegabyte(server.baseUrl()));
    qint64 shown = 0;
    connect(&spied.client, &ChatClient::textDelta, this, [&shown](const QString &text) {
        shown += text.size();
    });

    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.failed.size(), 1, signalTimeoutMs);
    QCOMPARE(spied.completed.size(), 0);
    const Error error = failure(spied.failed);
    QCOMPARE(error.kind, Error::Protocol);
    QCOMPARE(error.message, sizeLimitMessage);
    QVERIFY2(error.hint.contains(u"maximum answer size in the settings"_s), qPrintable(error.hint));
    QVERIFY2(error.hint.contains(u"--max-response-mb"_s), qPrintable(error.hint));

    // The client hung up, and did not come back. (Under Wine, a server busy writing is not always
    // told that its peer hung up; the client's side of it is checked everywhere below.)
#ifndef Q_OS_WIN
    QTRY_COMPARE_WITH_TIMEOUT(server.hangUps(), 1, signalTimeoutMs);
#endif
    QTest::qWait(50);
    QCOMPARE(server.connections(), 1);
    QVERIFY(server.bytesSent() > megabyte);
    QVERIFY(!spied.client.isBusy());

    // Recorded once, kept up to the byte that passed the limit.
    QCOMPARE(spied.received.size(), 1);
    const Exchange in = spied.received.first().first().value<Exchange>();
    QVERIFY(in.streamed);
    QVERIFY2(in.responseBody.size() > megabyte && in.responseBody.size() <= megabyte + 1,
             qPrintable(QString::number(in.responseBody.size())));
    QCOMPARE(in.errorString, error.message);
    QVERIFY2(shown <= megabyte, qPrintable(QString::number(shown)));
}

void tst_ChatClient::largeAnswerStopsAtTheSizeLimit_data()
{
    QTest::addColumn<bool>("streamed");
    QTest::addColumn<qint64>("size"); // about this many bytes of answer
    QTest::addColumn<bool>("fits");

    QTest::newRow("one JSON body, 3 MB") << false << 3 * megabyte << false;
    QTest::newRow("one JSON body, just under 1 MB") << false << megabyte - 4096 << true;
    QTest::newRow("a stream, 3 MB") << true << 3 * megabyte << false;
    QTest::newRow("a stream, just under 1 MB") << true << megabyte - 32 * 1024 << true;
}

// An answer larger than the limit fails with the size error, whole or streamed; one within it
// completes as ever.
void tst_ChatClient::largeAnswerStopsAtTheSizeLimit()
{
    QFETCH(bool, streamed);
    QFETCH(qint64, size);
    QFETCH(bool, fits);

    FakeResponse response;
    if (streamed) {
        const qsizetype pieceSize = 10 * 1024;
        QStringList pieces;
        for (qint64 at = 0; at < size; at += pieceSize)
            pieces.append(QString(pieceSize, u'y'));
        response = FakeResponse::streamedAnswer(pieces);
        response.chunkDelayMs = 0;
    } else {
        response = FakeResponse::answer(QString(qsizetype(size), u'y'));
    }
    QCOMPARE(streamed ? response.chunks.join().size() <= megabyte : response.body.size() <= megabyte,
             fits);
    FakeChatServer server;
    server.script({response});
    SpiedClient spied(limitedToAMegabyte(server.baseUrl()));

    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.completed.size() + spied.failed.size(), 1, signalTimeoutMs);
    QCOMPARE(spied.received.size(), 1);
    const Exchange in = spied.received.first().first().value<Exchange>();
    QCOMPARE(in.streamed, streamed);
    if (fits) {
        QVERIFY2(spied.failed.isEmpty(), qPrintable(failure(spied.failed).toString()));
        QVERIFY(spied.completed.first().first().value<Completion>().message.content().startsWith(
                u"yyy"_s));
        return;
    }
    const Error error = failure(spied.failed);
    QCOMPARE(error.kind, Error::Protocol);
    QCOMPARE(error.message, sizeLimitMessage);
    QVERIFY2(in.responseBody.size() > megabyte && in.responseBody.size() <= megabyte + 1,
             qPrintable(QString::number(in.responseBody.size())));
    QTest::qWait(50); // longer than any retry delay here: not sent again
    QCOMPARE(spied.sent.size(), 1);
    QCOMPARE(server.requests().size(), 1);
}

void tst_ChatClient::largeModelListStopsAtTheSizeLimit()
{
    FakeChatServer server;
    QStringList ids;
    for (int i = 0; i < 30000; ++i)
        ids.append(u"model-%1"_s.arg(i, 6, 10, QChar(u'0')));
    server.setModels(ids);
    SpiedClient spied(limitedToAMegabyte(server.baseUrl()));

    spied.start(true);
    QTRY_COMPARE_WITH_TIMEOUT(spied.modelsFailed.size(), 1, signalTimeoutMs);
    QCOMPARE(spied.listed.size(), 0);
    QCOMPARE(failure(spied.modelsFailed).message, sizeLimitMessage);
}

void tst_ChatClient::answerTimeLimit_data()
{
    QTest::addColumn<bool>("streamed");
    QTest::newRow("a stream") << true;
    QTest::newRow("one JSON body") << false;
}

// A provider that keeps the connection alive with a byte now and then never trips the idle
// timeout; the answer time limit ends it, with its own message.
void tst_ChatClient::answerTimeLimit()
{
    QFETCH(bool, streamed);

    FakeResponse drip;
    drip.behaviour = FakeResponse::Stream;
    drip.chunkDelayMs = 50;
    if (streamed) {
        drip.contentType = "text/event-stream";
        drip.chunks = bytewise(QByteArray(": still thinking\n\n").repeated(4)
                               + streamEvent({{u"content"_s, u"late"_s}}, u"stop"_s)
                               + FakeResponse::sseDone());
    } else {
        drip.contentType = "application/json";
        drip.chunks = bytewise(FakeResponse::answer(u"late"_s).body);
    }
    FakeChatServer server;
    server.script({drip});
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.requestTimeout = 10s;
    settings.maxAnswerTime = 300ms;
    SpiedClient spied(settings);

    QElapsedTimer clock;
    clock.start();
    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.failed.size(), 1, signalTimeoutMs);
    // Not before its time (counted from before the request; a coarse timer is at most 5 % early).
    const qint64 elapsed = clock.elapsed();
    QVERIFY2(elapsed >= 250, qPrintable(u"gave up after %1 ms"_s.arg(elapsed)));
    QCOMPARE(spied.completed.size(), 0);
    const Error error = failure(spied.failed);
    QCOMPARE(error.kind, Error::Timeout);
    QCOMPARE(error.message, u"The answer was still arriving after 0.3 s; it was given up."_s);
    QVERIFY2(error.hint.contains(u"maximum answer time in the settings"_s), qPrintable(error.hint));
    QVERIFY2(error.hint.contains(u"--max-answer-minutes"_s), qPrintable(error.hint));

    QTest::qWait(50); // longer than any retry delay here: not sent again
    QCOMPARE(spied.sent.size(), 1);
    QCOMPARE(server.requests().size(), 1);
    QVERIFY(!spied.client.isBusy());
    QCOMPARE(spied.received.size(), 1);
    const Exchange in = spied.received.first().first().value<Exchange>();
    QCOMPARE(in.streamed, streamed);
    QVERIFY(!in.responseBody.isEmpty()); // it was arriving
    QCOMPARE(in.errorString, error.message);
}

// Each attempt gets the whole answer time: a retry is not cut short by the attempt before it.
void tst_ChatClient::answerTimeCountsPerAttempt()
{
    FakeChatServer server;
    // Each attempt within the limit, with 2 s to spare for a loaded machine (Wine under load
    // needed more than 0.8), both together past it.
    server.script({FakeResponse::httpError(503, u"busy"_s).withDelay(2500),
                   FakeResponse::answer(u"second attempt"_s).withDelay(2500)});
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.maxAnswerTime = 4500ms;
    SpiedClient spied(settings);

    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.completed.size() + spied.failed.size(), 1, signalTimeoutMs);
    QVERIFY2(spied.failed.isEmpty(), qPrintable(failure(spied.failed).toString()));
    QCOMPARE(spied.completed.first().first().value<Completion>().message.content(),
             u"second attempt"_s);
    QCOMPARE(server.requests().size(), 2);
}

// Past the tool-call limit the answer is given up at once, not read to its end.
void tst_ChatClient::tooManyStreamedToolCallsStopTheAnswer()
{
    QJsonArray calls;
    for (int i = 0; i <= maxToolCallsPerMessage; ++i) {
        calls.append(QJsonObject{{u"index"_s, i},
                                 {u"id"_s, u"call_%1"_s.arg(i)},
                                 {u"type"_s, u"function"_s},
                                 {u"function"_s,
                                  QJsonObject{{u"name"_s, u"shell"_s},
                                              {u"arguments"_s, u"{\"command\":\"true\"}"_s}}}});
    }
    QList<QByteArray> chunks{streamEvent({{u"role"_s, u"assistant"_s}}),
                             streamEvent({{u"tool_calls"_s, calls}})};
    for (int i = 0; i < 400; ++i) // 8 s more of the stream, which nobody needs to wait for
        chunks.append(": still going\n\n");
    chunks.append(streamEvent({}, u"tool_calls"_s) + FakeResponse::sseDone());
    FakeChatServer server;
    server.script({FakeResponse::stream(chunks, 20)});
    SpiedClient spied(settingsFor(server.baseUrl()));

    spied.start();
    QTRY_COMPARE_WITH_TIMEOUT(spied.failed.size(), 1, signalTimeoutMs);
    QCOMPARE(spied.completed.size(), 0);
    const Error error = failure(spied.failed);
    QCOMPARE(error.kind, Error::Agent);
    QVERIFY2(error.message.contains(u"more than 128 tool calls"_s), qPrintable(error.message));
    QCOMPARE(spied.received.size(), 1);
    QVERIFY(!spied.received.first().first().value<Exchange>().responseBody.contains("[DONE]"));
    QVERIFY(!spied.client.isBusy());
}

void tst_ChatClient::authStyles_data()
{
    QTest::addColumn<AuthStyle>("auth");
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<QByteArray>("apiKeyHeader");
    QTest::addColumn<QByteArray>("shownAuthorization");
    QTest::addColumn<QByteArray>("shownApiKeyHeader");
    QTest::newRow("bearer") << AuthStyle::Bearer << "Bearer " + testKey.toUtf8() << QByteArray()
                            << QByteArray("Bearer [REDACTED]") << QByteArray();
    QTest::newRow("api-key header (Azure)")
            << AuthStyle::ApiKeyHeader << QByteArray() << testKey.toUtf8() << QByteArray()
            << QByteArray("[REDACTED]");
    QTest::newRow("none (a local server)")
            << AuthStyle::None << QByteArray() << QByteArray() << QByteArray() << QByteArray();
}

void tst_ChatClient::authStyles()
{
    QFETCH(AuthStyle, auth);
    QFETCH(QByteArray, authorization);
    QFETCH(QByteArray, apiKeyHeader);
    QFETCH(QByteArray, shownAuthorization);
    QFETCH(QByteArray, shownApiKeyHeader);

    FakeChatServer server;
    server.script({FakeResponse::answer(u"ok"_s)});
    ChatClient client;
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.auth = auth;
    client.setSettings(settings);
    QSignalSpy sent(&client, &ChatClient::requestSent);
    QSignalSpy completed(&client, &ChatClient::completed);
    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(completed.size(), 1, signalTimeoutMs);
    const RecordedRequest request = server.requests().first();
    QCOMPARE(request.header("Authorization"), authorization);
    QCOMPARE(request.header("api-key"), apiKeyHeader);
    const Exchange shown = sent.first().first().value<Exchange>();
    QCOMPARE(headerValue(shown.requestHeaders, "Authorization"), shownAuthorization);
    QCOMPARE(headerValue(shown.requestHeaders, "api-key"), shownApiKeyHeader);
    QVERIFY(!exchangeMentions(shown, testKey.toUtf8()));
}

// learn.microsoft.com/azure/ai-foundry/openai/reference: POST {endpoint}/openai/deployments/
// {deployment-id}/chat/completions?api-version={version}, the key in an api-key header.
void tst_ChatClient::azureKeepsItsApiVersion()
{
    FakeChatServer server;
    server.setHandler([](const RecordedRequest &request) {
        if (request.path != "/openai/deployments/gpt41/chat/completions?api-version=2024-10-21")
            return FakeResponse::httpError(404, u"Resource not found"_s, {}, u"404"_s);
        return FakeResponse::answer(u"From Azure."_s);
    });
    QUrl baseUrl = server.baseUrl();
    baseUrl.setPath(u"/openai/deployments/gpt41"_s);
    baseUrl.setQuery(u"api-version=2024-10-21"_s);
    ProviderSettings settings = settingsFor(baseUrl);
    settings.providerId = u"azure"_s;
    settings.auth = AuthStyle::ApiKeyHeader;
    ChatClient client;
    client.setSettings(settings);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);
    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(completed.size() + failed.size(), 1, signalTimeoutMs);
    QCOMPARE(completed.size(), 1);
    QCOMPARE(completed.first().first().value<Completion>().message.content(), u"From Azure."_s);
    QCOMPARE(server.allRequests().first().header("api-key"), testKey.toUtf8());
}

void tst_ChatClient::extraHeadersAreSent()
{
    FakeChatServer server;
    server.setRequiredApiKey(testKey.toUtf8());
    server.script({FakeResponse::answer(u"ok"_s)});
    ProviderSettings settings = settingsFor(server.baseUrl());
    // OpenRouter's attribution headers (openrouter.ai/docs/api-reference/overview), and one that
    // tries to replace the key: the profile cannot override the headers the client writes.
    settings.extraHeaders = {{"HTTP-Referer", "https://agentloop.example"},
                             {"X-Title", "Agent Loop"},
                             {"Authorization", "Bearer someone-else"},
                             {"Content-Type", "text/plain"}};
    ChatClient client;
    client.setSettings(settings);
    QSignalSpy completed(&client, &ChatClient::completed);
    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(completed.size(), 1, signalTimeoutMs);
    const RecordedRequest request = server.requests().first();
    QCOMPARE(request.header("HTTP-Referer"), QByteArray("https://agentloop.example"));
    QCOMPARE(request.header("X-Title"), QByteArray("Agent Loop"));
    QCOMPARE(request.header("Authorization"), "Bearer " + testKey.toUtf8());
    QCOMPARE(request.header("Content-Type"), QByteArray("application/json"));
}

// docs.mistral.ai/api: the request schema is closed; a field it does not have is answered with
// FastAPI's 422 "extra_forbidden", as recorded from api.mistral.ai.
void tst_ChatClient::refusedStreamOptionsAreLeftOut()
{
    FakeChatServer server;
    server.setHandler([](const RecordedRequest &request) {
        if (request.json().contains(u"stream_options"_s)) {
            return FakeResponse::raw(
                    R"({"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_message_error","param":null,"code":null})",
                    422);
        }
        return FakeResponse::streamedAnswer({u"Bonjour."_s});
    });
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.providerId = u"mistral"_s;
    History history;
    history.append(Message::user(u"hi"_s));
    ChatClient client;
    client.setSettings(settings);
    QSignalSpy adjusted(&client, &ChatClient::providerAdjusted);
    QSignalSpy retries(&client, &ChatClient::retryScheduled);
    QSignalSpy received(&client, &ChatClient::responseReceived);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);
    client.postChatCompletion(1, chatRequestBody(settings, history, {}));
    QTRY_COMPARE_WITH_TIMEOUT(completed.size() + failed.size(), 1, signalTimeoutMs);
    QCOMPARE(completed.size(), 1);
    QCOMPARE(completed.first().first().value<Completion>().message.content(), u"Bonjour."_s);

    QCOMPARE(server.requests().size(), 2);
    QVERIFY(!server.requests().at(1).json().contains(u"stream_options"_s));
    QCOMPARE(server.requests().at(1).json().value(u"messages"_s),
             server.requests().at(0).json().value(u"messages"_s));
    QCOMPARE(adjusted.size(), 1);
    const auto adjustment = adjusted.first().first().value<ProviderAdjustment>();
    QCOMPARE(adjustment.change, ProviderAdjustment::StreamUsageOff);
    QCOMPARE(adjustment.notice,
             u"Mistral refused the stream_options field (HTTP 422); the request was sent again "
             u"without it. This session leaves it out from now on."_s);
    // Not a retry: nothing to count down, and the inspector shows why the second one went.
    QCOMPARE(retries.size(), 0);
    QCOMPARE(received.first().first().value<Exchange>().retryNotice, adjustment.notice);
    QCOMPARE(client.settings().streamUsage, false);
    QCOMPARE(client.settings().stream, true);
}

// llama.cpp's server before streamed tool calls (ggml-org/llama.cpp#12379) answered 500
// {"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}.
void tst_ChatClient::serverThatCannotStreamWithToolsGetsWholeAnswers()
{
    FakeChatServer server;
    server.setHandler([](const RecordedRequest &request) {
        if (request.json().value(u"stream"_s).toBool()) {
            return FakeResponse::raw(
                    R"({"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}})",
                    500);
        }
        return FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s);
    });
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.profileName = u"llama.cpp at home"_s;
    History history;
    history.append(Message::user(u"list the files"_s));
    ChatClient client;
    client.setSettings(settings);
    QSignalSpy adjusted(&client, &ChatClient::providerAdjusted);
    QSignalSpy retries(&client, &ChatClient::retryScheduled);
    QSignalSpy completed(&client, &ChatClient::completed);
    QSignalSpy failed(&client, &ChatClient::failed);
    client.postChatCompletion(1, chatRequestBody(settings, history, {}));
    QTRY_COMPARE_WITH_TIMEOUT(completed.size() + failed.size(), 1, signalTimeoutMs);
    QCOMPARE(completed.size(), 1);
    QCOMPARE(completed.first().first().value<Completion>().message.toolCalls().size(), 1);
    // Once, not three retries of a 500 that can never work.
    QCOMPARE(server.requests().size(), 2);
    QCOMPARE(retries.size(), 0);
    QVERIFY(!server.requests().at(1).json().contains(u"stream"_s));
    QCOMPARE(adjusted.size(), 1);
    const auto adjustment = adjusted.first().first().value<ProviderAdjustment>();
    QCOMPARE(adjustment.change, ProviderAdjustment::StreamingOff);
    QCOMPARE(adjustment.notice,
             u"The provider cannot stream an answer that uses tools (HTTP 500); the request was "
             u"sent again without streaming. The profile llama.cpp at home asks for whole "
             u"answers from now on."_s);
    QCOMPARE(client.settings().stream, false);
}

void tst_ChatClient::errorHintsNameTheProvider()
{
    FakeChatServer server;
    server.setRequiredApiKey("the-right-key");
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.providerId = u"azure"_s;
    settings.auth = AuthStyle::Bearer; // what the fake server checks; the hint is Azure's
    ChatClient client;
    client.setSettings(settings);
    QSignalSpy failed(&client, &ChatClient::failed);
    client.postChatCompletion(1, sampleBody());
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, signalTimeoutMs);
    const Error error = failed.first().first().value<Error>();
    QCOMPARE(error.httpStatus, 401);
    QVERIFY2(error.hint.startsWith(u"Azure uses the api-key header; check the deployment's key"_s),
             qPrintable(error.hint));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ChatClient)

#include "tst_chatclient.moc"
