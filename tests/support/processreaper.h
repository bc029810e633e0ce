#pragma once

#include <QStringList>

#include <memory>

namespace AgentLoop {

// Makes sure a test that starts processes leaves none behind: every process it starts, and every
// process those start, is found at the end and killed, so the test executable exits (CTest waits
// for whatever still holds its output) and names what was left. On Windows it tracks
// down its descendants by their parent process ids, remembering each one seen (track()); on
// Linux it becomes the "subreaper" of its descendants, so an orphaned grandchild comes back to
// it by itself.
//
// Every test executable has one, from before main() to after it
// (tests/support/leftoverprocesses.cpp): whatever is still running at the end is killed and named
// on standard error, and the test fails if something could not be killed. testProcessReaper()
// gives a test that leaves processes behind on purpose (the kill test) a way to reap them as it
// goes.
class ProcessReaper final
{
public:
    ProcessReaper();
    ~ProcessReaper();
    ProcessReaper(const ProcessReaper &) = delete;
    ProcessReaper &operator=(const ProcessReaper &) = delete;

    // Remembers the descendants running now, so that their children are still found once they
    // are gone (call it before killing a process).
    void track();
    // Why descendants cannot be tracked here, or empty.
    QString problem() const;
    // Kills every descendant still running and returns one line per process it found
    // ("conhost.exe (pid 1234)"). A process that could not be killed is named with "not killed".
    QStringList reapLeftovers();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

ProcessReaper &testProcessReaper();

// The running processes whose parent is parent and whose program name contains name (on Linux,
// whose name cut at 15 characters starts name), from the system's process list.
QList<qint64> childProcesses(qint64 parent, const QString &name);

// A process a test watches until it is gone. On Windows it holds a handle to it, so that its id
// cannot pass to another process meanwhile (Wine reuses an id at once).
class WatchedProcess final
{
public:
    explicit WatchedProcess(qint64 pid);
    ~WatchedProcess();
    WatchedProcess(const WatchedProcess &) = delete;
    WatchedProcess &operator=(const WatchedProcess &) = delete;

    qint64 pid() const { return m_pid; }
    bool isGone() const;

private:
    qint64 m_pid;
    void *m_handle = nullptr; // Windows: the process's HANDLE
};

// Dead: no such process, or (Linux) a zombie its new parent, init or a subreaper, has not reaped
// yet.
bool processIsGone(qint64 pid);

} // namespace AgentLoop
