// The kill test: agentloop-cli continues a saved conversation against a FakeChatServer in this
// process, with the calls approved at a pseudo-terminal, and is killed with SIGKILL (on Windows
// TerminateProcess) at a random moment, 50 times: a random pause after a random step of the run
// (a request the server received, a line the CLI printed), so that every part of the run is hit
// however fast or slow the machine is. Where no terminal can be given to it (Wine),
// every call is denied at once instead of run. After each kill the conversation must load, hold every message that had been
// sent to the provider, pass the pairing check, and have no corrupt line but possibly the last.
//
// The seed is printed; AGENTLOOP_KILLTEST_SEED=<n> replays a run, AGENTLOOP_KILLTEST_RUNS=<n>
// changes the number of kills.

#include "fakechatserver.h"
#include "processreaper.h"
#include "pseudoterminal.h"
#include "storage/conversationstore.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

#ifndef Q_OS_WIN
#include <csignal>
#include <sys/types.h>
#endif

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_KillTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void killAtRandomMoments();

private:
    QTemporaryDir m_root;
    QString m_binDir;
    QString m_templatePath;
    QList<Message> m_saved;
};

namespace {

constexpr quint32 defaultSeed = 20261130;
constexpr int defaultRuns = 50;
constexpr int toolTurns = 3;

const QString allowQuestion = u"Allow this call? [y/a/N]"_s;

// What the CLI prints as the run goes: each is a step of the run.
const QStringList stepMarkers{u"[turn "_s,
                              allowQuestion,
                              u"Running shell"_s,
                              u"shell finished"_s,
                              u"shell did not succeed"_s};

// A short command of each step, in the shell the CLI uses: /bin/sh, or cmd.exe on Windows.
QString stepCommand(int step)
{
#ifdef Q_OS_WIN
    return u"ping -n 1 127.0.0.1 >nul & echo step %1"_s.arg(step);
#else
    return u"sleep 0.1; echo step %1"_s.arg(step);
#endif
}

// The 1-based number of the file's last non-empty line.
int lastLineNumber(const QByteArray &bytes)
{
    const QList<QByteArray> lines = bytes.split('\n');
    for (qsizetype i = lines.size() - 1; i >= 0; --i) {
        if (!lines.at(i).trimmed().isEmpty())
            return int(i + 1);
    }
    return 0;
}

int environmentNumber(const char *name, int fallback)
{
    bool ok = false;
    const int value = qEnvironmentVariableIntValue(name, &ok);
    return ok ? value : fallback;
}

// Where the CLI was when it was killed, from the last progress line it printed.
QString phaseOf(const QString &standardError, bool exited)
{
    if (exited)
        return u"not at all (the run finished first)"_s;
    const QList<std::pair<QString, QString>> markers{
            {u"[turn "_s, u"mid-request"_s},
            {allowQuestion, u"mid-approval"_s},
            {u"Running shell"_s, u"mid-command"_s},
            {u"shell finished"_s, u"mid-request"_s}, // the next request follows at once
    };
    qsizetype latest = -1;
    QString phase = u"at start-up"_s;
    for (const auto &[marker, name] : markers) {
        const qsizetype at = standardError.lastIndexOf(marker);
        if (at > latest) {
            latest = at;
            phase = name;
        }
    }
    return phase;
}

} // namespace

void tst_KillTest::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(AGENTLOOP_CLI_PATH)).isExecutable(), AGENTLOOP_CLI_PATH);
    QVERIFY(m_root.isValid());
    QDir root(m_root.path());
#ifndef Q_OS_WIN
    // The child's PATH holds only what the commands need, so that the CLI picks /bin/sh.
    QVERIFY(root.mkpath(u"bin"_s));
    m_binDir = root.filePath(u"bin"_s);
    const QString sleepPath = QStandardPaths::findExecutable(u"sleep"_s);
    QVERIFY(!sleepPath.isEmpty());
    QVERIFY(QFile::link(sleepPath, QDir(m_binDir).filePath(u"sleep"_s)));
#endif

    // A small saved conversation with one finished tool call.
    m_saved = {
            Message::user(u"say hello"_s),
            Message::assistant(std::nullopt,
                               {ToolCall{u"call_0"_s, u"shell"_s, shellArguments(u"echo hello"_s)}}),
            Message::tool(u"call_0"_s, u"hello"_s),
            Message::assistant(u"It said hello."_s),
    };
    ConversationStore store(root.filePath(u"template"_s));
    ConversationWriter writer;
    QVERIFY(writer.create(store, u"say hello"_s, u"gpt-4.1"_s, QUrl(u"http://127.0.0.1:1/v1"_s)));
    for (const Message &message : std::as_const(m_saved))
        QVERIFY(writer.append(message));
    m_templatePath = writer.path();
    writer.close();
}

void tst_KillTest::killAtRandomMoments()
{
    const quint32 seed = quint32(environmentNumber("AGENTLOOP_KILLTEST_SEED", int(defaultSeed)));
    const int runs = environmentNumber("AGENTLOOP_KILLTEST_RUNS", defaultRuns);
    qInfo("kill test: seed %u, %d runs (AGENTLOOP_KILLTEST_SEED=%u replays it)", seed, runs, seed);
    if (const char *why = PseudoTerminal::unavailableReason())
        qInfo("kill test: every call is denied, not run: %s", why);
    QRandomGenerator random(seed);

    QMap<QString, int> phases;
    int tornLines = 0;
    int interruptedRepairs = 0;
    int orphansReaped = 0;
    // The steps of a whole run: a request and a "[turn" line per turn; with a terminal each call
    // is asked, runs and finishes, without one it is denied.
    const int runSteps = (toolTurns + 1) * 2
                         + toolTurns * (PseudoTerminal::unavailableReason() ? 1 : 3);

    const QDir root(m_root.path());
    for (int run = 1; run <= runs; ++run) {
        const QString workDir = root.filePath(u"work-%1"_s.arg(run));
        QVERIFY(QDir().mkpath(workDir));
        QVERIFY(QDir().mkpath(workDir + u"/home"_s));
        const QString path = root.filePath(u"conversation-%1.jsonl"_s.arg(run));
        QVERIFY(QFile::copy(m_templatePath, path));

        // Several tool-call turns, then an answer, each after a short random delay.
        FakeChatServer server;
        int served = 0;
        server.setHandler([&](const RecordedRequest &request) {
            // The model list the CLI may look the context window up in is not a turn.
            if (request.method != "POST")
                return FakeResponse::models({u"gpt-4.1"_s});
            const int turn = ++served;
            const int delay = int(random.bounded(50, 350));
            if (turn <= toolTurns) {
                return FakeResponse::toolCall(u"call_%1"_s.arg(turn),
                                              u"shell"_s,
                                              shellArguments(stepCommand(turn)))
                        .withDelay(delay);
            }
            return FakeResponse::answer(u"All steps done."_s).withDelay(delay);
        });

        QProcessEnvironment environment;
#ifdef Q_OS_WIN
        // Qt's DLLs and cmd.exe are found through this process's PATH.
        const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
        for (const QString &name : {u"PATH"_s, u"SystemRoot"_s, u"ComSpec"_s})
            environment.insert(name, system.value(name));
#else
        environment.insert(u"PATH"_s, m_binDir);
#endif
        environment.insert(u"HOME"_s, workDir + u"/home"_s);
        environment.insert(u"XDG_CONFIG_HOME"_s, workDir + u"/home/.config"_s);
        environment.insert(u"XDG_DATA_HOME"_s, workDir + u"/home/.local/share"_s);
        environment.insert(u"LC_ALL"_s, u"C.UTF-8"_s);
        environment.insert(u"LANGUAGE"_s, u"en"_s);
        environment.insert(u"OPENAI_BASE_URL"_s, server.baseUrl().toString());
        environment.insert(u"OPENAI_API_KEY"_s, u"sk-killtest-0000"_s);
        environment.insert(u"OPENAI_MODEL"_s, u"gpt-4.1"_s);

        std::optional<PseudoTerminal> terminal;
        if (!PseudoTerminal::unavailableReason()) {
            terminal.emplace();
            QVERIFY(terminal->isOpen());
        }
        QProcess process;
        QSignalSpy finished(&process, &QProcess::finished);
        QByteArray standardError;
        connect(&process, &QProcess::readyReadStandardError, &process, [&] {
            standardError += process.readAllStandardError();
        });
        process.setProgram(QStringLiteral(AGENTLOOP_CLI_PATH));
        process.setArguments({u"--prompt"_s,
                              u"run the steps"_s,
                              u"--conversation"_s,
                              path,
                              u"--request-timeout"_s,
                              u"10"_s});
        process.setProcessEnvironment(environment);
        process.setWorkingDirectory(workDir);
        process.setStandardInputFile(QProcess::nullDevice());
        process.setStandardOutputFile(QProcess::nullDevice());
        if (terminal)
            terminal->attachTo(process);

        // The kill comes after this many steps of the run (all of them: the run may end first),
        // and a pause of up to a quarter of a second more.
        const int killAfter = int(random.bounded(0, runSteps + 1));
        const int pauseMs = int(random.bounded(0, 250));
        const auto stepsDone = [&] {
            const QString printed = QString::fromUtf8(standardError);
            qsizetype steps = server.requests().size();
            for (const QString &marker : stepMarkers)
                steps += printed.count(marker);
            return steps;
        };
        process.start();
        // Generous: under Wine on a busy machine a process can take seconds to start.
        QVERIFY(QTest::qWaitFor([&] { return process.state() != QProcess::Starting; }, 60000));
        QVERIFY2(process.state() == QProcess::Running || !finished.isEmpty(),
                 qPrintable(process.errorString()));

        // Approve each call after a short random pause, until the moment of the kill.
        int approved = 0;
        const auto approveWhatIsAsked = [&] {
            if (QString::fromUtf8(standardError).count(allowQuestion) <= approved)
                return true;
            QTest::qWait(int(random.bounded(0, 250))); // the user reads the question
            ++approved;
            return terminal && terminal->type("y\n");
        };
        while (stepsDone() < killAfter && finished.isEmpty()) {
            QTest::qWait(1);
            QVERIFY(approveWhatIsAsked());
        }
        if (finished.isEmpty())
            QTest::qWait(pauseMs);
        const bool exitedBeforeKill = !finished.isEmpty();
        if (!exitedBeforeKill) {
            testProcessReaper().track(); // what the CLI started is still known once it is gone
#ifdef Q_OS_WIN
            process.kill(); // TerminateProcess: no chance to clean up, as SIGKILL
#else
            QCOMPARE(::kill(pid_t(process.processId()), SIGKILL), 0);
#endif
        }
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, 60000));
        // A killed CLI had no chance to stop the command it was running (or, under Wine, its
        // console host): such orphans are this test's to end, now, not CTest's to wait for.
        const QStringList orphans = testProcessReaper().reapLeftovers();
        for (const QString &orphan : orphans)
            QVERIFY2(!orphan.endsWith(u"not killed"_s), qPrintable(orphan));
        orphansReaped += int(orphans.size());
        // The run can end on its own between the last look and the kill (a zombie on Linux, a
        // process that already exited on Windows): then it exited normally and was not killed.
        const bool ranToTheEnd = exitedBeforeKill || process.exitStatus() == QProcess::NormalExit;
        const QString phase = phaseOf(QString::fromUtf8(standardError), ranToTheEnd);
        ++phases[phase];

        // Everything the provider had been sent is what the process had completed.
        const QList<RecordedRequest> requests = server.requests();
        const QByteArray before = readFile(path);
        const QByteArray context = "run " + QByteArray::number(run) + " (seed "
                                   + QByteArray::number(seed) + ", killed "
                                   + QByteArray::number(pauseMs) + " ms after step "
                                   + QByteArray::number(killAfter) + ", " + phase.toUtf8()
                                   + ")\n--- file ---\n" + before + "\n--- stderr ---\n"
                                   + standardError;

        const Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
        QVERIFY2(loaded,
                 (context + "\n--- error ---\n"
                  + (loaded ? QByteArray() : loaded.error().message.toUtf8()))
                         .constData());
        QVERIFY2(loaded->history.checkPairing(), context.constData());

        const QJsonArray history = loaded->history.toJson();
        QVERIFY2(history.size() >= m_saved.size(), context.constData());
        for (qsizetype i = 0; i < m_saved.size(); ++i)
            QVERIFY2(history.at(i) == m_saved.at(i).toJson(), context.constData());
        if (!requests.isEmpty()) {
            const QJsonArray sent = requests.last().messages();
            QVERIFY2(sent.size() <= history.size(), context.constData());
            for (qsizetype i = 0; i < sent.size(); ++i)
                QVERIFY2(history.at(i) == sent.at(i),
                         (context + "\nmessage " + QByteArray::number(i)).constData());
        }

        // Only the last line may be torn, and the repairs only added to the file.
        static const QRegularExpression skipped(u"^Line (\\d+) could not be read and was skipped"_s);
        int skippedCount = 0;
        for (const QString &repair : loaded->repairs) {
            const QRegularExpressionMatch match = skipped.match(repair);
            if (match.hasMatch()) {
                ++skippedCount;
                QVERIFY2(match.captured(1).toInt() == lastLineNumber(before),
                         (context + "\n--- repair ---\n" + repair.toUtf8()).constData());
            } else if (repair.contains(u"interrupted"_s)) {
                ++interruptedRepairs;
            }
        }
        QVERIFY2(skippedCount <= 1, context.constData());
        tornLines += skippedCount;
        const QByteArray after = readFile(path);
        QVERIFY2(after.startsWith(before), context.constData());

        // Nothing is left of the kill: loading again finds a valid history.
        const Result<LoadedConversation> again = ConversationStore::loadFile(path);
        QVERIFY2(again && again->history.toJson() == history, context.constData());
    }

    QStringList summary;
    for (auto it = phases.cbegin(); it != phases.cend(); ++it)
        summary << u"%1 %2"_s.arg(it.value()).arg(it.key());
    qInfo("kill test: seed %u, %d runs, killed: %s; %d torn last line(s) skipped, "
          "%d interrupted tail(s) repaired, %d orphaned process(es) ended",
          seed,
          runs,
          qPrintable(summary.join(u", "_s)),
          tornLines,
          interruptedRepairs,
          orphansReaped);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_KillTest)

#include "tst_killtest.moc"
