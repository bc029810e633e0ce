#pragma once

#include "mcp/mcpclient.h"
#include "tools/tool.h"

#include <functional>

namespace AgentLoop {

class McpServer;

// Limits on what a server's tools may put into a request.
inline constexpr int mcpDescriptionLimit = 2000; // characters sent to the model
inline constexpr int mcpToolsPerServerLimit = 100;
inline constexpr qsizetype mcpResultLimit = 30000; // characters, as the shell's output

// One tool of an MCP server, in the registry as mcp__<server>__<tool>.
// - Side effect: Read when the server marks it readOnlyHint and the server is trusted; Execute
//   otherwise, whatever else the server claims (a read-only tool of an untrusted server asks).
// - Arguments are validated against its inputSchema; a schema using keywords the validator cannot
//   handle is not enforced (validationSkipped()), and the approval says so.
// - The approval shows the server, the tool, its description and the full arguments as indented
//   JSON (CallPreview::Arguments), never cut.
// - Results: text content joined; images and binary resources saved to the outputs folder and
//   named; resource links and embedded text resources shown; structuredContent validated against
//   outputSchema; isError → a failure "mcp_error: …" the model reads; a result over
//   mcpResultLimit characters is saved whole to the outputs folder and cut, like a command's.
class McpTool final : public Tool
{
public:
    // registryName: the name in the registry when mcpToolName() clashes with another tool's
    // (McpManager numbers them); empty: mcpToolName(server, tool).
    McpTool(McpServer *server,
            const McpToolInfo &info,
            std::function<QString()> outputDirectory,
            const QString &registryName = {});

    const QString &serverName() const { return m_serverName; }
    const McpToolInfo &info() const { return m_info; }
    bool declaredReadOnly() const { return m_info.readOnlyHint; }
    // The input schema's keywords the validator does not support ("$ref", "if", …); empty when
    // arguments are fully validated.
    const QStringList &unsupportedKeywords() const { return m_unsupported; }
    bool validationSkipped() const { return !m_unsupported.isEmpty(); }

    bool validatesArguments() const override { return m_unsupported.isEmpty(); }
    QString approvalReason() const override;
    CallPreview preview(const QJsonObject &arguments) const override;
    ToolRun *invoke(const PreparedCall &call, QObject *parent) const override;

protected:
    QString checkArguments(const QJsonObject &arguments) const override;

private:
    QPointer<McpServer> m_server;
    QString m_serverName;
    McpToolInfo m_info;
    QStringList m_unsupported;
    std::function<QString()> m_outputDirectory;
};

// The ToolResult the model reads for a call's outcome (pure: no I/O but the outputs folder).
// timeoutMs: the call's limit, named in a TimedOut result.
ToolResult mcpToolResult(const McpCallOutcome &outcome,
                         const McpToolInfo &info,
                         const QString &outputDirectory,
                         const QString &callId,
                         int timeoutMs = 0);

// The keywords of a schema (and of every schema inside it) that JsonSchema ignores although they
// change what is valid: $ref, if/then/else, prefixItems, dependentRequired, … Sorted, unique.
QStringList unsupportedSchemaKeywords(const QJsonObject &schema);

} // namespace AgentLoop
