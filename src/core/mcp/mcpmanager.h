#pragma once

#include "mcp/mcpserver.h"
#include "mcp/mcptool.h"

#include <QHash>
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
    // The keys no server may see: what an elicitation answer must not hold either.
    const QStringList &secretValues() const { return m_secretValues; }
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

    // Whether a server is still on its way up (Starting or Restarting): a front end that waits
    // for the servers before the first request (the CLI) waits until this is false, bounded by
    // the servers' start timeout, hearing serverStatusChanged().
    bool isStarting() const;

    // The user's answer to elicitationRequested(): action "accept" (with content), "decline" or
    // "cancel". Ignored when the server (or its process that asked) is gone.
    void answerElicitation(const QString &serverName,
                           quint64 id,
                           const QString &action,
                           const QJsonObject &content = {});

signals:
    // A server's tools or status changed: the session puts tools() into the registry, taking
    // effect from the next request.
    void toolsChanged();
    void serverStatusChanged(const QString &name);
    void elicitationRequested(const AgentLoop::McpElicitation &request);
    // McpServer::elicitationWithdrawn() of the server named.
    void elicitationWithdrawn(const QString &serverName, quint64 id);

private:
    McpServer *createServer(const McpServerConfig &config);
    void removeServer(McpServer *server);
    void rebuildTools();

    QString m_workspace;
    QStringList m_secretValues;
    std::function<QString()> m_outputDirectory;
    QList<McpServerConfig> m_configs;             // as last given
    QList<McpServer *> m_servers;                 // children, in the order of m_configs
    QHash<QString, QStringList> m_configWarnings; // by server: its configuration's problems
    QHash<QString, QStringList> m_warnings;       // by server: the above, and its tools'
    QList<std::shared_ptr<const McpTool>> m_tools;
};

} // namespace AgentLoop
