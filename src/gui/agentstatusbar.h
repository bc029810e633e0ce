#pragma once

#include "agent/agentcontroller.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QStatusBar>
#include <QTimer>

#include <optional>

class QLabel;

namespace AgentLoop {
struct SessionConfiguration;
}

namespace Gui {

// The window's status bar, which always says what the agent is doing: the phase and its
// seconds ("Waiting for the model… 12 s", "Running shell… 3 s"), the countdown to a retry
// ("Retrying in 2 s (attempt 2 of 4)"), or the last idle message; then the turn, the context
// budget of the next request ("≈31.2k / 128k", amber from 80 % of the window, red from 100 %),
// the profile switcher, the provider (its profile, model and host) and a "Demo mode" badge.
class AgentStatusBar final : public QStatusBar
{
    Q_OBJECT
public:
    explicit AgentStatusBar(QWidget *parent = nullptr);

    // Follows the controller's run: its state, turns, requests, retries and tools.
    void follow(const AgentLoop::AgentController &controller);
    // The provider label and the demo badge for this configuration.
    void showConfiguration(const AgentLoop::SessionConfiguration &configuration);
    // Puts the profile switcher's button before the provider label.
    void setProfileSwitcher(QWidget *switcher);
    // What the bar says while no run is going on.
    void setIdleText(const QString &text);
    // What the loop did on its own (AgentController::notice()): shown over the status text for
    // noticeDurationMs (currentMessage()), whatever the agent does meanwhile.
    static constexpr int noticeDurationMs = 8000;
    void showNotice(const QString &text);
    // The conversation was cleared: no turn to show.
    void clearTurn();

    QString statusText() const;
    QString turnText() const;

    // How full the next request's window is, as the budget label shows it.
    enum class BudgetLevel { Normal, Near, Over }; // Near: from 80 %; Over: from 100 %
    Q_ENUM(BudgetLevel)
    void setBudget(const AgentLoop::ContextBudget &budget);
    QString budgetText() const;
    QString budgetToolTip() const;
    BudgetLevel budgetLevel() const { return m_budgetLevel; }
    // The colour the budget label has at a level in this palette (the window text at Normal).
    static QColor budgetColor(BudgetLevel level, const QPalette &palette);

    // The parts of a run the bar follows (follow() connects them; tests call them directly).
    void setState(AgentLoop::AgentController::State state);
    void startTurn(int turn, int maxTurns);
    void requestSent();
    void retryScheduled(qint64 delayMs, int nextAttempt, int maxAttempts);
    void toolStarted(const QString &toolName);
    // The running tool's own report, shown after its seconds until the next tool starts.
    void toolProgressed(const QString &toolName, const AgentLoop::ToolProgress &progress);

protected:
    void changeEvent(QEvent *event) override;

private:
    void update();
    void updateDemoColours();
    void updateBudgetColour();

    QLabel *m_statusLabel;
    QLabel *m_turnLabel;
    QLabel *m_budgetLabel;
    QLabel *m_providerLabel;
    QLabel *m_demoLabel;

    AgentLoop::AgentController::State m_state = AgentLoop::AgentController::State::Idle;
    QString m_idleText;
    QString m_runningTool;
    std::optional<AgentLoop::ToolProgress> m_toolProgress;
    int m_turn = 0;
    int m_maxTurns = 0;
    QElapsedTimer m_phaseClock;
    QTimer m_tick;
    // Between a failed attempt and the next one: when it is sent, and which it is.
    std::optional<QDeadlineTimer> m_retryAt;
    int m_retryAttempt = 0;
    int m_retryAttempts = 0;
    BudgetLevel m_budgetLevel = BudgetLevel::Normal;
};

} // namespace Gui
