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
    // Every other member the provider put on the call object (besides id, type, function and
    // index), sent back verbatim: Gemini 3 rejects the next turn without its
    // `extra_content.google.thought_signature`.
    QJsonObject extra = {};

    friend bool operator==(const ToolCall &, const ToolCall &) = default;
};

// {"id","type":"function","function":{"name","arguments"}} and the extra members, as in an
// assistant message.
QJsonObject toJson(const ToolCall &call);

// The members of a tool call object that are not id, type, function or index (nulls left out).
QJsonObject toolCallExtra(const QJsonObject &call);

// Under which name the provider sent an assistant message's reasoning, which decides whether it
// goes back: DeepSeek (thinking mode with tool calls) requires its `reasoning_content` back
// within the task; Groq rejects that field and nobody requires `reasoning` (Groq, OpenRouter,
// vLLM) or Mistral's thinking parts back, so those are kept for display only.
enum class ReasoningField { ReasoningContent, Reasoning };

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
    // reasoning is sent back only when it came as `reasoning_content` (see ReasoningField).
    static Message assistant(const std::optional<QString> &content,
                             const QList<ToolCall> &toolCalls = {},
                             const QString &reasoning = {},
                             ReasoningField reasoningField = ReasoningField::ReasoningContent);
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
    // The model's reasoning (assistant messages of reasoning models), or empty.
    QString reasoningContent() const;
    ReasoningField reasoningField() const;
    // True when the reasoning is part of the wire form (it came as `reasoning_content`).
    bool sendsReasoningBack() const;

    // The wire format: {"role":"assistant","content":null,"tool_calls":[...]} etc. It depends on
    // the message alone (History keeps it from turn to turn).
    QJsonObject toJson() const;
    // toJson() as compact JSON text.
    QByteArray toJsonBytes() const;
    // What a conversation file keeps: the wire format, and reasoning that is not sent back under
    // `reasoning`, so that reopening the file shows it and still does not send it.
    QJsonObject toStoredJson() const;
    // Reads both forms. `reasoning_content` (a non-empty string) wins over `reasoning`.
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
