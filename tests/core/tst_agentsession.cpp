// AgentSession: the loop with its tools and its recorder, as the app and the CLI run it. What a
// configuration says reaches the provider and the commands; a configuration given during a run
// waits for its end; every message of a run is on disk; outputs follow the conversation.

#include "agent/agentsession.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "permissions/workspacerules.h"
#include "plantedfile.h"
#include "provider/demoprovider.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

constexpr int endTimeoutMs = Testing::hangGuardMs;

} // namespace

class tst_AgentSession : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void configurationReachesTheRequestAndTheCommand();
    void everyMessageOfARunIsSaved();
    void configurationDuringARunWaitsForItsEnd();
    void commandOutputsFollowTheConversation();
    void nothingIsSavedWhenNewConversationsAreOff();
    void openAndNewConversationOnlyWhileIdle();
    void aConversationReadInTheBackgroundContinuesAsOpened();
    void demoModeAnswersWithoutTheNetwork();
    void theAuditTrailHasOneLinePerCall();
    void alwaysRulesSurviveARestart();
    void aWorkspaceFileChangedOutsideAllowsNothing();
    void aBrokenWorkspaceFileDeniesEveryCall();
    void aRulePlantedDuringARunStaysUntrusted();
    void aRulesFileThatIsNotAFileOfTheWorkspaceDeniesEveryCall_data();
    void aRulesFileThatIsNotAFileOfTheWorkspaceDeniesEveryCall();
    void noToolShowsAKeyTheAppKnows();

private:
    SessionConfiguration configuration(const QString &model = u"model-one"_s) const;
    void allowEveryCall(AgentSession &session);
    bool runToTheEnd(AgentSession &session, const QString &prompt);
    // "list the files": the model runs `ls`, then answers "Done.".
    bool runOneCommand(AgentSession &session);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeChatServer> m_server;
    FakeCommandRunner m_runner;
};

void tst_AgentSession::initTestCase()
{
    // The app's rules file and the trusted-rules record go to a test location, emptied per test.
    QStandardPaths::setTestModeEnabled(true);
    qRegisterMetaType<Error>();
    qRegisterMetaType<SessionConfiguration>();
}

void tst_AgentSession::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QVERIFY(QDir(m_dir->path()).mkpath(u"workspace"_s));
    m_server = std::make_unique<FakeChatServer>();
    m_runner = FakeCommandRunner();
    QFile::remove(appRuleFilePath());
    QFile::remove(trustedRuleFilePath());
}

SessionConfiguration tst_AgentSession::configuration(const QString &model) const
{
    SessionConfiguration configuration;
    configuration.provider.baseUrl = m_server->baseUrl();
    configuration.provider.apiKey = u"sk-session-test"_s;
    configuration.provider.model = model;
    configuration.maxTurns = 7;
    configuration.workspace = m_dir->filePath(u"workspace"_s);
    return configuration;
}

void tst_AgentSession::allowEveryCall(AgentSession &session)
{
    AgentController &controller = session.controller();
    connect(&controller,
            &AgentController::approvalRequested,
            &controller,
            [&controller](const ApprovalRequest &request) {
                QTimer::singleShot(0, &controller, [&controller, id = request.id] {
                    controller.resolveApproval(id, ApprovalAnswer::allowOnce());
                });
            });
}

bool tst_AgentSession::runToTheEnd(AgentSession &session, const QString &prompt)
{
    QSignalSpy finished(&session.controller(), &AgentController::finished);
    QSignalSpy failed(&session.controller(), &AgentController::failed);
    if (!session.controller().run(prompt))
        return false;
    return QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, endTimeoutMs)
           && !finished.isEmpty();
}

bool tst_AgentSession::runOneCommand(AgentSession &session)
{
    m_server->script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s),
                      FakeResponse::answer(u"Done."_s)});
    return runToTheEnd(session, u"list the files"_s);
}

void tst_AgentSession::configurationReachesTheRequestAndTheCommand()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    QSignalSpy applied(&session, &AgentSession::configurationApplied);
    session.configure(configuration());
    QCOMPARE(applied.size(), 1);
    QCOMPARE(session.controller().provider().model, u"model-one"_s);
    QCOMPARE(session.controller().options().maxTurns, 7);

    allowEveryCall(session);
    m_runner.enqueue(0, u"a.txt\n"_s);
    m_server->script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s),
                      FakeResponse::answer(u"One file."_s)});
    QVERIFY(runToTheEnd(session, u"list the files"_s));

    const QList<RecordedRequest> requests = m_server->requests();
    QCOMPARE(requests.size(), 2);
    const QJsonObject body = requests.first().json();
    QCOMPARE(body.value(u"model"_s).toString(), u"model-one"_s);
    QCOMPARE(body.value(u"tools"_s).toArray().first()[u"function"_s][u"name"_s].toString(),
             u"shell"_s);
    // The system prompt tells the model where it works.
    const QJsonObject system = body.value(u"messages"_s).toArray().first().toObject();
    QCOMPARE(system.value(u"role"_s).toString(), u"system"_s);
    QVERIFY(system.value(u"content"_s)
                    .toString()
                    .contains(QDir::toNativeSeparators(m_dir->filePath(u"workspace"_s))));
    // The command ran in the workspace.
    QCOMPARE(m_runner.requests().size(), 1);
    QCOMPARE(m_runner.requests().first().command, u"ls"_s);
    QCOMPARE(m_runner.requests().first().workingDirectory, m_dir->filePath(u"workspace"_s));
}

void tst_AgentSession::everyMessageOfARunIsSaved()
{
    const ConversationStore store(m_dir->filePath(u"conversations"_s));
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner), store);
    session.configure(configuration());
    allowEveryCall(session);
    QVERIFY(runOneCommand(session));

    const QString id = session.recorder().header().id;
    QVERIFY(!id.isEmpty());
    const auto saved = store.load(id);
    QVERIFY(saved.hasValue());
    // system, user, assistant with the call, its tool result, the answer: as the provider saw
    // them, in order.
    QCOMPARE(saved->history.size(), 5);
    QCOMPARE(saved->history.messagesJson(), session.controller().history().messagesJson());
    QCOMPARE(saved->header.model, u"model-one"_s);
    QCOMPARE(saved->header.title, u"list the files"_s);
}

void tst_AgentSession::configurationDuringARunWaitsForItsEnd()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    session.configure(configuration(u"model-one"_s));
    QSignalSpy applied(&session, &AgentSession::configurationApplied);

    // The user changes the model while the approval box is open; what the session did with it
    // is taken at that moment (the rest of the run may be over by the next look).
    AgentController &controller = session.controller();
    std::optional<bool> pendingDuringTheRun;
    qsizetype appliedDuringTheRun = -1;
    QString modelDuringTheRun;
    connect(&controller,
            &AgentController::approvalRequested,
            &controller,
            [&](const ApprovalRequest &request) {
                session.configure(configuration(u"model-two"_s));
                pendingDuringTheRun = session.hasPendingConfiguration();
                appliedDuringTheRun = applied.size();
                modelDuringTheRun = controller.provider().model;
                QTimer::singleShot(0, &controller, [&controller, id = request.id] {
                    controller.resolveApproval(id, ApprovalAnswer::deny());
                });
            });
    m_server->script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s),
                      FakeResponse::answer(u"As you wish."_s),
                      FakeResponse::answer(u"Hello again."_s)});
    QSignalSpy finished(&controller, &AgentController::finished);
    QVERIFY(controller.run(u"list the files"_s));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, endTimeoutMs);
    QCOMPARE(pendingDuringTheRun, std::optional(true));
    QCOMPARE(appliedDuringTheRun, 0);
    QCOMPARE(modelDuringTheRun, u"model-one"_s);

    // The whole run went to the model it started with; the change came at its end.
    QCOMPARE(m_server->requests().size(), 2);
    QCOMPARE(m_server->requests().at(1).json().value(u"model"_s).toString(), u"model-one"_s);
    QCOMPARE(applied.size(), 1);
    QVERIFY(!session.hasPendingConfiguration());
    QCOMPARE(controller.provider().model, u"model-two"_s);

    QVERIFY(runToTheEnd(session, u"hello"_s));
    QCOMPARE(m_server->requests().at(2).json().value(u"model"_s).toString(), u"model-two"_s);
}

void tst_AgentSession::commandOutputsFollowTheConversation()
{
    const ConversationStore store(m_dir->filePath(u"conversations"_s),
                                  m_dir->filePath(u"outputs"_s));
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner), store);
    session.configure(configuration());
    allowEveryCall(session);
    QVERIFY(runOneCommand(session));
    // The prompt created the conversation before the command ran: its outputs are its own.
    QCOMPARE(m_runner.requests().first().outputDirectory,
             store.outputDirectoryFor(session.recorder().header().id));
}

void tst_AgentSession::nothingIsSavedWhenNewConversationsAreOff()
{
    const ConversationStore store(m_dir->filePath(u"conversations"_s),
                                  m_dir->filePath(u"outputs"_s));
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner), store);
    session.recorder().setSavesNewConversations(false);
    SessionConfiguration cli = configuration();
    cli.unsavedOutputFolder = u"cli-20261201-120000"_s;
    session.configure(cli);
    allowEveryCall(session);
    QVERIFY(runOneCommand(session));
    QVERIFY(store.list().isEmpty());
    QCOMPARE(m_runner.requests().first().outputDirectory,
             store.outputDirectoryFor(u"cli-20261201-120000"_s));
}

void tst_AgentSession::openAndNewConversationOnlyWhileIdle()
{
    const ConversationStore store(m_dir->filePath(u"conversations"_s));
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner), store);
    session.configure(configuration());
    m_server->script({FakeResponse::answer(u"First."_s)});
    QVERIFY(runToTheEnd(session, u"first"_s));
    const QString first = session.recorder().header().id;

    session.newConversation();
    QVERIFY(session.controller().history().isEmpty());
    QVERIFY(session.recorder().header().id.isEmpty());
    m_server->script({FakeResponse::neverAnswer()});
    QVERIFY(session.controller().run(u"second"_s));
    const QString second = session.recorder().header().id;
    QVERIFY(!second.isEmpty() && second != first);

    // During the run: neither opening nor starting over touches the conversation.
    const auto refused = session.openConversation(first);
    QVERIFY(!refused.hasValue());
    QVERIFY(!refused.error().message.isEmpty());
    session.newConversation();
    QCOMPARE(session.recorder().header().id, second);
    QCOMPARE(session.controller().history().last().content(), u"second"_s);

    session.controller().cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!session.controller().isRunning(), endTimeoutMs);
    const auto opened = session.openConversation(first);
    QVERIFY(opened.hasValue());
    QCOMPARE(session.recorder().header().id, first);
    QCOMPARE(session.controller().history().messagesJson(),
             opened->conversation.history.messagesJson());
    QCOMPARE(store.list().size(), 2);
}

void tst_AgentSession::aConversationReadInTheBackgroundContinuesAsOpened()
{
    const ConversationStore store(m_dir->filePath(u"conversations"_s));
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner), store);
    session.configure(configuration());
    allowEveryCall(session);
    m_runner.enqueue(0, u"a.txt\n"_s);
    QVERIFY(runOneCommand(session));
    const QString first = session.recorder().header().id;
    const QList<QJsonObject> firstTrail = session.auditTrail();
    QCOMPARE(firstTrail.size(), 1);
    const QByteArray firstMessages = session.controller().history().messagesJson();
    session.newConversation();
    m_server->script({FakeResponse::answer(u"Second."_s)});
    QVERIFY(runToTheEnd(session, u"second"_s));
    const QString second = session.recorder().header().id;

    // Reading leaves the session as it is, until the conversation read is continued.
    QFuture<ReadConversation> reading = session.readConversation(first);
    QTRY_VERIFY(reading.isFinished());
    QCOMPARE(session.recorder().header().id, second);
    QCOMPARE(session.controller().history().last().content(), u"Second."_s);
    ReadConversation read = reading.result();
    QVERIFY(read.loaded.hasValue());
    QCOMPARE(read.path, store.pathFor(first));
    QCOMPARE(read.prepared.fullTokens.messageCount(), read.loaded->history.size());

    const auto continued = session.continueConversation(std::move(read));
    QVERIFY(continued.hasValue());
    QCOMPARE(session.recorder().header().id, first);
    QCOMPARE(session.controller().history().messagesJson(), firstMessages);
    QCOMPARE(session.auditTrail(), firstTrail);
    // The estimates made on the other thread are those opening it here makes.
    const qint64 readTokens = session.controller().budget().used;
    QVERIFY(readTokens > 0);
    session.newConversation();
    QVERIFY(session.openConversation(first).hasValue());
    QCOMPARE(session.controller().budget().used, readTokens);

    // Continued: the next prompt goes on in the same file.
    m_server->script({FakeResponse::answer(u"Third."_s)});
    QVERIFY(runToTheEnd(session, u"third"_s));
    QCOMPARE(store.list().size(), 2);
    QCOMPARE(store.load(first)->history.messagesJson(),
             session.controller().history().messagesJson());

    // A file that cannot be read gives its error, and the session stays as it is.
    QFuture<ReadConversation> missing = session.readConversation(u"20260101-000000-0000"_s);
    QTRY_VERIFY(missing.isFinished());
    const ReadConversation notRead = missing.result();
    QVERIFY(!notRead.loaded.hasValue());
    QVERIFY2(notRead.loaded.error().message.contains(u"20260101-000000-0000"_s),
             qPrintable(notRead.loaded.error().message));
    QCOMPARE(session.recorder().header().id, first);

    // Not while a run goes on.
    QFuture<ReadConversation> again = session.readConversation(second);
    QTRY_VERIFY(again.isFinished());
    m_server->script({FakeResponse::neverAnswer()});
    QVERIFY(session.controller().run(u"fourth"_s));
    QVERIFY(!session.continueConversation(again.result()).hasValue());
    QCOMPARE(session.recorder().header().id, first);
    session.controller().cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!session.controller().isRunning(), endTimeoutMs);
}

void tst_AgentSession::demoModeAnswersWithoutTheNetwork()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    SessionConfiguration demo = configuration();
    demo.provider = demoProviderSettings();
    demo.demoMode = true;
    session.configure(demo);
    allowEveryCall(session);
    QVERIFY(runToTheEnd(session, u"What files are in my workspace?"_s));
    QVERIFY(m_server->allRequests().isEmpty());
    QCOMPARE(session.controller().history().last().role(), Role::Assistant);
    QVERIFY(!session.controller().history().last().content().isEmpty());
}

// One line per call in the file kept with the conversation: the call's hash, who decided, the
// outcome; never the key. It is read back with the conversation and deleted with it.
void tst_AgentSession::theAuditTrailHasOneLinePerCall()
{
    const ConversationStore store(m_dir->filePath(u"conversations"_s));
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner), store);
    SessionConfiguration allowingLs = configuration();
    allowingLs.rules = {{u"shell(ls)"_s, RuleEffect::Allow, RuleOrigin::App}};
    session.configure(allowingLs);
    allowEveryCall(session);
    const QString echoKey = uR"({"command":"echo sk-session-test"})"_s;
    m_server->script({FakeResponse::toolCalls({{u"call_ls"_s, u"shell"_s, uR"({"command":"ls"})"_s},
                                               {u"call_echo"_s, u"shell"_s, echoKey}}),
                      FakeResponse::answer(u"Done."_s)});
    m_runner.enqueue(0, u"a.txt\n"_s);
    m_runner.enqueue(0, u"key\n"_s);
    QSignalSpy recorded(&session, &AgentSession::auditRecorded);
    QVERIFY(runToTheEnd(session, u"list the files"_s));

    const QString id = session.recorder().header().id;
    const QString auditPath = ConversationStore::auditPathFor(store.pathFor(id));
    QFile file(auditPath);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(auditPath));
    const QList<QByteArray> lines = file.readAll().split('\n');
    file.close();
    QCOMPARE(lines.size(), 3); // two lines and the end
    QVERIFY(lines.last().isEmpty());
    QVERIFY(!lines.join().contains("sk-session-test"));
    const QJsonObject ls = QJsonDocument::fromJson(lines[0]).object();
    QCOMPARE(ls[u"conversation"_s].toString(), id);
    QCOMPARE(ls[u"tool_call_id"_s].toString(), u"call_ls"_s);
    QCOMPARE(ls[u"decision"_s].toString(), u"allow"_s);
    QCOMPARE(ls[u"decided_by"_s].toString(), u"shell(ls)"_s);
    QCOMPARE(ls[u"asked"_s].toBool(), false);
    QCOMPARE(ls[u"exit_code"_s].toInt(), 0);
    QCOMPARE(ls[u"call_sha256"_s].toString(),
             callFingerprint(ToolCall{u"call_ls"_s, u"shell"_s, uR"({"command":"ls"})"_s}));
    const QJsonObject echo = QJsonDocument::fromJson(lines[1]).object();
    QCOMPARE(echo[u"decided_by"_s].toString(), u"user"_s);
    QCOMPARE(echo[u"asked"_s].toBool(), true);
    // The client masks the key the model echoed before the call joins the history: the hash is
    // of the call as the history holds it and the provider gets it back.
    const ToolCall echoCall = session.controller().history().messages().at(2).toolCalls().at(1);
    QVERIFY(!echoCall.arguments.contains(u"sk-session-test"_s));
    QCOMPARE(echo[u"call_sha256"_s].toString(), callFingerprint(echoCall));
    QCOMPARE(recorded.size(), 2);
    QCOMPARE(session.auditTrail().size(), 2);

    {
        AgentSession reopened(std::make_shared<FakeCommandRunner>(m_runner), store);
        reopened.configure(configuration());
        QVERIFY(reopened.openConversation(id).hasValue());
        QCOMPARE(reopened.auditTrail(), session.auditTrail());
    }
    session.newConversation(); // Windows deletes no file that is still open

    QVERIFY(store.remove(id).hasValue());
    QVERIFY(!QFile::exists(auditPath));
}

// "Always allow…": the rule is in the app's or the workspace's file, and a restarted app (a new
// session reading them) runs the same command without asking.
void tst_AgentSession::alwaysRulesSurviveARestart()
{
    const QString workspace = m_dir->filePath(u"workspace"_s);
    {
        AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                             ConversationStore(m_dir->filePath(u"conversations"_s)));
        session.configure(configuration());
        QVERIFY(session.addRules({u"shell(ls)"_s}, RuleOrigin::App).hasValue());
        QVERIFY(session.addRules({u"shell(make test)"_s}, RuleOrigin::Workspace).hasValue());
    }
    const auto app = readRuleFile(appRuleFilePath(), RuleOrigin::App);
    QVERIFY(app.hasValue());
    QCOMPARE(*app, (QList<PermissionRule>{{u"shell(ls)"_s, RuleEffect::Allow, RuleOrigin::App}}));

    AgentSession restarted(std::make_shared<FakeCommandRunner>(m_runner),
                           ConversationStore(m_dir->filePath(u"conversations"_s)));
    SessionConfiguration withAppRules = configuration();
    withAppRules.rules = *app;
    restarted.configure(withAppRules);
    QCOMPARE(restarted.workspaceRules(),
             (QList<PermissionRule>{
                     {u"shell(make test)"_s, RuleEffect::Allow, RuleOrigin::Workspace}}));
    QSignalSpy asked(&restarted.controller(), &AgentController::approvalRequested);
    m_server->script(
            {FakeResponse::toolCalls({{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s},
                                      {u"call_2"_s, u"shell"_s, uR"({"command":"make test"})"_s}}),
             FakeResponse::answer(u"Done."_s)});
    m_runner.enqueue(0, u"a.txt\n"_s);
    m_runner.enqueue(0, u"ok\n"_s);
    QVERIFY(runToTheEnd(restarted, u"test it"_s));
    QCOMPARE(asked.size(), 0);
    QCOMPARE(m_runner.requests().size(), 2);
}

// A rules file the repository brought (or a command wrote) cannot allow anything by itself: its
// allow rules wait until the user trusts it; its deny rules apply at once.
void tst_AgentSession::aWorkspaceFileChangedOutsideAllowsNothing()
{
    const QString workspace = m_dir->filePath(u"workspace"_s);
    QVERIFY(QDir(workspace).mkpath(u".agentloop"_s));
    QFile file(workspaceRuleFilePath(workspace));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"json({"allow": ["shell"], "deny": ["shell(rm:*)"]})json");
    file.close();

    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    session.configure(configuration());
    QCOMPARE(session.ignoredWorkspaceAllowRules(), QStringList{u"shell"_s});
    QSignalSpy asked(&session.controller(), &AgentController::approvalRequested);
    allowEveryCall(session);
    m_server->script(
            {FakeResponse::toolCalls({{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s},
                                      {u"call_2"_s, u"shell"_s, uR"({"command":"rm -rf x"})"_s}}),
             FakeResponse::answer(u"Done."_s)});
    m_runner.enqueue(0, u"a.txt\n"_s);
    QVERIFY(runToTheEnd(session, u"go"_s));
    QCOMPARE(asked.size(), 1); // ls was asked: `shell` from the file did not allow it
    QCOMPARE(m_runner.requests().size(), 1);
    // A rule the user saves for this workspace is theirs; the one from outside stays untrusted.
    QVERIFY(session.addRules({u"shell(pwd)"_s}, RuleOrigin::Workspace).hasValue());
    QCOMPARE(session.ignoredWorkspaceAllowRules(), QStringList{u"shell"_s});

    QVERIFY(trustWorkspaceRules(workspace, {u"shell"_s}).hasValue());
    session.configure(configuration());
    QVERIFY(session.ignoredWorkspaceAllowRules().isEmpty());
}

// The attack: the user trusted the file; a command the user approved (a checkout) plants
// {"allow": ["shell"]} in it; the user then saves an unrelated rule for the workspace. Only what
// the user saw becomes trusted: the planted rule allows nothing.
void tst_AgentSession::aRulePlantedDuringARunStaysUntrusted()
{
    const QString workspace = m_dir->filePath(u"workspace"_s);
    const QList<PermissionRule> own{
            {u"shell(git status)"_s, RuleEffect::Allow, RuleOrigin::Workspace}};
    QVERIFY(saveWorkspaceRules(workspace, own, {u"shell(git status)"_s}).hasValue());
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    session.configure(configuration());
    QVERIFY(session.ignoredWorkspaceAllowRules().isEmpty());

    QFile file(workspaceRuleFilePath(workspace));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"json({"allow": ["shell(git status)", "shell"]})json");
    file.close();
    QVERIFY(session.addRules({u"shell(npm test)"_s}, RuleOrigin::Workspace).hasValue());
    QCOMPARE(session.ignoredWorkspaceAllowRules(), QStringList{u"shell"_s});
    const WorkspaceRules loaded = loadWorkspaceRules(workspace);
    QCOMPARE(loaded.trustedAllowRules(),
             (QStringList{u"shell(git status)"_s, u"shell(npm test)"_s}));
    QCOMPARE(loaded.ignoredAllowRules, QStringList{u"shell"_s});

    // `touch PWNED` is asked (and the test's user answers no); `git status` is not.
    QSignalSpy asked(&session.controller(), &AgentController::approvalRequested);
    connect(&session.controller(),
            &AgentController::approvalRequested,
            &session.controller(),
            [&session](const ApprovalRequest &request) {
                QTimer::singleShot(0, &session.controller(), [&session, id = request.id] {
                    session.controller().resolveApproval(id, ApprovalAnswer::deny());
                });
            });
    m_runner.enqueue(0, u"clean\n"_s);
    m_server->script(
            {FakeResponse::toolCalls({{u"call_1"_s, u"shell"_s, uR"({"command":"touch PWNED"})"_s},
                                      {u"call_2"_s, u"shell"_s, uR"({"command":"git status"})"_s}}),
             FakeResponse::answer(u"Done."_s)});
    QVERIFY(runToTheEnd(session, u"go"_s));
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.first().first().value<ApprovalRequest>().preview.text, u"touch PWNED"_s);
    QCOMPARE(m_runner.requests().size(), 1);
    QCOMPARE(m_runner.requests().first().command, u"git status"_s);
}

// A rules file that cannot be read must not loosen anything: every call is denied, and the
// session says why.
void tst_AgentSession::aBrokenWorkspaceFileDeniesEveryCall()
{
    const QString workspace = m_dir->filePath(u"workspace"_s);
    QVERIFY(QDir(workspace).mkpath(u".agentloop"_s));
    QFile file(workspaceRuleFilePath(workspace));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"deny\": [\"shell(rm:*)\"");
    file.close();

    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    session.configure(configuration());
    QVERIFY(session.workspaceRulesError().has_value());
    allowEveryCall(session);
    QVERIFY(runOneCommand(session));
    QVERIFY(m_runner.requests().isEmpty());
    QVERIFY(session.controller().history().messages().at(3).content().startsWith(u"denied"_s));
}

void tst_AgentSession::aRulesFileThatIsNotAFileOfTheWorkspaceDeniesEveryCall_data()
{
    QTest::addColumn<PlantedFile>("planted");
    QTest::newRow("a link to a file outside") << PlantedFile::LinkOut;
    QTest::newRow("a FIFO") << PlantedFile::Fifo;
    QTest::newRow("a link to a device") << PlantedFile::LinkToDevice;
}

// A repository ships .agentloop/permissions.json as a link to rules kept elsewhere (which the
// user once trusted, say), or as a FIFO that would hang whoever opens it.
void tst_AgentSession::aRulesFileThatIsNotAFileOfTheWorkspaceDeniesEveryCall()
{
#ifdef Q_OS_WIN
    QSKIP("symbolic links need a privilege on Windows and FIFOs do not exist there");
#else
    QFETCH(PlantedFile, planted);
    const QString workspace = m_dir->filePath(u"workspace"_s);
    QVERIFY(QDir(workspace).mkpath(u".agentloop"_s));
    const QString elsewhere = m_dir->filePath(u"elsewhere.json"_s);
    QFile outside(elsewhere);
    QVERIFY(outside.open(QIODevice::WriteOnly));
    outside.write(R"json({"allow": ["shell"]})json");
    outside.close();
    QVERIFY(plantFile(planted, workspaceRuleFilePath(workspace), elsewhere));

    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    session.configure(configuration());
    QVERIFY(session.workspaceRulesError().has_value());
    QVERIFY2(session.workspaceRulesError()->message.contains(u"is not read"_s),
             qPrintable(session.workspaceRulesError()->message));
    allowEveryCall(session);
    QVERIFY(runOneCommand(session));
    QVERIFY(m_runner.requests().isEmpty());
#endif
}

void tst_AgentSession::noToolShowsAKeyTheAppKnows()
{
    // Another profile's key, in the workspace's .env and in a command's output.
    const QString otherKey = u"sk-ant-other-profile-0123456789abcdef"_s;
    QFile env(m_dir->filePath(u"workspace/.env"_s));
    QVERIFY(env.open(QIODevice::WriteOnly));
    env.write("ANTHROPIC_API_KEY=" + otherKey.toUtf8() + "\n");
    env.close();
    SessionConfiguration configured = configuration();
    configured.otherSecrets = {otherKey};
    AgentSession session(std::make_shared<FakeCommandRunner>(m_runner),
                         ConversationStore(m_dir->filePath(u"conversations"_s)));
    session.configure(configured);
    allowEveryCall(session);
    m_runner.enqueue(0, u"ANTHROPIC_API_KEY="_s + otherKey + u"\n"_s);
    m_server->script(
            {FakeResponse::toolCall(u"call_1"_s, u"read_file"_s, uR"({"path":".env"})"_s),
             FakeResponse::toolCall(u"call_2"_s,
                                    u"grep"_s,
                                    uR"({"pattern":"KEY=sk-ant-other-profile-0","path":"."})"_s),
             FakeResponse::toolCall(u"call_3"_s, u"shell"_s, uR"({"command":"env"})"_s),
             FakeResponse::answer(u"Done."_s)});
    QVERIFY(runToTheEnd(session, u"find the keys"_s));

    // What the provider received of each tool.
    const QList<RecordedRequest> requests = m_server->requests();
    QCOMPARE(requests.size(), 4);
    QStringList toolMessages;
    for (const QJsonObject &message : requests.last().toolMessages())
        toolMessages.append(message[u"content"_s].toString());
    QCOMPARE(toolMessages.size(), 3);
    QVERIFY2(toolMessages[0].contains(u"ANTHROPIC_API_KEY=[REDACTED]"_s),
             qPrintable(toolMessages[0]));
    QVERIFY2(toolMessages[1].startsWith(u"No matches"_s), qPrintable(toolMessages[1]));
    QVERIFY2(toolMessages[2].contains(u"ANTHROPIC_API_KEY=[REDACTED]"_s),
             qPrintable(toolMessages[2]));
    for (const RecordedRequest &request : requests)
        QVERIFY(!request.body.contains(otherKey.toUtf8().mid(14)));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_AgentSession)
#include "tst_agentsession.moc"
