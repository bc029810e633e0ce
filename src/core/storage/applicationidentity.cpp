#include "storage/applicationidentity.h"

#include <QCoreApplication>

namespace AgentLoop {

void setApplicationIdentity()
{
    QCoreApplication::setOrganizationName(QString::fromLatin1(organizationName));
    QCoreApplication::setApplicationName(QString::fromLatin1(applicationName));
    QCoreApplication::setApplicationVersion(QStringLiteral(AGENTLOOP_VERSION));
}

} // namespace AgentLoop
