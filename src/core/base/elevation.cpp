#include "base/elevation.h"

#include <QtGlobal>

#ifdef Q_OS_WIN
#include <qt_windows.h>
#else
#include <unistd.h>
#endif

namespace AgentLoop {

bool runsElevated()
{
#ifdef Q_OS_WIN
    // An administrator's process without UAC elevation has a filtered token: not elevated.
    HANDLE token = nullptr;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return false;
    TOKEN_ELEVATION elevation{};
    DWORD size = 0;
    const bool elevated = GetTokenInformation(token,
                                              TokenElevation,
                                              &elevation,
                                              sizeof elevation,
                                              &size)
                          && elevation.TokenIsElevated != 0;
    CloseHandle(token);
    return elevated;
#else
    return geteuid() == 0;
#endif
}

} // namespace AgentLoop
