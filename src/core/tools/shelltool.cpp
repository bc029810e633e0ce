#include "tools/shelltool.h"

#include <QCoreApplication>
#include <QDir>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct ShellText
{
    Q_DECLARE_TR_FUNCTIONS(ShellTool)
};

QString shellPhrase(const ShellInfo &shell)
{
    switch (shell.kind) {
    case ShellInfo::PowerShellCore:
    case ShellInfo::WindowsPowerShell:
        return u"PowerShell"_s;
    case ShellInfo::Cmd:
        return u"Windows cmd.exe"_s;
    case ShellInfo::PosixShell:
        break;
    }
    return u"POSIX shell (%1)"_s.arg(shell.displayName);
}

QString descriptionFor(const ShellInfo &shell)
{
    QString description = u"Run a %1 command in the current workspace. Returns its standard "
                          u"output and standard error; a non-zero exit code is reported as "
                          u"shell_failed."_s.arg(shellPhrase(shell));
    if (shell.isPowerShell())
        description += u" The execution policy is Bypass for this process, so npm, npx and .ps1 "
                       u"scripts run."_s;
    // What a model would otherwise expect from `start` or `code .` on a desktop.
    description += u" Programs the command starts in the background or in a window of their own "
                   u"are closed when it ends."_s;
    return description;
}

JsonSchema shellSchema()
{
    // "pattern": "\\S" makes a blank command invalid in the schema the model sees, too.
    return JsonSchema(QJsonObject{
            {u"type"_s, u"object"_s},
            {u"properties"_s,
             QJsonObject{{u"command"_s,
                          QJsonObject{{u"type"_s, u"string"_s},
                                      {u"minLength"_s, 1},
                                      {u"pattern"_s, u"\\S"_s},
                                      {u"description"_s, u"The command line to run."_s}}}}},
            {u"required"_s, QJsonArray{u"command"_s}},
            {u"additionalProperties"_s, false},
    });
}

// Keeps the first and last halves of text when it is longer than limit.
QString capMiddle(const QString &text, qsizetype limit, qint64 totalChars)
{
    // The "[stderr]" separator alone never cuts: the runner keeps the whole output in memory, and
    // writes no file, as long as the command printed at most limit characters.
    if (text.size() <= limit || totalChars <= limit)
        return text;
    const qsizetype half = limit / 2;
    const qint64 cut = totalChars - 2 * half;
    return text.left(half)
           + u"\n[... %1 characters cut; the output had %2 characters in total ...]\n"_s.arg(cut)
                     .arg(totalChars)
           + text.right(half);
}

// cmd.exe and PowerShell end their lines with CRLF: chopping only the LF would leave the model a
// stray CR after the last line (and before "[stderr]").
void chopLineBreak(QString &text)
{
    if (text.endsWith(u"\r\n"_s))
        text.chop(2);
    else if (text.endsWith(u'\n'))
        text.chop(1);
}

QString outputText(const CommandOutcome &outcome, qsizetype limit)
{
    QString out = outcome.standardOutput.render();
    QString err = outcome.standardError.render();
    chopLineBreak(out);
    chopLineBreak(err);
    QString text;
    if (!out.isEmpty() && !err.isEmpty())
        text = out + u"\n[stderr]\n"_s + err;
    else
        text = out.isEmpty() ? err : out;
    if (text.isEmpty())
        return u"(no output)"_s;
    return capMiddle(text,
                     limit,
                     outcome.standardOutput.totalChars + outcome.standardError.totalChars);
}

// Says which streams had lines in the system's legacy code page instead of UTF-8.
QString legacyEncodingNote(const CommandOutcome &outcome)
{
    QStringList notes;
    if (!outcome.standardOutput.legacyEncoding.isEmpty())
        notes << u"standard output"_s;
    if (!outcome.standardError.legacyEncoding.isEmpty())
        notes << u"standard error"_s;
    if (notes.isEmpty())
        return {};
    const QString encoding = outcome.standardOutput.legacyEncoding.isEmpty()
                                     ? outcome.standardError.legacyEncoding
                                     : outcome.standardOutput.legacyEncoding;
    return u"\n[Lines of the %1 that were not UTF-8 were decoded as %2, the system's code page]"_s
            .arg(notes.join(u" and "_s), encoding);
}

// One sentence after the output: where the model (and the user) find all of it.
QString outputFileNote(const OutputFile &file, bool clixmlDecoded)
{
    const QString path = QDir::toNativeSeparators(file.path);
    if (file.complete && clixmlDecoded)
        return u"\n[PowerShell wrote its error records as CLIXML, shown decoded above; the output "
               u"as written (%1 bytes) is in the file %2]"_s.arg(file.bytes)
                       .arg(path);
    if (file.complete)
        return u"\n[The full output (%1 bytes) is in the file %2]"_s.arg(file.bytes).arg(path);
    if (file.path.isEmpty())
        return u"\n[The full output could not be saved to a file: %1]"_s.arg(file.problem);
    return u"\n[Only the first %1 bytes of the output are in the file %2: %3]"_s.arg(file.bytes)
            .arg(path, file.problem);
}

} // namespace

QString spilledOutputPath(const QString &resultContent)
{
    // The last line outputFileNote() writes when the file is complete.
    static const QRegularExpression note(u"\\(\\d+ bytes\\) is in the file (.+)\\]$"_s);
    const qsizetype lineStart = resultContent.lastIndexOf(u'\n') + 1;
    const QRegularExpressionMatch match = note.match(QStringView(resultContent).mid(lineStart));
    return match.hasMatch() ? QDir::fromNativeSeparators(match.captured(1)) : QString();
}

namespace {

class ShellRun final : public ToolRun
{
public:
    ShellRun(CommandRun *command, ShellToolOptions options, ShellInfo shell, QObject *parent)
        : ToolRun(parent)
        , m_command(command)
    {
        m_command->setParent(this);
        connect(m_command,
                &CommandRun::finished,
                this,
                [this, options = std::move(options), shell = std::move(shell)](
                        const CommandOutcome &outcome) {
                    emit finished(ShellTool::resultFor(outcome, options, shell));
                });
    }

    void cancel() override { m_command->cancel(); }

private:
    CommandRun *m_command;
};

} // namespace

ShellTool::ShellTool(std::shared_ptr<CommandRunner> runner, ShellToolOptions options)
    : Tool(u"shell"_s, descriptionFor(runner->shell()), shellSchema(), SideEffect::Execute)
    , m_runner(std::move(runner))
    , m_options(std::move(options))
{}

QString ShellTool::approvalReason() const
{
    // Shown to the user only (the model never sees it), so it is translated.
    return ShellText::tr("%1 command execution requires explicit approval.")
            .arg(shellPhrase(m_runner->shell()));
}

ShellSyntax shellSyntaxOf(const ShellInfo &shell)
{
    if (shell.isPowerShell())
        return ShellSyntax::PowerShell;
    return shell.kind == ShellInfo::Cmd ? ShellSyntax::Cmd : ShellSyntax::Posix;
}

RuleSubject ShellTool::ruleSubject(const QJsonObject &arguments) const
{
    RuleSubject subject;
    subject.kind = RuleSubject::Command;
    subject.text = arguments.value(u"command"_s).toString();
    subject.syntax = shellSyntaxOf(m_runner->shell());
    return subject;
}

CallPreview ShellTool::preview(const QJsonObject &arguments) const
{
    CallPreview preview;
    preview.kind = CallPreview::Command;
    preview.text = arguments.value(u"command"_s).toString();
    return preview;
}

ToolRun *ShellTool::invoke(const PreparedCall &call, QObject *parent) const
{
    CommandRequest request;
    request.command = call.arguments.value(u"command"_s).toString();
    request.workingDirectory = m_options.workspace;
    request.timeout = m_options.timeout;
    request.outputLimit = m_options.outputLimit;
    if (m_options.outputDirectory)
        request.outputDirectory = m_options.outputDirectory();
    request.outputFileStem = call.call.id;
    request.outputFileLimit = m_options.outputFileLimit;
    return new ShellRun(m_runner->start(request, nullptr), m_options, m_runner->shell(), parent);
}

ToolResult ShellTool::resultFor(const CommandOutcome &outcome,
                                const ShellToolOptions &options,
                                const ShellInfo &shell)
{
    QString output = outputText(outcome, options.outputLimit) + legacyEncodingNote(outcome);
    if (!outcome.outputFile.isEmpty())
        output += outputFileNote(outcome.outputFile, outcome.standardError.clixmlDecoded);
    ToolResult result;
    switch (outcome.status) {
    case CommandOutcome::Exited:
        result = outcome.exitCode == 0
                         ? ToolResult::success(output)
                         : ToolResult::failure(u"shell_failed"_s,
                                               u"exit code %1\n%2"_s.arg(outcome.exitCode)
                                                       .arg(output));
        break;
    case CommandOutcome::Crashed:
        result = ToolResult::failure(u"shell_failed"_s,
                                     u"the shell was killed by a signal (exit code %1)\n%2"_s
                                             .arg(outcome.exitCode)
                                             .arg(output));
        break;
    case CommandOutcome::TimedOut:
        result = ToolResult::failure(
                u"shell_timeout"_s,
                u"the command was still running after %1 s and was killed with every process it "
                u"started\n%2"_s
                        .arg(std::chrono::duration_cast<std::chrono::seconds>(options.timeout)
                                     .count())
                        .arg(output));
        break;
    case CommandOutcome::Cancelled:
        result = ToolResult::failure(u"cancelled"_s,
                                     u"the user stopped the run; the command was killed\n%1"_s.arg(
                                             output));
        break;
    case CommandOutcome::FailedToStart:
        result = ToolResult::failure(u"shell_error"_s,
                                     u"could not start %1: %2"_s.arg(shell.displayName,
                                                                     outcome.errorString));
        break;
    }
    result.exitCode = outcome.status == CommandOutcome::Exited ? outcome.exitCode : -1;
    result.durationMs = outcome.durationMs;
    result.outputFile = outcome.outputFile;
    result.runRecord = outcome.record;
    return result;
}

} // namespace AgentLoop
