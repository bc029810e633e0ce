#include "compactions.h"

#include "agent/agentsession.h"
#include "base/background.h"
#include "chat/chatview.h"
#include "compactionprompt.h"
#include "settings/appsettings.h"

#include <QAction>
#include <QKeySequence>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>

using AgentLoop::AgentController;

namespace Gui {

Compactions::Compactions(AgentLoop::AgentSession &session, ChatView *chat, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_window(window)
    , m_compactNow(new QAction(tr("Co&mpact now"), this))
    , m_undo(new QAction(tr("&Undo compaction"), this))
{
    m_compactNow->setObjectName(QStringLiteral("compactNowAction"));
    m_compactNow->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    m_compactNow->setEnabled(false); // until a preview says there is something to compact
    m_compactNow->setStatusTip(tr("Summarise older turns and replace long tool outputs by stubs "
                                  "in the requests from now on; the conversation keeps every "
                                  "message"));
    m_undo->setObjectName(QStringLiteral("undoCompactionAction"));
    m_undo->setStatusTip(tr("Send the messages of the latest compaction in full again"));
    window->addAction(m_compactNow); // the shortcut works while the menu bar is hidden too
    chat->addContextActions({m_compactNow, m_undo});

    AgentController &controller = session.controller();
    connect(m_compactNow, &QAction::triggered, &controller, [this] {
        m_session.controller().compactNow();
        updateActions();
    });
    connect(m_undo, &QAction::triggered, &controller, [this] {
        m_session.controller().undoCompaction();
        updateActions();
    });
    connect(&controller, &AgentController::compactionProposed, this, &Compactions::ask);
    connect(&controller, &AgentController::failed, this, &Compactions::close);
    connect(&controller, &AgentController::stateChanged, this, &Compactions::updateActions);
    connect(&controller, &AgentController::budgetChanged, this, &Compactions::updateActions);
    connect(&controller, &AgentController::compacted, this, &Compactions::updateActions);
    connect(&controller, &AgentController::compactionUndone, this, &Compactions::updateActions);
    updateActions();
}

void Compactions::addActions(QMenu *menu)
{
    menu->addAction(m_compactNow);
    menu->addAction(m_undo);
}

void Compactions::setConfirms(bool confirms)
{
    m_session.controller().setConfirmsCompaction(confirms);
}

CompactionPrompt *Compactions::pending() const
{
    return m_prompt;
}

void Compactions::close()
{
    if (!m_prompt)
        return;
    if (QMessageBox *box = m_prompt->messageBox())
        box->reject();
    m_prompt = nullptr;
}

void Compactions::updateActions()
{
    const AgentController &controller = m_session.controller();
    const bool idle = !controller.isRunning();
    const bool canUndo = idle && !controller.compactions().isEmpty();
    m_undo->setEnabled(canUndo);
    m_undo->setToolTip(canUndo ? tr("Send the messages of the latest compaction in full again")
                       : idle  ? tr("No compaction to undo")
                               : tr("Not while the agent is working"));
    const quint64 serial = ++m_previewSerial;
    if (!idle) {
        m_compactNow->setEnabled(false);
        m_compactNow->setToolTip(tr("Not while the agent is working"));
        return;
    }
    // Planned on another thread: it reads the whole history, which may be long.
    AgentLoop::whenFinished(controller.previewCompaction(),
                            this,
                            [this, serial](const AgentLoop::CompactionPreview &preview) {
                                if (serial == m_previewSerial)
                                    showPreview(preview);
                            });
}

void Compactions::showPreview(const AgentLoop::CompactionPreview &preview)
{
    const bool canCompact = preview.summarizedMessages > 0 || preview.stubbedOutputs > 0;
    m_compactNow->setEnabled(canCompact);
    m_compactNow->setToolTip(canCompact ? tr("Compact the conversation now: about %1 → %2 tokens")
                                                  .arg(QLocale().toString(preview.tokensBefore),
                                                       QLocale().toString(preview.tokensAfter))
                                        : tr("Nothing to compact yet: no older turns or long tool "
                                             "outputs"));
}

void Compactions::ask(quint64 proposalId, const AgentLoop::CompactionPreview &preview)
{
    close();
    AgentController *controller = &m_session.controller();
    m_prompt = CompactionPrompt::ask(proposalId, preview, m_window);
    // The controller as context: an answer that comes while the window is destroyed goes
    // nowhere (the controller is gone by then).
    connect(m_prompt,
            &CompactionPrompt::decided,
            controller,
            [this, controller](quint64 id, bool compact, bool dontAskAgain) {
                if (dontAskAgain) {
                    controller->setConfirmsCompaction(false);
                    AppSettings::saveConfirmCompaction(false);
                    emit confirmationTurnedOff();
                }
                controller->resolveCompaction(id, compact);
            });
}

} // namespace Gui
