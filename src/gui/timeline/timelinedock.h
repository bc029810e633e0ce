#pragma once

#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;

namespace AgentLoop {
class RunTimeline;
}

namespace Gui {

class ChatView;
class Inspector;
class TimelinePanel;

// The window's side of the Timeline: a dock (hidden at first) showing the conversation's
// timeline, View › Timeline (Ctrl+Shift+T) to show or hide it, and a click on a box selecting its
// turn in the inspector (shown and raised, on its Requests page) and scrolling the chat to it.
class TimelineDock final : public QObject
{
    Q_OBJECT
public:
    TimelineDock(AgentLoop::RunTimeline *timeline,
                 Inspector *inspector,
                 QDockWidget *inspectorDock,
                 ChatView *chat,
                 QMainWindow *window);

    QDockWidget *dock() const { return m_dock; }
    TimelinePanel *panel() const { return m_panel; }
    // View › Timeline.
    QAction *toggleAction() const;

    // What a click on a box of this turn does.
    void showTurn(int turn);

private:
    Inspector *m_inspector;
    QDockWidget *m_inspectorDock;
    ChatView *m_chat;
    TimelinePanel *m_panel;
    QDockWidget *m_dock;
};

} // namespace Gui
