#include "agent/audittrail.h"

namespace AgentLoop {

QJsonObject auditEntry(const CallRecord &, const QString &, const QString &)
{
    return {};
}

QString auditPathFor(const QString &conversationPath)
{
    return conversationPath;
}

Result<void> appendAuditEntry(const QString &, const QJsonObject &)
{
    return {};
}

QList<QJsonObject> readAuditFile(const QString &)
{
    return {};
}

} // namespace AgentLoop
