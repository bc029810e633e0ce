#pragma once

#include "mcp/mcpclient.h"
#include "mcp/mcpconfig.h"

#include <QDateTime>
#include <QObject>
#include <QTimer>

namespace AgentLoop {

// One configured MCP server and its life: start (expanding ${VAR}s first: a missing variable
// fails it before anything runs), negotiate, list tools, and on a crash restart with backoff
// (1 s, 2 s, 4 s …), giving up after 3 crashes within a minute and saying so.
class McpServer final : public QObject
{
    Q_OBJECT
public:
    enum class Status { Disabled, Starting, Ready, Failed, Restarting, Stopped };
    Q_ENUM(Status)

    McpServer(McpServerConfig config, QString workspace, QObject *parent = nullptr);
    ~McpServer() override;

    const McpServerConfig &config() const;
    Status status() const;
    // Failed: why, in one sentence (translated), e.g. "exited with code 1", "MCP server “x”:
    // GITHUB_TOKEN is not set", "stopped after 3 crashes in a minute".
    QString statusDetail() const;
    int lastExitCode() const; // -1 when none
    McpClient::Era era() const;
    QString protocolVersion() const; // empty until negotiated
    QList<McpToolInfo> tools() const;
    // Schemas the validator cannot handle, by tool name (keyword names), for the server's page.
    QStringList standardErrorTail() const;
    McpClient *client() const; // null unless Starting or Ready

    // The secret values (the provider's API key) no server process may inherit.
    void setSecretValues(const QStringList &values);
    // Environment the ${VAR}s expand from; by default the process environment.
    void setEnvironment(const QProcessEnvironment &environment);

    void start();   // also from Failed (resets the crash count)
    void stop();    // Stopped; kills the process tree
    void restart(); // stop, then start

signals:
    void statusChanged(AgentLoop::McpServer::Status status);
    void toolsChanged();
    void standardErrorLine(const QString &line);
    void elicitationRequested(const AgentLoop::McpElicitation &request);
};

} // namespace AgentLoop
