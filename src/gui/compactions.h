#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QMenu;
class QWidget;

namespace AgentLoop {
class AgentSession;
struct CompactionPreview;
} // namespace AgentLoop

namespace Gui {

class ChatView;
class CompactionPrompt;

// The window's side of compaction: "Compact now" and "Undo compaction" (in a menu and the chat's
// context menu), enabled only when they can act, and, before an automatic compaction while
// confirmation is on, the box that asks (CompactionPrompt), whose answer goes back to the
// controller. "Don't ask again" there saves the setting off and says so (confirmationTurnedOff).
class Compactions final : public QObject
{
    Q_OBJECT
public:
    Compactions(AgentLoop::AgentSession &session, ChatView *chat, QWidget *window);

    // Adds both actions to menu and to the chat view's context menu.
    void addActions(QMenu *menu);
    QAction *compactNowAction() const { return m_compactNow; }
    QAction *undoAction() const { return m_undo; }

    // Whether an automatic compaction is asked about first (context/confirmCompaction).
    void setConfirms(bool confirms);
    // The open box's prompt, or null.
    CompactionPrompt *pending() const;
    // Closes the open box, if any, as "send without compacting".
    void close();
    // Enables the actions for what the conversation has now.
    void updateActions();

signals:
    // The user ticked "Don't ask again"; the setting is saved off already.
    void confirmationTurnedOff();

private:
    void ask(quint64 proposalId, const AgentLoop::CompactionPreview &preview);
    void showPreview(const AgentLoop::CompactionPreview &preview);

    AgentLoop::AgentSession &m_session;
    QWidget *m_window;
    QAction *m_compactNow;
    QAction *m_undo;
    QPointer<CompactionPrompt> m_prompt;
    quint64 m_previewSerial = 0; // the latest preview asked for; older answers are stale
};

} // namespace Gui
