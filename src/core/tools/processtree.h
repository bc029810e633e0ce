#pragma once

#include <QObject>

class QProcess;

namespace AgentLoop {

// A QProcess and every process it starts, as one thing that can be stopped: on Unix the child
// leads a process group of its own, so that one signal reaches the grandchildren too (unless one
// deliberately leaves the group, e.g. with setsid); on Windows it is started suspended, put in a
// Job Object with kill-on-close and then resumed, so that no child escapes the job and the whole
// tree also dies when this process does.
//
// Use: construct it for a process that has not started, call prepare() before
// QProcess::start() and adopt() right after it (when the process is not NotRunning), then
// terminate() and kill() as needed. The destructor terminates the job (Windows); on Unix the
// owner kills the group itself when it means to.
class ProcessTree final : public QObject
{
public:
    explicit ProcessTree(QProcess *process);
    ~ProcessTree() override;
    ProcessTree(const ProcessTree &) = delete;
    ProcessTree &operator=(const ProcessTree &) = delete;

    // Before QProcess::start(): the process group (Unix) or the job, hidden console and suspended
    // start (Windows). Sets the process's child modifier (Unix) or CreateProcess arguments
    // modifier (Windows): the owner must not set its own.
    void prepare();
    // Right after QProcess::start(), whether or not it started.
    void adopt();

    // The operating system's id of the started process, 0 before.
    qint64 processId() const { return m_pid; }

    // Asks the tree to stop (Unix: SIGTERM and SIGCONT to the group; Windows: Ctrl+Break where
    // this process can send one). False when nothing could be asked: kill() at once then.
    bool terminate();
    // Kills the whole tree now (Unix: SIGKILL to the group; Windows: terminates the job, or the
    // process alone when there is no job).
    void kill();
    // For an owner that goes away while the process may still run: kills the tree (when the
    // process still runs) and, since
    // QProcess's destructor would block until the killed process is reaped, takes the process
    // from its parent and lets it delete itself once it has finished (or, at the application's
    // end, waits for it briefly and deletes it). Disconnects the process from everything.
    void killAndRelease();

private:
#ifdef Q_OS_WIN
    void adoptStartedProcess();
    void *m_job = nullptr;            // HANDLE
    void *m_startedProcess = nullptr; // PROCESS_INFORMATION *, owned by QProcess
    bool m_startedSuspended = false;
#endif
    QProcess *m_process;
    qint64 m_pid = 0;
};

} // namespace AgentLoop
