#pragma once

#include <QByteArray>

#include <memory>

class QProcess;

namespace AgentLoop {

// A terminal the test types into, made the standard input of a child process, so that the child
// sees an interactive terminal, as in a terminal window. On Unix a pseudo-terminal (isatty(0) is
// true in the child); on Windows a pseudo console (ConPTY: the child's standard input is a
// console, and Ctrl+C typed at it reaches the child as a console control event).
class PseudoTerminal final
{
public:
    PseudoTerminal();
    ~PseudoTerminal();
    PseudoTerminal(const PseudoTerminal &) = delete;
    PseudoTerminal &operator=(const PseudoTerminal &) = delete;

    // Why no child can be given a terminal here, or null when one can.
    static const char *unavailableReason();

    bool isOpen() const;
    // Makes the terminal the standard input of process when it is started next; standard output
    // and error stay QProcess's. The terminal must outlive the start.
    void attachTo(QProcess &process);
    // What the user types.
    bool type(const QByteArray &keys);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace AgentLoop
