#include "fakecommandrunner.h"
#include "longoutput.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"
#include "testshell.h"
#include "tools/shelltool.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_ShellTool : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void descriptionNamesTheShell_data();
    void descriptionNamesTheShell();
    void schema();
    void prepare_data();
    void prepare();
    void resultFor_data();
    void resultFor();
    void outputCap_data();
    void outputCap();
    void invokeRunsThePreparedCommandInTheWorkspace();
    void cancelledRunIsACancelledResult();
    void descriptionNamesTheShellThatRuns();
    void realShell_data();
    void realShell();
    void realShellOutputIsCapped();
    void realShellWorkingDirectoryIsTheWorkspace();
    void outputFileNote_data();
    void outputFileNote();
    void decodingIsNamedInTheResult();
    void invokeAsksForTheOutputFolderAtEachCall();
    void realLongOutputIsSavedAndNamed();
    void realUnwritableOutputFolderStillSucceeds();
};

namespace {

constexpr int processTimeoutMs = Testing::hangGuardMs;

// What the runner kept of a stream of totalChars characters.
CapturedText kept(const QString &head, const QString &tail, qint64 totalChars)
{
    CapturedText text;
    text.head = head;
    text.tail = tail;
    text.totalChars = totalChars;
    return text;
}

CapturedText captured(const QString &text)
{
    return kept(text, {}, text.size());
}

CommandOutcome exited(int exitCode, const QString &out, const QString &err = {})
{
    CommandOutcome outcome;
    outcome.status = CommandOutcome::Exited;
    outcome.exitCode = exitCode;
    outcome.standardOutput = captured(out);
    outcome.standardError = captured(err);
    return outcome;
}

CommandOutcome withStatus(CommandOutcome::Status status,
                          const QString &errorString,
                          const QString &out = {},
                          int exitCode = -1)
{
    CommandOutcome outcome = exited(exitCode, out);
    outcome.status = status;
    outcome.errorString = errorString;
    return outcome;
}

PreparedCall prepared(const Tool &tool, const QString &arguments)
{
    const Preparation preparation = tool.prepare({u"call_1"_s, u"shell"_s, arguments});
    if (const auto *result = std::get_if<ToolResult>(&preparation))
        qFatal("could not prepare %s: %s", qPrintable(arguments), qPrintable(result->content));
    return std::get<PreparedCall>(preparation);
}

// Invokes the tool for one command and waits for its one result.
std::optional<ToolResult> runCommand(const ShellTool &tool, const QString &command)
{
    QObject owner;
    ToolRun *run = tool.invoke(prepared(tool, shellArguments(command)), &owner);
    QSignalSpy spy(run, &ToolRun::finished);
    if (!QTest::qWaitFor([&] { return !spy.isEmpty(); }, processTimeoutMs))
        return std::nullopt;
    QTest::qWait(20); // a second finished() would arrive now
    if (spy.size() != 1)
        return std::nullopt;
    return spy.first().first().value<ToolResult>();
}

// Runs command with the machine's shell (detectShell()) in workspace, its whole output, when
// long, going to outputFolder.
std::optional<ToolResult> runWithOutputFolder(const QString &workspace,
                                              const QString &outputFolder,
                                              const QString &command)
{
    ShellToolOptions options;
    options.workspace = workspace;
    options.outputDirectory = [outputFolder] {
        return outputFolder;
    };
    return runCommand(ShellTool(std::make_shared<ProcessCommandRunner>(detectShell()), options),
                      command);
}

} // namespace

void tst_ShellTool::initTestCase()
{
    qRegisterMetaType<ToolResult>();
}

void tst_ShellTool::descriptionNamesTheShell_data()
{
    QTest::addColumn<ShellInfo>("shell");
    QTest::addColumn<QString>("named");

    QTest::newRow("pwsh") << ShellInfo{ShellInfo::PowerShellCore,
                                       u"/usr/bin/pwsh"_s,
                                       u"PowerShell 7 (pwsh)"_s}
                          << u"PowerShell"_s;
    QTest::newRow("Windows PowerShell")
            << ShellInfo{ShellInfo::WindowsPowerShell, u"powershell.exe"_s, u"Windows PowerShell"_s}
            << u"PowerShell"_s;
    QTest::newRow("cmd") << ShellInfo{ShellInfo::Cmd, u"cmd.exe"_s, u"cmd.exe"_s} << u"cmd.exe"_s;
    QTest::newRow("/bin/sh") << posixShell() << u"/bin/sh"_s;
}

void tst_ShellTool::descriptionNamesTheShell()
{
    QFETCH(ShellInfo, shell);
    QFETCH(QString, named);

    const ShellTool tool(std::make_shared<FakeCommandRunner>(shell), {});
    QCOMPARE(tool.name(), u"shell"_s);
    QVERIFY2(tool.description().contains(named), qPrintable(tool.description()));
    QVERIFY2(tool.description().contains(u"shell_failed"_s), qPrintable(tool.description()));
    QVERIFY2(tool.approvalReason().contains(named), qPrintable(tool.approvalReason()));
    QVERIFY2(tool.approvalReason().contains(u"requires explicit approval"_s),
             qPrintable(tool.approvalReason()));
    // A PowerShell description must not claim a POSIX shell, and the other way round.
    const bool isPowerShell = shell.isPowerShell();
    QCOMPARE(tool.description().contains(u"PowerShell"_s), isPowerShell);
    QCOMPARE(tool.description().contains(u"/bin/sh"_s), shell.kind == ShellInfo::PosixShell);
    // npm and npx are npm.ps1 and npx.ps1: the model must know that scripts run.
    QCOMPARE(tool.description().contains(u"The execution policy is Bypass for this process, so "
                                         u"npm, npx and .ps1 scripts run."_s),
             isPowerShell);
    // `start` and `code .` do not outlive the command.
    QVERIFY(tool.description().endsWith(u" Programs the command starts in the background or in a "
                                        u"window of their own are closed when it ends."_s));
    // What the model sees in the request.
    QCOMPARE(tool.definition()[u"function"_s][u"description"_s].toString(), tool.description());
}

void tst_ShellTool::schema()
{
    const ShellTool tool(std::make_shared<FakeCommandRunner>(), {});
    QCOMPARE(tool.sideEffect(), SideEffect::Execute);
    QVERIFY(tool.needsApproval());

    const QJsonObject schema = tool.parameters().schema();
    QCOMPARE(schema.value(u"type"_s).toString(), u"object"_s);
    QCOMPARE(schema.value(u"properties"_s).toObject().keys(), QStringList{u"command"_s});
    const QJsonObject command = schema[u"properties"_s][u"command"_s].toObject();
    QCOMPARE(command.value(u"type"_s).toString(), u"string"_s);
    QCOMPARE(command.value(u"minLength"_s).toInt(), 1);
    QCOMPARE(schema.value(u"required"_s).toArray(), QJsonArray{u"command"_s});
    QVERIFY(schema.value(u"additionalProperties"_s).isBool());
    QCOMPARE(schema.value(u"additionalProperties"_s).toBool(), false);

    const QJsonObject definition = tool.definition();
    QCOMPARE(definition.value(u"type"_s).toString(), u"function"_s);
    QCOMPARE(definition[u"function"_s][u"name"_s].toString(), u"shell"_s);
    QCOMPARE(definition[u"function"_s][u"parameters"_s].toObject(), schema);
}

void tst_ShellTool::prepare_data()
{
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<QString>("error"); // empty: prepared
    QTest::addColumn<QString>("command");

    QTest::newRow("seed") << uR"({"command":"Write-Output 42"})"_s << QString()
                          << u"Write-Output 42"_s;
    QTest::newRow("spaces around")
            << uR"( { "command" : "echo 42" } )"_s << QString() << u"echo 42"_s;
    QTest::newRow("not JSON") << uR"({"command": "echo 42")"_s << u"not valid JSON"_s << QString();
    QTest::newRow("array") << uR"(["echo 42"])"_s << u"JSON object"_s << QString();
    QTest::newRow("missing command")
            << uR"({})"_s << uR"(missing required property "command")"_s << QString();
    QTest::newRow("empty arguments")
            << QString() << uR"(missing required property "command")"_s << QString();
    QTest::newRow("empty command")
            << uR"({"command":""})"_s << u"/command: must be at least"_s << QString();
    QTest::newRow("blank command") << uR"({"command":"   "})"_s << u"/command:"_s << QString();
    QTest::newRow("command a number") << uR"({"command":42})"_s << u"/command:"_s << QString();
    QTest::newRow("extra field") << uR"({"command":"ls","cwd":"/"})"_s
                                 << uR"(property "cwd" is not allowed)"_s << QString();
}

void tst_ShellTool::prepare()
{
    QFETCH(QString, arguments);
    QFETCH(QString, error);
    QFETCH(QString, command);

    FakeCommandRunner runner;
    const ShellTool tool(std::make_shared<FakeCommandRunner>(runner), {});
    const Preparation preparation = tool.prepare({u"call_1"_s, u"shell"_s, arguments});
    if (error.isEmpty()) {
        const auto *call = std::get_if<PreparedCall>(&preparation);
        QVERIFY(call);
        QCOMPARE(call->arguments.value(u"command"_s).toString(), command);
        QCOMPARE(call->call.arguments, arguments); // the text the model wrote, unchanged
    } else {
        const auto *result = std::get_if<ToolResult>(&preparation);
        QVERIFY(result);
        QVERIFY(!result->ok);
        QCOMPARE(result->errorCode, u"invalid_arguments"_s);
        QVERIFY2(result->content.startsWith(u"invalid_arguments: "_s), qPrintable(result->content));
        QVERIFY2(result->content.contains(error), qPrintable(result->content));
    }
    QVERIFY(runner.requests().isEmpty()); // prepare never runs anything
}

void tst_ShellTool::resultFor_data()
{
    QTest::addColumn<CommandOutcome>("outcome");
    QTest::addColumn<QString>("content"); // exact, or a prefix when exact is false
    QTest::addColumn<bool>("exact");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("errorCode");
    QTest::addColumn<int>("exitCode");

    QTest::newRow("exit 0: stdout without trailing newline")
            << exited(0, u"42\n"_s) << u"42"_s << true << true << QString() << 0;
    QTest::newRow("exit 0: Chinese")
            << exited(0, u"中文\n"_s) << u"中文"_s << true << true << QString() << 0;
    QTest::newRow("exit 0: inner newlines kept")
            << exited(0, u"a\nb\n\n"_s) << u"a\nb\n"_s << true << true << QString() << 0;
    QTest::newRow("exit 0: CRLF line ends (cmd.exe, PowerShell)")
            << exited(0, u"a\r\nb\r\n"_s) << u"a\r\nb"_s << true << true << QString() << 0;
    QTest::newRow("exit 1: CRLF before [stderr]")
            << exited(1, u"out\r\n"_s, u"err\r\n"_s)
            << u"shell_failed: exit code 1\nout\n[stderr]\nerr"_s << true << false
            << u"shell_failed"_s << 1;
    QTest::newRow("exit 0: no output")
            << exited(0, {}) << u"(no output)"_s << true << true << QString() << 0;
    QTest::newRow("exit 0: stdout and stderr both kept")
            << exited(0, u"out\n"_s, u"warning: x\n"_s) << u"out\n[stderr]\nwarning: x"_s << true
            << true << QString() << 0;
    QTest::newRow("exit 0: stderr only")
            << exited(0, {}, u"note\n"_s) << u"note"_s << true << true << QString() << 0;
    QTest::newRow("exit 1 (experiment 3)")
            << exited(1, {}, u"boom\n"_s) << u"shell_failed: exit code 1\nboom"_s << true << false
            << u"shell_failed"_s << 1;
    QTest::newRow("exit 1, no output") << exited(1, {}) << u"shell_failed: exit code 1"_s << false
                                       << false << u"shell_failed"_s << 1;
    QTest::newRow("exit 127 keeps both streams")
            << exited(127, u"partial\n"_s, u"sh: foo: not found\n"_s)
            << u"shell_failed: exit code 127\npartial\n[stderr]\nsh: foo: not found"_s << true
            << false << u"shell_failed"_s << 127;
    QTest::newRow("crashed") << withStatus(CommandOutcome::Crashed, u"Process crashed"_s, {}, 9)
                             << u"shell_failed: the shell was killed by a signal"_s << false
                             << false << u"shell_failed"_s << -1;
    QTest::newRow("timed out") << withStatus(CommandOutcome::TimedOut, u"timeout"_s, u"tick\n"_s)
                               << u"shell_timeout: the command was still running after 120 s"_s
                               << false << false << u"shell_timeout"_s << -1;
    QTest::newRow("cancelled") << withStatus(CommandOutcome::Cancelled, u"cancelled"_s)
                               << u"cancelled: "_s << false << false << u"cancelled"_s << -1;
    QTest::newRow("failed to start")
            << withStatus(CommandOutcome::FailedToStart, u"No such file or directory"_s)
            << u"shell_error: could not start /bin/sh: No such file or directory"_s << true << false
            << u"shell_error"_s << -1;
}

void tst_ShellTool::resultFor()
{
    QFETCH(CommandOutcome, outcome);
    QFETCH(QString, content);
    QFETCH(bool, exact);
    QFETCH(bool, ok);
    QFETCH(QString, errorCode);
    QFETCH(int, exitCode);

    const ToolResult result = ShellTool::resultFor(outcome, ShellToolOptions{}, posixShell());
    if (exact)
        QCOMPARE(result.content, content);
    else
        QVERIFY2(result.content.startsWith(content), qPrintable(result.content));
    QCOMPARE(result.ok, ok);
    QCOMPARE(result.errorCode, errorCode);
    QCOMPARE(result.exitCode, exitCode);
    if (!ok)
        QVERIFY(result.content.startsWith(errorCode + u": "_s));
    if (outcome.status == CommandOutcome::TimedOut)
        QVERIFY2(result.content.contains(u"tick"_s), qPrintable(result.content));
}

void tst_ShellTool::outputCap_data()
{
    QTest::addColumn<CapturedText>("standardOutput");
    QTest::addColumn<qsizetype>("limit");
    QTest::addColumn<qint64>("cut"); // 0: nothing cut
    QTest::addColumn<qint64>("total");
    QTest::addColumn<QString>("head");
    QTest::addColumn<QString>("tail");

    QTest::newRow("runner kept 20 000 + 20 000 of 100 000")
            << kept(QString(20000, u'a'), QString(20000, u'b'), 100000) << qsizetype(30000)
            << qint64(70000) << qint64(100000) << QString(15000, u'a') << QString(15000, u'b');
    QTest::newRow("40 000 characters, nothing cut by the runner")
            << kept(QString(20000, u'x') + QString(20000, u'y'), {}, 40000) << qsizetype(30000)
            << qint64(10000) << qint64(40000) << QString(15000, u'x') << QString(15000, u'y');
    QTest::newRow("small limit") << captured(u"0123456789abcdefghij"_s) << qsizetype(10)
                                 << qint64(10) << qint64(20) << u"01234"_s << u"fghij"_s;
    QTest::newRow("exactly the limit")
            << captured(QString(30000, u'z')) << qsizetype(30000) << qint64(0) << qint64(30000)
            << QString(30000, u'z') << QString();
    QTest::newRow("under the limit, runner already cut")
            << kept(u"head"_s, u"tail"_s, 1000) << qsizetype(30000) << qint64(992) << qint64(1000)
            << u"head"_s << u"tail"_s;
}

void tst_ShellTool::outputCap()
{
    QFETCH(CapturedText, standardOutput);
    QFETCH(qsizetype, limit);
    QFETCH(qint64, cut);
    QFETCH(qint64, total);
    QFETCH(QString, head);
    QFETCH(QString, tail);

    CommandOutcome outcome = exited(0, {});
    outcome.standardOutput = standardOutput;
    ShellToolOptions options;
    options.outputLimit = limit;
    const ToolResult result = ShellTool::resultFor(outcome, options, posixShell());
    QVERIFY(result.ok);

    if (cut == 0) {
        QCOMPARE(result.content, head);
        QVERIFY(!result.content.contains(u"characters cut"_s));
        return;
    }
    QVERIFY2(result.content.startsWith(head + u"\n[... "_s), qPrintable(result.content.left(200)));
    QVERIFY2(result.content.endsWith(u" ...]\n"_s + tail), qPrintable(result.content.right(200)));
    const QString note = result.content.mid(head.size(),
                                            result.content.size() - head.size() - tail.size());
    QVERIFY2(note.contains(u"%1 characters cut"_s.arg(cut)), qPrintable(note));
    QVERIFY2(note.contains(u"%1 characters in total"_s.arg(total)), qPrintable(note));
    // The model receives about the limit, never the whole output.
    QVERIFY(result.content.size() <= limit + 200);
}

void tst_ShellTool::invokeRunsThePreparedCommandInTheWorkspace()
{
    FakeCommandRunner runner;
    runner.enqueue(0, u"42\n"_s);
    ShellToolOptions options;
    options.workspace = u"/work/space"_s;
    options.timeout = 7s;
    options.outputLimit = 1234;
    const ShellTool tool(std::make_shared<FakeCommandRunner>(runner), options);

    const std::optional<ToolResult> result = runCommand(tool, u"echo 42"_s);
    QVERIFY(result);
    QCOMPARE(result->content, u"42"_s);
    QVERIFY(result->ok);
    QCOMPARE(result->exitCode, 0);

    QCOMPARE(runner.requests().size(), 1);
    const CommandRequest request = runner.requests().first();
    QCOMPARE(request.command, u"echo 42"_s);
    QCOMPARE(request.workingDirectory, u"/work/space"_s);
    QCOMPARE(request.timeout, std::chrono::milliseconds(7s));
    QCOMPARE(request.outputLimit, qsizetype(1234));
}

void tst_ShellTool::cancelledRunIsACancelledResult()
{
    FakeCommandRunner runner;
    runner.enqueueNeverFinishing(u"started\n"_s);
    const ShellTool tool(std::make_shared<FakeCommandRunner>(runner), {});

    QObject owner;
    ToolRun *run = tool.invoke(prepared(tool, uR"({"command":"sleep 100"})"_s), &owner);
    QSignalSpy spy(run, &ToolRun::finished);
    QTest::qWait(50);
    QCOMPARE(spy.size(), 0); // still running
    run->cancel();
    QTRY_COMPARE(spy.size(), 1);
    const ToolResult result = spy.first().first().value<ToolResult>();
    QCOMPARE(result.errorCode, u"cancelled"_s);
    QVERIFY(result.content.startsWith(u"cancelled: "_s));
    QVERIFY(result.content.contains(u"started"_s)); // what it printed before is kept
    QVERIFY(!result.ok);
}

void tst_ShellTool::descriptionNamesTheShellThatRuns()
{
    // The shell detectShell() finds is the one the model is told about, and the one that runs:
    // each probe prints something only that shell would.
    const auto runner = std::make_shared<ProcessCommandRunner>();
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    ShellToolOptions options;
    options.workspace = workspace.path();
    options.timeout = 10s;
    const ShellTool tool(runner, options);

    QString named;
    QString probe;
    QString printed;
    switch (runner->shell().kind) {
    case ShellInfo::Cmd:
        named = u"cmd.exe"_s;
        probe = u"echo %ComSpec%"_s; // sh and PowerShell print it as it is
        printed = u"cmd.exe"_s;
        break;
    case ShellInfo::PowerShellCore:
    case ShellInfo::WindowsPowerShell:
        named = u"PowerShell"_s;
        probe = u"'Power' + 'Shell ' + $PSVersionTable.PSEdition"_s;
        printed = u"PowerShell "_s;
        break;
    case ShellInfo::PosixShell:
        named = u"POSIX shell (/bin/sh)"_s;
        probe = u"echo \"$0\""_s;
        printed = u"/bin/sh"_s;
        break;
    }
    QVERIFY2(tool.description().contains(named), qPrintable(tool.description()));
    QCOMPARE(tool.definition()[u"function"_s][u"description"_s].toString(), tool.description());
    QVERIFY2(tool.approvalReason().contains(named), qPrintable(tool.approvalReason()));

    const std::optional<ToolResult> result = runCommand(tool, probe);
    QVERIFY(result);
    QVERIFY2(result->ok, qPrintable(result->content));
    QVERIFY2(result->content.contains(printed, Qt::CaseInsensitive), qPrintable(result->content));
}

void tst_ShellTool::realShell_data()
{
    QTest::addColumn<QString>("shell");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("content");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("exitCode");

#ifdef Q_OS_WIN
    // cmd.exe and PowerShell end lines with CRLF: the model gets neither the trailing CR nor LF.
    QTest::newRow("cmd: echo 42") << u"cmd"_s << u"echo 42"_s << u"42"_s << true << 0;
    QTest::newRow("cmd: Chinese") << u"cmd"_s << u"echo 中文 ünïcödé"_s << u"中文 ünïcödé"_s << true
                                  << 0;
    QTest::newRow("cmd: exit 3") << u"cmd"_s << u"exit /b 3"_s
                                 << u"shell_failed: exit code 3\n(no output)"_s << false << 3;
    QTest::newRow("cmd: stderr and exit 1")
            << u"cmd"_s << u"echo out& echo err>&2& exit /b 1"_s
            << u"shell_failed: exit code 1\nout\n[stderr]\nerr"_s << false << 1;
    // cmd.exe leaves the name of an unset variable as it is.
    QTest::newRow("cmd: API key withheld")
            << u"cmd"_s << u"echo %OPENAI_API_KEY%"_s << u"%OPENAI_API_KEY%"_s << true << 0;
    QTest::newRow("PowerShell: echo 42")
            << u"PowerShell"_s << u"Write-Output 42"_s << u"42"_s << true << 0;
    QTest::newRow("PowerShell: Chinese") << u"PowerShell"_s << u"Write-Output '中文 ünïcödé'"_s
                                         << u"中文 ünïcödé"_s << true << 0;
    QTest::newRow("PowerShell: exit 3")
            << u"PowerShell"_s << u"exit 3"_s << u"shell_failed: exit code 3\n(no output)"_s
            << false << 3;
    QTest::newRow("PowerShell: API key withheld")
            << u"PowerShell"_s << u"if ($env:OPENAI_API_KEY) { 'set' } else { 'unset' }"_s
            << u"unset"_s << true << 0;
#else
    QTest::newRow("sh: echo 42") << u"sh"_s << u"echo 42"_s << u"42"_s << true << 0;
    QTest::newRow("sh: Chinese") << u"sh"_s << u"printf '中文 ünïcödé'"_s << u"中文 ünïcödé"_s
                                 << true << 0;
    QTest::newRow("sh: exit 3") << u"sh"_s << u"exit 3"_s
                                << u"shell_failed: exit code 3\n(no output)"_s << false << 3;
    QTest::newRow("sh: stderr and exit 1")
            << u"sh"_s << u"echo out; echo err >&2; exit 1"_s
            << u"shell_failed: exit code 1\nout\n[stderr]\nerr"_s << false << 1;
    QTest::newRow("sh: API key withheld")
            << u"sh"_s << u"echo \"${OPENAI_API_KEY-unset}\""_s << u"unset"_s << true << 0;
#endif
}

void tst_ShellTool::realShell()
{
    QFETCH(QString, shell);
    QFETCH(QString, command);
    QFETCH(QString, content);
    QFETCH(bool, ok);
    QFETCH(int, exitCode);

    const std::optional<ShellInfo> info = shellForRow(shell);
    if (!info)
        QSKIP(qPrintable(powerShellMissing()));
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    ShellToolOptions options;
    options.workspace = workspace.path();
    options.timeout = 10s;
    const ShellTool tool(std::make_shared<ProcessCommandRunner>(*info), options);

    qputenv("OPENAI_API_KEY", "sk-shelltool-test-key");
    const std::optional<ToolResult> result = runCommand(tool, command);
    qunsetenv("OPENAI_API_KEY");
    QVERIFY2(result, "the command did not report exactly one result");
    QCOMPARE(result->content, content);
    QCOMPARE(result->ok, ok);
    QCOMPARE(result->exitCode, exitCode);
}

void tst_ShellTool::realShellOutputIsCapped()
{
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    ShellToolOptions options;
    options.workspace = workspace.path();
    options.timeout = 30s;
    options.outputLimit = 1000;
    const ShellTool tool(std::make_shared<ProcessCommandRunner>(testShell()), options);

    const bool cmd = testShell().kind == ShellInfo::Cmd;
    const std::optional<ToolResult> result
            = runCommand(tool,
                         cmd ? u"for /l %i in (1,1,500) do @echo line %i"_s
                             : u"i=1; while [ $i -le 500 ]; do echo line $i; i=$((i+1)); done"_s);
    QVERIFY(result);
    QVERIFY2(result->ok, qPrintable(result->content));
    // "line 1" to "line 500", a line break after each: 4392 characters, 4892 with CRs.
    const qint64 total = cmd ? 4892 : 4392;
    QVERIFY2(result->content.startsWith(u"line 1"_s), qPrintable(result->content.left(100)));
    QVERIFY2(result->content.endsWith(u"line 499"_s + (cmd ? u"\r\n"_s : u"\n"_s) + u"line 500"_s),
             qPrintable(result->content.right(100)));
    QVERIFY2(result->content.contains(
                     u"characters cut; the output had %1 characters in total ...]"_s.arg(total)),
             qPrintable(result->content));
    QVERIFY(result->content.size() <= options.outputLimit + 200);
}

void tst_ShellTool::realShellWorkingDirectoryIsTheWorkspace()
{
    QTemporaryDir workspace(QDir::tempPath() + u"/Agent Loop 工作区-XXXXXX"_s);
    QVERIFY2(workspace.isValid(), qPrintable(workspace.errorString()));
    ShellToolOptions options;
    options.workspace = workspace.path();
    options.timeout = 10s;
    const ShellTool tool(std::make_shared<ProcessCommandRunner>(testShell()), options);

    const bool cmd = testShell().kind == ShellInfo::Cmd;
    const std::optional<ToolResult> result = runCommand(tool, cmd ? u"cd"_s : u"pwd -P"_s);
    QVERIFY(result);
    QVERIFY2(result->ok, qPrintable(result->content));
    // What the model reads is the path in the shell's own spelling, every character intact.
    QVERIFY2(result->content.contains(QDir::toNativeSeparators(u"/Agent Loop 工作区-"_s)),
             qPrintable(result->content));
    QCOMPARE(QFileInfo(result->content).canonicalFilePath(),
             QFileInfo(workspace.path()).canonicalFilePath());

    // And a relative path resolves there, too, with a non-ASCII name (the same quoting works in
    // all three shells).
    const std::optional<ToolResult> written = runCommand(tool,
                                                         u"echo hi > \"made here 文件.txt\""_s);
    QVERIFY(written);
    QVERIFY2(written->ok, qPrintable(written->content));
    QVERIFY(QFileInfo::exists(QDir(workspace.path()).filePath(u"made here 文件.txt"_s)));
}

void tst_ShellTool::outputFileNote_data()
{
    QTest::addColumn<OutputFile>("file");
    QTest::addColumn<QString>("lastLine");

    const QString path = u"/data/outputs/c1/call_1.log"_s;
    QTest::newRow("complete") << OutputFile{path, 20000000, true, {}}
                              << u"[The full output (20000000 bytes) is in the file %1]"_s.arg(
                                         QDir::toNativeSeparators(path));
    QTest::newRow("capped")
            << OutputFile{path, 1000, false, u"the file stops at its size limit of 1000 bytes"_s}
            << u"[Only the first 1000 bytes of the output are in the file %1: the file stops at "
               u"its size limit of 1000 bytes]"_s.arg(QDir::toNativeSeparators(path));
    QTest::newRow("no file") << OutputFile{{}, 0, false, u"cannot create the folder /x"_s}
                             << u"[The full output could not be saved to a file: cannot create "
                                u"the folder /x]"_s;
}

void tst_ShellTool::outputFileNote()
{
    QFETCH(OutputFile, file);
    QFETCH(QString, lastLine);

    CommandOutcome outcome = exited(0, {});
    outcome.standardOutput = kept(u"head"_s, u"tail"_s, 20000000);
    outcome.outputFile = file;
    const ToolResult result = ShellTool::resultFor(outcome, {}, posixShell());
    QVERIFY(result.ok);
    QCOMPARE(result.content,
             u"head\n[... 19999992 characters cut; the stream had 20000000 characters in total "
             u"...]\ntail\n"_s
                     + lastLine);
    QCOMPARE(result.outputFile.path, file.path);
    QCOMPARE(result.outputFile.bytes, file.bytes);

    // A failure keeps its code first and the note last.
    outcome.exitCode = 2;
    const ToolResult failed = ShellTool::resultFor(outcome, {}, posixShell());
    QVERIFY(failed.content.startsWith(u"shell_failed: exit code 2\nhead"_s));
    QVERIFY(failed.content.endsWith(u"\n"_s + lastLine));
}

void tst_ShellTool::decodingIsNamedInTheResult()
{
    // Python's CP936 line on standard output, PowerShell's CLIXML on standard error.
    CommandOutcome outcome = exited(1, u"中文"_s, u"boom\r\n"_s);
    outcome.standardOutput.legacyEncoding = u"CP936"_s;
    outcome.standardError.clixmlDecoded = true;
    const QString path = u"/data/outputs/c1/call_2.log"_s;
    outcome.outputFile = OutputFile{path, 180, true, {}};
    const ShellInfo powerShell{ShellInfo::WindowsPowerShell,
                               u"powershell"_s,
                               u"Windows PowerShell"_s};
    const ToolResult result = ShellTool::resultFor(outcome, {}, powerShell);
    QCOMPARE(result.content,
             u"shell_failed: exit code 1\n中文\n[stderr]\nboom\n"
             u"[Lines of the standard output that were not UTF-8 were decoded as CP936, the "
             u"system's code page]\n"
             u"[PowerShell wrote its error records as CLIXML, shown decoded above; the output as "
             u"written (180 bytes) is in the file %1]"_s.arg(QDir::toNativeSeparators(path)));

    outcome.standardError.legacyEncoding = u"CP936"_s;
    QVERIFY(ShellTool::resultFor(outcome, {}, powerShell)
                    .content.contains(u"[Lines of the standard output and standard error that were "
                                      u"not UTF-8 were decoded as CP936"_s));
}

void tst_ShellTool::invokeAsksForTheOutputFolderAtEachCall()
{
    FakeCommandRunner runner;
    QString folder = u"/outputs/first"_s;
    ShellToolOptions options;
    options.outputDirectory = [&folder] {
        return folder;
    };
    options.outputFileLimit = 4096;
    const ShellTool tool(std::make_shared<FakeCommandRunner>(runner), options);
    QVERIFY(runCommand(tool, u"true"_s));
    folder = u"/outputs/second"_s;
    QVERIFY(runCommand(tool, u"true"_s));

    QCOMPARE(runner.requests().size(), 2);
    QCOMPARE(runner.requests().at(0).outputDirectory, u"/outputs/first"_s);
    QCOMPARE(runner.requests().at(1).outputDirectory, u"/outputs/second"_s);
    QCOMPARE(runner.requests().at(0).outputFileStem, u"call_1"_s);
    QCOMPARE(runner.requests().at(0).outputFileLimit, 4096);

    // Without a folder, nothing is written anywhere.
    FakeCommandRunner plain;
    QVERIFY(runCommand(ShellTool(std::make_shared<FakeCommandRunner>(plain), {}), u"true"_s));
    QVERIFY(plain.requests().at(0).outputDirectory.isEmpty());
}

void tst_ShellTool::realLongOutputIsSavedAndNamed()
{
    QTemporaryDir workspace;
    const QString folder = workspace.filePath(u"outputs"_s);
    const std::optional<ToolResult> result = runWithOutputFolder(workspace.path(),
                                                                 folder,
                                                                 countingCommand(workspace.path(),
                                                                                 300000));
    QVERIFY(result);
    QVERIFY(result->ok);
    const QString path = QDir(folder).filePath(u"call_1.log"_s);
    QCOMPARE(result->outputFile.path, path);
    QVERIFY(result->outputFile.complete);
    QCOMPARE(QFileInfo(path).size(), 1988895);
    // Head and tail for the model, then where the rest is.
    QVERIFY(result->content.startsWith(u"1\n2\n3\n"_s));
    QVERIFY(result->content.contains(u"characters cut"_s));
    QVERIFY(result->content.endsWith(
            u"299999\n300000\n[The full output (1988895 bytes) is in the file %1]"_s.arg(
                    QDir::toNativeSeparators(path))));
    QVERIFY(result->content.size() < ShellToolOptions().outputLimit + 300);
}

void tst_ShellTool::realUnwritableOutputFolderStillSucceeds()
{
    QTemporaryDir workspace;
    const QString unwritable = uncreatableFolder(workspace.path());
    QVERIFY(!unwritable.isEmpty());
    const std::optional<ToolResult> result = runWithOutputFolder(workspace.path(),
                                                                 unwritable,
                                                                 countingCommand(workspace.path(),
                                                                                 300000));
    QVERIFY(result);
    QVERIFY(result->ok);
    QCOMPARE(result->exitCode, 0);
    QVERIFY(result->outputFile.path.isEmpty());
    QVERIFY2(result->content.endsWith(
                     u"300000\n[The full output could not be saved to a file: cannot create the "
                     u"folder %1]"_s.arg(QDir::toNativeSeparators(unwritable))),
             qPrintable(result->content.right(300)));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ShellTool)
#include "tst_shelltool.moc"
