#include "mcp/mcpserver.h"

#include "base/redaction.h"

#include <QDir>
#include <QJsonDocument>

#include <algorithm>
#include <iterator>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr qint64 crashWindowMs = 60000;
constexpr int crashesBeforeGivingUp = 3;

} // namespace

McpServer::McpServer(McpServerConfig config, QString workspace, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_workspace(std::move(workspace))
    , m_environment(QProcessEnvironment::systemEnvironment())
    , m_status(m_config.enabled ? Status::Stopped : Status::Disabled)
{
    m_restartTimer.setSingleShot(true);
    connect(&m_restartTimer, &QTimer::timeout, this, &McpServer::launch);
    m_startTimer.setSingleShot(true);
    connect(&m_startTimer, &QTimer::timeout, this, [this] {
        if (!m_client || m_status == Status::Ready)
            return;
        dropClient();
        setStatus(Status::Failed,
                  tr("did not become ready within %1 s").arg(m_startTimeoutMs / 1000));
    });
}

McpServer::~McpServer()
{
    m_restartTimer.stop();
    m_startTimer.stop();
    if (m_client) {
        disconnect(m_client, nullptr, this, nullptr);
        disconnect(m_client->transport(), nullptr, this, nullptr);
        m_client->stop();
    }
}

const McpServerConfig &McpServer::config() const
{
    return m_config;
}

McpServer::Status McpServer::status() const
{
    return m_status;
}

QString McpServer::statusDetail() const
{
    return m_statusDetail;
}

int McpServer::lastExitCode() const
{
    return m_lastExitCode;
}

McpClient::Era McpServer::era() const
{
    return m_era;
}

QString McpServer::protocolVersion() const
{
    return m_protocolVersion;
}

QList<McpToolInfo> McpServer::tools() const
{
    return m_tools;
}

QStringList McpServer::standardErrorTail() const
{
    return m_standardError;
}

McpClient *McpServer::client() const
{
    return m_client;
}

void McpServer::setSecretValues(const QStringList &values)
{
    m_secretValues = values;
    m_secretValues.removeAll(QString());
}

void McpServer::setEnvironment(const QProcessEnvironment &environment)
{
    m_environment = environment;
}

void McpServer::setStartTimeoutMs(int ms)
{
    m_startTimeoutMs = std::max(ms, 1);
}

int McpServer::restartDelayMs(int restart)
{
    return std::min(1000 << std::clamp(restart - 1, 0, 6), 60000);
}

void McpServer::start()
{
    m_restartTimer.stop();
    m_crashTimes.clear();
    m_restarts = 0;
    m_recovering = false;
    const bool hadTools = !m_tools.isEmpty();
    dropClient();
    m_tools.clear();
    if (!m_config.enabled)
        setStatus(Status::Disabled);
    else
        launch();
    if (hadTools)
        emit toolsChanged();
}

void McpServer::stop()
{
    m_restartTimer.stop();
    m_startTimer.stop();
    m_recovering = false;
    const bool hadTools = !m_tools.isEmpty();
    dropClient();
    m_tools.clear();
    setStatus(m_config.enabled ? Status::Stopped : Status::Disabled);
    if (hadTools)
        emit toolsChanged();
}

void McpServer::restart()
{
    stop();
    start();
}

void McpServer::answerElicitation(quint64 id, const QString &action, const QJsonObject &content)
{
    if (!m_client || !m_openElicitations.remove(id))
        return;
    // A key typed (or pasted) into a server's question never reaches the server: the front ends
    // refuse it before, and this is the last place it could still go out.
    const QByteArray typed = QJsonDocument(content).toJson(QJsonDocument::Compact);
    for (const QString &secret : std::as_const(m_secretValues)) {
        if (action == u"accept"_s && containsSecret(typed, secret)) {
            appendStandardError(tr("Agent Loop declined the server's question for it: the answer "
                                   "held a provider's API key."));
            m_client->answerElicitation(id, u"decline"_s, {});
            return;
        }
    }
    m_client->answerElicitation(id, action, content);
}

// Expands the variables first: a server with a missing one fails before anything runs.
void McpServer::launch()
{
    const Result<McpServerConfig> expanded = expandMcpServer(m_config, m_environment);
    if (!expanded) {
        m_recovering = false;
        setStatus(Status::Failed, expanded.error().message);
        return;
    }
    McpTransport *transport = nullptr;
    if (expanded->transport == McpServerConfig::Stdio) {
        const QString directory = expanded->cwd.isEmpty()
                                          ? m_workspace
                                          : QDir(m_workspace).absoluteFilePath(expanded->cwd);
        transport = new McpStdioTransport(*expanded, directory, m_secretValues);
    } else {
        transport = new McpHttpTransport(*expanded);
    }
    const quint64 generation = ++m_generation;
    m_client = new McpClient(m_config.name, transport, m_workspace, this);
    m_clientReady = false;
    // Standard error stays connected after the client is dropped: a crashing server's last words
    // are what the user needs.
    connect(transport, &McpTransport::standardErrorLine, this, &McpServer::appendStandardError);
    connect(transport,
            &McpTransport::closed,
            this,
            [this, generation](int exitCode, const QString &reason, bool expected) {
                onClosed(generation, exitCode, reason, expected);
            });
    connect(m_client, &McpClient::ready, this, [this, generation] {
        if (generation != m_generation || !m_client)
            return;
        m_clientReady = true;
        m_era = m_client->era();
        m_protocolVersion = m_client->protocolVersion();
    });
    connect(m_client, &McpClient::toolsChanged, this, [this, generation] {
        onToolsChanged(generation);
    });
    // Queued: when the process died, the client fails from the same closed() this server hears,
    // and the crash (with its exit code) decides, not the client's sentence.
    connect(
            m_client,
            &McpClient::failed,
            this,
            [this, generation](const QString &reason) { onClientFailed(generation, reason); },
            Qt::QueuedConnection);
    connect(m_client, &McpClient::elicitationRequested, this, [this](McpElicitation request) {
        request.serverName = m_config.name;
        m_openElicitations.insert(request.id);
        emit elicitationRequested(request);
    });
    connect(m_client, &McpClient::elicitationWithdrawn, this, [this](quint64 id) {
        if (m_openElicitations.remove(id))
            emit elicitationWithdrawn(id);
    });
    connect(m_client, &McpClient::logMessage, this, &McpServer::logMessage);
    setStatus(Status::Starting);
    m_startTimer.start(m_startTimeoutMs);
    m_client->start();
}

void McpServer::onToolsChanged(quint64 generation)
{
    if (generation != m_generation || !m_client)
        return;
    m_tools = m_client->tools();
    if (m_status != Status::Ready && m_clientReady) {
        m_startTimer.stop();
        m_recovering = false;
        // A server that stayed up a minute has its restarts forgiven.
        if (!m_crashTimes.isEmpty()
            && QDateTime::currentMSecsSinceEpoch() - m_crashTimes.last() > crashWindowMs)
            m_restarts = 0;
        setStatus(Status::Ready);
    }
    emit toolsChanged();
}

void McpServer::onClosed(quint64 generation, int exitCode, const QString &reason, bool expected)
{
    if (generation != m_generation || !m_client || expected)
        return;
    m_lastExitCode = exitCode;
    const bool wasReady = m_status == Status::Ready;
    const bool hadTools = !m_tools.isEmpty();
    dropClient();
    m_tools.clear();
    m_startTimer.stop();
    // A server that dies before it was ever ready is broken as configured: trying again would
    // only repeat it.
    if (!wasReady && !m_recovering) {
        setStatus(Status::Failed, reason);
        if (hadTools)
            emit toolsChanged();
        return;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_crashTimes.append(now);
    m_crashTimes.removeIf([now](qint64 time) { return now - time > crashWindowMs; });
    if (m_crashTimes.size() >= crashesBeforeGivingUp) {
        m_recovering = false;
        setStatus(Status::Failed,
                  tr("stopped after 3 crashes in a minute (the last: %1)").arg(reason));
    } else {
        ++m_restarts;
        m_recovering = true;
        const int delay = restartDelayMs(m_restarts);
        setStatus(Status::Restarting, tr("%1; restarting in %2 s").arg(reason).arg(delay / 1000));
        m_restartTimer.start(delay);
    }
    if (hadTools)
        emit toolsChanged();
}

void McpServer::onClientFailed(quint64 generation, const QString &reason)
{
    if (generation != m_generation || !m_client)
        return;
    const bool hadTools = !m_tools.isEmpty();
    dropClient();
    m_tools.clear();
    m_startTimer.stop();
    m_recovering = false;
    setStatus(Status::Failed, reason);
    if (hadTools)
        emit toolsChanged();
}

void McpServer::dropClient()
{
    if (!m_client)
        return;
    McpClient *client = std::exchange(m_client, nullptr);
    m_clientReady = false;
    disconnect(client, nullptr, this, nullptr);
    disconnect(client->transport(), &McpTransport::closed, this, nullptr);
    client->stop();
    // Its questions die with it: every form still open is closed.
    for (const quint64 id : std::exchange(m_openElicitations, {}))
        emit elicitationWithdrawn(id);
    // Later: this may run inside one of its signals.
    client->deleteLater();
}

void McpServer::setStatus(Status status, const QString &detail)
{
    if (status == m_status && detail == m_statusDetail)
        return;
    m_status = status;
    m_statusDetail = detail;
    emit statusChanged(status);
}

void McpServer::appendStandardError(const QString &line)
{
    m_standardError.append(line);
    if (m_standardError.size() > mcpStandardErrorLimit)
        m_standardError.remove(0, m_standardError.size() - mcpStandardErrorLimit);
    emit standardErrorLine(line);
}

namespace {

// By Status, in its order: English for the model, translated for the user.
const char *const statusNames[] = {
        QT_TRANSLATE_NOOP("AgentLoop::McpServer", "disabled"),
        QT_TRANSLATE_NOOP("AgentLoop::McpServer", "starting"),
        QT_TRANSLATE_NOOP("AgentLoop::McpServer", "ready"),
        QT_TRANSLATE_NOOP("AgentLoop::McpServer", "failed"),
        QT_TRANSLATE_NOOP("AgentLoop::McpServer", "restarting"),
        QT_TRANSLATE_NOOP("AgentLoop::McpServer", "stopped"),
};
static_assert(std::size(statusNames) == int(McpServer::Status::Stopped) + 1);

} // namespace

QString mcpStatusText(McpServer::Status status)
{
    return McpServer::tr(statusNames[int(status)]);
}

QString mcpStatusName(McpServer::Status status)
{
    return QString::fromLatin1(statusNames[int(status)]);
}

} // namespace AgentLoop
