#include "mcpservers.h"

#include "agent/agentsession.h"
#include "base/displaytext.h"
#include "mcp/mcpmanager.h"
#include "mcpelicitationdialog.h"
#include "mcptrustprompt.h"
#include "settings/mcpsettings.h"
#include "showntext.h"

#include <QLocale>
#include <QMessageBox>
#include <QToolButton>

using namespace Qt::StringLiterals;
using AgentLoop::McpServer;

namespace Gui {

McpServers::McpServers(AgentLoop::AgentSession &session, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_window(window)
    , m_button(new QToolButton(window))
{
    m_button->setObjectName(u"mcpStatus"_s);
    m_button->setAutoRaise(true);
    m_button->setAccessibleName(tr("MCP servers"));
    m_button->hide();
    connect(m_button, &QToolButton::clicked, this, &McpServers::settingsRequested);
    AgentLoop::McpManager *mcp = &manager();
    connect(mcp, &AgentLoop::McpManager::serverStatusChanged, this, &McpServers::updateStatus);
    connect(mcp, &AgentLoop::McpManager::toolsChanged, this, &McpServers::updateStatus);
    connect(mcp, &AgentLoop::McpManager::elicitationRequested, this, &McpServers::showElicitation);
    connect(mcp,
            &AgentLoop::McpManager::elicitationWithdrawn,
            this,
            &McpServers::withdrawElicitation);
    updateStatus();
}

AgentLoop::McpManager &McpServers::manager() const
{
    return m_session.mcp();
}

QString McpServers::statusText() const
{
    return m_button->text();
}

QString McpServers::statusToolTip() const
{
    return m_button->toolTip();
}

void McpServers::updateStatus()
{
    int running = 0;
    int ready = 0;
    bool failed = false;
    bool starting = false;
    QStringList lines;
    for (const McpServer *server : manager().servers()) {
        if (server->status() == McpServer::Status::Disabled)
            continue;
        ++running;
        const QString name = AgentLoop::displayedLine(server->config().name, 100);
        QString line = tr("%1: %2").arg(name, AgentLoop::mcpStatusText(server->status()));
        switch (server->status()) {
        case McpServer::Status::Ready:
            ++ready;
            // Two sources rather than %n: English has no catalogue to pick a plural form from.
            line += u" — "_s
                    + (server->tools().size() == 1
                               ? tr("1 tool")
                               : tr("%1 tools").arg(QLocale().toString(server->tools().size())));
            break;
        case McpServer::Status::Failed:
            failed = true;
            if (server->lastExitCode() >= 0)
                line += u" "_s + tr("(exit code %1)").arg(server->lastExitCode());
            if (!server->statusDetail().isEmpty())
                line += u": "_s + AgentLoop::displayedLine(server->statusDetail(), 500);
            break;
        case McpServer::Status::Starting:
        case McpServer::Status::Restarting:
            starting = true;
            break;
        case McpServer::Status::Disabled:
        case McpServer::Status::Stopped:
            break;
        }
        lines << line;
    }
    m_button->setVisible(running > 0);
    //: The status bar's MCP servers: "MCP: 2/3 ready"
    m_button->setText(
            tr("MCP: %1/%2 ready").arg(QLocale().toString(ready), QLocale().toString(running)));
    lines << tr("Click to open Settings › MCP servers.");
    m_button->setToolTip(plainToolTip(lines.join(u'\n')));
    QPalette palette = m_window->palette();
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    if (failed)
        palette.setColor(QPalette::ButtonText,
                         dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e));
    else if (starting)
        palette.setColor(QPalette::ButtonText,
                         dark ? QColor(0xff, 0xcc, 0x66) : QColor(0x8a, 0x52, 0x00));
    m_button->setPalette(palette);
}

void McpServers::checkWorkspace(const QString &workspace)
{
    const WorkspaceMcpServers own = workspaceMcpServers(workspace);
    if (!own.needsTrust())
        return;
    const QString key = own.path + u'\n' + own.sha256;
    if (m_asked.contains(key) || m_trustPrompt)
        return;
    m_asked.insert(key);
    m_trustPrompt = McpTrustPrompt::ask(own, m_window);
    connect(m_trustPrompt, &McpTrustPrompt::answered, this, [this](bool trusted) {
        if (trusted)
            emit serversTrusted();
    });
}

McpTrustPrompt *McpServers::trustPrompt() const
{
    return m_trustPrompt;
}

void McpServers::showElicitation(const AgentLoop::McpElicitation &request)
{
    auto *dialog = new McpElicitationDialog(request, m_window);
    dialog->setKnownSecrets(manager().secretValues());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    m_elicitations.removeAll(nullptr);
    m_elicitations.append(dialog);
    // The manager as context: an answer given while the window is destroyed goes nowhere once
    // the session is gone.
    connect(dialog,
            &McpElicitationDialog::answered,
            &manager(),
            [manager = &manager(), server = request.serverName](quint64 id,
                                                                const QString &action,
                                                                const QJsonObject &content) {
                manager->answerElicitation(server, id, action, content);
            });
    dialog->open();
}

void McpServers::withdrawElicitation(const QString &serverName, quint64 id)
{
    for (const QPointer<McpElicitationDialog> &dialog : std::as_const(m_elicitations)) {
        if (dialog && dialog->request().serverName == serverName && dialog->request().id == id)
            dialog->reject();
    }
}

QList<McpElicitationDialog *> McpServers::elicitations() const
{
    QList<McpElicitationDialog *> open;
    for (const QPointer<McpElicitationDialog> &dialog : m_elicitations) {
        if (dialog && dialog->isVisible())
            open.append(dialog);
    }
    return open;
}

void McpServers::closeDialogs()
{
    if (m_trustPrompt && m_trustPrompt->messageBox())
        m_trustPrompt->messageBox()->reject();
    for (const QPointer<McpElicitationDialog> &dialog : std::as_const(m_elicitations)) {
        if (dialog)
            dialog->reject();
    }
}

} // namespace Gui
