#pragma once

#include <atomic>
#include <functional>

namespace Cli {

// The Windows console's output and input code pages, switched to UTF-8 (what TerminalWriter
// writes, what the approval prompt reads) for as long as this object lives, and put back as the
// user had them (CP936, CP437, …) when it is destroyed, or, when Ctrl+C, Ctrl+Break or closing
// the console window ends the process first, from the console's control handler before the
// process is ended. Without that, the console the user goes on typing in stays at UTF-8.
//
// Made first thing in main(), before anything is written: a --help or a configuration error on
// a CP936 console must not come out as mojibake. Elsewhere there is no console code page and it
// does nothing.
class ConsoleCodePage final
{
public:
    static constexpr unsigned utf8 = 65001; // CP_UTF8

    // The console functions it calls: the system's, or a test's.
    struct Console
    {
        // GetConsoleOutputCP and GetConsoleCP: 0 when the process has no console.
        std::function<unsigned()> outputCodePage;
        std::function<unsigned()> inputCodePage;
        // SetConsoleOutputCP and SetConsoleCP.
        std::function<void(unsigned)> setOutputCodePage;
        std::function<void(unsigned)> setInputCodePage;
        // Calls atEnd when the console is about to end the process (Ctrl+C or Ctrl+Break that
        // nothing else handles, the window closed, logoff, shutdown), before it does; an empty
        // atEnd stops that. atEnd may be called on another thread.
        std::function<void(std::function<void()> atEnd)> setEndHandler;
    };
    // On Windows the console API; elsewhere a console without code pages (0).
    static Console systemConsole();

    explicit ConsoleCodePage(Console console = systemConsole());
    ~ConsoleCodePage();
    ConsoleCodePage(const ConsoleCodePage &) = delete;
    ConsoleCodePage &operator=(const ConsoleCodePage &) = delete;

    // Puts the saved code pages back: once, however often and from whichever thread it is called.
    void restore();

private:
    Console m_console;
    unsigned m_savedOutput = 0;
    unsigned m_savedInput = 0;
    std::atomic_bool m_switched = false;
};

} // namespace Cli
