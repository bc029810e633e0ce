#include "permissions/permissionrules.h"

#include "files/workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace AgentLoop {

Result<RulePattern> parseRuleText(const QString &text)
{
    RulePattern pattern;
    pattern.tool = text.trimmed();
    return pattern;
}

Result<RuleCall> parseSampleCall(const QString &text,
                                 const QList<std::shared_ptr<const Tool>> &,
                                 ShellSyntax)
{
    return Error{Error::Agent, text};
}

PermissionPolicy::PermissionPolicy(QList<PermissionRule> rules,
                                   PermissionOptions options,
                                   std::shared_ptr<const WorkspaceBoundary> boundary)
    : m_rules(std::move(rules))
    , m_options(options)
    , m_boundary(std::move(boundary))
{}

QList<std::pair<PermissionRule, QString>> PermissionPolicy::invalidRules() const
{
    return {};
}

PermissionCheck PermissionPolicy::check(const RuleCall &call) const
{
    PermissionCheck check;
    check.decidedBy = u"default"_s;
    check.verdict = call.sideEffect == SideEffect::Read ? Verdict::Allow : Verdict::Ask;
    return check;
}

PermissionCheck PermissionPolicy::check(const Tool &tool, const QJsonObject &arguments) const
{
    return check(RuleCall{tool.name(), tool.sideEffect(), tool.ruleSubject(arguments)});
}

QStringList PermissionPolicy::suggestedRules(const RuleCall &) const
{
    return {};
}

PermissionPolicy PermissionPolicy::withRules(QList<PermissionRule> rules) const
{
    return PermissionPolicy(std::move(rules), m_options, m_boundary);
}

bool PermissionPolicy::ruleAllows(const QString &ruleText, const RuleCall &call) const
{
    return withRules({PermissionRule{ruleText, RuleEffect::Allow, RuleOrigin::App}}).check(call).verdict
           == Verdict::Allow;
}

QStringList PermissionPolicy::readOnlyCommandRules()
{
    return {};
}

Result<QList<PermissionRule>> parseRuleFile(const QByteArray &, RuleOrigin)
{
    return QList<PermissionRule>{};
}

QByteArray ruleFileJson(const QList<PermissionRule> &)
{
    return "{}";
}

Result<QList<PermissionRule>> readRuleFile(const QString &, RuleOrigin)
{
    return QList<PermissionRule>{};
}

Result<void> writeRuleFile(const QString &, const QList<PermissionRule> &)
{
    return {};
}

QString appRuleFilePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + u"/permissions.json"_s;
}

QString workspaceRuleFilePath(const QString &workspace)
{
    return QDir(workspace).filePath(u".agentloop/permissions.json"_s);
}

} // namespace AgentLoop
