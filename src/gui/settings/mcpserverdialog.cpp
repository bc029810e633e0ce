#include "settings/mcpserverdialog.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStackedWidget>
#include <QUrl>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::McpServerConfig;

namespace Gui {

namespace {

QPlainTextEdit *newLinesEdit(const QString &objectName, const QString &placeholder, QWidget *parent)
{
    auto *edit = new QPlainTextEdit(parent);
    edit->setObjectName(objectName);
    edit->setPlaceholderText(placeholder);
    edit->setTabChangesFocus(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * 4 + 12);
    return edit;
}

QStringList nonEmptyLines(const QString &text)
{
    QStringList lines;
    for (const QString &line : text.split(u'\n')) {
        QString kept = line;
        if (kept.endsWith(u'\r'))
            kept.chop(1);
        if (!kept.trimmed().isEmpty())
            lines << kept;
    }
    return lines;
}

QString joinedPairs(const QMap<QString, QString> &pairs, const QString &separator)
{
    QStringList lines;
    for (auto it = pairs.cbegin(); it != pairs.cend(); ++it)
        lines << it.key() + separator + it.value();
    return lines.join(u'\n');
}

} // namespace

McpServerDialog::McpServerDialog(const McpServerConfig &server,
                                 const QStringList &takenNames,
                                 QWidget *parent)
    : QDialog(parent)
    , m_original(server)
    , m_takenNames(takenNames)
    , m_name(new QLineEdit(server.name, this))
    , m_transport(new QComboBox(this))
    , m_pages(new QStackedWidget(this))
    , m_command(new QLineEdit(server.command, this))
    , m_arguments(newLinesEdit(u"mcpArguments"_s,
                               u"-y\n@modelcontextprotocol/server-filesystem\n${HOME}/projects"_s,
                               this))
    , m_environment(newLinesEdit(u"mcpEnvironment"_s,
                                 u"GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}"_s,
                                 this))
    , m_url(new QLineEdit(server.url, this))
    , m_headers(newLinesEdit(u"mcpHeaders"_s, u"Authorization: Bearer ${API_TOKEN}"_s, this))
    , m_timeout(new QSpinBox(this))
    , m_problem(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setObjectName(u"mcpServerDialog"_s);
    setWindowTitle(server.name.isEmpty() ? tr("Add an MCP Server") : tr("Edit the MCP Server"));
    setMinimumWidth(fontMetrics().averageCharWidth() * 72);
    m_name->setObjectName(u"mcpName"_s);
    m_name->setPlaceholderText(u"filesystem"_s);
    m_transport->setObjectName(u"mcpTransport"_s);
    m_transport->addItem(tr("A program (standard input and output)"), int(McpServerConfig::Stdio));
    m_transport->addItem(tr("A URL (Streamable HTTP)"), int(McpServerConfig::Http));
    m_transport->setCurrentIndex(server.transport == McpServerConfig::Http ? 1 : 0);
    m_command->setObjectName(u"mcpCommand"_s);
    m_command->setPlaceholderText(u"npx"_s);
    m_arguments->setPlainText(server.args.join(u'\n'));
    m_environment->setPlainText(joinedPairs(server.env, u"="_s));
    m_url->setObjectName(u"mcpUrl"_s);
    m_url->setPlaceholderText(u"https://example.com/mcp"_s);
    m_headers->setPlainText(joinedPairs(server.headers, u": "_s));
    m_timeout->setObjectName(u"mcpTimeout"_s);
    m_timeout->setRange(1, 3600);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setValue(std::clamp((server.timeoutMs + 999) / 1000, 1, 3600));
    m_problem->setObjectName(u"mcpServerProblem"_s);
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setWordWrap(true);
    QPalette palette = m_problem->palette();
    palette.setColor(QPalette::WindowText,
                     palette.color(QPalette::Window).lightness() < 128 ? QColor(0xff, 0x8a, 0x80)
                                                                       : QColor(0xb3, 0x26, 0x1e));
    m_problem->setPalette(palette);

    auto *stdioPage = new QWidget(m_pages);
    auto *stdioForm = new QFormLayout(stdioPage);
    stdioForm->setContentsMargins(0, 0, 0, 0);
    stdioForm->addRow(tr("&Command:"), m_command);
    stdioForm->addRow(tr("&Arguments (one per line):"), m_arguments);
    stdioForm->addRow(tr("&Environment (KEY=VALUE lines):"), m_environment);
    stdioForm->addRow(
            QString(),
            newNoteLabel(tr("${VAR} takes the value of VAR from the app's environment when "
                            "the server starts (${VAR:-default} when it is unset); a missing "
                            "variable is named and the server is not started. Servers never "
                            "get the provider's API key."),
                         stdioPage));
    auto *httpPage = new QWidget(m_pages);
    auto *httpForm = new QFormLayout(httpPage);
    httpForm->setContentsMargins(0, 0, 0, 0);
    httpForm->addRow(tr("&URL:"), m_url);
    httpForm->addRow(tr("&Headers (Name: value lines):"), m_headers);
    httpForm->addRow(
            QString(),
            newNoteLabel(tr("${VAR} in the URL and the headers takes the value of VAR from "
                            "the app's environment, so that a token need not be written "
                            "here."),
                         httpPage));
    m_pages->addWidget(stdioPage);
    m_pages->addWidget(httpPage);
    m_pages->setCurrentIndex(m_transport->currentIndex());

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Reached as:"), m_transport);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_pages);
    auto *timeoutForm = new QFormLayout;
    timeoutForm->addRow(tr("A call may take &up to:"), m_timeout);
    layout->addLayout(timeoutForm);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (isValid())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_transport, &QComboBox::currentIndexChanged, m_pages, &QStackedWidget::setCurrentIndex);
    connect(m_transport, &QComboBox::currentIndexChanged, this, &McpServerDialog::validate);
    for (QLineEdit *edit : {m_name, m_command, m_url})
        connect(edit, &QLineEdit::textChanged, this, &McpServerDialog::validate);
    for (QPlainTextEdit *edit : {m_arguments, m_environment, m_headers})
        connect(edit, &QPlainTextEdit::textChanged, this, &McpServerDialog::validate);
    validate();
}

McpServerConfig McpServerDialog::server() const
{
    McpServerConfig server = m_original;
    server.name = m_name->text().trimmed();
    server.transport = McpServerConfig::Transport(m_transport->currentData().toInt());
    // A time in milliseconds from a file stays as it was unless the user changed it here.
    if (m_timeout->value() != std::clamp((m_original.timeoutMs + 999) / 1000, 1, 3600))
        server.timeoutMs = m_timeout->value() * 1000;
    if (server.transport == McpServerConfig::Stdio) {
        server.env.clear();
        server.command = m_command->text().trimmed();
        server.args = nonEmptyLines(m_arguments->toPlainText());
        if (const auto env = parseEnvironment(m_environment->toPlainText()))
            server.env = *env;
        server.url.clear();
        server.headers.clear();
    } else {
        server.headers.clear();
        server.url = m_url->text().trimmed();
        if (const auto headers = parseHeaders(m_headers->toPlainText()))
            server.headers = *headers;
        server.command.clear();
        server.args.clear();
        server.env.clear();
    }
    return server;
}

bool McpServerDialog::isValid() const
{
    return problemText().isEmpty();
}

QString McpServerDialog::problemText() const
{
    const QString name = m_name->text().trimmed();
    if (name.isEmpty())
        return tr("Give the server a name.");
    if (m_takenNames.contains(name))
        return tr("Another server is named “%1”.").arg(AgentLoop::displayedLine(name, 100));
    if (m_transport->currentData().toInt() == McpServerConfig::Stdio) {
        if (m_command->text().trimmed().isEmpty())
            return tr("Enter the program that runs the server (npx, uvx, node, a path…).");
        if (const auto env = parseEnvironment(m_environment->toPlainText()); !env)
            return env.error().message;
        return {};
    }
    const QString text = m_url->text().trimmed();
    const QUrl url(text);
    // A ${VAR} may stand for any part of it: only its scheme can be checked before it starts.
    if (text.isEmpty())
        return tr("Enter the server's URL.");
    if (!text.startsWith(u"${"_s)
        && (!url.isValid() || (url.scheme() != u"http"_s && url.scheme() != u"https"_s)))
        return tr("The URL must start with http:// or https://.");
    if (const auto headers = parseHeaders(m_headers->toPlainText()); !headers)
        return headers.error().message;
    return {};
}

void McpServerDialog::validate()
{
    const QString problem = problemText();
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

AgentLoop::Result<QMap<QString, QString>> McpServerDialog::parseEnvironment(const QString &text)
{
    static const QRegularExpression variableName(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    QMap<QString, QString> pairs;
    for (const QString &line : nonEmptyLines(text)) {
        const qsizetype equals = line.indexOf(u'=');
        const QString key = line.left(equals).trimmed();
        if (equals < 0 || !variableName.match(key).hasMatch())
            return AgentLoop::Error{AgentLoop::Error::Configuration,
                                    tr("“%1” is no KEY=VALUE line.")
                                            .arg(AgentLoop::displayedLine(line, 100))};
        pairs.insert(key, line.mid(equals + 1));
    }
    return pairs;
}

AgentLoop::Result<QMap<QString, QString>> McpServerDialog::parseHeaders(const QString &text)
{
    static const QRegularExpression headerName(u"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"_s);
    QMap<QString, QString> pairs;
    for (const QString &line : nonEmptyLines(text)) {
        const qsizetype colon = line.indexOf(u':');
        const QString name = line.left(colon).trimmed();
        if (colon < 0 || !headerName.match(name).hasMatch())
            return AgentLoop::Error{AgentLoop::Error::Configuration,
                                    tr("“%1” is no “Name: value” line.")
                                            .arg(AgentLoop::displayedLine(line, 100))};
        pairs.insert(name, line.mid(colon + 1).trimmed());
    }
    return pairs;
}

} // namespace Gui
