#pragma once

#include "agent/experiments.h"

#include <QDialog>
#include <QObject>
#include <QPointer>

class QAction;
class QPushButton;

namespace AgentLoop {
class AgentSession;
}

namespace Gui {

class RunFeed;

// Help › Experiments…: the course's three experiments and its five self-test questions, each
// with one sentence on what to look at and a Run button.
class ExperimentsDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit ExperimentsDialog(QWidget *parent = nullptr);

    // The Run button of the experiment (agent/experiments.h).
    QPushButton *runButton(AgentLoop::Experiment::Id id) const;
    // Run buttons are disabled while a run goes on.
    void setRunnable(bool runnable);

signals:
    void runRequested(AgentLoop::Experiment::Id id);

private:
    QList<QPair<AgentLoop::Experiment::Id, QPushButton *>> m_buttons;
};

// The window's side of the experiments: the menu action and its dialog; running one starts a
// fresh conversation in the window (the current one stays saved, as every conversation is) on
// the built-in scripted model, with the experiment's turn limit, and says in the chat what to
// look at. The user's provider, key and settings are never touched (AgentSession::
// runExperiment()); approvals are the usual ones.
class Experiments final : public QObject
{
    Q_OBJECT
public:
    Experiments(AgentLoop::AgentSession &session, RunFeed *feed, QWidget *window);

    QAction *action() const { return m_action; }
    void openDialog();
    // The open dialog, or null.
    ExperimentsDialog *dialog() const { return m_dialog; }
    // Starts it; false while a run goes on.
    bool run(AgentLoop::Experiment::Id id);

private:
    void updateRunnable();

    AgentLoop::AgentSession &m_session;
    RunFeed *m_feed;
    QWidget *m_window;
    QAction *m_action;
    QPointer<ExperimentsDialog> m_dialog;
};

} // namespace Gui
