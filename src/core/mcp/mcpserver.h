#pragma once

#include "mcp/mcpclient.h"
#include "mcp/mcpconfig.h"

#include <QDateTime>
#include <QObject>
#include <QProcessEnvironment>
#include <QSet>
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
    // The last lines of its standard error (at most mcpStandardErrorLimit), kept across restarts.
    QStringList standardErrorTail() const;
    McpClient *client() const; // null unless Starting or Ready

    // The secret values (the provider's API key) no server process may inherit.
    void setSecretValues(const QStringList &values);
    // Environment the ${VAR}s expand from; by default the process environment.
    void setEnvironment(const QProcessEnvironment &environment);

    // The most a start may take until Ready (negotiation and the first listing); then Failed.
    static constexpr int defaultStartTimeoutMs = 60000;
    void setStartTimeoutMs(int ms);
    int startTimeoutMs() const { return m_startTimeoutMs; }
    // The backoff before restart number n (1-based) after a crash: 1 s, 2 s, 4 s … (at most 60 s).
    static int restartDelayMs(int restart);

    void start();   // also from Failed (resets the crash count)
    void stop();    // Stopped; kills the process tree
    void restart(); // stop, then start

    // The user's answer to elicitationRequested() (McpClient::answerElicitation()); ignored when
    // the process that asked is gone.
    void answerElicitation(quint64 id, const QString &action, const QJsonObject &content = {});

signals:
    void statusChanged(AgentLoop::McpServer::Status status);
    void toolsChanged();
    void standardErrorLine(const QString &line);
    // notifications/message and what the client logs, for the server's page.
    void logMessage(const QString &text);
    void elicitationRequested(const AgentLoop::McpElicitation &request);
    // The elicitation is no longer wanted (McpClient::elicitationWithdrawn(), or the process that
    // asked is gone): the front end closes its form.
    void elicitationWithdrawn(quint64 id);

private:
    void launch();
    void setStatus(Status status, const QString &detail = {});
    void onClosed(quint64 generation, int exitCode, const QString &reason, bool expected);
    void onClientFailed(quint64 generation, const QString &reason);
    void onToolsChanged(quint64 generation);
    void dropClient();
    void appendStandardError(const QString &line);

    McpServerConfig m_config;
    QString m_workspace;
    QStringList m_secretValues;
    QProcessEnvironment m_environment;
    Status m_status = Status::Stopped;
    QString m_statusDetail;
    int m_lastExitCode = -1;
    McpClient::Era m_era = McpClient::Era::Unknown;
    QString m_protocolVersion;
    QList<McpToolInfo> m_tools;
    QSet<quint64> m_openElicitations; // asked by m_client, not answered or withdrawn
    QStringList m_standardError;      // the last standardErrorLimit lines, across restarts
    McpClient *m_client = nullptr;
    quint64 m_generation = 0; // of m_client: signals of a client dropped since are ignored
    bool m_clientReady = false;
    bool m_recovering = false;  // a restart after a crash: a crash before Ready counts as one
    int m_restarts = 0;         // since the last start() or a minute of Ready
    QList<qint64> m_crashTimes; // ms since epoch, within the last minute
    QTimer m_restartTimer;
    QTimer m_startTimer;
    int m_startTimeoutMs = defaultStartTimeoutMs;
};

// How many lines of a server's standard error are kept.
inline constexpr int mcpStandardErrorLimit = 200;

// "starting", "ready", … translated, for the servers' page and agentloop-cli --mcp-list.
QString mcpStatusText(McpServer::Status status);
// The same in English, for the model ("mcp_unavailable: server x is restarting").
QString mcpStatusName(McpServer::Status status);

} // namespace AgentLoop
