#pragma once

#include "agent/agentcontroller.h"
#include "tools/commandrunner.h"
#include "tools/filetools.h"
#include "tools/shelltool.h"

#include <memory>

namespace AgentLoop {

// The system prompt of a new conversation: who the model is, where it works, which shell it has.
QString defaultSystemPrompt(const QString &workspace, const ShellInfo &shell);

// The workspace's AGENTS.md (the instructions several agents read) as a section of the system
// prompt: its text, decoded, at most projectInstructionsLimit bytes with a note when cut; empty
// when there is none or it is not text; a note that it was not read when it is a link out of the
// workspace or not a regular file.
inline constexpr qint64 projectInstructionsLimit = 64 * 1024;
QString projectInstructionsSection(const QString &workspace);

// Registers the standard tools (shell and the six file tools) on controller, working in options.workspace, and
// sets the default system prompt, with the workspace's AGENTS.md when the controller's
// ContextOptions::projectInstructions say so. The runner decides how commands really run.
// files: what the file tools share (the boundary, and what the model read in this conversation),
// kept by a caller that installs the tools again for the same workspace; none: a new one for
// options.workspace.
void installStandardTools(AgentController &controller,
                          std::shared_ptr<CommandRunner> runner,
                          const ShellToolOptions &options,
                          std::shared_ptr<FileToolContext> files = nullptr);

} // namespace AgentLoop
