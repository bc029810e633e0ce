#pragma once

#include "base/result.h"
#include "tools/tool.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace AgentLoop {

class WorkspaceBoundary;

enum class RuleEffect { Allow, Ask, Deny };

// "allow", "ask" or "deny": the effect's key in a rules file, never translated.
QString ruleEffectName(RuleEffect effect);

// Where a rule comes from, which is also where it is kept.
enum class RuleOrigin {
    BuiltIn,      // the read-only command list (PermissionOptions::readOnlyCommands)
    App,          // the app's rules file (all workspaces)
    Workspace,    // <workspace>/.agentloop/permissions.json
    CommandLine,  // agentloop-cli --allow/--ask/--deny/--permissions
    Conversation, // accepted for this conversation only; never saved
};

// A rule as written: `shell(git status)`, `shell(npm run test:*)`, `read_file(src/**)`,
// `edit_file(**/*.md)`, `shell` (every call of the tool).
//
// Shell patterns are words (split at whitespace; '…' and "…" quote, and a `*` inside quotes is
// literal): a `*` matches any characters within one argument, a trailing `:*` (on the last word or
// as a word of its own) any further arguments, none included. They match each simple command the
// splitter finds (tools/shellsyntax.h): the program without `.exe`, without case on
// Windows and in PowerShell and cmd, PowerShell's aliases as their cmdlets on both sides; the
// arguments exactly, only literal ones (a word only known when the shell runs is covered by a
// `:*` alone). A program that runs code (sh, bash, cmd, powershell, eval, iex, sudo, xargs, env,
// ...) is allowed only by an exact rule; deny rules also judge what such a program is given to
// run when it can be read (`bash -c "rm x"`, `sudo rm x`). A program named alone means, in an
// allow rule, only a command word without a folder (what the shell finds on its search path,
// which never holds the workspace: tools/commandrunner.h), in a deny or ask rule every program
// of that name; a program named with its folder means that path. A command with `NAME=value` before
// it, a command line the splitter is unsure of, and every file a command writes (a redirection,
// PowerShell's Out-File, Set-Content, Add-Content, Tee-Object) need more: the writes a write_file
// rule of their path, the rest are asked. Path patterns are globs (tools/pathpatterns.h) over the
// path resolved in the workspace, relative to it; a pattern may be absolute inside it; nothing
// outside the workspace matches. grep also obeys read_file's deny and ask rules, and a deny or
// ask rule on paths inside a folder asks for a call on the whole folder.
struct PermissionRule
{
    QString text;
    RuleEffect effect = RuleEffect::Ask;
    RuleOrigin origin = RuleOrigin::App;

    bool operator==(const PermissionRule &other) const = default;
};

// A rule's text taken apart.
struct RulePattern
{
    QString tool;        // "shell"
    bool anyCall = true; // no "(…)": every call of the tool
    QString pattern;     // what is inside the parentheses: "git status", "src/**"
};

// Reads a rule's text; the error says what is wrong with it, for the rule editor.
Result<RulePattern> parseRuleText(const QString &text);

// What a call is for the rules: its tool and what its pattern is matched against.
struct RuleCall
{
    QString tool;
    SideEffect sideEffect = SideEffect::Execute;
    RuleSubject subject; // Tool::ruleSubject(arguments)
};

// Reads a sample call the way rules are written, `shell(git diff; rm -rf ~)` or
// `read_file(src/main.cpp)`, for the rule editor's test and `agentloop-cli --permissions-check`.
// The side effect comes from the tools given (by name); the syntax from shellSyntax.
Result<RuleCall> parseSampleCall(const QString &text,
                                 const QList<std::shared_ptr<const Tool>> &tools,
                                 ShellSyntax shellSyntax);

enum class Verdict { Allow, Ask, Deny };

// What the rules say about one call, and why.
struct PermissionCheck
{
    Verdict verdict = Verdict::Ask;
    // The deciding rule as written (`shell(git status)`), or "default" when no rule decided. An
    // allowed call of several parts names every rule that allowed one, in order, joined by ", "
    // (`shell(git diff:*), write_file(out.txt)`); a denied or asked one the rule of its first
    // denied or asked part.
    QString decidedBy;
    RuleOrigin origin = RuleOrigin::App; // of the deciding rule, when one decided
    // One translated sentence for the user: "`rm -rf ~` matches no allow rule." /
    // "Denied by shell(rm:*)." / "Read tools are allowed inside the workspace."
    QString explanation;
    // One translated line per part of the call that was judged (each simple command, each
    // redirection target): what decided it.
    QStringList details;
};

struct PermissionOptions
{
    // The built-in read-only commands (`git status`, `ls`, `Get-ChildItem`, ...) are allowed
    // without asking, unless the command line has a redirection or a substitution.
    bool readOnlyCommands = false;
    // Program names compare case-insensitively (and ignore `.exe`): on Windows, and always for
    // PowerShell's cmdlets and aliases.
    bool caseInsensitivePrograms =
#ifdef Q_OS_WIN
            true;
#else
            false;
#endif
};

// The rules of one session, frozen: deny beats ask beats allow, whatever their order; within an
// effect the most specific matching rule is reported. Defaults when no rule decides: read tools
// allowed (their paths never leave the workspace), write tools and the shell asked.
class PermissionPolicy final
{
public:
    PermissionPolicy();
    // boundary: the workspace path patterns are resolved in (as the file tools resolve paths);
    // none: path rules never match.
    PermissionPolicy(QList<PermissionRule> rules,
                     PermissionOptions options,
                     std::shared_ptr<const WorkspaceBoundary> boundary);

    const QList<PermissionRule> &rules() const { return m_rules; }
    const PermissionOptions &options() const { return m_options; }
    // The rules that do not parse, each with its error. Each denies the calls of the tool it
    // names (every call when not even its tool can be read).
    QList<std::pair<PermissionRule, QString>> invalidRules() const;

    PermissionCheck check(const RuleCall &call) const;
    PermissionCheck check(const Tool &tool, const QJsonObject &arguments) const;

    // The allow rules that would allow exactly this call, as "Always allow…" offers them (one
    // exact rule per simple command of a compound command, a write_file rule per file it writes,
    // `tool(relative path)` for a file call, the tool's name for a call without subject); empty
    // when no rule could (the command cannot be split with certainty, has a word only known when
    // it runs, writes outside the workspace) or when a rule already there takes the call back.
    // Together they allow the call, alone and with this policy's rules.
    QStringList suggestedRules(const RuleCall &call) const;

    // The same options and workspace with other rules (the rule editor tests its unsaved rules).
    PermissionPolicy withRules(QList<PermissionRule> rules) const;
    // Whether this one allow rule, alone, allows the call (an edited "Always allow…" rule must
    // allow the call it is saved from).
    bool ruleAllows(const QString &ruleText, const RuleCall &call) const;

    // The built-in read-only commands as rules (`shell(git status:*)`, ...), for the settings.
    static QStringList readOnlyCommandRules();

    struct CompiledRules; // the rules taken apart once, with the built-in ones when switched on

private:
    QList<PermissionRule> m_rules;
    PermissionOptions m_options;
    std::shared_ptr<const WorkspaceBoundary> m_boundary;
    std::shared_ptr<const CompiledRules> m_compiled;
};

// The first of arguments (up to a `--`) that makes program (its name, lower case, without a folder
// or .exe) write a file or run another program (`git diff --output=x`, `curl -sSLo x`, `npm run t
// --script-shell=sh`): no rule with a wildcard covers such a command line. Empty when there is
// none, or when the program is not one the table knows.
QString writeOrRunOption(const QString &program, const QStringList &arguments);

// The rules files: {"allow": [...], "ask": [...], "deny": [...]}, one array of rule texts per
// effect; the app's (all workspaces), a workspace's `.agentloop/permissions.json`, and the CLI's
// --permissions FILE share the format.
Result<QList<PermissionRule>> parseRuleFile(const QByteArray &json, RuleOrigin origin);
QByteArray ruleFileJson(const QList<PermissionRule> &rules);
// A missing file holds no rules; an unreadable or malformed one is an error naming the file.
Result<QList<PermissionRule>> readRuleFile(const QString &path, RuleOrigin origin);
// Atomically (QSaveFile), creating the folder.
Result<void> writeRuleFile(const QString &path, const QList<PermissionRule> &rules);

// Where rules are kept: the app's file (QStandardPaths::AppConfigLocation + "/permissions.json")
// and a workspace's.
QString appRuleFilePath();
QString workspaceRuleFilePath(const QString &workspace);

} // namespace AgentLoop
