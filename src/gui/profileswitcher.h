#pragma once

#include <QObject>
#include <QString>

class QAction;
class QActionGroup;
class QMenu;
class QToolButton;
class QWidget;

namespace Gui {

class AgentStatusBar;
struct AppSettings;

// The main window's quick switch between provider profiles: a button in the status bar and a
// "Provider" menu with one checkable entry per profile, and Ctrl+Shift+P to open it from the
// keyboard. It only says what the user chose (profileChosen); the window applies it.
class ProfileSwitcher final : public QObject
{
    Q_OBJECT
public:
    // The button goes into statusBar, before its provider label.
    ProfileSwitcher(AgentStatusBar *statusBar, QWidget *parent);

    // The profiles of settings, the current one checked.
    void showProfiles(const AppSettings &settings);

    QToolButton *button() const { return m_button; }
    QMenu *menu() const { return m_menu; }
    // Opens the menu at the status bar's button (Ctrl+Shift+P).
    QAction *popupAction() const { return m_popupAction; }
    // The entry of a profile, by id; null when there is none.
    QAction *actionFor(const QString &profileId) const;

signals:
    void profileChosen(const QString &profileId);
    void editRequested();

private:
    QToolButton *m_button;
    QMenu *m_menu;
    QActionGroup *m_group;
    QAction *m_popupAction;
};

} // namespace Gui
