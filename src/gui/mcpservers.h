#pragma once

#include "mcp/mcpclient.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>

class QToolButton;
class QWidget;

namespace AgentLoop {
class AgentSession;
class McpManager;
} // namespace AgentLoop

namespace Gui {

class McpElicitationDialog;
class McpTrustPrompt;

// The window's side of the session's MCP servers:
// - a status bar button, "MCP: 2/3 ready" (red when one failed, amber while one starts), whose
//   tooltip names every server that is not ready and why, and which opens Settings › MCP servers;
// - the question whether a workspace's .agentloop/mcp.json may start its servers (McpTrustPrompt),
//   asked once per file content in this run of the app, and never answered by itself: nothing of
//   that file starts before "Start these servers";
// - a server's questions to the user (elicitation) as McpElicitationDialog, each answered through
//   the manager, closed when the server withdraws it.
class McpServers final : public QObject
{
    Q_OBJECT
public:
    McpServers(AgentLoop::AgentSession &session, QWidget *window);

    QToolButton *statusButton() const { return m_button; }
    QString statusText() const;
    QString statusToolTip() const;

    // Asks about the workspace's servers when its file lists servers whose present content is
    // not trusted and was not asked about yet.
    void checkWorkspace(const QString &workspace);
    McpTrustPrompt *trustPrompt() const;
    // The servers' open questions, oldest first.
    QList<McpElicitationDialog *> elicitations() const;
    // Closes the trust question (not now) and every question of a server (cancel).
    void closeDialogs();

signals:
    // The button was clicked.
    void settingsRequested();
    // The user trusted a workspace's servers: the session's servers are to be set anew.
    void serversTrusted();

private:
    AgentLoop::McpManager &manager() const;
    void showElicitation(const AgentLoop::McpElicitation &request);
    void withdrawElicitation(const QString &serverName, quint64 id);
    void updateStatus();

    AgentLoop::AgentSession &m_session;
    QWidget *m_window;
    QToolButton *m_button;
    QPointer<McpTrustPrompt> m_trustPrompt;
    QList<QPointer<McpElicitationDialog>> m_elicitations;
    // Files whose content the user was asked about in this run: "<path>\n<sha256>".
    QSet<QString> m_asked;
};

} // namespace Gui
