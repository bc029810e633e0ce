#pragma once

namespace AgentLoop {

// The names every front end runs under. QStandardPaths makes the data folder from the first two
// (AppLocalDataLocation: %LOCALAPPDATA%\AgentLoop\AgentLoop on Windows,
// ~/.local/share/AgentLoop/AgentLoop on Linux), where ConversationStore keeps conversations and
// command outputs by default. The app and the CLI use the same, so that a conversation continued
// in the CLI keeps its outputs where the app lists and deletes them. (The settings file and the
// credential store entry have names of their own: openSettingsFile(), KeyStore::defaultService.)
inline constexpr char organizationName[] = "AgentLoop";
inline constexpr char applicationName[] = "AgentLoop";

// Sets the organization, the application name and the version on the running application.
void setApplicationIdentity();

} // namespace AgentLoop
