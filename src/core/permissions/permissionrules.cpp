#include "permissions/permissionrules.h"

#include "base/displaytext.h"
#include "files/workspace.h"
#include "tools/pathpatterns.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>
#include <QStandardPaths>

#include <algorithm>
#include <optional>
#include <tuple>

using namespace Qt::StringLiterals;

// How a call is judged: it is taken apart into parts (each simple command of a shell call, each
// file a command writes, the path of a file call), each part gets its own verdict from the rules
// (deny beats ask beats allow), and the call gets the worst of them. A rule can only allow what it
// can see: a word only known when the shell runs, a command the splitter was unsure of, a program
// that runs its arguments as code behind a wildcard, a write outside the workspace.

namespace AgentLoop {

namespace {

struct RuleText
{
    Q_DECLARE_TR_FUNCTIONS(PermissionRules)
};

const QString shellToolName = u"shell"_s;
const QString writeFileToolName = u"write_file"_s;
const QString editFileToolName = u"edit_file"_s;
const QString readFileToolName = u"read_file"_s;
const QString defaultDecider = u"default"_s;

// `mcp__github__*`: every tool of one MCP server (mcp/mcpconfig.h names them
// mcp__<server>__<tool>), whatever tools the server offers now or later.
bool isServerWideToolName(const QString &tool)
{
    static const QRegularExpression serverWide(u"^"_s + mcpToolNamePrefix.toString()
                                               + u"[A-Za-z0-9_-]+__\\*$"_s);
    return serverWide.match(tool).hasMatch();
}

// Whether a rule written for ruleTool names the tool called `tool`.
bool ruleNamesTool(const QString &ruleTool, const QString &tool)
{
    if (isServerWideToolName(ruleTool))
        return tool.startsWith(QStringView(ruleTool).chopped(1));
    return ruleTool == tool;
}

#ifdef Q_OS_WIN
constexpr bool pathsCaseSensitive = false;
#else
constexpr bool pathsCaseSensitive = true;
#endif

QString shownRule(const QString &text)
{
    return displayedLine(text, 200);
}

QString shownCommand(const QString &text)
{
    return u'`' + displayedLine(text.trimmed(), 160) + u'`';
}

// ---- Rule text ----------------------------------------------------------------------------

QString ruleShapeHint()
{
    return RuleText::tr("A rule is a tool name, alone for every call of the tool or followed by a "
                        "pattern in parentheses: shell, shell(git status), shell(npm run test:*), "
                        "read_file(src/**).");
}

Error ruleError(const QString &what)
{
    return Error{Error::Configuration, what, ruleShapeHint()};
}

// One word of a shell pattern: the literal pieces between its `*` wildcards (one piece: no
// wildcard).
using PatternWord = QStringList;

struct ShellPattern
{
    QList<PatternWord> words;
    bool anyTail = false; // `:*`: then any further arguments, none included
};

bool hasWildcard(const ShellPattern &pattern)
{
    return pattern.anyTail
           || std::any_of(pattern.words.cbegin(),
                          pattern.words.cend(),
                          [](const PatternWord &word) { return word.size() > 1; });
}

// Words split at whitespace; '…' and "…" quote (a `*` inside quotes is literal, `\"` is a quote
// inside "…"); backslashes elsewhere are literal, as in Windows paths.
Result<ShellPattern> parseShellPattern(const QString &text)
{
    ShellPattern pattern;
    PatternWord word;
    QString piece;
    bool inWord = false;
    bool tailSeen = false;
    bool colonUnquoted = false; // the last character was an unquoted ':'
    const auto finishWord = [&](bool tail) {
        if (tail)
            piece.chop(1); // the ':'
        word.append(piece);
        if (!(tail && word.size() == 1 && word.first().isEmpty()))
            pattern.words.append(word);
        word.clear();
        piece.clear();
        inWord = false;
        colonUnquoted = false;
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isSpace()) {
            if (inWord)
                finishWord(false);
            continue;
        }
        if (tailSeen)
            return ruleError(RuleText::tr("\":*\" may only end a shell pattern: it stands for any "
                                          "further arguments."));
        inWord = true;
        if (c == u'\'' || c == u'"') {
            qsizetype close = i + 1;
            QString quoted;
            while (close < text.size() && text.at(close) != c) {
                if (c == u'"' && text.at(close) == u'\\' && close + 1 < text.size()
                    && text.at(close + 1) == u'"')
                    ++close;
                quoted += text.at(close++);
            }
            if (close >= text.size())
                return ruleError(
                        RuleText::tr("A quote (%1) in the pattern is never closed.").arg(c));
            piece += quoted;
            i = close;
            colonUnquoted = false;
            continue;
        }
        const bool endsWord = i + 1 == text.size() || text.at(i + 1).isSpace();
        if (c == u'*' && colonUnquoted && endsWord) {
            tailSeen = true;
            finishWord(true);
            continue;
        }
        if (c == u'*') {
            word.append(piece);
            piece.clear();
        } else {
            piece += c;
        }
        colonUnquoted = c == u':';
    }
    if (inWord)
        finishWord(false);
    pattern.anyTail = tailSeen;
    if (pattern.words.isEmpty())
        return ruleError(RuleText::tr("The shell pattern names no program: write the command it "
                                      "allows, such as git status or npm run test:*."));
    return pattern;
}

// Glob match with `*` only (any characters, within the one word).
bool wordMatches(const PatternWord &pattern, QStringView text, Qt::CaseSensitivity cs)
{
    if (pattern.size() == 1)
        return text.compare(pattern.first(), cs) == 0;
    if (!text.startsWith(pattern.first(), cs))
        return false;
    qsizetype position = pattern.first().size();
    for (qsizetype i = 1; i + 1 < pattern.size(); ++i) {
        const qsizetype found = text.indexOf(pattern.at(i), position, cs);
        if (found < 0)
            return false;
        position = found + pattern.at(i).size();
    }
    return text.size() - position >= pattern.last().size() && text.endsWith(pattern.last(), cs);
}

QString quotedRuleWord(const QString &word)
{
    static const QRegularExpression plain(u"^[^\\s'\"()*]+$"_s);
    if (plain.match(word).hasMatch() && !word.endsWith(u':'))
        return word;
    if (!word.contains(u'\''))
        return u'\'' + word + u'\'';
    QString escaped = word;
    escaped.replace(u"\""_s, u"\\\""_s);
    return u'"' + escaped + u'"';
}

// ---- Program names ------------------------------------------------------------------------

// PowerShell's built-in aliases (Windows PowerShell 5.1 and PowerShell 7), lower case.
const QHash<QString, QString> &powerShellAliases()
{
    static const QHash<QString, QString> aliases = [] {
        const QList<std::pair<QString, QStringList>> table = {
                {u"Get-ChildItem"_s, {u"ls"_s, u"dir"_s, u"gci"_s}},
                {u"Get-Content"_s, {u"cat"_s, u"type"_s, u"gc"_s}},
                {u"Remove-Item"_s, {u"rm"_s, u"del"_s, u"erase"_s, u"rd"_s, u"rmdir"_s, u"ri"_s}},
                {u"Copy-Item"_s, {u"cp"_s, u"copy"_s, u"cpi"_s}},
                {u"Move-Item"_s, {u"mv"_s, u"move"_s, u"mi"_s}},
                {u"Write-Output"_s, {u"echo"_s, u"write"_s}},
                {u"Get-Location"_s, {u"pwd"_s, u"gl"_s}},
                {u"Set-Location"_s, {u"cd"_s, u"chdir"_s, u"sl"_s}},
                {u"Invoke-Expression"_s, {u"iex"_s}},
                {u"New-Item"_s, {u"ni"_s}},
                {u"Get-Process"_s, {u"ps"_s, u"gps"_s}},
                {u"Stop-Process"_s, {u"kill"_s, u"spps"_s}},
                {u"Select-String"_s, {u"sls"_s}},
                {u"Invoke-WebRequest"_s, {u"iwr"_s, u"curl"_s, u"wget"_s}},
                {u"Invoke-RestMethod"_s, {u"irm"_s}},
                {u"ForEach-Object"_s, {u"%"_s, u"foreach"_s}},
                {u"Where-Object"_s, {u"?"_s, u"where"_s}},
                {u"Select-Object"_s, {u"select"_s}},
                {u"Sort-Object"_s, {u"sort"_s}},
                {u"Add-Content"_s, {u"ac"_s}},
                {u"Set-Content"_s, {u"sc"_s}},
                {u"Start-Process"_s, {u"start"_s, u"saps"_s}},
                {u"Invoke-Command"_s, {u"icm"_s}},
                {u"Get-Item"_s, {u"gi"_s}},
                {u"Invoke-Item"_s, {u"ii"_s}},
                {u"Rename-Item"_s, {u"ren"_s, u"rni"_s}},
                {u"Tee-Object"_s, {u"tee"_s}},
                {u"Clear-Host"_s, {u"cls"_s}},
        };
        QHash<QString, QString> map;
        for (const auto &[cmdlet, names] : table) {
            for (const QString &name : names)
                map.insert(name, cmdlet.toLower());
        }
        return map;
    }();
    return aliases;
}

// Programs that run their arguments (or their input) as code, or run another program with
// them: a wildcard rule on one of them would allow anything. Lower case, aliases resolved.
bool runsCode(const QString &program)
{
    static const QSet<QString> interpreters = {
            u"sh"_s,
            u"bash"_s,
            u"zsh"_s,
            u"dash"_s,
            u"ksh"_s,
            u"mksh"_s,
            u"fish"_s,
            u"csh"_s,
            u"tcsh"_s,
            u"ash"_s,
            u"busybox"_s,
            u"cmd"_s,
            u"powershell"_s,
            u"pwsh"_s,
            u"eval"_s,
            u"exec"_s,
            u"source"_s,
            u"."_s,
            u"call"_s,
            u"start"_s,
            u"invoke-expression"_s,
            u"invoke-command"_s,
            u"start-process"_s,
            u"start-job"_s,
            u"xargs"_s,
            u"env"_s,
            u"sudo"_s,
            u"doas"_s,
            u"su"_s,
            u"runas"_s,
            u"nohup"_s,
            u"time"_s,
            u"nice"_s,
            u"ionice"_s,
            u"timeout"_s,
            u"watch"_s,
            u"ssh"_s,
            u"command"_s,
            u"builtin"_s,
            u"chroot"_s,
            u"nsenter"_s,
            u"wsl"_s,
            u"python"_s,
            u"python3"_s,
            u"python2"_s,
            u"py"_s,
            u"node"_s,
            u"perl"_s,
            u"ruby"_s,
            u"php"_s,
            u"lua"_s,
            u"osascript"_s,
            u"script"_s,
            u"unbuffer"_s,
    };
    return interpreters.contains(program.toLower());
}

bool windowsStyle(ShellSyntax syntax, const PermissionOptions &options)
{
    return options.caseInsensitivePrograms || syntax != ShellSyntax::Posix;
}

QString withoutExecutableSuffix(QString name, ShellSyntax syntax, const PermissionOptions &options)
{
    QStringList suffixes = {u".exe"_s};
    if (windowsStyle(syntax, options))
        suffixes << u".cmd"_s << u".bat"_s << u".com"_s;
    for (const QString &suffix : std::as_const(suffixes)) {
        if (name.size() > suffix.size() && name.endsWith(suffix, Qt::CaseInsensitive)) {
            name.chop(suffix.size());
            break;
        }
    }
    return name;
}

// The program as rules compare it: without its folder and `.exe`, and in PowerShell the cmdlet
// an alias stands for.
QString programName(const QString &word, ShellSyntax syntax, const PermissionOptions &options)
{
    const QString name = withoutExecutableSuffix(word.mid(std::max(word.lastIndexOf(u'/'),
                                                                   word.lastIndexOf(u'\\'))
                                                          + 1),
                                                 syntax,
                                                 options);
    if (syntax == ShellSyntax::PowerShell)
        return powerShellAliases().value(name.toLower(), name);
    return name;
}

// The program with its folder, for a rule that names one (`shell(./build.sh)`,
// `shell(C:\\Tools\\rg.exe:*)`): '/' separators, without `.exe`.
QString programPath(const QString &word, ShellSyntax syntax, const PermissionOptions &options)
{
    return withoutExecutableSuffix(QString(word).replace(u'\\', u'/'), syntax, options);
}

// ---- Path patterns ------------------------------------------------------------------------

struct PathPattern
{
    // None: the pattern points outside the workspace and matches nothing.
    std::optional<QRegularExpression> expression;
    QString literalPrefix; // what every path it matches starts with
};

PathPattern compilePathPattern(const QString &text, const WorkspaceBoundary *boundary)
{
    const Qt::CaseSensitivity cs = pathsCaseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
#ifdef Q_OS_WIN
    QString pattern = QDir::fromNativeSeparators(text.trimmed());
#else
    QString pattern = text.trimmed();
#endif
    static const QRegularExpression drive(u"^[A-Za-z]:/"_s);
    if (pattern.startsWith(u'/') || drive.match(pattern).hasMatch()) {
        if (!boundary || !boundary->isValid())
            return {};
        const QString root = boundary->root();
        if (pattern.compare(root, cs) == 0)
            pattern = u"."_s;
        else if (pattern.startsWith(root + u'/', cs))
            pattern = pattern.mid(root.size() + 1);
        else
            return {};
    }
    while (pattern.startsWith(u"./"_s))
        pattern.remove(0, 2);
    if (pattern.isEmpty() || pattern.split(u'/').contains(u".."_s))
        return {};
    static const QRegularExpression special(u"[*?\\[{\\\\]"_s);
    const qsizetype wildcard = pattern.indexOf(special);
    return {globExpression(pattern, pathsCaseSensitive),
            wildcard < 0 ? pattern : pattern.left(wildcard)};
}

// A path as a glob that matches exactly it.
QString escapedGlob(const QString &path)
{
    QString escaped;
    for (const QChar c : path) {
        if (c == u'*' || c == u'?' || c == u'[' || c == u'{' || c == u'}' || c == u'\\')
            escaped += u'[' + QString(c) + u']';
        else
            escaped += c;
    }
    return escaped;
}

// ---- Compiled rules -----------------------------------------------------------------------

struct CompiledRule
{
    PermissionRule rule;
    RulePattern pattern;
    QString error;                     // the rule does not parse
    std::optional<ShellPattern> shell; // a pattern of the shell tool
    PathPattern path;                  // a pattern of any other tool

    bool isValid() const { return error.isEmpty(); }
    bool hasWildcard() const
    {
        return shell ? AgentLoop::hasWildcard(*shell) : isServerWideToolName(pattern.tool);
    }

    // A pattern beats none, more literal characters beat fewer, no wildcard beats one.
    std::tuple<bool, qsizetype, bool> specificity() const
    {
        qsizetype literal = 0;
        if (shell) {
            for (const PatternWord &word : shell->words) {
                for (const QString &piece : word)
                    literal += piece.size();
            }
        } else {
            literal = path.literalPrefix.size();
        }
        return {!pattern.anyCall, literal, !hasWildcard()};
    }
};

// The tool name an unparsable rule was meant for, if even that can be read.
QString intendedTool(const QString &text)
{
    static const QRegularExpression name(u"^\\s*([A-Za-z0-9_.-]+\\*?)\\s*(\\(|$)"_s);
    return name.match(text).captured(1);
}

CompiledRule compileRule(const PermissionRule &rule, const WorkspaceBoundary *boundary)
{
    CompiledRule compiled;
    compiled.rule = rule;
    const Result<RulePattern> pattern = parseRuleText(rule.text);
    if (!pattern) {
        compiled.error = pattern.error().message;
        compiled.pattern.tool = intendedTool(rule.text);
        return compiled;
    }
    compiled.pattern = *pattern;
    if (pattern->anyCall)
        return compiled;
    if (pattern->tool == shellToolName)
        compiled.shell = *parseShellPattern(pattern->pattern);
    else
        compiled.path = compilePathPattern(pattern->pattern, boundary);
    return compiled;
}

struct ReadOnlyCommand
{
    QString rule;
};

const QList<ReadOnlyCommand> &readOnlyCommands()
{
    // What they must not write or run is writeOrRunOptions()'s, as for every prefix rule.
    static const QList<ReadOnlyCommand> commands = {
            {u"shell(git status:*)"_s},
            {u"shell(git diff:*)"_s},
            {u"shell(git log:*)"_s},
            {u"shell(git show:*)"_s},
            {u"shell(ls:*)"_s},
            {u"shell(dir:*)"_s},
            {u"shell(Get-ChildItem:*)"_s},
            {u"shell(cat:*)"_s},
            {u"shell(type:*)"_s},
            {u"shell(Get-Content:*)"_s},
            {u"shell(pwd)"_s},
            {u"shell(Get-Location)"_s},
            {u"shell(whoami)"_s},
            {u"shell(echo:*)"_s},
            {u"shell(head:*)"_s},
            {u"shell(tail:*)"_s},
            {u"shell(wc:*)"_s},
            {u"shell(grep:*)"_s},
            {u"shell(rg:*)"_s},
            {u"shell(Select-String:*)"_s},
            {u"shell(Test-Path:*)"_s},
    };
    return commands;
}

// The options with which a program writes a file or runs another program, whatever the rest of
// its command line does: a rule with a wildcard (`git diff:*`, `npm run test:*`) and the built-in
// read-only commands never cover a command line with one of them; only a rule that spells the
// option out does. Spelled as the program takes them:
// - "--name": a long option, also abbreviated (git and GNU tools take `--out` for `--output`) and
//   with its value attached (`--output=FILE`);
// - "-x": a short option, also in a cluster (`curl -sSLo FILE`) or with its value attached
//   (`sort -oFILE`);
// - anything else ("-exec"): that word exactly.
const QHash<QString, QStringList> &writeOrRunOptions()
{
    static const QHash<QString, QStringList> table = {
            {u"git"_s,
             {u"--output"_s,
              u"--ext-diff"_s,
              u"--textconv"_s,
              u"--exec-path"_s,
              u"--upload-pack"_s,
              u"--receive-pack"_s,
              u"--config-env"_s,
              u"-c"_s,
              u"--exec"_s,
              u"-x"_s,
              u"--open-files-in-pager"_s,
              u"-O"_s,
              u"--run"_s}},
            {u"npm"_s,
             {u"--script-shell"_s,
              u"--userconfig"_s,
              u"--globalconfig"_s,
              u"--node-options"_s,
              u"--call"_s,
              u"-c"_s}},
            {u"pnpm"_s, {u"--script-shell"_s, u"--node-options"_s, u"--config"_s}},
            {u"yarn"_s, {u"--script-shell"_s, u"--node-options"_s}},
            {u"npx"_s, {u"--call"_s, u"-c"_s, u"--package"_s, u"-p"_s}},
            {u"rg"_s, {u"--pre"_s, u"--search-zip"_s, u"-z"_s}},
            {u"sort"_s, {u"--output"_s, u"-o"_s, u"--compress-program"_s}},
            {u"find"_s,
             {u"-exec"_s,
              u"-execdir"_s,
              u"-ok"_s,
              u"-okdir"_s,
              u"-delete"_s,
              u"-fprint"_s,
              u"-fprint0"_s,
              u"-fprintf"_s,
              u"-fls"_s}},
            {u"tar"_s,
             {u"--to-command"_s,
              u"--use-compress-program"_s,
              u"-I"_s,
              u"--checkpoint-action"_s,
              u"--info-script"_s,
              u"--new-volume-script"_s,
              u"-F"_s,
              u"--rsh-command"_s}},
            {u"sed"_s, {u"--in-place"_s, u"-i"_s}},
            {u"curl"_s,
             {u"--output"_s,
              u"-o"_s,
              u"--remote-name"_s,
              u"-O"_s,
              u"--remote-name-all"_s,
              u"--output-dir"_s,
              u"--config"_s,
              u"-K"_s,
              u"--dump-header"_s,
              u"-D"_s,
              u"--trace"_s,
              u"--trace-ascii"_s,
              u"--cookie-jar"_s,
              u"-c"_s,
              u"--etag-save"_s,
              u"--hsts"_s,
              u"--alt-svc"_s,
              u"--stderr"_s,
              u"--libcurl"_s,
              u"--upload-file"_s,
              u"-T"_s}},
            {u"rsync"_s, {u"--rsh"_s, u"-e"_s, u"--rsync-path"_s}},
            {u"go"_s, {u"-exec"_s, u"-toolexec"_s}},
    };
    return table;
}

bool namesOption(const QString &word, const QString &option)
{
    if (option.startsWith(u"--"_s)) {
        if (!word.startsWith(u"--"_s) || word == u"--"_s)
            return false;
        const QString name = word.left(word.indexOf(u'='));
        return option.startsWith(name) && name.size() > 2;
    }
    if (option.size() == 2) {
        if (!word.startsWith(u'-') || word.startsWith(u"--"_s) || word.size() < 2)
            return false;
        // The cluster's letters, up to a value attached to one of them.
        for (qsizetype i = 1; i < word.size() && word.at(i).isLetter(); ++i) {
            if (word.at(i) == option.at(1))
                return true;
        }
        return false;
    }
    return word == option;
}

} // namespace

QString writeOrRunOption(const QString &program, const QStringList &arguments)
{
    const auto options = writeOrRunOptions().constFind(program);
    if (options == writeOrRunOptions().cend())
        return {};
    for (const QString &word : arguments) {
        if (word == u"--"_s)
            break; // what follows are operands, not options
        for (const QString &option : *options) {
            if (namesOption(word, option))
                return option;
        }
    }
    return {};
}

struct PermissionPolicy::CompiledRules
{
    QList<CompiledRule> rules; // the policy's, then the built-in ones
};

namespace {

// ---- Judging ------------------------------------------------------------------------------

enum class Match { No, Maybe, Yes };

// The verdict on one part of a call.
struct Part
{
    Verdict verdict = Verdict::Ask;
    const CompiledRule *rule = nullptr; // what decided it, if a rule did
    QString detail;                     // the line for PermissionCheck::details
    QString explanation;                // the sentence, should this part decide the call
};

const CompiledRule *moreSpecific(const CompiledRule *best, const CompiledRule *candidate)
{
    if (!best || candidate->specificity() > best->specificity())
        return candidate;
    return best;
}

// A simple command as rules compare it.
struct CommandView
{
    const SimpleCommand *command = nullptr;
    QStringList words; // words[0]: programName()
    QList<bool> literal;
    QString path;    // words[0] as written: programPath()
    QString program; // words[0] lower-cased, for the interpreter list
    Qt::CaseSensitivity programCase = Qt::CaseSensitive;
};

CommandView viewOf(const SimpleCommand &command,
                   ShellSyntax syntax,
                   const PermissionOptions &options)
{
    CommandView view;
    view.command = &command;
    view.words = command.words;
    view.literal = command.literal;
    while (view.literal.size() < view.words.size())
        view.literal.append(false);
    // PowerShell's call operator runs the program named next.
    if (syntax == ShellSyntax::PowerShell && !view.words.isEmpty() && view.words.first() == u"&"_s
        && view.literal.first()) {
        view.words.removeFirst();
        view.literal.removeFirst();
    }
    if (!view.words.isEmpty()) {
        view.path = programPath(view.words.first(), syntax, options);
        view.words[0] = programName(view.words.first(), syntax, options);
        view.program = view.words.first().toLower();
    }
    view.programCase = windowsStyle(syntax, options) ? Qt::CaseInsensitive : Qt::CaseSensitive;
    return view;
}

// Which programs a rule's program word stands for.
enum class ProgramScope {
    // An allow rule: a rule that names the program alone (`git`) means the program the shell
    // finds by that name on its search path, which never has the workspace, `.` or a relative
    // folder on it (tools/commandrunner.h): a command word with a folder (`./git`, `tools/git`,
    // `C:\x\git.exe`, `node_modules/.bin/ls`) is some other program, which a repository may have
    // put there, and only a rule that names that path allows it.
    WhatRuns,
    // A deny or ask rule: every program of that name, wherever it lies.
    AnyOfThatName,
};

bool hasFolder(const QString &programPath)
{
    return programPath.contains(u'/'); // programPath() has '/' for either separator
}

// A rule that names the program's folder means that program, not any program of its name.
bool programMatches(PatternWord expected,
                    const CommandView &view,
                    ShellSyntax syntax,
                    const PermissionOptions &options,
                    ProgramScope scope)
{
    const bool withFolder = std::any_of(expected.cbegin(),
                                        expected.cend(),
                                        [](const QString &piece) {
                                            return piece.contains(u'/') || piece.contains(u'\\');
                                        });
    if (!withFolder && scope == ProgramScope::WhatRuns && hasFolder(view.path))
        return false;
    if (withFolder) {
        for (QString &piece : expected)
            piece.replace(u'\\', u'/');
    }
    if (expected.size() == 1)
        expected[0] = withFolder ? programPath(expected.first(), syntax, options)
                                 : programName(expected.first(), syntax, options);
    return wordMatches(expected, withFolder ? view.path : view.words.first(), view.programCase);
}

Match matchCommand(const ShellPattern &pattern,
                   const CommandView &view,
                   ShellSyntax syntax,
                   const PermissionOptions &options,
                   ProgramScope scope)
{
    for (qsizetype i = 0; i < pattern.words.size(); ++i) {
        if (i >= view.words.size())
            return Match::No;
        if (!view.literal.at(i))
            return Match::Maybe; // it may become any words, or none
        if (i == 0 && !programMatches(pattern.words.first(), view, syntax, options, scope))
            return Match::No;
        // PowerShell's parameter names (`-Force`, `-force`) ignore case, as its cmdlets do.
        const QString &word = view.words.at(i);
        const bool parameter = syntax == ShellSyntax::PowerShell && word.startsWith(u'-');
        const Qt::CaseSensitivity cs = parameter ? view.programCase : Qt::CaseSensitive;
        if (i > 0 && !wordMatches(pattern.words.at(i), word, cs))
            return Match::No;
    }
    if (pattern.anyTail || view.words.size() == pattern.words.size())
        return Match::Yes;
    const bool unknownRest = std::any_of(view.literal.cbegin() + pattern.words.size(),
                                         view.literal.cend(),
                                         [](bool literal) { return !literal; });
    return unknownRest ? Match::Maybe : Match::No;
}

// An argument that names something outside the workspace: the built-in read-only commands read
// only inside it, like the read tools.
bool pointsOutside(const QString &word, ShellSyntax syntax)
{
    const QString value = word.startsWith(u'-') && word.contains(u'=')
                                  ? word.mid(word.indexOf(u'=') + 1)
                                  : word;
    if (syntax == ShellSyntax::Cmd && value.startsWith(u'/') && !value.mid(1).contains(u'/')
        && !value.contains(u'\\'))
        return false; // a cmd.exe switch
    if (value.startsWith(u'/') || value.startsWith(u'\\') || value.startsWith(u'~'))
        return true;
    static const QRegularExpression drive(u"^[A-Za-z][A-Za-z0-9]*:"_s);
    if (syntax != ShellSyntax::Posix && drive.match(value).hasMatch())
        return true;
    const QStringList segments = QString(value).replace(u'\\', u'/').split(u'/');
    return segments.contains(u".."_s);
}

// The paths an argument may name: the word, or an option's value (`--file=x`, and for a short
// option the rest of the word, `-f/etc/shadow`).
QStringList namedPaths(const QString &word)
{
    if (!word.startsWith(u'-'))
        return {word};
    QStringList paths;
    if (const qsizetype equals = word.indexOf(u'='); equals >= 0)
        paths.append(word.mid(equals + 1));
    if (!word.startsWith(u"--"_s) && word.size() > 2)
        paths.append(word.mid(2));
    return paths;
}

// Whether a relative path an argument names leads out of the workspace for real, through a link
// the repository planted (`cat docs/notes.txt`, notes.txt -> ~/.ssh/id_ed25519). Absolute ones
// are pointsOutside()'s to judge (which knows cmd's switches, `/s`).
bool leadsOutside(const QString &path, const WorkspaceBoundary *boundary)
{
    if (!boundary || !boundary->isValid() || path.isEmpty() || path.startsWith(u'/')
        || path.startsWith(u'\\') || QDir::isAbsolutePath(path))
        return false;
    const PathResolution resolution = boundary->resolve(path, WorkspaceBoundary::Access::Read);
    const auto *refused = std::get_if<PathRefusal>(&resolution);
    return refused && refused->code == u"outside_workspace"_s;
}

bool builtInApplies(const CommandView &view,
                    const ShellParse &parse,
                    ShellSyntax syntax,
                    const WorkspaceBoundary *boundary)
{
    if (parse.hasRedirection || parse.hasSubstitution)
        return false;
    for (qsizetype i = 0; i < view.words.size(); ++i) {
        if (!view.literal.at(i))
            return false;
        if (i == 0)
            continue;
        for (const QString &path : namedPaths(view.words.at(i))) {
            if (pointsOutside(path, syntax) || leadsOutside(path, boundary))
                return false;
        }
    }
    return true;
}

struct ShellContext
{
    const QString &tool;
    ShellSyntax syntax;
    const ShellParse &parse;
    const PermissionOptions &options;
    const QList<CompiledRule> &rules;
    const WorkspaceBoundary *boundary; // none: paths are judged by their text alone
};

QString joinedLiteral(const CommandView &view, qsizetype from)
{
    for (qsizetype i = from; i < view.words.size(); ++i) {
        if (!view.literal.at(i))
            return {};
    }
    return view.words.mid(from).join(u' ');
}

// The code an interpreter is given on its command line (`bash -c CODE`, `cmd /c CODE`,
// `powershell -Command CODE`, `eval CODE`, `iex CODE`), when it is literal.
std::optional<std::pair<QString, ShellSyntax>> embeddedCode(const CommandView &view)
{
    static const QSet<QString> posixShells
            = {u"sh"_s, u"bash"_s, u"zsh"_s, u"dash"_s, u"ksh"_s, u"mksh"_s, u"ash"_s, u"fish"_s};
    static const QRegularExpression commandOption(u"^-[A-Za-z]*c[A-Za-z]*$"_s);
    const QString &program = view.program;
    for (qsizetype i = 1; i < view.words.size(); ++i) {
        const QString word = view.words.at(i);
        if (posixShells.contains(program) && commandOption.match(word).hasMatch()
            && i + 1 < view.words.size() && view.literal.at(i + 1))
            return std::pair(view.words.at(i + 1), ShellSyntax::Posix);
        if (program == u"cmd"_s
            && (word.compare(u"/c"_s, Qt::CaseInsensitive) == 0
                || word.compare(u"/k"_s, Qt::CaseInsensitive) == 0))
            return std::pair(joinedLiteral(view, i + 1), ShellSyntax::Cmd);
        if ((program == u"powershell"_s || program == u"pwsh"_s) && word.size() > 1
            && u"-command"_s.startsWith(word.toLower()))
            return std::pair(joinedLiteral(view, i + 1), ShellSyntax::PowerShell);
    }
    if (program == u"eval"_s)
        return std::pair(joinedLiteral(view, 1), ShellSyntax::Posix);
    if (program == u"invoke-expression"_s)
        return std::pair(joinedLiteral(view, 1), ShellSyntax::PowerShell);
    return std::nullopt;
}

// The command a wrapper (sudo, env, xargs, nohup, ...) runs, as far as it can be told: leading
// options, assignments and numbers are skipped; an option that takes a value (`sudo -u root rm`)
// hides the command, which then stays asked as the wrapper's.
std::optional<CommandView> wrappedCommand(const CommandView &view,
                                          ShellSyntax syntax,
                                          const PermissionOptions &options)
{
    static const QSet<QString> wrappers = {u"sudo"_s,
                                           u"doas"_s,
                                           u"env"_s,
                                           u"nohup"_s,
                                           u"time"_s,
                                           u"nice"_s,
                                           u"ionice"_s,
                                           u"timeout"_s,
                                           u"xargs"_s,
                                           u"exec"_s,
                                           u"command"_s,
                                           u"builtin"_s,
                                           u"stdbuf"_s,
                                           u"unbuffer"_s,
                                           u"watch"_s};
    static const QRegularExpression skipped(u"^(-.*|[A-Za-z_][A-Za-z0-9_]*=.*|[0-9.]+[smhd]?)$"_s);
    if (!wrappers.contains(view.program))
        return std::nullopt;
    qsizetype first = 1;
    while (first < view.words.size() && view.literal.at(first)
           && skipped.match(view.words.at(first)).hasMatch())
        ++first;
    if (first >= view.words.size())
        return std::nullopt;
    CommandView inner = view;
    inner.command = nullptr;
    inner.words = view.words.mid(first);
    inner.literal = view.literal.mid(first);
    inner.path = programPath(inner.words.first(), syntax, options);
    inner.words[0] = programName(inner.words.first(), syntax, options);
    inner.program = inner.words.first().toLower();
    return inner;
}

// What deny rules judge besides the command itself: the command a wrapper runs and the commands
// of the code an interpreter is given. Allow rules never look inside.
void collectInnerCommands(const CommandView &view,
                          ShellSyntax syntax,
                          const PermissionOptions &options,
                          int depth,
                          QList<CommandView> &inner)
{
    if (depth > 4)
        return;
    if (const auto wrapped = wrappedCommand(view, syntax, options)) {
        inner.append(*wrapped);
        collectInnerCommands(*wrapped, syntax, options, depth + 1, inner);
    }
    const auto code = embeddedCode(view);
    if (!code || code->first.trimmed().isEmpty())
        return;
    const ShellParse parse = parseShellCommand(code->first, code->second);
    for (const SimpleCommand &command : parse.commands) {
        CommandView embedded = viewOf(command, code->second, options);
        embedded.command = nullptr;
        inner.append(embedded);
        collectInnerCommands(embedded, code->second, options, depth + 1, inner);
    }
}

// The rules that match one simple command, by what they would make of it.
struct CommandFindings
{
    const CompiledRule *deny = nullptr;
    const CompiledRule *maybeDeny = nullptr; // matches if the shell's expansions turn out so
    const CompiledRule *ask = nullptr;
    const CompiledRule *allow = nullptr;
    const CompiledRule *wildcardOnCode = nullptr; // would allow a program that runs code
    const CompiledRule *builtInVoid = nullptr;    // a read-only command, void here
    const CompiledRule *optionVoid = nullptr;     // a wildcard rule, void for an option
    QString option;                               // that option
};

CommandFindings findRules(const CommandView &view, const ShellContext &context)
{
    QList<CommandView> judged = {view};
    collectInnerCommands(view, context.syntax, context.options, 0, judged);
    CommandFindings found;
    for (const CompiledRule &rule : context.rules) {
        if (!rule.shell || rule.pattern.tool != context.tool || view.words.isEmpty())
            continue;
        if (rule.rule.effect == RuleEffect::Deny) {
            for (const CommandView &part : std::as_const(judged)) {
                const Match match = part.words.isEmpty()
                                            ? Match::No
                                            : matchCommand(*rule.shell,
                                                           part,
                                                           context.syntax,
                                                           context.options,
                                                           ProgramScope::AnyOfThatName);
                if (match == Match::Yes)
                    found.deny = moreSpecific(found.deny, &rule);
                else if (match == Match::Maybe)
                    found.maybeDeny = moreSpecific(found.maybeDeny, &rule);
            }
            continue;
        }
        const Match match = matchCommand(*rule.shell,
                                         view,
                                         context.syntax,
                                         context.options,
                                         rule.rule.effect == RuleEffect::Allow
                                                 ? ProgramScope::WhatRuns
                                                 : ProgramScope::AnyOfThatName);
        if (match == Match::No)
            continue;
        if (rule.rule.effect == RuleEffect::Ask)
            found.ask = moreSpecific(found.ask, &rule);
        else if (match == Match::Maybe)
            continue;
        else if (runsCode(view.program) && rule.hasWildcard())
            found.wildcardOnCode = &rule;
        else if (const QString option = rule.hasWildcard()
                                                ? writeOrRunOption(view.program, view.words.mid(1))
                                                : QString();
                 !option.isEmpty()) {
            found.optionVoid = &rule;
            found.option = option;
        } else if (rule.rule.origin == RuleOrigin::BuiltIn
                   && !builtInApplies(view, context.parse, context.syntax, context.boundary))
            found.builtInVoid = &rule;
        else
            found.allow = moreSpecific(found.allow, &rule);
    }
    return found;
}

Part judgeSimpleCommand(const SimpleCommand &command, const ShellContext &context)
{
    const CommandView view = viewOf(command, context.syntax, context.options);
    const QString shown = shownCommand(command.text);
    const CommandFindings found = findRules(view, context);
    const CompiledRule *deny = found.deny;
    const CompiledRule *maybeDeny = found.maybeDeny;
    const CompiledRule *ask = found.ask;
    const CompiledRule *allow = found.allow;
    const CompiledRule *wildcardOnCode = found.wildcardOnCode;
    if (deny)
        return {Verdict::Deny,
                deny,
                RuleText::tr("%1: denied by %2").arg(shown, shownRule(deny->rule.text)),
                RuleText::tr("%1 is denied by %2.").arg(shown, shownRule(deny->rule.text))};
    if (maybeDeny)
        return {Verdict::Ask,
                maybeDeny,
                RuleText::tr("%1: may match the deny rule %2 once the shell expands it")
                        .arg(shown, shownRule(maybeDeny->rule.text)),
                RuleText::tr("%1 may match the deny rule %2 once the shell expands it, so it is "
                             "asked.")
                        .arg(shown, shownRule(maybeDeny->rule.text))};
    if (ask)
        return {Verdict::Ask,
                ask,
                RuleText::tr("%1: asked by %2").arg(shown, shownRule(ask->rule.text)),
                RuleText::tr("%1 is asked by %2.").arg(shown, shownRule(ask->rule.text))};
    if (view.words.isEmpty() && command.assignments.isEmpty())
        return {Verdict::Allow, nullptr, {}, {}}; // only redirections: judged as writes
    if (!command.assignments.isEmpty())
        return {Verdict::Ask,
                nullptr,
                RuleText::tr("%1: sets variables that change what programs do; no rule allows that")
                        .arg(shown),
                RuleText::tr("%1 sets variables that change what programs do, which no rule "
                             "allows.")
                        .arg(shown)};
    if (allow)
        return {Verdict::Allow,
                allow,
                RuleText::tr("%1: allowed by %2").arg(shown, shownRule(allow->rule.text)),
                {}};
    if (wildcardOnCode)
        return {Verdict::Ask,
                nullptr,
                RuleText::tr("%1: runs its arguments as code, so only an exact rule allows it, "
                             "not %2")
                        .arg(shown, shownRule(wildcardOnCode->rule.text)),
                RuleText::tr("%1 runs its arguments as code, so only an exact rule can allow it, "
                             "not %2.")
                        .arg(shown, shownRule(wildcardOnCode->rule.text))};
    if (found.optionVoid)
        return {Verdict::Ask,
                nullptr,
                RuleText::tr("%1: %2 makes the program write a file or run another program, which "
                             "%3 does not cover")
                        .arg(shown,
                             displayedLine(found.option, 100),
                             shownRule(found.optionVoid->rule.text)),
                RuleText::tr("%1 is asked: with %2 the program writes a file or runs another "
                             "program, which a rule with a wildcard such as %3 never covers (only "
                             "a rule that spells the option out).")
                        .arg(shown,
                             displayedLine(found.option, 100),
                             shownRule(found.optionVoid->rule.text))};
    if (found.builtInVoid)
        return {Verdict::Ask,
                nullptr,
                RuleText::tr("%1: the read-only command %2 is void here (a redirection, a "
                             "substitution, an unknown word, an option that writes or runs "
                             "something, or a path outside the workspace)")
                        .arg(shown, shownRule(found.builtInVoid->rule.text)),
                RuleText::tr("%1 is not read-only here: the built-in %2 does not apply with a "
                             "redirection, a substitution, an unknown word, an option that writes "
                             "or runs something, or a path outside the workspace.")
                        .arg(shown, shownRule(found.builtInVoid->rule.text))};
    return {Verdict::Ask,
            nullptr,
            RuleText::tr("%1: no allow rule matches").arg(shown),
            RuleText::tr("%1 matches no allow rule.").arg(shown)};
}

// The files a PowerShell cmdlet that writes files (Out-File, Set-Content, Add-Content,
// Tee-Object) writes; none when they cannot be told before it runs.
std::optional<QStringList> powerShellWriteTargets(const CommandView &view)
{
    static const QStringList pathParameters = {u"filepath"_s,
                                               u"path"_s,
                                               u"literalpath"_s,
                                               u"pspath"_s,
                                               u"lp"_s};
    static const QStringList switches = {u"append"_s,
                                         u"force"_s,
                                         u"noclobber"_s,
                                         u"nonewline"_s,
                                         u"passthru"_s,
                                         u"whatif"_s,
                                         u"confirm"_s,
                                         u"asbytestream"_s,
                                         u"verbose"_s,
                                         u"debug"_s,
                                         u"usetransaction"_s};
    static const QStringList valued = {u"encoding"_s,
                                       u"width"_s,
                                       u"inputobject"_s,
                                       u"value"_s,
                                       u"stream"_s,
                                       u"filter"_s,
                                       u"include"_s,
                                       u"exclude"_s,
                                       u"credential"_s,
                                       u"variable"_s,
                                       u"erroraction"_s,
                                       u"warningaction"_s,
                                       u"informationaction"_s,
                                       u"errorvariable"_s,
                                       u"warningvariable"_s,
                                       u"informationvariable"_s,
                                       u"outvariable"_s,
                                       u"outbuffer"_s,
                                       u"pipelinevariable"_s};
    const auto named = [](const QStringList &names, const QString &prefix) {
        return std::any_of(names.cbegin(), names.cend(), [&](const QString &name) {
            return name.startsWith(prefix);
        });
    };
    QStringList targets;
    bool toVariable = false;
    bool positionalSeen = false;
    for (qsizetype i = 1; i < view.words.size(); ++i) {
        if (!view.literal.at(i))
            return std::nullopt;
        const QString word = view.words.at(i);
        if (!word.startsWith(u'-') || word.size() < 2) {
            if (!positionalSeen)
                targets.append(word);
            positionalSeen = true;
            continue;
        }
        const qsizetype colon = word.indexOf(u':');
        const QString name = word.mid(1, colon < 0 ? -1 : colon - 1).toLower();
        const bool valueInline = colon >= 0;
        if (named(pathParameters, name) || named(valued, name)) {
            QString value;
            if (valueInline) {
                value = word.mid(colon + 1);
            } else {
                if (++i >= view.words.size() || !view.literal.at(i))
                    return std::nullopt;
                value = view.words.at(i);
            }
            if (named(pathParameters, name))
                targets.append(value);
            toVariable = toVariable || u"variable"_s.startsWith(name);
        } else if (!named(switches, name)) {
            return std::nullopt; // a parameter not known here
        }
    }
    if (targets.isEmpty() && !toVariable)
        return std::nullopt;
    for (const QString &target : std::as_const(targets)) {
        if (target.contains(u',') || target.contains(u'*') || target.contains(u'?')
            || target.contains(u'['))
            return std::nullopt; // several files, or a wildcard
    }
    return targets;
}

bool writesFiles(const QString &program)
{
    static const QSet<QString> writers = {u"out-file"_s,
                                          u"set-content"_s,
                                          u"add-content"_s,
                                          u"tee-object"_s};
    return writers.contains(program);
}

// Judges the parts of one call against the compiled rules.
class Judge final
{
public:
    Judge(const QList<CompiledRule> &rules,
          const PermissionOptions &options,
          const WorkspaceBoundary *boundary)
        : m_rules(rules)
        , m_options(options)
        , m_boundary(boundary)
    {}

    QList<Part> shellParts(const RuleCall &call) const;
    Part pathPart(const RuleCall &call) const;
    const CompiledRule *anyCallRule(const QString &tool, RuleEffect effect) const;

private:
    Part writePart(const QString &shownWrite, const QString &target, bool literal) const;
    std::optional<WorkspacePath> resolved(const QString &path,
                                          WorkspaceBoundary::Access access) const;
    bool pathRuleApplies(const CompiledRule &rule, const QString &tool) const;

    const QList<CompiledRule> &m_rules;
    const PermissionOptions &m_options;
    const WorkspaceBoundary *m_boundary;
};

std::optional<WorkspacePath> Judge::resolved(const QString &path,
                                             WorkspaceBoundary::Access access) const
{
    if (!m_boundary)
        return std::nullopt;
    const PathResolution resolution = m_boundary->resolve(path, access);
    if (const auto *inside = std::get_if<WorkspacePath>(&resolution))
        return *inside;
    return std::nullopt;
}

const CompiledRule *Judge::anyCallRule(const QString &tool, RuleEffect effect) const
{
    const CompiledRule *found = nullptr;
    for (const CompiledRule &rule : m_rules) {
        if (rule.isValid() && rule.pattern.anyCall && ruleNamesTool(rule.pattern.tool, tool)
            && rule.rule.effect == effect)
            found = moreSpecific(found, &rule);
    }
    return found;
}

QList<Part> Judge::shellParts(const RuleCall &call) const
{
    const ShellSyntax syntax = call.subject.syntax;
    const ShellParse parse = parseShellCommand(call.subject.text, syntax);
    const ShellContext context{call.tool, syntax, parse, m_options, m_rules, m_boundary};
    QList<Part> parts;
    for (const SimpleCommand &command : parse.commands) {
        Part part = judgeSimpleCommand(command, context);
        if (!part.detail.isEmpty())
            parts.append(part);
        for (const Redirection &redirection : command.redirections) {
            if (redirection.writesFile)
                parts.append(writePart(redirection.op + u' ' + redirection.target,
                                       redirection.target,
                                       redirection.targetIsLiteral));
        }
        const CommandView view = viewOf(command, syntax, m_options);
        if (syntax != ShellSyntax::PowerShell || !writesFiles(view.program))
            continue;
        const std::optional<QStringList> targets = powerShellWriteTargets(view);
        if (!targets) {
            const QString shown = shownCommand(command.text);
            parts.append(
                    {Verdict::Ask,
                     nullptr,
                     RuleText::tr("%1: writes files that cannot be told before it runs").arg(shown),
                     RuleText::tr("%1 writes files that cannot be told before it runs, so "
                                  "no rule can allow it.")
                             .arg(shown)});
            continue;
        }
        for (const QString &target : *targets)
            parts.append(writePart(view.command->words.first() + u' ' + target, target, true));
    }
    if (!parse.certain) {
        const QString why = displayedLine(parse.uncertainty, 300);
        parts.append({Verdict::Ask,
                      nullptr,
                      RuleText::tr("Not split with certainty: %1").arg(why),
                      RuleText::tr("The command could not be split with certainty, so no rule "
                                   "can allow it: %1")
                              .arg(why)});
    }
    return parts;
}

// A file a shell command writes needs what a write_file call of it would need.
Part Judge::writePart(const QString &shownWrite, const QString &target, bool literal) const
{
    const QString shown = shownCommand(shownWrite);
    // `~` is the home folder to the shell, wherever the splitter left it.
    if (!literal || target.startsWith(u'~'))
        return {Verdict::Ask,
                nullptr,
                RuleText::tr("%1: writes a file only known when it runs; no rule can allow it")
                        .arg(shown),
                RuleText::tr("%1 writes a file that is only known when it runs, so no rule can "
                             "allow it.")
                        .arg(shown)};
    const std::optional<WorkspacePath> path = resolved(target, WorkspaceBoundary::Access::Write);
    if (!path)
        return {Verdict::Ask,
                nullptr,
                RuleText::tr("%1: writes outside the workspace (or where no tool may write); no "
                             "rule can allow it")
                        .arg(shown),
                RuleText::tr("%1 writes outside the workspace (or where no tool may write), so "
                             "no rule can allow it.")
                        .arg(shown)};
    const QString file = displayedLine(path->relative, 200);
    const CompiledRule *deny = nullptr;
    const CompiledRule *ask = nullptr;
    const CompiledRule *allow = nullptr;
    for (const CompiledRule &rule : m_rules) {
        const bool writeRule = rule.pattern.tool == writeFileToolName
                               || rule.pattern.tool == editFileToolName;
        if (!rule.isValid() || !writeRule)
            continue;
        const bool matches = rule.pattern.anyCall
                             || (rule.path.expression
                                 && rule.path.expression->match(path->relative).hasMatch());
        if (!matches)
            continue;
        if (rule.rule.effect == RuleEffect::Deny)
            deny = moreSpecific(deny, &rule);
        else if (rule.rule.effect == RuleEffect::Ask)
            ask = moreSpecific(ask, &rule);
        else if (rule.pattern.tool == writeFileToolName) // replacing a file is not an edit
            allow = moreSpecific(allow, &rule);
    }
    if (deny)
        return {Verdict::Deny,
                deny,
                RuleText::tr("%1: writes %2, denied by %3")
                        .arg(shown, file, shownRule(deny->rule.text)),
                RuleText::tr("%1 writes %2, which %3 denies.")
                        .arg(shown, file, shownRule(deny->rule.text))};
    if (ask)
        return {Verdict::Ask,
                ask,
                RuleText::tr("%1: writes %2, asked by %3")
                        .arg(shown, file, shownRule(ask->rule.text)),
                RuleText::tr("%1 writes %2, which %3 asks about.")
                        .arg(shown, file, shownRule(ask->rule.text))};
    if (allow)
        return {Verdict::Allow,
                allow,
                RuleText::tr("%1: writes %2, allowed by %3")
                        .arg(shown, file, shownRule(allow->rule.text)),
                {}};
    return {Verdict::Ask,
            nullptr,
            RuleText::tr("%1: writes %2; no write_file rule allows it").arg(shown, file),
            RuleText::tr("%1 writes %2, which no write_file rule allows.").arg(shown, file)};
}

// grep reads the files' contents: what read_file may not read, it may not search either.
bool Judge::pathRuleApplies(const CompiledRule &rule, const QString &tool) const
{
    if (!rule.isValid() || rule.pattern.anyCall || rule.shell)
        return false;
    if (rule.pattern.tool == tool)
        return true;
    return tool == u"grep"_s && rule.pattern.tool == readFileToolName
           && rule.rule.effect != RuleEffect::Allow;
}

// Whether a folder may hold paths the pattern matches (a search of it would reach them).
bool mayHoldMatches(const WorkspacePath &folder, const PathPattern &pattern)
{
    if (!folder.isDirectory)
        return false;
    if (folder.relative == u"."_s)
        return true;
    const Qt::CaseSensitivity cs = pathsCaseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
    const QString below = folder.relative + u'/';
    return pattern.literalPrefix.startsWith(below, cs)
           || below.startsWith(pattern.literalPrefix, cs);
}

Part Judge::pathPart(const RuleCall &call) const
{
    const auto access = call.sideEffect == SideEffect::Read ? WorkspaceBoundary::Access::Read
                                                            : WorkspaceBoundary::Access::Write;
    const std::optional<WorkspacePath> path = resolved(call.subject.text, access);
    const QString shownPath = displayedLine(call.subject.text, 200);
    if (!path)
        return {call.sideEffect == SideEffect::Read ? Verdict::Allow : Verdict::Ask,
                nullptr,
                RuleText::tr("%1: outside the workspace; no rule applies (the tool refuses it)")
                        .arg(shownPath),
                RuleText::tr("%1 is outside the workspace: no rule applies, and the tool refuses "
                             "it.")
                        .arg(shownPath)};
    const QString relative = displayedLine(path->relative, 200);
    const CompiledRule *deny = nullptr;
    const CompiledRule *ask = nullptr;
    const CompiledRule *allow = nullptr;
    const CompiledRule *folderRule = nullptr; // a deny or ask rule on paths inside the folder
    for (const CompiledRule &rule : m_rules) {
        if (!pathRuleApplies(rule, call.tool) || !rule.path.expression)
            continue;
        const bool matches = rule.path.expression->match(path->relative).hasMatch();
        if (matches && rule.rule.effect == RuleEffect::Deny)
            deny = moreSpecific(deny, &rule);
        else if (matches && rule.rule.effect == RuleEffect::Ask)
            ask = moreSpecific(ask, &rule);
        else if (matches)
            allow = moreSpecific(allow, &rule);
        else if (rule.rule.effect != RuleEffect::Allow && mayHoldMatches(*path, rule.path))
            folderRule = moreSpecific(folderRule, &rule);
    }
    if (deny)
        return {Verdict::Deny,
                deny,
                RuleText::tr("%1: denied by %2").arg(relative, shownRule(deny->rule.text)),
                RuleText::tr("%1 is denied by %2.").arg(relative, shownRule(deny->rule.text))};
    if (ask)
        return {Verdict::Ask,
                ask,
                RuleText::tr("%1: asked by %2").arg(relative, shownRule(ask->rule.text)),
                RuleText::tr("%1 is asked by %2.").arg(relative, shownRule(ask->rule.text))};
    if (folderRule)
        return {Verdict::Ask,
                folderRule,
                RuleText::tr("%1: a folder that may hold paths %2 covers")
                        .arg(relative, shownRule(folderRule->rule.text)),
                RuleText::tr("%1 is a folder that may hold paths %2 covers, so it is asked.")
                        .arg(relative, shownRule(folderRule->rule.text))};
    if (allow)
        return {Verdict::Allow,
                allow,
                RuleText::tr("%1: allowed by %2").arg(relative, shownRule(allow->rule.text)),
                {}};
    if (call.sideEffect == SideEffect::Read)
        return {Verdict::Allow,
                nullptr,
                RuleText::tr("%1: read inside the workspace, allowed by default").arg(relative),
                {}};
    return {Verdict::Ask,
            nullptr,
            RuleText::tr("%1: no allow rule matches").arg(relative),
            RuleText::tr("%1 matches no allow rule.").arg(relative)};
}

PermissionCheck decided(Verdict verdict, const CompiledRule *rule, QString explanation)
{
    PermissionCheck check;
    check.verdict = verdict;
    check.decidedBy = rule ? rule->rule.text : defaultDecider;
    if (rule)
        check.origin = rule->rule.origin;
    check.explanation = std::move(explanation);
    return check;
}

// The call's verdict from its parts: the worst part decides; an allowed call names every rule
// that allowed a part.
PermissionCheck combined(const QList<Part> &parts, const CompiledRule *anyCallAllow)
{
    QStringList details;
    for (const Part &part : parts)
        details.append(part.detail);
    const auto first = [&](Verdict verdict) {
        return std::find_if(parts.cbegin(), parts.cend(), [&](const Part &part) {
            return part.verdict == verdict;
        });
    };
    PermissionCheck check;
    if (const auto denied = first(Verdict::Deny); denied != parts.cend()) {
        check = decided(Verdict::Deny, denied->rule, denied->explanation);
    } else if (const auto asked = std::find_if(parts.cbegin(),
                                               parts.cend(),
                                               [](const Part &part) {
                                                   return part.verdict == Verdict::Ask && part.rule;
                                               });
               asked != parts.cend()) {
        check = decided(Verdict::Ask, asked->rule, asked->explanation);
    } else if (anyCallAllow) {
        check = decided(Verdict::Allow,
                        anyCallAllow,
                        RuleText::tr("Allowed by %1.").arg(shownRule(anyCallAllow->rule.text)));
    } else if (const auto unallowed = first(Verdict::Ask); unallowed != parts.cend()) {
        check = decided(Verdict::Ask, nullptr, unallowed->explanation);
    } else {
        QStringList rules;
        const CompiledRule *firstRule = nullptr;
        for (const Part &part : parts) {
            if (part.rule && !rules.contains(part.rule->rule.text)) {
                rules.append(part.rule->rule.text);
                firstRule = firstRule ? firstRule : part.rule;
            }
        }
        check = decided(Verdict::Allow,
                        firstRule,
                        rules.size() > 1 ? RuleText::tr("Every part is allowed: %1.")
                                                   .arg(shownRule(rules.join(u", "_s)))
                        : firstRule ? RuleText::tr("Allowed by %1.").arg(shownRule(rules.first()))
                                    : RuleText::tr("Read tools are allowed inside the workspace."));
        check.decidedBy = rules.isEmpty() ? defaultDecider : rules.join(u", "_s);
    }
    check.details = details;
    return check;
}

} // namespace

Result<RulePattern> parseRuleText(const QString &text)
{
    const QString rule = text.trimmed();
    if (rule.isEmpty())
        return ruleError(RuleText::tr("The rule is empty."));
    const qsizetype open = rule.indexOf(u'(');
    const QString tool = open < 0 ? rule : rule.left(open);
    static const QRegularExpression toolName(u"^[A-Za-z0-9_.-]+$"_s);
    if (tool.isEmpty())
        return ruleError(RuleText::tr("The rule has no tool name before \"(\"."));
    if (isServerWideToolName(tool)) {
        if (open >= 0)
            return ruleError(RuleText::tr("%1 stands for every tool of an MCP server: it takes no "
                                          "pattern in parentheses.")
                                     .arg(displayedLine(tool, 80)));
        return RulePattern{tool, true, {}};
    }
    if (!toolName.match(tool).hasMatch())
        return ruleError(RuleText::tr("\"%1\" is not a tool name: a tool name has only letters, "
                                      "digits, \"_\", \".\" and \"-\".")
                                 .arg(displayedLine(tool, 80)));
    if (open < 0)
        return RulePattern{tool, true, {}};
    if (!rule.endsWith(u')'))
        return ruleError(
                RuleText::tr("The rule does not end with \")\": its pattern must be closed."));
    const QString pattern = rule.sliced(open + 1, rule.size() - open - 2);
    if (pattern.trimmed().isEmpty())
        return ruleError(RuleText::tr("The pattern in parentheses is empty: write %1 alone for "
                                      "every call of the tool.")
                                 .arg(tool));
    if (tool == shellToolName) {
        const Result<ShellPattern> shell = parseShellPattern(pattern);
        if (!shell)
            return shell.error();
    }
    return RulePattern{tool, false, pattern};
}

Result<RuleCall> parseSampleCall(const QString &text,
                                 const QList<std::shared_ptr<const Tool>> &tools,
                                 ShellSyntax shellSyntax)
{
    const QString sample = text.trimmed();
    const qsizetype open = sample.indexOf(u'(');
    const QString name = (open < 0 ? sample : sample.left(open)).trimmed();
    const auto tool = std::find_if(tools.cbegin(), tools.cend(), [&](const auto &candidate) {
        return candidate->name() == name;
    });
    const QString hint = RuleText::tr("Write a call the way rules are written: shell(git diff; rm "
                                      "-rf ~) or read_file(src/main.cpp).");
    if (tool == tools.cend())
        return Error{Error::Configuration,
                     RuleText::tr("There is no tool named \"%1\".").arg(displayedLine(name, 80)),
                     hint};
    if (open >= 0 && !sample.endsWith(u')'))
        return Error{Error::Configuration, RuleText::tr("The call does not end with \")\"."), hint};
    const QString argument = open < 0 ? QString()
                                      : sample.sliced(open + 1, sample.size() - open - 2);
    RuleCall call;
    call.tool = name;
    call.sideEffect = (*tool)->sideEffect();
    call.subject = (*tool)->ruleSubject(
            QJsonObject{{u"command"_s, argument}, {u"path"_s, argument}});
    if (call.subject.kind == RuleSubject::None)
        return call;
    if (argument.trimmed().isEmpty())
        return Error{Error::Configuration,
                     RuleText::tr("%1 needs its command or path in parentheses.").arg(name),
                     hint};
    call.subject.text = argument;
    call.subject.syntax = shellSyntax;
    return call;
}

PermissionPolicy::PermissionPolicy()
    : PermissionPolicy({}, {}, nullptr)
{}

PermissionPolicy::PermissionPolicy(QList<PermissionRule> rules,
                                   PermissionOptions options,
                                   std::shared_ptr<const WorkspaceBoundary> boundary)
    : m_rules(std::move(rules))
    , m_options(options)
    , m_boundary(std::move(boundary))
{
    auto compiled = std::make_shared<CompiledRules>();
    for (const PermissionRule &rule : std::as_const(m_rules))
        compiled->rules.append(compileRule(rule, m_boundary.get()));
    if (m_options.readOnlyCommands) {
        for (const ReadOnlyCommand &command : readOnlyCommands()) {
            compiled->rules.append(
                    compileRule({command.rule, RuleEffect::Allow, RuleOrigin::BuiltIn},
                                m_boundary.get()));
        }
    }
    m_compiled = std::move(compiled);
}

QList<std::pair<PermissionRule, QString>> PermissionPolicy::invalidRules() const
{
    QList<std::pair<PermissionRule, QString>> invalid;
    for (const CompiledRule &rule : m_compiled->rules) {
        if (!rule.isValid())
            invalid.append({rule.rule, rule.error});
    }
    return invalid;
}

PermissionCheck PermissionPolicy::check(const RuleCall &call) const
{
    const QList<CompiledRule> &rules = m_compiled->rules;
    for (const CompiledRule &rule : rules) {
        if (rule.isValid()
            || (!rule.pattern.tool.isEmpty() && !ruleNamesTool(rule.pattern.tool, call.tool)))
            continue;
        PermissionCheck check = decided(
                Verdict::Deny,
                &rule,
                rule.pattern.tool.isEmpty()
                        ? RuleText::tr("The rule %1 does not parse, so it denies every call: %2")
                                  .arg(shownRule(rule.rule.text), rule.error)
                        : RuleText::tr("The rule %1 does not parse, so it denies every call of %2: "
                                       "%3")
                                  .arg(shownRule(rule.rule.text), call.tool, rule.error));
        check.details = {check.explanation};
        return check;
    }
    const Judge judge(rules, m_options, m_boundary.get());
    if (const CompiledRule *deny = judge.anyCallRule(call.tool, RuleEffect::Deny))
        return decided(Verdict::Deny,
                       deny,
                       RuleText::tr("Every call of %1 is denied by %2.")
                               .arg(call.tool, shownRule(deny->rule.text)));
    if (const CompiledRule *ask = judge.anyCallRule(call.tool, RuleEffect::Ask))
        return decided(Verdict::Ask,
                       ask,
                       RuleText::tr("Every call of %1 is asked by %2.")
                               .arg(call.tool, shownRule(ask->rule.text)));
    const CompiledRule *anyCallAllow = judge.anyCallRule(call.tool, RuleEffect::Allow);
    QList<Part> parts;
    if (call.subject.kind == RuleSubject::Command)
        parts = judge.shellParts(call);
    else if (call.subject.kind == RuleSubject::Path)
        parts = {judge.pathPart(call)};
    if (parts.isEmpty()) {
        if (anyCallAllow)
            return decided(Verdict::Allow,
                           anyCallAllow,
                           RuleText::tr("Allowed by %1.").arg(shownRule(anyCallAllow->rule.text)));
        if (call.sideEffect == SideEffect::Read)
            return decided(Verdict::Allow,
                           nullptr,
                           RuleText::tr("Read tools are allowed inside the workspace."));
        // An MCP tool is read only when its server says so and the user trusts the server.
        if (call.tool.startsWith(mcpToolNamePrefix))
            return decided(Verdict::Ask,
                           nullptr,
                           RuleText::tr("Tools of MCP servers ask before they run, unless the "
                                        "server marks them read-only and you trust the server."));
        return decided(Verdict::Ask,
                       nullptr,
                       RuleText::tr("Write tools and the shell ask before they run."));
    }
    return combined(parts, anyCallAllow);
}

PermissionCheck PermissionPolicy::check(const Tool &tool, const QJsonObject &arguments) const
{
    return check(RuleCall{tool.name(), tool.sideEffect(), tool.ruleSubject(arguments)});
}

namespace {

// The exact rule for one simple command; none when no rule can allow it.
std::optional<QString> exactShellRule(const QString &tool, const SimpleCommand &command)
{
    if (!command.assignments.isEmpty() || command.words.isEmpty())
        return command.words.isEmpty() && command.assignments.isEmpty()
                       ? std::optional<QString>(QString())
                       : std::nullopt;
    QStringList words;
    for (qsizetype i = 0; i < command.words.size(); ++i) {
        if (i >= command.literal.size() || !command.literal.at(i))
            return std::nullopt;
        words.append(quotedRuleWord(command.words.at(i)));
    }
    return tool + u'(' + words.join(u' ') + u')';
}

} // namespace

QStringList PermissionPolicy::suggestedRules(const RuleCall &call) const
{
    QStringList suggested;
    const auto add = [&](const QString &rule) {
        if (!rule.isEmpty() && !suggested.contains(rule))
            suggested.append(rule);
    };
    if (call.subject.kind == RuleSubject::None) {
        add(call.tool);
    } else if (call.subject.kind == RuleSubject::Path) {
        const auto access = call.sideEffect == SideEffect::Read ? WorkspaceBoundary::Access::Read
                                                                : WorkspaceBoundary::Access::Write;
        if (!m_boundary)
            return {};
        const PathResolution path = m_boundary->resolve(call.subject.text, access);
        const auto *inside = std::get_if<WorkspacePath>(&path);
        if (!inside)
            return {};
        add(call.tool + u'(' + escapedGlob(inside->relative) + u')');
    } else {
        const ShellParse parse = parseShellCommand(call.subject.text, call.subject.syntax);
        if (!parse.certain)
            return {};
        for (const SimpleCommand &command : parse.commands) {
            const std::optional<QString> rule = exactShellRule(call.tool, command);
            if (!rule)
                return {};
            add(*rule);
            for (const Redirection &redirection : command.redirections) {
                if (!redirection.writesFile)
                    continue;
                const auto target = redirection.targetIsLiteral && m_boundary
                                            ? m_boundary->resolve(redirection.target,
                                                                  WorkspaceBoundary::Access::Write)
                                            : PathResolution(PathRefusal{});
                const auto *inside = std::get_if<WorkspacePath>(&target);
                if (!inside)
                    return {};
                add(writeFileToolName + u'(' + escapedGlob(inside->relative) + u')');
            }
            const CommandView view = viewOf(command, call.subject.syntax, m_options);
            if (call.subject.syntax == ShellSyntax::PowerShell && writesFiles(view.program)) {
                const std::optional<QStringList> targets = powerShellWriteTargets(view);
                for (const QString &target : targets.value_or(QStringList())) {
                    const PathResolution resolution
                            = m_boundary ? m_boundary->resolve(target,
                                                               WorkspaceBoundary::Access::Write)
                                         : PathResolution(PathRefusal{});
                    if (const auto *inside = std::get_if<WorkspacePath>(&resolution))
                        add(writeFileToolName + u'(' + escapedGlob(inside->relative) + u')');
                }
            }
        }
    }
    // Only what allows the very call is offered, alone and with the rules already there (a deny
    // or ask rule that takes the call back leaves nothing to offer).
    QList<PermissionRule> rules;
    for (const QString &rule : std::as_const(suggested))
        rules.append({rule, RuleEffect::Allow, RuleOrigin::App});
    if (withRules(rules).check(call).verdict != Verdict::Allow
        || withRules(m_rules + rules).check(call).verdict != Verdict::Allow)
        return {};
    return suggested;
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
    QStringList rules;
    for (const ReadOnlyCommand &command : readOnlyCommands())
        rules.append(command.rule);
    return rules;
}

// ---- Rule files ---------------------------------------------------------------------------

namespace {

const QList<std::pair<QString, RuleEffect>> &effectKeys()
{
    static const QList<std::pair<QString, RuleEffect>> keys = {
            {u"allow"_s, RuleEffect::Allow},
            {u"ask"_s, RuleEffect::Ask},
            {u"deny"_s, RuleEffect::Deny},
    };
    return keys;
}

QString fileHint(const QString &file)
{
    return RuleText::tr("Fix or remove %1; it holds {\"allow\": [...], \"ask\": [...], \"deny\": "
                        "[...]}, each a list of rules such as \"shell(git status)\".")
            .arg(QDir::toNativeSeparators(file));
}

Result<QList<PermissionRule>> parseRules(const QByteArray &json,
                                         RuleOrigin origin,
                                         const QString &file)
{
    const QString name = file.isEmpty() ? RuleText::tr("The rules")
                                        : QDir::toNativeSeparators(file);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{Error::Configuration,
                     RuleText::tr("%1 is not valid JSON: %2 at byte %3.")
                             .arg(name,
                                  parseError.errorString(),
                                  QString::number(parseError.offset)),
                     fileHint(file)};
    if (!document.isObject())
        return Error{Error::Configuration,
                     RuleText::tr("%1 is not a JSON object.").arg(name),
                     fileHint(file)};
    const QJsonObject object = document.object();
    QList<PermissionRule> rules;
    for (const auto &[key, effect] : effectKeys()) {
        const QJsonValue value = object.value(key);
        if (value.isUndefined())
            continue;
        if (!value.isArray())
            return Error{Error::Configuration,
                         RuleText::tr("In %1, \"%2\" is not a list of rules.").arg(name, key),
                         fileHint(file)};
        const QJsonArray entries = value.toArray();
        for (qsizetype i = 0; i < entries.size(); ++i) {
            if (!entries.at(i).isString())
                return Error{Error::Configuration,
                             RuleText::tr("In %1, entry %2 of \"%3\" is not a string.")
                                     .arg(name, QString::number(i), key),
                             fileHint(file)};
            rules.append({entries.at(i).toString(), effect, origin});
        }
    }
    return rules;
}

} // namespace

Result<QList<PermissionRule>> parseRuleFile(const QByteArray &json, RuleOrigin origin)
{
    return parseRules(json, origin, {});
}

QByteArray ruleFileJson(const QList<PermissionRule> &rules)
{
    QJsonObject object;
    for (const auto &[key, effect] : effectKeys()) {
        QJsonArray texts;
        for (const PermissionRule &rule : rules) {
            if (rule.effect == effect)
                texts.append(rule.text);
        }
        object.insert(key, texts);
    }
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

Result<QList<PermissionRule>> readRuleFile(const QString &path, RuleOrigin origin)
{
    QFile file(path);
    if (!file.exists())
        return QList<PermissionRule>{};
    if (!file.open(QIODevice::ReadOnly))
        return Error{Error::Io,
                     RuleText::tr("The rules file %1 cannot be read: %2")
                             .arg(QDir::toNativeSeparators(path), file.errorString()),
                     fileHint(path)};
    return parseRules(file.readAll(), origin, path);
}

Result<void> writeRuleFile(const QString &path, const QList<PermissionRule> &rules)
{
    const QString folder = QFileInfo(path).absolutePath();
    const auto failed = [&](const QString &why) {
        return Error{Error::Io,
                     RuleText::tr("The rules file %1 cannot be written: %2")
                             .arg(QDir::toNativeSeparators(path), why),
                     RuleText::tr("Check that %1 is writable.")
                             .arg(QDir::toNativeSeparators(folder))};
    };
    if (!QDir().mkpath(folder))
        return failed(RuleText::tr("its folder cannot be created"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failed(file.errorString());
    file.write(ruleFileJson(rules));
    if (!file.commit())
        return failed(file.errorString());
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

QString ruleEffectName(RuleEffect effect)
{
    for (const auto &[name, keyEffect] : effectKeys()) {
        if (keyEffect == effect)
            return name;
    }
    return {};
}

} // namespace AgentLoop
