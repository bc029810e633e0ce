#pragma once

#include "storage/bugbundle.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

class QAction;
class QDialog;
class QFileDialog;
class QMenu;
class QWidget;

namespace AgentLoop {
class AgentSession;
}

namespace Gui {

class Inspector;

// File › Save bug bundle… (Ctrl+Shift+B): the inspector's selected requests (all of them when
// none is selected), the conversation's messages, tool runs, compactions and audit lines, the
// versions and the settings, as one zip (storage/bugbundle.h), every key removed. The files are
// made off the GUI thread, listed with their sizes in a box that says the key was removed, then
// a save dialog asks where; the zip is written (and scanned for the key) off the GUI thread too.
class BugBundles final : public QObject
{
    Q_OBJECT
public:
    BugBundles(AgentLoop::AgentSession &session, Inspector *inspector, QWidget *window);

    void addAction(QMenu *menu);
    QAction *action() const { return m_action; }
    // Every key known besides the current one (other profiles'), removed too.
    void setKnownKeys(const QStringList &keys) { m_knownKeys = keys; }

    // Starts: the files are made, then listed (listDialog()).
    void save();
    // The box listing the files, while it is open; then the save dialog, while that is.
    QDialog *listDialog() const;
    QFileDialog *saveDialog() const;
    // The files the open box lists.
    const QList<AgentLoop::ZipEntry> &entries() const { return m_entries; }
    // Closes whichever is open, saving nothing.
    void closeDialogs();

signals:
    void saved(const QString &path);

private:
    AgentLoop::BugBundleContents contents() const;
    void showList();
    void askWhere();
    void write(const QString &path);

    AgentLoop::AgentSession &m_session;
    Inspector *m_inspector;
    QWidget *m_window;
    QAction *m_action;
    QStringList m_knownKeys;
    QList<AgentLoop::ZipEntry> m_entries;
    QStringList m_secrets;
    int m_requestsIncluded = 0; // of m_requestsShown, the inspector's rows
    int m_requestsShown = 0;
    QPointer<QDialog> m_list;
    QPointer<QFileDialog> m_saveDialog;
    bool m_busy = false;
};

} // namespace Gui
