#include "profileswitcher.h"

#include "agentstatusbar.h"
#include "base/displaytext.h"
#include "settings/appsettings.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QToolButton>

using namespace Qt::StringLiterals;

namespace Gui {

ProfileSwitcher::ProfileSwitcher(AgentStatusBar *statusBar, QWidget *parent)
    : QObject(parent)
    , m_button(new QToolButton(statusBar))
    , m_menu(new QMenu(tr("&Provider"), parent))
    , m_group(new QActionGroup(this))
    , m_popupAction(new QAction(tr("Switch &Profile…"), this))
{
    m_button->setObjectName(u"profileSwitcher"_s);
    m_button->setAccessibleName(tr("Provider profile"));
    m_button->setToolTip(tr("Switch the provider profile (Ctrl+Shift+P)"));
    m_button->setAutoRaise(true);
    m_button->setPopupMode(QToolButton::InstantPopup);
    m_button->setMenu(m_menu);
    m_menu->setObjectName(u"profileMenu"_s);
    m_group->setExclusive(true);
    m_popupAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_popupAction->setStatusTip(tr("Choose the provider profile the next run uses"));
    // popup(), not QToolButton::showMenu(), which waits in a nested event loop.
    connect(m_popupAction, &QAction::triggered, this, [this] {
        const QPoint above(0, -m_menu->sizeHint().height());
        m_menu->popup(m_button->mapToGlobal(above));
        if (QAction *checked = m_group->checkedAction())
            m_menu->setActiveAction(checked);
    });
    statusBar->setProfileSwitcher(m_button);
}

void ProfileSwitcher::showProfiles(const AppSettings &settings)
{
    m_menu->clear();
    for (QAction *action : m_group->actions())
        m_group->removeAction(action);
    const QString current = settings.currentProfile().id;
    for (const AgentLoop::ProviderProfile &profile : settings.allProfiles()) {
        QAction *action = m_menu->addAction(AgentLoop::displayedLine(profile.name, 100));
        action->setCheckable(true);
        action->setChecked(!settings.demoMode && profile.id == current);
        action->setData(profile.id);
        m_group->addAction(action);
        const QString id = profile.id;
        connect(action, &QAction::triggered, this, [this, id] { emit profileChosen(id); });
    }
    m_menu->addSeparator();
    m_menu->addAction(tr("&Edit Profiles…"), this, &ProfileSwitcher::editRequested);
    m_button->setText(settings.demoMode
                              ? tr("Provider")
                              : AgentLoop::displayedLine(settings.currentProfile().name, 60));
}

QAction *ProfileSwitcher::actionFor(const QString &profileId) const
{
    for (QAction *action : m_group->actions()) {
        if (action->data().toString() == profileId)
            return action;
    }
    return nullptr;
}

} // namespace Gui
