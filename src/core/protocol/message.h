#pragma once

#include "base/result.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <memory>
#include <optional>

namespace AgentLoop {

// One function call the model asked for. `arguments` is the JSON *text* exactly as the model
// wrote it: it may be malformed, and it is sent back byte for byte.
struct ToolCall
{
    QString id;
    QString name;
    QString arguments;

    friend bool operator==(const ToolCall &, const ToolCall &) = default;
};

// {"id","type":"function","function":{"name","arguments"}}, as in an assistant message.
QJsonObject toJson(const ToolCall &call);

enum class Role { System, User, Assistant, Tool };

QString roleName(Role role);

// An immutable Chat Completions message: system, user, assistant (text and/or tool calls) or
// tool (the result for one tool_call_id). Copies share one frozen payload, so keeping every
// message of a long conversation in several places costs nothing.
class Message final
{
public:
    static Message system(const QString &content);
    static Message user(const QString &content);
    // content is std::nullopt when the model said nothing (the wire format's `content: null`).
    // reasoning is DeepSeek-style `reasoning_content`, kept so it can be sent back.
    static Message assistant(const std::optional<QString> &content,
                             const QList<ToolCall> &toolCalls = {},
                             const QString &reasoning = {});
    static Message tool(const QString &toolCallId, const QString &content);

    Role role() const;
    // The text; empty for an assistant message whose content is null.
    QString content() const;
    bool hasContent() const; // false only for an assistant message with `content: null`
    // True when there is content with at least one non-whitespace character.
    bool hasText() const;
    const QList<ToolCall> &toolCalls() const;
    bool hasToolCalls() const { return !toolCalls().isEmpty(); }
    QString toolCallId() const; // tool messages only
    // The model's `reasoning_content` (assistant messages of reasoning models), or empty.
    QString reasoningContent() const;

    // The wire format: {"role":"assistant","content":null,"tool_calls":[...]} etc.
    QJsonObject toJson() const;
    // toJson() as compact JSON text.
    QByteArray toJsonBytes() const;
    static Result<Message> fromJson(const QJsonObject &object);

    friend bool operator==(const Message &a, const Message &b);

private:
    struct Data;
    explicit Message(std::shared_ptr<const Data> data);
    std::shared_ptr<const Data> d;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ToolCall)
Q_DECLARE_METATYPE(AgentLoop::Message)
