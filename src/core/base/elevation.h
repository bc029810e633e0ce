#pragma once

namespace AgentLoop {

// Whether this process has the administrator's rights: elevated by UAC ("Run as administrator")
// on Windows, root elsewhere. Every command the agent runs, and so every command the user
// approves, has them too.
bool runsElevated();

} // namespace AgentLoop
