#include "pseudoterminal.h"

#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#endif

namespace AgentLoop {

#ifdef Q_OS_UNIX

PseudoTerminal::PseudoTerminal()
{
    m_master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m_master < 0)
        return;
    if (::grantpt(m_master) != 0 || ::unlockpt(m_master) != 0)
        return;
    if (const char *name = ::ptsname(m_master))
        m_slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

PseudoTerminal::~PseudoTerminal()
{
    if (m_slave >= 0)
        ::close(m_slave);
    if (m_master >= 0)
        ::close(m_master);
}

bool PseudoTerminal::type(const QByteArray &keys)
{
    return ::write(m_master, keys.constData(), size_t(keys.size())) == keys.size();
}

#else

PseudoTerminal::PseudoTerminal() = default;
PseudoTerminal::~PseudoTerminal() = default;

bool PseudoTerminal::type(const QByteArray &)
{
    return false;
}

#endif

} // namespace AgentLoop
