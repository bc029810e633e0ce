#include "agent/agentcontroller.h"
#include "agent/agentsession.h"
#include "agent/agentsetup.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "protocol/protocolcheck.h"
#include "storage/conversationstore.h"
#include "testmain.h"

#include <QDir>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

ToolCall shellCall(const QString &id)
{
    return ToolCall{id, u"shell"_s, uR"({"command":"echo hi"})"_s};
}

ShellToolOptions workspaceOptions()
{
    ShellToolOptions options;
    options.workspace = QDir::tempPath();
    return options;
}

QJsonArray oneTool()
{
    return QJsonArray{
            QJsonObject{{u"type"_s, u"function"_s},
                        {u"function"_s,
                         QJsonObject{{u"name"_s, u"shell"_s},
                                     {u"description"_s, u"Run a command."_s},
                                     {u"parameters"_s, QJsonObject{{u"type"_s, u"object"_s}}}}}}};
}

History historyOf(const QList<Message> &messages)
{
    History history;
    for (const Message &message : messages)
        history.append(message);
    return history;
}

// A copy: the list is often a temporary.
ProtocolCheck checkOf(const QList<ProtocolCheck> &checks, ProtocolCheck::Rule rule)
{
    for (const ProtocolCheck &check : checks) {
        if (check.rule == rule)
            return check;
    }
    qFatal("no check of rule %d", int(rule));
}

// The rules that failed, by name.
QStringList failedRules(const QList<ProtocolCheck> &checks)
{
    QStringList names;
    for (const ProtocolCheck &check : checks) {
        if (!check.ok)
            names << ProtocolCheck::ruleName(check.rule);
    }
    return names;
}

} // namespace

class TestProtocolCheck : public QObject
{
    Q_OBJECT

private slots:
    void validHistoryIsGreen();
    void missingResultBreaksPairing();
    void orphanResult();
    void duplicateResult();
    void toolBeforeAnyPrompt();
    void systemAfterTheStart();
    void lastMessageAnswersNothing();
    void duplicateCallIds();
    void toolSnapshot();
    void longHistoryPassesEveryRule();
    void controllerReportsEveryRequest();
    void controllerReportsTheUnsentRequest();
    void cancelledCallIsARepair();
    void reopenedConversationShowsTheRepairDiff();
};

void TestProtocolCheck::validHistoryIsGreen()
{
    const History history = historyOf(
            {Message::system(u"You are helpful."_s),
             Message::user(u"hi"_s),
             Message::assistant(std::nullopt, {shellCall(u"call_1"_s), shellCall(u"call_2"_s)}),
             Message::tool(u"call_1"_s, u"hi"_s),
             Message::tool(u"call_2"_s, u"hi"_s)});
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    QCOMPARE(checks.size(), 5);
    QCOMPARE(failedRules(checks), QStringList());
    QCOMPARE(checkOf(checks, ProtocolCheck::Pairing).detail,
             u"Each of the 2 tool call(s) is answered by a tool message right after its message."_s);
    QCOMPARE(checkOf(checks, ProtocolCheck::ToolSnapshot).detail,
             u"1 tool(s) frozen for this request and its calls: shell"_s);
    for (const ProtocolCheck &check : checks)
        QCOMPARE(check.messageIndex, -1);
}

void TestProtocolCheck::missingResultBreaksPairing()
{
    const History history = historyOf(
            {Message::user(u"hi"_s),
             Message::assistant(std::nullopt, {shellCall(u"call_1"_s), shellCall(u"call_2"_s)}),
             Message::tool(u"call_1"_s, u"hi"_s),
             Message::user(u"go on"_s)});
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    QCOMPARE(failedRules(checks), QStringList{u"pairing"_s});
    const ProtocolCheck pairing = checkOf(checks, ProtocolCheck::Pairing);
    QCOMPARE(pairing.messageIndex, 1);
    QCOMPARE(pairing.toolCallId, u"call_2"_s);
    QCOMPARE(pairing.detail,
             u"Message 2 (assistant) calls call_2, but no tool message after it answers that id."_s);
}

void TestProtocolCheck::orphanResult()
{
    const History history = historyOf({Message::user(u"hi"_s),
                                       Message::assistant(std::nullopt, {shellCall(u"call_1"_s)}),
                                       Message::tool(u"call_1"_s, u"hi"_s),
                                       Message::tool(u"call_9"_s, u"stray"_s)});
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    QCOMPARE(failedRules(checks), QStringList{u"no orphan results"_s});
    const ProtocolCheck orphans = checkOf(checks, ProtocolCheck::NoOrphans);
    QCOMPARE(orphans.messageIndex, 3);
    QCOMPARE(orphans.toolCallId, u"call_9"_s);
    QCOMPARE(orphans.detail, u"Message 4 (tool) answers call_9, which message 2 did not call."_s);

    const History afterUser = historyOf(
            {Message::user(u"hi"_s), Message::tool(u"call_1"_s, u"x"_s)});
    const ProtocolCheck after = checkOf(checkProtocol(afterUser, oneTool()),
                                        ProtocolCheck::NoOrphans);
    QVERIFY(!after.ok);
    QCOMPARE(after.detail,
             u"Message 2 (tool) answers call_1, but the message before it asked for no tool call."_s);
}

void TestProtocolCheck::duplicateResult()
{
    const History history = historyOf({Message::user(u"hi"_s),
                                       Message::assistant(std::nullopt, {shellCall(u"call_1"_s)}),
                                       Message::tool(u"call_1"_s, u"hi"_s),
                                       Message::tool(u"call_1"_s, u"again"_s)});
    const ProtocolCheck orphans = checkOf(checkProtocol(history, oneTool()),
                                          ProtocolCheck::NoOrphans);
    QVERIFY(!orphans.ok);
    QCOMPARE(orphans.messageIndex, 3);
    QCOMPARE(orphans.detail, u"Message 4 (tool) answers call_1 a second time."_s);
}

void TestProtocolCheck::toolBeforeAnyPrompt()
{
    const History history = historyOf({Message::system(u"s"_s), Message::tool(u"call_1"_s, u"x"_s)});
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    const ProtocolCheck roles = checkOf(checks, ProtocolCheck::RoleOrder);
    QVERIFY(!roles.ok);
    QCOMPARE(roles.messageIndex, 1);
    QCOMPARE(roles.detail, u"Message 2 is a tool message before any prompt."_s);
}

void TestProtocolCheck::systemAfterTheStart()
{
    const History history = historyOf(
            {Message::user(u"hi"_s), Message::system(u"late"_s), Message::user(u"again"_s)});
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    QCOMPARE(failedRules(checks), QStringList{u"roles in order"_s});
    QCOMPARE(checkOf(checks, ProtocolCheck::RoleOrder).detail,
             u"Message 2 is a system message after the conversation began."_s);
}

void TestProtocolCheck::lastMessageAnswersNothing()
{
    const History history = historyOf({Message::user(u"hi"_s), Message::assistant(u"done"_s)});
    const ProtocolCheck roles = checkOf(checkProtocol(history, oneTool()), ProtocolCheck::RoleOrder);
    QVERIFY(!roles.ok);
    QCOMPARE(roles.messageIndex, 1);
    QVERIFY2(roles.detail.startsWith(u"The last message (2, assistant)"_s),
             qPrintable(roles.detail));
}

void TestProtocolCheck::duplicateCallIds()
{
    const History history = historyOf(
            {Message::user(u"hi"_s),
             Message::assistant(std::nullopt, {shellCall(u"call_1"_s), shellCall(u"call_1"_s)}),
             Message::tool(u"call_1"_s, u"hi"_s)});
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    QCOMPARE(failedRules(checks), QStringList{u"unique call ids"_s});
    const ProtocolCheck unique = checkOf(checks, ProtocolCheck::UniqueIds);
    QCOMPARE(unique.messageIndex, 1);
    QCOMPARE(unique.toolCallId, u"call_1"_s);
    QCOMPARE(unique.detail, u"Message 2 (assistant) uses the call id call_1 twice."_s);
}

void TestProtocolCheck::toolSnapshot()
{
    const History history = historyOf({Message::user(u"hi"_s)});
    QJsonArray twice = oneTool();
    twice.append(oneTool().first());
    const ProtocolCheck doubled = checkOf(checkProtocol(history, twice),
                                          ProtocolCheck::ToolSnapshot);
    QVERIFY(!doubled.ok);
    QCOMPARE(doubled.detail, u"The snapshot names the tool shell twice."_s);

    QJsonArray nameless{QJsonObject{{u"type"_s, u"function"_s}, {u"function"_s, QJsonObject()}}};
    const ProtocolCheck noName = checkOf(checkProtocol(history, nameless),
                                         ProtocolCheck::ToolSnapshot);
    QVERIFY(!noName.ok);
    QCOMPARE(noName.detail, u"Tool 1 of the snapshot is not a function with a name."_s);

    const ProtocolCheck none = checkOf(checkProtocol(history, {}), ProtocolCheck::ToolSnapshot);
    QVERIFY(none.ok);
    QCOMPARE(none.detail, u"No tools are offered: the model can only answer in text."_s);
}

void TestProtocolCheck::longHistoryPassesEveryRule()
{
    History history;
    history.append(Message::system(u"s"_s));
    for (int i = 0; i < 250; ++i) {
        history.append(Message::user(u"prompt %1"_s.arg(i)));
        history.append(Message::assistant(std::nullopt, {shellCall(u"call_%1"_s.arg(i))}));
        history.append(Message::tool(u"call_%1"_s.arg(i), u"output"_s));
        history.append(Message::assistant(u"answer"_s));
    }
    history.append(Message::user(u"last"_s));
    QCOMPARE(history.size(), 1002);
    const QList<ProtocolCheck> checks = checkProtocol(history, oneTool());
    QCOMPARE(failedRules(checks), QStringList());
}

void TestProtocolCheck::controllerReportsEveryRequest()
{
    FakeChatServer server;
    server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"echo hi"})"_s),
                   FakeResponse::answer(u"done"_s)});
    AgentController controller;
    ProviderSettings provider;
    provider.baseUrl = server.baseUrl();
    provider.model = u"gpt-4.1"_s;
    controller.setProvider(provider);
    auto runner = std::make_shared<FakeCommandRunner>();
    installStandardTools(controller, runner, workspaceOptions());
    QObject::connect(&controller,
                     &AgentController::approvalRequested,
                     &controller,
                     [&controller](const ApprovalRequest &request) {
                         controller.resolveApproval(request.id, ApprovalAnswer::allowOnce());
                     });
    QList<ProtocolReport> reports;
    int sentBefore = 0;
    QObject::connect(&controller,
                     &AgentController::protocolChecked,
                     &controller,
                     [&](const ProtocolReport &report) {
                         reports.append(report);
                         sentBefore += int(server.requests().size());
                     });
    QSignalSpy finished(&controller, &AgentController::finished);
    controller.run(u"hi"_s);
    QVERIFY(finished.wait(10000));
    QCOMPARE(reports.size(), 2);
    QCOMPARE(server.requests().size(), 2);
    for (const ProtocolReport &report : std::as_const(reports)) {
        QVERIFY(report.sent);
        QVERIFY(report.ok());
        QVERIFY(report.repairs.isEmpty());
        const ProtocolCheck snapshot = checkOf(report.checks, ProtocolCheck::ToolSnapshot);
        QVERIFY2(snapshot.detail.contains(u"shell, "_s), qPrintable(snapshot.detail));
    }
    QCOMPARE(checkOf(reports.at(1).checks, ProtocolCheck::Pairing).detail,
             u"Each of the 1 tool call(s) is answered by a tool message right after its message."_s);
    // Each report came before its request reached the server.
    QCOMPARE(sentBefore, 0 + 1);
}

void TestProtocolCheck::controllerReportsTheUnsentRequest()
{
    FakeChatServer server;
    server.script({FakeResponse::answer(u"never"_s)});
    AgentController controller;
    ProviderSettings provider;
    provider.baseUrl = server.baseUrl();
    provider.model = u"gpt-4.1"_s;
    controller.setProvider(provider);
    controller.setHistory(historyOf(
            {Message::user(u"hi"_s),
             Message::assistant(std::nullopt, {shellCall(u"call_1"_s), shellCall(u"call_2"_s)}),
             Message::tool(u"call_1"_s, u"hi"_s)}));
    QList<ProtocolReport> reports;
    QObject::connect(&controller,
                     &AgentController::protocolChecked,
                     &controller,
                     [&](const ProtocolReport &report) { reports.append(report); });
    QSignalSpy failed(&controller, &AgentController::failed);
    controller.run(u"go on"_s);
    QCOMPARE(failed.size(), 1);
    QCOMPARE(reports.size(), 1);
    QVERIFY(!reports.first().sent);
    const ProtocolCheck *failure = reports.first().firstFailure();
    QVERIFY(failure);
    QCOMPARE(failure->rule, ProtocolCheck::Pairing);
    QCOMPARE(failure->toolCallId, u"call_2"_s);
    QTest::qWait(50);
    QVERIFY(server.requests().isEmpty());
}

void TestProtocolCheck::cancelledCallIsARepair()
{
    FakeChatServer server;
    server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"echo hi"})"_s),
                   FakeResponse::answer(u"done"_s)});
    AgentController controller;
    ProviderSettings provider;
    provider.baseUrl = server.baseUrl();
    provider.model = u"gpt-4.1"_s;
    controller.setProvider(provider);
    installStandardTools(controller, std::make_shared<FakeCommandRunner>(), workspaceOptions());
    // The user stops the run at the approval.
    QObject::connect(&controller, &AgentController::approvalRequested, &controller, [&controller] {
        QMetaObject::invokeMethod(
                &controller, [&controller] { controller.cancel(); }, Qt::QueuedConnection);
    });
    QSignalSpy failed(&controller, &AgentController::failed);
    controller.run(u"hi"_s);
    QVERIFY(failed.wait(10000));
    QList<ProtocolReport> reports;
    QObject::connect(&controller,
                     &AgentController::protocolChecked,
                     &controller,
                     [&](const ProtocolReport &report) { reports.append(report); });
    QSignalSpy finished(&controller, &AgentController::finished);
    controller.run(u"never mind"_s);
    QVERIFY(finished.wait(10000));
    QCOMPARE(reports.size(), 1);
    const ProtocolReport &report = reports.first();
    QCOMPARE(report.repairs.size(), 1);
    QCOMPARE(report.repairs.first().index, 3); // after the system prompt, the prompt, the call
    QCOMPARE(report.repairDiff,
             (QStringList{u"  [3] assistant tool_calls: call_1 shell"_s,
                          u"+ [4] tool call_1: cancelled: the user stopped the run before this "
                          u"call ran; it was not run."_s}));
    QVERIFY(report.ok());
}

void TestProtocolCheck::reopenedConversationShowsTheRepairDiff()
{
    QTemporaryDir directory;
    ConversationStore store(directory.filePath(u"conversations"_s));
    QString id;
    {
        ConversationRecorder recorder(store);
        ProviderSettings provider;
        provider.model = u"gpt-4.1"_s;
        QVERIFY(recorder.record(Message::user(u"hi"_s), provider));
        QVERIFY(recorder.record(Message::assistant(std::nullopt,
                                                   {shellCall(u"call_1"_s), shellCall(u"call_2"_s)}),
                                provider));
        QVERIFY(recorder.record(Message::tool(u"call_1"_s, u"hi"_s), provider));
        id = recorder.header().id; // the app stopped here: call_2 has no result
    }
    FakeChatServer server;
    server.script({FakeResponse::answer(u"done"_s)});
    AgentSession session(std::make_shared<FakeCommandRunner>(), store);
    SessionConfiguration configuration;
    configuration.provider.baseUrl = server.baseUrl();
    configuration.provider.model = u"gpt-4.1"_s;
    configuration.workspace = directory.path();
    session.configure(configuration);
    QVERIFY(session.openConversation(id));
    QList<ProtocolReport> reports;
    QObject::connect(&session.controller(),
                     &AgentController::protocolChecked,
                     &session,
                     [&](const ProtocolReport &report) { reports.append(report); });
    QSignalSpy finished(&session.controller(), &AgentController::finished);
    session.controller().run(u"go on"_s);
    QVERIFY(finished.wait(10000));
    QCOMPARE(reports.size(), 1);
    QVERIFY(reports.first().ok());
    QCOMPARE(reports.first().repairDiff,
             (QStringList{u"  [2] assistant tool_calls: call_1 shell, call_2 shell"_s,
                          u"+ [4] tool call_2: interrupted: the app stopped before this call "
                          u"finished; it may or may not have run."_s}));
    QVERIFY(reports.first().repairs.first().reason.contains(u"reopened"_s));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, TestProtocolCheck)
#include "tst_protocolcheck.moc"
