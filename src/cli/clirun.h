#pragma once

#include "agent/agentsession.h"
#include "climcp.h"
#include "clioptions.h"
#include "provider/transcript.h"
#include "storage/bugbundle.h"
#include "terminalapprover.h"
#include "terminalwriter.h"

#include <QElapsedTimer>
#include <QObject>

namespace Cli {

// Exit codes, as documented in --help and the README.
enum ExitCode {
    Answered = 0,
    UsageError = 2,    // usage or configuration error: nothing was sent
    AgentFailure = 3,  // turn limit, finish_reason, empty answer, contract error
    ProviderError = 4, // HTTP, network, timeout, unusable response
    Interrupted = 130,
};

int exitCodeFor(const AgentLoop::Error &error);

// One headless run: the agent loop with terminal approval. The answer goes to stdout; progress,
// approval prompts and errors to stderr; all of it through a TerminalWriter, so that no text of
// the model's or the provider's can write an escape sequence to the terminal.
class CliRun final : public QObject
{
    Q_OBJECT
public:
    CliRun(const CliOptions &options,
           const AgentLoop::ProviderSettings &provider,
           QObject *parent = nullptr);

    // Starts the run; done() follows with the process exit code.
    void start();
    // Ctrl+C: stop the run, leaving the history valid, then exit 130.
    void interrupt();

signals:
    void done(int exitCode);

private:
    void printProgress(const QString &line);
    // Where the whole output of a long command is, after the call's one-line summary.
    void printOutputFile(const AgentLoop::OutputFile &file);
    void writeTranscript(const AgentLoop::Exchange &exchange);
    void printRuleDecision(const AgentLoop::CallRecord &record);
    // --verbose: the budget of the next request, and the window when it changes.
    void printBudget(const AgentLoop::ContextBudget &budget);
    void printContextWindow(const AgentLoop::ContextWindow &window);
    bool openConversation();
    // Starts the MCP servers of --mcp-config and waits for them (mcpStartupWaitMs at most); a
    // server that does not start is reported by name and the run goes on with the others.
    void startMcpServers();
    void reportMcpServer(const QString &name);
    void runPrompt();
    // False, with the reason printed, when a rules file cannot be read: a broken file must not
    // loosen anything, and nothing is sent.
    bool rulesAreReadable();
    // The run is over: writes the bug bundle when --bundle asks for one, then done(exitCode).
    void finish(int exitCode);

    CliOptions m_options;
    TerminalWriter m_out;
    TerminalWriter m_err;
    AgentLoop::AgentSession m_session;
    AgentLoop::AgentController &m_controller;
    TerminalApprover m_approver;
    AgentLoop::TranscriptWriter m_transcript;
    std::optional<AgentLoop::Error> m_rulesError; // of the app's rules file
    bool m_interrupted = false;
    std::optional<AgentLoop::ContextWindow> m_printedWindow;
    AgentLoop::ProviderSettings m_provider;
    QList<AgentLoop::BundleExchange> m_exchanges; // with --bundle, every exchange answered
    McpStartupWait m_mcpWait;
    bool m_mcpStarted = false; // the startup wait is over: later changes are reported as they come
    QElapsedTimer m_progressPrinted; // a tool's progress is printed at most once a second
};

} // namespace Cli
