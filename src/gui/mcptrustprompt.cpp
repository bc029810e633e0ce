#include "mcptrustprompt.h"

#include "showntext.h"

#include <QDir>
#include <QFontMetrics>
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

    // Everything a yes would start and send: the command or URL, every variable and header it
    // is given (the values written in the file hidden, the ${VAR} they take shown), its folder,
    // and whether the file asks for its read-only tools to run unasked.
    QStringList lines;
    const QString indent = u"    "_s;
    if (servers.servers) {
        for (const McpServerConfig &server : *servers.servers) {
            const QString name = AgentLoop::displayedLine(server.name, 200);
            const QString how = server.transport == McpServerConfig::Http ? tr("URL") : tr("runs");
            //: A server in the trust question: "<name> (runs): <command line>"
            lines << tr("%1 (%2): %3").arg(name, how, mcpServerCommandText(server));
            if (!server.enabled)
                lines.last() += u' ' + tr("[disabled in the file]");
            for (auto it = server.env.cbegin(); it != server.env.cend(); ++it) {
                //: An environment variable the server gets: "environment NAME = ••••${VAR}"
                lines << indent
                                 + tr("environment %1 = %2")
                                           .arg(AgentLoop::displayedLine(it.key(), 200),
                                                maskedMcpValue(it.value()));
            }
            for (auto it = server.headers.cbegin(); it != server.headers.cend(); ++it) {
                //: A header sent with every request: "header Authorization: ••••${TOKEN}"
                lines << indent
                                 + tr("header %1: %2")
                                           .arg(AgentLoop::displayedLine(it.key(), 200),
                                                maskedMcpValue(it.value()));
            }
            if (!server.cwd.isEmpty())
                lines << indent
                                 + tr("in the folder %1")
                                           .arg(AgentLoop::displayedLine(QDir::toNativeSeparators(
                                                                                 server.cwd),
                                                                         1000));
            if (server.trusted)
                lines << indent
                                 + tr("marked trusted in the file: its read-only tools would run "
                                      "without asking you");
        }
    }
    m_view = newBodyView(u"mcpTrustServers"_s,
                         tr("Servers, their command lines and what they are given"),
                         box,
                         true);
    m_view->setPlainText(lines.join(u"\n"_s));
    const QFontMetrics metrics = m_view->fontMetrics();
    const int width = metrics.averageCharWidth() * 80;
    m_view->setMinimumWidth(width);
    // Tall enough for every line as it wraps at that width (a long command takes several), so
    // that nothing a yes would give waits below a scroll bar; a very long file scrolls.
    const int textWidth = width - 2 * metrics.averageCharWidth() - 24; // margins, scroll bar
    qsizetype shownLines = 1;
    for (const QString &line : std::as_const(lines))
        shownLines += 1 + metrics.horizontalAdvance(line) / std::max(1, textWidth);
    m_view->setFixedHeight(m_view->fontMetrics().lineSpacing()
                                   * int(std::clamp<qsizetype>(shownLines, 3, 20))
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
