#pragma once

#include "agent/agentcontroller.h"
#include "tools/commandrunner.h"
#include "tools/shelltool.h"

#include <memory>

namespace AgentLoop {

// The system prompt of a new conversation: who the model is, where it works, which shell it has.
QString defaultSystemPrompt(const QString &workspace, const ShellInfo &shell);

// Registers the standard tools (shell and the six file tools) on controller, working in options.workspace, and
// sets the default system prompt. The runner decides how commands really run.
void installStandardTools(AgentController &controller,
                          std::shared_ptr<CommandRunner> runner,
                          const ShellToolOptions &options);

} // namespace AgentLoop
