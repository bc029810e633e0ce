#pragma once

#include "agent/agentcontroller.h"
#include "base/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace AgentLoop {

// The audit trail of a conversation: one JSON line per call, appended and flushed when the call
// has finished, in a file kept next to the conversation's (ConversationStore::auditPathFor():
// `<id>.audit` beside `<id>.jsonl`, deleted with it). Each line:
//   {"time": "2026-12-02T10:15:03.120Z", "conversation": "20261202-101500-3f2a", "turn": 2,
//    "tool_call_id": "call_1", "tool": "shell", "arguments": "{\"command\":\"git status\"}",
//    "call_sha256": "…", "decision": "allow" | "allow_conversation" | "deny" | "none",
//    "asked": false, "decided_by": "shell(git status)" | "user" | "default", "reason": "…",
//    "added_rules": ["shell(git status)"], "ok": true, "exit_code": 0, "error_code": "",
//    "duration_ms": 12}
// The API key never appears: the arguments are redacted before they are written.
QJsonObject auditEntry(const CallRecord &record, const QString &conversation, const QString &apiKey);

// Appends one line and flushes it.
Result<void> appendAuditEntry(const QString &path, const QJsonObject &entry);
// The entries of an audit file, oldest first; a missing file has none, a torn last line is
// skipped.
QList<QJsonObject> readAuditFile(const QString &path);

} // namespace AgentLoop
