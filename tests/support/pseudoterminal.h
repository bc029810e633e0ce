#pragma once

#include <QByteArray>

namespace AgentLoop {

// The master side of a pseudo-terminal whose slave becomes a child's standard input, so that
// isatty(0) is true there, as in a terminal window. Unix only: elsewhere isOpen() is false.
class PseudoTerminal final
{
public:
    PseudoTerminal();
    ~PseudoTerminal();
    PseudoTerminal(const PseudoTerminal &) = delete;
    PseudoTerminal &operator=(const PseudoTerminal &) = delete;

    bool isOpen() const { return m_master >= 0 && m_slave >= 0; }
    int slave() const { return m_slave; }
    // What the user types.
    bool type(const QByteArray &keys);

private:
    int m_master = -1;
    int m_slave = -1;
};

} // namespace AgentLoop
