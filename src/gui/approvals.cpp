#include "approvals.h"

#include "agent/agentsession.h"
#include "approvalprompt.h"

#include <QMessageBox>

namespace Gui {

Approvals::Approvals(AgentLoop::AgentSession &session, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_window(window)
{
    AgentLoop::AgentController &controller = session.controller();
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
    AgentLoop::AgentController *controller = &m_session.controller();
    RuleSaving saving;
    saving.policy = controller->permissions();
    saving.workspace = m_session.configuration().workspace;
    saving.addRules = [session = QPointer<AgentLoop::AgentSession>(
                               &m_session)](const QStringList &rules, AgentLoop::RuleOrigin scope) {
        return session ? session->addRules(rules, scope)
                       : AgentLoop::Result<void>(AgentLoop::Error{AgentLoop::Error::Agent,
                                                                  tr("The session has ended.")});
    };
    // The tool as the registry has it now: an MCP tool's server, description and schema check.
    const auto tool = controller->tools().snapshot().find(request.toolName);
    m_prompt = ApprovalPrompt::ask(request,
                                   m_window,
                                   std::move(saving),
                                   McpCallDetails::of(tool.get()));
    // The controller as context: an answer that comes while the window is destroyed goes
    // nowhere (the controller is gone by then).
    connect(m_prompt,
            &ApprovalPrompt::decided,
            controller,
            [controller](quint64 id, const AgentLoop::ApprovalAnswer &answer) {
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
