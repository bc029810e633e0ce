#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace AgentLoop {
class AgentSession;
struct ConversationHeader;
} // namespace AgentLoop

namespace Gui {

class Inspector;
class ReplayDialog;

// The inspector's actions on the request it shows: "Edit and resend…" (Ctrl+E) opens a
// ReplayDialog with its body; "Fork from here" (Ctrl+Shift+E) saves a new conversation whose
// history is that request's messages, for the window to open and continue (forked()); the
// conversation shown stays saved as it was. Both sit in the request table's context menu and as
// buttons under the request; fork waits for the run to end (its tooltip says so).
class ReplayActions final : public QObject
{
    Q_OBJECT
public:
    ReplayActions(AgentLoop::AgentSession &session, Inspector *inspector, QWidget *window);

    QAction *editAndResendAction() const { return m_resend; }
    QAction *forkAction() const { return m_fork; }
    // The latest "Edit and resend" dialog, while it is open (each has its own, so that several
    // edits can be compared side by side).
    ReplayDialog *dialog() const;
    bool isForking() const { return m_forking; }

    void editAndResend();
    void forkFromHere();
    // Enables the actions for the request shown and the state of the run.
    void updateActions();
    // Closes every "Edit and resend" dialog, abandoning their side requests.
    void closeDialogs();

signals:
    // The fork's file is written: the window opens it (MainWindow::openConversation).
    void forked(const AgentLoop::ConversationHeader &header);

private:
    AgentLoop::AgentSession &m_session;
    Inspector *m_inspector;
    QWidget *m_window;
    QAction *m_resend;
    QAction *m_fork;
    QPointer<ReplayDialog> m_dialog;
    bool m_forking = false;
};

} // namespace Gui
