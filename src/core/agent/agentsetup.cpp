#include "agent/agentsetup.h"

#include "files/textcodec.h"
#include "files/workspace.h"

#include <QDir>
#include <QFile>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QString defaultSystemPrompt(const QString &workspace, const ShellInfo &shell)
{
    // Protocol text for the model; it stays English whatever the user's language.
    return u"You are a coding agent working in the workspace %1. Prefer the file tools to shell "
           u"commands for reading, searching and editing files: read_file, list_dir, glob and grep "
           u"to look, edit_file to change part of a file and write_file to create or replace one. "
           u"Read a file with read_file before you edit it. Use the shell tool (%2) to run "
           u"programs, builds and tests. Every change and command is shown to the user, who may "
           u"decline it. When the task is done, answer in plain text without calling a tool. "
           u"Answer in the language of the user's request."_s.arg(QDir::toNativeSeparators(
                                                                          workspace),
                                                                  shell.displayName);
}

QString projectInstructionsSection(const QString &workspace)
{
    // As the file tools read: an AGENTS.md that is a link out of the workspace (to a key, say), a
    // FIFO or a device is not read; the model is told so.
    const WorkspaceFileRead read = readWorkspaceFile(WorkspaceBoundary(workspace),
                                                     u"AGENTS.md"_s,
                                                     projectInstructionsLimit);
    if (read.outcome == WorkspaceFileRead::Refused) {
        if (read.refusal.code == u"outside_workspace"_s)
            return u"\n\n[The workspace's AGENTS.md was not read: it leads out of the workspace "
                   u"(a link).]"_s;
        if (read.refusal.code == u"not_regular_file"_s)
            return u"\n\n[The workspace's AGENTS.md was not read: it is not a regular file.]"_s;
    }
    if (read.outcome != WorkspaceFileRead::Read)
        return {};
    const QByteArray &bytes = read.bytes;
    const bool complete = read.complete;
    const DecodedText decoded = decodeText(bytes, complete);
    if (!decoded.ok() || decoded.text.trimmed().isEmpty())
        return {};
    // Protocol text for the model, like the prompt it joins.
    QString section = u"\n\nProject instructions (AGENTS.md in the workspace):\n\n"_s
                      + decoded.text.trimmed();
    if (!complete)
        section += u"\n\n[AGENTS.md is longer: only its first %1 KiB are shown here. Read the rest "
                   u"with read_file if you need it.]"_s.arg(projectInstructionsLimit / 1024);
    return section;
}

void installStandardTools(AgentController &controller,
                          std::shared_ptr<CommandRunner> runner,
                          const ShellToolOptions &options,
                          std::shared_ptr<FileToolContext> files)
{
    const ShellInfo shell = runner->shell();
    controller.addTool(std::make_shared<ShellTool>(std::move(runner), options));
    if (!files)
        files = std::make_shared<FileToolContext>(options.workspace);
    for (const auto &tool : fileTools(std::move(files)))
        controller.addTool(tool);
    AgentOptions agentOptions = controller.options();
    agentOptions.systemPrompt = defaultSystemPrompt(options.workspace, shell);
    if (agentOptions.context.projectInstructions)
        agentOptions.systemPrompt += projectInstructionsSection(options.workspace);
    controller.setOptions(agentOptions);
}

} // namespace AgentLoop
