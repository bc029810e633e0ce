#include "timeline/timelinedock.h"

#include "chat/chatview.h"
#include "inspector/inspector.h"
#include "timeline/timelinepanel.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QTabWidget>

using namespace Qt::StringLiterals;

namespace Gui {

TimelineDock::TimelineDock(AgentLoop::RunTimeline *timeline,
                           Inspector *inspector,
                           QDockWidget *inspectorDock,
                           ChatView *chat,
                           QMainWindow *window)
    : QObject(window)
    , m_inspector(inspector)
    , m_inspectorDock(inspectorDock)
    , m_chat(chat)
    , m_panel(new TimelinePanel(window))
    , m_dock(new QDockWidget(tr("Timeline"), window))
{
    m_dock->setObjectName(u"timelineDock"_s);
    m_dock->setWidget(m_panel);
    m_panel->setTimeline(timeline);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();
    QAction *toggle = m_dock->toggleViewAction();
    toggle->setText(tr("&Timeline"));
    toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    toggle->setStatusTip(tr("Show or hide the requests, approvals and tool runs over time"));
    connect(m_panel, &TimelinePanel::turnActivated, this, &TimelineDock::showTurn);
}

QAction *TimelineDock::toggleAction() const
{
    return m_dock->toggleViewAction();
}

void TimelineDock::showTurn(int turn)
{
    if (m_inspectorDock) {
        m_inspectorDock->show();
        m_inspectorDock->raise();
    }
    m_inspector->pages()->setCurrentIndex(0); // Requests
    m_inspector->selectTurn(turn);
    m_chat->scrollToTurn(turn);
}

} // namespace Gui
