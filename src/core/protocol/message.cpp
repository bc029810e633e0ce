#include "protocol/message.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace AgentLoop {

struct Message::Data
{
    Role role = Role::User;
    std::optional<QString> content;
    QList<ToolCall> toolCalls;
    QString toolCallId;
    QString reasoning;
    ReasoningField reasoningField = ReasoningField::ReasoningContent;
};

QJsonObject toJson(const ToolCall &call)
{
    QJsonObject object = call.extra;
    object.insert(u"id"_s, call.id);
    object.insert(u"type"_s, u"function"_s);
    object.insert(u"function"_s,
                  QJsonObject{{u"name"_s, call.name}, {u"arguments"_s, call.arguments}});
    return object;
}

QJsonObject toolCallExtra(const QJsonObject &call)
{
    QJsonObject extra;
    for (auto it = call.begin(); it != call.end(); ++it) {
        const QString key = it.key();
        if (key == u"id" || key == u"type" || key == u"function" || key == u"index"
            || it.value().isNull() || it.value().isUndefined())
            continue;
        extra.insert(key, it.value());
    }
    return extra;
}

QString roleName(Role role)
{
    switch (role) {
    case Role::System:
        return u"system"_s;
    case Role::User:
        return u"user"_s;
    case Role::Assistant:
        return u"assistant"_s;
    case Role::Tool:
        return u"tool"_s;
    }
    return {};
}

Message::Message(std::shared_ptr<const Data> data)
    : d(std::move(data))
{}

Message Message::system(const QString &content)
{
    return Message(std::make_shared<const Data>(Data{Role::System, content, {}, {}, {}, {}}));
}

Message Message::user(const QString &content)
{
    return Message(std::make_shared<const Data>(Data{Role::User, content, {}, {}, {}, {}}));
}

Message Message::assistant(const std::optional<QString> &content,
                           const QList<ToolCall> &toolCalls,
                           const QString &reasoning,
                           ReasoningField reasoningField)
{
    return Message(std::make_shared<const Data>(
            Data{Role::Assistant, content, toolCalls, {}, reasoning, reasoningField}));
}

Message Message::tool(const QString &toolCallId, const QString &content)
{
    return Message(std::make_shared<const Data>(Data{Role::Tool, content, {}, toolCallId, {}, {}}));
}

Role Message::role() const
{
    return d->role;
}

QString Message::content() const
{
    return d->content.value_or(QString());
}

bool Message::hasContent() const
{
    return d->content.has_value();
}

bool Message::hasText() const
{
    return d->content && !d->content->trimmed().isEmpty();
}

const QList<ToolCall> &Message::toolCalls() const
{
    return d->toolCalls;
}

QString Message::toolCallId() const
{
    return d->toolCallId;
}

QString Message::reasoningContent() const
{
    return d->reasoning;
}

ReasoningField Message::reasoningField() const
{
    return d->reasoningField;
}

bool Message::sendsReasoningBack() const
{
    return d->role == Role::Assistant && !d->reasoning.isEmpty()
           && d->reasoningField == ReasoningField::ReasoningContent;
}

bool operator==(const Message &a, const Message &b)
{
    return a.d == b.d
           || (a.d->role == b.d->role && a.d->content == b.d->content
               && a.d->toolCalls == b.d->toolCalls && a.d->toolCallId == b.d->toolCallId
               && a.d->reasoning == b.d->reasoning
               && (a.d->reasoning.isEmpty() || a.d->reasoningField == b.d->reasoningField));
}

QJsonObject Message::toJson() const
{
    QJsonObject object{{u"role"_s, roleName(d->role)}};
    // A message with tool calls and no text says `content: null`: Kimi rejects "" beside
    // tool_calls ("text content is empty", MoonshotAI/kimi-cli#2621) and so does Zhipu GLM
    // (error 1214, songquanpeng/one-api#1153).
    const bool nullContent = !d->content
                             || (d->role == Role::Assistant && !d->toolCalls.isEmpty()
                                 && d->content->isEmpty());
    object.insert(u"content"_s,
                  nullContent ? QJsonValue(QJsonValue::Null) : QJsonValue(*d->content));
    if (d->role == Role::Assistant && !d->toolCalls.isEmpty()) {
        QJsonArray calls;
        for (const ToolCall &call : d->toolCalls)
            calls.append(AgentLoop::toJson(call));
        object.insert(u"tool_calls"_s, calls);
    }
    if (d->role == Role::Tool)
        object.insert(u"tool_call_id"_s, d->toolCallId);
    // Reasoning models that call tools (DeepSeek) want their reasoning back within the same
    // task; providers that do not know the field never sent it, so they never see it.
    if (sendsReasoningBack())
        object.insert(u"reasoning_content"_s, d->reasoning);
    return object;
}

QJsonObject Message::toStoredJson() const
{
    QJsonObject object = toJson();
    if (d->role == Role::Assistant && !d->reasoning.isEmpty() && !sendsReasoningBack())
        object.insert(u"reasoning"_s, d->reasoning);
    return object;
}

namespace {

struct MessageText
{
    Q_DECLARE_TR_FUNCTIONS(Message)
};

Error malformed(const QString &what)
{
    return Error{Error::Protocol, MessageText::tr("Malformed message: %1").arg(what)};
}

// Providers differ: `content` may be a string, null, absent, or (for user messages written by
// other tools) an array of text parts. Text parts are joined; anything else is malformed.
std::optional<std::optional<QString>> readContent(const QJsonValue &value)
{
    if (value.isUndefined() || value.isNull())
        return std::optional<QString>();
    if (value.isString())
        return std::optional<QString>(value.toString());
    if (value.isArray()) {
        QString text;
        for (const QJsonValue &part : value.toArray()) {
            const QJsonObject partObject = part.toObject();
            if (partObject.value(u"type"_s).toString() != u"text")
                return std::nullopt;
            text += partObject.value(u"text"_s).toString();
        }
        return std::optional<QString>(text);
    }
    return std::nullopt;
}

Result<ToolCall> readToolCall(const QJsonValue &value)
{
    const QJsonObject object = value.toObject();
    const QJsonObject function = object.value(u"function"_s).toObject();
    ToolCall call{object.value(u"id"_s).toString(),
                  function.value(u"name"_s).toString(),
                  {},
                  toolCallExtra(object)};
    if (call.id.isEmpty())
        return malformed(MessageText::tr("a tool call has no id"));
    if (call.name.isEmpty())
        return malformed(MessageText::tr("tool call %1 has no function name").arg(call.id));
    const QJsonValue arguments = function.value(u"arguments"_s);
    // The protocol says arguments is a JSON string; some providers send the object itself, and
    // an empty string means "no arguments". Keep strings verbatim, serialise objects compactly.
    if (arguments.isString())
        call.arguments = arguments.toString();
    else if (arguments.isObject())
        call.arguments = QString::fromUtf8(
                QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact));
    else if (arguments.isUndefined() || arguments.isNull())
        call.arguments = QString();
    else
        return malformed(
                MessageText::tr("tool call %1 has arguments that are neither text nor an object")
                        .arg(call.id));
    return call;
}

} // namespace

QByteArray Message::toJsonBytes() const
{
    return QJsonDocument(toJson()).toJson(QJsonDocument::Compact);
}

Result<Message> Message::fromJson(const QJsonObject &object)
{
    const QString role = object.value(u"role"_s).toString();
    const auto content = readContent(object.value(u"content"_s));
    if (!content)
        return malformed(MessageText::tr("\"content\" must be text or null"));

    if (role == u"system" || role == u"developer")
        return system(content->value_or(QString()));
    if (role == u"user")
        return user(content->value_or(QString()));
    if (role == u"tool") {
        const QString id = object.value(u"tool_call_id"_s).toString();
        if (id.isEmpty())
            return malformed(MessageText::tr("a tool message has no tool_call_id"));
        return tool(id, content->value_or(QString()));
    }
    if (role == u"assistant") {
        QList<ToolCall> calls;
        for (const QJsonValue &value : object.value(u"tool_calls"_s).toArray()) {
            Result<ToolCall> call = readToolCall(value);
            if (!call)
                return call.error();
            calls.append(std::move(call).value());
        }
        const QString reasoningContent = object.value(u"reasoning_content"_s).toString();
        if (!reasoningContent.isEmpty())
            return assistant(*content, calls, reasoningContent, ReasoningField::ReasoningContent);
        return assistant(*content,
                         calls,
                         object.value(u"reasoning"_s).toString(),
                         ReasoningField::Reasoning);
    }
    return malformed(MessageText::tr("unknown role \"%1\"").arg(role));
}

} // namespace AgentLoop
