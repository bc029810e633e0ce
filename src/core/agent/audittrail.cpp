#include "agent/audittrail.h"

#include "base/redaction.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

QString decisionName(CallDecision::Kind kind)
{
    switch (kind) {
    case CallDecision::Allow:
        return u"allow"_s;
    case CallDecision::AllowForConversation:
        return u"allow_conversation"_s;
    case CallDecision::Deny:
        return u"deny"_s;
    case CallDecision::None:
        break;
    }
    return u"none"_s;
}

} // namespace

QJsonObject auditEntry(const CallRecord &record, const QString &conversation, const QString &apiKey)
{
    const CallDecision &decision = record.decision;
    QJsonObject entry{
            {u"time"_s, record.decidedAt.toUTC().toString(Qt::ISODateWithMs)},
            {u"conversation"_s, conversation},
            {u"turn"_s, record.turn},
            {u"tool_call_id"_s, record.call.id},
            {u"tool"_s, record.call.name},
            {u"arguments"_s, redacted(record.call.arguments, apiKey)},
            {u"call_sha256"_s, record.callSha256},
            {u"decision"_s, decisionName(decision.kind)},
            {u"asked"_s, decision.asked},
            {u"decided_by"_s, decision.decidedBy},
            {u"ok"_s, record.result.ok},
            {u"exit_code"_s, record.result.exitCode},
            {u"error_code"_s, record.result.errorCode},
            {u"duration_ms"_s, record.result.durationMs},
    };
    if (!decision.reason.isEmpty())
        entry.insert(u"reason"_s, redacted(decision.reason, apiKey));
    if (!decision.addedRules.isEmpty())
        entry.insert(u"added_rules"_s, QJsonArray::fromStringList(decision.addedRules));
    return entry;
}

Result<void> appendAuditEntry(const QString &path, const QJsonObject &entry)
{
    QFile file(path);
    const QByteArray line = QJsonDocument(entry).toJson(QJsonDocument::Compact) + '\n';
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append) || file.write(line) != line.size()
        || !file.flush())
        return Error{Error::Io,
                     QCoreApplication::translate("AuditTrail",
                                                 "Could not write the audit trail %1: %2")
                             .arg(QDir::toNativeSeparators(path), file.errorString()),
                     QCoreApplication::translate("AuditTrail",
                                                 "Check the free space and the permissions of "
                                                 "the conversations folder.")};
    return {};
}

QList<QJsonObject> readAuditFile(const QString &path)
{
    QFile file(path);
    QList<QJsonObject> entries;
    if (!file.open(QIODevice::ReadOnly))
        return entries;
    while (!file.atEnd()) {
        const QJsonDocument line = QJsonDocument::fromJson(file.readLine());
        if (line.isObject())
            entries.append(line.object());
    }
    return entries;
}

} // namespace AgentLoop
