#include "settings/mcpimportdialog.h"

#include "base/displaytext.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// A file bigger than any configuration is not read into the box.
constexpr qint64 maximumFileBytes = 4 * 1024 * 1024;

QColor errorColor(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128 ? QColor(0xff, 0x8a, 0x80)
                                                             : QColor(0xb3, 0x26, 0x1e);
}

} // namespace

McpImportDialog::McpImportDialog(const QStringList &existingNames, QWidget *parent)
    : QDialog(parent)
    , m_existingNames(existingNames)
    , m_text(new QPlainTextEdit(this))
    , m_summary(new QLabel(this))
    , m_error(new QLabel(this))
    , m_openFile(new QPushButton(tr("&Open a file…"), this))
    , m_import(new QPushButton(tr("&Import"), this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setObjectName(u"mcpImportDialog"_s);
    setWindowTitle(tr("Import MCP Servers"));
    setMinimumWidth(fontMetrics().averageCharWidth() * 80);
    auto *intro = new QLabel(tr("Paste an mcpServers block, or open a file: a Claude Desktop "
                                "(claude_desktop_config.json) or Cursor (.cursor/mcp.json) "
                                "configuration imports as it is. The servers are added to the "
                                "app's servers, for every workspace."),
                             this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::PlainText);
    m_text->setObjectName(u"mcpImportText"_s);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setTabChangesFocus(true);
    m_text->setAccessibleName(tr("Servers to import"));
    m_text->setPlaceholderText(
            u"{\n  \"mcpServers\": {\n    \"filesystem\": {\n      \"command\": "
            u"\"npx\",\n      \"args\": [\"-y\", "
            u"\"@modelcontextprotocol/server-filesystem\", \".\"]\n    }\n  }\n}"_s);
    m_text->setMinimumHeight(m_text->fontMetrics().lineSpacing() * 14);
    for (QLabel *label : {m_summary, m_error}) {
        label->setTextFormat(Qt::PlainText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->hide();
    }
    m_summary->setObjectName(u"mcpImportSummary"_s);
    m_error->setObjectName(u"mcpImportError"_s);
    QPalette palette = m_error->palette();
    palette.setColor(QPalette::WindowText, errorColor(palette));
    m_error->setPalette(palette);
    m_openFile->setObjectName(u"mcpImportOpenFile"_s);
    m_import->setObjectName(u"mcpImportButton"_s);
    m_import->setDefault(true);
    m_buttons->addButton(m_import, QDialogButtonBox::AcceptRole);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_summary);
    layout->addWidget(m_error);
    auto *row = new QHBoxLayout;
    row->addWidget(m_openFile);
    row->addStretch();
    row->addWidget(m_buttons);
    layout->addLayout(row);

    // Import routes through tryImport(): the box closes only on servers that parsed.
    connect(m_buttons, &QDialogButtonBox::accepted, this, &McpImportDialog::tryImport);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_text, &QPlainTextEdit::textChanged, this, &McpImportDialog::updateSummary);
    connect(m_openFile, &QPushButton::clicked, this, [this] {
        auto *dialog = new QFileDialog(this,
                                       tr("Open an MCP configuration"),
                                       QStandardPaths::writableLocation(
                                               QStandardPaths::HomeLocation),
                                       tr("JSON files (*.json);;All files (*)"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setFileMode(QFileDialog::ExistingFile);
        connect(dialog, &QFileDialog::fileSelected, this, &McpImportDialog::readFile);
        m_fileDialog = dialog;
        dialog->open();
    });
    updateSummary();
}

QString McpImportDialog::errorText() const
{
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

QString McpImportDialog::summaryText() const
{
    return m_summary->isVisibleTo(this) ? m_summary->text() : QString();
}

void McpImportDialog::readFile(const QString &path)
{
    QFile file(path);
    if (file.size() > maximumFileBytes) {
        showError(tr("%1 is too big for a configuration file.").arg(QDir::toNativeSeparators(path)));
        return;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        showError(
                tr("Could not read %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
        return;
    }
    // Replaces what was typed, as one undoable edit: Ctrl+Z brings it back.
    QTextCursor cursor(m_text->document());
    cursor.select(QTextCursor::Document);
    cursor.insertText(QString::fromUtf8(file.readAll()));
}

void McpImportDialog::tryImport()
{
    const QByteArray json = m_text->toPlainText().toUtf8();
    if (json.trimmed().isEmpty()) {
        showError(tr("Paste servers or open a file first."));
        return;
    }
    const auto parsed = AgentLoop::parseMcpServers(json, AgentLoop::McpConfigOrigin::App);
    if (!parsed) {
        showError(tr("Nothing was imported: %1").arg(parsed.error().toString()));
        return;
    }
    if (parsed->isEmpty()) {
        showError(tr("Nothing was imported: there is no server in this text."));
        return;
    }
    m_servers = *parsed;
    accept();
}

void McpImportDialog::updateSummary()
{
    m_error->hide();
    const QByteArray json = m_text->toPlainText().toUtf8();
    m_import->setEnabled(!json.trimmed().isEmpty());
    const auto parsed = json.trimmed().isEmpty()
                                ? AgentLoop::Result<QList<AgentLoop::McpServerConfig>>(
                                        QList<AgentLoop::McpServerConfig>())
                                : AgentLoop::parseMcpServers(json, AgentLoop::McpConfigOrigin::App);
    if (!parsed || parsed->isEmpty()) {
        m_summary->hide();
        return;
    }
    QStringList names;
    QStringList replaced;
    for (const AgentLoop::McpServerConfig &server : *parsed) {
        const QString name = AgentLoop::displayedLine(server.name, 100);
        names << name;
        if (m_existingNames.contains(server.name))
            replaced << name;
    }
    QString text = tr("Servers found: %1.").arg(names.join(u", "_s));
    if (!replaced.isEmpty())
        text += u' '
                + tr("These replace the servers of the same name: %1.").arg(replaced.join(u", "_s));
    m_summary->setText(text);
    m_summary->show();
}

void McpImportDialog::showError(const QString &text)
{
    m_error->setText(AgentLoop::displayed(text, {true, true, false, 4000}));
    m_error->show();
}

} // namespace Gui
