#pragma once

#include "protocol/history.h"

#include <QJsonArray>
#include <QList>
#include <QMetaType>
#include <QString>

namespace AgentLoop {

// One of the rules the loop checks before a request goes out, for the exact history and tool
// snapshot it sends.
struct ProtocolCheck
{
    enum Rule {
        Pairing,     // every tool call is answered by a tool message right after its message
        NoOrphans,   // every tool message answers a call of that message, once
        RoleOrder,   // system first; a conversation starts with the user; tool after assistant
        UniqueIds,   // the tool call ids of one assistant message differ
        ToolSnapshot // the frozen tool list: each a function with a name of its own
    };
    Rule rule = Pairing;
    bool ok = true;
    qsizetype messageIndex = -1; // the first message that breaks it, 0-based; -1: none
    QString toolCallId;          // the call it is about, if any
    QString detail;              // translated: what was checked, or what is wrong and where

    // The rule's short name, translated ("pairing", "tool snapshot").
    static QString ruleName(Rule rule);
    bool operator==(const ProtocolCheck &other) const = default;
};

// A message the app added on its own, not the model nor a tool run: a call interrupted by a
// crash answered "interrupted" when the conversation was reopened, a call the user's stop left
// unrun answered "cancelled".
struct HistoryRepair
{
    qsizetype index = -1; // of the message in the history
    Message message;
    QString reason; // translated
};

// What the inspector shows above a request: the checks, and the repairs made since the request
// before it, as a diff of the history.
struct ProtocolReport
{
    QList<ProtocolCheck> checks;
    QList<HistoryRepair> repairs;
    // The history's text around the repairs, as diff lines: "  " context, "+ " added.
    QStringList repairDiff;
    bool sent = true; // false: a rule failed and nothing was sent

    bool ok() const;
    // The first check that failed, or null.
    const ProtocolCheck *firstFailure() const;
};

// Walks the history once (a 1 000-message history takes well under a millisecond).
QList<ProtocolCheck> checkProtocol(const History &history, const QJsonArray &toolDefinitions);

// "[12] tool call_2: interrupted: …", one line per message, bounded (the diff's lines).
QString describeMessage(const Message &message, qsizetype index);
// The diff of the repairs: each repaired message as an added line, after the message it answers
// as context.
QStringList repairDiff(const History &history, const QList<HistoryRepair> &repairs);

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ProtocolReport)
