#pragma once

#include "clioptions.h"
#include "permissions/permissionrules.h"

namespace Cli {

class TerminalWriter;

// The rules of every workspace a run uses, as SessionConfiguration::rules takes them: the app's
// rules file, then the command line's (--allow, --ask, --deny, --permissions). The session adds
// the workspace's own. The error names the app's rules file when it cannot be read.
AgentLoop::Result<QList<AgentLoop::PermissionRule>> sessionRules(const CliOptions &options);
AgentLoop::PermissionOptions permissionOptions(const CliOptions &options);
// One line on err for each allow rule of the workspace's rules file (path) that is not used: the
// file was changed outside Agent Loop (permissions/workspacerules.h).
void warnOfIgnoredAllowRules(const QStringList &rules, const QString &path, TerminalWriter &err);

// agentloop-cli --permissions-check CALL: what a run in this workspace would decide about the
// call, with exactly its rules (sessionRules() and the workspace's, loadWorkspaceRules()) and its
// shell's syntax.
// Prints to out:
//   Decision: ask
//   Decided by: default
//   Why: `rm -rf ~` matches no allow rule.
//     git status: allowed by shell(git status)
//     rm -rf ~: no allow rule
// Each rule that does not parse is a line on err (it denies, as in a run), and so is each allow
// rule of an untrusted workspace file (not used, as in a run). Returns the exit code:
// 0 allow, 1 ask, 2 deny (and 2 when the call or a rules file cannot be read, said on err).
// Nothing is contacted.
int checkPermissions(const CliOptions &options, TerminalWriter &out, TerminalWriter &err);

} // namespace Cli
