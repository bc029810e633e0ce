#include "pseudoterminal.h"

#include <QProcess>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <thread>
#include <vector>
#else
#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#endif

namespace AgentLoop {

#ifdef Q_OS_WIN

struct PseudoTerminal::Private
{
    HPCON console = nullptr;
    HANDLE keys = nullptr;   // what is typed: the console's input
    HANDLE screen = nullptr; // what the console shows, read and dropped
    std::thread drain;
    std::vector<char> attributes; // the PROC_THREAD_ATTRIBUTE_LIST naming the console
    STARTUPINFOEXW startup{};
};

const char *PseudoTerminal::unavailableReason()
{
    // Wine (8.0) creates the pseudo console, but a child started with it (or with a console of
    // its own, CREATE_NEW_CONSOLE) still inherits its parent's standard input: GetConsoleMode
    // fails there, and nothing typed reaches it.
    static const bool wine = GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version");
    return wine ? "Wine gives a child process no console input: neither a pseudo console "
                  "(PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE) nor CREATE_NEW_CONSOLE makes its "
                  "standard input a console that keys can be typed at"
                : nullptr;
}

PseudoTerminal::PseudoTerminal()
    : d(std::make_unique<Private>())
{
    HANDLE inputRead = nullptr;
    HANDLE outputWrite = nullptr;
    if (!CreatePipe(&inputRead, &d->keys, nullptr, 0))
        return;
    if (!CreatePipe(&d->screen, &outputWrite, nullptr, 0)) {
        CloseHandle(inputRead);
        return;
    }
    const HRESULT created = CreatePseudoConsole(COORD{120, 40},
                                                inputRead,
                                                outputWrite,
                                                0,
                                                &d->console);
    // The console holds its own copies of these ends.
    CloseHandle(inputRead);
    CloseHandle(outputWrite);
    if (FAILED(created)) {
        d->console = nullptr;
        return;
    }
    // The console blocks once its screen output is not read.
    d->drain = std::thread([screen = d->screen] {
        char buffer[4096];
        DWORD count = 0;
        while (ReadFile(screen, buffer, DWORD(sizeof buffer), &count, nullptr) && count > 0) {
        }
    });

    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    d->attributes.resize(size);
    auto *list = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(d->attributes.data());
    if (!InitializeProcThreadAttributeList(list, 1, 0, &size)
        || !UpdateProcThreadAttribute(list,
                                      0,
                                      PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE,
                                      d->console,
                                      sizeof(HPCON),
                                      nullptr,
                                      nullptr)) {
        d->attributes.clear();
        return;
    }
    d->startup.lpAttributeList = list;
}

PseudoTerminal::~PseudoTerminal()
{
    if (!d->attributes.empty())
        DeleteProcThreadAttributeList(d->startup.lpAttributeList);
    if (d->console)
        ClosePseudoConsole(d->console); // ends the drain's ReadFile
    if (d->keys)
        CloseHandle(d->keys);
    if (d->drain.joinable())
        d->drain.join();
    if (d->screen)
        CloseHandle(d->screen);
}

bool PseudoTerminal::isOpen() const
{
    return d->console && !d->attributes.empty();
}

void PseudoTerminal::attachTo(QProcess &process, Channels)
{
    process.setStandardInputFile(QProcess::nullDevice());
    process.setCreateProcessArgumentsModifier([this](QProcess::CreateProcessArguments *args) {
        d->startup.StartupInfo = *args->startupInfo;
        d->startup.StartupInfo.cb = sizeof(STARTUPINFOEXW);
        // No standard input handle: the child opens its console's input instead, while its
        // standard output and error stay QProcess's pipes.
        d->startup.StartupInfo.hStdInput = nullptr;
        args->startupInfo = &d->startup.StartupInfo;
        args->flags |= EXTENDED_STARTUPINFO_PRESENT;
    });
}

bool PseudoTerminal::type(const QByteArray &keys)
{
    // Enter is CR at a console.
    const QByteArray console = QByteArray(keys).replace('\n', '\r');
    DWORD written = 0;
    return WriteFile(d->keys, console.constData(), DWORD(console.size()), &written, nullptr)
           && written == DWORD(console.size());
}

QByteArray PseudoTerminal::screen()
{
    return {};
}

#else

const char *PseudoTerminal::unavailableReason()
{
    return nullptr;
}

struct PseudoTerminal::Private
{
    int master = -1;
    int slave = -1;
    QByteArray screen;
    std::unique_ptr<QSocketNotifier> notifier;

    void readScreen()
    {
        char buffer[4096];
        for (;;) {
            const ssize_t count = ::read(master, buffer, sizeof buffer);
            if (count > 0) {
                screen.append(buffer, count);
                continue;
            }
            if (count < 0 && errno == EINTR)
                continue;
            // EAGAIN: all read. The slave stays open here, so there is no hang-up to wait for.
            if (count == 0 || errno != EAGAIN)
                notifier->setEnabled(false);
            return;
        }
    }
};

PseudoTerminal::PseudoTerminal()
    : d(std::make_unique<Private>())
{
    d->master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (d->master < 0)
        return;
    if (::grantpt(d->master) != 0 || ::unlockpt(d->master) != 0)
        return;
    if (const char *name = ::ptsname(d->master))
        d->slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

PseudoTerminal::~PseudoTerminal()
{
    d->notifier.reset();
    if (d->slave >= 0)
        ::close(d->slave);
    if (d->master >= 0)
        ::close(d->master);
}

bool PseudoTerminal::isOpen() const
{
    return d->master >= 0 && d->slave >= 0;
}

void PseudoTerminal::attachTo(QProcess &process, Channels channels)
{
    process.setStandardInputFile(QProcess::nullDevice());
    if (channels == Channels::Input) {
        // Runs in the child after QProcess has set up the standard channels.
        process.setChildProcessModifier([fd = d->slave] { ::dup2(fd, STDIN_FILENO); });
        return;
    }
    process.setChildProcessModifier([fd = d->slave] {
        ::dup2(fd, STDIN_FILENO);
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
    });
    if (!d->notifier && d->master >= 0) {
        ::fcntl(d->master, F_SETFL, ::fcntl(d->master, F_GETFL) | O_NONBLOCK);
        d->notifier = std::make_unique<QSocketNotifier>(d->master, QSocketNotifier::Read);
        QObject::connect(d->notifier.get(),
                         &QSocketNotifier::activated,
                         d->notifier.get(),
                         [d = d.get()] { d->readScreen(); });
    }
}

bool PseudoTerminal::type(const QByteArray &keys)
{
    return ::write(d->master, keys.constData(), size_t(keys.size())) == keys.size();
}

QByteArray PseudoTerminal::screen()
{
    if (d->notifier && d->notifier->isEnabled())
        d->readScreen();
    return d->screen;
}

#endif

} // namespace AgentLoop
