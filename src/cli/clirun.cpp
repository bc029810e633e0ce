#include "clirun.h"

#include "clibundle.h"
#include "clipermissions.h"
#include "cliprofile.h"

#include "tools/commandrunner.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocale>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

int exitCodeFor(const Error &error)
{
    switch (error.kind) {
    case Error::None:
        return Answered;
    case Error::Configuration:
    case Error::Io:
        return UsageError;
    case Error::Contract:
    case Error::Agent:
        return AgentFailure;
    case Error::Protocol:
    case Error::Http:
    case Error::Network:
    case Error::Timeout:
        return ProviderError;
    case Error::Cancelled:
        return Interrupted;
    }
    return AgentFailure;
}

namespace {

// The first line of a tool's output, for the one-line summary of its call.
QString firstLine(const TerminalWriter &terminal, const QString &text, qsizetype limit = 120)
{
    const qsizetype end = text.indexOf(u'\n');
    QString line = end < 0 ? text : text.first(end);
    if (line.endsWith(u'\r'))
        line.chop(1);
    QString shown = terminal.line(line, limit);
    if (end >= 0 && !shown.endsWith(u"\u2026"_s))
        shown += u" \u2026"_s;
    return shown;
}

} // namespace

CliRun::CliRun(const CliOptions &options, const ProviderSettings &provider, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_out(stdout)
    , m_err(stderr)
    , m_session(std::make_shared<ProcessCommandRunner>(), ConversationStore())
    , m_controller(m_session.controller())
    , m_approver(m_err)
    , m_provider(provider)
    , m_mcpWait(m_session.mcp(), mcpStartupWaitMs)
{
    // The key is blanked out of everything printed: a command that prints the environment, a
    // model that repeats the key, arguments that contain it.
    m_out.setSecret(provider.apiKey);
    m_err.setSecret(provider.apiKey);
    SessionConfiguration configuration;
    configuration.provider = provider;
    configuration.provider.requestTimeout = std::chrono::seconds(options.requestTimeoutSeconds);
    // --no-stream turns a profile's streaming off, never on.
    configuration.provider.stream = provider.stream && options.stream;
    configuration.provider.retry.maxRetries = options.maxRetries;
    configuration.provider.maxResponseBytes = qint64(options.maxResponseMegabytes) * 1024 * 1024;
    configuration.provider.maxAnswerTime = std::chrono::minutes(options.maxAnswerMinutes);
    if (options.maxTokens > 0)
        configuration.provider.maxTokens = options.maxTokens;
    if (options.maxTokensField)
        configuration.provider.maxTokensField = *options.maxTokensField;
    for (const QString &model : options.fallbackModels) {
        ProviderSettings fallback = configuration.provider;
        fallback.model = model;
        configuration.fallbacks.append(fallback);
    }
    configuration.maxTurns = options.maxTurns;
    configuration.workspace = options.workspace;
    configuration.context.contextWindow = options.contextWindow;
    const Result<QList<PermissionRule>> rules = sessionRules(options);
    if (rules)
        configuration.rules = *rules;
    else
        m_rulesError = rules.error();
    configuration.permissionOptions = permissionOptions(options);
    // Long outputs go where the app keeps them: with a continued conversation, in its folder
    // (deleted with it in the app), else in one folder per run.
    configuration.unsavedOutputFolder = u"cli-"_s
                                        + QDateTime::currentDateTime().toString(
                                                u"yyyyMMdd-HHmmss"_s);
    // Only a conversation given with --conversation is saved.
    m_session.recorder().setSavesNewConversations(false);
    m_session.configure(configuration);
    connect(&m_session, &AgentSession::saveFailed, this, [this](const Error &error) {
        printProgress(tr("Warning: %1").arg(m_err.line(error.message)));
    });

    connect(&m_controller, &AgentController::turnStarted, this, [this](int turn, int maxTurns) {
        printProgress(tr("[turn %1/%2] asking %3…")
                              .arg(turn)
                              .arg(maxTurns)
                              .arg(m_err.line(m_controller.provider().model)));
    });
    connect(&m_controller, &AgentController::retryScheduled, this, [this](const QString &notice) {
        printProgress(m_err.line(notice));
    });
    // Continuations, fallbacks, a compaction after a context-length error.
    connect(&m_controller, &AgentController::notice, this, [this](const QString &notice) {
        printProgress(m_err.line(notice));
    });
    connect(&m_controller,
            &AgentController::providerAdjusted,
            this,
            [this](const ProviderAdjustment &adjustment) {
                printProgress(m_err.line(adjustment.notice));
                if (!m_options.profile.isEmpty())
                    ProfileLoader::saveSwitches(m_options.profile, m_controller.provider());
            });
    connect(&m_controller, &AgentController::approvalRequested, &m_approver, &TerminalApprover::ask);
    connect(&m_approver,
            &TerminalApprover::decided,
            &m_controller,
            &AgentController::resolveApproval);
    connect(&m_controller, &AgentController::toolStarted, this, [this](const ToolCall &call) {
        printProgress(tr("Running %1…").arg(m_err.line(call.name, shownNameLength)));
        m_progressPrinted.invalidate();
    });
    connect(&m_controller,
            &AgentController::toolProgressed,
            this,
            [this](const ToolCall &call, const ToolProgress &progress) {
                // A server may report many times a second; a line a second is enough to read.
                if (m_progressPrinted.isValid() && m_progressPrinted.elapsed() < 1000)
                    return;
                m_progressPrinted.start();
                printProgress(tr("%1: %2").arg(m_err.line(call.name, shownNameLength),
                                               m_err.line(progress.text())));
            });
    connect(&m_controller,
            &AgentController::toolFinished,
            this,
            [this](const ToolCall &call, const ToolResult &result) {
                // The name of a tool that does not exist is the model's text like any other.
                const QString name = m_err.line(call.name, shownNameLength);
                const QString summary = firstLine(m_err, result.content);
                printProgress(result.ok ? tr("%1 finished: %2").arg(name, summary)
                                        : tr("%1 did not succeed: %2").arg(name, summary));
                printOutputFile(result.outputFile);
            });
    connect(&m_controller, &AgentController::callRecorded, this, &CliRun::printRuleDecision);
    if (m_options.verbose) {
        connect(&m_controller,
                &AgentController::messageAppended,
                this,
                [this](const Message &message) {
                    if (message.role() == Role::Assistant)
                        printBudget(m_controller.budget());
                });
        // Per request: how long the provider took to start answering, and to finish.
        connect(&m_controller,
                &AgentController::responseReceived,
                this,
                [this](const Exchange &exchange) {
                    printProgress(exchange.firstByteMs >= 0
                                          ? tr("request %1: HTTP %2, first byte %3 ms, %4 ms")
                                                    .arg(exchange.turn)
                                                    .arg(exchange.httpStatus)
                                                    .arg(exchange.firstByteMs)
                                                    .arg(exchange.durationMs)
                                          : tr("request %1: HTTP %2, no answer, %3 ms")
                                                    .arg(exchange.turn)
                                                    .arg(exchange.httpStatus)
                                                    .arg(exchange.durationMs));
                });
        // The provider's /models may name the window only once the run has begun.
        connect(&m_controller,
                &AgentController::budgetChanged,
                this,
                [this](const ContextBudget &budget) {
                    if (m_printedWindow && *m_printedWindow != budget.window)
                        printContextWindow(budget.window);
                });
    }
    connect(&m_controller, &AgentController::responseReceived, this, &CliRun::writeTranscript);
    connect(&m_controller, &AgentController::finished, this, [this](const QString &answer) {
        m_out.writeLine(answer); // with its line breaks
        finish(Answered);
    });
    connect(&m_controller, &AgentController::failed, this, [this](const Error &error) {
        if (error.kind == Error::Cancelled || m_interrupted) {
            printProgress(tr("Interrupted."));
            finish(Interrupted);
            return;
        }
        const QString label = error.kind == Error::Configuration ? tr("Configuration error: %1")
                                                                 : tr("Run failed: %1");
        // The message may quote the provider's body.
        m_err.writeLine(label.arg(m_err.line(error.message)));
        if (!error.hint.isEmpty())
            m_err.writeLine(tr("How to fix: %1").arg(m_err.line(error.hint)));
        finish(exitCodeFor(error));
    });
    if (!m_options.bundlePath.isEmpty()) {
        connect(&m_controller,
                &AgentController::responseReceived,
                this,
                [this](const Exchange &exchange) {
                    m_exchanges.append({exchange.turn, exchange});
                });
    }
}

void CliRun::start()
{
    if (!m_options.transcriptPath.isEmpty()) {
        if (const Result<void> opened = m_transcript.open(m_options.transcriptPath); !opened) {
            m_err.writeLine(tr("Configuration error: %1").arg(m_err.line(opened.error().message)));
            emit done(UsageError);
            return;
        }
    }
    if (!rulesAreReadable()) {
        emit done(UsageError);
        return;
    }
    if (!m_options.conversationPath.isEmpty() && !openConversation()) {
        emit done(UsageError);
        return;
    }
    printProgress(
            tr("Workspace: %1").arg(m_err.line(QDir::toNativeSeparators(m_options.workspace))));
    if (!m_options.mcpServers.isEmpty()) {
        startMcpServers();
        return;
    }
    runPrompt();
}

void CliRun::startMcpServers()
{
    connect(&m_mcpWait, &McpStartupWait::settled, this, [this] {
        m_mcpStarted = true;
        for (McpServer *server : m_session.mcp().servers()) {
            for (const QString &line : mcpFailureLines(*server, m_err))
                printProgress(line);
        }
        const qsizetype tools = m_session.mcp().tools().size();
        printProgress(tools == 1 ? tr("MCP: 1 tool offered.")
                                 : tr("MCP: %n tools offered.", nullptr, int(tools)));
        runPrompt();
    });
    connect(&m_session.mcp(), &McpManager::serverStatusChanged, this, &CliRun::reportMcpServer);
    // The terminal has no forms: what a server asks of the user is declined, and said.
    connect(&m_session.mcp(),
            &McpManager::elicitationRequested,
            this,
            [this](const McpElicitation &request) {
                printProgress(tr("MCP server “%1” asks: %2 (declined: agentloop-cli cannot show "
                                 "forms)")
                                      .arg(m_err.line(request.serverName, shownNameLength),
                                           m_err.line(request.message)));
                m_session.mcp().answerElicitation(request.serverName, request.id, u"decline"_s);
            });
    const qsizetype count = m_options.mcpServers.size();
    printProgress(count == 1 ? tr("Starting 1 MCP server…")
                             : tr("Starting %n MCP servers…", nullptr, int(count)));
    SessionConfiguration configuration = m_session.configuration();
    configuration.mcpServers = m_options.mcpServers;
    m_session.configure(configuration);
    m_mcpWait.start();
}

// After the start: a server that fails or restarts during the run, said when it happens.
void CliRun::reportMcpServer(const QString &name)
{
    const McpServer *server = m_session.mcp().server(name);
    if (!m_mcpStarted || !server)
        return;
    const QString shown = m_err.line(name, shownNameLength);
    const QString detail = m_err.line(server->statusDetail());
    switch (server->status()) {
    case McpServer::Status::Failed:
        printProgress(tr("MCP server “%1” stopped: %2").arg(shown, detail));
        for (const QString &line : mcpFailureLines(*server, m_err).mid(1))
            printProgress(line);
        break;
    case McpServer::Status::Restarting:
        printProgress(tr("MCP server “%1” is restarting: %2").arg(shown, detail));
        break;
    case McpServer::Status::Ready:
        printProgress(tr("MCP server “%1” is ready again.").arg(shown));
        break;
    default:
        break;
    }
}

void CliRun::runPrompt()
{
    m_session.discoverContextWindows();
    if (m_options.verbose)
        printContextWindow(m_controller.budget().window);
    m_controller.run(m_options.prompt);
}

void CliRun::finish(int exitCode)
{
    if (!m_options.bundlePath.isEmpty()) {
        Result<BugBundleContents> contents = bundleContents(m_options, m_provider);
        if (!contents) {
            m_err.writeLine(
                    tr("Bug bundle not written: %1").arg(m_err.line(contents.error().message)));
            if (exitCode == Answered)
                exitCode = UsageError;
        } else {
            BugBundleContents bundle = *contents;
            bundle.history = m_controller.history();
            bundle.compactions = m_controller.compactions();
            bundle.audit = m_session.auditTrail();
            bundle.exchanges = m_exchanges;
            if (bundle.conversation.id.isEmpty())
                bundle.conversation = m_session.recorder().header();
            const int written = writeBundle(bundle, m_options.bundlePath, m_err, m_err);
            if (exitCode == Answered)
                exitCode = written;
        }
    }
    emit done(exitCode);
}

void CliRun::interrupt()
{
    m_interrupted = true;
    if (m_controller.isRunning())
        m_controller.cancel(); // failed(Cancelled) follows, then done(130)
    else
        emit done(Interrupted);
}

// Loads the saved conversation (reporting what was repaired) and keeps its file open for
// appending. False, with the reason printed, when it cannot be continued.
bool CliRun::openConversation()
{
    const QString path = m_options.conversationPath;
    const Result<ContinuedConversation> continued = m_session.openConversationFile(path);
    const std::optional<Error> problem = !continued ? std::optional(continued.error())
                                                    : continued->notSaved;
    if (problem) {
        m_err.writeLine(tr("Configuration error: %1").arg(m_err.line(problem->message)));
        if (!problem->hint.isEmpty())
            m_err.writeLine(tr("How to fix: %1").arg(m_err.line(problem->hint)));
        return false;
    }
    const LoadedConversation &loaded = continued->conversation;
    for (const QString &repair : loaded.repairs)
        printProgress(tr("Conversation repaired: %1").arg(m_err.line(repair)));
    printProgress(tr("Continuing %1 (%n message(s)).", nullptr, int(loaded.history.size()))
                          .arg(m_err.line(QDir::toNativeSeparators(path))));
    return true;
}

// A call no one was asked about, decided by a rule as written: why no prompt came.
void CliRun::printRuleDecision(const CallRecord &record)
{
    const CallDecision &decision = record.decision;
    if (decision.asked || decision.decidedBy == u"default"_s || decision.decidedBy == u"user"_s)
        return;
    const QString name = m_err.line(record.call.name, shownNameLength);
    const QString rule = m_err.line(decision.decidedBy);
    if (decision.kind == CallDecision::Deny)
        printProgress(tr("%1 was denied by the rule %2; the model is told.").arg(name, rule));
    else if (decision.kind == CallDecision::Allow
             || decision.kind == CallDecision::AllowForConversation)
        printProgress(tr("%1 was allowed by the rule %2.").arg(name, rule));
}

bool CliRun::rulesAreReadable()
{
    const std::optional<Error> problem = m_rulesError ? m_rulesError
                                                      : m_session.workspaceRulesError();
    if (!problem) {
        warnOfIgnoredAllowRules(m_session.ignoredWorkspaceAllowRules(),
                                workspaceRuleFilePath(m_options.workspace),
                                m_err);
        return true;
    }
    m_err.writeLine(tr("Configuration error: %1").arg(m_err.line(problem->message)));
    return false;
}

void CliRun::printOutputFile(const OutputFile &file)
{
    if (file.isEmpty())
        return;
    if (file.path.isEmpty()) {
        printProgress(tr("The full output could not be saved: %1").arg(m_err.line(file.problem)));
        return;
    }
    const QString size = QLocale().formattedDataSize(file.bytes, 1, QLocale::DataSizeSIFormat);
    const QString path = m_err.line(QDir::toNativeSeparators(file.path));
    if (file.complete) {
        printProgress(tr("Full output (%1): %2").arg(size, path));
    } else {
        printProgress(tr("Output file (incomplete, %1): %2 (%3)")
                              .arg(size, path, m_err.line(file.problem)));
    }
}

void CliRun::printBudget(const ContextBudget &budget)
{
    const QString used = formatTokenCount(budget.used);
    const QString window = formatTokenCount(budget.window.tokens);
    printProgress(
            budget.estimated
                    ? tr("context: %1 / %2 tokens (estimated)").arg(used, window)
                    : tr("context: %1 / %2 tokens (as counted by the provider)").arg(used, window));
}

void CliRun::printContextWindow(const ContextWindow &window)
{
    m_printedWindow = window;
    const QString tokens = QLocale::c().toString(window.tokens);
    switch (window.source) {
    case ContextWindow::Source::Setting:
        printProgress(tr("Context window: %1 tokens (--context-window).").arg(tokens));
        return;
    case ContextWindow::Source::Provider:
        printProgress(tr("Context window: %1 tokens (the provider's model list).").arg(tokens));
        return;
    case ContextWindow::Source::BuiltIn:
        printProgress(
                tr("Context window: %1 tokens (the built-in table of common models).").arg(tokens));
        return;
    case ContextWindow::Source::Fallback:
        printProgress(tr("Context window: %1 tokens (the model is not known; set it with "
                         "--context-window).")
                              .arg(tokens));
        return;
    }
}

void CliRun::printProgress(const QString &line)
{
    m_err.writeLine(line);
}

// Each exchange is written once it is answered (or failed), as one complete line.
void CliRun::writeTranscript(const Exchange &exchange)
{
    if (!m_transcript.isOpen())
        return;
    if (const Result<void> written = m_transcript.write(exchange); !written)
        printProgress(m_err.line(written.error().message));
}

} // namespace Cli
