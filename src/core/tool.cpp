#include "tool.h"

#include <QJsonDocument>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace AgentLoop {

// The texts in this file go to the model, not to the user: they stay English and untranslated,
// with a stable code first so the model (and tests) can tell failures apart.

ToolResult ToolResult::failure(const QString &code, const QString &detail)
{
    return {code + u": "_s + detail, false, code, -1, 0, {}};
}

Tool::Tool(QString name, QString description, JsonSchema parameters, SideEffect sideEffect)
    : m_name(std::move(name))
    , m_description(std::move(description))
    , m_parameters(std::move(parameters))
    , m_sideEffect(sideEffect)
{}

QJsonObject Tool::definition() const
{
    return QJsonObject{
            {u"type"_s, u"function"_s},
            {u"function"_s,
             QJsonObject{
                     {u"name"_s, m_name},
                     {u"description"_s, m_description},
                     {u"parameters"_s, m_parameters.schema()},
             }},
    };
}

QString Tool::checkArguments(const QJsonObject &) const
{
    return {};
}

Preparation Tool::prepare(const ToolCall &call) const
{
    // An empty arguments string is how some providers say "no arguments".
    const QByteArray text = call.arguments.trimmed().isEmpty() ? QByteArray("{}")
                                                               : call.arguments.toUtf8();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   u"the arguments are not valid JSON (%1 at offset %2). "
                                   u"Send the arguments as one JSON object."_s
                                           .arg(parseError.errorString())
                                           .arg(parseError.offset));
    }
    if (!document.isObject()) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   u"the arguments must be a JSON object."_s);
    }
    const QJsonObject arguments = document.object();
    const QList<SchemaViolation> violations = m_parameters.validate(arguments);
    if (!violations.isEmpty()) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   describeViolations(violations) + u". The parameters schema is: "_s
                                           + QString::fromUtf8(
                                                   QJsonDocument(m_parameters.schema())
                                                           .toJson(QJsonDocument::Compact)));
    }
    if (const QString problem = checkArguments(arguments); !problem.isEmpty())
        return ToolResult::failure(u"invalid_arguments"_s, problem);
    return PreparedCall{call, arguments};
}

ToolSnapshot::ToolSnapshot(QList<std::shared_ptr<const Tool>> tools)
    : m_tools(std::move(tools))
{}

std::shared_ptr<const Tool> ToolSnapshot::find(const QString &name) const
{
    for (const auto &tool : m_tools) {
        if (tool->name() == name)
            return tool;
    }
    return nullptr;
}

QJsonArray ToolSnapshot::definitions() const
{
    QJsonArray array;
    for (const auto &tool : m_tools)
        array.append(tool->definition());
    return array;
}

Preparation ToolSnapshot::prepare(const ToolCall &call) const
{
    if (const auto tool = find(call.name))
        return tool->prepare(call);
    QStringList names;
    for (const auto &tool : m_tools)
        names.append(tool->name());
    return ToolResult::failure(u"unknown_tool"_s,
                               u"there is no tool named \"%1\". Available tools: %2."_s
                                       .arg(call.name,
                                            names.isEmpty() ? u"none"_s : names.join(u", "_s)));
}

void ToolRegistry::add(std::shared_ptr<const Tool> tool)
{
    remove(tool->name());
    m_tools.append(std::move(tool));
}

void ToolRegistry::remove(const QString &name)
{
    m_tools.removeIf([&](const auto &tool) { return tool->name() == name; });
}

} // namespace AgentLoop
