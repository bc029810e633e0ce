// Compaction through AgentSession, as the app runs it: the real loop, the real shell tool in front
// of a fake command runner, the conversation file, and a model on 127.0.0.1 that answers turns
// from a script and summary requests with a summary. What is asserted is what the provider
// received and what the conversation file holds.

#include "agent/agentsession.h"
#include "agent/agentsetup.h"
#include "contextusage.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "permissions/workspacerules.h"
#include "testmain.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_CompactionSession : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void thresholdCompactionSummarisesAndKeepsTheRequestsUnderTheWindow();
    void theSummaryRequestCanBeCancelled();
    void theUserIsAskedFirstWhenConfirmationIsOn();
    void aDeclinedProposalSendsTheRequestAsItIs();
    void aContextLengthErrorLeadsToOneCompactionAndOneRetry();
    void aSecondContextLengthErrorFailsClearly();
    void theFileKeepsEveryMessageAndReopeningShowsTheSameRequest();
    void undoRestoresTheWholeHistoryForTheNextRequest();
    void agentsMdJoinsTheSystemPromptAndSurvivesCompaction();
    void agentsMdIsLeftOutWhenTurnedOffAndCutWhenLong();

private:
    SessionConfiguration configuration(qint64 window) const;
    std::unique_ptr<AgentSession> newSession(qint64 window);
    // Turns: `commands` shell calls (each printing outputChars characters), then "Done.".
    void scriptCommands(int commands, qsizetype outputChars);
    bool runToTheEnd(AgentSession &session, const QString &prompt);
    QList<RecordedRequest> turnRequests() const;
    QList<RecordedRequest> summaryRequests() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeChatServer> m_server;
    FakeCommandRunner m_runner;
    int m_commands = 0;
    int m_turn = 0;
    int m_summaries = 0;
    // Turn requests answered with this instead (a provider's error), while set.
    std::function<std::optional<FakeResponse>(const RecordedRequest &)> m_turnOverride;
    FakeResponse m_summaryResponse;
    bool m_summaryOverride = false;
};

namespace {

constexpr int endTimeoutMs = Testing::hangGuardMs;
const QString summaryPrompt = u"You compact the conversation of a coding agent"_s;

bool isSummaryRequest(const RecordedRequest &request)
{
    return request.messages().first()[u"content"_s].toString().startsWith(summaryPrompt);
}

QString output(int command, qsizetype chars)
{
    QString text;
    int line = 0;
    while (text.size() < chars)
        text += u"command %1 output line %2: compiling module\n"_s.arg(command).arg(++line);
    return text.left(chars);
}

// The lines of a conversation file; the header first.
QList<QByteArray> fileLines(const QString &path)
{
    QList<QByteArray> lines = readFile(path).split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

QJsonArray messagesOf(const History &history)
{
    return history.toJson();
}

} // namespace

void tst_CompactionSession::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qRegisterMetaType<Error>();
    qRegisterMetaType<Exchange>();
    qRegisterMetaType<Compaction>();
    qRegisterMetaType<CompactionPreview>();
}

void tst_CompactionSession::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QVERIFY(QDir(m_dir->path()).mkpath(u"workspace"_s));
    QFile::remove(appRuleFilePath());
    m_server = std::make_unique<FakeChatServer>();
    m_runner = FakeCommandRunner();
    m_commands = 0;
    m_turn = 0;
    m_summaries = 0;
    m_turnOverride = nullptr;
    m_summaryOverride = false;
    m_server->setHandler([this](const RecordedRequest &request) -> FakeResponse {
        if (isSummaryRequest(request)) {
            ++m_summaries;
            if (m_summaryOverride)
                return m_summaryResponse;
            return withEstimatedUsage(FakeResponse::answer(
                                              u"SUMMARY-%1: the task is the build; commands ran."_s
                                                      .arg(m_summaries)),
                                      request);
        }
        if (m_turnOverride) {
            if (std::optional<FakeResponse> response = m_turnOverride(request))
                return *response;
        }
        ++m_turn;
        if (m_turn <= m_commands)
            return withEstimatedUsage(FakeResponse::toolCall(u"call_%1"_s.arg(m_turn),
                                                             u"shell"_s,
                                                             u"{\"command\":\"make step%1\"}"_s.arg(
                                                                     m_turn)),
                                      request);
        return withEstimatedUsage(FakeResponse::answer(u"Done."_s), request);
    });
}

SessionConfiguration tst_CompactionSession::configuration(qint64 window) const
{
    SessionConfiguration configuration;
    configuration.provider.baseUrl = m_server->baseUrl();
    configuration.provider.apiKey = u"sk-compaction-test"_s;
    configuration.provider.model = u"model-one"_s;
    configuration.provider.stream = false;
    configuration.maxTurns = 100;
    configuration.workspace = m_dir->filePath(u"workspace"_s);
    configuration.rules = {PermissionRule{u"shell(make *)"_s, RuleEffect::Allow, RuleOrigin::App}};
    configuration.context.contextWindow = window;
    configuration.context.keepRecentExchanges = 2;
    return configuration;
}

std::unique_ptr<AgentSession> tst_CompactionSession::newSession(qint64 window)
{
    auto session = std::make_unique<AgentSession>(std::make_shared<FakeCommandRunner>(m_runner),
                                                  ConversationStore(m_dir->filePath(u"conv"_s),
                                                                    m_dir->filePath(u"out"_s)));
    session->configure(configuration(window));
    return session;
}

void tst_CompactionSession::scriptCommands(int commands, qsizetype outputChars)
{
    for (int i = 1; i <= commands; ++i)
        m_runner.enqueue(0, output(m_commands + i, outputChars));
    m_commands += commands;
}

bool tst_CompactionSession::runToTheEnd(AgentSession &session, const QString &prompt)
{
    QSignalSpy finished(&session.controller(), &AgentController::finished);
    QSignalSpy failed(&session.controller(), &AgentController::failed);
    if (!session.controller().run(prompt))
        return false;
    return QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, endTimeoutMs)
           && !finished.isEmpty();
}

QList<RecordedRequest> tst_CompactionSession::turnRequests() const
{
    QList<RecordedRequest> turns;
    const QList<RecordedRequest> requests = m_server->requests();
    for (const RecordedRequest &request : requests) {
        if (!isSummaryRequest(request))
            turns.append(request);
    }
    return turns;
}

QList<RecordedRequest> tst_CompactionSession::summaryRequests() const
{
    QList<RecordedRequest> summaries;
    const QList<RecordedRequest> requests = m_server->requests();
    for (const RecordedRequest &request : requests) {
        if (isSummaryRequest(request))
            summaries.append(request);
    }
    return summaries;
}

void tst_CompactionSession::thresholdCompactionSummarisesAndKeepsTheRequestsUnderTheWindow()
{
    const qint64 window = 16000;
    auto session = newSession(window);
    SessionConfiguration noStubs = session->configuration();
    noStubs.context.stubAboveChars = 1000000; // stubs cannot help: the summary must
    session->configure(noStubs);
    AgentController &controller = session->controller();
    QSignalSpy sent(&controller, &AgentController::requestSent);
    QSignalSpy compacted(&controller, &AgentController::compacted);
    QSignalSpy started(&controller, &AgentController::compactionStarted);
    scriptCommands(14, 6000);
    const QString prompt = u"Build the project step by step."_s;
    QVERIFY(runToTheEnd(*session, prompt));

    QVERIFY(compacted.size() >= 2);
    QCOMPARE(started.size(), compacted.size());
    const QList<RecordedRequest> summaries = summaryRequests();
    QCOMPARE(summaries.size(), compacted.size());
    // The summary request is visible as such, and carries no tools.
    int compactionExchanges = 0;
    for (const QList<QVariant> &signal : std::as_const(sent))
        compactionExchanges += signal.first().value<Exchange>().purpose
                                               == ExchangePurpose::Compaction
                                       ? 1
                                       : 0;
    QCOMPARE(compactionExchanges, summaries.size());
    QVERIFY(!summaries.first().json().contains(u"tools"_s));
    // The second summary summarises the first with what came since.
    QVERIFY(summaries[1].messages()[1][u"content"_s].toString().contains(u"SUMMARY-1"_s));

    const History &full = controller.history();
    QCOMPARE(full.size(), 2 + 14 * 2 + 1); // nothing lost
    for (const RecordedRequest &request : turnRequests()) {
        QVERIFY2(estimatedRequestTokens(request) < window,
                 qPrintable(u"%1 tokens"_s.arg(estimatedRequestTokens(request))));
        const QJsonArray messages = request.messages();
        QCOMPARE(messages[0], QJsonValue(full.at(0).toJson()));
        QCOMPARE(messages[1], QJsonValue(full.at(1).toJson()));
    }
    // The request after the latest compaction: system, prompt, the summary, the recent exchanges.
    const QJsonArray last = turnRequests().last().messages();
    QCOMPARE(last[1][u"content"_s].toString(), prompt);
    QVERIFY(last[2][u"content"_s].toString().startsWith(u"[Summary of earlier turns"_s));
    QVERIFY(last[2][u"content"_s].toString().contains(u"SUMMARY-%1"_s.arg(compacted.size())));
    QCOMPARE(last.size(), controller.requestHistory().size() - 1); // all but the answer
    QVERIFY(controller.requestHistory().checkPairing());
}

void tst_CompactionSession::theSummaryRequestCanBeCancelled()
{
    auto session = newSession(12000);
    SessionConfiguration noStubs = session->configuration();
    noStubs.context.stubAboveChars = 1000000;
    session->configure(noStubs);
    AgentController &controller = session->controller();
    m_summaryOverride = true;
    m_summaryResponse = FakeResponse::neverAnswer();
    QSignalSpy failed(&controller, &AgentController::failed);
    QSignalSpy compacted(&controller, &AgentController::compacted);
    scriptCommands(10, 6000);
    QVERIFY(controller.run(u"Build it."_s));
    QTRY_VERIFY_WITH_TIMEOUT(m_summaries == 1, endTimeoutMs);
    QCOMPARE(controller.state(), AgentController::State::Compacting);
    const QJsonArray before = messagesOf(controller.history());
    const QByteArray file = readFile(session->recorder().filePath());

    controller.cancel();
    QCOMPARE(failed.size(), 1);
    QCOMPARE(failed.first().first().value<Error>().kind, Error::Cancelled);
    QCOMPARE(controller.state(), AgentController::State::Idle);
    QVERIFY(compacted.isEmpty());
    QVERIFY(controller.compactions().isEmpty());
    QCOMPARE(messagesOf(controller.history()), before);
    QCOMPARE(messagesOf(controller.requestHistory()), before);
    QCOMPARE(readFile(session->recorder().filePath()), file);
    QTest::qWait(50);
    QCOMPARE(failed.size(), 1);
}

void tst_CompactionSession::theUserIsAskedFirstWhenConfirmationIsOn()
{
    auto session = newSession(12000);
    AgentController &controller = session->controller();
    controller.setConfirmsCompaction(true);
    QList<CompactionPreview> proposals;
    QList<int> requestsWhenAsked;
    connect(&controller,
            &AgentController::compactionProposed,
            &controller,
            [&](quint64 id, const CompactionPreview &preview) {
                proposals.append(preview);
                requestsWhenAsked.append(int(m_server->requests().size()));
                QCOMPARE(controller.state(), AgentController::State::AwaitingApproval);
                QTimer::singleShot(10, &controller, [&controller, id] {
                    controller.resolveCompaction(id, true);
                });
            });
    QSignalSpy compacted(&controller, &AgentController::compacted);
    scriptCommands(8, 6000);
    QVERIFY(runToTheEnd(*session, u"Build it."_s));

    QVERIFY(!proposals.isEmpty());
    QCOMPARE(compacted.size(), proposals.size());
    const CompactionPreview &preview = proposals.first();
    QCOMPARE(preview.trigger, u"threshold"_s);
    QVERIFY(preview.stubbedOutputs > 0);
    QVERIFY(preview.tokensBefore >= qint64(0.8 * 12000));
    QVERIFY(preview.tokensAfter < preview.tokensBefore);
    const Compaction compaction = compacted.first().first().value<Compaction>();
    QCOMPARE(qsizetype(preview.stubbedOutputs), compaction.stubs.size());
    // Nothing went out while the user was asked: the next request is the compacted one.
    const RecordedRequest next = m_server->requests().at(requestsWhenAsked.first());
    QVERIFY(QString::fromUtf8(next.body).contains(u"[output of call_1: "_s));
}

void tst_CompactionSession::aDeclinedProposalSendsTheRequestAsItIs()
{
    auto session = newSession(12000);
    AgentController &controller = session->controller();
    controller.setConfirmsCompaction(true);
    int proposals = 0;
    connect(&controller,
            &AgentController::compactionProposed,
            &controller,
            [&](quint64 id, const CompactionPreview &) {
                ++proposals;
                controller.resolveCompaction(id, false); // from inside the signal
            });
    scriptCommands(5, 6000);
    QVERIFY(runToTheEnd(*session, u"Build it."_s));
    QVERIFY(proposals > 0);
    QVERIFY(controller.compactions().isEmpty());
    QVERIFY(summaryRequests().isEmpty());
    // Every request carried the whole history as it was then.
    const QList<RecordedRequest> turns = turnRequests();
    const QJsonArray full = messagesOf(controller.history());
    for (const RecordedRequest &request : turns) {
        const QJsonArray messages = request.messages();
        for (qsizetype i = 0; i < messages.size(); ++i)
            QCOMPARE(messages[i], full[i]);
    }
    QCOMPARE(turns.last().messages().size(), full.size() - 1);
}

void tst_CompactionSession::aContextLengthErrorLeadsToOneCompactionAndOneRetry()
{
    auto session = newSession(1000000); // the estimate never passes the threshold
    AgentController &controller = session->controller();
    QSignalSpy notices(&controller, &AgentController::notice);
    QSignalSpy compacted(&controller, &AgentController::compacted);
    int refusals = 0;
    m_turnOverride = [&](const RecordedRequest &request) -> std::optional<FakeResponse> {
        // The provider's real window is smaller than the estimate's: the 7th request is refused.
        if (m_turn == 6 && refusals == 0 && request.messages().size() > 10) {
            ++refusals;
            return FakeResponse::httpError(400,
                                           u"This model's maximum context length is 8192 tokens."_s,
                                           u"invalid_request_error"_s,
                                           u"context_length_exceeded"_s);
        }
        return std::nullopt;
    };
    scriptCommands(8, 6000);
    QVERIFY(runToTheEnd(*session, u"Build it."_s));

    QCOMPARE(refusals, 1);
    QCOMPARE(notices.size(), 1);
    QVERIFY(notices.first().first().toString().contains(u"too long"_s));
    QCOMPARE(compacted.size(), 1);
    QCOMPARE(compacted.first().first().value<Compaction>().trigger, u"context-error"_s);
    // The refused request and its retry, then the rest of the run.
    const QList<RecordedRequest> turns = turnRequests();
    QCOMPARE(turns.size(), 8 + 1 + 1);
    const RecordedRequest &refused = turns.at(6);
    const RecordedRequest &retry = turns.at(7);
    QVERIFY(estimatedRequestTokens(retry) < estimatedRequestTokens(refused));
    QVERIFY(QString::fromUtf8(retry.body).contains(u"[output of call_1: "_s));
}

void tst_CompactionSession::aSecondContextLengthErrorFailsClearly()
{
    auto session = newSession(1000000);
    AgentController &controller = session->controller();
    QSignalSpy failed(&controller, &AgentController::failed);
    QSignalSpy compacted(&controller, &AgentController::compacted);
    int refusals = 0;
    m_turnOverride = [&](const RecordedRequest &) -> std::optional<FakeResponse> {
        if (m_turn < 4)
            return std::nullopt;
        ++refusals;
        return FakeResponse::httpError(400, u"prompt is too long: 300000 tokens > 200000 maximum"_s);
    };
    scriptCommands(8, 6000);
    QVERIFY(controller.run(u"Build it."_s));
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), endTimeoutMs);
    QCOMPARE(refusals, 2); // one retry, no more
    QCOMPARE(compacted.size(), 1);
    const Error error = failed.first().first().value<Error>();
    QVERIFY2(error.message.contains(u"after a compaction"_s), qPrintable(error.message));
    QVERIFY(error.message.contains(u"one retry"_s));
    QVERIFY(error.message.contains(u"prompt is too long"_s));
    QVERIFY(!error.hint.isEmpty());
}

void tst_CompactionSession::theFileKeepsEveryMessageAndReopeningShowsTheSameRequest()
{
    auto session = newSession(1000000);
    AgentController &controller = session->controller();
    scriptCommands(6, 6000);
    QVERIFY(runToTheEnd(*session, u"Build it."_s));
    const QString path = session->recorder().filePath();
    const QByteArray before = readFile(path);

    QSignalSpy compacted(&controller, &AgentController::compacted);
    QVERIFY(controller.compactNow());
    QTRY_COMPARE_WITH_TIMEOUT(compacted.size(), 1, endTimeoutMs);
    QCOMPARE(controller.state(), AgentController::State::Idle);
    QCOMPARE(summaryRequests().size(), 1);
    const Compaction compaction = controller.compactions().last();
    QCOMPARE(compaction.trigger, u"manual"_s);
    QVERIFY(compaction.summary.startsWith(u"SUMMARY-1"_s));
    QVERIFY(compaction.tokensAfter < compaction.tokensBefore);

    // Every line as it was, byte for byte, and the compaction on one line of its own.
    const QByteArray after = readFile(path);
    QVERIFY(after.startsWith(before));
    const QList<QByteArray> added = after.mid(before.size()).split('\n');
    QCOMPARE(added.size(), 2); // the line and the empty rest after its '\n'
    const QJsonObject line = QJsonDocument::fromJson(added.first()).object();
    QCOMPARE(line.value(u"agentloop"_s).toString(), u"compaction"_s);
    QCOMPARE(*Compaction::fromJson(line), compaction);
    // The summary request saw the older outputs stubbed; their whole text is in the
    // conversation's outputs folder, where the stubs say.
    const QString folder = session->recorder().store().outputDirectoryFor(
            session->recorder().header().id);
    const QString summaryText = summaryRequests().first().messages()[1][u"content"_s].toString();
    for (int call = 1; call <= 5; ++call) {
        const QString saved = QDir(folder).filePath(u"call_%1-result.txt"_s.arg(call));
        QVERIFY2(summaryText.contains(u"saved to %1;"_s.arg(QDir::toNativeSeparators(saved))),
                 qPrintable(saved));
        QCOMPARE(QString::fromUtf8(readFile(saved)),
                 controller.history().at(1 + 2 * call).content());
    }

    auto reopened = newSession(1000000);
    const Result<ContinuedConversation> opened = reopened->openConversation(
            session->recorder().header().id);
    QVERIFY(opened);
    QCOMPARE(opened->conversation.history.size(), controller.history().size());
    QCOMPARE(opened->conversation.compactions, controller.compactions());
    QCOMPARE(messagesOf(reopened->controller().history()), messagesOf(controller.history()));
    QCOMPARE(messagesOf(reopened->controller().requestHistory()),
             messagesOf(controller.requestHistory()));
    QVERIFY(reopened->controller().requestHistory().size() < controller.history().size());
}

void tst_CompactionSession::undoRestoresTheWholeHistoryForTheNextRequest()
{
    auto session = newSession(1000000);
    AgentController &controller = session->controller();
    scriptCommands(6, 6000);
    QVERIFY(runToTheEnd(*session, u"Build it."_s));
    QSignalSpy compacted(&controller, &AgentController::compacted);
    QVERIFY(controller.compactNow());
    QTRY_COMPARE_WITH_TIMEOUT(compacted.size(), 1, endTimeoutMs);
    const QString id = controller.compactions().last().id;
    const QString path = session->recorder().filePath();

    QSignalSpy undone(&controller, &AgentController::compactionUndone);
    QVERIFY(controller.undoCompaction());
    QCOMPARE(undone.size(), 1);
    QCOMPARE(undone.first().first().toString(), id);
    QVERIFY(controller.compactions().isEmpty());
    QVERIFY(!controller.undoCompaction());
    const QList<QByteArray> lines = fileLines(path);
    QCOMPARE(QJsonDocument::fromJson(lines.last()).object(),
             (QJsonObject{{u"agentloop"_s, u"compaction-undone"_s}, {u"id"_s, id}}));

    // The next request sends everything, as if there had been no compaction.
    const QJsonArray full = messagesOf(controller.history());
    QVERIFY(runToTheEnd(*session, u"And now?"_s));
    const QJsonArray sent = turnRequests().last().messages();
    QCOMPARE(sent.size(), full.size() + 1);
    for (qsizetype i = 0; i < full.size(); ++i)
        QCOMPARE(sent[i], full[i]);

    // Reopened, the undone compaction stays undone; the conversation's messages are all there.
    auto reopened = newSession(1000000);
    QVERIFY(reopened->openConversation(session->recorder().header().id));
    QVERIFY(reopened->controller().compactions().isEmpty());
    QCOMPARE(messagesOf(reopened->controller().requestHistory()), messagesOf(controller.history()));
}

void tst_CompactionSession::agentsMdJoinsTheSystemPromptAndSurvivesCompaction()
{
    const QString rules = u"# Rules\n\nRun `make check` before you finish. 用中文回答。\n"_s;
    QVERIFY(writeFile(m_dir->filePath(u"workspace/AGENTS.md"_s), rules.toUtf8()));
    auto session = newSession(1000000);
    AgentController &controller = session->controller();
    scriptCommands(6, 6000);
    QVERIFY(runToTheEnd(*session, u"Build it."_s));
    const QString system = turnRequests().first().messages()[0][u"content"_s].toString();
    QVERIFY(system.contains(u"Project instructions (AGENTS.md"_s));
    QVERIFY(system.contains(rules.trimmed()));

    QSignalSpy compacted(&controller, &AgentController::compacted);
    QVERIFY(controller.compactNow());
    QTRY_COMPARE_WITH_TIMEOUT(compacted.size(), 1, endTimeoutMs);
    QVERIFY(runToTheEnd(*session, u"Next?"_s));
    QCOMPARE(turnRequests().last().messages()[0][u"content"_s].toString(), system);
}

void tst_CompactionSession::agentsMdIsLeftOutWhenTurnedOffAndCutWhenLong()
{
    QString longRules;
    while (longRules.toUtf8().size() < 100 * 1024)
        longRules += u"- Keep every function short and named for what it does.\n"_s;
    QVERIFY(writeFile(m_dir->filePath(u"workspace/AGENTS.md"_s), longRules.toUtf8()));
    const QString section = projectInstructionsSection(m_dir->filePath(u"workspace"_s));
    QVERIFY(section.contains(u"only its first 64 KiB"_s));
    QVERIFY(section.toUtf8().size() < 66 * 1024);

    auto session = newSession(1000000);
    SessionConfiguration off = session->configuration();
    off.context.projectInstructions = false;
    session->configure(off);
    scriptCommands(0, 0);
    QVERIFY(runToTheEnd(*session, u"Hello"_s));
    QVERIFY(!turnRequests().first().messages()[0][u"content"_s].toString().contains(u"AGENTS.md"_s));

    QVERIFY(writeFile(m_dir->filePath(u"workspace/AGENTS.md"_s), QByteArray("\x00\x01\x02", 3)));
    QVERIFY(projectInstructionsSection(m_dir->filePath(u"workspace"_s)).isEmpty()); // not text
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_CompactionSession)
#include "tst_compactionsession.moc"
