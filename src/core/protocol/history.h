#pragma once

#include "base/result.h"
#include "protocol/message.h"

#include <QJsonArray>
#include <QList>

namespace AgentLoop {

// The conversation as the provider sees it. Append-only: a message, once in, never changes or
// moves, which is what lets a request reuse everything that was sent before.
class History final
{
public:
    History() = default;

    void append(const Message &message);
    // Appends message index of other, reusing the text other serialised it to.
    void appendFrom(const History &other, qsizetype index);
    const QList<Message> &messages() const { return m_messages; }
    qsizetype size() const { return m_messages.size(); }
    bool isEmpty() const { return m_messages.isEmpty(); }
    const Message &at(qsizetype index) const { return m_messages.at(index); }
    const Message &last() const { return m_messages.last(); }

    QJsonArray toJson() const;
    // The messages as the inside of a JSON array: `{...},{...}`. Each message is serialised once,
    // when it is appended, and the text reused by every later request: building a request costs
    // the new message, not the whole history again.
    const QByteArray &messagesJson() const { return m_messagesJson; }
    static Result<History> fromJson(const QJsonArray &messages);

    // The protocol's pairing rule, checked before every request: the tool messages right after an
    // assistant message answer each of its tool_call ids exactly once, and no tool message
    // answers anything else. The error names the ids, e.g.
    // `missing tool results for ids: ["call_2"]`.
    Result<void> checkPairing() const;

    // Tool calls of the last assistant message that have no tool message yet (an interrupted run).
    QList<ToolCall> unansweredToolCalls() const;

private:
    void appendSerialised(const Message &message, QByteArrayView json);

    QList<Message> m_messages;
    QByteArray m_messagesJson;
    QList<qsizetype> m_jsonStarts; // where each message's text starts in m_messagesJson
};

} // namespace AgentLoop
