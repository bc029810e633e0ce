#pragma once

#include "agent/agentcontroller.h"
#include "settings/appsettings.h"
#include "storage/conversationstore.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include <memory>

class QDockWidget;
class QFileDialog;
class QLabel;
class QPushButton;

namespace AgentLoop {
class CommandRunner;
class KeyStore;
}

namespace Gui {

class ApprovalPrompt;
class ChatModel;
class ChatView;
class ConversationListModel;
class ConversationPanel;
class Inspector;
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
        AgentLoop::KeyStore *keyStore = nullptr;
        // Whether the window's size and dock layout are restored at start() and saved on close.
        bool persist = true;
        // Where conversations are saved; empty: ConversationStore::defaultDirectory().
        QString conversationDirectory;
        // Where long command outputs are kept; empty: ConversationStore::defaultOutputDirectory().
        QString outputDirectory;
    };

    enum class ExportFormat { MessagesJson, Markdown };

    explicit MainWindow(const AppSettings &settings, QWidget *parent = nullptr);
    MainWindow(const AppSettings &settings, Options options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Once shown: restores the window's layout, fetches the key from the credential store, and
    // opens the settings on first start or when no usable provider is configured. A task (from
    // the command line) is put in the prompt box, and sent unless the settings come first.
    void start(const QString &task = {});

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

    const AgentLoop::ConversationStore &conversationStore() const { return m_store; }
    ConversationListModel *conversationListModel() const { return m_conversations; }
    ConversationPanel *conversationPanel() const { return m_conversationPanel; }
    QDockWidget *conversationsDock() const { return m_conversationsDock; }
    // The id of the conversation being saved or continued; empty before its first prompt.
    QString currentConversationId() const { return m_conversation.id; }
    // Reads the saved list again.
    void reloadConversations();
    // Writes the conversation shown to path, as the provider's messages array or as Markdown.
    AgentLoop::Result<void> exportConversation(ExportFormat format, const QString &path) const;
    // The file dialog of the export in progress, or null.
    QFileDialog *exportDialog() const;

public slots:
    void send();
    void stop();
    void newConversation();
    // Shows a saved conversation and continues it with the next prompt. Not while a run goes on.
    void openConversation(const QString &id);
    // Asks, then deletes the conversation's file (and starts a new one if it was open).
    void deleteConversation(const QString &id);
    void exportConversationAs(ExportFormat format);
    void openSettings();
    void showAbout();

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void createActions();
    void createStatusBar();
    void createConversationPanel();
    void offerStartupTask(const QString &task);
    void saveMessage(const AgentLoop::Message &message);
    void renameConversation(const QString &id, const QString &title);
    void showHistory(const AgentLoop::History &history);
    void showError(const QString &text);
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
    std::unique_ptr<AgentLoop::KeyStore> m_ownKeyStore;
    AgentLoop::KeyStore *m_keyStore = nullptr;
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
    QAction *m_exportJsonAction = nullptr;
    QAction *m_exportMarkdownAction = nullptr;
    QPointer<ApprovalPrompt> m_approval;
    QPointer<SettingsDialog> m_settingsDialog;
    QPointer<QFileDialog> m_exportDialog;

    // Saving: every message of the history is written as it is appended, from the first prompt.
    AgentLoop::ConversationStore m_store;
    AgentLoop::ConversationWriter m_writer;
    AgentLoop::ConversationHeader m_conversation; // id empty until the file exists
    QList<AgentLoop::Message> m_unsaved;          // a system message waiting for the first prompt
    bool m_saveFailed = false;                    // shown once; this conversation is not saved
    ConversationListModel *m_conversations;
    ConversationPanel *m_conversationPanel;
    QDockWidget *m_conversationsDock;

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
