#pragma once

#include "agentcontroller.h"
#include "appsettings.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <memory>

class QDockWidget;
class QLabel;
class QPushButton;

namespace AgentLoop {
class CommandRunner;
}

namespace Gui {

class ApprovalPrompt;
class ChatModel;
class ChatView;
class Inspector;
class KeyStore;
class LiveAnswer;
class PromptEdit;
class SettingsDialog;
class TurnModel;

// The desktop app's window: the conversation in the middle, the prompt box below it, the
// inspector as a dock, and a status bar that always says what the agent is doing.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    struct Options
    {
        // Runs the shell tool's commands; null: a ProcessCommandRunner.
        std::shared_ptr<AgentLoop::CommandRunner> commandRunner;
        // Where the API key is kept; null: the system's credential store.
        KeyStore *keyStore = nullptr;
        // Whether the window's size and dock layout are restored at start() and saved on close.
        bool persist = true;
    };

    explicit MainWindow(const AppSettings &settings, QWidget *parent = nullptr);
    MainWindow(const AppSettings &settings, Options options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Once shown: restores the window's layout, fetches the key from the credential store, and
    // opens the settings on first start or when no usable provider is configured.
    void start();

    // Reconfigures the agent: provider, turn limit, workspace and tools. While a run is going,
    // the change waits for its end.
    void applySettings(const AppSettings &settings);
    const AppSettings &settings() const { return m_settings; }

    AgentLoop::AgentController &controller() { return m_controller; }
    ChatModel *chatModel() const { return m_chatModel; }
    ChatView *chatView() const { return m_chatView; }
    TurnModel *turnModel() const { return m_turnModel; }
    Inspector *inspector() const { return m_inspector; }
    QDockWidget *inspectorDock() const { return m_inspectorDock; }
    PromptEdit *promptEdit() const { return m_prompt; }
    QPushButton *sendButton() const { return m_send; }
    QPushButton *stopButton() const { return m_stop; }
    // The status bar's account of what the agent is doing.
    QString statusText() const;
    QString turnText() const;
    // The open approval box's prompt, or null.
    ApprovalPrompt *pendingApproval() const;

public slots:
    void send();
    void stop();
    void newConversation();
    void openSettings();
    void showAbout();

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void createActions();
    void createStatusBar();
    void connectController();
    void updateActions();
    void updateStatus();
    void updateTitle();
    void updateDemoLabelColours();
    void setIdleStatus(const QString &text);
    void closeApproval();
    void clearConversation();
    void whenIdle();
    void saveLayout() const;
    void restoreLayout();

    void onStateChanged(AgentLoop::AgentController::State state);
    void onRequestSent(const AgentLoop::Exchange &exchange);
    void onRetryScheduled(qint64 delayMs, int nextAttempt, int maxAttempts);
    void onMessageAppended(const AgentLoop::Message &message);
    void onApprovalRequested(const AgentLoop::ApprovalRequest &request);
    void onToolFinished(const AgentLoop::ToolCall &call, const AgentLoop::ToolResult &result);
    void onFinished();
    void onFailed(const AgentLoop::Error &error);

    // Destroyed after the widgets' children: an approval box that is destroyed with the window
    // finds the controller already gone (see ApprovalPrompt).
    AgentLoop::AgentController m_controller;
    AppSettings m_settings;
    std::optional<AppSettings> m_pendingSettings;
    Options m_options;
    std::unique_ptr<KeyStore> m_ownKeyStore;
    KeyStore *m_keyStore = nullptr;
    bool m_demoNetworkInstalled = false;

    ChatModel *m_chatModel;
    LiveAnswer *m_liveAnswer; // the streamed answer growing in the chat
    TurnModel *m_turnModel;
    ChatView *m_chatView;
    PromptEdit *m_prompt;
    QPushButton *m_send;
    QPushButton *m_stop;
    Inspector *m_inspector;
    QDockWidget *m_inspectorDock;
    QLabel *m_statusLabel;
    QLabel *m_turnLabel;
    QLabel *m_providerLabel;
    QLabel *m_demoLabel;
    QAction *m_newAction = nullptr;
    QAction *m_settingsAction = nullptr;
    QPointer<ApprovalPrompt> m_approval;
    QPointer<SettingsDialog> m_settingsDialog;

    AgentLoop::AgentController::State m_state = AgentLoop::AgentController::State::Idle;
    QString m_idleText;
    QString m_runningTool;
    int m_turn = 0;
    int m_maxTurns = 0;
    int m_currentRequest = 0;        // the inspector row of the request in flight or last answered
    QHash<QString, int> m_callTurns; // tool_call id -> the request that asked for it
    QElapsedTimer m_phaseClock;
    QTimer m_tick;
    // Between a failed attempt and the next one: when it is sent, and which it is.
    std::optional<QDeadlineTimer> m_retryAt;
    int m_retryAttempt = 0;
    int m_retryAttempts = 0;
    bool m_newConversationPending = false;
    bool m_started = false;
};

} // namespace Gui
