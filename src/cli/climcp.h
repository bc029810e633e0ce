#pragma once

#include "clioptions.h"
#include "mcp/mcpmanager.h"
#include "terminalwriter.h"

#include <QObject>
#include <QTimer>

namespace Cli {

// How long the CLI waits for its MCP servers before it goes on without the slow ones: a little
// more than a server's own start timeout, after which it has failed anyway.
inline constexpr int mcpStartupWaitMs = AgentLoop::McpServer::defaultStartTimeoutMs + 5000;

// Waits until no server of the manager is on its way up (McpManager::isStarting()), at most
// timeoutMs, then emits settled() once. Never blocks: it listens to the manager.
class McpStartupWait final : public QObject
{
    Q_OBJECT
public:
    McpStartupWait(AgentLoop::McpManager &manager, int timeoutMs, QObject *parent = nullptr);
    void start();

signals:
    void settled();

private:
    void check();

    AgentLoop::McpManager &m_manager;
    QTimer m_timeout;
    bool m_started = false;
    bool m_done = false;
};

// A server that did not start, or stopped, as lines for the terminal: its name and why, then the
// last lines it wrote to standard error, behind "  stderr: ".
//   MCP server “github” did not start: GITHUB_TOKEN is not set (used in env.GITHUB_TOKEN)
QStringList mcpFailureLines(const AgentLoop::McpServer &server,
                            const TerminalWriter &terminal,
                            int shownStandardErrorLines = 10);

// agentloop-cli --mcp-list: starts the servers of --mcp-config, waits until each is ready or has
// failed (mcpStartupWaitMs at most), prints on standard output
//   files: ready, protocol 2025-11-25 (legacy)
//     mcp__files__read_file   read           Read a file
//     mcp__files__write_file  execute, asks  Write a file
//   broken: failed: exited with code 3
//     stderr: crashing at start
// (a tool's class from its readOnlyHint; "asks" or "denied" as a run's rules would decide a call
// of it), then done(0). No model is contacted and no key is read.
class CliMcpList final : public QObject
{
    Q_OBJECT
public:
    explicit CliMcpList(const CliOptions &options, QObject *parent = nullptr);
    void start();

signals:
    void done(int exitCode);

private:
    void print();

    CliOptions m_options;
    TerminalWriter m_out;
    TerminalWriter m_err;
    AgentLoop::McpManager m_manager;
    McpStartupWait m_wait;
};

} // namespace Cli
