#include "testmain.h"
#include "tools/shellsyntax.h"

#include <QTest>

using namespace AgentLoop;

Q_DECLARE_METATYPE(AgentLoop::ShellSyntax)

namespace {

// One command as `<word><word>`: `?` before a word that is not literal, assignments first as
// `{NAME=value}`, then each redirection as `op[target]`, with `!` when it writes a file.
QString describe(const SimpleCommand &command)
{
    QString out;
    for (const QString &assignment : command.assignments)
        out += QLatin1Char('{') + assignment + QLatin1Char('}');
    for (qsizetype i = 0; i < command.words.size(); ++i) {
        if (!command.literal.value(i, false))
            out += QLatin1Char('?');
        out += QLatin1Char('<') + command.words.at(i) + QLatin1Char('>');
    }
    for (const Redirection &redirection : command.redirections) {
        out += QLatin1Char(' ') + redirection.op + QLatin1Char('[')
               + (redirection.targetIsLiteral ? QString() : QStringLiteral("?"))
               + redirection.target + QLatin1Char(']')
               + (redirection.writesFile ? QStringLiteral("!") : QString());
    }
    return out;
}

QString describe(const ShellParse &parse)
{
    QStringList commands;
    for (const SimpleCommand &command : parse.commands)
        commands.append(describe(command));
    return commands.join(QStringLiteral(" ; "));
}

} // namespace

class tst_ShellSyntax : public QObject
{
    Q_OBJECT

private slots:
    void split_data();
    void split();
    void literalFlagsMatchWords();
    void uncertaintyIsExplained();
};

// Every Posix row was checked against `bash -c` (words with printf '<%s>\n'); the PowerShell
// rows follow the language specification, the cmd rows cmd.exe's documented parsing.
void tst_ShellSyntax::split_data()
{
    QTest::addColumn<ShellSyntax>("syntax");
    QTest::addColumn<QString>("command");
    QTest::addColumn<bool>("certain");
    QTest::addColumn<QString>("commands"); // describe(); not compared when uncertain
    QTest::addColumn<bool>("substitution");

    const auto posix = [](const char *name,
                          const char *command,
                          bool certain,
                          const char *commands,
                          bool substitution = false) {
        QTest::newRow(name) << ShellSyntax::Posix << QString::fromUtf8(command) << certain
                            << QString::fromUtf8(commands) << substitution;
    };
    const auto ps = [](const char *name,
                       const char *command,
                       bool certain,
                       const char *commands,
                       bool substitution = false) {
        QTest::newRow(name) << ShellSyntax::PowerShell << QString::fromUtf8(command) << certain
                            << QString::fromUtf8(commands) << substitution;
    };
    const auto cmd = [](const char *name, const char *command, bool certain, const char *commands) {
        QTest::newRow(name) << ShellSyntax::Cmd << QString::fromUtf8(command) << certain
                            << QString::fromUtf8(commands) << false;
    };

    posix("sh: one command", "git status", true, "<git><status>");
    posix("sh: and", "git status && rm -rf x", true, "<git><status> ; <rm><-rf><x>");
    posix("sh: or", "make || rm x", true, "<make> ; <rm><x>");
    posix("sh: semicolon", "a; b", true, "<a> ; <b>");
    posix("sh: background", "a & b", true, "<a> ; <b>");
    posix("sh: newline", "git status\nrm x", true, "<git><status> ; <rm><x>");
    posix("sh: pipe to sh", "curl x | sh", true, "<curl><x> ; <sh>");
    posix("sh: pipe with stderr", "a |& b", true, "<a> ; <b>");
    posix("sh: subshell", "(cd x; rm y)", true, "<cd><x> ; <rm><y>");
    posix("sh: group", "{ rm y; }", true, "<rm><y>");
    posix("sh: negation", "! git diff --quiet", true, "<git><diff><--quiet>");
    posix("sh: command substitution", "$(curl x)", true, "?<$(curl x)> ; <curl><x>", true);
    posix("sh: backquotes", "`rm -rf ~`", true, "?<`rm -rf ~`> ; <rm><-rf>?<~>", true);
    posix("sh: substitution argument",
          "echo $(rm -rf ~)",
          true,
          "<echo>?<$(rm -rf ~)> ; <rm><-rf>?<~>",
          true);
    posix("sh: quoted substitution",
          "echo \"$(rm -rf ~)\"",
          true,
          "<echo>?<$(rm -rf ~)> ; <rm><-rf>?<~>",
          true);
    posix("sh: single quotes keep $()", "echo '$(rm -rf ~)'", true, "<echo><$(rm -rf ~)>");
    posix("sh: process substitution", "diff <(ls a) b", true, "<diff>?<<(ls a)><b> ; <ls><a>", true);
    posix("sh: redirect to file", "git diff > out.txt", true, "<git><diff> >[out.txt]!");
    posix("sh: append", "git log >> log.txt", true, "<git><log> >>[log.txt]!");
    posix("sh: both streams", "make &> build.log", true, "<make> &>[build.log]!");
    posix("sh: clobber", "ls >| x", true, "<ls> >|[x]!");
    posix("sh: stderr to file", "make 2> err", true, "<make> 2>[err]!");
    posix("sh: duplication", "git diff 2>&1", true, "<git><diff> 2>&1[]");
    posix("sh: dev null", "ls > /dev/null", true, "<ls> >[/dev/null]");
    posix("sh: input", "sort < in.txt", true, "<sort> <[in.txt]");
    posix("sh: computed target", "ls > \"$f\"", true, "<ls> >[?$f]!");
    posix("sh: subshell redirected",
          "(cd x && make) > log",
          true,
          "<cd><x> >[log]! ; <make> >[log]!");
    posix("sh: comment", "git status # ; rm x", true, "<git><status>");
    posix("sh: hash inside a word", "echo a#b", true, "<echo><a#b>");
    posix("sh: continuation", "git \\\nstatus", true, "<git><status>");
    posix("sh: ansi-c quote", "echo $'\\x3b'", true, "<echo><;>");
    posix("sh: ansi-c escapes", "printf $'a\\tb\\'c'", true, "<printf><a\tb'c>");
    posix("sh: escaped semicolon", "git status\\;rm", true, "<git><status;rm>");
    posix("sh: double-quote escapes", "echo \"a\\\"b\\$c\\d\"", true, "<echo><a\"b$c\\d>");
    posix("sh: concatenation", "echo a'b'\"c\"", true, "<echo><abc>");
    posix("sh: quoted program", "'git' status", true, "<git><status>");
    posix("sh: assignment prefix", "FOO=1 git status", true, "{FOO=1}<git><status>");
    posix("sh: variable", "rm $X", true, "<rm>?<$X>");
    posix("sh: braced variable", "rm ${X}", true, "<rm>?<${X}>");
    posix("sh: glob", "rm *", true, "<rm>?<*>");
    posix("sh: quoted glob", "rm '*'", true, "<rm><*>");
    posix("sh: brace expansion", "ls {a,b}", true, "<ls>?<{a,b}>");
    posix("sh: find braces", "find . -exec rm {} +", true, "<find><.><-exec><rm><{}><+>");
    posix("sh: tilde", "ls ~/x", true, "<ls>?<~/x>");
    posix("sh: tilde inside", "git diff HEAD~1", true, "<git><diff><HEAD~1>");
    posix("sh: export", "export A=1", true, "<export><A=1>");
    posix("sh: eval is a command", "eval \"rm x\"", true, "<eval><rm x>");
    posix("sh: pipeline redirected",
          "cat x 2>/dev/null | grep y > z",
          true,
          "<cat><x> 2>[/dev/null] ; <grep><y> >[z]!");
    posix("sh: here-string", "cat <<< \"$(rm x)\"", true, "<cat> <<<[?$(rm x)] ; <rm><x>", true);
    posix("sh: escaped program", "$'\\x72\\x6d' -rf x", true, "<rm><-rf><x>");
    posix("sh: quoted program parts", "r\\m \"-\"rf x", true, "<rm><-rf><x>");
    posix("sh: continuation joins a word", "echo a\\\nb", false, "");
    posix("sh: nested backquotes", "echo `echo \\`id\\``", false, "");
    posix("sh: test command",
          "[ -d build ] || mkdir build",
          true,
          "<[><-d><build><]> ; <mkdir><build>");
    posix("sh: test expression",
          "[ \"$a\" != b -a ! -d \"y z\" ]",
          true,
          "<[>?<$a><!=><b><-a><!><-d><y z><]>");
    posix("sh: bracket joined to a word", "[ -f x] && rm y", false, "");
    posix("sh: double brackets", "[[ $x -eq 1 ]] && rm y", false, "");
    posix("sh: here-document", "cat <<EOF\nhi\nEOF", false, "");
    posix("sh: unbalanced quote", "echo 'x", false, "");
    posix("sh: unbalanced double quote", "echo \"x", false, "");
    posix("sh: if", "if true; then rm x; fi", false, "");
    posix("sh: for", "for f in *; do rm $f; done", false, "");
    posix("sh: function", "f() { rm x; }; f", false, "");
    posix("sh: arithmetic", "echo $((x))", false, "");
    posix("sh: expansion operator", "echo ${X:-$(rm x)}", false, "");
    posix("sh: bare assignment", "PATH=/tmp; git status", false, "");
    posix("sh: control character", "git status\rrm x", false, "");
    posix("sh: comment swallowing a newline", "b # c\ncat", true, "<b> ; <cat>");

    ps("ps: one command", "git status", true, "<git><status>");
    ps("ps: semicolon", "git status; Remove-Item x", true, "<git><status> ; <Remove-Item><x>");
    ps("ps: chain", "a && b || c", true, "<a> ; <b> ; <c>");
    ps("ps: pipeline",
       "Get-ChildItem | ForEach-Object { Remove-Item $_ }",
       true,
       "<Get-ChildItem> ; <ForEach-Object>?<{ Remove-Item $_ }> ; <Remove-Item>?<$_>",
       true);
    ps("ps: subexpression",
       "Write-Output $(Remove-Item x)",
       true,
       "<Write-Output>?<$(Remove-Item x)> ; <Remove-Item><x>",
       true);
    ps("ps: array subexpression", "@(Remove-Item x)", false, "");
    ps("ps: array subexpression argument",
       "echo @(Remove-Item x)",
       true,
       "<echo>?<@(Remove-Item x)> ; <Remove-Item><x>",
       true);
    ps("ps: parenthesised argument",
       "Get-Item (Get-Location)",
       true,
       "<Get-Item>?<(Get-Location)> ; <Get-Location>",
       true);
    ps("ps: static method", "[IO.File]::Delete('x')", false, "");
    ps("ps: instance method", "$x.Delete()", false, "");
    ps("ps: call operator",
       "& \"C:\\Program Files\\Git\\bin\\git.exe\" status",
       true,
       "<C:\\Program Files\\Git\\bin\\git.exe><status>");
    ps("ps: computed call", "& $tool status", false, "");
    ps("ps: invoke-expression", "Invoke-Expression \"rm x\"", true, "<Invoke-Expression><rm x>");
    ps("ps: cmd inside", "cmd /c \"del x\"", true, "<cmd></c><del x>");
    ps("ps: powershell inside",
       "powershell -c \"Remove-Item x\"",
       true,
       "<powershell><-c><Remove-Item x>");
    ps("ps: verbatim string", "echo 'it''s'", true, "<echo><it's>");
    ps("ps: expandable string", "echo \"a`tb`$c\"", true, "<echo><a\tb$c>");
    ps("ps: embedded quotes", "echo \"a`\"b\"\"c\"", true, "<echo>?<a\"b\"c>");
    ps("ps: variable in string", "echo \"x $y\"", true, "<echo>?<x $y>");
    ps("ps: splatting", "git @args", true, "<git>?<@args>");
    ps("ps: wildcard", "Remove-Item *.txt", true, "<Remove-Item>?<*.txt>");
    ps("ps: redirect", "git diff > out.txt", true, "<git><diff> >[out.txt]!");
    ps("ps: all streams to null", "git fetch *> $null", true, "<git><fetch> *>[?$null]");
    ps("ps: merge", "git diff 2>&1", true, "<git><diff> 2>&1[]");
    ps("ps: parameter with colon",
       "Get-ChildItem -Recurse:$false",
       true,
       "<Get-ChildItem>?<-Recurse:$false>");
    ps("ps: comment", "git status # ; Remove-Item x", true, "<git><status>");
    ps("ps: numbers by value", "Get-Item 12 1kb 0x10", true, "<Get-Item><12>?<1kb>?<0x10>");
    ps("ps: stop-parsing", "git log --% ; Remove-Item x", false, "");
    ps("ps: assignment", "$x = Remove-Item y", false, "");
    ps("ps: array argument", "Get-Item a,b", false, "");
    ps("ps: smart quote", "echo \u2018x\u2019; Remove-Item y", false, "");
    ps("ps: unbalanced quote", "echo 'x", false, "");
    ps("ps: backtick escape", "echo `$z", false, "");

    cmd("cmd: one command", "dir /b", true, "<dir></b>");
    cmd("cmd: ampersand", "dir & del x", true, "<dir> ; <del><x>");
    cmd("cmd: and or", "a && b || c", true, "<a> ; <b> ; <c>");
    cmd("cmd: pipe", "type x | findstr y", true, "<type><x> ; <findstr><y>");
    cmd("cmd: newline", "dir\ndel x", true, "<dir> ; <del><x>");
    cmd("cmd: escaped ampersand", "dir ^& del x", true, "<dir><&><del><x>");
    cmd("cmd: quoted ampersand", "echo \"a & b\"", true, "<echo><a & b>");
    cmd("cmd: variable", "echo %PATH%", true, "<echo>?<%PATH%>");
    cmd("cmd: delayed variable", "echo !X!", true, "<echo>?<!X!>");
    cmd("cmd: redirect", "dir > out.txt", true, "<dir> >[out.txt]!");
    cmd("cmd: to nul", "dir 2> NUL", true, "<dir> 2>[NUL]");
    cmd("cmd: duplication", "dir 2>&1", true, "<dir> 2>&1[]");
    cmd("cmd: builtin name joined", "echo.hello", false, "");
    cmd("cmd: builtin delimiter", "del ;x", false, "");
    cmd("cmd: quoted delimiter", "del \"a;b\"", true, "<del><a;b>");
    cmd("cmd: block", "(dir & del x)", false, "");
    cmd("cmd: if", "if exist x del x", false, "");
    cmd("cmd: for", "for %f in (*) do del %f", false, "");
    cmd("cmd: unbalanced quote", "echo \"x & del y", false, "");
    cmd("cmd: continuation", "dir ^\ndel x", false, "");
    cmd("cmd: separator in program", "dir/w", false, "");
}

void tst_ShellSyntax::split()
{
    QFETCH(ShellSyntax, syntax);
    QFETCH(QString, command);
    QFETCH(bool, certain);
    QFETCH(QString, commands);
    QFETCH(bool, substitution);

    const ShellParse parse = parseShellCommand(command, syntax);
    QVERIFY2(parse.certain == certain,
             qPrintable(parse.uncertainty + QLatin1String(" / ") + describe(parse)));
    if (!certain)
        return;
    QCOMPARE(describe(parse), commands);
    QCOMPARE(parse.hasSubstitution, substitution);
    bool anyRedirection = false;
    for (const SimpleCommand &simple : parse.commands)
        anyRedirection = anyRedirection || !simple.redirections.isEmpty();
    QCOMPARE(parse.hasRedirection, anyRedirection);
}

void tst_ShellSyntax::literalFlagsMatchWords()
{
    for (const ShellSyntax syntax :
         {ShellSyntax::Posix, ShellSyntax::PowerShell, ShellSyntax::Cmd}) {
        const ShellParse parse = parseShellCommand(QStringLiteral("a b c && d e"), syntax);
        QVERIFY(parse.certain);
        QCOMPARE(parse.commands.size(), 2);
        for (const SimpleCommand &simple : parse.commands) {
            QCOMPARE(simple.literal.size(), simple.words.size());
            QVERIFY(!simple.text.isEmpty());
        }
        QCOMPARE(parse.commands.at(1).text, QStringLiteral("d e"));
    }
}

void tst_ShellSyntax::uncertaintyIsExplained()
{
    const ShellParse parse = parseShellCommand(QStringLiteral("cat <<EOF\nx\nEOF"),
                                               ShellSyntax::Posix);
    QVERIFY(!parse.certain);
    QCOMPARE(parse.uncertainty, QStringLiteral("The command has a here-document."));
    QVERIFY(parseShellCommand(QStringLiteral("git status"), ShellSyntax::Posix)
                    .uncertainty.isEmpty());
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ShellSyntax)
#include "tst_shellsyntax.moc"
