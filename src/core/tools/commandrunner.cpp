#include "tools/commandrunner.h"

#include "protocol/providersettings.h"
#include "tools/processtree.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QTimer>

#include <algorithm>
#include <optional>
#include <utility>

#ifdef Q_OS_WIN
#include <qt_windows.h>
#endif

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// How long a process tree gets between SIGTERM (Windows: Ctrl+Break) and SIGKILL (Windows:
// terminating its job) on timeout or cancel.
constexpr auto terminateGrace = std::chrono::milliseconds(1500);

#ifdef Q_OS_WIN
// Wine installs a powershell.exe that is a stub: it runs nothing, prints nothing and exits 0, so
// every command would "succeed" silently. Wine's ntdll exports wine_get_version.
bool runsUnderWine()
{
    const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version");
}
#endif

QString powerShellScript(const QString &command)
{
    // Without the encodings, Windows PowerShell writes in the OEM code page and mangles every
    // non-ASCII character; setting [Console]::OutputEncoding throws when there is no console,
    // hence the try. PowerShell 7.2+ would colour error text with ANSI sequences. The epilogue
    // keeps a failing native command's exit code, which PowerShell would fold into 1.
    return u"$ProgressPreference = 'SilentlyContinue'\n"
           "$OutputEncoding = New-Object System.Text.UTF8Encoding $false\n"
           "try { [Console]::OutputEncoding = $OutputEncoding } catch {}\n"
           "if ($PSStyle) { $PSStyle.OutputRendering = 'PlainText' }\n"_s
           + command + u"\nif (-not $?) { if ($LASTEXITCODE) { exit $LASTEXITCODE }; exit 1 }\n"_s;
}

} // namespace

QString searchPathOutside(const QString &pathValue, const QString &workspace)
{
#ifdef Q_OS_WIN
    constexpr Qt::CaseSensitivity pathCase = Qt::CaseInsensitive;
#else
    constexpr Qt::CaseSensitivity pathCase = Qt::CaseSensitive;
#endif
    // The workspace as written and as it really is (through a link, say).
    QStringList workspaces;
    for (const QString &form : {QDir::cleanPath(QDir::fromNativeSeparators(workspace)),
                                QFileInfo(workspace).canonicalFilePath()}) {
        if (!form.isEmpty() && !workspaces.contains(form, pathCase))
            workspaces.append(form);
    }
    const auto inWorkspace = [&](const QString &folder) {
        return std::any_of(workspaces.cbegin(), workspaces.cend(), [&](const QString &root) {
            return folder.compare(root, pathCase) == 0
                   || folder.startsWith(root.endsWith(u'/') ? root : root + u'/', pathCase);
        });
    };
    QStringList kept;
    for (const QString &entry : pathValue.split(QDir::listSeparator())) {
        const QString folder = QDir::cleanPath(QDir::fromNativeSeparators(entry.trimmed()));
        if (entry.trimmed().isEmpty() || !QDir::isAbsolutePath(folder))
            continue; // '', '.', 'bin', 'node_modules/.bin': wherever the shell happens to be
        const QString real = QFileInfo(folder).canonicalFilePath();
        if (inWorkspace(folder) || (!real.isEmpty() && inWorkspace(real)))
            continue;
        kept.append(entry);
    }
    return kept.join(QDir::listSeparator());
}

ShellInfo detectShell()
{
    // Not in a relative folder of PATH: that would be wherever the app was started.
    const QStringList searchPath = searchPathOutside(qEnvironmentVariable("PATH"), QString())
                                           .split(QDir::listSeparator(), Qt::SkipEmptyParts);
    const QString pwsh = QStandardPaths::findExecutable(u"pwsh"_s, searchPath);
    if (!pwsh.isEmpty())
        return {ShellInfo::PowerShellCore, pwsh, u"PowerShell 7 (pwsh)"_s};
#ifdef Q_OS_WIN
    if (!runsUnderWine()) {
        QString powershell = QStandardPaths::findExecutable(u"powershell"_s, searchPath);
        if (powershell.isEmpty()) {
            const QString builtIn = qEnvironmentVariable("SystemRoot")
                                    + u"\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"_s;
            if (QFileInfo(builtIn).isFile())
                powershell = builtIn;
        }
        if (!powershell.isEmpty())
            return {ShellInfo::WindowsPowerShell, powershell, u"Windows PowerShell"_s};
    }
    QString cmd = qEnvironmentVariable("ComSpec");
    if (cmd.isEmpty() || !QFileInfo(cmd).isFile())
        cmd = QStandardPaths::findExecutable(u"cmd"_s, searchPath);
    if (cmd.isEmpty())
        cmd = u"cmd.exe"_s;
    return {ShellInfo::Cmd, cmd, u"cmd.exe"_s};
#else
    return {ShellInfo::PosixShell, u"/bin/sh"_s, u"/bin/sh"_s};
#endif
}

ShellLaunch ProcessCommandRunner::launchFor(const ShellInfo &shell,
                                            const QString &command,
                                            const QString &scriptPath)
{
    ShellLaunch launch;
    if (shell.kind != ShellInfo::PosixShell)
        launch.defaultEnvironment = {{u"PYTHONUTF8"_s, u"1"_s}, {u"PYTHONIOENCODING"_s, u"utf-8"_s}};
    switch (shell.kind) {
    case ShellInfo::PowerShellCore:
    case ShellInfo::WindowsPowerShell:
        launch.arguments = {u"-NoProfile"_s,
                            u"-NonInteractive"_s,
                            u"-ExecutionPolicy"_s,
                            u"Bypass"_s,
                            u"-File"_s,
                            QDir::toNativeSeparators(scriptPath)};
        launch.scriptFile = "\xEF\xBB\xBF" + powerShellScript(command).toUtf8();
        break;
    case ShellInfo::Cmd:
        // /d: no AutoRun commands from the registry; /s with /c: cmd strips the first and the
        // last quote of the rest of the line and runs what is between them verbatim.
        launch.arguments = {u"/d"_s, u"/s"_s, u"/c"_s, u"chcp 65001>nul & "_s + command};
        break;
    case ShellInfo::PosixShell:
        launch.arguments = {u"-c"_s, command};
        break;
    }
    return launch;
}

// The QProcess-backed run. Exactly one of three events completes it, and the m_completed guard
// makes the first one win: errorOccurred(FailedToStart), finished (normal exit, crash, or the
// end of a timeout or cancel), or the failed working-directory check before starting.
class ProcessCommandRun final : public CommandRun
{
public:
    ProcessCommandRun(const ShellInfo &shell,
                      const CommandRequest &request,
                      const QString &legacyEncoding,
                      QObject *parent);
    ~ProcessCommandRun() override;

    void start();
    void cancel() override { stop(CommandOutcome::Cancelled); }
    qint64 processId() const override { return m_tree.processId(); }

private:
    void stop(CommandOutcome::Status reason);
    void onFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onErrorOccurred(QProcess::ProcessError error);
    void complete(CommandOutcome::Status status, int exitCode, const QString &errorString);
    void collect(OutputCapture &capture, RawStream &raw, const QByteArray &bytes);
    bool writeScriptFile(const QByteArray &contents);
    void killTree() { m_tree.kill(); }

    const ShellInfo m_shell;
    const CommandRequest m_request;
    QProcess *m_process;
    ProcessTree m_tree;
    QTimer m_timeoutTimer;
    QTimer m_killTimer;
    QElapsedTimer m_elapsed;
    OutputCapture m_stdout;
    OutputCapture m_stderr;
    OutputFileWriter m_outputFile;
    std::shared_ptr<RunRecord> m_record = std::make_shared<RunRecord>();
    std::unique_ptr<QTemporaryFile> m_scriptFile; // PowerShell's script, removed at the end
    std::optional<CommandOutcome::Status> m_stopReason;
    bool m_completed = false;
};

ProcessCommandRun::ProcessCommandRun(const ShellInfo &shell,
                                     const CommandRequest &request,
                                     const QString &legacyEncoding,
                                     QObject *parent)
    : CommandRun(parent)
    , m_shell(shell)
    , m_request(request)
    , m_process(new QProcess(this))
    , m_tree(m_process)
    , m_stdout({request.outputLimit, legacyEncoding, false})
    , m_stderr({request.outputLimit, legacyEncoding, shell.isPowerShell()})
    , m_outputFile(request.outputDirectory, request.outputFileStem, request.outputFileLimit)
{
    m_record->command = request.command;
    m_record->shellName = shell.displayName;
    m_record->workingDirectory = request.workingDirectory;
    m_record->legacyEncoding = legacyEncoding;
    m_record->standardError.clixml = shell.isPowerShell();
    m_timeoutTimer.setSingleShot(true);
    m_killTimer.setSingleShot(true);
    m_killTimer.setInterval(terminateGrace);
    connect(&m_timeoutTimer, &QTimer::timeout, this, [this] { stop(CommandOutcome::TimedOut); });
    connect(&m_killTimer, &QTimer::timeout, this, &ProcessCommandRun::killTree);

    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
        collect(m_stdout, m_record->standardOutput, m_process->readAllStandardOutput());
    });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        collect(m_stderr, m_record->standardError, m_process->readAllStandardError());
    });
    connect(m_process, &QProcess::finished, this, &ProcessCommandRun::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ProcessCommandRun::onErrorOccurred);
}

ProcessCommandRun::~ProcessCommandRun()
{
    // QProcess's destructor would wait, blocking, for the killed shell to be reaped (and warn):
    // it outlives the run instead. The job goes with m_tree.
    m_tree.killAndRelease();
}

void ProcessCommandRun::start()
{
    m_elapsed.start();
    const QString &directory = m_request.workingDirectory;
    if (!directory.isEmpty() && !QFileInfo(directory).isDir()) {
        complete(CommandOutcome::FailedToStart,
                 -1,
                 u"The working directory does not exist: %1"_s.arg(directory));
        return;
    }

    QString scriptPath;
    if (m_shell.isPowerShell()) {
        // The script waits next to the command's outputs, or in the temporary folder.
        const QString folder = m_request.outputDirectory.isEmpty() ? QDir::tempPath()
                                                                   : m_request.outputDirectory;
        QDir().mkpath(folder);
        m_scriptFile = std::make_unique<QTemporaryFile>(folder + u"/agentloop-command-XXXXXX.ps1"_s);
        if (!m_scriptFile->open()) {
            complete(CommandOutcome::FailedToStart,
                     -1,
                     u"Could not write the command's script file in %1: %2"_s
                             .arg(QDir::toNativeSeparators(folder), m_scriptFile->errorString()));
            return;
        }
        scriptPath = m_scriptFile->fileName();
    }
    const ShellLaunch launch = ProcessCommandRunner::launchFor(m_shell,
                                                               m_request.command,
                                                               scriptPath);
    if (m_scriptFile && !writeScriptFile(launch.scriptFile))
        return;

    m_process->setProgram(m_shell.program);
    m_process->setArguments(launch.arguments);
    m_process->setWorkingDirectory(directory);
    m_process->setStandardInputFile(QProcess::nullDevice());
    // Commands the model asks for never see the provider's key: one could print it or send it.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QString::fromLatin1(apiKeyVariable));
    // A bare program name finds the program a rule means, not one the repository planted.
    environment.insert(u"PATH"_s,
                       searchPathOutside(environment.value(u"PATH"_s), m_request.workingDirectory));
#ifdef Q_OS_WIN
    environment.insert(u"NoDefaultCurrentDirectoryInExePath"_s, u"1"_s);
#endif
    for (const auto &[name, value] : launch.defaultEnvironment) {
        if (!environment.contains(name))
            environment.insert(name, value);
    }
    m_process->setProcessEnvironment(environment);
    m_record->environment = environmentChanges(QProcessEnvironment::systemEnvironment(),
                                               environment);
    if (!launch.scriptFile.isEmpty())
        m_record->script = QString::fromUtf8(launch.scriptFile.startsWith("\xEF\xBB\xBF")
                                                     ? launch.scriptFile.sliced(3)
                                                     : launch.scriptFile);

#if defined(Q_OS_WIN)
    if (m_shell.kind == ShellInfo::Cmd) {
        // QProcess would quote the command by the C runtime's rules (\" inside "..."), which
        // cmd.exe does not know. Native arguments go to the command line as they are, and
        // /s /c "..." makes cmd run exactly what is between the outer quotes.
        const QStringList arguments = m_process->arguments();
        m_process->setArguments({});
        m_process->setNativeArguments(arguments.first(3).join(u' ') + u" \""_s + arguments.last()
                                      + u'"');
    }
#endif
    // Exactly what QProcess is given (on Windows cmd.exe: the command line as native arguments).
    m_record->program = m_process->program();
    m_record->arguments = m_process->arguments();
#ifdef Q_OS_WIN
    m_record->nativeArguments = m_process->nativeArguments();
#endif
    m_tree.prepare();

    m_process->start(QIODevice::ReadOnly);
    m_tree.adopt();
    if (m_completed || m_process->state() == QProcess::NotRunning)
        return;
    if (m_request.timeout.count() > 0) {
        m_timeoutTimer.setInterval(m_request.timeout);
        m_timeoutTimer.start();
    }
}

void ProcessCommandRun::stop(CommandOutcome::Status reason)
{
    if (m_completed || m_stopReason)
        return;
    m_stopReason = reason;
    m_timeoutTimer.stop();
    if (m_tree.terminate())
        m_killTimer.start();
    else
        killTree();
    // finished() follows from QProcess::finished once the shell is gone.
}

void ProcessCommandRun::onFinished(int exitCode, QProcess::ExitStatus exitStatus)
{
    // Whatever the command left running in the background must not outlive it.
    killTree();
    if (m_stopReason) {
        const QString why = *m_stopReason == CommandOutcome::TimedOut
                                    ? u"The command ran longer than %1 ms; it and every process "
                                      "it started were killed."_s.arg(m_request.timeout.count())
                                    : u"The command was cancelled; it and every process it "
                                      "started were killed."_s;
        complete(*m_stopReason, exitCode, why);
    } else if (exitStatus == QProcess::CrashExit) {
#ifdef Q_OS_WIN
        const QString why = u"The shell crashed with exception 0x%1."_s.arg(uint(exitCode),
                                                                            8,
                                                                            16,
                                                                            QChar(u'0'));
#else
        const QString why = u"The shell was killed by signal %1."_s.arg(exitCode);
#endif
        complete(CommandOutcome::Crashed, exitCode, why);
    } else {
        complete(CommandOutcome::Exited, exitCode, {});
    }
}

void ProcessCommandRun::onErrorOccurred(QProcess::ProcessError error)
{
    // Crashes and read errors are followed by finished(); only a failed start is final here.
    if (error != QProcess::FailedToStart)
        return;
    complete(CommandOutcome::FailedToStart,
             -1,
             u"Could not start %1: %2"_s.arg(m_shell.program, m_process->errorString()));
}

void ProcessCommandRun::complete(CommandOutcome::Status status,
                                 int exitCode,
                                 const QString &errorString)
{
    if (m_completed)
        return;
    m_completed = true;
    m_timeoutTimer.stop();
    m_killTimer.stop();
    if (m_process->isOpen()) {
        collect(m_stdout, m_record->standardOutput, m_process->readAllStandardOutput());
        collect(m_stderr, m_record->standardError, m_process->readAllStandardError());
    }

    CommandOutcome outcome;
    outcome.status = status;
    outcome.exitCode = exitCode;
    outcome.standardOutput = m_stdout.finish();
    outcome.standardError = m_stderr.finish();
    // The end of a line is decoded only now: it may be what makes the output too long to show.
    // What the model reads of CLIXML is a decoding: the bytes as PowerShell wrote them are kept.
    if (outcome.standardOutput.totalChars + outcome.standardError.totalChars > m_request.outputLimit
        || outcome.standardError.clixmlDecoded)
        m_outputFile.start();
    outcome.outputFile = m_outputFile.finish();
    outcome.errorString = errorString;
    outcome.durationMs = m_elapsed.isValid() ? m_elapsed.elapsed() : 0;
    m_record->standardOutput.decoding = outcome.standardOutput.decoding;
    m_record->standardError.decoding = outcome.standardError.decoding;
    m_record->standardError.clixml = outcome.standardError.clixmlDecoded;
    if (!m_record->program.isEmpty())
        outcome.record = m_record;
    m_scriptFile.reset();
    // Always queued: never from inside start() or cancel(), whatever completed the run.
    QMetaObject::invokeMethod(
            this, [this, outcome] { emit finished(outcome); }, Qt::QueuedConnection);
}

bool ProcessCommandRun::writeScriptFile(const QByteArray &contents)
{
    if (m_scriptFile->write(contents) == contents.size() && m_scriptFile->flush()) {
        // Closed, so that PowerShell can open it; the file stays until m_scriptFile goes.
        m_scriptFile->close();
        return true;
    }
    complete(CommandOutcome::FailedToStart,
             -1,
             u"Could not write the command's script file %1: %2"_s
                     .arg(QDir::toNativeSeparators(m_scriptFile->fileName()),
                          m_scriptFile->errorString()));
    return false;
}

void ProcessCommandRun::collect(OutputCapture &capture, RawStream &raw, const QByteArray &bytes)
{
    raw.append(m_elapsed.isValid() ? m_elapsed.elapsed() : 0, bytes, m_request.recordLimit);
    capture.append(bytes);
    m_outputFile.append(bytes);
    // The file starts when the result can no longer show everything; shorter output needs none.
    if (!m_outputFile.isStarted()
        && m_stdout.totalChars() + m_stderr.totalChars() > m_request.outputLimit)
        m_outputFile.start();
}

ProcessCommandRunner::ProcessCommandRunner(ShellInfo shell, QString legacyEncoding)
    : m_shell(std::move(shell))
    , m_legacyEncoding(std::move(legacyEncoding))
{}

CommandRun *ProcessCommandRunner::start(const CommandRequest &request, QObject *parent)
{
    auto *run = new ProcessCommandRun(m_shell, request, m_legacyEncoding, parent);
    run->start();
    return run;
}

} // namespace AgentLoop
