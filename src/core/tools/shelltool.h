#pragma once

#include "tools/commandrunner.h"
#include "tools/tool.h"

#include <chrono>
#include <functional>
#include <memory>

namespace AgentLoop {

struct ShellToolOptions
{
    QString workspace; // the commands' working directory
    std::chrono::milliseconds timeout{std::chrono::seconds(120)};
    qsizetype outputLimit = 30000; // characters of output the model receives
    // The folder for the whole output of a command that printed more than outputLimit, asked at
    // each call so that it can follow the conversation; unset or empty: no file is written.
    std::function<QString()> outputDirectory;
    qint64 outputFileLimit = qint64(1) << 30; // bytes; a runaway command must not fill the disk
};

// The language the shell's commands are written in.
ShellSyntax shellSyntaxOf(const ShellInfo &shell);

// The file a shell result names as holding the command's whole output (its last line says so),
// or empty when it names none or only a part of the output went there.
QString spilledOutputPath(const QString &resultContent);

// The `shell` tool: runs one command with the machine's shell after the user approves it.
// There is deliberately no blacklist of commands (a rewrite gets around any list and leaves a
// false sense of safety); the approval is the boundary.
class ShellTool final : public Tool
{
public:
    ShellTool(std::shared_ptr<CommandRunner> runner, ShellToolOptions options);

    QString approvalReason() const override;
    // The command line itself, exactly what the shell receives.
    CallPreview preview(const QJsonObject &arguments) const override;
    ToolRun *invoke(const PreparedCall &call, QObject *parent) const override;
    // The command, in the syntax of the shell that runs it.
    RuleSubject ruleSubject(const QJsonObject &arguments) const override;

    const ShellToolOptions &options() const { return m_options; }
    ShellInfo shell() const { return m_runner->shell(); }

    // The model's view of a finished command: output capped to outputLimit, a stable error code
    // first when it did not succeed, and a last line naming the file with the whole output.
    static ToolResult resultFor(const CommandOutcome &outcome,
                                const ShellToolOptions &options,
                                const ShellInfo &shell);

private:
    std::shared_ptr<CommandRunner> m_runner;
    ShellToolOptions m_options;
};

} // namespace AgentLoop
