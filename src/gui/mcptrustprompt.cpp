#include "mcptrustprompt.h"

#include "showntext.h"

#include <QDir>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>

using namespace Qt::StringLiterals;
using AgentLoop::McpServerConfig;

namespace Gui {

McpTrustPrompt *McpTrustPrompt::ask(const WorkspaceMcpServers &servers, QWidget *parent)
{
    auto *box = new QMessageBox(parent);
    auto *prompt = new McpTrustPrompt(servers, box);
    box->open();
    return prompt;
}

McpTrustPrompt::McpTrustPrompt(const WorkspaceMcpServers &servers, QMessageBox *box)
    : QObject(box)
    , m_path(servers.path)
    , m_sha256(servers.sha256)
    , m_box(box)
{
    box->setObjectName(u"mcpTrustPrompt"_s);
    box->setWindowTitle(tr("Start this workspace's MCP servers?"));
    box->setIcon(QMessageBox::Warning);
    box->setTextFormat(Qt::PlainText);
    box->setText(tr("This workspace's %1 asks to start these MCP servers. They are programs that "
                    "run on this computer with your account's rights, or addresses that receive "
                    "what the model sends them.")
                         .arg(QDir::toNativeSeparators(m_path)));
    box->setInformativeText(tr("Start them only if you trust this project. Nothing starts unless "
                               "you say so; if the file changes, you are asked again."));

    QStringList lines;
    if (servers.servers) {
        for (const McpServerConfig &server : *servers.servers) {
            const QString name = AgentLoop::displayedLine(server.name, 200);
            const QString how = server.transport == McpServerConfig::Http ? tr("URL") : tr("runs");
            //: A server in the trust question: "<name> (runs): <command line>"
            lines << tr("%1 (%2): %3").arg(name, how, mcpServerLaunchText(server));
            if (!server.enabled)
                lines.last() += u' ' + tr("[disabled in the file]");
        }
    }
    m_view = newBodyView(u"mcpTrustServers"_s, tr("Servers and their command lines"), box, true);
    m_view->setPlainText(lines.join(u"\n"_s));
    m_view->setMinimumWidth(m_view->fontMetrics().averageCharWidth() * 80);
    m_view->setFixedHeight(m_view->fontMetrics().lineSpacing()
                                   * int(std::clamp<qsizetype>(lines.size() * 2, 3, 12))
                           + 12);
    insertAboveButtons(box, m_view);

    m_start = box->addButton(tr("&Start these servers"), QMessageBox::AcceptRole);
    m_start->setObjectName(u"mcpTrustStart"_s);
    m_notNow = box->addButton(tr("&Not now"), QMessageBox::RejectRole);
    m_notNow->setObjectName(u"mcpTrustNotNow"_s);
    box->setDefaultButton(m_notNow);
    box->setEscapeButton(m_notNow);
    connect(box, &QMessageBox::finished, this, [this] {
        answer(m_box && m_box->clickedButton() == m_start);
        if (m_box)
            m_box->deleteLater();
    });
}

McpTrustPrompt::~McpTrustPrompt()
{
    answer(false);
}

void McpTrustPrompt::answer(bool trusted)
{
    if (m_answered)
        return;
    m_answered = true;
    if (trusted)
        trustWorkspaceMcpServers(m_path, m_sha256);
    emit answered(trusted);
}

} // namespace Gui
