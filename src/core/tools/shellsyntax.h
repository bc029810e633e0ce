#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace AgentLoop {

// The command languages of the shells the shell tool runs (ShellInfo::kind): sh and bash, the two
// PowerShells, cmd.exe.
enum class ShellSyntax { Posix, PowerShell, Cmd };

// One output or input redirection of a simple command (`> out.txt`, `2>&1`, `*> $null`).
struct Redirection
{
    QString op;                  // as written: ">", ">>", "2>", "&>", "*>", "<", "2>&1", ...
    QString target;              // unquoted; empty for a descriptor duplication (`2>&1`)
    bool targetIsLiteral = true; // false when the target has an expansion (`> $f`, `> "$(x)"`)
    // It writes a file: not a duplication, not /dev/null, not PowerShell's $null, not cmd's NUL.
    bool writesFile = false;
};

// One simple command of a command line: a program and its arguments as the shell will pass
// them, quotes removed.
struct SimpleCommand
{
    // words[0] is the program exactly as written (quotes removed): "git", "C:\\...\\git.exe",
    // "Get-ChildItem". No alias is resolved here.
    QStringList words;
    // Per word: its value is known before the shell runs (no expansion, substitution, glob or
    // splatting). Only a literal word can be compared with a rule; a word that is not literal may
    // even become several words.
    QList<bool> literal;
    // Posix `NAME=value` before the program (they change what the program does: GIT_DIR=...,
    // LD_PRELOAD=...): unquoted when the value is literal, else as written (`X=$(id)`). A line
    // of assignments alone (`PATH=/tmp; git status`) is not a command: it makes the parse
    // uncertain.
    QStringList assignments;
    QList<Redirection> redirections;
    QString text; // the command's own source text, for explanations
};

// A command line split into every simple command it runs.
struct ShellParse
{
    // In source order, including those inside `$(…)`, backticks, `<(…)`, `(…)`, `{ …; }`, and
    // PowerShell's `$(…)`, `@(…)` and script blocks `{ … }`.
    QList<SimpleCommand> commands;
    // False when some part could not be split with certainty (a syntax error, a here-document, a
    // construct the splitter does not know, a PowerShell method call or .NET expression); then no
    // rule can allow the call and it is asked.
    bool certain = true;
    QString uncertainty;          // why not certain: one translated sentence for the user
    bool hasSubstitution = false; // any command or process substitution, subexpression, script block
    bool hasRedirection = false;  // any redirection at all, a duplication included
};

// Splits command as the shell of this syntax would. Never runs anything. Posix and PowerShell
// command lines are parsed with tree-sitter's bash and PowerShell grammars; cmd.exe lines by a
// small splitter that knows only plain commands. A command that is not certain may still list
// the commands found so far, for explanations only.
ShellParse parseShellCommand(const QString &command, ShellSyntax syntax);

} // namespace AgentLoop
