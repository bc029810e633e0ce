#pragma once

#include "settings/mcpsettings.h"

#include <QMessageBox>
#include <QObject>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>

namespace Gui {

// Asks whether the MCP servers of a workspace's .agentloop/mcp.json may start: a window-modal
// QMessageBox (opened, never exec'd) naming the file and listing every server with its exact
// command line or URL (through displayText()), with "Start these servers" and "Not now" (the
// default and the escape button). Start records the file's content as trusted (its SHA-256 in
// the app's settings), so that this content is not asked about again; a changed file asks anew.
// answered() is emitted exactly once; closing the box is Not now.
class McpTrustPrompt final : public QObject
{
    Q_OBJECT
public:
    static McpTrustPrompt *ask(const WorkspaceMcpServers &servers, QWidget *parent);
    ~McpTrustPrompt() override;

    QMessageBox *messageBox() const { return m_box; }
    QPlainTextEdit *serversView() const { return m_view; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *notNowButton() const { return m_notNow; }
    const QString &sha256() const { return m_sha256; }

signals:
    void answered(bool trusted);

private:
    McpTrustPrompt(const WorkspaceMcpServers &servers, QMessageBox *box);
    void answer(bool trusted);

    QString m_path;
    QString m_sha256;
    bool m_answered = false;
    QPointer<QMessageBox> m_box;
    QPointer<QPlainTextEdit> m_view;
    QPointer<QPushButton> m_start;
    QPointer<QPushButton> m_notNow;
};

} // namespace Gui
