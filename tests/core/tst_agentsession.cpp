// AgentSession: the loop with its tools and its recorder, as the app and the CLI run it. What a
// configuration says reaches the provider and the commands; a configuration given during a run
// waits for its end; every message of a run is on disk; outputs follow the conversation.

#include "agent/agentsession.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "provider/demoprovider.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

constexpr int endTimeoutMs = 10000;

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
    void demoModeAnswersWithoutTheNetwork();

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

QTEST_GUILESS_MAIN(tst_AgentSession)
#include "tst_agentsession.moc"
