#pragma once

#include "mcp/mcpserver.h"
#include "mcp/mcptool.h"

#include <QObject>

#include <memory>

namespace AgentLoop {

// Every MCP server of a session, and the tools they offer as McpTools.
// setServers() starts the enabled ones (a server whose configuration did not change keeps
// running); tools() is what the registry gets: at most mcpToolsPerServerLimit per server (the rest
// dropped with a warning on the server's page), names unique (a clash gets a numbered suffix).
class McpManager final : public QObject
{
    Q_OBJECT
public:
    explicit McpManager(QObject *parent = nullptr);
    ~McpManager() override;

    void setWorkspace(const QString &workspace);
    void setSecretValues(const QStringList &values);
    void setOutputDirectory(std::function<QString()> directory);
    void setServers(const QList<McpServerConfig> &servers);
    QList<McpServer *> servers() const;
    McpServer *server(const QString &name) const;

    // The current tools of every ready server (built anew after each toolsChanged()).
    QList<std::shared_ptr<const McpTool>> tools() const;
    // Warnings per server (too many tools, names changed by sanitising, schemas not enforced).
    QStringList warnings(const QString &serverName) const;

    // Stops every server and waits for nothing: their trees are killed.
    void stopAll();

signals:
    // A server's tools or status changed: the session puts tools() into the registry, taking
    // effect from the next request.
    void toolsChanged();
    void serverStatusChanged(const QString &name);
    void elicitationRequested(const AgentLoop::McpElicitation &request);
};

} // namespace AgentLoop
