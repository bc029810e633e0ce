#include "settings/mcpsettings.h"

#include "base/displaytext.h"
#include "storage/providerprofiles.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>

using namespace Qt::StringLiterals;
using AgentLoop::McpServerConfig;

namespace Gui {

namespace {

constexpr char trustGroup[] = "mcp/trustedWorkspaceFiles";

// The key of a workspace's file among the trusted ones: its absolute, clean path, encoded so that
// its slashes do not make groups.
QString trustKey(const QString &path)
{
    const QString clean = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    return QString::fromLatin1(trustGroup) + u'/'
           + QString::fromLatin1(QUrl::toPercentEncoding(clean));
}

QString trustedHash(const QString &path)
{
    const std::unique_ptr<QSettings> file = AgentLoop::openSettingsFile();
    return file->value(trustKey(path)).toString();
}

// An argument as a shell would need it to stay one: quoted when it has a space or a quote.
QString quoted(const QString &argument)
{
    if (!argument.isEmpty() && !argument.contains(u' ') && !argument.contains(u'"')
        && !argument.contains(u'\''))
        return argument;
    QString escaped = argument;
    escaped.replace(u'"', u"\\\""_s);
    return u'"' + escaped + u'"';
}

} // namespace

QString appMcpServersFilePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + u"/mcp.json"_s;
}

AgentLoop::Result<QList<McpServerConfig>> readAppMcpServers()
{
    return AgentLoop::readMcpServersFile(appMcpServersFilePath(), AgentLoop::McpConfigOrigin::App);
}

WorkspaceMcpServers workspaceMcpServers(const QString &workspace)
{
    WorkspaceMcpServers read;
    if (workspace.isEmpty())
        return read;
    static_cast<AgentLoop::McpServersFile &>(read) = AgentLoop::readWorkspaceMcpServers(workspace);
    read.trusted = read.exists && !read.sha256.isEmpty() && trustedHash(read.path) == read.sha256;
    return read;
}

void trustWorkspaceMcpServers(const QString &path, const QString &sha256)
{
    const std::unique_ptr<QSettings> file = AgentLoop::openSettingsFile();
    file->setValue(trustKey(path), sha256);
    file->sync();
}

AgentLoop::Result<void> writeWorkspaceMcpServers(const QString &workspace,
                                                 const QList<McpServerConfig> &servers)
{
    const WorkspaceMcpServers before = workspaceMcpServers(workspace);
    const bool keepsTrust = !before.exists || before.trusted;
    const QString path = AgentLoop::workspaceMcpServersPath(workspace);
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (AgentLoop::Result<void> written = AgentLoop::writeMcpServersFile(path, servers); !written)
        return written;
    if (keepsTrust) {
        const WorkspaceMcpServers after = workspaceMcpServers(workspace);
        trustWorkspaceMcpServers(after.path, after.sha256);
    }
    return {};
}

QList<McpServerConfig> mcpServersToRun(const QString &workspace)
{
    QList<McpServerConfig> servers;
    if (const auto app = readAppMcpServers())
        servers = *app;
    const WorkspaceMcpServers own = workspaceMcpServers(workspace);
    if (own.trusted && own.servers) {
        for (const McpServerConfig &server : *own.servers) {
            servers.removeIf([&](const McpServerConfig &app) { return app.name == server.name; });
            servers.append(server);
        }
    }
    return servers;
}

QString mcpServerLaunchText(const McpServerConfig &server)
{
    if (server.transport == McpServerConfig::Http || server.env.isEmpty())
        return mcpServerCommandText(server);
    QStringList parts;
    for (auto it = server.env.cbegin(); it != server.env.cend(); ++it)
        parts << quoted(it.key() + u'=' + it.value());
    return AgentLoop::displayedLine(parts.join(u' '), 2000) + u' ' + mcpServerCommandText(server);
}

QString mcpServerCommandText(const McpServerConfig &server)
{
    if (server.transport == McpServerConfig::Http)
        return AgentLoop::displayedLine(server.url, 2000);
    QStringList parts{quoted(server.command)};
    for (const QString &argument : server.args)
        parts << quoted(argument);
    return AgentLoop::displayedLine(parts.join(u' '), 4000);
}

QString maskedMcpValue(const QString &value)
{
    static const QRegularExpression reference(u"\\$\\{[^}]*\\}"_s);
    const QString hidden = u"••••"_s;
    QString shown;
    qsizetype done = 0;
    for (QRegularExpressionMatchIterator it = reference.globalMatch(value); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        if (match.capturedStart() > done)
            shown += hidden;
        shown += AgentLoop::displayedLine(match.captured(), 200);
        done = match.capturedEnd();
    }
    if (done < value.size())
        shown += hidden;
    return shown;
}

} // namespace Gui
