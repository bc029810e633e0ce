#pragma once

#include "base/result.h"
#include "mcp/mcpconfig.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace Gui {

// Where the app keeps its own MCP servers: mcp.json beside the app's permission rules
// (QStandardPaths::AppConfigLocation), in the common {"mcpServers": {...}} format.
QString appMcpServersFilePath();

// The app's servers as the file has them now. An unreadable file is an error (shown on the
// servers page); a missing one is no servers.
AgentLoop::Result<QList<AgentLoop::McpServerConfig>> readAppMcpServers();

// A workspace's .agentloop/mcp.json as the app found it (AgentLoop::readWorkspaceMcpServers()).
// The file travels with the repository: a cloned project may have written it, and its servers are
// programs that would run on this machine. So they are started only when the user trusted exactly
// this content (its SHA-256 is kept in the app's settings file, under mcp/trustedWorkspaceFiles);
// a changed file asks again.
struct WorkspaceMcpServers : AgentLoop::McpServersFile
{
    bool trusted = false;

    // A file with servers the user has not trusted in this content.
    bool needsTrust() const { return exists && servers && !servers->isEmpty() && !trusted; }
};

WorkspaceMcpServers workspaceMcpServers(const QString &workspace);
// Records the content with this hash as trusted for the file at path.
void trustWorkspaceMcpServers(const QString &path, const QString &sha256);
// Writes the workspace's file; when its content was trusted before (or the file is new), the
// new content is trusted too: the user made it here.
AgentLoop::Result<void> writeWorkspaceMcpServers(const QString &workspace,
                                                 const QList<AgentLoop::McpServerConfig> &servers);

// What a session runs: the app's servers, then the workspace's when trusted. A workspace server
// with the name of an app server replaces it (the project knows its own setup best).
QList<AgentLoop::McpServerConfig> mcpServersToRun(const QString &workspace);

// A server's command line or URL, as the servers page shows it: every part through
// displayText(), arguments quoted where they have spaces, env as KEY=VALUE before it.
QString mcpServerLaunchText(const AgentLoop::McpServerConfig &server);
// The same without the environment: the command and its arguments, or the URL.
QString mcpServerCommandText(const AgentLoop::McpServerConfig &server);
// An env or header value as the trust question shows it: the ${VAR} it names kept, every
// character written in the file itself hidden ("••••${GITHUB_TOKEN}" for "Bearer ${GITHUB_TOKEN}").
QString maskedMcpValue(const QString &value);

} // namespace Gui
