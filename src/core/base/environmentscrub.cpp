#include "base/environmentscrub.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QtGlobal>

#if defined(Q_OS_WIN)
#include <windows.h>

#include <cstdlib>
#include <string>
#else
#include <QFile>

#include <cstring>
#include <vector>

extern char **environ;
#endif

namespace AgentLoop {

#if defined(Q_OS_LINUX)
namespace {

// Where the kernel wrote the environment strings at exec: env_start and env_end, fields 50 and
// 51 of /proc/self/stat (Linux 3.5 and later).
bool initialEnvironmentArea(quintptr *begin, quintptr *end)
{
    QFile file(QStringLiteral("/proc/self/stat"));
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray stat = file.readAll();
    // Field 2, the command name in parentheses, may hold spaces and parentheses itself.
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return false;
    const QList<QByteArray> fields = stat.mid(close + 2).trimmed().split(' '); // from field 3
    if (fields.size() < 49)
        return false;
    bool beginRead = false;
    bool endRead = false;
    *begin = quintptr(fields.at(47).toULongLong(&beginRead));
    *end = quintptr(fields.at(48).toULongLong(&endRead));
    return beginRead && endRead && *begin < *end;
}

} // namespace
#endif

void removeFromOwnEnvironment(const char *name)
{
#if defined(Q_OS_WIN)
    const std::wstring variable = QString::fromLatin1(name).toStdWString();
    // A value of the same length takes the old one's place in the block: the key's characters
    // are overwritten there before the variable is removed.
    const DWORD size = GetEnvironmentVariableW(variable.c_str(), nullptr, 0);
    if (size > 1)
        SetEnvironmentVariableW(variable.c_str(), std::wstring(size - 1, L'_').c_str());
    // The C runtime's own copies (wide and narrow), which getenv() and _wgetenv() read.
    _wputenv_s(variable.c_str(), L"");
    qunsetenv(name);
    SetEnvironmentVariableW(variable.c_str(), nullptr);
#else
    const size_t length = std::strlen(name);
    // Found first: unsetenv() moves the remaining entries down the array.
    std::vector<char *> entries;
    for (char **entry = environ; entry && *entry; ++entry) {
        if (std::strncmp(*entry, name, length) == 0 && (*entry)[length] == '=')
            entries.push_back(*entry);
    }
    qunsetenv(name);
#if defined(Q_OS_LINUX)
    quintptr begin = 0;
    quintptr end = 0;
    if (entries.empty() || !initialEnvironmentArea(&begin, &end))
        return;
    for (char *entry : entries) {
        const size_t size = std::strlen(entry);
        // Only there: a string setenv() made belongs to the C library (and /proc never shows it).
        if (quintptr(entry) < begin || quintptr(entry) + size > end)
            continue;
        std::memset(entry, '_', size);
        entry[length] = '=';
    }
#endif
#endif
}

} // namespace AgentLoop
