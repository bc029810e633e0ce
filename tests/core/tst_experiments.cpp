#include "agent/agentsession.h"
#include "agent/experiments.h"
#include "fakechatserver.h"
#include "testmain.h"
#include "testshell.h"
#include "tools/commandrunner.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

constexpr int runTimeoutMs = Testing::hangGuardMs;

// The desktop app's session on real processes, its provider a fake server on 127.0.0.1 that the
// experiments must never reach; every approval is answered "allow once".
struct ExperimentRun
{
    ExperimentRun()
        : session(std::make_shared<ProcessCommandRunner>(testShell()),
                  ConversationStore(directory.filePath(u"conversations"_s),
                                    directory.filePath(u"outputs"_s)))
    {
        SessionConfiguration configuration;
        configuration.provider.baseUrl = server.baseUrl();
        configuration.provider.model = u"gpt-4.1"_s;
        configuration.provider.apiKey = u"sk-user-key"_s;
        configuration.maxTurns = 20;
        configuration.workspace = directory.path();
        session.configure(configuration);
        QObject::connect(&session.controller(),
                         &AgentController::approvalRequested,
                         &session,
                         [this](const ApprovalRequest &request) {
                             approvals.append(request);
                             session.controller().resolveApproval(request.id,
                                                                  ApprovalAnswer::allowOnce());
                         });
        QObject::connect(&session.controller(),
                         &AgentController::requestSent,
                         &session,
                         [this](const Exchange &exchange) { sent.append(exchange); });
    }

    // The run's end: the answer, or "(failed) " and the error's message.
    QString run(const Experiment &experiment)
    {
        QSignalSpy finished(&session.controller(), &AgentController::finished);
        QSignalSpy failed(&session.controller(), &AgentController::failed);
        if (!session.runExperiment(experiment))
            return u"(not started)"_s;
        if (!QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, runTimeoutMs))
            return u"(timed out)"_s;
        if (!failed.isEmpty())
            return u"(failed) "_s + failed.first().first().value<Error>().message;
        return finished.first().first().toString();
    }

    QList<Message> toolMessages() const
    {
        QList<Message> tools;
        for (const Message &message : session.controller().history().messages()) {
            if (message.role() == Role::Tool)
                tools.append(message);
        }
        return tools;
    }

    QTemporaryDir directory;
    FakeChatServer server;
    AgentSession session;
    QList<ApprovalRequest> approvals;
    QList<Exchange> sent;
};

} // namespace

class TestExperiments : public QObject
{
    Q_OBJECT

private slots:
    void listsTheCourseCases();
    void maxTurnsOfOneStopsAfterTheTool();
    void missingResultSendsNothing();
    void missingResultNeverReachesAServer();
    void failingCommandIsData();
    void plainTextEndsTheLoop();
    void nullContentIsAnError();
    void oneOfThreeFailsStillThreeResults();
    void snapshotRefusesAToolNotOffered();
    void maxTurnsCountsRequests();
};

void TestExperiments::listsTheCourseCases()
{
    const QList<Experiment> all = courseExperiments();
    QCOMPARE(all.size(), 8);
    int experiments = 0;
    for (const Experiment &experiment : all) {
        QVERIFY(!experiment.title.isEmpty());
        QVERIFY(!experiment.lookAt.isEmpty());
        QVERIFY(!experiment.prompt.isEmpty());
        QCOMPARE(experiment.question.isEmpty(), experiment.kind == Experiment::CourseExperiment);
        experiments += experiment.kind == Experiment::CourseExperiment ? 1 : 0;
    }
    QCOMPARE(experiments, 3);
}

void TestExperiments::maxTurnsOfOneStopsAfterTheTool()
{
    ExperimentRun run;
    QCOMPARE(run.run(courseExperiment(Experiment::MaxTurns)),
             u"(failed) Agent exceeded maxTurns=1"_s);
    QCOMPARE(run.sent.size(), 1);
    QCOMPARE(run.approvals.size(), 1);
    // The tool ran and its result is in the history: the limit is what stopped the loop.
    const QList<Message> tools = run.toolMessages();
    QCOMPARE(tools.size(), 1);
    QVERIFY2(tools.first().content().contains(u"Hello from the Agent Loop demo"_s),
             qPrintable(tools.first().content()));
    // The user's configuration is back, and its server heard nothing.
    QCOMPARE(run.session.configuration().provider.baseUrl, run.server.baseUrl());
    QCOMPARE(run.session.configuration().maxTurns, 20);
    QCOMPARE(run.session.controller().options().maxTurns, 20);
    QVERIFY(run.server.requests().isEmpty());
}

void TestExperiments::missingResultSendsNothing()
{
    ExperimentRun run;
    QCOMPARE(run.run(courseExperiment(Experiment::MissingResult)),
             u"(failed) missing tool results for ids: [\"call_2\"]"_s);
    QVERIFY(run.sent.isEmpty());
    QVERIFY(run.approvals.isEmpty());
    // The broken history, with the prompt after it; not saved: no file could be opened again.
    const History &history = run.session.controller().history();
    QCOMPARE(history.size(), 4);
    QCOMPARE(history.at(1).toolCalls().size(), 2);
    QCOMPARE(history.last().content(), u"Go on."_s);
    QVERIFY(run.session.recorder().header().id.isEmpty());
    QVERIFY(QDir(run.directory.filePath(u"conversations"_s))
                    .entryList(QDir::Files | QDir::NoDotAndDotDot)
                    .isEmpty());
    QCOMPARE(run.session.configuration().provider.baseUrl, run.server.baseUrl());
    // The next conversation is saved again.
    run.session.newConversation();
    QCOMPARE(run.run(courseExperiment(Experiment::PlainText)), u"好的"_s);
    QVERIFY(!run.session.recorder().header().id.isEmpty());
}

void TestExperiments::missingResultNeverReachesAServer()
{
    // The same history against a real HTTP server: the check comes before anything is sent.
    ExperimentRun run;
    Experiment experiment = courseExperiment(Experiment::MissingResult);
    experiment.provider.baseUrl = run.server.baseUrl();
    experiment.provider.model = u"gpt-4.1"_s;
    run.server.script({FakeResponse::answer(u"never asked"_s)});
    QCOMPARE(run.run(experiment), u"(failed) missing tool results for ids: [\"call_2\"]"_s);
    QTest::qWait(100);
    QCOMPARE(run.server.requests().size(), 0);
}

void TestExperiments::failingCommandIsData()
{
    ExperimentRun run;
    const QString answer = run.run(courseExperiment(Experiment::FailingCommand));
    QVERIFY2(answer.contains(u"The command did not succeed"_s), qPrintable(answer));
    QCOMPARE(run.approvals.size(), 1);
    QCOMPARE(run.sent.size(), 2); // the loop went on after the failure
    const QList<Message> tools = run.toolMessages();
    QCOMPARE(tools.size(), 1);
    QVERIFY2(tools.first().content().startsWith(u"shell_failed: exit code 1"_s),
             qPrintable(tools.first().content()));
    QVERIFY(tools.first().content().contains(u"this command fails on purpose"_s));
}

void TestExperiments::plainTextEndsTheLoop()
{
    ExperimentRun run;
    QCOMPARE(run.run(courseExperiment(Experiment::PlainText)), u"好的"_s);
    QCOMPARE(run.sent.size(), 1);
    QVERIFY(run.toolMessages().isEmpty());
}

void TestExperiments::nullContentIsAnError()
{
    ExperimentRun run;
    QCOMPARE(run.run(courseExperiment(Experiment::NullContent)),
             u"(failed) The model returned neither text nor a tool call"_s);
    QCOMPARE(run.sent.size(), 1);
    // Nothing of the empty answer joined the history.
    QCOMPARE(run.session.controller().history().last().role(), Role::User);
}

void TestExperiments::oneOfThreeFailsStillThreeResults()
{
    ExperimentRun run;
    const QString answer = run.run(courseExperiment(Experiment::OneOfThree));
    QVERIFY2(answer.contains(u"I asked for 3 tool calls, and the history holds 3 `tool` messages"_s),
             qPrintable(answer));
    QVERIFY(answer.contains(u"(1 failed)"_s));
    QVERIFY(run.approvals.isEmpty()); // reads, allowed by the defaults
    const QList<Message> tools = run.toolMessages();
    QCOMPARE(tools.size(), 3);
    QStringList ids;
    for (const Message &tool : tools)
        ids << tool.toolCallId();
    QCOMPARE(ids, (QStringList{u"call_1_1"_s, u"call_1_2"_s, u"call_1_3"_s}));
    QVERIFY2(tools.at(1).content().startsWith(u"file_not_found: "_s),
             qPrintable(tools.at(1).content()));
    QVERIFY(!tools.at(0).content().startsWith(u"file_not_found"_s));
}

void TestExperiments::snapshotRefusesAToolNotOffered()
{
    ExperimentRun run;
    const QString answer = run.run(courseExperiment(Experiment::Snapshot));
    QVERIFY2(answer.contains(u"was not in this request's tool snapshot"_s), qPrintable(answer));
    const QList<Message> tools = run.toolMessages();
    QCOMPARE(tools.size(), 1);
    QVERIFY2(tools.first().content().startsWith(
                     u"unknown_tool: there is no tool named \"deploy\""_s),
             qPrintable(tools.first().content()));
    QVERIFY(run.approvals.isEmpty());
}

void TestExperiments::maxTurnsCountsRequests()
{
    ExperimentRun run;
    const Experiment experiment = courseExperiment(Experiment::TurnCount);
    QCOMPARE(experiment.maxTurns, 2);
    const QString answer = run.run(experiment);
    QVERIFY2(answer.startsWith(u"I asked for 3 tool calls"_s), qPrintable(answer));
    QCOMPARE(run.sent.size(), 2);
    QCOMPARE(run.toolMessages().size(), 3);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, TestExperiments)
#include "tst_experiments.moc"
