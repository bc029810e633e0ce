#include "testshell.h"

using namespace Qt::StringLiterals;

namespace AgentLoop {

ShellInfo posixShell()
{
    return {ShellInfo::PosixShell, u"/bin/sh"_s, u"/bin/sh"_s};
}

ShellInfo cmdShell()
{
    return {ShellInfo::Cmd, qEnvironmentVariable("ComSpec", u"cmd.exe"_s), u"cmd.exe"_s};
}

ShellInfo testShell()
{
#ifdef Q_OS_WIN
    return cmdShell();
#else
    return posixShell();
#endif
}

std::optional<ShellInfo> shellForRow(const QString &name)
{
    if (name != u"PowerShell")
        return testShell();
    const ShellInfo detected = detectShell();
    return detected.isPowerShell() ? std::optional(detected) : std::nullopt;
}

QString powerShellMissing()
{
    return u"needs a working PowerShell (Wine's is a stub); detectShell() chose %1"_s.arg(
            detectShell().displayName);
}

} // namespace AgentLoop
