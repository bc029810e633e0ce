#include "inspector/replayactions.h"

#include "agent/agentsession.h"
#include "agent/conversationfork.h"
#include "base/background.h"
#include "inspector/inspector.h"
#include "inspector/replaydialog.h"
#include "inspector/turnmodel.h"
#include "protocol/requestcheck.h"
#include "showntext.h"

#include <QAction>
#include <QKeySequence>
#include <QPlainTextEdit>

using AgentLoop::AgentController;

namespace Gui {

ReplayActions::ReplayActions(AgentLoop::AgentSession &session, Inspector *inspector, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_inspector(inspector)
    , m_window(window)
    , m_resend(new QAction(tr("&Edit and Resend…"), this))
    , m_fork(new QAction(tr("&Fork from Here"), this))
{
    m_resend->setObjectName(QStringLiteral("editAndResendAction"));
    m_resend->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_resend->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_resend->setToolTip(tr("Edit this request's body and send it on its own, to compare the "
                            "answers; the conversation is not changed (Ctrl+E)"));
    m_resend->setStatusTip(m_resend->toolTip());
    m_fork->setObjectName(QStringLiteral("forkAction"));
    m_fork->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_fork->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_fork->setStatusTip(tr("Start a new conversation whose history is this request's messages"));
    inspector->addRequestActions({m_resend, m_fork});

    connect(m_resend, &QAction::triggered, this, &ReplayActions::editAndResend);
    connect(m_fork, &QAction::triggered, this, &ReplayActions::forkFromHere);
    connect(inspector, &Inspector::rowShown, this, &ReplayActions::updateActions);
    connect(&session.controller(),
            &AgentController::stateChanged,
            this,
            &ReplayActions::updateActions);
    updateActions();
}

ReplayDialog *ReplayActions::dialog() const
{
    return m_dialog;
}

void ReplayActions::updateActions()
{
    const int row = m_inspector->currentRow();
    const bool hasRequest = row >= 0 && m_inspector->model()
                            && !m_inspector->model()->record(row).exchange.requestBody.isEmpty();
    m_resend->setEnabled(hasRequest);
    const bool running = m_session.controller().isRunning();
    m_fork->setEnabled(hasRequest && !running && !m_forking);
    if (running)
        m_fork->setToolTip(tr("Not while the agent is running: stop the run or wait for its end"));
    else
        m_fork->setToolTip(tr("Start a new conversation whose history is this request's "
                              "messages; the next prompt continues from them (Ctrl+Shift+E)"));
}

void ReplayActions::editAndResend()
{
    const int row = m_inspector->currentRow();
    if (row < 0 || !m_inspector->model())
        return;
    const AgentLoop::SessionConfiguration &configuration = m_session.configuration();
    auto *dialog = new ReplayDialog(m_inspector->model()->record(row).exchange,
                                    configuration.provider,
                                    configuration.demoMode,
                                    m_window);
    m_dialog = dialog;
    dialog->show();
    dialog->editor()->setFocus();
}

void ReplayActions::forkFromHere()
{
    const int row = m_inspector->currentRow();
    if (row < 0 || !m_inspector->model() || m_forking || m_session.controller().isRunning())
        return;
    const AgentLoop::RequestCheck check = AgentLoop::checkRequestBody(
            m_inspector->model()->record(row).exchange.requestBody);
    if (!check.history || check.history->isEmpty()) {
        showWarning(m_window,
                    tr("This request's messages cannot be read as a conversation:\n%1")
                            .arg(check.problems.isEmpty() ? QString()
                                                          : check.problems.first().message));
        return;
    }
    AgentLoop::History history = *check.history;
    const QString current = m_session.recorder().header().title;
    QString title;
    if (!current.isEmpty()) {
        title = tr("%1 (fork)").arg(current);
    } else {
        for (const AgentLoop::Message &message : history.messages()) {
            if (message.role() == AgentLoop::Role::User) {
                title = AgentLoop::ConversationRecorder::titleFor(message.content());
                break;
            }
        }
    }
    m_forking = true;
    updateActions();
    const AgentLoop::ConversationStore store = m_session.recorder().store();
    const AgentLoop::ProviderSettings provider = m_session.configuration().provider;
    AgentLoop::whenFinished(
            AgentLoop::runInBackground<AgentLoop::Result<AgentLoop::ConversationHeader>>(
                    [store, history, title, provider](const auto &) {
                        return AgentLoop::forkConversation(store, history, title, provider);
                    }),
            this,
            [this](const AgentLoop::Result<AgentLoop::ConversationHeader> &header) {
                m_forking = false;
                updateActions();
                if (!header) {
                    showWarning(m_window,
                                tr("The fork could not be saved: %1").arg(header.error().toString()));
                    return;
                }
                emit forked(*header);
            });
}

void ReplayActions::closeDialogs()
{
    // Each "Edit and resend" has a dialog of its own, to compare several edits.
    for (ReplayDialog *dialog : m_window->findChildren<ReplayDialog *>(Qt::FindDirectChildrenOnly))
        dialog->close();
}

} // namespace Gui
