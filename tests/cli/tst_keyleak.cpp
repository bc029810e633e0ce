// The leak test for agentloop-cli, black box: a distinctive fake key goes through a tool-calling
// conversation (with a transcript and, where the CLI has it, a conversation file), a provider
// that answers 401 and echoes the whole key in its error message, a model that writes the key
// in its answer and a command that prints it. Afterwards every file the CLI could have written
// (HOME, every XDG_* directory and TMPDIR all point into one temporary directory) and everything
// it printed is searched for the key: there must be no hit. On Windows TEMP and TMP point there;
// the CLI writes only the files it is given and temporary files (it has no use for the known
// folders that HOME stands for).
//
// The server lives on this process's event loop, so every wait here spins the event loop.

#include "base/redaction.h"
#include "fakechatserver.h"
#include "leaksearch.h"
#include "protocol/message.h"
#include "pseudoterminal.h"
#include "storage/conversationstore.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_KeyLeak : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void toolCallingRunWithTranscript();
    void continuedConversation();
    void unauthorizedErrorEchoingTheKey();
    void modelEchoingTheKey();
    // Last: searches what all the runs above left behind.
    void keyIsNowhere();

    // The model has a command read the CLI's own environment, /proc/$PPID/environ: the key has
    // been taken out of it. Each searches what its run left behind.
    void commandReadingTheCliEnvironmentInBase64();
    void commandReadingTheCliEnvironmentRaw();
    // The key read from a file (as a .env holds it) and encoded by the command: every encoding
    // is masked before the model, the transcript or the terminal get it.
    void commandEncodingTheKeyFromAFile();

private:
    struct Run
    {
        QString name;
        QByteArray out;
        QByteArray err;
        qint64 pid = 0;
    };
    // What one approved shell command left: the tool message the provider received, its whole
    // request, the transcript, and what the CLI printed.
    struct CommandTrace
    {
        QString toolContent;
        QByteArray requestBody;
        QByteArray transcript;
        Run run;
    };

    QProcessEnvironment environmentFor(const QUrl &baseUrl) const;
    // environmentFor() with the system's PATH (cat, base64, od...), a marker variable to find
    // in the CLI's environment, and without the copy of the key under another name unless asked.
    QProcessEnvironment environmentWithTools(const QUrl &baseUrl, bool keyCopy) const;
    // Runs the CLI to its end. With an approvalAnswer, a terminal is its standard input and every
    // approval prompt is answered with it; without one, standard input is at its end. An empty
    // environment means environmentFor(baseUrl).
    bool runCli(const QString &name,
                const QUrl &baseUrl,
                const QStringList &arguments,
                const QByteArray &approvalAnswer,
                int *exitCode,
                const QProcessEnvironment &environment = {});
    // A model that asks for command once, approved at the terminal, then answers.
    bool runApprovedCommand(const QString &name,
                            const QString &command,
                            bool keyCopy,
                            CommandTrace *trace);
    // Every hit of the key in what the trace holds.
    QStringList hitsIn(const CommandTrace &trace) const;
    // runApprovedCommand() that fails the test unless the command ran and left the key nowhere.
    void traceApprovedCommand(const QString &name,
                              const QString &command,
                              bool keyCopy,
                              CommandTrace *trace);
    QString describeLast() const;

    QTemporaryDir m_root;
    QString m_key;
    QString m_work;
    QString m_transcript;
    QList<Run> m_runs;
    int m_lastExitCode = -1;
    bool m_cliHasConversation = false;
};

namespace {

// Generous: under Wine on a busy machine a process can take seconds to start.
constexpr int startTimeoutMs = 30000;
constexpr int exitTimeoutMs = 20000;
const QByteArray allowQuestion = "Allow this call? [y/a/N]";

// The commands are the CLI's shell's: /bin/sh, or cmd.exe on Windows, where an unset variable
// is left as it is written.
#ifdef Q_OS_WIN
const QString printKeys = u"echo \"the key is <%OPENAI_API_KEY%> %AGENTLOOP_KEY_COPY%\""_s;
const QString printedKeys = u"the key is <%OPENAI_API_KEY%> [REDACTED]"_s;
const QString printKeyCopy = u"echo again %AGENTLOOP_KEY_COPY%"_s;
#else
const QString printKeys = u"echo \"the key is <$OPENAI_API_KEY> $AGENTLOOP_KEY_COPY\""_s;
const QString printedKeys = u"the key is <> [REDACTED]"_s;
const QString printKeyCopy = u"echo \"again $AGENTLOOP_KEY_COPY\""_s;
#endif

// In the CLI's environment, so that a command reading it shows that it did.
constexpr char markerVariable[] = "AGENTLOOP_LEAKTEST_MARKER";
constexpr char markerValue[] = "marker-7d41c2e9";

// Why a command cannot read the CLI's environment from /proc/$PPID/environ here, or null.
const char *cliEnvironmentUnreadable()
{
#ifdef Q_OS_WIN
    return "Windows has no /proc/<pid>/environ (tst_environmentscrub covers its environment "
           "block).";
#else
    return PseudoTerminal::unavailableReason();
#endif
}

} // namespace

void tst_KeyLeak::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(AGENTLOOP_CLI_PATH)).isExecutable(), AGENTLOOP_CLI_PATH);
    QVERIFY(m_root.isValid());
    QString hex;
    for (int i = 0; i < 24; ++i)
        hex += QString::number(QRandomGenerator::global()->bounded(16), 16);
    m_key = u"sk-leaktest-"_s + hex;

    QDir root(m_root.path());
    for (const QString &dir : {u"home/.config"_s,
                               u"home/.local/share"_s,
                               u"home/.cache"_s,
                               u"home/.local/state"_s,
                               u"tmp"_s,
                               u"bin"_s,
                               u"work"_s}) {
        QVERIFY(root.mkpath(dir));
    }
    m_work = QFileInfo(root.filePath(u"work"_s)).canonicalFilePath();
    m_transcript = QDir(m_work).filePath(u"transcript.jsonl"_s);

    // Whether this build's CLI can continue a saved conversation.
    int exitCode = -1;
    QVERIFY(runCli(u"help"_s, QUrl(u"http://127.0.0.1:9/v1"_s), {u"--help"_s}, {}, &exitCode));
    QCOMPARE(exitCode, 0);
    m_cliHasConversation = m_runs.constLast().out.contains("--conversation");
}

QProcessEnvironment tst_KeyLeak::environmentFor(const QUrl &baseUrl) const
{
    const QString root = m_root.path();
    QProcessEnvironment environment;
#ifdef Q_OS_WIN
    // Qt's DLLs and cmd.exe are found through this process's PATH.
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString &name : {u"PATH"_s, u"SystemRoot"_s, u"ComSpec"_s})
        environment.insert(name, system.value(name));
    environment.insert(u"TEMP"_s, QDir::toNativeSeparators(root + u"/tmp"_s));
    environment.insert(u"TMP"_s, QDir::toNativeSeparators(root + u"/tmp"_s));
#else
    // Nothing on PATH: the shell tool uses /bin/sh, and echo is built in.
    environment.insert(u"PATH"_s, root + u"/bin"_s);
#endif
    environment.insert(u"HOME"_s, root + u"/home"_s);
    environment.insert(u"XDG_CONFIG_HOME"_s, root + u"/home/.config"_s);
    environment.insert(u"XDG_DATA_HOME"_s, root + u"/home/.local/share"_s);
    environment.insert(u"XDG_CACHE_HOME"_s, root + u"/home/.cache"_s);
    environment.insert(u"XDG_STATE_HOME"_s, root + u"/home/.local/state"_s);
    environment.insert(u"XDG_RUNTIME_DIR"_s, root + u"/tmp"_s);
    environment.insert(u"TMPDIR"_s, root + u"/tmp"_s);
    environment.insert(u"LC_ALL"_s, u"C.UTF-8"_s);
    environment.insert(u"LANGUAGE"_s, u"en"_s);
    environment.insert(u"OPENAI_BASE_URL"_s, baseUrl.toString());
    environment.insert(u"OPENAI_API_KEY"_s, m_key);
    // The key by another route (a file, another variable): commands can still print it.
    environment.insert(u"AGENTLOOP_KEY_COPY"_s, m_key);
    environment.insert(u"OPENAI_MODEL"_s, u"gpt-4.1"_s);
    return environment;
}

bool tst_KeyLeak::runCli(const QString &name,
                         const QUrl &baseUrl,
                         const QStringList &arguments,
                         const QByteArray &approvalAnswer,
                         int *exitCode,
                         const QProcessEnvironment &environment)
{
    QProcess process;
    process.setStandardInputFile(QProcess::nullDevice());
    std::optional<PseudoTerminal> terminal;
    if (!approvalAnswer.isEmpty()) {
        terminal.emplace();
        if (!terminal->isOpen())
            return false;
        terminal->attachTo(process);
    }
    process.setProgram(QStringLiteral(AGENTLOOP_CLI_PATH));
    process.setArguments(arguments);
    process.setProcessEnvironment(environment.isEmpty() ? environmentFor(baseUrl) : environment);
    process.setWorkingDirectory(m_work);
    Run run{name, {}, {}};
    connect(&process, &QProcess::readyReadStandardOutput, &process, [&] {
        run.out += process.readAllStandardOutput();
    });
    connect(&process, &QProcess::readyReadStandardError, &process, [&] {
        run.err += process.readAllStandardError();
    });
    QSignalSpy finished(&process, &QProcess::finished);
    process.start();
    if (!QTest::qWaitFor([&] { return process.state() == QProcess::Running || !finished.isEmpty(); },
                         startTimeoutMs)) {
        return false;
    }
    run.pid = process.processId();
    qsizetype answered = 0;
    const bool ended = QTest::qWaitFor(
            [&] {
                if (!approvalAnswer.isEmpty() && run.err.count(allowQuestion) > answered) {
                    ++answered;
                    terminal->type(approvalAnswer);
                }
                return !finished.isEmpty();
            },
            exitTimeoutMs);
    if (!ended) {
        process.kill();
        process.waitForFinished(2000); // clean-up after a failure only
    }
    run.out += process.readAllStandardOutput();
    run.err += process.readAllStandardError();
    m_lastExitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    *exitCode = m_lastExitCode;
    m_runs.append(run);
    return ended;
}

QString tst_KeyLeak::describeLast() const
{
    if (m_runs.isEmpty())
        return {};
    const Run &run = m_runs.constLast();
    // Printed only when a run failed; keyIsNowhere() still reports any key in it.
    return u"run %1, exit code %2\n--- stdout ---\n%3\n--- stderr ---\n%4"_s
            .arg(run.name,
                 QString::number(m_lastExitCode),
                 QString::fromUtf8(run.out),
                 QString::fromUtf8(run.err))
            .replace(m_key, u"<KEY>"_s);
}

void tst_KeyLeak::toolCallingRunWithTranscript()
{
    if (const char *why = PseudoTerminal::unavailableReason())
        QSKIP(why);
    FakeChatServer server;
    server.setRequiredApiKey(m_key.toUtf8());
    // The model asks for the key from the environment: OPENAI_API_KEY is withheld from commands,
    // but a copy reached by another route is printed.
    server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(printKeys)),
                   FakeResponse::answer(u"Done."_s)});
    int exitCode = -1;
    QVERIFY2(runCli(u"tool call"_s,
                    server.baseUrl(),
                    {u"--prompt"_s, u"print the key"_s, u"--transcript"_s, m_transcript},
                    "y\n",
                    &exitCode),
             qPrintable(describeLast()));
    QVERIFY2(exitCode == 0, qPrintable(describeLast()));

    // The key was really used: the provider got it, and the command really printed it.
    const QList<RecordedRequest> requests = server.requests();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(requests.at(0).header("Authorization"), "Bearer " + m_key.toUtf8());
    const QList<QJsonObject> toolMessages = requests.at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 1);
    // The command printed the key (so the search below means something), and even the provider
    // got it back blanked out.
    QVERIFY2(toolMessages.first().value(u"content"_s).toString().contains(printedKeys),
             qPrintable(
                     toolMessages.first().value(u"content"_s).toString().replace(m_key, u"<KEY>"_s)));

    // The search is meaningful only when the transcript is there.
    const QByteArray transcript = readFile(m_transcript);
    QVERIFY2(!transcript.isEmpty(), qPrintable(m_transcript));
    QCOMPARE(transcript.count('\n'), 2);
}

void tst_KeyLeak::continuedConversation()
{
    if (!m_cliHasConversation)
        QSKIP("agentloop-cli --help does not list --conversation yet: the conversation file "
              "part of the leak test is not run");

    // A conversation saved earlier, as the desktop app would have saved it.
    const ConversationStore store(QDir(m_work).filePath(u"conversations"_s));
    ConversationWriter writer;
    const Result<ConversationHeader> created = writer.create(store,
                                                             u"Earlier"_s,
                                                             u"gpt-4.1"_s,
                                                             QUrl(u"http://127.0.0.1/v1"_s));
    QVERIFY2(created, qPrintable(created ? QString() : created.error().message));
    QVERIFY(writer.append(Message::user(u"an earlier question"_s)));
    QVERIFY(writer.append(Message::assistant(u"an earlier answer"_s)));
    const QString conversation = writer.path();
    writer.close();
    const qint64 sizeBefore = QFileInfo(conversation).size();

    FakeChatServer server;
    server.setRequiredApiKey(m_key.toUtf8());
    server.script({FakeResponse::toolCall(u"call_2"_s, u"shell"_s, shellArguments(printKeyCopy)),
                   FakeResponse::answer(u"Here it is again: "_s + m_key)});
    int exitCode = -1;
    QVERIFY2(runCli(u"conversation"_s,
                    server.baseUrl(),
                    {u"--prompt"_s,
                     u"once more"_s,
                     u"--conversation"_s,
                     conversation,
                     u"--transcript"_s,
                     QDir(m_work).filePath(u"transcript-2.jsonl"_s)},
                    // Without a terminal the call is denied; the messages around it are written.
                    PseudoTerminal::unavailableReason() ? QByteArray() : QByteArray("y\n"),
                    &exitCode),
             qPrintable(describeLast()));
    QVERIFY2(exitCode == 0, qPrintable(describeLast()));
    QCOMPARE(server.requests().size(), 2);
    QCOMPARE(server.requests().at(0).header("Authorization"), "Bearer " + m_key.toUtf8());
    // The new messages were appended: the file was really written with the key around.
    QVERIFY2(QFileInfo(conversation).size() > sizeBefore, qPrintable(conversation));
}

void tst_KeyLeak::unauthorizedErrorEchoingTheKey()
{
    FakeChatServer server;
    // A careless provider: its 401 names the whole key, in the message and in a header.
    server.setHandler([this](const RecordedRequest &request) {
        FakeResponse response = FakeResponse::httpError(
                401,
                u"Incorrect API key provided: %1. Bearer token was: %2"_s
                        .arg(m_key, QString::fromUtf8(request.header("Authorization"))),
                u"invalid_request_error"_s,
                u"invalid_api_key"_s);
        response.headers.append({"X-Debug-Key", m_key.toUtf8()});
        return response;
    });
    int exitCode = -1;
    QVERIFY2(runCli(u"401"_s,
                    server.baseUrl(),
                    {u"--prompt"_s,
                     u"hello"_s,
                     u"--max-retries"_s,
                     u"0"_s,
                     u"--transcript"_s,
                     QDir(m_work).filePath(u"transcript-401.jsonl"_s)},
                    {},
                    &exitCode),
             qPrintable(describeLast()));
    QVERIFY2(exitCode == 4, qPrintable(describeLast()));
    QCOMPARE(server.requests().size(), 1);
    QCOMPARE(server.requests().at(0).header("Authorization"), "Bearer " + m_key.toUtf8());
    // The error did reach the user, only without the key.
    QVERIFY2(m_runs.constLast().err.contains("Incorrect API key provided"),
             qPrintable(describeLast()));
    QVERIFY(!readFile(QDir(m_work).filePath(u"transcript-401.jsonl"_s)).isEmpty());
}

void tst_KeyLeak::modelEchoingTheKey()
{
    FakeChatServer server;
    server.setRequiredApiKey(m_key.toUtf8());
    server.script({FakeResponse::answer(u"Your key is "_s + m_key + u", keep it safe."_s)});
    int exitCode = -1;
    QVERIFY2(runCli(u"echoing model"_s,
                    server.baseUrl(),
                    {u"--prompt"_s,
                     u"what is my key?"_s,
                     u"--transcript"_s,
                     QDir(m_work).filePath(u"transcript-echo.jsonl"_s)},
                    {},
                    &exitCode),
             qPrintable(describeLast()));
    QVERIFY2(exitCode == 0, qPrintable(describeLast()));
    QCOMPARE(server.requests().size(), 1);
    QCOMPARE(server.requests().at(0).header("Authorization"), "Bearer " + m_key.toUtf8());
    // The answer is printed, with the key blanked out.
    QVERIFY2(m_runs.constLast().out.contains("Your key is "), qPrintable(describeLast()));
}

void tst_KeyLeak::keyIsNowhere()
{
    const KeyNeedles needles = keyNeedles(m_key);
    QStringList hits;
    int filesSearched = 0;
    QDirIterator it(m_root.path(),
                    QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info = it.fileInfo();
        if (info.isSymLink())
            continue;
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path + u": "_s + file.errorString()));
        hits << keyHits(file.readAll(), QDir(m_root.path()).relativeFilePath(path), needles);
        // The file name too.
        hits << keyHits(path.toUtf8(), u"file name"_s, needles);
        ++filesSearched;
    }
    for (const Run &run : std::as_const(m_runs)) {
        hits << keyHits(run.out, u"stdout of run \"%1\""_s.arg(run.name), needles);
        hits << keyHits(run.err, u"stderr of run \"%1\""_s.arg(run.name), needles);
    }
    QVERIFY2(filesSearched > 0, "nothing was written: the search proves nothing");
    // The transcripts hold every request and response: the search means something only with them.
    const QFileInfoList transcripts = QDir(m_work).entryInfoList({u"transcript*.jsonl"_s},
                                                                 QDir::Files);
    QVERIFY2(transcripts.size() >= 2, qPrintable(m_work));
    for (const QFileInfo &transcript : transcripts)
        QVERIFY2(transcript.size() > 0, qPrintable(transcript.filePath()));
    for (const QString &hit : std::as_const(hits))
        qWarning("key found in %s", qPrintable(hit.section(u':', 0, 0)));
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
    qInfo("searched %d files and the output of %d runs", filesSearched, int(m_runs.size()));
}

QProcessEnvironment tst_KeyLeak::environmentWithTools(const QUrl &baseUrl, bool keyCopy) const
{
    QProcessEnvironment environment = environmentFor(baseUrl);
    environment.insert(u"PATH"_s, u"/usr/local/bin:/usr/bin:/bin"_s);
    environment.insert(QString::fromLatin1(markerVariable), QString::fromLatin1(markerValue));
    if (!keyCopy)
        environment.remove(u"AGENTLOOP_KEY_COPY"_s);
    return environment;
}

bool tst_KeyLeak::runApprovedCommand(const QString &name,
                                     const QString &command,
                                     bool keyCopy,
                                     CommandTrace *trace)
{
    FakeChatServer server;
    server.setRequiredApiKey(m_key.toUtf8());
    server.script({FakeResponse::toolCall(u"call_env"_s, u"shell"_s, shellArguments(command)),
                   FakeResponse::answer(u"Done."_s)});
    const QString transcript = QDir(m_work).filePath(u"transcript-%1.jsonl"_s.arg(name));
    int exitCode = -1;
    const bool ended
            = runCli(name,
                     server.baseUrl(),
                     {u"--prompt"_s, u"show me the environment"_s, u"--transcript"_s, transcript},
                     "y\n",
                     &exitCode,
                     environmentWithTools(server.baseUrl(), keyCopy));
    const QList<RecordedRequest> requests = server.requests();
    if (!ended || exitCode != 0 || requests.size() != 2
        || requests.at(1).toolMessages().size() != 1) {
        return false;
    }
    // The key was really used.
    if (requests.at(0).header("Authorization") != "Bearer " + m_key.toUtf8())
        return false;
    trace->toolContent = requests.at(1).toolMessages().first().value(u"content"_s).toString();
    trace->requestBody = requests.at(1).body;
    trace->transcript = readFile(transcript);
    trace->run = m_runs.constLast();
    return !trace->transcript.isEmpty();
}

QStringList tst_KeyLeak::hitsIn(const CommandTrace &trace) const
{
    const KeyNeedles needles = keyNeedles(m_key);
    // The tool message as the provider's JSON holds it, as text, and as the bytes it came from.
    return keyHits(trace.requestBody, u"the request with the tool message"_s, needles)
           + keyHits(trace.toolContent.toUtf8(), u"the tool message"_s, needles)
           + keyHits(trace.toolContent.toLatin1(),
                     u"the tool message, one byte a character"_s,
                     needles)
           + keyHits(trace.transcript, u"the transcript"_s, needles)
           + keyHits(trace.run.out, u"stdout"_s, needles)
           + keyHits(trace.run.err, u"stderr"_s, needles);
}

void tst_KeyLeak::traceApprovedCommand(const QString &name,
                                       const QString &command,
                                       bool keyCopy,
                                       CommandTrace *trace)
{
    QVERIFY2(runApprovedCommand(name, command, keyCopy, trace), qPrintable(describeLast()));
    const QStringList hits = hitsIn(*trace);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
}

void tst_KeyLeak::commandReadingTheCliEnvironmentInBase64()
{
    if (const char *why = cliEnvironmentUnreadable())
        QSKIP(why);
    // As the attacker's model wrote it: the parent's environment in base64, then the variable.
    CommandTrace trace;
    traceApprovedCommand(u"environ-base64"_s,
                         uR"(echo "ppid=$PPID"; cat /proc/$PPID/environ | base64 -w0; )"
                         uR"(printf '%s' "$OPENAI_API_KEY")"_s,
                         false,
                         &trace);
    if (QTest::currentTestFailed())
        return;

    // The command did run, and read the CLI's environment: its base64 decodes whole (nothing in
    // it needed masking) to an environment with the marker and without OPENAI_API_KEY.
    const QStringList lines = trace.toolContent.trimmed().split(u'\n');
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines.at(0), u"ppid=%1"_s.arg(trace.run.pid));
    const auto decoded = QByteArray::fromBase64Encoding(lines.at(1).toLatin1(),
                                                        QByteArray::AbortOnBase64DecodingErrors);
    QVERIFY2(decoded, qPrintable(lines.at(1)));
    const QByteArray block = '\0' + *decoded;
    QVERIFY2(block.contains('\0' + QByteArray(markerVariable) + '=' + markerValue + '\0'),
             block.constData());
    QVERIFY2(!block.contains("OPENAI_API_KEY"), "the CLI's environment still names the key");
}

void tst_KeyLeak::commandReadingTheCliEnvironmentRaw()
{
    if (const char *why = cliEnvironmentUnreadable())
        QSKIP(why);
    // With the copy of the key under another name: the environment is printed as it is, and the
    // copy masked in it.
    CommandTrace trace;
    traceApprovedCommand(u"environ-raw"_s,
                         u"echo \"ppid=$PPID\"; cat /proc/$PPID/environ"_s,
                         true,
                         &trace);
    if (QTest::currentTestFailed())
        return;

    const QString shown = QString(trace.toolContent).replace(QChar(0), u'\n');
    QVERIFY2(shown.startsWith(u"ppid=%1\n"_s.arg(trace.run.pid)), qPrintable(shown));
    QVERIFY2(shown.contains(u"\n%1=%2\n"_s.arg(QString::fromLatin1(markerVariable),
                                               QString::fromLatin1(markerValue))),
             qPrintable(shown));
    QVERIFY2(shown.contains(u"\nAGENTLOOP_KEY_COPY=[REDACTED]\n"_s), qPrintable(shown));
    // Not even masked: the name is gone with the value.
    QVERIFY2(!shown.contains(u"OPENAI_API_KEY"_s), qPrintable(shown));
}

void tst_KeyLeak::commandEncodingTheKeyFromAFile()
{
#ifdef Q_OS_WIN
    QSKIP("cmd.exe, the shell the CLI runs here, has no base64, od or iconv to encode with.");
#else
    if (const char *why = PseudoTerminal::unavailableReason())
        QSKIP(why);
    for (const char *tool : {"base64", "basenc", "od", "tr", "sed", "iconv"}) {
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool),
                                           {u"/usr/local/bin"_s, u"/usr/bin"_s, u"/bin"_s})
                    .isEmpty()) {
            QSKIP(qPrintable(u"%1 is not installed"_s.arg(QString::fromLatin1(tool))));
        }
    }
    // Outside the folders the CLI writes to: the search below is of what it wrote.
    QTemporaryDir secrets;
    QVERIFY(secrets.isValid());
    const QString keyFile = QDir(secrets.path()).filePath(u"key"_s);
    {
        QFile file(keyFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(m_key.toUtf8()) == m_key.toUtf8().size());
    }
    // One labelled line per encoding.
    const QList<QPair<QString, QString>> encodings{
            {u"base64"_s, uR"(base64 -w0 "$f")"_s},
            {u"base64 after 1 byte"_s, uR"({ printf x; cat "$f"; } | base64 -w0)"_s},
            {u"base64 after 2 bytes"_s, uR"({ printf xy; cat "$f"; } | base64 -w0)"_s},
            {u"base64url"_s, uR"(basenc --base64url -w0 "$f")"_s},
            {u"hex"_s, uR"(od -An -v -tx1 "$f" | tr -d ' \n')"_s},
            {u"HEX"_s, uR"(od -An -v -tx1 "$f" | tr -d ' \n' | tr a-f A-F)"_s},
            {u"URL-encoded"_s, uR"(od -An -v -tx1 "$f" | tr -d '\n' | sed 's/ /%/g')"_s},
            {u"JSON-escaped"_s, uR"(od -An -v -tx1 "$f" | tr -d '\n' | sed 's/ /\\u00/g')"_s},
            {u"UTF-16LE"_s, uR"(iconv -f UTF-8 -t UTF-16LE "$f")"_s},
            {u"UTF-16BE"_s, uR"(iconv -f UTF-8 -t UTF-16BE "$f")"_s},
    };
    QString command = u"f='%1'"_s.arg(keyFile);
    for (const auto &[label, encode] : encodings)
        command += u"; echo '== %1'; %2; echo"_s.arg(label, encode);
    CommandTrace trace;
    traceApprovedCommand(u"encodings"_s, command, false, &trace);
    if (QTest::currentTestFailed())
        return;

    // Each encoding was made, and is masked where the key was.
    const QStringList lines = trace.toolContent.split(u'\n');
    for (const auto &encoding : encodings) {
        const QString &label = encoding.first;
        const qsizetype at = lines.indexOf(u"== "_s + label);
        QVERIFY2(at >= 0 && at + 1 < lines.size(), qPrintable(trace.toolContent));
        QVERIFY2(lines.at(at + 1).contains(QString::fromLatin1(redactedMarker)),
                 qPrintable(label + u": "_s + QString(lines.at(at + 1)).replace(QChar(0), u'.')));
    }
#endif
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_KeyLeak)

#include "tst_keyleak.moc"
