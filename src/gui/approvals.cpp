#include "approvals.h"

#include "agent/agentcontroller.h"
#include "approvalprompt.h"

#include <QMessageBox>

namespace Gui {

Approvals::Approvals(AgentLoop::AgentController &controller, QWidget *window)
    : QObject(window)
    , m_controller(controller)
    , m_window(window)
{
    connect(&controller, &AgentLoop::AgentController::approvalRequested, this, &Approvals::ask);
    connect(&controller, &AgentLoop::AgentController::failed, this, &Approvals::close);
}

ApprovalPrompt *Approvals::pending() const
{
    return m_prompt;
}

void Approvals::ask(const AgentLoop::ApprovalRequest &request)
{
    close();
    m_prompt = ApprovalPrompt::ask(request, m_window);
    // The controller as context: an answer that comes while the window is destroyed goes
    // nowhere (the controller is gone by then).
    connect(m_prompt,
            &ApprovalPrompt::decided,
            &m_controller,
            [controller = &m_controller](quint64 id, const AgentLoop::ApprovalAnswer &answer) {
                controller->resolveApproval(id, answer);
            });
}

void Approvals::close()
{
    if (!m_prompt)
        return;
    if (QMessageBox *box = m_prompt->messageBox())
        box->reject();
    m_prompt = nullptr;
}

} // namespace Gui
