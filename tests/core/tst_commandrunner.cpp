#include "fakecommandrunner.h"
#include "processreaper.h"
#include "testmain.h"
#include "testpaths.h"
#include "testshell.h"
#include "tools/commandrunner.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStringDecoder>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

#if defined(Q_OS_WIN)
#include <qt_windows.h>
#include <tlhelp32.h>
#elif defined(Q_OS_UNIX)
#include <cerrno>
#include <csignal>
#include <sys/types.h>
#endif

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int finishTimeoutMs = Testing::hangGuardMs;

bool testShellIsCmd()
{
    return testShell().kind == ShellInfo::Cmd;
}

// A command as /bin/sh and as cmd.exe spell it; the test runs the one for testShell().
QString spelled(const QString &sh, const QString &cmd)
{
    return testShellIsCmd() ? cmd : sh;
}

// The end of a line the shell's echo prints.
QString newline()
{
    return testShellIsCmd() ? u"\r\n"_s : u"\n"_s;
}

CommandRequest request(const QString &command)
{
    CommandRequest r;
    r.command = command;
    r.workingDirectory = QDir::tempPath();
    return r;
}

// Runs a request to its end and returns the one outcome it reported, or nothing when it did not
// finish in time.
std::optional<CommandOutcome> runToEnd(CommandRunner &runner, const CommandRequest &r)
{
    QObject owner;
    CommandRun *run = runner.start(r, &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    if (!QTest::qWaitFor([&] { return !spy.isEmpty(); }, finishTimeoutMs))
        return std::nullopt;
    return spy.first().first().value<CommandOutcome>();
}

QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// A path as one word of a POSIX shell command.
QString shellQuoted(const QString &path)
{
    QString quoted = path;
    quoted.replace(u'\'', u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

// The saved-output tests compare the file with what tee saw, using seq, tee and printf. The
// writer itself is the same code everywhere (outputFileNameIsSafeAndNew runs on every platform).
#ifdef Q_OS_UNIX
#define SKIP_WITHOUT_POSIX_TOOLS() \
    do { \
    } while (false)
#else
#define SKIP_WITHOUT_POSIX_TOOLS() QSKIP("needs seq, tee and printf of a POSIX system")
#endif

// The command, its "%1" replaced by a file that tee fills with exactly the bytes it printed
// (expected.bin in dir), with its whole output written to dir as call_1.log.
CommandRequest savedOutputRequest(const QTemporaryDir &dir, const QString &command)
{
    CommandRequest r = request(command.arg(shellQuoted(dir.filePath(u"expected.bin"_s))));
    r.outputDirectory = dir.path();
    r.outputFileStem = u"call_1"_s;
    return r;
}

// A command whose shell waits for a grandchild that would run for 300 s. /bin/sh writes the
// grandchild's pid to pidFile; under cmd.exe the grandchild is a ping.exe started by a child cmd.
QString commandWaitingForAGrandchild(const QString &pidFile)
{
    return spelled(u"sleep 300 & echo $! > %1; wait"_s.arg(shellQuoted(pidFile)),
                   u"cmd /d /c ping -n 300 127.0.0.1 >nul"_s);
}

#if defined(Q_OS_WIN)
// Every process below a command's shell, as far as the test has seen it. Processes are
// remembered, since a parent may exit before its child is looked for: Wine's start.exe does.
class DescendantTracker
{
public:
    explicit DescendantTracker(qint64 root) { m_depth.insert(root, 0); }

    // A process named exeName at least minimumDepth levels below the shell, 0 while none runs.
    qint64 find(QStringView exeName, int minimumDepth)
    {
        HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        if (snapshot == INVALID_HANDLE_VALUE)
            return 0;
        QList<PROCESSENTRY32W> processes;
        PROCESSENTRY32W entry{};
        entry.dwSize = sizeof entry;
        for (BOOL more = Process32FirstW(snapshot, &entry); more;
             more = Process32NextW(snapshot, &entry))
            processes << entry;
        CloseHandle(snapshot);

        qint64 found = 0;
        for (bool grew = true; grew;) {
            grew = false;
            for (const PROCESSENTRY32W &process : processes) {
                const qint64 pid = process.th32ProcessID;
                const auto parent = m_depth.constFind(qint64(process.th32ParentProcessID));
                if (pid == 0 || parent == m_depth.cend())
                    continue;
                if (!m_depth.contains(pid)) {
                    m_depth.insert(pid, *parent + 1);
                    grew = true;
                }
                if (m_depth.value(pid) >= minimumDepth
                    && QString::fromWCharArray(process.szExeFile)
                                       .compare(exeName, Qt::CaseInsensitive)
                               == 0)
                    found = pid;
            }
        }
        return found;
    }

private:
    QHash<qint64, int> m_depth;
};
#elif defined(Q_OS_UNIX)
// The pid a command wrote to a file, once the whole line is there.
qint64 pidFromFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = file.readAll();
    if (!line.endsWith('\n'))
        return 0;
    return line.trimmed().toLongLong();
}

#endif

// Finds the grandchild of commandWaitingForAGrandchild() (or of any command whose grandchild is,
// under cmd.exe, a ping.exe started by a child), and waits for it to run. 0: it never did.
qint64 waitForGrandchild(const CommandRun *run, const QString &pidFile)
{
    qint64 pid = 0;
#if defined(Q_OS_WIN)
    Q_UNUSED(pidFile)
    DescendantTracker tracker(run->processId());
    if (!QTest::qWaitFor([&] { return (pid = tracker.find(u"ping.exe", 2)) > 0; }, finishTimeoutMs))
        return 0;
#else
    Q_UNUSED(run)
    if (!QTest::qWaitFor([&] { return (pid = pidFromFile(pidFile)) > 0; }, finishTimeoutMs))
        return 0;
#endif
    return pid;
}

} // namespace

class tst_CommandRunner : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    // Real processes through testShell(): /bin/sh, or cmd.exe on Windows.
    void echoExitsZero();
    void recordKeepsTheLaunchAndTheBytesAsTheyArrived();
    void recordKeepsOnlyItsLimit();
    void exitCodeIsKept();
    void commandsDoNotSeeTheApiKey();
    void aProgramPlantedInTheWorkspaceIsNotRun();
    void standardOutputAndErrorAreSeparate();
    void workingDirectoryIsHonoured();
    void nonAsciiOutputRoundTrips_data();
    void nonAsciiOutputRoundTrips();
    void characterSplitAcrossReadsDecodes();
    void largeNonAsciiOutputDecodes();
    void outputEndingInsideACharacterShowsReplacement();
    void outputIsCappedHeadAndTail();
    void longOutputIsWrittenWholeToAFile();
    void outputFileKeepsBothStreams();
    void shortOutputWritesNoFile();
    void outputFileStopsAtItsLimit();
    void unwritableOutputFolderIsReportedAndTheCommandSucceeds();
    void outputFileNameIsSafeAndNew();
    void timeoutKillsTheProcessTree();
    void timeoutEscalatesToKill();
    void cancelKillsTheProcessTree();
    void backgroundLeftoversAreKilledAfterExit();
    void deletingARunningRunKillsTheProcessTree();
    void standardInputIsClosed();
    void missingWorkingDirectoryFailsToStart();
    void missingShellFailsToStart();
    void crashReportsTheSignal();
    void finishedIsEmittedExactlyOnceAndLater();

    void windowsShellsTellPythonToWriteUtf8();
    void linesInTheLegacyCodePageAreDecoded();
    void powerShellRunsItsScriptFileAndErrorsArePlainText();

    // Pure functions.
    void launchForPosixShell();
    void launchForPowerShell_data();
    void launchForPowerShell();
    void launchForCmd();
    void detectShellFindsThisMachinesShell();
    void renderShowsTheCut();

    // The fake the agent loop's tests use.
    void fakeReturnsScriptedOutcomesInOrder();
    void fakeCutsPrintedOutputToTheLimit();
    void fakeNeverFinishingRunEndsOnlyWhenCancelled();
    void fakeNeverFinishingRunTimesOut();
    void fakeCopiesShareTheScript();
};

void tst_CommandRunner::initTestCase()
{
    qRegisterMetaType<CommandOutcome>();
}

void tst_CommandRunner::commandsDoNotSeeTheApiKey()
{
    qputenv("OPENAI_API_KEY", "sk-runner-test-key");
    qputenv("AGENTLOOP_TEST_MARKER", "inherited");
    ProcessCommandRunner runner(testShell());
    QObject owner;
    // cmd.exe leaves the name of an unset variable as it is.
    const QString command
            = spelled(u"printf '%s/%s' \"${OPENAI_API_KEY-unset}\" \"$AGENTLOOP_TEST_MARKER\""_s,
                      u"echo %OPENAI_API_KEY%/%AGENTLOOP_TEST_MARKER%"_s);
    CommandRun *run = runner.start(request(command), &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    qunsetenv("OPENAI_API_KEY");
    qunsetenv("AGENTLOOP_TEST_MARKER");
    // The rest of the environment is inherited; only the key is withheld.
    QCOMPARE(spy.first().first().value<CommandOutcome>().standardOutput.render(),
             spelled(u"unset/inherited"_s, u"%OPENAI_API_KEY%/inherited\r\n"_s));
}

// A repository ships its own `ls` (or `ping.cmd`), and the user's PATH has '.' and a relative
// folder in front, as some have: the bare name still runs the system's program.
void tst_CommandRunner::aProgramPlantedInTheWorkspaceIsNotRun()
{
    const QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    const QString planted = spelled(u"ls"_s, u"ping.cmd"_s);
    const QByteArray script = spelled(u"#!/bin/sh\necho planted > planted.txt\necho PLANTED\n"_s,
                                      u"@echo off\r\necho planted> planted.txt\r\necho PLANTED\r\n"_s)
                                      .toUtf8();
    for (const QString &folder : {QString(), u"tools/"_s}) {
        QVERIFY(QDir(workspace.path()).mkpath(folder.isEmpty() ? u"."_s : folder));
        QFile file(workspace.filePath(folder + planted));
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(script) == script.size());
        file.close();
        QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
    }
    const QByteArray originalPath = qgetenv("PATH");
    const QByteArray separator = QString(QDir::listSeparator()).toLatin1();
    qputenv("PATH", "." + separator + "tools" + separator + originalPath);
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(spelled(u"ls"_s, u"ping -n 1 127.0.0.1"_s));
    r.workingDirectory = workspace.path();
    const auto outcome = runToEnd(runner, r);
    qputenv("PATH", originalPath);
    QVERIFY(outcome);
    // The record says what the shell was given: the search path without '.' and "tools", and on
    // Windows the variable that keeps cmd.exe out of the working directory.
    QVERIFY(outcome->record);
    QStringList changes;
    for (const EnvironmentChange &change : outcome->record->environment)
        changes << change.name.toUpper() + u'=' + change.value;
    const QString expectedPath = u"PATH="_s
                                 + searchPathOutside(QString::fromLocal8Bit(originalPath),
                                                     workspace.path());
    QVERIFY2(changes.contains(expectedPath, Qt::CaseInsensitive), qPrintable(changes.join(u'\n')));
#ifdef Q_OS_WIN
    QVERIFY2(changes.contains(u"NODEFAULTCURRENTDIRECTORYINEXEPATH=1"_s),
             qPrintable(changes.join(u'\n')));
    // Wine's cmd.exe looks in the working directory first whatever that variable says; Windows'
    // own asks NeedCurrentDirectoryForExePath, which honours it.
    if (GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version"))
        return;
#endif
    const QString printed = outcome->standardOutput.render();
    QVERIFY2(!printed.contains(u"PLANTED"_s), qPrintable(printed));
    QVERIFY(!QFileInfo::exists(workspace.filePath(u"planted.txt"_s)));
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->exitCode, 0);
}

void tst_CommandRunner::recordKeepsTheLaunchAndTheBytesAsTheyArrived()
{
    if (testShellIsCmd())
        QSKIP("printf of raw bytes is a POSIX shell's");
    if (!canConvert(u"CP936"_s))
        QSKIP("This system has no CP936 converter");
    // "中文" in GBK, which is no UTF-8, then a pause, so that the last line is a read of its own.
    const QString command = u"printf 'ok\\n\\326\\320\\316\\304\\n'; printf 'err\\377\\n' >&2; "
                            u"sleep 0.3; printf 'end\\n'"_s;
    qputenv("OPENAI_API_KEY", "sk-record-test-key-7d1f");
    ProcessCommandRunner runner(testShell(), u"CP936"_s);
    const auto outcome = runToEnd(runner, request(command));
    qunsetenv("OPENAI_API_KEY");
    QVERIFY(outcome);
    QVERIFY(outcome->record);
    const RunRecord &record = *outcome->record;
    QCOMPARE(record.command, command);
    QCOMPARE(record.program, testShell().program);
    QCOMPARE(record.arguments, (QStringList{u"-c"_s, command}));
    QCOMPARE(record.workingDirectory, QDir::tempPath());
    QVERIFY(record.script.isEmpty());
    // The key was withheld, and its value is nowhere in the record.
    bool keyRemoved = false;
    for (const EnvironmentChange &change : record.environment) {
        QVERIFY(!change.value.contains(u"sk-record-test-key"_s));
        keyRemoved = keyRemoved
                     || (change.name == u"OPENAI_API_KEY"_s
                         && change.kind == EnvironmentChange::Removed);
    }
    QVERIFY(keyRemoved);

    // The bytes as they came, in their reads, with their times.
    QCOMPARE(record.standardOutput.bytes(), QByteArray("ok\n\xD6\xD0\xCE\xC4\nend\n"));
    QCOMPARE(record.standardOutput.totalBytes, 12);
    QCOMPARE(record.standardOutput.droppedBytes, 0);
    const QList<RawChunk> &chunks = record.standardOutput.chunks;
    QVERIFY(chunks.size() >= 2);
    QCOMPARE(chunks.constLast().bytes, QByteArray("end\n"));
    QVERIFY2(chunks.constLast().atMs >= chunks.constFirst().atMs + 250,
             qPrintable(
                     u"%1 ms, %2 ms"_s.arg(chunks.constFirst().atMs).arg(chunks.constLast().atMs)));
    QCOMPARE(record.standardError.bytes(), QByteArray("err\xFF\n"));
    // How the model's text was decoded, and why.
    QCOMPARE(record.standardOutput.decoding.basis, StreamDecoding::Basis::LegacyLines);
    QCOMPARE(record.standardOutput.decoding.encoding, u"CP936"_s);
    QCOMPARE(outcome->standardOutput.render(), u"ok\n中文\nend\n"_s);
    QCOMPARE(record.legacyEncoding, u"CP936"_s);
}

void tst_CommandRunner::recordKeepsOnlyItsLimit()
{
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(
            spelled(u"printf 0123456789abcdef"_s, u"<nul set /p =0123456789abcdef"_s));
    r.recordLimit = 10;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QVERIFY(outcome->record);
    QCOMPARE(outcome->record->standardOutput.bytes(), QByteArray("0123456789"));
    QCOMPARE(outcome->record->standardOutput.totalBytes, 16);
    QCOMPARE(outcome->record->standardOutput.droppedBytes, 6);
    // The model's text is not affected.
    QCOMPARE(outcome->standardOutput.render(), u"0123456789abcdef"_s);
}

void tst_CommandRunner::echoExitsZero()
{
    ProcessCommandRunner runner(testShell());
    QObject owner;
    CommandRun *run = runner.start(request(u"echo hello"_s), &owner);
    QCOMPARE(run->parent(), &owner);
    QVERIFY(run->processId() > 0);
    QSignalSpy spy(run, &CommandRun::finished);
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::Exited);
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(outcome.standardOutput.render(), u"hello"_s + newline());
    QCOMPARE(outcome.standardOutput.totalChars, 5 + newline().size());
    QVERIFY(!outcome.standardOutput.isTruncated());
    QVERIFY(outcome.standardError.render().isEmpty());
    QVERIFY(outcome.errorString.isEmpty());
    QVERIFY(outcome.durationMs >= 0 && outcome.durationMs < finishTimeoutMs);
}

void tst_CommandRunner::exitCodeIsKept()
{
    ProcessCommandRunner runner(testShell());
    const auto outcome = runToEnd(runner,
                                  request(spelled(u"echo partial; exit 3"_s,
                                                  u"echo partial& exit /b 3"_s)));
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->exitCode, 3);
    QCOMPARE(outcome->standardOutput.render(), u"partial"_s + newline());
}

void tst_CommandRunner::standardOutputAndErrorAreSeparate()
{
    ProcessCommandRunner runner(testShell());
    const auto outcome = runToEnd(runner,
                                  request(spelled(u"echo out; echo err >&2; echo out2"_s,
                                                  u"echo out& echo err>&2& echo out2"_s)));
    QVERIFY(outcome);
    QCOMPARE(outcome->exitCode, 0);
    QCOMPARE(outcome->standardOutput.render(), u"out"_s + newline() + u"out2"_s + newline());
    QCOMPARE(outcome->standardError.render(), u"err"_s + newline());
}

void tst_CommandRunner::workingDirectoryIsHonoured()
{
    QTemporaryDir dir(QDir::tempPath() + u"/Agent Loop 工作区 ü-XXXXXX"_s);
    QVERIFY2(dir.isValid(), qPrintable(dir.errorString()));
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(spelled(u"pwd"_s, u"cd"_s));
    r.workingDirectory = dir.path();
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QString printed = outcome->standardOutput.render();
    QVERIFY2(printed.endsWith(newline()), qPrintable(printed));
    printed.chop(newline().size());
    // The shell's own spelling of the path (native separators), every character intact.
    QVERIFY2(printed.contains(QDir::toNativeSeparators(u"/Agent Loop 工作区 ü-"_s)),
             qPrintable(printed));
    QCOMPARE(QFileInfo(printed).canonicalFilePath(), QFileInfo(dir.path()).canonicalFilePath());
}

void tst_CommandRunner::nonAsciiOutputRoundTrips_data()
{
    QTest::addColumn<QString>("shell");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("standardOutput");
    QTest::addColumn<QString>("standardError");

#ifdef Q_OS_WIN
    // chcp 65001 is what makes cmd.exe write UTF-8 instead of the OEM code page.
    QTest::newRow("cmd: echo") << u"cmd"_s << u"echo 中文 ünïcödé& echo é😀>&2"_s
                               << u"中文 ünïcödé\r\n"_s << u"é😀\r\n"_s;
    QTest::newRow("cmd: argument of a child process")
            << u"cmd"_s << u"cmd /d /c echo 中文 ünïcödé"_s << u"中文 ünïcödé\r\n"_s << QString();
    QTest::newRow("PowerShell: Write-Output") << u"PowerShell"_s << u"Write-Output '中文 ünïcödé'"_s
                                              << u"中文 ünïcödé\r\n"_s << QString();
#else
    QTest::newRow("sh: printf") << u"sh"_s << u"printf '中文 ünïcödé\\n'; printf 'é😀\\n' >&2"_s
                                << u"中文 ünïcödé\n"_s << u"é😀\n"_s;
    QTest::newRow("sh: argument of a child process")
            << u"sh"_s << u"sh -c 'printf \"%s\\n\" \"$0\"' '中文 ünïcödé'"_s << u"中文 ünïcödé\n"_s
            << QString();
#endif
}

void tst_CommandRunner::nonAsciiOutputRoundTrips()
{
    QFETCH(QString, shell);
    QFETCH(QString, command);
    QFETCH(QString, standardOutput);
    QFETCH(QString, standardError);

    const std::optional<ShellInfo> info = shellForRow(shell);
    if (!info)
        QSKIP(qPrintable(powerShellMissing()));
    ProcessCommandRunner runner(*info);
    const auto outcome = runToEnd(runner, request(command));
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->exitCode, 0);
    QCOMPARE(outcome->standardOutput.render(), standardOutput);
    QCOMPARE(outcome->standardError.render(), standardError);
}

void tst_CommandRunner::characterSplitAcrossReadsDecodes()
{
    // 中 is E4 B8 AD; the pause makes its first byte arrive in a read of its own. cmd.exe writes
    // through the console code page: in 1252, ä, ¸ and the soft hyphen are exactly those bytes.
    ProcessCommandRunner runner(testShell());
    const auto outcome
            = runToEnd(runner,
                       request(spelled(u"printf 'a\\344'; sleep 0.3; printf '\\270\\255b\\n'"_s,
                                       u"chcp 1252>nul& <nul set /p =aä& ping -n 2 127.0.0.1 >nul& "
                                       u"echo ¸\u00ADb"_s)));
    QVERIFY(outcome);
    QCOMPARE(outcome->standardOutput.render(), u"a中b"_s + newline());
}

void tst_CommandRunner::largeNonAsciiOutputDecodes()
{
    // 28-byte lines (29 with cmd.exe's CR): pipe reads of any power-of-two size end inside a
    // character. cmd.exe echoes slowly: under a loaded Wine, 30000 lines took over 20 s.
    const int lines = testShellIsCmd() ? 3000 : 30000;
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(spelled(u"yes 中中中中中中中中中 | head -n %1"_s,
                                       u"for /l %i in (1,1,%1) do @echo 中中中中中中中中中"_s)
                                       .arg(lines));
    r.outputLimit = 1000000;
    r.timeout = 0ms;
    const QString line = u"中中中中中中中中中"_s + newline();
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->exitCode, 0);
    QCOMPARE(outcome->standardOutput.totalChars, lines * line.size());
    QVERIFY(!outcome->standardOutput.isTruncated());
    QCOMPARE(outcome->standardOutput.render(), line.repeated(lines));
}

void tst_CommandRunner::outputEndingInsideACharacterShowsReplacement()
{
    // The first two bytes of 中 (E4 B8), and the end: in code page 1252 they are ä and ¸. With no
    // legacy code page to fall back on (whatever the system has), they are not UTF-8: U+FFFD.
    ProcessCommandRunner runner(testShell(), QString());
    const auto outcome = runToEnd(runner,
                                  request(spelled(u"printf 'a\\344\\270'"_s,
                                                  u"chcp 1252>nul& <nul set /p =aä¸"_s)));
    QVERIFY(outcome);
    const QString text = outcome->standardOutput.render();
    QVERIFY2(text.startsWith(u'a') && text.size() >= 2, qPrintable(text));
    QCOMPARE(text.back(), QChar(QChar::ReplacementCharacter));
}

void tst_CommandRunner::outputIsCappedHeadAndTail()
{
    // cmd.exe echoes slowly: longer lines, fewer of them.
    const QString line = spelled(u"x"_s, QString(98, u'x')) + newline();
    const qint64 lines = testShellIsCmd() ? 1000 : 2500000;
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(spelled(u"yes x | head -c 5000000; echo done >&2"_s,
                                       u"(for /l %i in (1,1,1000) do @echo %1)& echo done>&2"_s.arg(
                                               QString(98, u'x'))));
    r.outputLimit = 30000;
    r.timeout = 0ms;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->exitCode, 0);
    const CapturedText &out = outcome->standardOutput;
    const qint64 total = lines * line.size();
    QCOMPARE(out.totalChars, total);
    QVERIFY(out.isTruncated());
    const QString whole = line.repeated(30000 / line.size() + 2);
    QCOMPARE(out.head, whole.left(15000));
    QCOMPARE(out.tail, whole.right(15000));
    QCOMPARE(out.cutChars(), total - 30000);
    const QString note = u"\n[... %1 characters cut; the stream had %2 characters in total ...]\n"_s
                                 .arg(total - 30000)
                                 .arg(total);
    QCOMPARE(out.render(), out.head + note + out.tail);
    // The other stream is captured on its own and untouched by this one's cap.
    QCOMPARE(outcome->standardError.render(), u"done"_s + newline());
}

void tst_CommandRunner::longOutputIsWrittenWholeToAFile()
{
    SKIP_WITHOUT_POSIX_TOOLS();
    QTemporaryDir dir;
    const QString expected = dir.filePath(u"expected.bin"_s);
    // Numbered lines: any reordering or loss changes the hash.
    ProcessCommandRunner runner(posixShell());
    CommandRequest r = savedOutputRequest(dir, u"seq 1 3000000 | head -c 20000000 | tee %1"_s);
    r.outputDirectory = dir.filePath(u"outputs/conversation"_s); // made when needed
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->exitCode, 0);

    const OutputFile &file = outcome->outputFile;
    QCOMPARE(file.path, dir.filePath(u"outputs/conversation/call_1.log"_s));
    QVERIFY(file.complete);
    QVERIFY2(file.problem.isEmpty(), qPrintable(file.problem));
    QCOMPARE(file.bytes, 20000000);
    const QByteArray printed = readFile(expected);
    QCOMPARE(printed.size(), 20000000);
    const QByteArray saved = readFile(file.path);
    QCOMPARE(saved.size(), printed.size());
    QCOMPARE(sha256(saved), sha256(printed));
    // Memory still holds only the head and the tail.
    QVERIFY(outcome->standardOutput.isTruncated());
    QVERIFY(outcome->standardOutput.head.startsWith(u"1\n2\n3\n"_s));
    QVERIFY(printed.endsWith(outcome->standardOutput.tail.toUtf8()));
}

void tst_CommandRunner::outputFileKeepsBothStreams()
{
    SKIP_WITHOUT_POSIX_TOOLS();
    QTemporaryDir dir;
    ProcessCommandRunner runner(posixShell());
    const auto outcome = runToEnd(runner,
                                  savedOutputRequest(dir,
                                                     u"echo first >&2; seq 1 200000 | tee %1; "
                                                     u"echo last >&2"_s));
    QVERIFY(outcome);
    QVERIFY(outcome->outputFile.complete);
    // Both streams, each line in the place its read arrived: taking the two stderr lines out
    // leaves exactly what stdout printed.
    QByteArray saved = readFile(outcome->outputFile.path);
    const QByteArray printed = readFile(dir.filePath(u"expected.bin"_s));
    QCOMPARE(saved.size(), printed.size() + qsizetype(sizeof "first\nlast\n" - 1));
    QCOMPARE(outcome->outputFile.bytes, saved.size());
    QCOMPARE(saved.count("first\n"), 1);
    QCOMPARE(saved.count("last\n"), 1);
    saved.replace("first\n", "").replace("last\n", "");
    QCOMPARE(sha256(saved), sha256(printed));
}

void tst_CommandRunner::shortOutputWritesNoFile()
{
    SKIP_WITHOUT_POSIX_TOOLS();
    QTemporaryDir dir;
    ProcessCommandRunner runner(posixShell());
    // Exactly the limit: the result shows all of it, so no file is needed.
    CommandRequest r = request(u"printf '%s' 0123456789; printf '%s' abcdefghij >&2"_s);
    r.outputLimit = 20;
    r.outputDirectory = dir.filePath(u"outputs"_s);
    r.outputFileStem = u"call_1"_s;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->exitCode, 0);
    QVERIFY(outcome->outputFile.isEmpty());
    QVERIFY(!QFileInfo::exists(r.outputDirectory));

    // One character more, and there is one.
    r.command = u"printf '%s' 0123456789; printf '%s' abcdefghijk >&2"_s;
    const auto longer = runToEnd(runner, r);
    QVERIFY(longer);
    QVERIFY(longer->outputFile.complete);
    QCOMPARE(longer->outputFile.bytes, 21);
}

void tst_CommandRunner::outputFileStopsAtItsLimit()
{
    SKIP_WITHOUT_POSIX_TOOLS();
    QTemporaryDir dir;
    ProcessCommandRunner runner(posixShell());
    CommandRequest r = savedOutputRequest(dir, u"seq 1 1000000 | tee %1"_s);
    r.outputFileLimit = 1000000;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->exitCode, 0); // the command itself is never stopped by the cap
    const OutputFile &file = outcome->outputFile;
    QVERIFY(!file.complete);
    QCOMPARE(file.bytes, 1000000);
    QVERIFY2(file.problem.contains(u"size limit of 1000000 bytes"_s), qPrintable(file.problem));
    const QByteArray saved = readFile(file.path);
    const QByteArray note = OutputFileWriter::capNote(1000000);
    QCOMPARE(saved.size(), 1000000 + note.size());
    QVERIFY(saved.endsWith(note));
    QCOMPARE(sha256(saved.first(1000000)),
             sha256(readFile(dir.filePath(u"expected.bin"_s)).first(1000000)));
}

void tst_CommandRunner::unwritableOutputFolderIsReportedAndTheCommandSucceeds()
{
    SKIP_WITHOUT_POSIX_TOOLS();
    QTemporaryDir dir;
    ProcessCommandRunner runner(posixShell());
    CommandRequest r = request(u"seq 1 100000"_s);
    r.outputDirectory = uncreatableFolder(dir.path());
    QVERIFY(!r.outputDirectory.isEmpty());
    r.outputFileStem = u"call_1"_s;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->exitCode, 0);
    QCOMPARE(outcome->standardOutput.totalChars, 588895);
    QVERIFY(outcome->outputFile.path.isEmpty());
    QVERIFY(!outcome->outputFile.complete);
    QVERIFY2(outcome->outputFile.problem.contains(u"cannot create the folder"_s),
             qPrintable(outcome->outputFile.problem));
}

void tst_CommandRunner::outputFileNameIsSafeAndNew()
{
    QCOMPARE(OutputFileWriter::safeStem(u"call_AbC-9"_s), u"call_AbC-9"_s);
    // A call id is the model's text: it never names a path outside the folder.
    QCOMPARE(OutputFileWriter::safeStem(u"../../etc/passwd"_s), u"______etc_passwd"_s);
    QCOMPARE(OutputFileWriter::safeStem(u"C:\\x"_s), u"C__x"_s);
    QCOMPARE(OutputFileWriter::safeStem({}), u"output"_s);
    QCOMPARE(OutputFileWriter::safeStem(QString(100, u'a')).size(), 64);

    // A reused call id gets a new file; the earlier output stays.
    QTemporaryDir dir;
    QStringList paths;
    for (int i = 0; i < 2; ++i) {
        OutputFileWriter writer(dir.path(), u"call_0"_s, 100);
        writer.append(QByteArray::number(i));
        writer.start();
        paths << writer.finish().path;
    }
    QCOMPARE(paths, QStringList({dir.filePath(u"call_0.log"_s), dir.filePath(u"call_0-2.log"_s)}));
    QCOMPARE(readFile(paths.at(0)), "0");
    QCOMPARE(readFile(paths.at(1)), "1");
}

void tst_CommandRunner::timeoutKillsTheProcessTree()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(u"grandchild.pid"_s);
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(commandWaitingForAGrandchild(pidFile));
    // Long enough for the grandchild to be seen running first, even under Wine on a busy machine.
    r.timeout = 10s;

    QObject owner;
    CommandRun *run = runner.start(r, &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    const qint64 grandchildPid = waitForGrandchild(run, pidFile);
    QVERIFY(grandchildPid > 0);
    const WatchedProcess grandchild(grandchildPid);
    QVERIFY(!grandchild.isGone());

    // The grandchild would run 300 s: only the timeout ends the command this soon.
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::TimedOut);
    QVERIFY(outcome.durationMs >= 9500); // QTimer is coarse: up to 5 % early
    QVERIFY(!outcome.errorString.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(grandchild.isGone(), Testing::hangGuardMs);
}

void tst_CommandRunner::timeoutEscalatesToKill()
{
    // /bin/sh: sleep ignores SIGTERM, and the shell only notes it in a file and waits on; only
    // SIGKILL, after the grace, ends them. Windows has no SIGTERM for console programs: the job is
    // killed at once.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString terminated = dir.filePath(u"terminated"_s);
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(
            spelled(u"(trap '' TERM; exec sleep 300) & trap \"echo > %1\" TERM; wait; wait; "
                    u"echo survived"_s.arg(shellQuoted(terminated)),
                    u"ping -n 300 127.0.0.1 >nul& echo survived"_s));
    // Long enough for the shell to set its traps first, even on a busy machine.
    r.timeout = 2s;
    QObject owner;
    CommandRun *run = runner.start(r, &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    // The timeout's stop is under way (or, on Windows, done) when the cancel comes: the first
    // reason stays.
    if (testShellIsCmd())
        QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    else
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(terminated), finishTimeoutMs);
    run->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::TimedOut);
    // The timeout, plus on Unix the grace before SIGKILL (coarse timers: up to 5 % early).
    const qint64 least = testShellIsCmd() ? 2000 : 2000 + 1500;
    QVERIFY2(outcome.durationMs >= least * 95 / 100,
             qPrintable(QString::number(outcome.durationMs)));
    QVERIFY(outcome.standardOutput.render().isEmpty());
}

void tst_CommandRunner::cancelKillsTheProcessTree()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(u"grandchild.pid"_s);
    ProcessCommandRunner runner(testShell());
    QObject owner;
    CommandRun *run = runner.start(request(commandWaitingForAGrandchild(pidFile)), &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    const WatchedProcess shell(run->processId());
    const qint64 grandchildPid = waitForGrandchild(run, pidFile);
    QVERIFY(grandchildPid > 0);
    const WatchedProcess grandchild(grandchildPid);
    QVERIFY(!grandchild.isGone());

    run->cancel();
    QCOMPARE(spy.size(), 0); // never from inside cancel()
    run->cancel();           // a second cancel changes nothing
    // The grandchild would run 300 s: only the cancel ends the command this soon.
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::Cancelled);
    QVERIFY(!outcome.errorString.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(grandchild.isGone(), Testing::hangGuardMs);
    QTRY_VERIFY_WITH_TIMEOUT(shell.isGone(), Testing::hangGuardMs);
    QTest::qWait(200);
    QCOMPARE(spy.size(), 1);
}

void tst_CommandRunner::backgroundLeftoversAreKilledAfterExit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(u"leftover.pid"_s);
    ProcessCommandRunner runner(testShell());
    // The leftover keeps the output pipe open too: finishing must not wait for it. cmd.exe lingers
    // two seconds, so that the test sees the leftover (a ping.exe under a child cmd) run.
    QObject owner;
    CommandRun *run
            = runner.start(request(spelled(u"sleep 300 & echo $! > %1; echo done"_s.arg(
                                                   shellQuoted(pidFile)),
                                           u"start /b cmd /d /c ping -n 300 127.0.0.1 >nul& "
                                           u"ping -n 3 127.0.0.1 >nul& echo done"_s)),
                           &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    const qint64 leftoverPid = waitForGrandchild(run, pidFile);
    QVERIFY(leftoverPid > 0);
    const WatchedProcess leftover(leftoverPid);

    // The leftover would run 300 s: the command ended without waiting for it.
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::Exited);
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(outcome.standardOutput.render(), u"done"_s + newline());
    QTRY_VERIFY_WITH_TIMEOUT(leftover.isGone(), Testing::hangGuardMs);
}

void tst_CommandRunner::deletingARunningRunKillsTheProcessTree()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(u"grandchild.pid"_s);
    ProcessCommandRunner runner(testShell());
    auto owner = std::make_unique<QObject>();
    CommandRun *run = runner.start(request(commandWaitingForAGrandchild(pidFile)), owner.get());
    const WatchedProcess shell(run->processId());
    const qint64 grandchildPid = waitForGrandchild(run, pidFile);
    QVERIFY(grandchildPid > 0);
    const WatchedProcess grandchild(grandchildPid);
    QVERIFY(!grandchild.isGone());
    owner.reset();
    QTRY_VERIFY_WITH_TIMEOUT(grandchild.isGone(), Testing::hangGuardMs);
    QTRY_VERIFY_WITH_TIMEOUT(shell.isGone(), Testing::hangGuardMs);
}

void tst_CommandRunner::standardInputIsClosed()
{
    // Both would wait for input forever on an open, silent standard input.
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(spelled(u"cat; echo after"_s, u"set /p line=& echo after"_s));
    r.timeout = 10s;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    // An open input would have held them until the timeout.
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->standardOutput.render(), u"after"_s + newline());
}

void tst_CommandRunner::missingWorkingDirectoryFailsToStart()
{
    ProcessCommandRunner runner(testShell());
    CommandRequest r = request(u"echo never"_s);
    r.workingDirectory = QDir::tempPath() + u"/agentloop-no-such-dir-工作"_s;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::FailedToStart);
    QVERIFY2(outcome->errorString.contains(r.workingDirectory), qPrintable(outcome->errorString));
    QVERIFY(outcome->standardOutput.render().isEmpty());
}

void tst_CommandRunner::missingShellFailsToStart()
{
    ProcessCommandRunner runner(
            {ShellInfo::PosixShell, u"/nonexistent/agentloop-shell"_s, u"nothing"_s});
    QObject owner;
    CommandRun *run = runner.start(request(u"echo never"_s), &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    QCOMPARE(spy.size(), 0); // never from inside start()
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::FailedToStart);
    QVERIFY2(outcome.errorString.contains(u"/nonexistent/agentloop-shell"_s),
             qPrintable(outcome.errorString));
    run->cancel(); // after the end: nothing happens
    QTest::qWait(100);
    QCOMPARE(spy.size(), 1);
}

void tst_CommandRunner::crashReportsTheSignal()
{
    ProcessCommandRunner runner(testShell());
#ifdef Q_OS_WIN
    // A crashed process's exit code is its exception code; cmd.exe can exit with one
    // (STATUS_ACCESS_VIOLATION here), which Windows reports exactly as it would a crash.
    const auto outcome = runToEnd(runner, request(u"echo before& exit -1073741819"_s));
    const int expectedCode = int(0xC0000005);
    const QString expectedWhy = u"c0000005"_s;
#else
    const auto outcome = runToEnd(runner, request(u"echo before; kill -KILL $$"_s));
    const int expectedCode = SIGKILL;
    const QString expectedWhy = u"signal %1"_s.arg(SIGKILL);
#endif
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Crashed);
    QCOMPARE(outcome->exitCode, expectedCode);
    QCOMPARE(outcome->standardOutput.render(), u"before"_s + newline());
    QVERIFY2(outcome->errorString.contains(expectedWhy), qPrintable(outcome->errorString));
}

void tst_CommandRunner::finishedIsEmittedExactlyOnceAndLater()
{
    ProcessCommandRunner runner(testShell());
    QObject owner;
    CommandRun *run = runner.start(request(u"exit 0"_s), &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, finishTimeoutMs);
    run->cancel(); // too late: the outcome is known
    QTest::qWait(500);
    QCOMPARE(spy.size(), 1);
    QCOMPARE(spy.first().first().value<CommandOutcome>().status, CommandOutcome::Exited);

    // The same for a run whose outcome is known before start() returns.
    CommandRequest r = request(u"exit 0"_s);
    r.workingDirectory = u"/nonexistent/agentloop"_s;
    CommandRun *failed = runner.start(r, &owner);
    QSignalSpy failedSpy(failed, &CommandRun::finished);
    QCOMPARE(failedSpy.size(), 0);
    QTRY_COMPARE(failedSpy.size(), 1);
    QTest::qWait(200);
    QCOMPARE(failedSpy.size(), 1);
}

void tst_CommandRunner::windowsShellsTellPythonToWriteUtf8()
{
    qunsetenv("PYTHONUTF8");
    qputenv("PYTHONIOENCODING", "gbk"); // the user's own choice is kept
    ProcessCommandRunner runner(testShell());
    const auto outcome = runToEnd(runner,
                                  request(spelled(u"printf '%s/%s' \"${PYTHONUTF8-unset}\" "
                                                  u"\"$PYTHONIOENCODING\""_s,
                                                  u"echo %PYTHONUTF8%/%PYTHONIOENCODING%"_s)));
    qunsetenv("PYTHONIOENCODING");
    QVERIFY(outcome);
    // The POSIX shell's Python follows the locale, which is UTF-8 where it matters.
    QCOMPARE(outcome->standardOutput.render(), spelled(u"unset/gbk"_s, u"1/gbk\r\n"_s));
}

void tst_CommandRunner::linesInTheLegacyCodePageAreDecoded()
{
#ifdef Q_OS_WIN
    // Wine's cmd.exe re-encodes what `type` prints with the console's code page, so the bytes
    // never reach the pipe as they are; tst_clixml decodes CP936 with this system's decoder.
    QSKIP("needs a shell that prints a file's bytes unchanged (cat)");
#endif
    // What Python prints to a pipe on Chinese Windows (CP936), then a UTF-8 line, then CP936.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"mixed.txt"_s);
    QVERIFY(writeFile(path,
                      "\xD6\xD0\xCE\xC4 gbk\n" // 中文 gbk
                      "utf8 \xE8\xA1\x8C\n"    // utf8 行
                      "\xB2\xE2\xCA\xD4\n"));  // 测试

    ProcessCommandRunner runner(testShell(), u"CP936"_s);
    const auto outcome = runToEnd(runner, request(u"cat %1"_s.arg(shellQuoted(path))));
    QVERIFY(outcome);
    QCOMPARE(outcome->standardOutput.render(), u"中文 gbk\nutf8 行\n测试\n"_s);
    QCOMPARE(outcome->standardOutput.legacyEncoding, u"CP936"_s);
    QCOMPARE(outcome->standardError.legacyEncoding, QString());

    // Without a legacy code page (a UTF-8 system) such bytes stay visible as U+FFFD.
    ProcessCommandRunner utf8Only(testShell(), QString());
    const auto strict = runToEnd(utf8Only, request(u"cat %1"_s.arg(shellQuoted(path))));
    QVERIFY(strict);
    QVERIFY(strict->standardOutput.render().startsWith(u"\uFFFD"_s));
    QVERIFY(strict->standardOutput.render().contains(u"utf8 行\n"_s));
    QCOMPARE(strict->standardOutput.legacyEncoding, QString());
}

void tst_CommandRunner::powerShellRunsItsScriptFileAndErrorsArePlainText()
{
#ifndef Q_OS_UNIX
    QSKIP("the stand-in for PowerShell is a POSIX shell script");
#else
    // A stand-in for powershell.exe: it checks its arguments, shows the script file it was
    // given, and writes an error record to standard error the way PowerShell 5.1 does when that
    // is redirected (the record as PowerShell/PowerShell#5912 recorded it).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fake = dir.filePath(u"powershell"_s);
    QVERIFY(writeFile(
            fake,
            "#!/bin/sh\n"
            "[ \"$1 $2 $3 $4 $5\" = '-NoProfile -NonInteractive -ExecutionPolicy Bypass -File' ]"
            " || exit 97\n"
            "echo \"script=$6\"\n"
            "head -c 3 \"$6\" | od -An -tx1 | tr -d ' \\n'; echo\n"
            "grep -c 'Write-Output hello' \"$6\"\n"
            "printf '#< CLIXML\\r\\n<Objs Version=\"1.1.0.1\" "
            "xmlns=\"http://schemas.microsoft.com/powershell/2004/04\"><S "
            "S=\"Error\">boom_x000D__x000A_"
            "</S><S S=\"Error\">At line:1 char:1_x000D__x000A_</S></Objs>' >&2\n"
            "exit 1\n"));
    QVERIFY(QFile::setPermissions(fake, QFile::permissions(fake) | QFile::ExeOwner));

    ProcessCommandRunner runner({ShellInfo::WindowsPowerShell, fake, u"Windows PowerShell"_s},
                                QString());
    CommandRequest r = request(u"Write-Output hello"_s);
    r.outputDirectory = dir.filePath(u"outputs"_s);
    r.outputFileStem = u"call_ps"_s;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::Exited);
    QCOMPARE(outcome->exitCode, 1);

    const QStringList lines = outcome->standardOutput.render().split(u'\n');
    QVERIFY2(lines.size() >= 3, qPrintable(outcome->standardOutput.render()));
    const QString scriptPath = lines.at(0).mid(u"script="_s.size());
    // In the outputs folder, UTF-8 with a byte order mark, holding the command; gone afterwards.
    QCOMPARE(QFileInfo(scriptPath).absolutePath(), QFileInfo(r.outputDirectory).absoluteFilePath());
    QVERIFY2(QFileInfo(scriptPath).fileName().startsWith(u"agentloop-command-"_s),
             qPrintable(scriptPath));
    QVERIFY(scriptPath.endsWith(u".ps1"_s));
    QCOMPARE(lines.at(1), u"efbbbf"_s);
    QCOMPARE(lines.at(2), u"1"_s);
    QVERIFY(!QFileInfo::exists(scriptPath));

    // The model reads the lines a console would show; the bytes as written are kept in a file.
    QCOMPARE(outcome->standardError.render(), u"boom\r\nAt line:1 char:1\r\n"_s);
    QVERIFY(outcome->standardError.clixmlDecoded);
    QVERIFY(outcome->outputFile.complete);
    QFile raw(outcome->outputFile.path);
    QVERIFY(raw.open(QIODevice::ReadOnly));
    QVERIFY(raw.readAll().contains("#< CLIXML\r\n<Objs Version=\"1.1.0.1\""));
#endif
}

void tst_CommandRunner::launchForPosixShell()
{
    const QString command = u"echo \"it's\" '中文' $HOME | wc -c"_s;
    const ShellLaunch launch = ProcessCommandRunner::launchFor(posixShell(), command, {});
    QCOMPARE(launch.arguments, QStringList({u"-c"_s, command}));
    QVERIFY(launch.scriptFile.isEmpty());
    QVERIFY(launch.defaultEnvironment.isEmpty());
}

void tst_CommandRunner::launchForPowerShell_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("command");
    const QString quoting = u"Write-Output \"it's \"\"quoted\"\" 中文\"; echo 'a\"b' `$x"_s;
    const QString multiline = u"$a = 1\n# comment\nGet-ChildItem -Force | Select-Object Name"_s;
    QTest::newRow("core quoting") << int(ShellInfo::PowerShellCore) << quoting;
    QTest::newRow("windows quoting") << int(ShellInfo::WindowsPowerShell) << quoting;
    QTest::newRow("core multiline") << int(ShellInfo::PowerShellCore) << multiline;
    QTest::newRow("emoji") << int(ShellInfo::WindowsPowerShell) << u"echo 😀 \\\\server\\x"_s;
    // Far beyond the 32767 characters a command line can hold: a file has no such limit.
    QTest::newRow("long") << int(ShellInfo::WindowsPowerShell)
                          << u"Write-Output '%1'"_s.arg(QString(40000, u'x'));
}

void tst_CommandRunner::launchForPowerShell()
{
    QFETCH(int, kind);
    QFETCH(QString, command);
    const ShellInfo shell{ShellInfo::Kind(kind), u"pwsh"_s, u"PowerShell"_s};
    const QString scriptPath = u"C:/Users/张伟/AppData/Local/AgentLoop/outputs/agentloop-command-"
                               u"aB3dE9.ps1"_s;
    const ShellLaunch launch = ProcessCommandRunner::launchFor(shell, command, scriptPath);
    // The policy for this process only, and the script as a file: no -EncodedCommand, whose
    // base64 ("JAB...") endpoint protection flags.
    QCOMPARE(launch.arguments,
             QStringList({u"-NoProfile"_s,
                          u"-NonInteractive"_s,
                          u"-ExecutionPolicy"_s,
                          u"Bypass"_s,
                          u"-File"_s,
                          QDir::toNativeSeparators(scriptPath)}));
    QVERIFY(!launch.arguments.join(u' ').contains(u"EncodedCommand"_s));

    // UTF-8 with a byte order mark: Windows PowerShell 5.1 reads a file without one in the ANSI
    // code page.
    QVERIFY(launch.scriptFile.startsWith("\xEF\xBB\xBF"));
    const QString script = QString::fromUtf8(launch.scriptFile.sliced(3));
    QVERIFY2(script.contains(u'\n' + command + u'\n'), qPrintable(script.left(400)));
    const qsizetype commandAt = script.indexOf(command);
    const qsizetype encodingAt = script.indexOf(
            u"$OutputEncoding = New-Object System.Text.UTF8Encoding $false"_s);
    QVERIFY(encodingAt >= 0 && encodingAt < commandAt);
    QVERIFY(script.indexOf(u"[Console]::OutputEncoding = $OutputEncoding"_s) < commandAt);
    const qsizetype plainAt = script.indexOf(
            u"if ($PSStyle) { $PSStyle.OutputRendering = 'PlainText' }"_s);
    QVERIFY(plainAt >= 0 && plainAt < commandAt);
    QVERIFY(script.endsWith(
            u"\nif (-not $?) { if ($LASTEXITCODE) { exit $LASTEXITCODE }; exit 1 }\n"_s));

    QCOMPARE(launch.defaultEnvironment,
             (QList<std::pair<QString, QString>>{{u"PYTHONUTF8"_s, u"1"_s},
                                                 {u"PYTHONIOENCODING"_s, u"utf-8"_s}}));
}

void tst_CommandRunner::launchForCmd()
{
    const QString command = u"dir \"C:\\Program Files\" & echo 中文"_s;
    const ShellLaunch launch = ProcessCommandRunner::launchFor(cmdShell(), command, {});
    QCOMPARE(launch.arguments,
             QStringList({u"/d"_s, u"/s"_s, u"/c"_s, u"chcp 65001>nul & "_s + command}));
    QVERIFY(launch.scriptFile.isEmpty());
    QCOMPARE(launch.defaultEnvironment,
             (QList<std::pair<QString, QString>>{{u"PYTHONUTF8"_s, u"1"_s},
                                                 {u"PYTHONIOENCODING"_s, u"utf-8"_s}}));
}

void tst_CommandRunner::detectShellFindsThisMachinesShell()
{
    const ShellInfo shell = detectShell();
    QVERIFY(!shell.program.isEmpty());
    QVERIFY(!shell.displayName.isEmpty());
    if (!QStandardPaths::findExecutable(u"pwsh"_s).isEmpty()) {
        QCOMPARE(shell.kind, ShellInfo::PowerShellCore);
    } else {
#ifdef Q_OS_WIN
        QVERIFY(shell.kind == ShellInfo::WindowsPowerShell || shell.kind == ShellInfo::Cmd);
#else
        QCOMPARE(shell.kind, ShellInfo::PosixShell);
        QCOMPARE(shell.program, u"/bin/sh"_s);
#endif
    }
    QCOMPARE(ProcessCommandRunner().shell().program, shell.program);
}

void tst_CommandRunner::renderShowsTheCut()
{
    CapturedText whole;
    whole.head = u"abc"_s;
    whole.totalChars = 3;
    QVERIFY(!whole.isTruncated());
    QCOMPARE(whole.render(), u"abc"_s);

    CapturedText cut;
    cut.head = u"ab"_s;
    cut.tail = u"yz"_s;
    cut.totalChars = 26;
    QVERIFY(cut.isTruncated());
    QCOMPARE(cut.cutChars(), 22);
    QCOMPARE(cut.render(),
             u"ab\n[... 22 characters cut; the stream had 26 characters in total ...]\nyz"_s);
}

void tst_CommandRunner::fakeReturnsScriptedOutcomesInOrder()
{
    FakeCommandRunner runner;
    QCOMPARE(runner.shell().kind, ShellInfo::PosixShell);
    runner.enqueue(2, u"first\n"_s, u"warning\n"_s);
    CommandOutcome crashed;
    crashed.status = CommandOutcome::Crashed;
    crashed.exitCode = 11;
    crashed.errorString = u"segfault"_s;
    runner.enqueue(crashed);
    QCOMPARE(runner.pendingOutcomes(), 2);

    QObject owner;
    CommandRequest first = request(u"make"_s);
    first.workingDirectory = u"/work/项目"_s;
    CommandRun *run = runner.start(first, &owner);
    QCOMPARE(run->parent(), &owner);
    QCOMPARE(run->processId(), 0);
    QSignalSpy spy(run, &CommandRun::finished);
    QCOMPARE(spy.size(), 0); // asynchronous
    QTRY_COMPARE(spy.size(), 1);
    auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::Exited);
    QCOMPARE(outcome.exitCode, 2);
    QCOMPARE(outcome.standardOutput.render(), u"first\n"_s);
    QCOMPARE(outcome.standardError.render(), u"warning\n"_s);

    outcome = *runToEnd(runner, request(u"./crash"_s));
    QCOMPARE(outcome.status, CommandOutcome::Crashed);
    QCOMPARE(outcome.exitCode, 11);
    QCOMPARE(outcome.errorString, u"segfault"_s);

    // Nothing scripted: a quiet success.
    outcome = *runToEnd(runner, request(u"true"_s));
    QCOMPARE(outcome.status, CommandOutcome::Exited);
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY(outcome.standardOutput.render().isEmpty());
    QVERIFY(outcome.standardError.render().isEmpty());

    const QList<CommandRequest> requests = runner.requests();
    QCOMPARE(requests.size(), 3);
    QCOMPARE(requests.at(0).command, u"make"_s);
    QCOMPARE(requests.at(0).workingDirectory, u"/work/项目"_s);
    QCOMPARE(requests.at(1).command, u"./crash"_s);
    QCOMPARE(requests.at(2).command, u"true"_s);
    QCOMPARE(runner.pendingOutcomes(), 0);
}

void tst_CommandRunner::fakeCutsPrintedOutputToTheLimit()
{
    FakeCommandRunner runner;
    runner.enqueue(0, u"a"_s.repeated(10) + u"b"_s.repeated(100) + u"c"_s.repeated(10));
    CommandRequest r = request(u"cat big"_s);
    r.outputLimit = 20;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->standardOutput.head, u"a"_s.repeated(10));
    QCOMPARE(outcome->standardOutput.tail, u"c"_s.repeated(10));
    QCOMPARE(outcome->standardOutput.totalChars, 120);
    QVERIFY(outcome->standardOutput.render().contains(u"[... 100 characters cut;"_s));
}

void tst_CommandRunner::fakeNeverFinishingRunEndsOnlyWhenCancelled()
{
    FakeCommandRunner runner;
    runner.enqueueNeverFinishing(u"waiting...\n"_s);
    QObject owner;
    CommandRun *run = runner.start(request(u"npm run dev"_s), &owner);
    QSignalSpy spy(run, &CommandRun::finished);
    QTest::qWait(200);
    QCOMPARE(spy.size(), 0);
    run->cancel();
    QCOMPARE(spy.size(), 0); // never from inside cancel()
    QTRY_COMPARE(spy.size(), 1);
    const auto outcome = spy.first().first().value<CommandOutcome>();
    QCOMPARE(outcome.status, CommandOutcome::Cancelled);
    QCOMPARE(outcome.standardOutput.render(), u"waiting...\n"_s);
    run->cancel();
    QTest::qWait(50);
    QCOMPARE(spy.size(), 1);
}

void tst_CommandRunner::fakeNeverFinishingRunTimesOut()
{
    FakeCommandRunner runner;
    runner.enqueueNeverFinishing();
    CommandRequest r = request(u"sleep infinity"_s);
    r.timeout = 50ms;
    const auto outcome = runToEnd(runner, r);
    QVERIFY(outcome);
    QCOMPARE(outcome->status, CommandOutcome::TimedOut);
}

void tst_CommandRunner::fakeCopiesShareTheScript()
{
    FakeCommandRunner runner(detectShell());
    FakeCommandRunner handedOver = runner;
    runner.enqueue(7, u"seven"_s);
    const auto outcome = runToEnd(handedOver, request(u"echo seven; exit 7"_s));
    QVERIFY(outcome);
    QCOMPARE(outcome->exitCode, 7);
    QCOMPARE(runner.requests().size(), 1);
    QCOMPARE(runner.shell().kind, detectShell().kind);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_CommandRunner)
#include "tst_commandrunner.moc"
