#pragma once

#include "mcp/mcpconfig.h"
#include "mcp/mcpserver.h"

#include <QMetaObject>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <functional>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTreeWidget;
class QTreeWidgetItem;

namespace AgentLoop {
class McpManager;
}

namespace Gui {

class McpImportDialog;
class McpServerDialog;
class McpTrustPrompt;

// The settings' MCP servers page: every server of the app's mcp.json (appMcpServersFilePath())
// and of the workspace's .agentloop/mcp.json (marked as this workspace's), each with its enabled
// box, its state as the session's McpManager reports it (an icon and a colour: starting, ready,
// failed with its exit code and reason, restarting, disabled, stopped; a workspace's servers the
// user has not trusted are "not trusted"), its protocol version and era, and its tools. The
// selected server shows its command line or URL, its tools (name, read or execute, whether a call
// asks, description), its warnings (too many tools, schemas not enforced), the "Trusted" switch
// and the last 200 lines of its standard error, following the manager as they change.
//
// Unlike the other pages, a change here is saved at once (writeMcpServersFile) and
// serversChanged() follows: the window then gives the session its new servers. Restart acts on
// the running server directly. Everything a server or a file says is shown through
// displayText(), bounded.
class McpServersPage final : public QWidget
{
    Q_OBJECT
public:
    // manager: the session's (null: the states are not known, every server is "not started").
    McpServersPage(const QString &workspace,
                   const AgentLoop::McpManager *manager,
                   QWidget *parent = nullptr);
    ~McpServersPage() override;

    void setWorkspace(const QString &workspace);
    QString workspace() const { return m_workspace; }
    // Reads both files again.
    void reload();

    // The servers listed, in order (the app's, then the workspace's).
    const QList<AgentLoop::McpServerConfig> &servers() const { return m_servers; }
    void selectServer(const QString &name,
                      AgentLoop::McpConfigOrigin origin = AgentLoop::McpConfigOrigin::App);
    // The selected server, or null.
    const AgentLoop::McpServerConfig *selectedServer() const;

    // What the buttons do.
    void addServer();
    void editSelectedServer();
    void removeSelectedServer();
    void restartSelectedServer();
    void setSelectedEnabled(bool enabled);
    void setSelectedTrusted(bool trusted);
    void importServers();
    // Asks whether this workspace's servers may start (McpTrustPrompt).
    void trustWorkspace();

    // What the page shows, for the tests and the screenshots.
    QTreeWidget *serverList() const { return m_list; }
    QTableWidget *toolTable() const { return m_tools; }
    QPlainTextEdit *standardErrorView() const { return m_standardError; }
    QTabWidget *detailTabs() const { return m_tabs; }
    QCheckBox *trustedCheck() const { return m_trusted; }
    QPushButton *addButton() const { return m_add; }
    QPushButton *editButton() const { return m_edit; }
    QPushButton *removeButton() const { return m_remove; }
    QPushButton *restartButton() const { return m_restart; }
    QPushButton *enableButton() const { return m_enable; }
    QPushButton *importButton() const { return m_import; }
    QPushButton *trustWorkspaceButton() const { return m_trustWorkspace; }
    // The state of a listed server as its row says it, and the selected server's details.
    QString stateText(const QString &name,
                      AgentLoop::McpConfigOrigin origin = AgentLoop::McpConfigOrigin::App) const;
    QString detailStateText() const;
    QString protocolText() const;
    QString launchText() const;
    QString warningText() const;
    QString messageText() const;
    // The open dialogs, or null.
    McpServerDialog *serverDialog() const;
    McpImportDialog *importDialog() const;
    McpTrustPrompt *trustPrompt() const;

signals:
    // A servers file was written, or this workspace's servers were trusted: the session's servers
    // are to be set anew.
    void serversChanged();

protected:
    void changeEvent(QEvent *event) override;

private:
    void openServerDialog(int index);
    bool save(AgentLoop::McpConfigOrigin origin, const QList<AgentLoop::McpServerConfig> &servers);
    // Changes the selected server in its file.
    void changeSelected(const std::function<void(AgentLoop::McpServerConfig &)> &change);
    QList<AgentLoop::McpServerConfig> serversOf(AgentLoop::McpConfigOrigin origin) const;
    void fillList();
    void scheduleRefresh();
    void refresh();
    void refreshDetails();
    void followStandardError(AgentLoop::McpServer *server);
    void updateButtons();
    void showMessages();
    int selectedIndex() const;
    int indexOf(const QString &name, AgentLoop::McpConfigOrigin origin) const;
    // The running server of a listed one, or null (not started, not trusted, replaced).
    AgentLoop::McpServer *liveServer(int index) const;
    bool isReplaced(int index) const;
    QString rowState(int index, QColor *color) const;

    QPointer<const AgentLoop::McpManager> m_manager;
    QString m_workspace;
    QList<AgentLoop::McpServerConfig> m_servers;
    QString m_appError;
    QString m_workspaceError;
    QString m_saveError;
    bool m_workspaceTrusted = false;
    bool m_workspaceHasServers = false;

    QTreeWidget *m_list;
    QPushButton *m_add;
    QPushButton *m_edit;
    QPushButton *m_remove;
    QPushButton *m_restart;
    QPushButton *m_enable;
    QPushButton *m_import;
    QPushButton *m_trustWorkspace;
    QLabel *m_message;
    QLabel *m_files;
    QLabel *m_state;
    QLabel *m_launch;
    QLabel *m_protocol;
    QLabel *m_warnings;
    QCheckBox *m_trusted;
    QTabWidget *m_tabs;
    QTableWidget *m_tools;
    QPlainTextEdit *m_standardError;
    QWidget *m_details;
    QTimer m_refreshTimer;
    QPointer<AgentLoop::McpServer> m_standardErrorSource;
    QMetaObject::Connection m_standardErrorConnection;
    QPointer<McpServerDialog> m_serverDialog;
    QPointer<McpImportDialog> m_importDialog;
    QPointer<McpTrustPrompt> m_trustPrompt;
};

// "2025-11-25 (legacy)", "2026-07-28 (modern)"; empty when not negotiated.
QString mcpProtocolText(AgentLoop::McpClient::Era era, const QString &version);

} // namespace Gui
