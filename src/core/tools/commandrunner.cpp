#include "tools/commandrunner.h"

#include "protocol/providersettings.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QStringDecoder>
#include <QStringEncoder>
#include <QTimer>

#include <algorithm>
#include <optional>
#include <utility>

#if defined(Q_OS_WIN)
#include <qt_windows.h>
#elif defined(Q_OS_UNIX)
#include <cerrno>
#include <csignal>
#include <sys/types.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// How long a process tree gets between SIGTERM and SIGKILL on timeout or cancel.
constexpr auto terminateGrace = std::chrono::milliseconds(1500);

QString cutNote(qint64 cut, qint64 total)
{
    return u"\n[... %1 characters cut; the stream had %2 characters in total ...]\n"_s.arg(cut).arg(
            total);
}

// One output stream: decoded as UTF-8 as it arrives (the decoder keeps the bytes of a character
// split across reads), of which only the first and the last limit/2 characters are kept.
class OutputCapture
{
public:
    explicit OutputCapture(qsizetype limit)
        : m_headLimit(std::max<qsizetype>(limit, 0) / 2)
        , m_tailLimit(std::max<qsizetype>(limit, 0) - m_headLimit)
    {}

    void append(const QByteArray &bytes)
    {
        if (bytes.isEmpty())
            return;
        keep(QString(m_decoder.decode(bytes)));
        m_lastBytes = (m_lastBytes + bytes).right(3);
    }

    qint64 totalChars() const { return m_total; }

    CapturedText finish()
    {
        // QStringDecoder has no flush: the bytes of a character the stream ended inside of stay
        // in it, unseen. Show that they were there.
        if (endsInsideCharacter(m_lastBytes))
            keep(QStringView(u"\uFFFD"));
        if (m_tail.size() > m_tailLimit)
            m_tail.remove(0, m_tail.size() - m_tailLimit);

        CapturedText text;
        text.totalChars = m_total;
        if (m_total == m_head.size() + m_tail.size()) {
            text.head = m_head + m_tail;
            return text;
        }
        // Never keep half of a surrogate pair at either side of the cut.
        if (!m_head.isEmpty() && m_head.back().isHighSurrogate())
            m_head.chop(1);
        if (!m_tail.isEmpty() && m_tail.front().isLowSurrogate())
            m_tail.remove(0, 1);
        text.head = m_head;
        text.tail = m_tail;
        return text;
    }

private:
    // Whether UTF-8 bytes end with a sequence that is still waiting for continuation bytes.
    static bool endsInsideCharacter(QByteArrayView bytes)
    {
        qsizetype continuations = 0;
        for (qsizetype i = bytes.size() - 1; i >= 0; --i) {
            const auto byte = uchar(bytes.at(i));
            if ((byte & 0xC0) == 0x80) {
                ++continuations;
                continue;
            }
            const qsizetype length = byte >= 0xC2 && byte <= 0xDF   ? 2
                                     : byte >= 0xE0 && byte <= 0xEF ? 3
                                     : byte >= 0xF0 && byte <= 0xF4 ? 4
                                                                    : 1;
            return length > continuations + 1;
        }
        return false;
    }

    void keep(QStringView text)
    {
        m_total += text.size();
        if (m_head.size() < m_headLimit) {
            const qsizetype n = std::min(text.size(), m_headLimit - m_head.size());
            m_head.append(text.first(n));
            text = text.sliced(n);
        }
        if (text.isEmpty())
            return;
        if (text.size() >= m_tailLimit) {
            m_tail = text.last(m_tailLimit).toString();
            return;
        }
        // A rolling tail, trimmed only when it has doubled, so that trimming stays amortised.
        m_tail.append(text);
        if (m_tail.size() > 2 * m_tailLimit)
            m_tail.remove(0, m_tail.size() - m_tailLimit);
    }

    QStringDecoder m_decoder{QStringDecoder::Utf8};
    QByteArray m_lastBytes; // the last three bytes of the stream
    const qsizetype m_headLimit;
    const qsizetype m_tailLimit;
    QString m_head;
    QString m_tail;
    qint64 m_total = 0;
};

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
    // Without this, Windows PowerShell writes in the OEM code page and mangles every non-ASCII
    // character. Setting [Console]::OutputEncoding throws when there is no console, hence the
    // try. The epilogue keeps a failing native command's exit code, which -Command would fold
    // into 1.
    return u"$ProgressPreference = 'SilentlyContinue'\n"
           "$OutputEncoding = New-Object System.Text.UTF8Encoding $false\n"
           "try { [Console]::OutputEncoding = $OutputEncoding } catch {}\n"_s
           + command + u"\nif (-not $?) { if ($LASTEXITCODE) { exit $LASTEXITCODE }; exit 1 }\n"_s;
}

} // namespace

QString CapturedText::render() const
{
    if (!isTruncated())
        return head + tail;
    return head + cutNote(cutChars(), totalChars) + tail;
}

ShellInfo detectShell()
{
    const QString pwsh = QStandardPaths::findExecutable(u"pwsh"_s);
    if (!pwsh.isEmpty())
        return {ShellInfo::PowerShellCore, pwsh, u"PowerShell 7 (pwsh)"_s};
#ifdef Q_OS_WIN
    if (!runsUnderWine()) {
        QString powershell = QStandardPaths::findExecutable(u"powershell"_s);
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
        cmd = QStandardPaths::findExecutable(u"cmd"_s);
    if (cmd.isEmpty())
        cmd = u"cmd.exe"_s;
    return {ShellInfo::Cmd, cmd, u"cmd.exe"_s};
#else
    return {ShellInfo::PosixShell, u"/bin/sh"_s, u"/bin/sh"_s};
#endif
}

QStringList ProcessCommandRunner::argumentsFor(const ShellInfo &shell, const QString &command)
{
    switch (shell.kind) {
    case ShellInfo::PowerShellCore:
    case ShellInfo::WindowsPowerShell: {
        // -EncodedCommand takes base64 of UTF-16LE: no quoting rule of any layer applies to it.
        // The price is length: Windows caps a command line at 32767 characters, which leaves
        // room for a command of about 12000 characters.
        QStringEncoder toUtf16Le(QStringEncoder::Utf16LE);
        const QByteArray script = toUtf16Le.encode(powerShellScript(command));
        return {u"-NoProfile"_s,
                u"-NonInteractive"_s,
                u"-EncodedCommand"_s,
                QString::fromLatin1(script.toBase64())};
    }
    case ShellInfo::Cmd:
        // /d: no AutoRun commands from the registry; /s with /c: cmd strips the first and the
        // last quote of the rest of the line and runs what is between them verbatim.
        return {u"/d"_s, u"/s"_s, u"/c"_s, u"chcp 65001>nul & "_s + command};
    case ShellInfo::PosixShell:
        break;
    }
    return {u"-c"_s, command};
}

// The QProcess-backed run. Exactly one of three events completes it, and the m_completed guard
// makes the first one win: errorOccurred(FailedToStart), finished (normal exit, crash, or the
// end of a timeout or cancel), or the failed working-directory check before starting.
class ProcessCommandRun final : public CommandRun
{
public:
    ProcessCommandRun(const ShellInfo &shell, const CommandRequest &request, QObject *parent);
    ~ProcessCommandRun() override;

    void start();
    void cancel() override { stop(CommandOutcome::Cancelled); }
    qint64 processId() const override { return m_pid; }

private:
    void stop(CommandOutcome::Status reason);
    void onFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onErrorOccurred(QProcess::ProcessError error);
    void complete(CommandOutcome::Status status, int exitCode, const QString &errorString);
    void collect(OutputCapture &capture, const QByteArray &bytes);
    void terminateTree();
    void killTree();
#ifdef Q_OS_WIN
    void setUpJob();
    void adoptStartedProcess();
#endif

    const ShellInfo m_shell;
    const CommandRequest m_request;
    QProcess *m_process;
    QTimer m_timeoutTimer;
    QTimer m_killTimer;
    QElapsedTimer m_elapsed;
    OutputCapture m_stdout;
    OutputCapture m_stderr;
    OutputFileWriter m_outputFile;
    std::optional<CommandOutcome::Status> m_stopReason;
    bool m_completed = false;
    qint64 m_pid = 0;
#ifdef Q_OS_WIN
    HANDLE m_job = nullptr;
    PROCESS_INFORMATION *m_startedProcess = nullptr;
    bool m_startedSuspended = false;
#endif
};

ProcessCommandRun::ProcessCommandRun(const ShellInfo &shell,
                                     const CommandRequest &request,
                                     QObject *parent)
    : CommandRun(parent)
    , m_shell(shell)
    , m_request(request)
    , m_process(new QProcess(this))
    , m_stdout(request.outputLimit)
    , m_stderr(request.outputLimit)
    , m_outputFile(request.outputDirectory, request.outputFileStem, request.outputFileLimit)
{
    m_timeoutTimer.setSingleShot(true);
    m_killTimer.setSingleShot(true);
    m_killTimer.setInterval(terminateGrace);
    connect(&m_timeoutTimer, &QTimer::timeout, this, [this] { stop(CommandOutcome::TimedOut); });
    connect(&m_killTimer, &QTimer::timeout, this, &ProcessCommandRun::killTree);

    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
        collect(m_stdout, m_process->readAllStandardOutput());
    });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        collect(m_stderr, m_process->readAllStandardError());
    });
    connect(m_process, &QProcess::finished, this, &ProcessCommandRun::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ProcessCommandRun::onErrorOccurred);
}

ProcessCommandRun::~ProcessCommandRun()
{
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        killTree();
        // QProcess's destructor would wait, blocking, for the killed shell to be reaped (and
        // warn). Let it outlive the run instead and delete itself once the shell is gone.
        m_process->setParent(nullptr);
        connect(m_process, &QProcess::finished, m_process, &QObject::deleteLater);
    }
#ifdef Q_OS_WIN
    if (m_job) {
        TerminateJobObject(m_job, 1);
        CloseHandle(m_job);
    }
#endif
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

    m_process->setProgram(m_shell.program);
    m_process->setArguments(ProcessCommandRunner::argumentsFor(m_shell, m_request.command));
    m_process->setWorkingDirectory(directory);
    m_process->setStandardInputFile(QProcess::nullDevice());
    // Commands the model asks for never see the provider's key: one could print it or send it.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QString::fromLatin1(apiKeyVariable));
    m_process->setProcessEnvironment(environment);

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
    setUpJob();
    connect(m_process, &QProcess::stateChanged, this, [this](QProcess::ProcessState state) {
        if (state == QProcess::Running)
            adoptStartedProcess();
    });
#elif defined(Q_OS_UNIX)
    // Its own process group, so that one signal reaches everything the command starts (unless
    // a program deliberately leaves the group, e.g. with setsid). Runs between fork and exec:
    // async-signal-safe calls only.
    m_process->setChildProcessModifier([] { ::setpgid(0, 0); });
#endif

    m_process->start(QIODevice::ReadOnly);
    if (m_completed || m_process->state() == QProcess::NotRunning) {
#ifdef Q_OS_WIN
        m_startedProcess = nullptr; // freed by QProcess when CreateProcess failed
#endif
        return;
    }
    m_pid = m_process->processId();
#if defined(Q_OS_WIN)
    adoptStartedProcess(); // in case a future Qt no longer reports Running from inside start()
#elif defined(Q_OS_UNIX)
    // The parent sets the group too, as shells do: whichever of the two runs first, the group
    // exists before a timeout or a cancel can signal it. Fails harmlessly once the child execs.
    ::setpgid(pid_t(m_pid), pid_t(m_pid));
#endif
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
    terminateTree();
#ifdef Q_OS_UNIX
    m_killTimer.start();
#endif
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
        collect(m_stdout, m_process->readAllStandardOutput());
        collect(m_stderr, m_process->readAllStandardError());
    }

    CommandOutcome outcome;
    outcome.status = status;
    outcome.exitCode = exitCode;
    outcome.standardOutput = m_stdout.finish();
    outcome.standardError = m_stderr.finish();
    outcome.outputFile = m_outputFile.finish();
    outcome.errorString = errorString;
    outcome.durationMs = m_elapsed.isValid() ? m_elapsed.elapsed() : 0;
    // Always queued: never from inside start() or cancel(), whatever completed the run.
    QMetaObject::invokeMethod(
            this, [this, outcome] { emit finished(outcome); }, Qt::QueuedConnection);
}

void ProcessCommandRun::collect(OutputCapture &capture, const QByteArray &bytes)
{
    capture.append(bytes);
    m_outputFile.append(bytes);
    // The file starts when the result can no longer show everything; shorter output needs none.
    if (!m_outputFile.isStarted()
        && m_stdout.totalChars() + m_stderr.totalChars() > m_request.outputLimit)
        m_outputFile.start();
}

#if defined(Q_OS_WIN)

void ProcessCommandRun::setUpJob()
{
    m_job = CreateJobObjectW(nullptr, nullptr);
    if (m_job) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        if (!SetInformationJobObject(m_job,
                                     JobObjectExtendedLimitInformation,
                                     &limits,
                                     DWORD(sizeof limits))) {
            CloseHandle(m_job);
            m_job = nullptr;
        }
    }
    m_process->setCreateProcessArgumentsModifier([this](QProcess::CreateProcessArguments *args) {
        // Its own hidden console: the code page the command sets (chcp, [Console]::
        // OutputEncoding) and the user's Ctrl+C stay out of the terminal of agentloop-cli.
        args->flags |= CREATE_NO_WINDOW;
        // Suspended until it is in the job: a shell that ran at once could start a child before
        // the job holds it, and that child would escape the tree kill.
        if (m_job)
            args->flags |= CREATE_SUSPENDED;
        m_startedSuspended = m_job != nullptr;
        // QProcess owns this structure while the process runs; it is read once, right after
        // CreateProcess, in adoptStartedProcess().
        m_startedProcess = args->processInformation;
    });
}

void ProcessCommandRun::adoptStartedProcess()
{
    if (!m_startedProcess)
        return;
    PROCESS_INFORMATION *const info = std::exchange(m_startedProcess, nullptr);
    if (m_job && !AssignProcessToJobObject(m_job, info->hProcess)) {
        CloseHandle(m_job);
        m_job = nullptr;
    }
    if (m_startedSuspended)
        ResumeThread(info->hThread);
}

// Windows has no SIGTERM for console programs: a timeout or a cancel kills the job at once.
void ProcessCommandRun::terminateTree()
{
    killTree();
}

void ProcessCommandRun::killTree()
{
    if (m_job)
        TerminateJobObject(m_job, 1);
    else if (m_process->state() != QProcess::NotRunning)
        m_process->kill(); // no job (creation failed): only the shell itself can be reached
}

#elif defined(Q_OS_UNIX)

namespace {

void signalProcessGroup(QProcess *process, qint64 pid, int signal)
{
    if (pid <= 0)
        return;
    // After the shell is reaped its pid is not reused while processes of its group live, so
    // the group can still be signalled; with none left this fails with ESRCH, which is fine.
    if (::kill(-pid_t(pid), signal) == 0 || errno != ESRCH)
        return;
    // The child may not have made its group yet. Only while QProcess has not reaped it is the
    // pid certainly still ours.
    if (process->state() != QProcess::NotRunning)
        ::kill(pid_t(pid), signal);
}

} // namespace

void ProcessCommandRun::terminateTree()
{
    signalProcessGroup(m_process, m_pid, SIGTERM);
    // A stopped member (e.g. one that read the terminal from this background group and got
    // SIGTTIN) acts on SIGTERM only once continued.
    signalProcessGroup(m_process, m_pid, SIGCONT);
}

void ProcessCommandRun::killTree()
{
    signalProcessGroup(m_process, m_pid, SIGKILL);
}

#else

void ProcessCommandRun::terminateTree()
{
    m_process->terminate();
}

void ProcessCommandRun::killTree()
{
    m_process->kill();
}

#endif

ProcessCommandRunner::ProcessCommandRunner()
    : ProcessCommandRunner(detectShell())
{}

ProcessCommandRunner::ProcessCommandRunner(ShellInfo shell)
    : m_shell(std::move(shell))
{}

CommandRun *ProcessCommandRunner::start(const CommandRequest &request, QObject *parent)
{
    auto *run = new ProcessCommandRun(m_shell, request, parent);
    run->start();
    return run;
}

} // namespace AgentLoop
