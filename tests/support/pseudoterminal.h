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
    // Which of the child's standard channels the terminal becomes.
    enum class Channels {
        Input,    // standard input; standard output and error stay QProcess's
        AllThree, // as in a terminal window: input, output and error (Unix; see screen())
    };

    PseudoTerminal();
    ~PseudoTerminal();
    PseudoTerminal(const PseudoTerminal &) = delete;
    PseudoTerminal &operator=(const PseudoTerminal &) = delete;

    // Why no child can be given a terminal here, or null when one can.
    static const char *unavailableReason();

    bool isOpen() const;
    // Makes the terminal the standard input (and with Channels::AllThree the standard output and
    // error) of process when it is started next. The terminal must outlive the start.
    void attachTo(QProcess &process, Channels channels = Channels::Input);
    // What the user types.
    bool type(const QByteArray &keys);
    // Every byte written to the terminal so far (Channels::AllThree): what a terminal window
    // would receive, the echo of typed keys included, with the line discipline's "\r\n" for each
    // "\n". Read as it comes, on the event loop, so that a child never blocks on a full terminal.
    // Always empty on Windows: a pseudo console re-renders what a program writes with escape
    // sequences of its own, so there the bytes a program wrote are only seen on pipes.
    QByteArray screen();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace AgentLoop
