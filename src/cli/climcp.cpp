#include "climcp.h"

#include "clipermissions.h"

#include "permissions/workspacerules.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

namespace {

QString eraText(McpClient::Era era)
{
    switch (era) {
    case McpClient::Era::Modern:
        return CliMcpList::tr("modern");
    case McpClient::Era::Legacy:
        return CliMcpList::tr("legacy");
    case McpClient::Era::Unknown:
        break;
    }
    return CliMcpList::tr("unknown");
}

// What a tool does, in one line: its title, or the first line of its description.
QString toolSummary(const McpToolInfo &info)
{
    if (!info.title.trimmed().isEmpty())
        return info.title.trimmed();
    const QString description = info.description.trimmed();
    const qsizetype end = description.indexOf(u'\n');
    return end < 0 ? description : description.left(end).trimmed();
}

} // namespace

McpStartupWait::McpStartupWait(McpManager &manager, int timeoutMs, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(timeoutMs);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_done = true;
        emit settled();
    });
    // Queued: settled() comes after everything the status change set off (the session putting
    // the tools into its registry), never from inside it.
    connect(&m_manager,
            &McpManager::serverStatusChanged,
            this,
            &McpStartupWait::check,
            Qt::QueuedConnection);
}

void McpStartupWait::start()
{
    m_started = true;
    m_timeout.start();
    // Queued: settled() never comes from inside start().
    QMetaObject::invokeMethod(this, &McpStartupWait::check, Qt::QueuedConnection);
}

void McpStartupWait::check()
{
    if (!m_started || m_done || m_manager.isStarting())
        return;
    m_done = true;
    m_timeout.stop();
    emit settled();
}

// The last `count` lines the server wrote to standard error, escaped for the terminal.
static QStringList standardErrorLines(const McpServer &server,
                                      const TerminalWriter &terminal,
                                      int count)
{
    const QStringList tail = server.standardErrorTail();
    QStringList lines;
    for (qsizetype i = std::max<qsizetype>(0, tail.size() - count); i < tail.size(); ++i)
        lines.append(CliMcpList::tr("  stderr: %1").arg(terminal.line(tail.at(i))));
    return lines;
}

QStringList mcpFailureLines(const McpServer &server,
                            const TerminalWriter &terminal,
                            int shownStandardErrorLines)
{
    const QString name = terminal.line(server.config().name, shownNameLength);
    const QString detail = terminal.line(server.statusDetail());
    QStringList lines;
    switch (server.status()) {
    case McpServer::Status::Failed:
    case McpServer::Status::Stopped:
        lines.append(
                detail.isEmpty()
                        ? CliMcpList::tr("MCP server “%1” did not start.").arg(name)
                        : CliMcpList::tr("MCP server “%1” did not start: %2").arg(name, detail));
        break;
    case McpServer::Status::Starting:
    case McpServer::Status::Restarting:
        lines.append(CliMcpList::tr("MCP server “%1” is not ready yet; the run goes on without "
                                    "it.")
                             .arg(name));
        break;
    case McpServer::Status::Ready:
    case McpServer::Status::Disabled:
        return {};
    }
    lines += standardErrorLines(server, terminal, shownStandardErrorLines);
    return lines;
}

CliMcpList::CliMcpList(const CliOptions &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_out(stdout)
    , m_err(stderr)
    , m_wait(m_manager, mcpStartupWaitMs)
{
    connect(&m_wait, &McpStartupWait::settled, this, &CliMcpList::print);
}

void CliMcpList::start()
{
    m_manager.setWorkspace(m_options.workspace);
    m_manager.setServers(m_options.mcpServers);
    m_wait.start();
}

void CliMcpList::print()
{
    // A call is decided as a run in this workspace would decide it: the app's and the command
    // line's rules, and the workspace's own.
    QList<PermissionRule> rules;
    if (const Result<QList<PermissionRule>> session = sessionRules(m_options); session)
        rules = *session;
    else
        m_err.writeLine(tr("Warning: %1").arg(m_err.line(session.error().message)));
    const WorkspaceRules workspace = loadWorkspaceRules(m_options.workspace);
    rules += workspace.rules;
    const PermissionPolicy policy(rules, permissionOptions(m_options), nullptr);

    const QList<std::shared_ptr<const McpTool>> tools = m_manager.tools();
    for (McpServer *server : m_manager.servers()) {
        const QString name = m_out.line(server->config().name, shownNameLength);
        const QString status = mcpStatusText(server->status());
        if (server->status() != McpServer::Status::Ready) {
            const QString detail = server->statusDetail();
            m_out.writeLine(detail.isEmpty()
                                    ? tr("%1: %2").arg(name, status)
                                    : tr("%1: %2: %3").arg(name, status, m_out.line(detail)));
            for (const QString &line : standardErrorLines(*server, m_out, 10))
                m_out.writeLine(line);
            for (const QString &warning : m_manager.warnings(server->config().name))
                m_out.writeLine(tr("  warning: %1").arg(m_out.line(warning)));
            continue;
        }
        m_out.writeLine(tr("%1: %2, protocol %3 (%4)")
                                .arg(name,
                                     status,
                                     m_out.line(server->protocolVersion(), 40),
                                     eraText(server->era())));
        struct Row
        {
            QString name;
            QString kind;
            QString summary;
        };
        QList<Row> rows;
        for (const auto &tool : tools) {
            if (tool->serverName() != server->config().name)
                continue;
            QString kind = tool->declaredReadOnly() ? tr("read") : tr("execute");
            const Verdict verdict = policy.check(*tool, {}).verdict;
            if (verdict == Verdict::Ask)
                kind = tr("%1, asks").arg(kind);
            else if (verdict == Verdict::Deny)
                kind = tr("%1, denied").arg(kind);
            rows.append({tool->name(), kind, m_out.line(toolSummary(tool->info()), 120)});
        }
        if (rows.isEmpty())
            m_out.writeLine(tr("  (no tools)"));
        qsizetype nameWidth = 0;
        qsizetype kindWidth = 0;
        for (const Row &row : std::as_const(rows)) {
            nameWidth = std::max(nameWidth, row.name.size());
            kindWidth = std::max(kindWidth, row.kind.size());
        }
        for (const Row &row : std::as_const(rows)) {
            QString line = u"  "_s + row.name.leftJustified(nameWidth) + u"  "_s
                           + row.kind.leftJustified(kindWidth);
            if (!row.summary.isEmpty())
                line += u"  "_s + row.summary;
            while (line.endsWith(u' '))
                line.chop(1);
            m_out.writeLine(line);
        }
        for (const QString &warning : m_manager.warnings(server->config().name))
            m_out.writeLine(tr("  warning: %1").arg(m_out.line(warning)));
    }
    m_manager.stopAll();
    emit done(0);
}

} // namespace Cli
