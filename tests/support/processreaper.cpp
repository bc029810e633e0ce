#include "processreaper.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QThread>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <tlhelp32.h>
#else
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

struct ProcessReaper::Private
{
    HANDLE job = nullptr;
    QString problem;
};

ProcessReaper::ProcessReaper()
    : d(std::make_unique<Private>())
{
    d->job = CreateJobObjectW(nullptr, nullptr);
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = {};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (!d->job
        || !SetInformationJobObject(d->job, JobObjectExtendedLimitInformation, &limits, sizeof limits)
        || !AssignProcessToJobObject(d->job, GetCurrentProcess())) {
        d->problem = u"no Job Object for the test process (error %1)"_s.arg(GetLastError());
    }
}

ProcessReaper::~ProcessReaper()
{
    if (d->job)
        CloseHandle(d->job); // kills whatever is still in it
}

namespace {

QString imageName(DWORD pid)
{
    const HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snapshot == INVALID_HANDLE_VALUE)
        return u"?"_s;
    PROCESSENTRY32W entry = {};
    entry.dwSize = sizeof entry;
    QString name = u"?"_s;
    for (BOOL more = Process32FirstW(snapshot, &entry); more;
         more = Process32NextW(snapshot, &entry)) {
        if (entry.th32ProcessID == pid) {
            name = QString::fromWCharArray(entry.szExeFile);
            break;
        }
    }
    CloseHandle(snapshot);
    return name;
}

} // namespace

QStringList ProcessReaper::reapLeftovers()
{
    QStringList found;
    if (!d->job)
        return found;
    struct
    {
        JOBOBJECT_BASIC_PROCESS_ID_LIST list;
        ULONG_PTR more[1023];
    } ids = {};
    ids.list.NumberOfAssignedProcesses = 1024;
    if (!QueryInformationJobObject(d->job, JobObjectBasicProcessIdList, &ids, sizeof ids, nullptr))
        return found;
    const DWORD self = GetCurrentProcessId();
    for (DWORD i = 0; i < ids.list.NumberOfProcessIdsInList; ++i) {
        const DWORD pid = DWORD(ids.list.ProcessIdList[i]);
        if (pid == self)
            continue;
        QString line = u"%1 (pid %2)"_s.arg(imageName(pid)).arg(pid);
        const HANDLE process = OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE, FALSE, pid);
        const bool killed = process && TerminateProcess(process, 1)
                            && WaitForSingleObject(process, 5000) == WAIT_OBJECT_0;
        if (process)
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

namespace {

// The direct children of this process (orphaned descendants included: they are reparented to
// it), from /proc.
std::vector<std::pair<pid_t, QString>> childrenOfThisProcess(bool *hadZombies)
{
    std::vector<std::pair<pid_t, QString>> children;
    const pid_t self = getpid();
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
        if (close < 0 || fields.size() < 2 || fields.at(1).toInt() != self)
            continue;
        if (fields.at(0) == "Z") { // it ended; only its exit status is left to collect
            ::waitpid(pid, nullptr, WNOHANG);
            *hadZombies = true;
            continue;
        }
        const qsizetype open = line.indexOf('(');
        children.emplace_back(pid, QString::fromLocal8Bit(line.mid(open + 1, close - open - 1)));
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

} // namespace AgentLoop
