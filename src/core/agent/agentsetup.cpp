#include "agent/agentsetup.h"

#include <QDir>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QString defaultSystemPrompt(const QString &workspace, const ShellInfo &shell)
{
    // Protocol text for the model; it stays English whatever the user's language.
    return u"You are a coding agent working in the workspace %1. Use the shell tool (%2) when you "
           u"need to look at or change files or run programs; every call is shown to the user, "
           u"who may decline it. When the task is done, answer in plain text without calling a "
           u"tool. Answer in the language of the user's request."_s.arg(QDir::toNativeSeparators(
                                                                                workspace),
                                                                        shell.displayName);
}

void installStandardTools(AgentController &controller,
                          std::shared_ptr<CommandRunner> runner,
                          const ShellToolOptions &options)
{
    const ShellInfo shell = runner->shell();
    controller.addTool(std::make_shared<ShellTool>(std::move(runner), options));
    AgentOptions agentOptions = controller.options();
    agentOptions.systemPrompt = defaultSystemPrompt(options.workspace, shell);
    controller.setOptions(agentOptions);
}

} // namespace AgentLoop
