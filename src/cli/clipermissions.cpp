#include "clipermissions.h"

#include "terminalwriter.h"

#include "permissions/workspacerules.h"
#include "tools/filetools.h"
#include "tools/shelltool.h"

#include <QCoreApplication>
#include <QDir>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

namespace {

struct PermissionText
{
    Q_DECLARE_TR_FUNCTIONS(Cli)
};

enum CheckExitCode { Allowed = 0, Asked = 1, Denied = 2 };

QString originName(RuleOrigin origin)
{
    switch (origin) {
    case RuleOrigin::BuiltIn:
        return PermissionText::tr("built-in read-only commands");
    case RuleOrigin::App:
        return PermissionText::tr("app rules");
    case RuleOrigin::Workspace:
        return PermissionText::tr("workspace rules");
    case RuleOrigin::CommandLine:
        return PermissionText::tr("command line");
    case RuleOrigin::Conversation:
        return PermissionText::tr("this conversation");
    }
    return {};
}

// The words of the rules files and of --allow/--ask/--deny: never translated, scripts read them.
QString verdictWord(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Allow:
        return u"allow"_s;
    case Verdict::Ask:
        return u"ask"_s;
    case Verdict::Deny:
        return u"deny"_s;
    }
    return {};
}

// The standard tools as a run installs them, for what each call's side effect is; nothing of
// them runs.
QList<std::shared_ptr<const Tool>> standardTools(const std::shared_ptr<ShellTool> &shell,
                                                 const std::shared_ptr<FileToolContext> &files)
{
    QList<std::shared_ptr<const Tool>> tools{shell};
    tools += fileTools(files);
    return tools;
}

void reportInvalidRules(const PermissionPolicy &policy, TerminalWriter &err)
{
    for (const auto &[rule, problem] : policy.invalidRules()) {
        err.writeLine(PermissionText::tr(
                              "Invalid rule %1 (%2), which denies the calls it was meant for: %3")
                              .arg(err.line(rule.text), originName(rule.origin), err.line(problem)));
    }
}

void printCheck(const PermissionCheck &check, TerminalWriter &out)
{
    out.writeLine(PermissionText::tr("Decision: %1").arg(verdictWord(check.verdict)));
    const QString decidedBy = check.decidedBy.isEmpty() || check.decidedBy == u"default"_s
                                      ? u"default"_s
                                      : u"%1 (%2)"_s.arg(out.line(check.decidedBy),
                                                         originName(check.origin));
    out.writeLine(PermissionText::tr("Decided by: %1").arg(decidedBy));
    if (!check.explanation.isEmpty())
        out.writeLine(PermissionText::tr("Why: %1").arg(out.line(check.explanation)));
    for (const QString &detail : check.details)
        out.writeLine(u"  "_s + out.line(detail));
}

} // namespace

Result<QList<PermissionRule>> sessionRules(const CliOptions &options)
{
    Result<QList<PermissionRule>> appRules = readRuleFile(appRuleFilePath(), RuleOrigin::App);
    if (!appRules)
        return appRules;
    return *appRules + options.rules;
}

void warnOfIgnoredAllowRules(const QStringList &rules, const QString &path, TerminalWriter &err)
{
    for (const QString &rule : rules) {
        err.writeLine(PermissionText::tr("Warning: allow rule %1 of %2 is not used: the file was "
                                         "changed outside Agent Loop.")
                              .arg(err.line(rule), err.line(QDir::toNativeSeparators(path))));
    }
}

PermissionOptions permissionOptions(const CliOptions &options)
{
    PermissionOptions permissions;
    permissions.readOnlyCommands = options.readOnlyCommands;
    return permissions;
}

int checkPermissions(const CliOptions &options, TerminalWriter &out, TerminalWriter &err)
{
    const Result<QList<PermissionRule>> rules = sessionRules(options);
    if (!rules) {
        err.writeLine(
                PermissionText::tr("Configuration error: %1").arg(err.line(rules.error().message)));
        return Denied;
    }
    // As the session reads them: a broken file denies everything, an untrusted one only tightens.
    const WorkspaceRules workspace = loadWorkspaceRules(options.workspace);
    if (workspace.error) {
        err.writeLine(PermissionText::tr("Configuration error: %1")
                              .arg(err.line(workspace.error->message)));
        return Denied;
    }
    warnOfIgnoredAllowRules(workspace.ignoredAllowRules, workspace.path, err);

    ShellToolOptions shellOptions;
    shellOptions.workspace = options.workspace;
    const auto shell = std::make_shared<ShellTool>(std::make_shared<ProcessCommandRunner>(),
                                                   shellOptions);
    const auto files = std::make_shared<FileToolContext>(options.workspace);
    const Result<RuleCall> call = parseSampleCall(options.permissionsCheck,
                                                  standardTools(shell, files),
                                                  shellSyntaxOf(shell->shell()));
    if (!call) {
        err.writeLine(
                PermissionText::tr("--permissions-check: %1").arg(err.line(call.error().message)));
        return Denied;
    }
    // Path patterns resolve inside the workspace as the file tools resolve paths.
    const PermissionPolicy policy(*rules + workspace.rules,
                                  permissionOptions(options),
                                  std::shared_ptr<const WorkspaceBoundary>(files, &files->boundary));
    reportInvalidRules(policy, err);
    const PermissionCheck check = policy.check(*call);
    printCheck(check, out);
    switch (check.verdict) {
    case Verdict::Allow:
        return Allowed;
    case Verdict::Ask:
        return Asked;
    case Verdict::Deny:
        return Denied;
    }
    return Denied;
}

} // namespace Cli
