#include "agent/agentsession.h"

#include "agent/agentsetup.h"
#include "agent/audittrail.h"
#include "base/background.h"
#include "permissions/workspacerules.h"
#include "provider/demoprovider.h"
#include "tools/commandrunner.h"

#include <QDir>
#include <QSet>

using namespace Qt::StringLiterals;

namespace AgentLoop {

AgentSession::AgentSession(std::shared_ptr<CommandRunner> runner,
                           ConversationStore store,
                           QObject *parent)
    : QObject(parent)
    , m_recorder(std::move(store))
    , m_runner(runner ? std::move(runner) : std::make_shared<ProcessCommandRunner>())
{
    // Direct and synchronous: the controller emits before it sends the next request, so each
    // message is on disk before the provider is asked anything that depends on it.
    connect(&m_controller, &AgentController::messageAppended, this, [this](const Message &message) {
        if (const Result<void> recorded = m_recorder.record(message, m_controller.provider());
            !recorded)
            emit saveFailed(recorded.error());
    });
    // Connected before any front end's slots: a configuration waiting for the end of the run is
    // in place when they hear of the end.
    const auto applyPending = [this] {
        if (m_pending)
            apply(*std::exchange(m_pending, std::nullopt));
    };
    // What the client learned about the provider (a refused field) stays for this session's
    // configuration too, whatever the front end keeps of it.
    connect(&m_controller, &AgentController::providerAdjusted, this, [this] {
        m_configuration.provider.stream = m_controller.provider().stream;
        m_configuration.provider.streamUsage = m_controller.provider().streamUsage;
    });
    connect(&m_controller, &AgentController::callRecorded, this, &AgentSession::recordCall);
    // MCP results too big for a tool message, and their images, go where command outputs go.
    m_mcp.setOutputDirectory([this] { return outputDirectory(); });
    connect(&m_mcp, &McpManager::toolsChanged, this, &AgentSession::syncMcpTools);
    connect(&m_modelList, &ChatClient::modelListReceived, this, &AgentSession::takeModelList);
    connect(&m_controller, &AgentController::finished, this, applyPending);
    connect(&m_controller, &AgentController::failed, this, applyPending);
    connectCompaction();
    connect(&m_controller, &AgentController::compacted, this, [this, applyPending] {
        if (!m_controller.isRunning()) // "Compact now" ended without a run
            applyPending();
    });
}

// Compactions and their undos join the conversation's file as their own lines (the messages stay
// as they are), and the stubs' whole outputs go to the conversation's outputs folder.
void AgentSession::connectCompaction()
{
    m_controller.setCompactionOutputDirectory([this] { return outputDirectory(); });
    connect(&m_controller, &AgentController::compacted, this, [this](const Compaction &compaction) {
        if (const Result<void> recorded = m_recorder.recordLine(compaction.toJson()); !recorded)
            emit saveFailed(recorded.error());
    });
    connect(&m_controller, &AgentController::compactionUndone, this, [this](const QString &id) {
        const QJsonObject line{{u"agentloop"_s, u"compaction-undone"_s}, {u"id"_s, id}};
        if (const Result<void> recorded = m_recorder.recordLine(line); !recorded)
            emit saveFailed(recorded.error());
    });
}

void AgentSession::configure(const SessionConfiguration &configuration)
{
    if (m_controller.isRunning()) {
        m_pending = configuration;
        return;
    }
    m_pending.reset();
    apply(configuration);
}

void AgentSession::apply(const SessionConfiguration &configuration)
{
    m_configuration = configuration;
    if (m_configuration.demoMode && !m_demoNetworkInstalled) {
        // It passes every other URL to the network, so it can stay when the demo is turned off.
        m_controller.setNetworkAccessManager(new DemoNetworkAccessManager(&m_controller));
        m_demoNetworkInstalled = true;
    }
    m_controller.setProvider(m_configuration.provider);
    AgentOptions options = m_controller.options();
    options.maxTurns = m_configuration.maxTurns;
    options.context = m_configuration.context;
    options.contextWindow = contextWindowFor(m_configuration);
    options.fallbacks = m_configuration.fallbacks;
    // The servers never inherit the keys (McpStdioTransport leaves them out of the environment).
    QStringList keys{m_configuration.provider.apiKey};
    for (const ProviderSettings &fallback : std::as_const(m_configuration.fallbacks))
        keys.append(fallback.apiKey);
    // What no tool result shows and no file tool matches on.
    options.maskedSecrets = keys + m_configuration.otherSecrets
                            + mcpSecretValues(m_configuration.mcpServers);
    options.maskedSecrets.removeAll(QString());
    options.maskedSecrets.removeDuplicates();
    m_controller.setOptions(options);

    ShellToolOptions toolOptions;
    toolOptions.workspace = m_configuration.workspace.isEmpty() ? QDir::homePath()
                                                                : m_configuration.workspace;
    toolOptions.outputDirectory = [this] {
        return outputDirectory();
    };
    if (!m_files || m_files->workspace != toolOptions.workspace)
        m_files = std::make_shared<FileToolContext>(toolOptions.workspace);
    m_files->secrets.set(options.maskedSecrets);
    installStandardTools(m_controller, m_runner, toolOptions, m_files);
    m_mcp.setSecretValues(keys + m_configuration.otherSecrets);
    m_mcp.setWorkspace(toolOptions.workspace);
    m_mcp.setServers(m_configuration.mcpServers);
    syncMcpTools();
    applyPermissions();
    emit configurationApplied(m_configuration);
}

ContextWindow AgentSession::contextWindowFor(const SessionConfiguration &configuration) const
{
    return resolveContextWindow(configuration.provider.model,
                                configuration.context.contextWindow,
                                reportedContextWindow(configuration.provider.model));
}

std::optional<qint64> AgentSession::reportedContextWindow(const QString &model) const
{
    if (const auto exact = m_reportedWindows.constFind(model); exact != m_reportedWindows.cend())
        return *exact;
    for (auto it = m_reportedWindows.cbegin(); it != m_reportedWindows.cend(); ++it) {
        if (it.key().compare(model, Qt::CaseInsensitive) == 0)
            return *it;
    }
    return std::nullopt;
}

// Once per provider: what /models says of a model changes with the provider, not with each
// change of the turn limit or the workspace.
void AgentSession::discoverContextWindows()
{
    const ProviderSettings &provider = m_configuration.provider;
    if (m_configuration.demoMode || m_configuration.context.contextWindow > 0
        || !provider.baseUrl.isValid() || provider.baseUrl.host().isEmpty())
        return;
    const QString asked = provider.baseUrl.toString() + u'\n' + provider.apiKey;
    if (asked == m_windowsAsked)
        return;
    m_windowsAsked = asked;
    m_reportedWindows.clear();
    m_modelList.setSettings(provider);
    m_modelList.listModels();
}

void AgentSession::takeModelList(const QByteArray &body)
{
    m_reportedWindows = contextWindowsFromModelList(body);
    const ContextWindow window = contextWindowFor(m_configuration);
    if (window == m_controller.options().contextWindow)
        return;
    AgentOptions options = m_controller.options();
    options.contextWindow = window;
    m_controller.setOptions(options);
}

QString AgentSession::outputDirectory() const
{
    const QString &id = m_recorder.header().id;
    return m_recorder.store().outputDirectoryFor(id.isEmpty() ? m_configuration.unsavedOutputFolder
                                                              : id);
}

Result<ContinuedConversation> AgentSession::openConversation(const QString &id)
{
    return openConversationFile(m_recorder.store().pathFor(id));
}

Result<ContinuedConversation> AgentSession::openConversationFile(const QString &path)
{
    // Checked before reading too: reading may append a repair to the file.
    if (m_controller.isRunning())
        return runningError();
    return continueConversation(readConversationAt(path));
}

QFuture<ReadConversation> AgentSession::readConversation(const QString &id) const
{
    return runInBackground<ReadConversation>(
            [path = m_recorder.store().pathFor(id)](const QPromise<ReadConversation> &) {
                return readConversationAt(path);
            });
}

Error AgentSession::runningError()
{
    return Error{Error::Agent, tr("A conversation cannot be opened while a run goes on.")};
}

QFuture<Result<ConversationTail>> AgentSession::readConversationTail(const QString &id) const
{
    return runInBackground<Result<ConversationTail>>(
            [path = m_recorder.store().pathFor(id)](const QPromise<Result<ConversationTail>> &) {
                return ConversationStore::readTail(path, tailBytes);
            });
}

ReadConversation AgentSession::readConversationAt(const QString &path)
{
    ReadConversation read{path, ConversationStore::loadFile(path), {}, {}};
    if (read.loaded) {
        read.prepared = AgentController::prepareHistory(read.loaded->history,
                                                        read.loaded->compactions);
        read.auditTrail = readAuditFile(ConversationStore::auditPathFor(path));
    }
    return read;
}

Result<ContinuedConversation> AgentSession::continueConversation(ReadConversation read)
{
    if (m_controller.isRunning())
        return runningError();
    Result<ContinuedConversation> continued = m_recorder.continueFrom(std::move(read.loaded),
                                                                      read.path);
    if (!continued)
        return continued;
    if (m_savedBeforeExperiment)
        m_recorder.setSavesNewConversations(*std::exchange(m_savedBeforeExperiment, std::nullopt));
    m_controller.setHistory(std::move(read.prepared));
    const LoadedConversation &loaded = continued->conversation;
    if (loaded.repairedFrom >= 0) {
        QList<HistoryRepair> repairs;
        for (qsizetype i = loaded.repairedFrom; i < loaded.history.size(); ++i) {
            repairs.append(HistoryRepair{i,
                                         loaded.history.at(i),
                                         tr("The app stopped before this call finished; it was "
                                            "answered as interrupted when the conversation was "
                                            "reopened.")});
        }
        m_controller.addRepairs(repairs);
    }
    m_auditTrail = std::move(read.auditTrail);
    m_auditFailed = false;
    return continued;
}

void AgentSession::syncMcpTools()
{
    QSet<QString> offered;
    for (const std::shared_ptr<const McpTool> &tool : m_mcp.tools()) {
        offered.insert(tool->name());
        m_controller.addTool(tool);
    }
    for (const QString &name : m_controller.tools().names()) {
        if (name.startsWith(mcpToolNamePrefix) && !offered.contains(name))
            m_controller.removeTool(name);
    }
    // A broken workspace rules file denies every tool by name: the new ones too.
    if (m_workspaceRulesError && m_files)
        applyPermissions();
}

// The configuration's rules, then the workspace's; deny beats allow whatever the order.
void AgentSession::applyPermissions()
{
    const WorkspaceRules workspace = loadWorkspaceRules(m_files->workspace);
    m_workspaceRules = workspace.rules;
    m_ignoredWorkspaceAllowRules = workspace.ignoredAllowRules;
    m_workspaceRulesError = workspace.error;
    QList<PermissionRule> rules = m_configuration.rules + m_workspaceRules;
    if (workspace.error) {
        // A broken file must not loosen anything: every tool is denied until it is fixed.
        const ToolSnapshot tools = m_controller.tools().snapshot();
        for (const auto &tool : tools.tools())
            rules.append(PermissionRule{tool->name(), RuleEffect::Deny, RuleOrigin::Workspace});
    }
    // The policy shares the file tools' boundary: a path rule resolves paths as they do.
    const std::shared_ptr<const WorkspaceBoundary> boundary(m_files, &m_files->boundary);
    m_controller.setPermissions(
            std::make_shared<const PermissionPolicy>(rules,
                                                     m_configuration.permissionOptions,
                                                     boundary));
}

Result<void> AgentSession::addRules(const QStringList &texts, RuleOrigin scope)
{
    const bool inWorkspace = scope == RuleOrigin::Workspace;
    // The file as it is now: a command of this run may have changed it since it was applied.
    Result<QList<PermissionRule>> read = inWorkspace ? readWorkspaceRuleFile(m_files->workspace)
                                                     : readRuleFile(appRuleFilePath(), scope);
    if (!read)
        return read.error();
    QList<PermissionRule> saved = std::move(read).value();
    for (const QString &text : texts) {
        const PermissionRule rule{text, RuleEffect::Allow, scope};
        if (!saved.contains(rule))
            saved.append(rule);
    }
    // The user accepted the rules they just saw, and those they had accepted before; an allow
    // rule that appeared in the file meanwhile stays untrusted.
    const Result<void> written = inWorkspace
                                         ? saveWorkspaceRules(m_files->workspace,
                                                              saved,
                                                              loadWorkspaceRules(m_files->workspace)
                                                                              .trustedAllowRules()
                                                                      + texts)
                                         : writeRuleFile(appRuleFilePath(), saved);
    if (!written)
        return written;
    if (!inWorkspace) {
        for (const QString &text : texts) {
            const PermissionRule rule{text, RuleEffect::Allow, RuleOrigin::App};
            if (!m_configuration.rules.contains(rule))
                m_configuration.rules.append(rule);
        }
    }
    applyPermissions();
    return {};
}

// The call's line in the audit trail: in memory for the front ends, and in the file kept with the
// conversation once it has one.
void AgentSession::recordCall(const CallRecord &record)
{
    const QJsonObject entry = auditEntry(record,
                                         m_recorder.header().id,
                                         m_controller.provider().apiKey);
    m_auditTrail.append(entry);
    if (const QString &conversation = m_recorder.filePath();
        !conversation.isEmpty() && !m_auditFailed) {
        if (const Result<void> written = appendAuditEntry(ConversationStore::auditPathFor(
                                                                  conversation),
                                                          entry);
            !written) {
            m_auditFailed = true;
            emit saveFailed(written.error());
        }
    }
    emit auditRecorded(entry);
}

void AgentSession::newConversation()
{
    if (m_controller.isRunning())
        return;
    m_controller.newConversation();
    m_recorder.startNew();
    if (m_savedBeforeExperiment)
        m_recorder.setSavesNewConversations(*std::exchange(m_savedBeforeExperiment, std::nullopt));
    m_auditTrail.clear();
    m_auditFailed = false;
}

bool AgentSession::runExperiment(const Experiment &experiment)
{
    if (m_controller.isRunning())
        return false;
    newConversation();
    const SessionConfiguration before = m_configuration;
    SessionConfiguration playing = m_configuration;
    const ProviderSettings &current = m_configuration.provider;
    playing.provider = experiment.provider;
    playing.provider.requestTimeout = current.requestTimeout;
    playing.provider.retry = current.retry;
    playing.provider.maxResponseBytes = current.maxResponseBytes;
    playing.provider.maxAnswerTime = current.maxAnswerTime;
    playing.maxTurns = experiment.maxTurns;
    playing.demoMode = true;
    playing.fallbacks.clear();
    playing.context.contextWindow = 0;
    apply(playing);
    m_pending = before; // applied when the run ends
    if (!experiment.seed.isEmpty()) {
        m_savedBeforeExperiment = m_recorder.savesNewConversations();
        m_recorder.setSavesNewConversations(false);
        m_controller.setHistory(experiment.seed);
    }
    if (!m_controller.run(experiment.prompt)) {
        apply(*std::exchange(m_pending, std::nullopt));
        return false;
    }
    return true;
}

} // namespace AgentLoop
