// McpClient and its transports against real processes: the scripted server
// (tests/mcp/scriptedserver) for what real servers cannot be made to do on demand, a small HTTP
// server on 127.0.0.1 for Streamable HTTP, and server-everything when it is installed. What is
// checked is what the client makes of the answers and, through the scripted server's log, exactly
// what it sent.

#include "mcp/mcpclient.h"
#include "mcp/mcptransport.h"
#include "processreaper.h"
#include "protocol/providersettings.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

constexpr int waitMs = Testing::hangGuardMs;

McpServerConfig scriptedServer(const QStringList &arguments)
{
    McpServerConfig config;
    config.name = u"scripted"_s;
    config.command = QStringLiteral(AGENTLOOP_MCP_SCRIPTED_PATH);
    config.args = arguments;
    return config;
}

// One call's outcome and progress, as the front end would collect them.
struct CallRecord
{
    std::optional<McpCallOutcome> outcome;
    QList<double> progress;

    QString text() const
    {
        const QJsonArray content = outcome ? outcome->result[u"content"_s].toArray() : QJsonArray();
        return content.isEmpty() ? QString() : content.first()[u"text"_s].toString();
    }
};

std::shared_ptr<CallRecord> record(McpCall *call)
{
    auto record = std::make_shared<CallRecord>();
    QObject::connect(call, &McpCall::finished, call, [record](const McpCallOutcome &outcome) {
        QVERIFY2(!record->outcome, "finished twice");
        record->outcome = outcome;
    });
    QObject::connect(call, &McpCall::progressed, call, [record](double progress, double, QString) {
        record->progress.append(progress);
    });
    return record;
}

// A client of the scripted server, with the log of everything the server received.
class Scripted
{
public:
    explicit Scripted(QStringList arguments,
                      QStringList secrets = {},
                      QMap<QString, QString> env = {},
                      int probeTimeoutMs = 0)
    {
        logPath = dir.filePath(u"received.jsonl"_s);
        arguments << u"--log"_s << logPath;
        McpServerConfig config = scriptedServer(arguments);
        config.env = env;
        transport = new McpStdioTransport(config, dir.path(), secrets);
        client = std::make_unique<McpClient>(u"scripted"_s, transport, dir.path());
        if (probeTimeoutMs > 0)
            client->setProbeTimeoutMs(probeTimeoutMs);
        QObject::connect(client.get(), &McpClient::failed, client.get(), [this](const QString &why) {
            failures.append(why);
        });
        QObject::connect(client.get(), &McpClient::toolsChanged, client.get(), [this] {
            ++toolListings;
        });
        QObject::connect(client.get(),
                         &McpClient::elicitationRequested,
                         client.get(),
                         [this](const McpElicitation &request) { elicitations.append(request); });
        QObject::connect(transport, &McpTransport::closed, client.get(), [this] {
            transportClosed = true;
        });
        QObject::connect(client.get(),
                         &McpClient::elicitationWithdrawn,
                         client.get(),
                         [this](quint64 id) { withdrawn.append(id); });
    }

    // Waits for the server to be gone: a process still running when the test ends would be
    // reaped by nobody (and reported as leaked under the sanitizers).
    ~Scripted()
    {
        client->stop();
        if (!QTest::qWaitFor([this] { return transportClosed; }, waitMs))
            qWarning("the scripted server did not stop");
    }

    bool startAndList()
    {
        client->start();
        return QTest::qWaitFor([this] { return toolListings > 0 || !failures.isEmpty(); }, waitMs)
               && toolListings > 0;
    }

    // Every JSON-RPC message the server received, in order.
    QList<QJsonObject> received() const
    {
        QList<QJsonObject> messages;
        const QList<QByteArray> lines = readFile(logPath).split('\n');
        for (const QByteArray &line : lines) {
            if (!line.trimmed().isEmpty())
                messages.append(QJsonDocument::fromJson(line).object());
        }
        return messages;
    }

    QStringList receivedMethods() const
    {
        QStringList methods;
        for (const QJsonObject &message : received())
            methods.append(message.contains(u"method"_s) ? message[u"method"_s].toString()
                                                         : u"(response)"_s);
        return methods;
    }

    std::shared_ptr<CallRecord> call(const QString &tool,
                                     const QJsonObject &arguments = {},
                                     int timeoutMs = waitMs)
    {
        return record(client->callTool(tool, arguments, timeoutMs, client.get()));
    }

    // The text a completed call returned, or why there was none.
    QString textOf(const QString &tool, const QJsonObject &arguments = {})
    {
        const auto result = call(tool, arguments);
        if (!QTest::qWaitFor([&] { return result->outcome.has_value(); }, waitMs))
            return u"(no answer)"_s;
        if (result->outcome->status != McpCallOutcome::Completed)
            return u"(failed: %1)"_s.arg(result->outcome->errorMessage);
        return result->text();
    }

    QTemporaryDir dir;
    QString logPath;
    McpStdioTransport *transport = nullptr;
    std::unique_ptr<McpClient> client;
    QStringList failures;
    int toolListings = 0;
    QList<McpElicitation> elicitations;
    QList<quint64> withdrawn;
    bool transportClosed = false;
};

bool waitForOutcome(const std::shared_ptr<CallRecord> &call, int timeoutMs = waitMs)
{
    return QTest::qWaitFor([&] { return call->outcome.has_value(); }, timeoutMs);
}

QStringList toolNames(const McpClient &client)
{
    QStringList names;
    for (const McpToolInfo &tool : client.tools())
        names.append(tool.name);
    return names;
}

// ---------------------------------------------------------------------------------------------
// A Streamable HTTP server on 127.0.0.1: every request is recorded, the test's handler answers
// it with the raw bytes of an HTTP response; each connection carries one exchange.

struct HttpExchange
{
    QByteArray method;
    QByteArray path;
    QMap<QByteArray, QByteArray> headers; // names in lower case
    QByteArray body;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString rpcMethod() const { return json()[u"method"_s].toString(); }
};

QByteArray httpResponse(int status,
                        const QByteArray &contentType,
                        const QByteArray &body,
                        const QList<std::pair<QByteArray, QByteArray>> &headers = {})
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + " Status\r\n";
    if (!contentType.isEmpty())
        out += "Content-Type: " + contentType + "\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    out += "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n";
    return out + body;
}

QByteArray jsonAnswer(const QJsonObject &request,
                      const QJsonObject &result,
                      const QList<std::pair<QByteArray, QByteArray>> &headers = {})
{
    const QJsonObject message{{u"jsonrpc"_s, u"2.0"_s},
                              {u"id"_s, request[u"id"_s]},
                              {u"result"_s, result}};
    return httpResponse(200,
                        "application/json",
                        QJsonDocument(message).toJson(QJsonDocument::Compact),
                        headers);
}

QByteArray sseAnswer(const QList<QJsonObject> &messages)
{
    QByteArray body;
    for (const QJsonObject &message : messages)
        body += "event: message\ndata: " + QJsonDocument(message).toJson(QJsonDocument::Compact)
                + "\n\n";
    return httpResponse(200, "text/event-stream", body);
}

class FakeMcpHttpServer final : public QObject
{
public:
    using Handler = std::function<QByteArray(const HttpExchange &)>;

    explicit FakeMcpHttpServer(Handler handler)
        : m_handler(std::move(handler))
    {
        QVERIFY(m_server.listen(QHostAddress::LocalHost, 0));
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    *buffer += socket->readAll();
                    serve(socket, *buffer);
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    QString url() const { return u"http://127.0.0.1:%1/mcp"_s.arg(m_server.serverPort()); }

    QList<HttpExchange> exchanges;
    int dropped = 0; // held exchanges the client closed

private:
    void serve(QTcpSocket *socket, const QByteArray &buffer)
    {
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        HttpExchange exchange;
        const QList<QByteArray> lines = buffer.first(end).split('\n');
        const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
        exchange.method = requestLine.value(0);
        exchange.path = requestLine.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                exchange.headers.insert(lines[i].first(colon).trimmed().toLower(),
                                        lines[i].sliced(colon + 1).trimmed());
        }
        const qsizetype length = exchange.headers.value("content-length").toLongLong();
        if (buffer.size() < end + 4 + length)
            return;
        exchange.body = buffer.sliced(end + 4, length);
        exchanges.append(exchange);
        const QByteArray response = m_handler(exchange);
        if (response.isEmpty()) {
            // Held open: the test sees whether the client lets go of it.
            connect(socket, &QTcpSocket::disconnected, this, [this] { ++dropped; });
            return;
        }
        socket->write(response);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    Handler m_handler;
};

// The answers of a modern server to server/discover and tools/list (with no tools); empty for
// any other request.
QByteArray modernDiscovery(const HttpExchange &exchange, const QString &serverName = u"fake"_s)
{
    const QString method = exchange.rpcMethod();
    if (method == u"server/discover")
        return jsonAnswer(exchange.json(),
                          {{u"resultType"_s, u"complete"_s},
                           {u"supportedVersions"_s, QJsonArray{u"2026-07-28"_s}},
                           {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}},
                           {u"serverInfo"_s, QJsonObject{{u"name"_s, serverName}}}});
    if (method == u"tools/list")
        return jsonAnswer(exchange.json(),
                          {{u"resultType"_s, u"complete"_s}, {u"tools"_s, QJsonArray{}}});
    return {};
}

// A legacy server's answers to the handshake (session "s-7", 2025-11-25) and to tools/list (one
// tool, "t"), 202 to every notification and response; empty for anything else.
QByteArray legacySession(const HttpExchange &exchange)
{
    const QJsonObject request = exchange.json();
    const QString method = exchange.rpcMethod();
    if (exchange.method != "POST")
        return {};
    if (method == u"server/discover")
        return httpResponse(400, "text/plain", "Bad Request: Server not initialized");
    if (method == u"initialize")
        return jsonAnswer(request,
                          {{u"protocolVersion"_s, u"2025-11-25"_s},
                           {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}}},
                          {{"Mcp-Session-Id", "s-7"}});
    if (!request.contains(u"id"_s) || !request.contains(u"method"_s))
        return httpResponse(202, {}, {});
    if (method == u"tools/list") {
        const QJsonObject tool{{u"name"_s, u"t"_s},
                               {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
        return jsonAnswer(request, {{u"tools"_s, QJsonArray{tool}}});
    }
    return {};
}

// One server-sent event carrying a JSON-RPC message, with its id.
QByteArray sseEvent(const QByteArray &id, const QJsonObject &message)
{
    return "event: message\nid: " + id
           + "\ndata: " + QJsonDocument(message).toJson(QJsonDocument::Compact) + "\n\n";
}

// One row per era, for a test that runs in both.
void addEraColumn()
{
    QTest::addColumn<QString>("era");
    QTest::newRow("legacy") << u"legacy"_s;
    QTest::newRow("modern") << u"modern"_s;
}

// A client of the fake server, started; listed and failed spy on it.
struct HttpClient
{
    explicit HttpClient(const FakeMcpHttpServer &http, const QMap<QString, QString> &headers = {})
    {
        McpServerConfig config;
        config.name = u"http"_s;
        config.transport = McpServerConfig::Http;
        config.url = http.url();
        config.headers = headers;
        client = std::make_unique<McpClient>(u"http"_s,
                                             new McpHttpTransport(config),
                                             QDir::tempPath());
        listed = std::make_unique<QSignalSpy>(client.get(), &McpClient::toolsChanged);
        failed = std::make_unique<QSignalSpy>(client.get(), &McpClient::failed);
        client->start();
    }

    bool waitForTools() const
    {
        return QTest::qWaitFor([this] { return !listed->isEmpty() || !failed->isEmpty(); }, waitMs)
               && !listed->isEmpty();
    }

    std::shared_ptr<CallRecord> call(const QString &tool, const QJsonObject &arguments = {})
    {
        return record(client->callTool(tool, arguments, waitMs, client.get()));
    }

    std::unique_ptr<McpClient> client;
    std::unique_ptr<QSignalSpy> listed;
    std::unique_ptr<QSignalSpy> failed;
};

} // namespace

class tst_McpClient : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    void eraNegotiation_data();
    void eraNegotiation();
    void modernRequestsCarryTheirMeta();
    void legacyInitializesFirst();
    void unknownModernVersionsFail();
    void toolsArePaged();
    void listChangedBeforeTheFirstAnswerRelists();
    void listTtlRelists();

    void crashAtStartSaysTheExitCode();
    void missingProgramIsNamed();
    void crashMidCallFailsTheCall();
    void silentServerTimesOutTheCall_data();
    void silentServerTimesOutTheCall();
    void cancelTellsTheServer();
    void stopFailsPendingCalls();
    void standardErrorKeepsTheLast200Lines();
    void bannerOnStandardOutputIsNoise();

    void elicitationReachesTheServer_data();
    void elicitationReachesTheServer();
    void cancelledCallWithdrawsItsElicitation();
    void samplingIsDeclined_data();
    void samplingIsDeclined();
    void rootsAreTheWorkspace_data();
    void pingAndUnknownRequests_data();
    void pingAndUnknownRequests();
    void rootsAreTheWorkspace();
    void secretsAreNotInherited();

    void cmdExeQuoting_data();
    void cmdExeQuoting();

    void httpLegacySessionAndSse();
    void httpModern();
    void httpErrorFailsTheRequest();
    void httpSessionEndedByTheServer();
    void httpCancelClosesTheRequest();
    void httpServerStreamCarriesItsRequests();
    void httpAnswerStreamIsResumed();
    void httpResumptionRefusedFailsTheCall();
    void httpRedirectStaysWithinTheOrigin();

    void serverEverything();
};

void tst_McpClient::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(AGENTLOOP_MCP_SCRIPTED_PATH)).isExecutable(),
             AGENTLOOP_MCP_SCRIPTED_PATH);
}

// ---------------------------------------------------------------------------------------------
// Era negotiation

void tst_McpClient::eraNegotiation_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("probeTimeoutMs");
    QTest::addColumn<McpClient::Era>("era");
    QTest::addColumn<QString>("version");

    QTest::newRow("modern only") << QStringList{u"--era"_s, u"modern"_s} << 0
                                 << McpClient::Era::Modern << u"2026-07-28"_s;
    QTest::newRow("legacy, -32601 to the probe") << QStringList{u"--era"_s, u"legacy"_s} << 0
                                                 << McpClient::Era::Legacy << u"2025-11-25"_s;
    QTest::newRow("legacy, silent probe")
            << QStringList{u"--era"_s, u"legacy"_s, u"--probe-silent"_s} << 300
            << McpClient::Era::Legacy << u"2025-11-25"_s;
    // The answer to the abandoned probe comes after initialize was sent: it is not taken for
    // initialize's answer.
    QTest::newRow("legacy, late answer to the probe")
            << QStringList{u"--era"_s, u"legacy"_s, u"--probe-late"_s} << 300
            << McpClient::Era::Legacy << u"2025-11-25"_s;
    // A modern server that takes longer to start than the probe waits: initialize is unknown,
    // so the client asks server/discover again.
    QTest::newRow("modern, slow to start")
            << QStringList{u"--era"_s, u"modern"_s, u"--slow-start"_s, u"600"_s} << 200
            << McpClient::Era::Modern << u"2026-07-28"_s;
    QTest::newRow("both eras") << QStringList{u"--era"_s, u"both"_s} << 0 << McpClient::Era::Modern
                               << u"2026-07-28"_s;
}

void tst_McpClient::eraNegotiation()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, probeTimeoutMs);
    QFETCH(McpClient::Era, era);
    QFETCH(QString, version);

    Scripted server(arguments, {}, {}, probeTimeoutMs);
    QVERIFY2(server.startAndList(), qPrintable(server.failures.join(u"; "_s)));
    QCOMPARE(server.client->state(), McpClient::State::Ready);
    QCOMPARE(server.client->era(), era);
    QCOMPARE(server.client->protocolVersion(), version);
    QCOMPARE(server.client->serverInfo()[u"name"_s].toString(), u"scripted"_s);
    QCOMPARE(toolNames(*server.client), (QStringList{u"echo"_s, u"sample"_s, u"roots"_s}));
    QVERIFY(server.client->tools().first().readOnlyHint);

    const auto echo = server.call(u"echo"_s, {{u"message"_s, u"héllo 你好"_s}});
    QVERIFY(waitForOutcome(echo));
    QCOMPARE(echo->outcome->status, McpCallOutcome::Completed);
    QCOMPARE(echo->text(), u"héllo 你好"_s);
    QVERIFY(server.failures.isEmpty());
}

void tst_McpClient::modernRequestsCarryTheirMeta()
{
    Scripted server({u"--era"_s, u"modern"_s});
    QVERIFY(server.startAndList());
    const auto echo = server.call(u"echo"_s, {{u"message"_s, u"x"_s}});
    QVERIFY(waitForOutcome(echo));

    QCOMPARE(server.receivedMethods(),
             (QStringList{u"server/discover"_s, u"tools/list"_s, u"tools/call"_s}));
    for (const QJsonObject &request : server.received()) {
        const QJsonObject meta = request[u"params"_s][u"_meta"_s].toObject();
        QCOMPARE(meta[u"io.modelcontextprotocol/protocolVersion"_s].toString(), u"2026-07-28"_s);
        QVERIFY(meta[u"io.modelcontextprotocol/clientCapabilities"_s].isObject());
        QCOMPARE(meta[u"io.modelcontextprotocol/clientInfo"_s][u"name"_s].toString(),
                 u"agentloop"_s);
        QVERIFY(request[u"id"_s].isDouble());
    }
    const QJsonObject call = server.received().last()[u"params"_s].toObject();
    QCOMPARE(call[u"name"_s].toString(), u"echo"_s);
    QCOMPARE(call[u"arguments"_s][u"message"_s].toString(), u"x"_s);
    QVERIFY(!call[u"_meta"_s][u"progressToken"_s].isUndefined());
}

void tst_McpClient::legacyInitializesFirst()
{
    Scripted server({u"--era"_s, u"legacy"_s});
    QVERIFY(server.startAndList());
    QCOMPARE(server.receivedMethods(),
             (QStringList{u"server/discover"_s,
                          u"initialize"_s,
                          u"notifications/initialized"_s,
                          u"tools/list"_s}));
    const QList<QJsonObject> received = server.received();
    const QJsonObject initialize = received[1][u"params"_s].toObject();
    QCOMPARE(initialize[u"protocolVersion"_s].toString(), u"2025-11-25"_s);
    QCOMPARE(initialize[u"capabilities"_s][u"roots"_s][u"listChanged"_s].toBool(), true);
    QVERIFY(initialize[u"capabilities"_s][u"elicitation"_s][u"form"_s].isObject());
    QCOMPARE(initialize[u"clientInfo"_s][u"name"_s].toString(), u"agentloop"_s);
    // After the fallback, nothing modern is sent.
    QVERIFY(!received[1][u"params"_s][u"_meta"_s].isObject());
    QVERIFY(!received[3][u"params"_s][u"_meta"_s].isObject());
}

// A modern server that speaks only a version this client does not know is not a legacy one.
void tst_McpClient::unknownModernVersionsFail()
{
    // The scripted server cannot be made to answer -32022, so the HTTP fake does: with versions
    // this client knows none of, the client fails, naming them.
    FakeMcpHttpServer http([](const HttpExchange &exchange) {
        const QJsonObject error{{u"code"_s, -32022},
                                {u"message"_s, u"Unsupported protocol version"_s},
                                {u"data"_s,
                                 QJsonObject{{u"supported"_s, QJsonArray{u"2099-01-01"_s}}}}};
        return httpResponse(200,
                            "application/json",
                            QJsonDocument(QJsonObject{{u"jsonrpc"_s, u"2.0"_s},
                                                      {u"id"_s, exchange.json()[u"id"_s]},
                                                      {u"error"_s, error}})
                                    .toJson(QJsonDocument::Compact));
    });
    HttpClient client(http);
    QTRY_COMPARE_WITH_TIMEOUT(client.failed->size(), 1, waitMs);
    const QString reason = client.failed->first().first().toString();
    QVERIFY2(reason.contains(u"2099-01-01"_s), qPrintable(reason));
    QCOMPARE(http.exchanges.size(), 1);
}

void tst_McpClient::toolsArePaged()
{
    Scripted server({u"--era"_s, u"legacy"_s, u"--tools"_s, u"5"_s, u"--page-size"_s, u"2"_s});
    QVERIFY(server.startAndList());
    QCOMPARE(toolNames(*server.client),
             (QStringList{u"echo"_s,
                          u"tool_1"_s,
                          u"tool_2"_s,
                          u"tool_3"_s,
                          u"tool_4"_s,
                          u"tool_5"_s,
                          u"sample"_s,
                          u"roots"_s}));
    QCOMPARE(server.toolListings, 1);
    QStringList cursors;
    for (const QJsonObject &request : server.received()) {
        if (request[u"method"_s].toString() == u"tools/list")
            cursors.append(request[u"params"_s][u"cursor"_s].toString(u"(none)"_s));
    }
    QCOMPARE(cursors, (QStringList{u"(none)"_s, u"2"_s, u"4"_s, u"6"_s}));
}

void tst_McpClient::listChangedBeforeTheFirstAnswerRelists()
{
    Scripted server({u"--era"_s, u"legacy"_s, u"--list-changed-early"_s});
    QVERIFY(server.startAndList());
    QTRY_COMPARE_WITH_TIMEOUT(server.receivedMethods().count(u"tools/list"_s), 2, waitMs);
    QTest::qWait(100);
    QCOMPARE(server.receivedMethods().count(u"tools/list"_s), 2);
    QTRY_COMPARE_WITH_TIMEOUT(server.toolListings, 2, waitMs);
    QCOMPARE(toolNames(*server.client),
             (QStringList{u"echo"_s, u"sample"_s, u"roots"_s, u"late"_s}));
}

void tst_McpClient::listTtlRelists()
{
    Scripted server({u"--era"_s, u"modern"_s, u"--ttl"_s, u"50"_s});
    QElapsedTimer sinceTheStart; // started first: load only makes the listings come later on it
    sinceTheStart.start();
    QVERIFY(server.startAndList());
    QTRY_VERIFY_WITH_TIMEOUT(server.receivedMethods().count(u"tools/list"_s) >= 2, waitMs);
    // A ttl of 50 ms is not taken at its word: at most one listing a second, so the n-th comes
    // n - 1 seconds after the start at the earliest (less 5 %: the client's timer is coarse).
    const int listings = int(server.receivedMethods().count(u"tools/list"_s));
    const qint64 elapsed = sinceTheStart.elapsed();
    QVERIFY2(listings <= 1 + elapsed / 950,
             qPrintable(u"%1 listings in %2 ms"_s.arg(listings).arg(elapsed)));
    QCOMPARE(server.toolListings, 1);
}

// ---------------------------------------------------------------------------------------------
// Failures

void tst_McpClient::crashAtStartSaysTheExitCode()
{
    Scripted server({u"--crash-at-start"_s});
    server.client->start();
    QTRY_COMPARE_WITH_TIMEOUT(server.failures.size(), 1, waitMs);
    QVERIFY2(server.failures.first().contains(u"exited with code 3"_s),
             qPrintable(server.failures.first()));
    QCOMPARE(server.client->state(), McpClient::State::Closed);
    QCOMPARE(server.transport->standardErrorTail(), QStringList{u"crashing at start"_s});
}

void tst_McpClient::missingProgramIsNamed()
{
    McpServerConfig config;
    config.name = u"missing"_s;
    config.command = u"agentloop-no-such-program"_s;
    McpClient client(u"missing"_s,
                     new McpStdioTransport(config, QDir::tempPath(), {}),
                     QDir::tempPath());
    QSignalSpy failed(&client, &McpClient::failed);
    client.start();
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, waitMs);
    QCOMPARE(failed.first().first().toString(),
             u"could not be started: the program “agentloop-no-such-program” was not found"_s);
}

void tst_McpClient::crashMidCallFailsTheCall()
{
    Scripted server({u"--era"_s, u"legacy"_s, u"--crash-on-call"_s});
    QVERIFY(server.startAndList());
    const auto call = server.call(u"echo"_s, {{u"message"_s, u"x"_s}});
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Failed);
    QVERIFY2(call->outcome->errorMessage.contains(u"exited with code 4"_s),
             qPrintable(call->outcome->errorMessage));
    QCOMPARE(server.failures, QStringList{u"exited with code 4"_s});
    QVERIFY(server.transport->standardErrorTail().contains(u"crashing on tools/call"_s));
}

void tst_McpClient::silentServerTimesOutTheCall_data()
{
    addEraColumn();
}

void tst_McpClient::silentServerTimesOutTheCall()
{
    QFETCH(QString, era);
    Scripted server({u"--era"_s, era, u"--never-answer"_s});
    QVERIFY(server.startAndList());
    const auto call = server.call(u"echo"_s, {{u"message"_s, u"x"_s}}, 300);
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::TimedOut);
    QVERIFY(!call->outcome->errorMessage.isEmpty());
    if (era == u"legacy") {
        QTRY_VERIFY_WITH_TIMEOUT(server.receivedMethods().last() == u"notifications/cancelled",
                                 waitMs);
        const QList<QJsonObject> received = server.received();
        const QJsonObject callRequest = received[received.size() - 2];
        QCOMPARE(callRequest[u"method"_s].toString(), u"tools/call"_s);
        const QJsonObject cancelled = received.last()[u"params"_s].toObject();
        QCOMPARE(cancelled[u"requestId"_s], callRequest[u"id"_s]);
        QVERIFY(!cancelled[u"reason"_s].toString().isEmpty());
    }
    // The server is still usable.
    QCOMPARE(server.client->state(), McpClient::State::Ready);
}

void tst_McpClient::cancelTellsTheServer()
{
    Scripted server({u"--era"_s, u"legacy"_s, u"--never-answer"_s});
    QVERIFY(server.startAndList());
    McpCall *call = server.client->callTool(u"echo"_s, {{u"message"_s, u"x"_s}}, waitMs, nullptr);
    std::unique_ptr<McpCall> owned(call);
    const auto result = record(call);
    QTRY_VERIFY_WITH_TIMEOUT(server.receivedMethods().last() == u"tools/call", waitMs);
    call->cancel();
    call->cancel(); // once is enough
    QVERIFY(waitForOutcome(result));
    QCOMPARE(result->outcome->status, McpCallOutcome::Cancelled);
    QTRY_VERIFY_WITH_TIMEOUT(server.receivedMethods().last() == u"notifications/cancelled", waitMs);
    QTest::qWait(50);
    QCOMPARE(server.receivedMethods().count(u"notifications/cancelled"_s), 1);
}

void tst_McpClient::stopFailsPendingCalls()
{
    Scripted server({u"--era"_s, u"modern"_s, u"--never-answer"_s});
    QVERIFY(server.startAndList());
    const auto call = server.call(u"echo"_s, {{u"message"_s, u"x"_s}});
    QTRY_VERIFY_WITH_TIMEOUT(server.receivedMethods().last() == u"tools/call", waitMs);
    QSignalSpy states(server.client.get(), &McpClient::stateChanged);
    server.client->stop();
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Failed);
    QCOMPARE(call->outcome->errorMessage, u"the server was stopped"_s);
    QCOMPARE(server.client->state(), McpClient::State::Closed);
    const qint64 pid = server.transport->processId();
    QVERIFY(pid > 0);
    QTRY_VERIFY_WITH_TIMEOUT(processIsGone(pid), waitMs);
    QVERIFY(server.failures.isEmpty()); // a stop is not a failure
}

void tst_McpClient::standardErrorKeepsTheLast200Lines()
{
    Scripted server({u"--era"_s, u"modern"_s, u"--stderr"_s, u"250"_s});
    QSignalSpy lines(server.transport, &McpTransport::standardErrorLine);
    QVERIFY(server.startAndList());
    QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 250, waitMs);
    const QStringList tail = server.transport->standardErrorTail();
    QCOMPARE(tail.size(), 200);
    QCOMPARE(tail.first(), u"stderr line 51"_s);
    QCOMPARE(tail.last(), u"stderr line 250"_s);
}

void tst_McpClient::bannerOnStandardOutputIsNoise()
{
    Scripted server({u"--era"_s, u"legacy"_s, u"--banner"_s});
    QSignalSpy noise(server.transport, &McpTransport::protocolNoise);
    QSignalSpy log(server.client.get(), &McpClient::logMessage);
    QVERIFY(server.startAndList());
    QCOMPARE(noise.size(), 1);
    QCOMPARE(noise.first().first().toString(), u"Scripted MCP server running on stdio"_s);
    bool logged = false;
    for (const QList<QVariant> &entry : std::as_const(log))
        logged = logged || entry.first().toString().contains(u"Scripted MCP server running"_s);
    QVERIFY(logged);
}

// ---------------------------------------------------------------------------------------------
// Requests of the server

void tst_McpClient::elicitationReachesTheServer_data()
{
    QTest::addColumn<QString>("era");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("expected");

    QTest::newRow("legacy accept")
            << u"legacy"_s << u"accept"_s << uR"(action=accept content={"name":"Ada"})"_s;
    QTest::newRow("legacy decline")
            << u"legacy"_s << u"decline"_s << u"action=decline content={}"_s;
    QTest::newRow("modern accept")
            << u"modern"_s << u"accept"_s
            << uR"(action=accept content={"name":"Ada"} requestState=state-1)"_s;
    QTest::newRow("modern decline")
            << u"modern"_s << u"decline"_s << u"action=decline content={} requestState=state-1"_s;
}

void tst_McpClient::elicitationReachesTheServer()
{
    QFETCH(QString, era);
    QFETCH(QString, action);
    QFETCH(QString, expected);

    Scripted server({u"--era"_s, era, u"--elicit"_s});
    QVERIFY(server.startAndList());
    // The user takes longer than the call may: the time spent waiting for them does not count.
    // (The server's own part of the call, before and after, has the rest of the 2 s.)
    const auto call = server.call(u"elicit"_s, {}, 2000);
    QTRY_COMPARE_WITH_TIMEOUT(server.elicitations.size(), 1, waitMs);
    QTest::qWait(2500);
    const McpElicitation request = server.elicitations.first();
    QCOMPARE(request.serverName, u"scripted"_s);
    QCOMPARE(request.message, u"What is your name?"_s);
    QCOMPARE(request.requestedSchema[u"required"_s].toArray(), QJsonArray{u"name"_s});
    QVERIFY(!call->outcome); // the call waits for the user

    server.client->answerElicitation(request.id, action, {{u"name"_s, u"Ada"_s}});
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Completed);
    QCOMPARE(call->text(), expected);
    QVERIFY(server.withdrawn.isEmpty());
    if (era == u"modern") {
        // The second round re-sent the same call with the answer and the server's state.
        const QJsonObject second = server.received().last()[u"params"_s].toObject();
        QCOMPARE(second[u"name"_s].toString(), u"elicit"_s);
        QCOMPARE(second[u"requestState"_s].toString(), u"state-1"_s);
        QCOMPARE(second[u"inputResponses"_s][u"input"_s][u"action"_s].toString(), action);
    }
}

void tst_McpClient::cancelledCallWithdrawsItsElicitation()
{
    Scripted server({u"--era"_s, u"legacy"_s, u"--elicit"_s});
    QVERIFY(server.startAndList());
    McpCall *call = server.client->callTool(u"elicit"_s, {}, waitMs, server.client.get());
    const auto result = record(call);
    QTRY_COMPARE_WITH_TIMEOUT(server.elicitations.size(), 1, waitMs);
    call->cancel();
    QVERIFY(waitForOutcome(result));
    QCOMPARE(result->outcome->status, McpCallOutcome::Cancelled);
    QCOMPARE(server.withdrawn, QList<quint64>{server.elicitations.first().id});
    // The server's request was answered: cancel.
    QTRY_VERIFY_WITH_TIMEOUT(server.receivedMethods().contains(u"(response)"_s), waitMs);
    QJsonObject answer;
    for (const QJsonObject &message : server.received()) {
        if (!message.contains(u"method"_s))
            answer = message;
    }
    QCOMPARE(answer[u"result"_s][u"action"_s].toString(), u"cancel"_s);
    // A late answer from the user changes nothing.
    server.client->answerElicitation(server.elicitations.first().id, u"accept"_s, {});
    QTest::qWait(100);
    QCOMPARE(server.receivedMethods().count(u"(response)"_s), 1);
}

void tst_McpClient::samplingIsDeclined_data()
{
    addEraColumn();
}

void tst_McpClient::samplingIsDeclined()
{
    QFETCH(QString, era);
    Scripted server({u"--era"_s, era});
    QVERIFY(server.startAndList());
    const QString text = server.textOf(u"sample"_s);
    QVERIFY2(text.contains(u"Agent Loop does not offer sampling to MCP servers"_s),
             qPrintable(text));
    QVERIFY2(text.contains(u"-32601"_s), qPrintable(text));
}

void tst_McpClient::rootsAreTheWorkspace_data()
{
    addEraColumn();
}

void tst_McpClient::rootsAreTheWorkspace()
{
    QFETCH(QString, era);
    Scripted server({u"--era"_s, era});
    QVERIFY(server.startAndList());
    const QString text = server.textOf(u"roots"_s);
    const QJsonObject roots = QJsonDocument::fromJson(text.section(u' ', 1, 1).toUtf8()).object();
    const QJsonArray list = roots[u"roots"_s].toArray();
    QCOMPARE(list.size(), 1);
    QCOMPARE(QUrl(list.first()[u"uri"_s].toString()).toLocalFile(),
             QDir::cleanPath(server.dir.path()));
    QVERIFY(list.first()[u"uri"_s].toString().startsWith(u"file:///"_s));
}

void tst_McpClient::pingAndUnknownRequests_data()
{
    addEraColumn();
}

void tst_McpClient::pingAndUnknownRequests()
{
    QFETCH(QString, era);
    Scripted server({u"--era"_s, era, u"--ask-more"_s});
    QVERIFY(server.startAndList());
    const QString ping = server.textOf(u"ping"_s);
    // The modern era has no ping: asked within a call, it is a method like any unknown one.
    QVERIFY2(ping.startsWith(u"ping: {}"_s) == (era == u"legacy"), qPrintable(ping));
    QVERIFY2(ping.contains(u"-32601"_s) == (era == u"modern"), qPrintable(ping));
    const QString unknown = server.textOf(u"unknown"_s);
    QVERIFY2(unknown.contains(u"-32601"_s), qPrintable(unknown));
    QVERIFY2(unknown.contains(u"x/unknown"_s), qPrintable(unknown));
}

void tst_McpClient::secretsAreNotInherited()
{
    const QByteArray secret = "sk-test-4f0c2a9e1b";
    qputenv(apiKeyVariable, secret);
    qputenv("AGENTLOOP_TEST_HOLDS_SECRET", "Bearer " + secret);
    qputenv("AGENTLOOP_TEST_HARMLESS", "plain");
    Scripted server({u"--era"_s, u"legacy"_s, u"--print-env"_s, u"AGENTLOOP_TEST_HARMLESS"_s},
                    {QString::fromLatin1(secret)},
                    {{u"FROM_CONFIG"_s, u"configured"_s}});
    qunsetenv(apiKeyVariable);
    qunsetenv("AGENTLOOP_TEST_HOLDS_SECRET");
    QVERIFY(server.startAndList());

    const auto value = [&](const QString &name) {
        return server.textOf(u"print_env"_s, {{u"name"_s, name}});
    };
    QCOMPARE(value(QString::fromLatin1(apiKeyVariable)), u"<unset>"_s);
    QCOMPARE(value(u"AGENTLOOP_TEST_HOLDS_SECRET"_s), u"<unset>"_s);
    QCOMPARE(value(u"AGENTLOOP_TEST_HARMLESS"_s), u"plain"_s);
    QCOMPARE(value(u"FROM_CONFIG"_s), u"configured"_s);
    qunsetenv("AGENTLOOP_TEST_HARMLESS");
}

// ---------------------------------------------------------------------------------------------
// cmd.exe

void tst_McpClient::cmdExeQuoting_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");

    QTest::newRow("plain")
            << uR"(C:\nodejs\npx.cmd)"_s
            << QStringList{u"-y"_s, u"@modelcontextprotocol/server-everything"_s}
            << uR"(/d /s /c "C:\nodejs\npx.cmd -y @modelcontextprotocol/server-everything")"_s;
    QTest::newRow("spaces") << uR"(C:\Program Files\nodejs\npx.cmd)"_s
                            << QStringList{u"a b"_s, u""_s}
                            << uR"(/d /s /c ""C:\Program Files\nodejs\npx.cmd" "a b" """)"_s;
    QTest::newRow("operators stay inside quotes")
            << u"x.cmd"_s << QStringList{u"a&b|c>d"_s, u"^(x)"_s}
            << uR"x(/d /s /c "x.cmd "a&b|c>d" "^(x)"")x"_s;
    QTest::newRow("quotes doubled")
            << u"x.cmd"_s << QStringList{uR"(say "hi")"_s} << uR"(/d /s /c "x.cmd "say ""hi"""")"_s;
    QTest::newRow("backslashes before quotes")
            << u"x.cmd"_s << QStringList{uR"(C:\dir\ x)"_s, uR"(a\"b)"_s, uR"(end\ \)"_s}
            << uR"(/d /s /c "x.cmd "C:\dir\ x" "a\\""b" "end\ \\"")"_s;
    QTest::newRow("percent cannot expand") << u"x.cmd"_s << QStringList{u"%PATH%"_s}
                                           << uR"(/d /s /c "x.cmd "%%cd:~,%PATH%%cd:~,%"")"_s;
    QTest::newRow("line break") << u"x.cmd"_s << QStringList{u"a\nb"_s} << QString();
}

void tst_McpClient::cmdExeQuoting()
{
    QFETCH(QString, script);
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QCOMPARE(cmdExeNativeArguments(script, arguments), expected);
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP

void tst_McpClient::httpLegacySessionAndSse()
{
    FakeMcpHttpServer http([](const HttpExchange &exchange) -> QByteArray {
        const QJsonObject request = exchange.json();
        const QString method = exchange.rpcMethod();
        if (exchange.method == "DELETE")
            return httpResponse(200, {}, {});
        if (exchange.method == "GET")
            return httpResponse(405, {}, {}); // no stream of the server's own messages
        if (method == u"server/discover")
            return httpResponse(400, "text/plain", "Bad Request: Server not initialized");
        if (method == u"initialize")
            return jsonAnswer(request,
                              {{u"protocolVersion"_s, u"2025-06-18"_s},
                               {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}},
                               {u"serverInfo"_s, QJsonObject{{u"name"_s, u"fake-http"_s}}}},
                              {{"Mcp-Session-Id", "session-42"}});
        if (request.contains(u"method"_s) && !request.contains(u"id"_s))
            return httpResponse(202, {}, {});
        if (method == u"tools/list") {
            const QJsonObject tool{{u"name"_s, u"echo"_s},
                                   {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
            return sseAnswer({{{u"jsonrpc"_s, u"2.0"_s},
                               {u"id"_s, request[u"id"_s]},
                               {u"result"_s, QJsonObject{{u"tools"_s, QJsonArray{tool}}}}}});
        }
        if (method == u"tools/call") {
            const QJsonValue token = request[u"params"_s][u"_meta"_s][u"progressToken"_s];
            const QJsonObject progress{{u"jsonrpc"_s, u"2.0"_s},
                                       {u"method"_s, u"notifications/progress"_s},
                                       {u"params"_s,
                                        QJsonObject{{u"progressToken"_s, token},
                                                    {u"progress"_s, 1},
                                                    {u"total"_s, 2}}}};
            const QJsonObject content{{u"type"_s, u"text"_s},
                                      {u"text"_s,
                                       request[u"params"_s][u"arguments"_s][u"message"_s]}};
            return sseAnswer({progress,
                              {{u"jsonrpc"_s, u"2.0"_s},
                               {u"id"_s, request[u"id"_s]},
                               {u"result"_s, QJsonObject{{u"content"_s, QJsonArray{content}}}}}});
        }
        return httpResponse(404, {}, {});
    });

    HttpClient connection(http, {{u"Authorization"_s, u"Bearer token-1"_s}});
    McpClient &client = *connection.client;
    QVERIFY(connection.waitForTools());
    QCOMPARE(client.era(), McpClient::Era::Legacy);
    QCOMPARE(client.protocolVersion(), u"2025-06-18"_s);
    QCOMPARE(toolNames(client), QStringList{u"echo"_s});

    const auto call = connection.call(u"echo"_s, {{u"message"_s, u"over http"_s}});
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Completed);
    QCOMPARE(call->text(), u"over http"_s);
    QCOMPARE(call->progress, QList<double>{1});

    client.stop();
    QTRY_VERIFY_WITH_TIMEOUT(http.exchanges.last().method == "DELETE", waitMs);

    QStringList methods;
    for (const HttpExchange &exchange : std::as_const(http.exchanges)) {
        methods.append(exchange.method == "POST" ? exchange.rpcMethod()
                                                 : QString::fromLatin1(exchange.method));
        QCOMPARE(exchange.path, QByteArray("/mcp"));
        QCOMPARE(exchange.headers.value("authorization"), QByteArray("Bearer token-1"));
        if (exchange.method == "POST") {
            QCOMPARE(exchange.headers.value("accept"),
                     QByteArray("application/json, text/event-stream"));
            QVERIFY(exchange.headers.value("content-type").startsWith("application/json"));
        }
        if (exchange.method == "GET") {
            QCOMPARE(exchange.headers.value("accept"), QByteArray("text/event-stream"));
            QVERIFY(!exchange.headers.contains("content-type"));
            QVERIFY(!exchange.headers.contains("last-event-id"));
        }
    }
    // Each message is a POST of its own: initialized and tools/list may overtake each other.
    QCOMPARE(methods.first(2), (QStringList{u"server/discover"_s, u"initialize"_s}));
    QStringList rest = methods.sliced(2);
    rest.sort();
    // Once initialized was accepted, one GET for the server's own stream: 405, never again.
    QCOMPARE(rest,
             (QStringList{u"DELETE"_s,
                          u"GET"_s,
                          u"notifications/initialized"_s,
                          u"tools/call"_s,
                          u"tools/list"_s}));
    // The session and the version the server chose go with every request after initialize.
    for (qsizetype i = 0; i < http.exchanges.size(); ++i) {
        const HttpExchange &exchange = http.exchanges[i];
        QCOMPARE(exchange.headers.value("mcp-session-id"),
                 i < 2 ? QByteArray() : QByteArray("session-42"));
        QCOMPARE(exchange.headers.value("mcp-protocol-version"),
                 i < 2 ? QByteArray() : QByteArray("2025-06-18"));
    }
}

void tst_McpClient::httpModern()
{
    FakeMcpHttpServer http([](const HttpExchange &exchange) {
        const QByteArray answer = modernDiscovery(exchange, u"modern-http"_s);
        return answer.isEmpty() ? httpResponse(404, {}, {}) : answer;
    });
    HttpClient client(http);
    QVERIFY(client.waitForTools());
    QCOMPARE(client.client->era(), McpClient::Era::Modern);
    QCOMPARE(client.client->serverInfo()[u"name"_s].toString(), u"modern-http"_s);
    QCOMPARE(http.exchanges.size(), 2);
    QCOMPARE(http.exchanges[0].headers.value("mcp-protocol-version"), QByteArray());
    QCOMPARE(http.exchanges[1].headers.value("mcp-protocol-version"), QByteArray("2026-07-28"));
    QCOMPARE(http.exchanges[1]
                     .json()[u"params"_s][u"_meta"_s][u"io.modelcontextprotocol/protocolVersion"_s]
                     .toString(),
             u"2026-07-28"_s);
    QVERIFY(!http.exchanges[1].headers.contains("mcp-session-id"));
    client.client->stop();
    QTest::qWait(100);
    QCOMPARE(http.exchanges.size(), 2); // no session, no DELETE
}

void tst_McpClient::httpErrorFailsTheRequest()
{
    FakeMcpHttpServer http([](const HttpExchange &exchange) {
        const QByteArray answer = modernDiscovery(exchange);
        return answer.isEmpty() ? httpResponse(500, "text/html", "<h1>Internal Server Error</h1>")
                                : answer;
    });
    HttpClient client(http);
    QVERIFY(client.waitForTools());
    const auto call = client.call(u"t"_s);
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Failed);
    QVERIFY2(call->outcome->errorMessage.contains(u"HTTP 500"_s),
             qPrintable(call->outcome->errorMessage));
    QVERIFY2(call->outcome->errorMessage.contains(u"Internal Server Error"_s),
             qPrintable(call->outcome->errorMessage));
}

void tst_McpClient::httpSessionEndedByTheServer()
{
    FakeMcpHttpServer http([](const HttpExchange &exchange) -> QByteArray {
        const QJsonObject request = exchange.json();
        const QString method = exchange.rpcMethod();
        if (method == u"server/discover")
            return httpResponse(405, {}, {});
        if (method == u"initialize")
            return jsonAnswer(request,
                              {{u"protocolVersion"_s, u"2025-11-25"_s},
                               {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}}},
                              {{"Mcp-Session-Id", "s-1"}});
        if (method == u"tools/list")
            return jsonAnswer(request, {{u"tools"_s, QJsonArray{}}});
        if (method == u"tools/call")
            return httpResponse(404, "text/plain", "Session not found");
        return httpResponse(202, {}, {});
    });
    HttpClient client(http);
    QVERIFY(client.waitForTools());
    QCOMPARE(client.client->era(), McpClient::Era::Legacy);
    const auto call = client.call(u"t"_s);
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Failed);
    QVERIFY2(call->outcome->errorMessage.contains(u"Session not found"_s),
             qPrintable(call->outcome->errorMessage));
    QTRY_COMPARE_WITH_TIMEOUT(client.failed->size(), 1, waitMs);
    QCOMPARE(client.failed->first().first().toString(), u"ended the session (HTTP 404)"_s);
    QCOMPARE(client.client->state(), McpClient::State::Closed);
}

// A stateless server learns of a cancelled call from its closed request.
void tst_McpClient::httpCancelClosesTheRequest()
{
    // tools/call is never answered: the request stays open.
    FakeMcpHttpServer http([](const HttpExchange &exchange) { return modernDiscovery(exchange); });
    HttpClient client(http);
    QVERIFY(client.waitForTools());
    McpCall *call = client.client->callTool(u"t"_s, {}, waitMs, client.client.get());
    const auto result = record(call);
    QTRY_COMPARE_WITH_TIMEOUT(http.exchanges.size(), 3, waitMs);
    QCOMPARE(http.dropped, 0);
    call->cancel();
    QVERIFY(waitForOutcome(result));
    QCOMPARE(result->outcome->status, McpCallOutcome::Cancelled);
    QTRY_COMPARE_WITH_TIMEOUT(http.dropped, 1, waitMs);
    QCOMPARE(http.exchanges.size(), 3); // modern: no notifications/cancelled
}

// ---------------------------------------------------------------------------------------------
// A real server

// Once initialized is accepted, the client opens the server's own stream (GET). Its requests are
// answered by POST; when the server ends the stream, the client comes back after the `retry:`
// time with Last-Event-ID, and a 405 ends the listening for good.
void tst_McpClient::httpServerStreamCarriesItsRequests()
{
    QElapsedTimer sinceTheStreamEnded;
    FakeMcpHttpServer http([&](const HttpExchange &exchange) -> QByteArray {
        if (exchange.method != "GET")
            return legacySession(exchange);
        if (exchange.headers.contains("last-event-id"))
            return httpResponse(405, {}, {});
        const QByteArray events = "retry: 300\n\n"
                                  + sseEvent("e-1",
                                             {{u"jsonrpc"_s, u"2.0"_s},
                                              {u"id"_s, u"server-1"_s},
                                              {u"method"_s, u"roots/list"_s}})
                                  + sseEvent("e-2",
                                             {{u"jsonrpc"_s, u"2.0"_s},
                                              {u"id"_s, 77},
                                              {u"method"_s, u"ping"_s}});
        sinceTheStreamEnded.start(); // written and closed right after this
        return httpResponse(200, "text/event-stream", events);
    });
    HttpClient connection(http);
    QVERIFY(connection.waitForTools());

    const auto requestsOf = [&](const QByteArray &method) {
        QList<HttpExchange> found;
        for (const HttpExchange &exchange : std::as_const(http.exchanges)) {
            if (exchange.method == method)
                found.append(exchange);
        }
        return found;
    };
    const auto answerTo = [&](const QJsonValue &id) {
        for (const HttpExchange &exchange : requestsOf("POST")) {
            if (!exchange.json().contains(u"method"_s) && exchange.json()[u"id"_s] == id)
                return exchange.json();
        }
        return QJsonObject();
    };
    QTRY_VERIFY_WITH_TIMEOUT(!answerTo(u"server-1"_s).isEmpty(), waitMs);
    const QJsonArray roots = answerTo(u"server-1"_s)[u"result"_s][u"roots"_s].toArray();
    QCOMPARE(roots.size(), 1);
    QCOMPARE(QUrl(roots[0][u"uri"_s].toString()).toLocalFile(), QDir::cleanPath(QDir::tempPath()));
    QTRY_VERIFY_WITH_TIMEOUT(!answerTo(77).isEmpty(), waitMs);
    QCOMPARE(answerTo(77)[u"result"_s].toObject(), QJsonObject());
    // Answers go in the session, like every request.
    QCOMPARE(requestsOf("POST").last().headers.value("mcp-session-id"), QByteArray("s-7"));

    QTRY_COMPARE_WITH_TIMEOUT(requestsOf("GET").size(), 2, waitMs);
    const qint64 waited = sinceTheStreamEnded.elapsed();
    const HttpExchange first = requestsOf("GET").first();
    QCOMPARE(first.headers.value("accept"), QByteArray("text/event-stream"));
    QCOMPARE(first.headers.value("mcp-session-id"), QByteArray("s-7"));
    QCOMPARE(first.headers.value("mcp-protocol-version"), QByteArray("2025-11-25"));
    QVERIFY(!first.headers.contains("last-event-id"));
    QCOMPARE(requestsOf("GET").last().headers.value("last-event-id"), QByteArray("e-2"));
    // Counted from before the stream was written, so load only lengthens it; the client's timer
    // is precise (5 % would spare a coarse one).
    QVERIFY2(waited >= 285, qPrintable(u"came back after %1 ms"_s.arg(waited)));

    // 405: the server has no such stream; the client does not ask again.
    QTest::qWait(1500);
    QCOMPARE(requestsOf("GET").size(), 2);
    QVERIFY(connection.failed->isEmpty());
}

// The server ends a call's stream before the answer (SEP-1699): the client resumes it with GET
// and Last-Event-ID after the `retry:` time, and the answer that comes there completes the call.
void tst_McpClient::httpAnswerStreamIsResumed()
{
    QElapsedTimer sinceTheStreamEnded;
    QList<HttpExchange> resumptions;
    QJsonValue callId;
    FakeMcpHttpServer http([&](const HttpExchange &exchange) -> QByteArray {
        if (exchange.method == "GET") {
            if (!exchange.headers.contains("last-event-id"))
                return httpResponse(405, {}, {}); // no stream of its own
            resumptions.append(exchange);
            const QJsonObject content{{u"type"_s, u"text"_s}, {u"text"_s, u"resumed"_s}};
            return httpResponse(200,
                                "text/event-stream",
                                sseEvent("c-3",
                                         {{u"jsonrpc"_s, u"2.0"_s},
                                          {u"id"_s, callId},
                                          {u"result"_s,
                                           QJsonObject{{u"content"_s, QJsonArray{content}}}}}));
        }
        if (exchange.rpcMethod() != u"tools/call")
            return legacySession(exchange);
        const QJsonObject request = exchange.json();
        callId = request[u"id"_s];
        const QJsonObject
                progress{{u"jsonrpc"_s, u"2.0"_s},
                         {u"method"_s, u"notifications/progress"_s},
                         {u"params"_s,
                          QJsonObject{{u"progressToken"_s,
                                       request[u"params"_s][u"_meta"_s][u"progressToken"_s]},
                                      {u"progress"_s, 1}}}};
        sinceTheStreamEnded.start();
        // Primed (an id, the retry time, no data), one notification, then the end.
        return httpResponse(200,
                            "text/event-stream",
                            "id: c-1\nretry: 200\ndata: \n\n" + sseEvent("c-2", progress));
    });
    HttpClient connection(http);
    QVERIFY(connection.waitForTools());
    const auto call = connection.call(u"t"_s);
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Completed);
    QCOMPARE(call->text(), u"resumed"_s);
    QCOMPARE(call->progress, QList<double>{1});
    QCOMPARE(resumptions.size(), 1);
    QCOMPARE(resumptions.first().headers.value("last-event-id"), QByteArray("c-2"));
    QCOMPARE(resumptions.first().headers.value("accept"), QByteArray("text/event-stream"));
    QCOMPARE(resumptions.first().headers.value("mcp-session-id"), QByteArray("s-7"));
    // Not before the retry time: counted from before the stream was written (as above).
    QVERIFY2(sinceTheStreamEnded.elapsed() >= 190,
             qPrintable(u"resumed after %1 ms"_s.arg(sinceTheStreamEnded.elapsed())));
}

// A server that cannot resume the stream it ended fails the call, saying so.
void tst_McpClient::httpResumptionRefusedFailsTheCall()
{
    FakeMcpHttpServer http([](const HttpExchange &exchange) -> QByteArray {
        if (exchange.method == "GET")
            return httpResponse(405, "text/plain", "Method Not Allowed");
        if (exchange.rpcMethod() != u"tools/call")
            return legacySession(exchange);
        return httpResponse(200, "text/event-stream", "id: c-1\nretry: 50\ndata: \n\n");
    });
    HttpClient connection(http);
    QVERIFY(connection.waitForTools());
    const auto call = connection.call(u"t"_s);
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Failed);
    QVERIFY2(call->outcome->errorMessage.contains(
                     u"the event stream ended without an answer, and resuming it failed: HTTP 405"_s),
             qPrintable(call->outcome->errorMessage));
}

void tst_McpClient::serverEverything()
{
    QString modules = qEnvironmentVariable("AGENTLOOP_MCP_NODE_MODULES");
    if (modules.isEmpty())
        modules = QStringLiteral(AGENTLOOP_MCP_DEFAULT_NODE_MODULES);
    const QString script = modules + u"/@modelcontextprotocol/server-everything/dist/index.js"_s;
    const QString node = QStandardPaths::findExecutable(u"node"_s);
    if (!QFileInfo::exists(script))
        QSKIP(qPrintable(u"server-everything is not installed in %1 (set "
                         "AGENTLOOP_MCP_NODE_MODULES or run npm ci in tests/mcp)"_s.arg(modules)));
    if (node.isEmpty())
        QSKIP("node is not on PATH");

    McpServerConfig config;
    config.name = u"everything"_s;
    config.command = node;
    config.args = {script, u"stdio"_s};
    QTemporaryDir workspace;
    auto *transport = new McpStdioTransport(config, workspace.path(), {});
    McpClient client(u"everything"_s, transport, workspace.path());
    client.setProbeTimeoutMs(2000);
    QSignalSpy listed(&client, &McpClient::toolsChanged);
    QSignalSpy failed(&client, &McpClient::failed);
    client.start();
    QTRY_VERIFY_WITH_TIMEOUT(listed.size() >= 1 || !failed.isEmpty(), 30000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    QCOMPARE(client.era(), McpClient::Era::Legacy);
    QVERIFY(mcpAcceptedLegacyVersions().contains(client.protocolVersion()));
    const QStringList names = toolNames(client);
    for (const QString &name : {u"echo"_s, u"get-tiny-image"_s, u"trigger-long-running-operation"_s})
        QVERIFY2(names.contains(name), qPrintable(names.join(u", "_s)));

    const auto echo = record(
            client.callTool(u"echo"_s, {{u"message"_s, u"hi 你好"_s}}, 30000, &client));
    QVERIFY(waitForOutcome(echo, 30000));
    QCOMPARE(echo->outcome->status, McpCallOutcome::Completed);
    QVERIFY2(echo->text().contains(u"hi 你好"_s), qPrintable(echo->text()));

    const auto image = record(client.callTool(u"get-tiny-image"_s, {}, 30000, &client));
    QVERIFY(waitForOutcome(image, 30000));
    QCOMPARE(image->outcome->status, McpCallOutcome::Completed);
    bool hasImage = false;
    for (const QJsonValue &part : image->outcome->result[u"content"_s].toArray()) {
        if (part[u"type"_s].toString() == u"image") {
            hasImage = true;
            QCOMPARE(part[u"mimeType"_s].toString(), u"image/png"_s);
            QVERIFY(!QByteArray::fromBase64(part[u"data"_s].toString().toLatin1()).isEmpty());
        }
    }
    QVERIFY(hasImage);

    const auto progress = record(client.callTool(u"trigger-long-running-operation"_s,
                                                 {{u"duration"_s, 1}, {u"steps"_s, 3}},
                                                 30000,
                                                 &client));
    QVERIFY(waitForOutcome(progress, 30000));
    QCOMPARE(progress->outcome->status, McpCallOutcome::Completed);
    QCOMPARE(progress->progress, (QList<double>{1, 2, 3}));

    McpCall *longCall = client.callTool(u"trigger-long-running-operation"_s,
                                        {{u"duration"_s, 60}, {u"steps"_s, 60}},
                                        90000,
                                        &client);
    const auto cancelled = record(longCall);
    QTRY_VERIFY_WITH_TIMEOUT(!cancelled->progress.isEmpty(), 30000);
    longCall->cancel();
    // The operation has most of its 60 s to go: only the cancel ends the call this soon.
    QVERIFY(waitForOutcome(cancelled));
    QCOMPARE(cancelled->outcome->status, McpCallOutcome::Cancelled);
    // The server is fine afterwards.
    const auto again = record(
            client.callTool(u"echo"_s, {{u"message"_s, u"again"_s}}, 30000, &client));
    QVERIFY(waitForOutcome(again, 30000));
    QVERIFY(again->text().contains(u"again"_s));
    QSignalSpy closed(transport, &McpTransport::closed);
    client.stop();
    QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, waitMs);
}

void tst_McpClient::httpRedirectStaysWithinTheOrigin()
{
    // Another origin (another port of 127.0.0.1) that would collect the server's token.
    FakeMcpHttpServer collector([](const HttpExchange &exchange) {
        const QByteArray answer = modernDiscovery(exchange);
        return answer.isEmpty() ? httpResponse(404, {}, {}) : answer;
    });
    const QByteArray elsewhere = collector.url().toUtf8();
    FakeMcpHttpServer http([&elsewhere](const HttpExchange &exchange) -> QByteArray {
        // The tool call goes round two hops: one on this server, which is followed, then one to
        // the collector.
        if (exchange.rpcMethod() == u"tools/call" && exchange.path == "/mcp")
            return httpResponse(307, {}, {}, {{"Location", "/mcp/moved"}});
        if (exchange.rpcMethod() == u"tools/call")
            return httpResponse(307, {}, {}, {{"Location", elsewhere}});
        const QByteArray answer = modernDiscovery(exchange);
        return answer.isEmpty() ? httpResponse(404, {}, {}) : answer;
    });
    HttpClient client(http, {{u"Authorization"_s, u"Bearer ghp_planted0token"_s}});
    QVERIFY(client.waitForTools());
    const auto call = client.call(u"t"_s);
    QVERIFY(waitForOutcome(call));
    QCOMPARE(call->outcome->status, McpCallOutcome::Failed);
    QVERIFY2(call->outcome->errorMessage.contains(
                     u"redirected the request to another address, "
                     u"http://127.0.0.1:%1"_s.arg(QUrl(collector.url()).port())),
             qPrintable(call->outcome->errorMessage));
    QVERIFY(collector.exchanges.isEmpty());
    // The hop within the origin was followed, with the headers.
    QCOMPARE(http.exchanges.last().path, QByteArray("/mcp/moved"));
    QCOMPARE(http.exchanges.last().headers.value("authorization"),
             QByteArray("Bearer ghp_planted0token"));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_McpClient)
#include "tst_mcpclient.moc"
