#pragma once

#include "aboutbox.h"
#include "agent/agentsession.h"
#include "agentstatusbar.h"
#include "approvals.h"
#include "base/elevation.h"
#include "bugbundles.h"
#include "chat/promptbar.h"
#include "chat/runfeed.h"
#include "compactions.h"
#include "conversations/conversationactions.h"
#include "profileswitcher.h"
#include "rawoutputs.h"
#include "settings/appsettings.h"

#include <QMainWindow>
#include <QPointer>

#include <memory>

class QDockWidget;
class QFileDialog;
class QPushButton;

namespace AgentLoop {
class KeyStore;
}

namespace Gui {

class ApprovalPrompt;
class ChatView;
class ConversationListModel;
class ConversationPanel;
class Experiments;
class Inspector;
class McpServers;
class PromptEdit;
class ReplayActions;
class SettingsDialog;
class TimelineDock;

// The desktop app's window: the conversation in the middle, the prompt bar below it, the
// inspector and the saved conversations as docks, and a status bar that always says what the
// agent is doing. It assembles those parts around one AgentSession, and owns start-up, menus,
// approvals and closing.
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
        // Whether the window warns that the app runs as administrator (root); this process's.
        bool runsElevated = AgentLoop::runsElevated();
    };

    using ExportFormat = ConversationActions::ExportFormat;

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

    AgentLoop::AgentController &controller() { return m_session.controller(); }
    ChatModel *chatModel() const { return m_feed->chatModel(); }
    const RunFeed *runFeed() const { return m_feed; }
    ChatView *chatView() const { return m_chatView; }
    TurnModel *turnModel() const { return m_feed->turnModel(); }
    Inspector *inspector() const { return m_inspector; }
    QDockWidget *inspectorDock() const { return m_inspectorDock; }
    PromptEdit *promptEdit() const { return m_promptBar->edit(); }
    QPushButton *sendButton() const { return m_promptBar->sendButton(); }
    QPushButton *stopButton() const { return m_promptBar->stopButton(); }
    // The status bar's account of what the agent is doing.
    QString statusText() const { return m_statusBar->statusText(); }
    QString turnText() const { return m_statusBar->turnText(); }
    // The provider profile switch in the status bar and the Provider menu.
    ProfileSwitcher *profileSwitcher() const { return m_profileSwitcher; }
    // Makes a profile the current one: saved at once, used from the next run (a run in progress
    // keeps its provider).
    void switchProfile(const QString &profileId);
    // The open approval box's prompt, or null.
    ApprovalPrompt *pendingApproval() const { return m_approvals->pending(); }
    // "Compact now", "Undo compaction" and the box that asks before an automatic compaction.
    Compactions *compactions() const { return m_compactions; }
    // File › Save bug bundle…
    BugBundles *bugBundles() const { return m_bugBundles; }
    // The inspector's "Edit and resend…" and "Fork from here".
    ReplayActions *replayActions() const { return m_replayActions; }
    // The Timeline dock (View › Timeline).
    TimelineDock *timelineDock() const { return m_timeline; }
    // "Show raw output…" of a command result in the chat.
    RawOutputs *rawOutputs() const { return m_rawOutputs; }
    // Help › Experiments…: the course's experiments on the scripted model.
    Experiments *experiments() const { return m_experiments; }
    // The MCP servers' status button, the workspace's trust question and the servers' questions.
    McpServers *mcpServers() const { return m_mcpServers; }
    // The open settings dialog, or null.
    SettingsDialog *settingsDialog() const;

    const AgentLoop::ConversationStore &conversationStore() const
    {
        return m_session.recorder().store();
    }
    ConversationListModel *conversationListModel() const { return m_conversations; }
    ConversationPanel *conversationPanel() const { return m_conversationPanel; }
    QDockWidget *conversationsDock() const { return m_conversationsDock; }
    // The id of the conversation being saved or continued; empty before its first prompt.
    QString currentConversationId() const { return m_session.recorder().header().id; }
    // Reads the saved list again, on another thread (as at start).
    void reloadConversations() { m_conversationActions->reload(); }
    bool isListingConversations() const { return m_conversationActions->isListing(); }
    AgentLoop::Result<void> exportConversation(ExportFormat format, const QString &path) const
    {
        return m_conversationActions->exportTo(format, path);
    }
    QFileDialog *exportDialog() const { return m_conversationActions->exportDialog(); }

public slots:
    void send() { m_promptBar->send(); }
    void stop() { m_promptBar->stop(); }
    void newConversation() { m_feed->newConversation(); }
    // Shows a saved conversation and continues it with the next prompt. Not while a run goes on.
    // It is read on another thread: conversationOpened() follows, or a warning.
    void openConversation(const QString &id);
    // Asks, then deletes the conversation's file (and starts a new one if it was open).
    void deleteConversation(const QString &id) { m_conversationActions->remove(id); }
    void exportConversationAs(ExportFormat format) { m_conversationActions->exportAs(format); }
    void openSettings();
    // The settings, on their MCP servers page.
    void openMcpSettings();
    void showAbout() { showAboutBox(this); }

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void createDocks();
    void createActions();
    void connectSession();
    void offerStartupTask(const QString &task);
    void conversationOpened(const AgentLoop::ConversationHeader &header);
    void conversationNotOpened(const AgentLoop::Error &error);
    void showConfiguration();
    void updateActions();
    // The client left a field out for a provider that refused it: the profile the run uses keeps
    // that, in this session and in the settings file.
    void keepAdjustment(const AgentLoop::ProviderAdjustment &adjustment);
    // The MCP servers' files changed, or a workspace's servers were trusted: the settings as they
    // are (or will be after the run) go to the session again, which reads the files.
    void applyMcpServers();
    void setIdleStatus(const QString &text);
    void saveLayout() const;
    void restoreLayout();

    // Destroyed before the window's child widgets: an approval box destroyed with the window
    // finds the controller already gone (see ApprovalPrompt).
    AgentLoop::AgentSession m_session;
    AppSettings m_settings;
    // Settings given during a run: the session applies them at its end, and so does the window.
    std::optional<AppSettings> m_pendingSettings;
    Options m_options;
    std::unique_ptr<AgentLoop::KeyStore> m_ownKeyStore;
    AgentLoop::KeyStore *m_keyStore = nullptr;

    RunFeed *m_feed;
    ChatView *m_chatView;
    PromptBar *m_promptBar;
    Inspector *m_inspector;
    QDockWidget *m_inspectorDock;
    AgentStatusBar *m_statusBar;
    ConversationListModel *m_conversations;
    ConversationPanel *m_conversationPanel;
    QDockWidget *m_conversationsDock;
    Approvals *m_approvals;
    Compactions *m_compactions;
    BugBundles *m_bugBundles;
    ConversationActions *m_conversationActions;
    QPointer<SettingsDialog> m_settingsDialog;
    ProfileSwitcher *m_profileSwitcher;
    ReplayActions *m_replayActions;
    TimelineDock *m_timeline = nullptr;
    RawOutputs *m_rawOutputs;
    Experiments *m_experiments;
    McpServers *m_mcpServers;

    bool m_started = false;
};

} // namespace Gui
