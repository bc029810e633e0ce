// A long session under a small window, through AgentSession and a model on 127.0.0.1: 200 turns,
// each command printing 20 KB, against a 32 000-token window. Every request the provider receives
// stays under the window, no request fails, the conversation file keeps every message, and the
// memory in use is printed at turn 10 and turn 200 (Linux) for the report.

#include "agent/agentsession.h"
#include "contextusage.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "permissions/workspacerules.h"
#include "testmain.h"

#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_ContextSoak : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void twoHundredTurnsStayUnderTheWindow();
};

namespace {

constexpr qint64 window = 32000;
constexpr int prompts = 10;
constexpr int commandsPerPrompt = 19; // and the answer: 20 turns per prompt
constexpr qsizetype outputBytes = 20 * 1024;
const QString summaryPrompt = u"You compact the conversation of a coding agent"_s;

bool isSummaryRequest(const RecordedRequest &request)
{
    return request.messages().first()[u"content"_s].toString().startsWith(summaryPrompt);
}

QString commandOutput(int command)
{
    QString text;
    int line = 0;
    while (text.size() < outputBytes) {
        ++line;
        text += u"[%1] test %2 passed in 0.%3 s: tests/unit/module_%2.cpp\n"_s.arg(command)
                        .arg(line)
                        .arg(line % 97);
    }
    return text.left(outputBytes);
}

// VmRSS of /proc/self/status, in KiB; -1 where there is none.
qint64 residentKiB()
{
    QFile status(u"/proc/self/status"_s);
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

void reportMemory(int turn)
{
    if (const qint64 kib = residentKiB(); kib >= 0)
        qInfo("RSS at turn %d: %lld KiB", turn, kib);
}

} // namespace

void tst_ContextSoak::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qRegisterMetaType<Error>();
    QFile::remove(appRuleFilePath());
}

void tst_ContextSoak::twoHundredTurnsStayUnderTheWindow()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(u"workspace"_s));
    FakeChatServer server;
    server.setRecordsBodies(false);
    FakeCommandRunner runner;
    for (int command = 1; command <= prompts * commandsPerPrompt; ++command)
        runner.enqueue(0, commandOutput(command));

    int turns = 0;
    int summaries = 0;
    int commands = 0;
    qint64 largestRequest = 0;
    QStringList overTheWindow;
    server.setHandler([&](const RecordedRequest &request) -> FakeResponse {
        const qint64 tokens = estimatedRequestTokens(request);
        largestRequest = std::max(largestRequest, tokens);
        if (tokens >= window)
            overTheWindow << u"request %1: %2 tokens"_s.arg(server.requests().size()).arg(tokens);
        if (isSummaryRequest(request)) {
            ++summaries;
            return withEstimatedUsage(FakeResponse::answer(
                                              u"Summary %1: tests ran and passed; "
                                              u"keep running the next module."_s.arg(summaries)),
                                      request);
        }
        ++turns;
        if (turns == 10 || turns == prompts * (commandsPerPrompt + 1))
            reportMemory(turns);
        // A real provider refuses what does not fit; so does this one.
        if (tokens >= window)
            return FakeResponse::httpError(400,
                                           u"This model's maximum context length is 32000 tokens"_s,
                                           u"invalid_request_error"_s,
                                           u"context_length_exceeded"_s);
        if (turns % (commandsPerPrompt + 1) == 0)
            return withEstimatedUsage(FakeResponse::answer(u"All modules pass."_s), request);
        ++commands;
        return withEstimatedUsage(FakeResponse::toolCall(u"call_%1"_s.arg(commands),
                                                         u"shell"_s,
                                                         u"{\"command\":\"make test-%1\"}"_s.arg(
                                                                 commands)),
                                  request);
    });

    AgentSession session(std::make_shared<FakeCommandRunner>(runner),
                         ConversationStore(dir.filePath(u"conv"_s), dir.filePath(u"out"_s)));
    SessionConfiguration configuration;
    configuration.provider.baseUrl = server.baseUrl();
    configuration.provider.apiKey = u"sk-soak"_s;
    configuration.provider.model = u"small-window-model"_s;
    configuration.provider.stream = false;
    configuration.maxTurns = commandsPerPrompt + 1;
    configuration.workspace = dir.filePath(u"workspace"_s);
    configuration.rules = {PermissionRule{u"shell(make *)"_s, RuleEffect::Allow, RuleOrigin::App}};
    configuration.context.contextWindow = window;
    session.configure(configuration);
    AgentController &controller = session.controller();
    QSignalSpy failed(&controller, &AgentController::failed);
    QSignalSpy finished(&controller, &AgentController::finished);
    QSignalSpy compacted(&controller, &AgentController::compacted);
    QSignalSpy notices(&controller, &AgentController::notice);

    for (int prompt = 1; prompt <= prompts; ++prompt) {
        QVERIFY(controller.run(u"Run the tests of part %1 module by module."_s.arg(prompt)));
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() + failed.size() == prompt, 60000);
        if (!failed.isEmpty())
            QFAIL(qPrintable(failed.first().first().value<Error>().toString()));
    }

    QCOMPARE(turns, prompts * (commandsPerPrompt + 1));
    QVERIFY2(overTheWindow.isEmpty(), qPrintable(overTheWindow.join(u", "_s)));
    QVERIFY(notices.isEmpty()); // no context-length error was ever needed
    QVERIFY(!compacted.isEmpty());
    QVERIFY(summaries > 0);
    qInfo("%d turns, %lld compactions, %d summary requests, largest request %lld tokens",
          turns,
          qlonglong(compacted.size()),
          summaries,
          largestRequest);

    // Every original message, word for word, in the conversation file.
    const History &full = controller.history();
    QCOMPARE(full.size(), 1 + prompts * (1 + 2 * commandsPerPrompt + 1));
    const Result<LoadedConversation> saved = ConversationStore::loadFile(
            session.recorder().filePath());
    QVERIFY(saved);
    QVERIFY(saved->repairs.isEmpty());
    QCOMPARE(saved->history.toJson(), full.toJson());
    QCOMPARE(saved->compactions, controller.compactions());
    int command = 0;
    for (const Message &message : full.messages()) {
        if (message.role() == Role::Tool)
            QVERIFY(message.content().contains(commandOutput(++command)));
    }
    QCOMPARE(command, prompts * commandsPerPrompt);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ContextSoak)
#include "tst_contextsoak.moc"
