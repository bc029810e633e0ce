#include "processreaper.h"
#include "testpaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QSet>
#include <QThread>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <tlhelp32.h>
#else
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <vector>

using namespace Qt::StringLiterals;

namespace AgentLoop {

#ifdef Q_OS_WIN

// Not a Job Object around the test process itself: Wine 8's server crashes when a process puts
// itself into a job (and the command runner's own jobs would nest in it). Descendants are found
// by their parent process ids instead, remembering every one seen, so that the children of a
// process that was killed are still known to be ours. A process id is reused as soon as its
// process is gone (at once under Wine), so each is remembered with its process's creation time:
// a process is ours only while that time is its own, and a child of a reused id only if it is
// older than the id's new process. Without that, a test reaping its leftovers killed the
// processes of another test running beside it.
struct ProcessReaper::Private
{
    QHash<DWORD, quint64> known; // pid -> creation time (FILETIME as a number)
    QString problem;
};

namespace {

struct ProcessEntry
{
    DWORD pid = 0;
    DWORD parent = 0;
    QString name;
};

QList<ProcessEntry> processes()
{
    QList<ProcessEntry> entries;
    const HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snapshot == INVALID_HANDLE_VALUE)
        return entries;
    PROCESSENTRY32W entry = {};
    entry.dwSize = sizeof entry;
    for (BOOL more = Process32FirstW(snapshot, &entry); more;
         more = Process32NextW(snapshot, &entry)) {
        entries.append({entry.th32ProcessID,
                        entry.th32ParentProcessID,
                        QString::fromWCharArray(entry.szExeFile)});
    }
    CloseHandle(snapshot);
    return entries;
}

// When the process was created (FILETIME as a number); 0 when it cannot be asked.
quint64 creationTime(HANDLE process)
{
    FILETIME created{}, exited{}, kernel{}, user{};
    return GetProcessTimes(process, &created, &exited, &kernel, &user)
                   ? (quint64(created.dwHighDateTime) << 32) | created.dwLowDateTime
                   : 0;
}

// When the process that has this id now was created; 0 when there is none (or it cannot be
// asked).
quint64 creationTime(DWORD pid)
{
    const HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (!process)
        return 0;
    const quint64 created = creationTime(process);
    CloseHandle(process);
    return created;
}

} // namespace

ProcessReaper::ProcessReaper()
    : d(std::make_unique<Private>())
{
    d->known.insert(GetCurrentProcessId(), creationTime(GetCurrentProcessId()));
}

ProcessReaper::~ProcessReaper() = default;

void ProcessReaper::track()
{
    QHash<DWORD, quint64> created;
    const QList<ProcessEntry> all = processes();
    for (const ProcessEntry &entry : all)
        created.insert(entry.pid, creationTime(entry.pid));
    const auto isOurs = [&](const ProcessEntry &entry) {
        const auto parent = d->known.constFind(entry.parent);
        if (parent == d->known.cend())
            return false;
        // Wine's desktop process serves every test's windows: whichever process needed it first
        // started it, and ending it with that process hangs the others (and that process's own
        // exit, waiting on it).
        if (entry.name.compare(u"explorer.exe"_s, Qt::CaseInsensitive) == 0)
            return false;
        const quint64 child = created.value(entry.pid);
        const quint64 holder = created.value(entry.parent); // the parent id's process now
        if (child == 0 || parent.value() == 0)
            return false; // gone, or not ours to ask: an id alone may be another's by now
        if (holder == 0 || holder == parent.value())
            return child >= parent.value(); // our parent, alive or gone
        return child < holder;              // ours from before the id was reused
    };
    for (bool grew = true; grew;) {
        grew = false;
        for (const ProcessEntry &entry : all) {
            if (!d->known.contains(entry.pid) && isOurs(entry)) {
                d->known.insert(entry.pid, created.value(entry.pid));
                grew = true;
            }
        }
    }
}

QStringList ProcessReaper::reapLeftovers()
{
    track();
    QStringList found;
    const DWORD self = GetCurrentProcessId();
    for (const ProcessEntry &entry : processes()) {
        const auto known = d->known.constFind(entry.pid);
        if (entry.pid == self || known == d->known.cend())
            continue;
        const HANDLE process = OpenProcess(PROCESS_TERMINATE | PROCESS_QUERY_LIMITED_INFORMATION
                                                   | SYNCHRONIZE,
                                           FALSE,
                                           entry.pid);
        if (!process)
            continue;
        if (creationTime(process) != known.value()) { // the id is another process's now
            CloseHandle(process);
            continue;
        }
        QString line = u"%1 (pid %2)"_s.arg(entry.name).arg(entry.pid);
        const bool killed = TerminateProcess(process, 1)
                            && WaitForSingleObject(process, 5000) == WAIT_OBJECT_0;
        CloseHandle(process);
        if (!killed)
            line += u", not killed"_s;
        found.append(line);
    }
    return found;
}

#else

struct ProcessReaper::Private
{
    QString problem;
};

ProcessReaper::ProcessReaper()
    : d(std::make_unique<Private>())
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        d->problem = u"not the subreaper of its descendants: %1"_s.arg(
                QString::fromLocal8Bit(strerror(errno)));
}

ProcessReaper::~ProcessReaper() = default;

void ProcessReaper::track() {} // orphans come back to this process by themselves

namespace {

struct ProcStat
{
    pid_t pid = 0;
    pid_t parent = 0;
    char state = 0;
    QString name; // comm: at most 15 characters of the program's name
};

// Every process in /proc, from its stat line.
std::vector<ProcStat> processStats()
{
    std::vector<ProcStat> stats;
    const QStringList entries = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const pid_t pid = pid_t(entry.toInt(&isPid));
        if (!isPid)
            continue;
        QFile stat(u"/proc/%1/stat"_s.arg(entry));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last.
        const qsizetype close = line.lastIndexOf(')');
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (close < 0 || fields.size() < 2 || fields.at(0).isEmpty())
            continue;
        const qsizetype open = line.indexOf('(');
        stats.push_back({pid,
                         pid_t(fields.at(1).toInt()),
                         fields.at(0).at(0),
                         QString::fromLocal8Bit(line.mid(open + 1, close - open - 1))});
    }
    return stats;
}

// The direct children of this process (orphaned descendants included: they are reparented to
// it), from /proc.
std::vector<std::pair<pid_t, QString>> childrenOfThisProcess(bool *hadZombies)
{
    std::vector<std::pair<pid_t, QString>> children;
    const pid_t self = getpid();
    for (const ProcStat &process : processStats()) {
        if (process.parent != self)
            continue;
        if (process.state == 'Z') { // it ended; only its exit status is left to collect
            ::waitpid(process.pid, nullptr, WNOHANG);
            *hadZombies = true;
            continue;
        }
        children.emplace_back(process.pid, process.name);
    }
    return children;
}

} // namespace

QStringList ProcessReaper::reapLeftovers()
{
    QStringList found;
    // A killed child's own children become this process's: go round until none are left.
    for (int round = 0; round < 20; ++round) {
        bool hadZombies = false;
        const auto children = childrenOfThisProcess(&hadZombies);
        if (children.empty() && !hadZombies)
            break;
        for (const auto &[pid, name] : children) {
            found.append(u"%1 (pid %2)"_s.arg(name).arg(pid));
            ::kill(pid, SIGKILL);
        }
        for (const auto &[pid, name] : children) {
            for (int wait = 0; wait < 500 && ::waitpid(pid, nullptr, WNOHANG) == 0; ++wait)
                QThread::msleep(10);
        }
    }
    found.removeDuplicates();
    return found;
}

#endif

QString ProcessReaper::problem() const
{
    return d->problem;
}

#ifdef Q_OS_WIN

WatchedProcess::WatchedProcess(qint64 pid)
    : m_pid(pid)
    , m_handle(OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, DWORD(pid)))
{}

WatchedProcess::~WatchedProcess()
{
    if (m_handle)
        CloseHandle(m_handle);
}

bool WatchedProcess::isGone() const
{
    return !m_handle || WaitForSingleObject(m_handle, 0) == WAIT_OBJECT_0;
}

QList<qint64> childProcesses(qint64 parent, const QString &name)
{
    QList<qint64> children;
    for (const ProcessEntry &entry : processes()) {
        if (qint64(entry.parent) == parent && entry.name.contains(name, Qt::CaseInsensitive))
            children.append(qint64(entry.pid));
    }
    return children;
}

bool processIsGone(qint64 pid)
{
    const HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, DWORD(pid));
    if (!process)
        return true;
    DWORD exitCode = 0;
    const bool running = GetExitCodeProcess(process, &exitCode) && exitCode == STILL_ACTIVE;
    CloseHandle(process);
    return !running;
}

#else

WatchedProcess::WatchedProcess(qint64 pid)
    : m_pid(pid)
{}

WatchedProcess::~WatchedProcess() = default;

bool WatchedProcess::isGone() const
{
    return processIsGone(m_pid);
}

QList<qint64> childProcesses(qint64 parent, const QString &name)
{
    QList<qint64> children;
    for (const ProcStat &process : processStats()) {
        // comm is the name cut at 15 characters.
        if (process.parent == parent && process.state != 'Z'
            && (name.startsWith(process.name) || process.name.contains(name)))
            children.append(process.pid);
    }
    return children;
}

bool processIsGone(qint64 pid)
{
    if (::kill(pid_t(pid), 0) == -1 && errno == ESRCH)
        return true;
    const QByteArray line = readFile(u"/proc/%1/stat"_s.arg(pid));
    const qsizetype nameEnd = line.lastIndexOf(')');
    if (nameEnd < 0 || nameEnd + 2 >= line.size())
        return false;
    const char state = line.at(nameEnd + 2);
    return state == 'Z' || state == 'X';
}

#endif

} // namespace AgentLoop
