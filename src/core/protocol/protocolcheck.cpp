#include "protocol/protocolcheck.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonObject>
#include <QSet>

#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct CheckText
{
    Q_DECLARE_TR_FUNCTIONS(ProtocolCheck)
};

constexpr qsizetype describedLength = 160;

// Message numbers as the user reads them: from 1.
QString messageNumber(qsizetype index)
{
    return QString::number(index + 1);
}

ProtocolCheck passed(ProtocolCheck::Rule rule, const QString &detail)
{
    ProtocolCheck check;
    check.rule = rule;
    check.detail = detail;
    return check;
}

ProtocolCheck broken(ProtocolCheck::Rule rule,
                     qsizetype index,
                     const QString &toolCallId,
                     const QString &detail)
{
    ProtocolCheck check;
    check.rule = rule;
    check.ok = false;
    check.messageIndex = index;
    check.toolCallId = toolCallId;
    check.detail = detail;
    return check;
}

ProtocolCheck snapshotCheck(const QJsonArray &tools)
{
    QSet<QString> names;
    QStringList listed;
    for (qsizetype i = 0; i < tools.size(); ++i) {
        const QJsonObject tool = tools.at(i).toObject();
        const QJsonObject function = tool.value(u"function"_s).toObject();
        const QString name = function.value(u"name"_s).toString();
        if (tool.value(u"type"_s).toString() != u"function" || name.isEmpty()) {
            return broken(ProtocolCheck::ToolSnapshot,
                          -1,
                          {},
                          CheckText::tr("Tool %1 of the snapshot is not a function with a name.")
                                  .arg(i + 1));
        }
        if (names.contains(name)) {
            return broken(ProtocolCheck::ToolSnapshot,
                          -1,
                          {},
                          CheckText::tr("The snapshot names the tool %1 twice.").arg(name));
        }
        if (!function.value(u"parameters"_s).isObject()) {
            return broken(ProtocolCheck::ToolSnapshot,
                          -1,
                          {},
                          CheckText::tr("The tool %1 has no parameters schema.").arg(name));
        }
        names.insert(name);
        listed.append(name);
    }
    if (listed.isEmpty())
        return passed(ProtocolCheck::ToolSnapshot,
                      CheckText::tr("No tools are offered: the model can only answer in text."));
    return passed(ProtocolCheck::ToolSnapshot,
                  CheckText::tr("%n tool(s) frozen for this request and its calls: %1",
                                nullptr,
                                int(listed.size()))
                          .arg(listed.join(u", "_s)));
}

} // namespace

QString ProtocolCheck::ruleName(Rule rule)
{
    switch (rule) {
    case Pairing:
        return CheckText::tr("pairing");
    case NoOrphans:
        return CheckText::tr("no orphan results");
    case RoleOrder:
        return CheckText::tr("roles in order");
    case UniqueIds:
        return CheckText::tr("unique call ids");
    case ToolSnapshot:
        return CheckText::tr("tool snapshot");
    }
    return {};
}

bool ProtocolReport::ok() const
{
    return firstFailure() == nullptr;
}

const ProtocolCheck *ProtocolReport::firstFailure() const
{
    for (const ProtocolCheck &check : checks) {
        if (!check.ok)
            return &check;
    }
    return nullptr;
}

QList<ProtocolCheck> checkProtocol(const History &history, const QJsonArray &toolDefinitions)
{
    std::optional<ProtocolCheck> pairing;
    std::optional<ProtocolCheck> orphans;
    std::optional<ProtocolCheck> roles;
    std::optional<ProtocolCheck> unique;
    qsizetype calls = 0;
    qsizetype results = 0;

    // The open block: the assistant message with calls and its ids, in order, answered or not.
    qsizetype blockIndex = -1;
    QStringList open;
    QSet<QString> answered;
    const auto closeBlock = [&] {
        if (!pairing) {
            for (const QString &id : std::as_const(open)) {
                if (!answered.contains(id)) {
                    pairing = broken(ProtocolCheck::Pairing,
                                     blockIndex,
                                     id,
                                     CheckText::tr("Message %1 (assistant) calls %2, but no tool "
                                                   "message after it answers that id.")
                                             .arg(messageNumber(blockIndex), id));
                    break;
                }
            }
        }
        open.clear();
        answered.clear();
        blockIndex = -1;
    };

    const QList<Message> &messages = history.messages();
    bool seenOther = false; // a message other than system
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        const Role role = message.role();
        if (role == Role::Tool) {
            ++results;
            const QString id = message.toolCallId();
            if (!orphans && blockIndex < 0) {
                orphans = broken(ProtocolCheck::NoOrphans,
                                 i,
                                 id,
                                 CheckText::tr("Message %1 (tool) answers %2, but the message "
                                               "before it asked for no tool call.")
                                         .arg(messageNumber(i), id));
            } else if (!orphans && !open.contains(id)) {
                orphans = broken(ProtocolCheck::NoOrphans,
                                 i,
                                 id,
                                 CheckText::tr("Message %1 (tool) answers %2, which message %3 "
                                               "did not call.")
                                         .arg(messageNumber(i), id, messageNumber(blockIndex)));
            } else if (!orphans && answered.contains(id)) {
                orphans = broken(ProtocolCheck::NoOrphans,
                                 i,
                                 id,
                                 CheckText::tr("Message %1 (tool) answers %2 a second time.")
                                         .arg(messageNumber(i), id));
            }
            answered.insert(id);
            if (!roles && !seenOther) {
                roles = broken(ProtocolCheck::RoleOrder,
                               i,
                               id,
                               CheckText::tr("Message %1 is a tool message before any prompt.")
                                       .arg(messageNumber(i)));
            }
            seenOther = true;
            continue;
        }
        closeBlock();
        if (role == Role::System) {
            if (!roles && seenOther) {
                roles = broken(ProtocolCheck::RoleOrder,
                               i,
                               {},
                               CheckText::tr("Message %1 is a system message after the "
                                             "conversation began.")
                                       .arg(messageNumber(i)));
            }
            continue;
        }
        if (!roles && !seenOther && role == Role::Assistant) {
            roles = broken(ProtocolCheck::RoleOrder,
                           i,
                           {},
                           CheckText::tr("Message %1 is an assistant message before any prompt.")
                                   .arg(messageNumber(i)));
        }
        seenOther = true;
        if (role != Role::Assistant || !message.hasToolCalls())
            continue;
        blockIndex = i;
        for (const ToolCall &call : message.toolCalls()) {
            ++calls;
            if (open.contains(call.id)) {
                if (!unique) {
                    unique = broken(ProtocolCheck::UniqueIds,
                                    i,
                                    call.id,
                                    CheckText::tr("Message %1 (assistant) uses the call id %2 "
                                                  "twice.")
                                            .arg(messageNumber(i), call.id));
                }
                continue;
            }
            open.append(call.id);
        }
    }
    closeBlock();
    if (!roles && !messages.isEmpty()) {
        const Role last = messages.last().role();
        if (last == Role::System || last == Role::Assistant) {
            roles = broken(ProtocolCheck::RoleOrder,
                           messages.size() - 1,
                           {},
                           CheckText::tr("The last message (%1, %2) is neither a prompt nor a "
                                         "tool result: there is nothing for the model to answer.")
                                   .arg(messageNumber(messages.size() - 1), roleName(last)));
        }
    }

    return {
            pairing.value_or(passed(ProtocolCheck::Pairing,
                                    CheckText::tr("Each of the %n tool call(s) is answered by a "
                                                  "tool message right after its message.",
                                                  nullptr,
                                                  int(calls)))),
            orphans.value_or(passed(ProtocolCheck::NoOrphans,
                                    CheckText::tr("Each of the %n tool message(s) answers a call "
                                                  "of the message before it, once.",
                                                  nullptr,
                                                  int(results)))),
            roles.value_or(passed(ProtocolCheck::RoleOrder,
                                  CheckText::tr("System first, then the conversation; every tool "
                                                "message follows the call it answers."))),
            unique.value_or(passed(ProtocolCheck::UniqueIds,
                                   CheckText::tr("No assistant message repeats a tool call id."))),
            snapshotCheck(toolDefinitions),
    };
}

QString describeMessage(const Message &message, qsizetype index)
{
    QString text;
    switch (message.role()) {
    case Role::Assistant: {
        QStringList ids;
        for (const ToolCall &call : message.toolCalls())
            ids << u"%1 %2"_s.arg(call.id, call.name);
        text = ids.isEmpty() ? message.content() : u"tool_calls: "_s + ids.join(u", "_s);
        break;
    }
    case Role::Tool:
        text = message.toolCallId() + u": "_s + message.content();
        break;
    case Role::System:
    case Role::User:
        text = message.content();
        break;
    }
    text.replace(u'\n', u' ');
    if (text.size() > describedLength)
        text = text.left(describedLength) + u'…';
    return u"[%1] %2 %3"_s.arg(messageNumber(index), roleName(message.role()), text);
}

QStringList repairDiff(const History &history, const QList<HistoryRepair> &repairs)
{
    QStringList lines;
    QSet<qsizetype> shownContext;
    for (const HistoryRepair &repair : repairs) {
        // The call's assistant message, once, as context.
        for (qsizetype i = std::min(repair.index, history.size()) - 1; i >= 0; --i) {
            const Message &before = history.at(i);
            if (before.role() == Role::Tool)
                continue;
            if (!shownContext.contains(i)) {
                shownContext.insert(i);
                lines << u"  "_s + describeMessage(before, i);
            }
            break;
        }
        lines << u"+ "_s + describeMessage(repair.message, repair.index);
    }
    return lines;
}

} // namespace AgentLoop
