#pragma once

#include <QObject>
#include <QPointer>

class QWidget;

namespace AgentLoop {
class AgentSession;
struct ApprovalRequest;
} // namespace AgentLoop

namespace Gui {

class ApprovalPrompt;

// The window's side of approvals: for each call the controller asks about, an approval box
// (ApprovalPrompt) over the window, whose answer goes back to the controller; rules the user
// always allows are saved with the session. One box at a time; it closes, answering no, when the
// run fails or the window asks.
class Approvals final : public QObject
{
    Q_OBJECT
public:
    Approvals(AgentLoop::AgentSession &session, QWidget *window);

    // The open box's prompt, or null.
    ApprovalPrompt *pending() const;
    // Closes the open box, if any; the controller ignores an answer it no longer waits for.
    void close();

private:
    void ask(const AgentLoop::ApprovalRequest &request);

    AgentLoop::AgentSession &m_session;
    QWidget *m_window;
    QPointer<ApprovalPrompt> m_prompt;
};

} // namespace Gui
