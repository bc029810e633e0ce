#include "tools/processtree.h"

#include <QCoreApplication>
#include <QList>
#include <QPointer>
#include <QProcess>

#include <utility>

#if defined(Q_OS_WIN)
#include <qt_windows.h>
#elif defined(Q_OS_UNIX)
#include <cerrno>
#include <csignal>
#include <sys/types.h>
#include <unistd.h>
#endif

namespace AgentLoop {

namespace {

// The processes killAndRelease() let go, until they delete themselves. The application's end does
// not wait for that: the ones still there then are waited for (they were killed, so briefly) and
// deleted, so that none is left unreaped, or leaked, when the app or a test ends.
QList<QPointer<QProcess>> &releasedProcesses()
{
    static QList<QPointer<QProcess>> processes;
    return processes;
}

void reapReleasedProcesses()
{
    for (const QPointer<QProcess> &process : std::exchange(releasedProcesses(), {})) {
        if (!process)
            continue;
        process->disconnect();
        process->waitForFinished(1000);
        delete process.data();
    }
}

} // namespace

ProcessTree::ProcessTree(QProcess *process)
    : m_process(process)
{}

ProcessTree::~ProcessTree()
{
#ifdef Q_OS_WIN
    if (m_job) {
        TerminateJobObject(HANDLE(m_job), 1);
        CloseHandle(HANDLE(m_job));
    }
#endif
}

void ProcessTree::killAndRelease()
{
    m_process->disconnect();
    if (m_process->state() == QProcess::NotRunning)
        return;
    kill();
    m_process->setParent(nullptr);
    QObject::connect(m_process, &QProcess::finished, m_process, &QObject::deleteLater);
    [[maybe_unused]] static const bool reapedAtExit = [] {
        qAddPostRoutine(reapReleasedProcesses);
        return true;
    }();
    releasedProcesses().removeAll(nullptr);
    releasedProcesses().append(m_process);
}

#if defined(Q_OS_WIN)

void ProcessTree::prepare()
{
    HANDLE job = CreateJobObjectW(nullptr, nullptr);
    if (job) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        if (!SetInformationJobObject(job,
                                     JobObjectExtendedLimitInformation,
                                     &limits,
                                     DWORD(sizeof limits))) {
            CloseHandle(job);
            job = nullptr;
        }
    }
    m_job = job;
    m_process->setCreateProcessArgumentsModifier([this](QProcess::CreateProcessArguments *args) {
        // Its own hidden console: the code page a program sets (chcp, [Console]::OutputEncoding)
        // and the user's Ctrl+C stay out of the terminal of agentloop-cli.
        args->flags |= CREATE_NO_WINDOW;
        // A process group of its own, which a Ctrl+Break can be sent to (terminate()).
        args->flags |= CREATE_NEW_PROCESS_GROUP;
        // Suspended until it is in the job: a program that ran at once could start a child
        // before the job holds it, and that child would escape the tree kill.
        if (m_job)
            args->flags |= CREATE_SUSPENDED;
        m_startedSuspended = m_job != nullptr;
        // QProcess owns this structure while the process runs; it is read once, right after
        // CreateProcess, in adoptStartedProcess().
        m_startedProcess = args->processInformation;
    });
    connect(m_process, &QProcess::stateChanged, this, [this](QProcess::ProcessState state) {
        if (state == QProcess::Running)
            adoptStartedProcess();
    });
}

void ProcessTree::adopt()
{
    if (m_process->state() == QProcess::NotRunning) {
        m_startedProcess = nullptr; // freed by QProcess when CreateProcess failed
        return;
    }
    m_pid = m_process->processId();
    adoptStartedProcess(); // in case a future Qt no longer reports Running from inside start()
}

void ProcessTree::adoptStartedProcess()
{
    if (!m_startedProcess)
        return;
    auto *const info = static_cast<PROCESS_INFORMATION *>(std::exchange(m_startedProcess, nullptr));
    if (m_job && !AssignProcessToJobObject(HANDLE(m_job), info->hProcess)) {
        CloseHandle(HANDLE(m_job));
        m_job = nullptr;
    }
    if (m_startedSuspended)
        ResumeThread(info->hThread);
}

// Windows has no SIGTERM for console programs; the nearest is a Ctrl+Break in their console,
// on which git, for one, removes its index.lock before it exits. The process's console is hidden
// and not this process's: sending it means attaching to it for a moment, which only a process
// without a console of its own (the desktop app) can do without losing its own. agentloop-cli
// keeps its terminal, and its trees are killed at once.
bool ProcessTree::terminate()
{
    if (m_pid == 0 || m_process->state() == QProcess::NotRunning || GetConsoleWindow() != nullptr)
        return false;
    if (!AttachConsole(DWORD(m_pid)))
        return false;
    const bool sent = GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, DWORD(m_pid)) != 0;
    FreeConsole();
    return sent;
}

void ProcessTree::kill()
{
    if (m_job)
        TerminateJobObject(HANDLE(m_job), 1);
    else if (m_process->state() != QProcess::NotRunning)
        m_process->kill(); // no job (creation failed): only the process itself can be reached
}

#elif defined(Q_OS_UNIX)

namespace {

void signalProcessGroup(QProcess *process, qint64 pid, int signal)
{
    if (pid <= 0)
        return;
    // After the leader is reaped its pid is not reused while processes of its group live, so
    // the group can still be signalled; with none left this fails with ESRCH, which is fine.
    if (::kill(-pid_t(pid), signal) == 0 || errno != ESRCH)
        return;
    // The child may not have made its group yet. Only while QProcess has not reaped it is the
    // pid certainly still ours.
    if (process->state() != QProcess::NotRunning)
        ::kill(pid_t(pid), signal);
}

} // namespace

void ProcessTree::prepare()
{
    // Its own process group, so that one signal reaches everything the process starts. Runs
    // between fork and exec: async-signal-safe calls only.
    m_process->setChildProcessModifier([] { ::setpgid(0, 0); });
}

void ProcessTree::adopt()
{
    if (m_process->state() == QProcess::NotRunning)
        return;
    m_pid = m_process->processId();
    // The parent sets the group too, as shells do: whichever of the two runs first, the group
    // exists before a terminate or a kill can signal it. Fails harmlessly once the child execs.
    ::setpgid(pid_t(m_pid), pid_t(m_pid));
}

bool ProcessTree::terminate()
{
    signalProcessGroup(m_process, m_pid, SIGTERM);
    // A stopped member (e.g. one that read the terminal from this background group and got
    // SIGTTIN) acts on SIGTERM only once continued.
    signalProcessGroup(m_process, m_pid, SIGCONT);
    return true;
}

void ProcessTree::kill()
{
    signalProcessGroup(m_process, m_pid, SIGKILL);
}

#else

void ProcessTree::prepare() {}

void ProcessTree::adopt()
{
    if (m_process->state() != QProcess::NotRunning)
        m_pid = m_process->processId();
}

bool ProcessTree::terminate()
{
    m_process->terminate();
    return true;
}

void ProcessTree::kill()
{
    m_process->kill();
}

#endif

} // namespace AgentLoop
