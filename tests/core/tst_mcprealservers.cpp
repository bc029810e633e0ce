// The MCP client against real servers from npm (tests/mcp/package.json): server-everything and
// server-filesystem over stdio, through McpServer, McpClient and McpTool as the app runs them.
// What the model would read is the ToolResult; what the server received is checked in a
// recording of the stdio traffic (a transparent `tee` on either side of the server). What the
// client itself makes of server-everything's answers (echo, an image's content, progress, a
// cancelled call's outcome) is tst_mcpclient's.
// Skips without Node.js or the packages (tools/install-deps.sh installs them), and under Wine.

#include "mcptestservers.h"
#include "processreaper.h"
#include "testmain.h"
#include "testpaths.h"

#include "mcp/mcpclient.h"
#include "mcp/mcpserver.h"
#include "mcp/mcptool.h"
#include "mcp/mcptransport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <variant>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

constexpr int startTimeoutMs = 60000; // node starting a server on a loaded machine (or ASan's)
constexpr int callTimeoutMs = 30000;

const QString everythingPackage = u"@modelcontextprotocol/server-everything"_s;
const QString filesystemPackage = u"@modelcontextprotocol/server-filesystem"_s;

// The API key as the app would hold it; it is in this process's environment, as a user's
// OPENAI_API_KEY would be, and copied into another variable.
const QString apiKey = u"sk-test-mcp-real-servers-4f9a1c"_s;

// Every JSON-RPC message in a recording, in order.
QList<QJsonObject> recordedMessages(const QString &path)
{
    QList<QJsonObject> messages;
    const QList<QByteArray> lines = readFile(path).split('\n');
    for (const QByteArray &line : lines) {
        const QJsonObject message = QJsonDocument::fromJson(line).object();
        if (!message.isEmpty())
            messages.append(message);
    }
    return messages;
}

QList<QJsonObject> withMethod(const QList<QJsonObject> &messages, const QString &method)
{
    QList<QJsonObject> found;
    for (const QJsonObject &message : messages) {
        if (message.value(u"method"_s).toString() == method)
            found.append(message);
    }
    return found;
}

// The answer (result or error) to the request with this id, or an empty object.
QJsonObject answerTo(const QList<QJsonObject> &messages, const QJsonValue &id)
{
    for (const QJsonObject &message : messages) {
        if (!message.contains(u"method"_s) && message.value(u"id"_s) == id)
            return message;
    }
    return {};
}

// The last tools/call of this tool the server received.
QJsonObject lastCallOf(const QList<QJsonObject> &received, const QString &tool)
{
    const QList<QJsonObject> calls = withMethod(received, u"tools/call"_s);
    for (auto it = calls.crbegin(); it != calls.crend(); ++it) {
        if (it->value(u"params"_s)[u"name"_s].toString() == tool)
            return *it;
    }
    return {};
}

} // namespace

class tst_McpRealServers : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void everythingFallsBackToLegacy();
    void everythingListsItsTools();
    void toolsListChangedIsFollowed();
    void imageIsSavedToAFile();
    void toolErrorIsAFailureTheModelReads();
    void cancellationReachesTheServer();
    void progressReachesTheRun();
    void declinedElicitationReachesTheServer();
    void serverDoesNotSeeTheApiKey();

    void filesystemReadsInsideTheWorkspace();
    void filesystemRefusesAPathOutside();

private:
    // Starts one tool of the server as the agent does (prepare, invoke): its run, or the result
    // that says why it did not start.
    std::variant<std::unique_ptr<ToolRun>, ToolResult> startTool(McpServer *server,
                                                                 const QString &tool,
                                                                 const QJsonObject &arguments,
                                                                 const QString &callId);
    // Runs one tool of the server to its end and returns what the model reads.
    ToolResult runTool(McpServer *server,
                       const QString &tool,
                       const QJsonObject &arguments,
                       const QString &callId);
    std::shared_ptr<McpTool> toolOf(McpServer *server, const QString &tool);
    // A server that records what it receives and sends, both one JSON message per line.
    McpServerConfig recorded(McpServerConfig config) const;
    std::unique_ptr<McpServer> started(const McpServerConfig &config);
    // Stops the server and checks that its process is gone.
    void stopAndCheck(McpServer *server);

    QTemporaryDir m_dir;
    QString m_workspace;
    QString m_outputs;
    QString m_received; // what server-everything read on stdin
    QString m_sent;     // what it wrote on stdout
    McpTestServer m_everythingServer;
    McpTestServer m_filesystemServer;
    std::unique_ptr<McpServer> m_everything;
    std::unique_ptr<McpServer> m_filesystem;
    QList<McpElicitation> m_elicitations;
};

McpServerConfig tst_McpRealServers::recorded(McpServerConfig config) const
{
    const QString shell = QStandardPaths::findExecutable(u"sh"_s);
    config.args.prepend(config.command);
    config.args.prepend(uR"(tee -a "$MCP_RECEIVED" | "$0" "$@" | tee -a "$MCP_SENT")"_s);
    config.args.prepend(u"-c"_s);
    config.command = shell;
    config.env.insert(u"MCP_RECEIVED"_s, m_received);
    config.env.insert(u"MCP_SENT"_s, m_sent);
    return config;
}

std::unique_ptr<McpServer> tst_McpRealServers::started(const McpServerConfig &config)
{
    auto server = std::make_unique<McpServer>(config, m_workspace);
    server->setSecretValues({apiKey});
    server->start();
    return server;
}

void tst_McpRealServers::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_workspace = m_dir.filePath(u"workspace"_s);
    m_outputs = m_dir.filePath(u"outputs"_s);
    QVERIFY(QDir().mkpath(m_workspace));
    m_received = m_dir.filePath(u"everything-received.jsonl"_s);
    m_sent = m_dir.filePath(u"everything-sent.jsonl"_s);

    m_everythingServer = mcpTestServer(u"everything"_s, everythingPackage, {u"stdio"_s});
    m_filesystemServer = mcpTestServer(u"filesystem"_s, filesystemPackage);
    MCP_REQUIRE_TEST_SERVER(m_everythingServer.problem);
    MCP_REQUIRE_TEST_SERVER(m_filesystemServer.problem);

    // What a server must not inherit, and a variable it must (to tell a working get-env apart).
    qputenv("OPENAI_API_KEY", apiKey.toUtf8());
    qputenv("AGENTLOOP_TEST_KEY_COPY", u"Bearer %1"_s.arg(apiKey).toUtf8());
    qputenv("AGENTLOOP_TEST_VISIBLE", "visible-to-servers");

    m_everything = started(recorded(m_everythingServer.config));
    connect(m_everything.get(),
            &McpServer::elicitationRequested,
            this,
            [this](const McpElicitation &request) {
                m_elicitations.append(request);
                m_everything->answerElicitation(request.id, u"decline"_s);
            });
    QTRY_COMPARE_WITH_TIMEOUT(m_everything->status(), McpServer::Status::Ready, startTimeoutMs);

    // No directory on its command line: server-filesystem takes the client's roots, which are
    // the workspace, once it is initialised.
    m_filesystem = started(m_filesystemServer.config);
    QTRY_COMPARE_WITH_TIMEOUT(m_filesystem->status(), McpServer::Status::Ready, startTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_filesystem->standardErrorTail().join(u'\n').contains(
                                     u"Updated allowed directories from MCP roots"_s),
                             callTimeoutMs);
}

void tst_McpRealServers::cleanupTestCase()
{
    for (std::unique_ptr<McpServer> *server : {&m_everything, &m_filesystem}) {
        if (*server && (*server)->client())
            stopAndCheck(server->get());
        server->reset();
    }
}

void tst_McpRealServers::stopAndCheck(McpServer *server)
{
    QVERIFY(server->client());
    const auto *transport = qobject_cast<McpStdioTransport *>(server->client()->transport());
    QVERIFY(transport);
    const qint64 pid = transport->processId();
    QVERIFY(pid > 0);
    server->stop();
    QCOMPARE(server->status(), McpServer::Status::Stopped);
    QTRY_VERIFY_WITH_TIMEOUT(processIsGone(pid), Testing::hangGuardMs);
}

std::variant<std::unique_ptr<ToolRun>, ToolResult> tst_McpRealServers::startTool(
        McpServer *server, const QString &tool, const QJsonObject &arguments, const QString &callId)
{
    const std::shared_ptr<McpTool> mcpTool = toolOf(server, tool);
    if (!mcpTool)
        return ToolResult::failure(u"test"_s, u"the server lists no tool %1"_s.arg(tool));
    const ToolCall call{callId,
                        mcpTool->name(),
                        QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact))};
    const Preparation preparation = mcpTool->prepare(call);
    if (const auto *refused = std::get_if<ToolResult>(&preparation))
        return *refused;
    return std::unique_ptr<ToolRun>(mcpTool->invoke(std::get<PreparedCall>(preparation), nullptr));
}

ToolResult tst_McpRealServers::runTool(McpServer *server,
                                       const QString &tool,
                                       const QJsonObject &arguments,
                                       const QString &callId)
{
    auto started = startTool(server, tool, arguments, callId);
    if (const auto *refused = std::get_if<ToolResult>(&started))
        return *refused;
    const std::unique_ptr<ToolRun> run = std::move(std::get<std::unique_ptr<ToolRun>>(started));
    QSignalSpy finished(run.get(), &ToolRun::finished);
    if (!finished.wait(callTimeoutMs))
        return ToolResult::failure(u"test"_s, u"the call did not finish"_s);
    return finished.first().first().value<ToolResult>();
}

std::shared_ptr<McpTool> tst_McpRealServers::toolOf(McpServer *server, const QString &tool)
{
    const QList<McpToolInfo> tools = server->tools();
    for (const McpToolInfo &info : tools) {
        if (info.name == tool)
            return std::make_shared<McpTool>(server, info, [this] { return m_outputs; });
    }
    return nullptr;
}

void tst_McpRealServers::everythingFallsBackToLegacy()
{
    QCOMPARE(m_everything->era(), McpClient::Era::Legacy);
    QCOMPARE(m_everything->protocolVersion(), u"2025-11-25"_s);

    // It was asked in the modern way first, refused (method not found), and then initialised.
    const QList<QJsonObject> received = recordedMessages(m_received);
    QVERIFY(received.size() >= 3);
    const QJsonObject discover = received.at(0);
    QCOMPARE(discover.value(u"method"_s).toString(), u"server/discover"_s);
    QCOMPARE(discover[u"params"_s][u"_meta"_s][u"io.modelcontextprotocol/protocolVersion"_s]
                     .toString(),
             u"2026-07-28"_s);
    const QJsonObject refusal = answerTo(recordedMessages(m_sent), discover.value(u"id"_s));
    QCOMPARE(refusal[u"error"_s][u"code"_s].toInt(), -32601);
    const QJsonObject initialize = received.at(1);
    QCOMPARE(initialize.value(u"method"_s).toString(), u"initialize"_s);
    QCOMPARE(initialize[u"params"_s][u"protocolVersion"_s].toString(), u"2025-11-25"_s);
    QVERIFY(initialize[u"params"_s][u"capabilities"_s].toObject().contains(u"elicitation"_s));
    QCOMPARE(received.at(2).value(u"method"_s).toString(), u"notifications/initialized"_s);
}

void tst_McpRealServers::everythingListsItsTools()
{
    QStringList names;
    for (const McpToolInfo &tool : m_everything->tools())
        names.append(tool.name);
    for (const QString &expected : {u"echo"_s,
                                    u"get-sum"_s,
                                    u"get-env"_s,
                                    u"get-tiny-image"_s,
                                    u"trigger-long-running-operation"_s,
                                    u"gzip-file-as-resource"_s}) {
        QVERIFY2(names.contains(expected), qPrintable(names.join(u", "_s)));
    }
    const std::shared_ptr<McpTool> echo = toolOf(m_everything.get(), u"echo"_s);
    QVERIFY(echo);
    QCOMPARE(echo->name(), u"mcp__everything__echo"_s);
    QVERIFY(echo->declaredReadOnly());
    // Not trusted: a read-only tool still asks.
    QCOMPARE(echo->sideEffect(), SideEffect::Execute);
}

void tst_McpRealServers::toolsListChangedIsFollowed()
{
    // server-everything adds the tools that depend on the client's capabilities once it is
    // initialised, and says so with list_changed, before it answers the first tools/list.
    const QList<QJsonObject> sent = recordedMessages(m_sent);
    QVERIFY(!withMethod(sent, u"notifications/tools/list_changed"_s).isEmpty());
    // The client listed again after the notification.
    QTRY_VERIFY_WITH_TIMEOUT(withMethod(recordedMessages(m_received), u"tools/list"_s).size() >= 2,
                             callTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(toolOf(m_everything.get(), u"trigger-elicitation-request"_s),
                             callTimeoutMs);
    QVERIFY(toolOf(m_everything.get(), u"get-roots-list"_s));
}

void tst_McpRealServers::imageIsSavedToAFile()
{
    const ToolResult result = runTool(m_everything.get(), u"get-tiny-image"_s, {}, u"call_image"_s);
    QVERIFY2(result.ok, qPrintable(result.content));
    QVERIFY(result.content.startsWith(u"Here's the image you requested:"_s));
    QVERIFY(result.content.endsWith(u"The image above is the MCP logo."_s));
    const QRegularExpression saved(u"\\[image saved: (.+) \\(image/png, (\\d+) bytes\\)\\]"_s);
    const QRegularExpressionMatch match = saved.match(result.content);
    QVERIFY2(match.hasMatch(), qPrintable(result.content));
    const QString path = QDir::fromNativeSeparators(match.captured(1));
    QVERIFY(path.startsWith(m_outputs));
    const QByteArray bytes = readFile(path);
    QCOMPARE(bytes.size(), match.captured(2).toLongLong());
    QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
}

void tst_McpRealServers::toolErrorIsAFailureTheModelReads()
{
    // The tool throws on a URL scheme it does not fetch: the SDK answers isError with the message.
    const ToolResult result = runTool(m_everything.get(),
                                      u"gzip-file-as-resource"_s,
                                      {{u"data"_s, u"file:///etc/hostname"_s}},
                                      u"call_error"_s);
    QVERIFY(!result.ok);
    QCOMPARE(result.errorCode, u"mcp_error"_s);
    QVERIFY2(result.content.startsWith(u"mcp_error: "_s), qPrintable(result.content));
    QVERIFY2(result.content.contains(u"Unsupported URL protocol"_s), qPrintable(result.content));
    // A tool's failure, not the connection's: the server goes on.
    QCOMPARE(m_everything->status(), McpServer::Status::Ready);
}

void tst_McpRealServers::cancellationReachesTheServer()
{
    auto started = startTool(m_everything.get(),
                             u"trigger-long-running-operation"_s,
                             {{u"duration"_s, 4}, {u"steps"_s, 8}},
                             u"call_long"_s);
    QVERIFY(std::holds_alternative<std::unique_ptr<ToolRun>>(started));
    const std::unique_ptr<ToolRun> run = std::move(std::get<std::unique_ptr<ToolRun>>(started));
    QSignalSpy finished(run.get(), &ToolRun::finished);
    const auto requestSent = [&] {
        return lastCallOf(recordedMessages(m_received),
                          u"trigger-long-running-operation"_s)[u"params"_s][u"arguments"_s]
                                                              [u"duration"_s]
                                                                      .toInt()
               == 4;
    };
    QTRY_VERIFY_WITH_TIMEOUT(requestSent(), callTimeoutMs);
    const QJsonValue id = lastCallOf(recordedMessages(m_received),
                                     u"trigger-long-running-operation"_s)[u"id"_s];

    run->cancel(); // the user's Stop
    QVERIFY(finished.wait(callTimeoutMs));
    const auto result = finished.first().first().value<ToolResult>();
    QVERIFY(!result.ok);
    QCOMPARE(result.errorCode, u"cancelled"_s);
    // It ended before the operation's 4 s were up: the server had not answered.
    QVERIFY(answerTo(recordedMessages(m_sent), id).isEmpty());

    // The server was told which request to cancel, and never answered it.
    const auto cancelledSent = [&] {
        const QList<QJsonObject> cancelled = withMethod(recordedMessages(m_received),
                                                        u"notifications/cancelled"_s);
        return std::any_of(cancelled.cbegin(), cancelled.cend(), [&](const QJsonObject &message) {
            return message[u"params"_s][u"requestId"_s] == id;
        });
    };
    QTRY_VERIFY_WITH_TIMEOUT(cancelledSent(), callTimeoutMs);
    QTest::qWait(4500); // past the end the operation would have had
    QVERIFY(answerTo(recordedMessages(m_sent), id).isEmpty());
    // And it still serves.
    const ToolResult echo = runTool(m_everything.get(),
                                    u"echo"_s,
                                    {{u"message"_s, u"after"_s}},
                                    u"call_after"_s);
    QCOMPARE(echo.content, u"Echo: after"_s);
}

// server-everything's long operation reports each step for the call's progressToken: the run
// hands every report on, in order, before its result.
void tst_McpRealServers::progressReachesTheRun()
{
    auto started = startTool(m_everything.get(),
                             u"trigger-long-running-operation"_s,
                             {{u"duration"_s, 1}, {u"steps"_s, 4}},
                             u"call_steps"_s);
    QVERIFY(std::holds_alternative<std::unique_ptr<ToolRun>>(started));
    const std::unique_ptr<ToolRun> run = std::move(std::get<std::unique_ptr<ToolRun>>(started));
    QList<ToolProgress> reports;
    connect(run.get(), &ToolRun::progressed, this, [&](const ToolProgress &progress) {
        reports.append(progress);
    });
    QSignalSpy finished(run.get(), &ToolRun::finished);
    QVERIFY(finished.wait(callTimeoutMs));
    QVERIFY(finished.first().first().value<ToolResult>().ok);
    QCOMPARE(reports.size(), 4);
    for (int step = 1; step <= 4; ++step) {
        QCOMPARE(reports[step - 1].progress, double(step));
        QCOMPARE(reports[step - 1].total, 4.0);
    }
    QCOMPARE(reports.last().text(), u"4 of 4"_s);
}

void tst_McpRealServers::declinedElicitationReachesTheServer()
{
    QTRY_VERIFY_WITH_TIMEOUT(toolOf(m_everything.get(), u"trigger-elicitation-request"_s),
                             callTimeoutMs);
    m_elicitations.clear();
    const ToolResult result = runTool(m_everything.get(),
                                      u"trigger-elicitation-request"_s,
                                      {},
                                      u"call_elicit"_s);
    QVERIFY2(result.ok, qPrintable(result.content));
    QCOMPARE(m_elicitations.size(), 1);
    QCOMPARE(m_elicitations.first().message, u"Please provide inputs for the following fields:"_s);
    QVERIFY(m_elicitations.first().requestedSchema[u"properties"_s].toObject().contains(u"name"_s));
    QVERIFY2(result.content.contains(u"User declined to provide the requested information."_s),
             qPrintable(result.content));

    // The server's elicitation/create got {"action": "decline"}.
    const QList<QJsonObject> asked = withMethod(recordedMessages(m_sent), u"elicitation/create"_s);
    QVERIFY(!asked.isEmpty());
    // (tee passes a line on before it writes it to its file)
    QTRY_COMPARE_WITH_TIMEOUT(answerTo(recordedMessages(m_received),
                                       asked.last()[u"id"_s])[u"result"_s][u"action"_s]
                                      .toString(),
                              u"decline"_s,
                              callTimeoutMs);
}

void tst_McpRealServers::serverDoesNotSeeTheApiKey()
{
    const ToolResult result = runTool(m_everything.get(), u"get-env"_s, {}, u"call_env"_s);
    QVERIFY2(result.ok, qPrintable(result.content));
    QVERIFY2(result.content.contains(u"visible-to-servers"_s), qPrintable(result.content));
    QVERIFY(!result.content.contains(u"OPENAI_API_KEY"_s));
    QVERIFY(!result.content.contains(u"AGENTLOOP_TEST_KEY_COPY"_s));
    QVERIFY(!result.content.contains(apiKey));
}

void tst_McpRealServers::filesystemReadsInsideTheWorkspace()
{
    QVERIFY(writeFile(m_workspace + u"/notes.txt"_s, "inside the workspace\n"));
    const ToolResult result = runTool(m_filesystem.get(),
                                      u"read_text_file"_s,
                                      {{u"path"_s, m_workspace + u"/notes.txt"_s}},
                                      u"call_read"_s);
    QVERIFY2(result.ok, qPrintable(result.content));
    QCOMPARE(result.content.trimmed(), u"inside the workspace"_s);
}

void tst_McpRealServers::filesystemRefusesAPathOutside()
{
    const QString outside = m_dir.filePath(u"outside.txt"_s);
    QVERIFY(writeFile(outside, "secret outside the workspace\n"));
    const ToolResult result = runTool(m_filesystem.get(),
                                      u"read_text_file"_s,
                                      {{u"path"_s, outside}},
                                      u"call_outside"_s);
    QVERIFY(!result.ok);
    QCOMPARE(result.errorCode, u"mcp_error"_s);
    QVERIFY2(result.content.startsWith(u"mcp_error: "_s), qPrintable(result.content));
    QVERIFY2(result.content.contains(u"Access denied"_s), qPrintable(result.content));
    QVERIFY(!result.content.contains(u"secret outside"_s));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_McpRealServers)
#include "tst_mcprealservers.moc"
