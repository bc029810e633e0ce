#include "mcp/mcpmanager.h"

#include <QSet>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// A name that clashes gets "_2", "_3", … and stays within the providers' 64 characters.
QString numberedName(const QString &name, int number)
{
    const QString suffix = u"_%1"_s.arg(number);
    return name.left(64 - suffix.size()) + suffix;
}

} // namespace

McpManager::McpManager(QObject *parent)
    : QObject(parent)
{}

McpManager::~McpManager()
{
    // Before the members go: a server on its way out must find nothing of this to call.
    for (McpServer *server : std::as_const(m_servers)) {
        disconnect(server, nullptr, this, nullptr);
        delete server;
    }
}

void McpManager::setWorkspace(const QString &workspace)
{
    if (workspace == m_workspace)
        return;
    m_workspace = workspace;
    if (m_servers.isEmpty())
        return;
    // The servers' working folder and root change: every one starts again there.
    for (McpServer *server : std::as_const(m_servers))
        removeServer(server);
    m_servers.clear();
    const QList<McpServerConfig> configs = m_configs;
    m_configs.clear();
    setServers(configs);
}

void McpManager::setSecretValues(const QStringList &values)
{
    m_secretValues = values;
    m_secretValues.removeAll(QString());
    for (McpServer *server : std::as_const(m_servers))
        server->setSecretValues(m_secretValues);
}

void McpManager::setOutputDirectory(std::function<QString()> directory)
{
    m_outputDirectory = std::move(directory);
    rebuildTools();
}

void McpManager::setServers(const QList<McpServerConfig> &servers)
{
    // The first of two servers of one name wins (the app's file comes before the workspace's).
    QList<McpServerConfig> configs;
    QSet<QString> names;
    m_configWarnings.clear();
    for (const McpServerConfig &config : servers) {
        if (names.contains(config.name)) {
            m_configWarnings[config.name].append(
                    tr("Another server named “%1” (in %2) is left out: names must be unique.")
                            .arg(config.name, config.sourcePath));
            continue;
        }
        names.insert(config.name);
        configs.append(config);
    }

    QList<McpServer *> kept;
    for (McpServer *server : std::as_const(m_servers)) {
        if (configs.contains(server->config()))
            kept.append(server);
        else
            removeServer(server);
    }
    m_servers.clear();
    QList<McpServer *> created;
    for (const McpServerConfig &config : std::as_const(configs)) {
        const auto same = std::find_if(kept.cbegin(), kept.cend(), [&](McpServer *server) {
            return server->config() == config;
        });
        if (same != kept.cend()) {
            m_servers.append(*same);
        } else {
            created.append(createServer(config));
            m_servers.append(created.last());
        }
    }
    m_configs = configs;
    // Started once the list is whole: what their first statuses trigger sees every server.
    for (McpServer *server : std::as_const(created))
        server->start();
    rebuildTools();
    emit toolsChanged();
}

McpServer *McpManager::createServer(const McpServerConfig &config)
{
    auto *server = new McpServer(config, m_workspace, this);
    server->setSecretValues(m_secretValues);
    const QString name = config.name;
    // The tools first: whoever hears of the status (a front end about to send a request) finds
    // the registry already holding them.
    connect(server, &McpServer::statusChanged, this, [this, name] {
        rebuildTools();
        emit toolsChanged();
        emit serverStatusChanged(name);
    });
    connect(server, &McpServer::toolsChanged, this, [this] {
        rebuildTools();
        emit toolsChanged();
    });
    connect(server, &McpServer::elicitationRequested, this, &McpManager::elicitationRequested);
    connect(server, &McpServer::elicitationWithdrawn, this, [this, name](quint64 id) {
        emit elicitationWithdrawn(name, id);
    });
    return server;
}

void McpManager::removeServer(McpServer *server)
{
    disconnect(server, nullptr, this, nullptr);
    server->stop();
    server->deleteLater();
}

QList<McpServer *> McpManager::servers() const
{
    return m_servers;
}

McpServer *McpManager::server(const QString &name) const
{
    for (McpServer *server : m_servers) {
        if (server->config().name == name)
            return server;
    }
    return nullptr;
}

QList<std::shared_ptr<const McpTool>> McpManager::tools() const
{
    return m_tools;
}

QStringList McpManager::warnings(const QString &serverName) const
{
    return m_warnings.value(serverName);
}

void McpManager::stopAll()
{
    for (McpServer *server : std::as_const(m_servers))
        server->stop();
}

bool McpManager::isStarting() const
{
    return std::any_of(m_servers.cbegin(), m_servers.cend(), [](McpServer *server) {
        return server->status() == McpServer::Status::Starting
               || server->status() == McpServer::Status::Restarting;
    });
}

void McpManager::answerElicitation(const QString &serverName,
                                   quint64 id,
                                   const QString &action,
                                   const QJsonObject &content)
{
    if (McpServer *found = server(serverName))
        found->answerElicitation(id, action, content);
}

void McpManager::rebuildTools()
{
    m_tools.clear();
    m_warnings = m_configWarnings;
    QSet<QString> used;
    for (McpServer *server : std::as_const(m_servers)) {
        const QString serverName = server->config().name;
        if (server->status() != McpServer::Status::Ready)
            continue;
        QStringList &warnings = m_warnings[serverName];
        QList<McpToolInfo> infos = server->tools();
        if (infos.size() > mcpToolsPerServerLimit) {
            warnings.append(tr("The server offers %1 tools; only the first %2 are used.")
                                    .arg(infos.size())
                                    .arg(mcpToolsPerServerLimit));
            infos = infos.first(mcpToolsPerServerLimit);
        }
        for (const McpToolInfo &info : std::as_const(infos)) {
            const QString wanted = mcpToolName(serverName, info.name);
            QString name = wanted;
            for (int number = 2; used.contains(name); ++number)
                name = numberedName(wanted, number);
            used.insert(name);
            auto tool = std::make_shared<const McpTool>(server, info, m_outputDirectory, name);
            if (name != wanted)
                warnings.append(tr("Another tool is already named %1: the tool “%2” is offered "
                                   "as %3.")
                                        .arg(wanted, info.name, name));
            else if (name != mcpToolNamePrefix.toString() + serverName + u"__"_s + info.name)
                warnings.append(tr("The tool “%1” is offered as %2: a tool name may only have "
                                   "letters, digits, “_” and “-”, at most 64 of them.")
                                        .arg(info.name, name));
            if (tool->validationSkipped())
                warnings.append(tr("The input schema of “%1” uses %2, which Agent Loop cannot "
                                   "check: its arguments are not validated, and each approval "
                                   "says so.")
                                        .arg(info.name, tool->unsupportedKeywords().join(u", "_s)));
            m_tools.append(std::move(tool));
        }
    }
}

} // namespace AgentLoop
