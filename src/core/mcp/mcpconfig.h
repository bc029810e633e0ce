#pragma once

#include "base/result.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace AgentLoop {

// Where a server's configuration comes from: the app's own file (edited in Settings › MCP
// servers), the workspace's .agentloop/mcp.json, or a file named on the CLI (--mcp-config).
enum class McpConfigOrigin { App, Workspace, File };

// One MCP server as the common `mcpServers` JSON describes it (Claude Desktop, Cursor and others
// write the same shape):
//   stdio: {"command": "npx", "args": ["-y", "pkg"], "env": {"K": "v"}}
//   HTTP:  {"url": "https://…/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
// Fields of Agent Loop's own, which other clients ignore: "disabled" (bool), "trusted" (bool: its
// read-only tools run without asking), "timeoutMs" (per call; default 60 000).
// Values are kept as written, with ${VAR} unexpanded: expansion happens at start
// (expandMcpServer), so that the file and the settings never hold a secret the user did not type.
struct McpServerConfig
{
    enum Transport { Stdio, Http };

    QString name; // the key in mcpServers
    Transport transport = Stdio;
    QString command;
    QStringList args;
    QMap<QString, QString> env; // sorted, so that saving is stable
    QString cwd;                // empty: the workspace
    QString url;
    QMap<QString, QString> headers;
    bool enabled = true;
    bool trusted = false;
    int timeoutMs = 60000;
    McpConfigOrigin origin = McpConfigOrigin::App;
    QString sourcePath; // the file it was read from, for messages

    friend bool operator==(const McpServerConfig &, const McpServerConfig &) = default;
};

// Parses {"mcpServers": {...}} (also accepted: a bare {"name": {...}} map, and VS Code's
// {"servers": {...}}). Unknown fields are ignored; "type" ("stdio", "http", "streamable-http",
// "streamableHttp", "sse") is read when present, otherwise a "url" means HTTP. An entry that is
// neither (no command and no url) or whose fields have the wrong types is an error naming the
// server and the field; nothing of a file with an error is used.
Result<QList<McpServerConfig>> parseMcpServers(const QByteArray &json,
                                               McpConfigOrigin origin,
                                               const QString &sourcePath = {});
// Reads and parses a file; a missing file is an empty list, not an error.
Result<QList<McpServerConfig>> readMcpServersFile(const QString &path, McpConfigOrigin origin);
// {"mcpServers": {...}} as the app writes its own file (indented, sorted by name).
QByteArray serializeMcpServers(const QList<McpServerConfig> &servers);
Result<void> writeMcpServersFile(const QString &path, const QList<McpServerConfig> &servers);

// <workspace>/.agentloop/mcp.json
QString workspaceMcpServersPath(const QString &workspace);

// A workspace's .agentloop/mcp.json as read, for the front end to ask about. The file travels with
// the repository (a cloned project, or a command the model ran, may have written it), so its
// servers never start on their own: the front end shows them and asks the user once per file
// content (sha256), and only then passes them in SessionConfiguration::mcpServers. The CLI uses
// only files named with --mcp-config.
struct McpServersFile
{
    QString path;
    bool exists = false;
    QString sha256; // hex, of the file's bytes; empty when there is no file or it cannot be read
    Result<QList<McpServerConfig>> servers = QList<McpServerConfig>();
};
McpServersFile readWorkspaceMcpServers(const QString &workspace);

// A server's configuration with every ${VAR} in command, args, env values, cwd, url and header
// values replaced from environment ($$ is a literal $; ${VAR:-default} takes the default when VAR
// is unset or empty). When any variable is missing, the error names every missing one and the
// server ("MCP server “github”: GITHUB_TOKEN is not set (used in env.GITHUB_PERSONAL_ACCESS_TOKEN)")
// and the server must not be started.
Result<McpServerConfig> expandMcpServer(const McpServerConfig &server,
                                        const QProcessEnvironment &environment);

// The values a server's env and headers take from variables (${GITHUB_TOKEN}): tokens, as a rule,
// which no tool result may show.
QStringList mcpSecretValues(const McpServerConfig &server, const QProcessEnvironment &environment);
// Of every server, from the environment the app runs in.
QStringList mcpSecretValues(const QList<McpServerConfig> &servers);

// What providers accept as a tool name: ^[a-zA-Z0-9_-]{1,64}$. Other characters become '_'; a
// name longer than 64 characters keeps its start and ends with 8 hex digits of its SHA-256, so two
// long names stay distinct.
QString sanitizedToolName(const QString &name);
// "mcp__<server>__<tool>", sanitised as a whole.
QString mcpToolName(const QString &server, const QString &tool);

} // namespace AgentLoop
