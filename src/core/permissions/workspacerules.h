#pragma once

#include "base/error.h"
#include "base/result.h"
#include "permissions/permissionrules.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace AgentLoop {

// A workspace's own rules (.agentloop/permissions.json), as a session applies them. The file
// travels with the repository: a cloned project, or a command the model ran, may have written it.
// So its deny and ask rules always apply (they only tighten), but an allow rule only when the user
// accepted that rule for that file: wrote it in Agent Loop, or saw it and trusted it. What is
// recorded (in the app's trustedRuleFilePath()) is a SHA-256 per accepted rule, never the file's:
// a rule planted in the file later stays untrusted however the file is saved after it.
struct WorkspaceRules
{
    QString path;
    QList<PermissionRule> rules;   // what applies
    QStringList ignoredAllowRules; // allow rules the user did not accept, not applied
    // The file could not be read: the session then denies every call (a broken file must not
    // loosen anything) and the front end shows this.
    std::optional<Error> error;

    bool isTrusted() const { return ignoredAllowRules.isEmpty(); }
    // The allow rules that apply: the ones the user accepted.
    QStringList trustedAllowRules() const;
};

// The file is read through the workspace boundary: a link out of the workspace, a FIFO or a
// device is an error (every call denied), never opened.
WorkspaceRules loadWorkspaceRules(const QString &workspace);
// The workspace's rules file as written, all of its rules, with the same checks; for editing it.
Result<QList<PermissionRule>> readWorkspaceRuleFile(const QString &workspace);
// Writes the workspace's rules file. Of its allow rules, those in acceptedAllowRules are recorded
// as the user's; every other one stays untrusted.
Result<void> saveWorkspaceRules(const QString &workspace,
                                const QList<PermissionRule> &rules,
                                const QStringList &acceptedAllowRules);
// Records allow rules of the workspace's file as the user's (they saw them and agreed), besides
// those accepted before.
Result<void> trustWorkspaceRules(const QString &workspace, const QStringList &allowRules);

// Where the accepted rules of workspace rules files are kept: AppConfigLocation +
// "/trusted-workspace-rules.json", {"<rules file path>": {"acceptedAllowRules": ["<sha256 hex of
// the rule's text>", ...]}}.
QString trustedRuleFilePath();

} // namespace AgentLoop
