#pragma once

#include "agent/agentcontroller.h"
#include "agent/conversationrecorder.h"
#include "agent/experiments.h"
#include "mcp/mcpmanager.h"
#include "tools/filetools.h"

#include <QFuture>
#include <QHash>
#include <QObject>

#include <memory>
#include <optional>

namespace AgentLoop {

class CommandRunner;

// A saved conversation read and made ready to continue (AgentSession::readConversation()): the
// file checked and repaired, the history's token estimates, and the audit trail kept with it.
struct ReadConversation
{
    QString path;
    Result<LoadedConversation> loaded;
    AgentController::PreparedHistory prepared; // of loaded's history and compactions
    QList<QJsonObject> auditTrail;
};

// What a front end decides about a session; applied between runs, never during one.
struct SessionConfiguration
{
    ProviderSettings provider;
    int maxTurns = 20;
    QString workspace; // where commands run; the system prompt names it
    // Answers come from the built-in scripted model (demoprovider.h); nothing goes out.
    bool demoMode = false;
    // The folder (under the store's outputs) for long command outputs while the conversation
    // has no file; once it has one, its own folder (deleted with it).
    QString unsavedOutputFolder = QStringLiteral("unsaved");
    // The rules of every workspace (the app's rules file, the CLI's options); the workspace's own
    // (.agentloop/permissions.json) are read by the session.
    QList<PermissionRule> rules;
    PermissionOptions permissionOptions;
    // The context budget: window, compaction, continuation (context/contextoptions.h).
    ContextOptions context;
    // The models tried in order when the provider's fails (AgentOptions::fallbacks).
    QList<ProviderSettings> fallbacks;
    // The MCP servers of this session, as the front end chose them: the app's file, the
    // workspace's .agentloop/mcp.json once the user trusted its content (readWorkspaceMcpServers()),
    // the CLI's --mcp-config files. A server whose configuration did not change keeps running
    // from one configuration to the next.
    QList<McpServerConfig> mcpServers;
    // Keys the front end knows besides these providers' (the app's other profiles): masked in
    // every tool result, as the provider's key and the values MCP servers take from variables are.
    QStringList otherSecrets;
};

// One agent session as every front end runs it: the loop (AgentController) with the standard
// tools, and the recorder that keeps its conversation on disk. The front end talks to the
// controller for runs and approvals and reads the recorder's header; the session keeps the two
// in step and applies configurations only while no run is going on.
class AgentSession final : public QObject
{
    Q_OBJECT
public:
    // A null runner runs commands as processes (ProcessCommandRunner).
    AgentSession(std::shared_ptr<CommandRunner> runner,
                 ConversationStore store,
                 QObject *parent = nullptr);

    AgentController &controller() { return m_controller; }
    const AgentController &controller() const { return m_controller; }
    ConversationRecorder &recorder() { return m_recorder; }
    const ConversationRecorder &recorder() const { return m_recorder; }
    // The MCP servers of SessionConfiguration::mcpServers, their states and tools. Their tools
    // join the controller's registry as they come and go (mcp__<server>__<tool>), from the next
    // request on: a request already sent keeps the tools it was sent with.
    McpManager &mcp() { return m_mcp; }
    const McpManager &mcp() const { return m_mcp; }

    // Applied at once while idle, else when the run ends (the last one given wins); applied()
    // follows either way.
    void configure(const SessionConfiguration &configuration);
    const SessionConfiguration &configuration() const { return m_configuration; }
    bool hasPendingConfiguration() const { return m_pending.has_value(); }

    // Continues a saved conversation (by id in the store, or a file by path); only while idle.
    Result<ContinuedConversation> openConversation(const QString &id);
    Result<ContinuedConversation> openConversationFile(const QString &path);
    // The same in two steps, so that a long conversation is read without blocking the event
    // loop: readConversation() does the reading (and the repair, as openConversation() would) on
    // another thread; continueConversation() then makes it the session's, only while idle.
    QFuture<ReadConversation> readConversation(const QString &id) const;
    // Its last messages, read on another thread in a moment whatever its length: to show while
    // readConversation() reads the rest (ConversationStore::readTail()).
    static constexpr qint64 tailBytes = 512 * 1024;
    QFuture<Result<ConversationTail>> readConversationTail(const QString &id) const;
    Result<ContinuedConversation> continueConversation(ReadConversation read);
    // Forgets the conversation; only while idle. The next prompt starts a new one.
    void newConversation();
    // Runs one of the course's experiments (agent/experiments.h) in a new conversation, only
    // while idle: its prompt runs on the scripted model with the experiment's turn limit. The user's provider, key and
    // settings are not touched: the configuration before comes back when the run ends (or the
    // one configure() gave meanwhile). An experiment with a seed history (broken on purpose) is
    // not saved: no file could be opened again. False while a run goes on.
    bool runExperiment(const Experiment &experiment);

    // Adds allow rules the user saved from an approval ("Always allow…"), applied from the next
    // call on: App adds them to the app's rules file (every workspace), Workspace to the
    // workspace's .agentloop/permissions.json. The error says why the file could not be written
    // (nothing was added then). Rules for this conversation only are not saved: they go with the
    // answer (ApprovalAnswer::AllowForConversation).
    Result<void> addRules(const QStringList &rules, RuleOrigin scope);
    // The workspace's rules as last read (.agentloop/permissions.json), and why they could not be
    // read, if so (they then deny every call: a broken file must not loosen anything).
    const QList<PermissionRule> &workspaceRules() const { return m_workspaceRules; }
    const std::optional<Error> &workspaceRulesError() const { return m_workspaceRulesError; }
    // The workspace file's allow rules that are not used: it was changed outside Agent Loop
    // (permissions/workspacerules.h).
    const QStringList &ignoredWorkspaceAllowRules() const { return m_ignoredWorkspaceAllowRules; }

    // Asks the provider's /models, in the background, for the context windows it reports: once
    // per provider (base URL and key), and only when the configuration sets no window and is not
    // the demo. When the answer names the configured model, the controller's
    // AgentOptions::contextWindow becomes it (source Provider) and budgetChanged() follows.
    // The front end calls it when it may talk to the provider: the app once a configuration is
    // applied, the CLI only once its options and files have passed, so that a usage error sends
    // nothing.
    void discoverContextWindows();
    // The window the provider's /models reported for this model (matched without regard to
    // case), if it did.
    std::optional<qint64> reportedContextWindow(const QString &model) const;

    // The conversation's audit trail: one object per finished call, oldest first, as its lines in
    // the audit file (agent/audittrail.h).
    const QList<QJsonObject> &auditTrail() const { return m_auditTrail; }

signals:
    void configurationApplied(const AgentLoop::SessionConfiguration &configuration);
    // Saving the conversation failed; the run goes on, and this conversation is not saved from
    // here on. Once per conversation.
    void saveFailed(const AgentLoop::Error &error);
    // A call's line was added to the audit trail.
    void auditRecorded(const QJsonObject &entry);

private:
    void apply(const SessionConfiguration &configuration);
    void connectCompaction();
    static ReadConversation readConversationAt(const QString &path);
    static Error runningError();
    QString outputDirectory() const;
    void applyPermissions();
    // Puts the MCP servers' current tools into the controller's registry and takes out the ones
    // no longer offered.
    void syncMcpTools();
    void recordCall(const CallRecord &record);
    ContextWindow contextWindowFor(const SessionConfiguration &configuration) const;
    void takeModelList(const QByteArray &body);

    ConversationRecorder m_recorder;
    std::shared_ptr<CommandRunner> m_runner;
    SessionConfiguration m_configuration;
    // The file tools' state, kept while the workspace stays: a change of model or key in the
    // middle of a conversation must not forget what the model read.
    std::shared_ptr<FileToolContext> m_files;
    QList<PermissionRule> m_workspaceRules;
    std::optional<Error> m_workspaceRulesError;
    QStringList m_ignoredWorkspaceAllowRules;
    QList<QJsonObject> m_auditTrail;
    bool m_auditFailed = false; // reported once per conversation, as saving is
    std::optional<SessionConfiguration> m_pending;
    // Whether new conversations were saved before an experiment that is not (runExperiment()).
    std::optional<bool> m_savedBeforeExperiment;
    bool m_demoNetworkInstalled = false;
    // The provider's /models, asked for the context windows it reports (of the provider in
    // m_windowsAsked: base URL and key).
    ChatClient m_modelList;
    QString m_windowsAsked;
    QHash<QString, qint64> m_reportedWindows;
    // Before the controller, so destroyed after it: no tool of the registry outlives its server
    // unnoticed (McpTool holds a QPointer anyway).
    McpManager m_mcp;
    // Last, so destroyed first: nothing it emits on its way out finds the recorder gone.
    AgentController m_controller;
};

} // namespace AgentLoop
