#include "consolecodepage.h"

#include <QtGlobal>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <mutex>
#endif

namespace Cli {

#ifdef Q_OS_WIN
namespace {

// The console calls its control handler on a thread of its own; the mutex makes removing the
// handler wait for one that is running.
std::mutex endHandlerMutex;
std::function<void()> endHandler;

BOOL WINAPI onConsoleEnd(DWORD /*type*/)
{
    // Handlers run newest first: the run's own (main.cpp) has taken Ctrl+C and Ctrl+Break by
    // returning TRUE when one is going, so whatever reaches this one ends the process.
    const std::lock_guard lock(endHandlerMutex);
    if (endHandler)
        endHandler();
    return FALSE; // the next handler, in the end the system's, ends the process
}

} // namespace

ConsoleCodePage::Console ConsoleCodePage::systemConsole()
{
    Console console;
    console.outputCodePage = [] {
        return unsigned(GetConsoleOutputCP());
    };
    console.inputCodePage = [] {
        return unsigned(GetConsoleCP());
    };
    console.setOutputCodePage = [](unsigned codePage) {
        SetConsoleOutputCP(codePage);
    };
    console.setInputCodePage = [](unsigned codePage) {
        SetConsoleCP(codePage);
    };
    console.setEndHandler = [](std::function<void()> atEnd) {
        const bool install = bool(atEnd);
        {
            const std::lock_guard lock(endHandlerMutex);
            endHandler = std::move(atEnd);
        }
        SetConsoleCtrlHandler(onConsoleEnd, install ? TRUE : FALSE);
    };
    return console;
}
#else
ConsoleCodePage::Console ConsoleCodePage::systemConsole()
{
    Console console;
    console.outputCodePage = [] {
        return 0u;
    };
    console.inputCodePage = [] {
        return 0u;
    };
    console.setOutputCodePage = [](unsigned) {
    };
    console.setInputCodePage = [](unsigned) {
    };
    console.setEndHandler = [](std::function<void()>) {
    };
    return console;
}
#endif

ConsoleCodePage::ConsoleCodePage(Console console)
    : m_console(std::move(console))
{
    m_savedOutput = m_console.outputCodePage();
    if (m_savedOutput == 0)
        return; // no console: output goes to a pipe or a file, as UTF-8 anyway
    m_savedInput = m_console.inputCodePage();
    m_switched = true;
    m_console.setEndHandler([this] { restore(); });
    m_console.setOutputCodePage(utf8);
    m_console.setInputCodePage(utf8);
}

ConsoleCodePage::~ConsoleCodePage()
{
    if (m_savedOutput == 0)
        return;
    m_console.setEndHandler({});
    restore();
}

void ConsoleCodePage::restore()
{
    if (!m_switched.exchange(false))
        return;
    m_console.setOutputCodePage(m_savedOutput);
    if (m_savedInput != 0)
        m_console.setInputCodePage(m_savedInput);
}

} // namespace Cli
