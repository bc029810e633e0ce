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
// So its deny and ask rules always apply (they only tighten), but its allow rules only when the
// file is exactly as Agent Loop last wrote or the user last trusted it (its SHA-256 is recorded in
// the app's trustedRuleFilePath()).
struct WorkspaceRules
{
    QString path;
    QList<PermissionRule> rules;   // what applies
    QStringList ignoredAllowRules; // allow rules of an untrusted file, not applied
    // The file could not be read: the session then denies every call (a broken file must not
    // loosen anything) and the front end shows this.
    std::optional<Error> error;

    bool isTrusted() const { return ignoredAllowRules.isEmpty(); }
};

WorkspaceRules loadWorkspaceRules(const QString &workspace);
// Writes the workspace's rules file and trusts what was written.
Result<void> saveWorkspaceRules(const QString &workspace, const QList<PermissionRule> &rules);
// Trusts the workspace's rules file as it is now (the user reviewed its allow rules).
Result<void> trustWorkspaceRules(const QString &workspace);

// Where the hashes of trusted workspace rules files are kept: AppConfigLocation +
// "/trusted-workspace-rules.json", {"<rules file path>": "<sha256 hex>"}.
QString trustedRuleFilePath();

} // namespace AgentLoop
