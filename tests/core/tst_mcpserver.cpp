// McpServer's life with a real process (agentloop-mcp-scripted): ready with its tools, a crash at
// start, crashes after it was ready (restarts, then it gives up), a missing variable (nothing
// runs), its standard error, the secret it must not inherit, a call that times out; and the
// session: a change of the servers' tools during a run applies from the next request.

#include "agent/agentsession.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "mcp/mcpmanager.h"
#include "mcp/mcpserver.h"
#include "mcp/mcptool.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

constexpr int readyTimeoutMs = Testing::hangGuardMs;

McpServerConfig scripted(const QString &name, const QStringList &arguments)
{
    McpServerConfig config;
    config.name = name;
    config.command = QStringLiteral(AGENTLOOP_MCP_SCRIPTED_PATH);
    config.args = arguments;
    return config;
}

QStringList statusNames(const QSignalSpy &spy)
{
    QStringList names;
    for (const QList<QVariant> &arguments : spy)
        names.append(mcpStatusName(arguments.first().value<McpServer::Status>()));
    return names;
}

QStringList toolNames(const QJsonArray &definitions)
{
    QStringList names;
    for (const QJsonValue &definition : definitions)
        names.append(definition[u"function"_s][u"name"_s].toString());
    return names;
}

} // namespace

class tst_McpServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void becomesReadyWithItsTools();
    void crashAtStartFailsWithItsExitCode();
    void crashesAfterReadyRestartThenStop();
    void missingVariableStartsNothing();
    void standardErrorIsKept();
    void secretIsNotInherited();
    void callThatNeverAnswersTimesOut();
    void managerNamesAndLimits();
    void toolChangeDuringARunAppliesFromTheNextRequest();
    void trustedReadOnlyToolRunsWithoutAsking();

private:
    SessionConfiguration sessionConfiguration(const FakeChatServer &chat,
                                              const QList<McpServerConfig> &servers) const
    {
        SessionConfiguration configuration;
        configuration.provider.baseUrl = chat.baseUrl();
        configuration.provider.apiKey = u"sk-mcp-session"_s;
        configuration.provider.model = u"m"_s;
        configuration.workspace = m_dir.path();
        configuration.mcpServers = servers;
        return configuration;
    }

    QTemporaryDir m_dir;
};

void tst_McpServer::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qRegisterMetaType<McpServer::Status>();
    QVERIFY(QFileInfo::exists(QStringLiteral(AGENTLOOP_MCP_SCRIPTED_PATH)));
}

void tst_McpServer::becomesReadyWithItsTools()
{
    McpServer server(scripted(u"s"_s, {u"--era"_s, u"legacy"_s, u"--tools"_s, u"2"_s}),
                     m_dir.path());
    QSignalSpy statuses(&server, &McpServer::statusChanged);
    QSignalSpy tools(&server, &McpServer::toolsChanged);
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
    QCOMPARE(statusNames(statuses), QStringList({u"starting"_s, u"ready"_s}));
    QVERIFY(!tools.isEmpty());
    QCOMPARE(server.era(), McpClient::Era::Legacy);
    QCOMPARE(server.protocolVersion(), u"2025-11-25"_s);
    QStringList names;
    for (const McpToolInfo &tool : server.tools())
        names.append(tool.name);
    QVERIFY2(names.contains(u"echo"_s) && names.contains(u"tool_2"_s), qPrintable(names.join(u' ')));
    QVERIFY(server.client());

    server.stop();
    QCOMPARE(server.status(), McpServer::Status::Stopped);
    QVERIFY(server.tools().isEmpty());
    QVERIFY(!server.client());
}

// A server that dies before it was ever ready is broken as configured: Failed, with its exit code
// and its last words, and not started again.
void tst_McpServer::crashAtStartFailsWithItsExitCode()
{
    McpServer server(scripted(u"broken"_s, {u"--crash-at-start"_s}), m_dir.path());
    QSignalSpy statuses(&server, &McpServer::statusChanged);
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Failed, readyTimeoutMs);
    QCOMPARE(server.lastExitCode(), 3);
    QVERIFY2(server.statusDetail().contains(u'3'), qPrintable(server.statusDetail()));
    QTRY_VERIFY(server.standardErrorTail().contains(u"crashing at start"_s));
    QTest::qWait(1500); // longer than the first backoff: no restart comes
    QCOMPARE(statusNames(statuses), QStringList({u"starting"_s, u"failed"_s}));
}

// Crashes of a server that was ready restart it after 1 s, then 2 s; the third within a minute
// stops it, saying so.
void tst_McpServer::crashesAfterReadyRestartThenStop()
{
    McpServer server(scripted(u"flaky"_s, {u"--crash-on-call"_s}), m_dir.path());
    QSignalSpy statuses(&server, &McpServer::statusChanged);
    server.start();
    QObject calls;
    for (int crash = 1; crash <= 3; ++crash) {
        QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
        QVERIFY(server.client());
        McpCall *call = server.client()->callTool(u"echo"_s,
                                                  {{u"message"_s, u"x"_s}},
                                                  10000,
                                                  &calls);
        QSignalSpy finished(call, &McpCall::finished);
        if (crash < 3) {
            QTRY_COMPARE_WITH_TIMEOUT(server.status(),
                                      McpServer::Status::Restarting,
                                      Testing::hangGuardMs);
            QVERIFY2(server.statusDetail().contains(u"restarting in %1 s"_s.arg(crash == 1 ? 1 : 2)),
                     qPrintable(server.statusDetail()));
        }
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Testing::hangGuardMs);
        QVERIFY(finished.first().first().value<McpCallOutcome>().status
                != McpCallOutcome::Completed);
    }
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Failed, Testing::hangGuardMs);
    QVERIFY2(server.statusDetail().startsWith(u"stopped after 3 crashes in a minute"_s),
             qPrintable(server.statusDetail()));
    QCOMPARE(server.lastExitCode(), 4);
    QCOMPARE(server.standardErrorTail().count(u"crashing on tools/call"_s), 3);
    QCOMPARE(statusNames(statuses),
             QStringList({u"starting"_s,
                          u"ready"_s,
                          u"restarting"_s,
                          u"starting"_s,
                          u"ready"_s,
                          u"restarting"_s,
                          u"starting"_s,
                          u"ready"_s,
                          u"failed"_s}));

    // Started by hand, it tries again from scratch.
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
}

void tst_McpServer::missingVariableStartsNothing()
{
    const QString log = m_dir.filePath(u"never.log"_s);
    McpServerConfig config = scripted(u"github"_s, {u"--log"_s, log});
    config.env = {{u"GITHUB_PERSONAL_ACCESS_TOKEN"_s, u"${AGENTLOOP_TEST_UNSET_TOKEN}"_s}};
    config.args.append(u"--page-size=${AGENTLOOP_TEST_UNSET_PAGE:-5}"_s);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(u"AGENTLOOP_TEST_UNSET_TOKEN"_s);
    environment.remove(u"AGENTLOOP_TEST_UNSET_PAGE"_s);
    McpServer server(config, m_dir.path());
    server.setEnvironment(environment);
    server.start();
    QCOMPARE(server.status(), McpServer::Status::Failed); // at once: before anything runs
    QVERIFY(!server.client());
    QCOMPARE(server.statusDetail(),
             u"MCP server “github”: AGENTLOOP_TEST_UNSET_TOKEN is not set (used in "
             u"env.GITHUB_PERSONAL_ACCESS_TOKEN)"_s);
    QTest::qWait(500);
    QVERIFY(!QFileInfo::exists(log)); // the process never read a line: it never ran

    // Set, it starts.
    environment.insert(u"AGENTLOOP_TEST_UNSET_TOKEN"_s, u"t"_s);
    server.setEnvironment(environment);
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
    QVERIFY(QFileInfo::exists(log));
}

void tst_McpServer::standardErrorIsKept()
{
    McpServer server(scripted(u"chatty"_s, {u"--stderr"_s, u"250"_s}), m_dir.path());
    QSignalSpy lines(&server, &McpServer::standardErrorLine);
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
    QTRY_COMPARE(lines.size(), 250);
    const QStringList tail = server.standardErrorTail();
    QCOMPARE(tail.size(), mcpStandardErrorLimit);
    QCOMPARE(tail.first(), u"stderr line 51"_s);
    QCOMPARE(tail.last(), u"stderr line 250"_s);
    // Kept when the server stops: it is what the user reads after a failure.
    server.stop();
    QCOMPARE(server.standardErrorTail().size(), mcpStandardErrorLimit);
}

// Servers never inherit the API key, whatever variable holds it (server-everything's get-env
// would hand it to the model).
void tst_McpServer::secretIsNotInherited()
{
    const QByteArray secret = "sk-mcp-server-test-9f1e2d";
    qputenv("AGENTLOOP_TEST_HOLDS_KEY", secret);
    McpServer server(scripted(u"env"_s, {u"--print-env"_s, u"AGENTLOOP_TEST_HOLDS_KEY"_s}),
                     m_dir.path());
    server.setSecretValues({QString::fromLatin1(secret)});
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
    McpToolInfo info;
    for (const McpToolInfo &tool : server.tools()) {
        if (tool.name == u"print_env")
            info = tool;
    }
    QCOMPARE(info.name, u"print_env"_s);
    const McpTool tool(&server, info, [this] { return m_dir.path(); });
    const Preparation prepared = tool.prepare(ToolCall{u"c1"_s, tool.name(), u"{}"_s});
    QVERIFY(std::holds_alternative<PreparedCall>(prepared));
    QObject parent;
    ToolRun *run = tool.invoke(std::get<PreparedCall>(prepared), &parent);
    QSignalSpy finished(run, &ToolRun::finished);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Testing::hangGuardMs);
    const ToolResult result = finished.first().first().value<ToolResult>();
    QVERIFY2(result.ok, qPrintable(result.content));
    QVERIFY2(!result.content.contains(QString::fromLatin1(secret)), qPrintable(result.content));
    QVERIFY2(result.content.contains(u"<unset>"_s), qPrintable(result.content));
    qunsetenv("AGENTLOOP_TEST_HOLDS_KEY");
}

void tst_McpServer::callThatNeverAnswersTimesOut()
{
    McpServerConfig config = scripted(u"silent"_s, {u"--never-answer"_s});
    config.timeoutMs = 1000;
    McpServer server(config, m_dir.path());
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.status(), McpServer::Status::Ready, readyTimeoutMs);
    McpToolInfo echo;
    echo.name = u"echo"_s;
    const McpTool tool(&server, echo, {});
    const Preparation prepared = tool.prepare(ToolCall{u"c1"_s, tool.name(), u"{}"_s});
    QObject parent;
    ToolRun *run = tool.invoke(std::get<PreparedCall>(prepared), &parent);
    QSignalSpy finished(run, &ToolRun::finished);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), readyTimeoutMs);
    const ToolResult result = finished.first().first().value<ToolResult>();
    QCOMPARE(result.content,
             u"mcp_timeout: no answer within 1 s; the call was cancelled on the "
             u"server"_s);
    QVERIFY(result.durationMs >= 900); // not before its time (a coarse timer is 5 % early at most)
    QCOMPARE(server.status(), McpServer::Status::Ready); // a slow tool is not a dead server
}

// Two servers whose tool names clash after sanitising, one with more than 100 tools.
void tst_McpServer::managerNamesAndLimits()
{
    McpManager manager;
    manager.setWorkspace(m_dir.path());
    manager.setServers({scripted(u"a.b"_s, {u"--tools"_s, u"120"_s}),
                        scripted(u"a_b"_s, {}),
                        scripted(u"a_b"_s, {u"--tools"_s, u"1"_s})}); // a duplicate name
    QCOMPARE(manager.servers().size(), 2);
    QVERIFY(manager.isStarting());
    QTRY_VERIFY_WITH_TIMEOUT(!manager.isStarting(), readyTimeoutMs);
    const QList<std::shared_ptr<const McpTool>> tools = manager.tools();
    QStringList names;
    for (const auto &tool : tools)
        names.append(tool->name());
    QCOMPARE(names.count(u"mcp__a_b__echo"_s), 1);
    QVERIFY2(names.contains(u"mcp__a_b__echo_2"_s), qPrintable(names.join(u' ')));
    QCOMPARE(names.size(), QSet<QString>(names.begin(), names.end()).size());
    int fromFirst = 0;
    for (const auto &tool : tools)
        fromFirst += tool->serverName() == u"a.b"_s ? 1 : 0;
    QCOMPARE(fromFirst, mcpToolsPerServerLimit);
    const QString warnings = manager.warnings(u"a.b"_s).join(u'\n');
    QVERIFY2(warnings.contains(u"only the first 100"_s), qPrintable(warnings));
    const QString second = manager.warnings(u"a_b"_s).join(u'\n');
    QVERIFY2(second.contains(u"mcp__a_b__echo_2"_s), qPrintable(second));
    QVERIFY2(second.contains(u"names must be unique"_s), qPrintable(second));

    // The same configuration again keeps the processes; one less stops it.
    McpServer *kept = manager.server(u"a_b"_s);
    McpClient *client = kept->client();
    manager.setServers({scripted(u"a_b"_s, {})});
    QCOMPARE(manager.servers(), QList<McpServer *>{kept});
    QCOMPARE(kept->client(), client);
    for (const auto &tool : manager.tools())
        QCOMPARE(tool->serverName(), u"a_b"_s);
}

// The tools of a request are those of its snapshot: the server stopped during the run (here while
// the first call waits for approval), its tool still answers the call of that request (the server
// is unavailable, and the model is told), and the next request no longer offers it.
void tst_McpServer::toolChangeDuringARunAppliesFromTheNextRequest()
{
    FakeChatServer chat;
    FakeCommandRunner runner;
    runner.enqueue(0, u"a.txt\n"_s);
    AgentSession session(std::make_shared<FakeCommandRunner>(runner),
                         ConversationStore(m_dir.filePath(u"conversations"_s)));
    session.recorder().setSavesNewConversations(false);
    session.configure(sessionConfiguration(chat, {scripted(u"s"_s, {})}));
    QTRY_VERIFY_WITH_TIMEOUT(session.controller().tools().names().contains(u"mcp__s__echo"_s),
                             readyTimeoutMs);

    int approvals = 0;
    AgentController &controller = session.controller();
    connect(&controller,
            &AgentController::approvalRequested,
            &controller,
            [&](const ApprovalRequest &request) {
                if (approvals++ == 0)
                    session.mcp().server(u"s"_s)->stop();
                QTimer::singleShot(0, &controller, [&controller, id = request.id] {
                    controller.resolveApproval(id, ApprovalAnswer::allowOnce());
                });
            });
    chat.script(
            {FakeResponse::toolCalls({{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s},
                                      {u"call_2"_s, u"mcp__s__echo"_s, uR"({"message":"hi"})"_s}}),
             FakeResponse::answer(u"Done."_s)});
    QSignalSpy finished(&controller, &AgentController::finished);
    QVERIFY(controller.run(u"go"_s));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Testing::hangGuardMs);

    const QList<RecordedRequest> requests = chat.requests();
    QCOMPARE(requests.size(), 2);
    QVERIFY(toolNames(requests.at(0).json().value(u"tools"_s).toArray()).contains(u"mcp__s__echo"_s));
    QVERIFY(!toolNames(requests.at(1).json().value(u"tools"_s).toArray())
                     .contains(u"mcp__s__echo"_s));
    const QList<QJsonObject> toolMessages = requests.at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 2);
    QCOMPARE(toolMessages.at(1).value(u"content"_s).toString(),
             u"mcp_unavailable: server s is stopped"_s);
    // In the audit trail like a built-in tool: asked, allowed, and what came of it.
    QCOMPARE(session.auditTrail().size(), 2);
    const QJsonObject entry = session.auditTrail().at(1);
    QCOMPARE(entry.value(u"tool"_s).toString(), u"mcp__s__echo"_s);
    QCOMPARE(entry.value(u"asked"_s).toBool(), true);
    QCOMPARE(entry.value(u"error_code"_s).toString(), u"mcp_unavailable"_s);
}

// A read-only tool of a server the user trusts runs without asking, like a built-in read tool;
// its answer is what the model reads next.
void tst_McpServer::trustedReadOnlyToolRunsWithoutAsking()
{
    FakeChatServer chat;
    AgentSession session(std::make_shared<FakeCommandRunner>(),
                         ConversationStore(m_dir.filePath(u"conversations"_s)));
    session.recorder().setSavesNewConversations(false);
    McpServerConfig trusted = scripted(u"t"_s, {u"--era"_s, u"modern"_s});
    trusted.trusted = true;
    session.configure(sessionConfiguration(chat, {trusted}));
    QTRY_VERIFY_WITH_TIMEOUT(session.controller().tools().names().contains(u"mcp__t__echo"_s),
                             readyTimeoutMs);
    QSignalSpy asked(&session.controller(), &AgentController::approvalRequested);
    chat.script({FakeResponse::toolCall(u"call_1"_s, u"mcp__t__echo"_s, uR"({"message":"你好"})"_s),
                 FakeResponse::answer(u"Done."_s)});
    QSignalSpy finished(&session.controller(), &AgentController::finished);
    QVERIFY(session.controller().run(u"go"_s));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Testing::hangGuardMs);
    QCOMPARE(asked.size(), 0);
    const QList<QJsonObject> toolMessages = chat.requests().at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 1);
    QCOMPARE(toolMessages.first().value(u"content"_s).toString(), u"你好"_s);
    const QJsonObject entry = session.auditTrail().first();
    QCOMPARE(entry.value(u"tool"_s).toString(), u"mcp__t__echo"_s);
    QCOMPARE(entry.value(u"decision"_s).toString(), u"allow"_s);
    QCOMPARE(entry.value(u"decided_by"_s).toString(), u"default"_s);
    QCOMPARE(entry.value(u"asked"_s).toBool(), false);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_McpServer)
#include "tst_mcpserver.moc"
