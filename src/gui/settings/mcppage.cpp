#include "settings/mcppage.h"

#include "base/displaytext.h"
#include "mcp/mcpmanager.h"
#include "mcptrustprompt.h"
#include "settings/mcpimportdialog.h"
#include "settings/mcpserverdialog.h"
#include "settings/mcpsettings.h"
#include "showntext.h"

#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::McpConfigOrigin;
using AgentLoop::McpServer;
using AgentLoop::McpServerConfig;

namespace Gui {

namespace {

enum Column { NameColumn, StateColumn, ProtocolColumn, ToolsColumn, WhereColumn, ColumnCount };
enum ToolColumn { ToolName, ToolKind, ToolAsks, ToolDescription, ToolColumnCount };

// What a server or a file says, as the page shows it.
constexpr qsizetype nameLength = 100;
constexpr qsizetype detailLength = 2000;
constexpr qsizetype descriptionCellLength = 300;
constexpr qsizetype standardErrorLineLength = 2000;

enum class Tone { Good, Busy, Bad, Quiet };

QColor toneColor(Tone tone, const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    switch (tone) {
    case Tone::Good:
        return dark ? QColor(0x81, 0xc9, 0x95) : QColor(0x1e, 0x7b, 0x34);
    case Tone::Busy:
        return dark ? QColor(0xff, 0xcc, 0x66) : QColor(0x8a, 0x52, 0x00);
    case Tone::Bad:
        return dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
    case Tone::Quiet:
        break;
    }
    return palette.color(QPalette::PlaceholderText);
}

// A dot in the state's colour: the state is told by its word too, the colour only helps.
QIcon stateIcon(const QColor &color)
{
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(color.darker(130));
    painter.setBrush(color);
    painter.drawEllipse(QRectF(3.5, 3.5, 9, 9));
    return QIcon(pixmap);
}

void setLabelColor(QLabel *label, const QColor &color)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, color);
    label->setPalette(palette);
}

QLabel *newLabel(const QString &objectName, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QString whereName(McpConfigOrigin origin)
{
    switch (origin) {
    case McpConfigOrigin::App:
        return McpServersPage::tr("All workspaces");
    case McpConfigOrigin::Workspace:
        return McpServersPage::tr("This workspace");
    case McpConfigOrigin::File:
        return McpServersPage::tr("File");
    }
    return {};
}

Tone toneOf(McpServer::Status status)
{
    switch (status) {
    case McpServer::Status::Ready:
        return Tone::Good;
    case McpServer::Status::Starting:
    case McpServer::Status::Restarting:
        return Tone::Busy;
    case McpServer::Status::Failed:
        return Tone::Bad;
    case McpServer::Status::Disabled:
    case McpServer::Status::Stopped:
        break;
    }
    return Tone::Quiet;
}

} // namespace

QString mcpProtocolText(AgentLoop::McpClient::Era era, const QString &version)
{
    if (version.isEmpty())
        return {};
    switch (era) {
    case AgentLoop::McpClient::Era::Modern:
        //: A protocol version and its era: "2026-07-28 (modern)"
        return McpServersPage::tr("%1 (modern)").arg(AgentLoop::displayedLine(version, 40));
    case AgentLoop::McpClient::Era::Legacy:
        //: A protocol version and its era: "2025-11-25 (legacy)"
        return McpServersPage::tr("%1 (legacy)").arg(AgentLoop::displayedLine(version, 40));
    case AgentLoop::McpClient::Era::Unknown:
        break;
    }
    return AgentLoop::displayedLine(version, 40);
}

McpServersPage::McpServersPage(const QString &workspace,
                               const AgentLoop::McpManager *manager,
                               QWidget *parent)
    : QWidget(parent)
    , m_manager(manager)
    , m_list(new QTreeWidget(this))
    , m_add(new QPushButton(tr("A&dd…"), this))
    , m_edit(new QPushButton(tr("&Edit…"), this))
    , m_remove(new QPushButton(tr("Re&move"), this))
    , m_restart(new QPushButton(tr("Res&tart"), this))
    , m_enable(new QPushButton(tr("Disa&ble"), this))
    , m_import(new QPushButton(tr("&Import JSON…"), this))
    , m_trustWorkspace(new QPushButton(tr("Trust and &start this workspace's servers…"), this))
    , m_message(newLabel(u"mcpMessage"_s, this))
    , m_files(newLabel(u"mcpFiles"_s, this))
    , m_state(newLabel(u"mcpState"_s, this))
    , m_launch(newLabel(u"mcpLaunch"_s, this))
    , m_protocol(newLabel(u"mcpProtocol"_s, this))
    , m_warnings(newLabel(u"mcpWarnings"_s, this))
    , m_trusted(new QCheckBox(tr("T&rusted (read-only tools run without asking)"), this))
    , m_tabs(new QTabWidget(this))
    , m_tools(new QTableWidget(0, ToolColumnCount, this))
    , m_standardError(newBodyView(u"mcpStandardError"_s, tr("Standard error"), this))
    , m_details(new QWidget(this))
{
    setObjectName(u"mcpServersPage"_s);
    m_list->setObjectName(u"mcpServerList"_s);
    m_list->setAccessibleName(tr("MCP servers"));
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({tr("Server"), tr("State"), tr("Protocol"), tr("Tools"), tr("Where")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(StateColumn, QHeaderView::Stretch);
    m_list->setMinimumHeight(fontMetrics().lineSpacing() * 6);

    m_add->setObjectName(u"mcpAdd"_s);
    m_edit->setObjectName(u"mcpEdit"_s);
    m_remove->setObjectName(u"mcpRemove"_s);
    m_restart->setObjectName(u"mcpRestart"_s);
    m_enable->setObjectName(u"mcpEnable"_s);
    m_import->setObjectName(u"mcpImport"_s);
    m_trustWorkspace->setObjectName(u"mcpTrustWorkspace"_s);
    m_trusted->setObjectName(u"mcpTrusted"_s);
    m_trusted->setToolTip(tr("A tool the server marks read-only (readOnlyHint) then runs without "
                             "asking, unless a permission rule says otherwise. Tools that may "
                             "change anything always ask."));
    setLabelColor(m_files, palette().color(QPalette::PlaceholderText));
    QFont bold = m_state->font();
    bold.setBold(true);
    m_state->setFont(bold);

    m_tools->setObjectName(u"mcpTools"_s);
    m_tools->setAccessibleName(tr("Tools of the server"));
    m_tools->setHorizontalHeaderLabels({tr("Tool"), tr("Kind"), tr("Approval"), tr("Description")});
    m_tools->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tools->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tools->verticalHeader()->hide();
    m_tools->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tools->horizontalHeader()->setStretchLastSection(true);
    m_tools->setWordWrap(false);
    m_standardError->setMaximumBlockCount(AgentLoop::mcpStandardErrorLimit);
    m_tabs->setObjectName(u"mcpDetailTabs"_s);
    m_tabs->addTab(m_tools, tr("Tools"));
    m_tabs->addTab(m_standardError, tr("Standard error"));

    auto *serversGroup = new QGroupBox(tr("Servers"), this);
    auto *serversLayout = new QVBoxLayout(serversGroup);
    serversLayout->addWidget(m_list, 1);
    auto *buttons = new QHBoxLayout;
    for (QPushButton *button : {m_add, m_edit, m_remove, m_restart, m_enable, m_import})
        buttons->addWidget(button);
    buttons->addStretch();
    serversLayout->addLayout(buttons);
    serversLayout->addWidget(m_trustWorkspace, 0, Qt::AlignLeft);
    serversLayout->addWidget(m_message);
    serversLayout->addWidget(m_files);

    auto *detailsLayout = new QVBoxLayout(m_details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_state);
    detailsLayout->addWidget(m_launch);
    detailsLayout->addWidget(m_protocol);
    detailsLayout->addWidget(m_warnings);
    detailsLayout->addWidget(m_trusted);
    detailsLayout->addWidget(m_tabs, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(serversGroup, 2);
    layout->addWidget(m_details, 3);

    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(0);
    connect(&m_refreshTimer, &QTimer::timeout, this, &McpServersPage::refresh);
    connect(m_add, &QPushButton::clicked, this, &McpServersPage::addServer);
    connect(m_edit, &QPushButton::clicked, this, &McpServersPage::editSelectedServer);
    connect(m_remove, &QPushButton::clicked, this, &McpServersPage::removeSelectedServer);
    connect(m_restart, &QPushButton::clicked, this, &McpServersPage::restartSelectedServer);
    connect(m_enable, &QPushButton::clicked, this, [this] {
        if (const McpServerConfig *server = selectedServer())
            setSelectedEnabled(!server->enabled);
    });
    connect(m_import, &QPushButton::clicked, this, &McpServersPage::importServers);
    connect(m_trustWorkspace, &QPushButton::clicked, this, &McpServersPage::trustWorkspace);
    connect(m_trusted, &QCheckBox::clicked, this, &McpServersPage::setSelectedTrusted);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, [this] {
        updateButtons();
        refreshDetails();
    });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, &McpServersPage::editSelectedServer);
    connect(m_list, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem *item, int column) {
        if (column != NameColumn)
            return;
        const int index = item->data(NameColumn, Qt::UserRole).toInt();
        const bool enabled = item->checkState(NameColumn) == Qt::Checked;
        if (index < 0 || index >= m_servers.size() || m_servers.at(index).enabled == enabled)
            return;
        // Saving fills the list anew, which deletes this item: not while the tree is still in
        // its setData().
        const QString name = m_servers.at(index).name;
        const McpConfigOrigin origin = m_servers.at(index).origin;
        QMetaObject::invokeMethod(
                this,
                [this, name, origin, enabled] {
                    selectServer(name, origin);
                    setSelectedEnabled(enabled);
                },
                Qt::QueuedConnection);
    });
    if (m_manager) {
        connect(m_manager,
                &AgentLoop::McpManager::serverStatusChanged,
                this,
                &McpServersPage::scheduleRefresh);
        connect(m_manager,
                &AgentLoop::McpManager::toolsChanged,
                this,
                &McpServersPage::scheduleRefresh);
    }

    m_workspace = workspace;
    reload();
}

McpServersPage::~McpServersPage() = default;

void McpServersPage::setWorkspace(const QString &workspace)
{
    if (workspace == m_workspace)
        return;
    m_workspace = workspace;
    reload();
}

void McpServersPage::reload()
{
    const McpServerConfig *selected = selectedServer();
    const QString selectedName = selected ? selected->name : QString();
    const McpConfigOrigin selectedOrigin = selected ? selected->origin : McpConfigOrigin::App;

    m_servers.clear();
    m_appError.clear();
    m_workspaceError.clear();
    if (const auto app = readAppMcpServers())
        m_servers = *app;
    else
        m_appError = app.error().toString();
    const WorkspaceMcpServers own = workspaceMcpServers(m_workspace);
    m_workspaceTrusted = own.trusted;
    m_workspaceHasServers = false;
    if (own.servers) {
        m_servers += *own.servers;
        m_workspaceHasServers = !own.servers->isEmpty();
    } else {
        m_workspaceError = own.servers.error().toString();
    }
    fillList();
    if (!selectedName.isEmpty())
        selectServer(selectedName, selectedOrigin);
    if (!selectedServer() && !m_servers.isEmpty())
        m_list->setCurrentItem(m_list->topLevelItem(0));
    showMessages();
    updateButtons();
    refreshDetails();
}

void McpServersPage::fillList()
{
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (int index = 0; index < m_servers.size(); ++index) {
        const McpServerConfig &server = m_servers.at(index);
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(NameColumn, AgentLoop::displayedLine(server.name, nameLength));
        item->setData(NameColumn, Qt::UserRole, index);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(NameColumn, server.enabled ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(NameColumn, tr("Enabled: the server starts with the session."));
        item->setText(WhereColumn, whereName(server.origin));
    }
    refresh();
}

void McpServersPage::scheduleRefresh()
{
    m_refreshTimer.start();
}

// The rows' states, protocols and tool counts, and the selected server's details, as the manager
// has them now.
void McpServersPage::refresh()
{
    const QSignalBlocker blocker(m_list);
    for (int row = 0; row < m_list->topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = m_list->topLevelItem(row);
        const int index = item->data(NameColumn, Qt::UserRole).toInt();
        QColor color;
        const QString state = rowState(index, &color);
        item->setText(StateColumn, state);
        item->setToolTip(StateColumn, plainToolTip(state));
        item->setIcon(StateColumn, stateIcon(color));
        item->setForeground(StateColumn, color);
        const McpServer *server = liveServer(index);
        item->setText(ProtocolColumn,
                      server ? mcpProtocolText(server->era(), server->protocolVersion())
                             : QString());
        item->setText(ToolsColumn,
                      server && server->status() == McpServer::Status::Ready
                              ? QLocale().toString(server->tools().size())
                              : QString());
    }
    updateButtons();
    refreshDetails();
}

bool McpServersPage::isReplaced(int index) const
{
    const McpServerConfig &server = m_servers.at(index);
    if (server.origin != McpConfigOrigin::App || !m_workspaceTrusted)
        return false;
    return indexOf(server.name, McpConfigOrigin::Workspace) >= 0;
}

McpServer *McpServersPage::liveServer(int index) const
{
    if (!m_manager || index < 0 || index >= m_servers.size() || isReplaced(index))
        return nullptr;
    const McpServerConfig &config = m_servers.at(index);
    if (config.origin == McpConfigOrigin::Workspace && !m_workspaceTrusted)
        return nullptr;
    McpServer *server = m_manager->server(config.name);
    // The session may still run an older configuration (a run is going on): its state is not
    // this entry's.
    if (!server || server->config().origin != config.origin)
        return nullptr;
    return server;
}

QString McpServersPage::rowState(int index, QColor *color) const
{
    const McpServerConfig &config = m_servers.at(index);
    *color = toneColor(Tone::Quiet, palette());
    if (config.origin == McpConfigOrigin::Workspace && !m_workspaceTrusted)
        return tr("not trusted: not started");
    if (isReplaced(index))
        return tr("replaced by this workspace's server of the same name");
    if (!config.enabled)
        return AgentLoop::mcpStatusText(McpServer::Status::Disabled);
    const McpServer *server = liveServer(index);
    if (!server)
        return tr("not started");
    *color = toneColor(toneOf(server->status()), palette());
    const QString status = AgentLoop::mcpStatusText(server->status());
    if (server->status() != McpServer::Status::Failed)
        return status;
    const QString detail = AgentLoop::displayedLine(server->statusDetail(), detailLength);
    if (server->lastExitCode() >= 0)
        //: A failed server's state: "failed (exit code 1): <why>"
        return tr("%1 (exit code %2): %3").arg(status).arg(server->lastExitCode()).arg(detail);
    return tr("%1: %2").arg(status, detail);
}

QString McpServersPage::stateText(const QString &name, McpConfigOrigin origin) const
{
    const int index = indexOf(name, origin);
    if (index < 0)
        return {};
    QColor color;
    return rowState(index, &color);
}

void McpServersPage::refreshDetails()
{
    const int index = selectedIndex();
    m_details->setEnabled(index >= 0);
    if (index < 0) {
        for (QLabel *label : {m_state, m_launch, m_protocol, m_warnings})
            label->clear();
        m_warnings->hide();
        m_tools->setRowCount(0);
        followStandardError(nullptr);
        return;
    }
    const McpServerConfig &config = m_servers.at(index);
    McpServer *server = liveServer(index);
    QColor color;
    m_state->setText(rowState(index, &color));
    setLabelColor(m_state, color);
    m_launch->setText(config.transport == McpServerConfig::Http
                              ? tr("URL: %1").arg(mcpServerLaunchText(config))
                              : tr("Runs: %1").arg(mcpServerLaunchText(config)));
    m_launch->setToolTip(plainToolTip(QDir::toNativeSeparators(config.sourcePath)));
    QString protocol;
    if (server && !server->protocolVersion().isEmpty()) {
        protocol = tr("Protocol: %1").arg(mcpProtocolText(server->era(), server->protocolVersion()));
        const QJsonObject info = server->client() ? server->client()->serverInfo() : QJsonObject();
        if (!info.isEmpty())
            protocol += u" · "_s
                        + tr("server: %1 %2")
                                  .arg(AgentLoop::displayedLine(info.value(u"name"_s).toString(),
                                                                nameLength),
                                       AgentLoop::displayedLine(info.value(u"version"_s).toString(),
                                                                40));
    }
    m_protocol->setText(protocol);
    m_protocol->setVisible(!protocol.isEmpty());

    QStringList warnings;
    if (m_manager && server) {
        for (const QString &warning : m_manager->warnings(config.name))
            warnings << u"• "_s + AgentLoop::displayedLine(warning, detailLength);
    }
    m_warnings->setText(warnings.join(u'\n'));
    m_warnings->setVisible(!warnings.isEmpty());
    setLabelColor(m_warnings, toneColor(Tone::Busy, palette()));
    {
        const QSignalBlocker blocker(m_trusted);
        m_trusted->setChecked(config.trusted);
    }

    // The tools as the registry has them (their class and whether they ask), else as listed.
    QList<std::shared_ptr<const AgentLoop::McpTool>> registered;
    if (m_manager && server) {
        for (const auto &tool : m_manager->tools()) {
            if (tool->serverName() == config.name)
                registered.append(tool);
        }
    }
    const QList<AgentLoop::McpToolInfo> listed = server ? server->tools()
                                                        : QList<AgentLoop::McpToolInfo>();
    const qsizetype rows = registered.isEmpty() ? listed.size() : registered.size();
    m_tools->setRowCount(int(rows));
    for (int row = 0; row < rows; ++row) {
        const AgentLoop::McpToolInfo &info = registered.isEmpty() ? listed.at(row)
                                                                  : registered.at(row)->info();
        auto *name = new QTableWidgetItem(AgentLoop::displayedLine(info.name, nameLength));
        auto *kind = new QTableWidgetItem(info.readOnlyHint ? tr("read") : tr("execute"));
        QString asks = tr("asks");
        if (!registered.isEmpty()) {
            const auto &tool = registered.at(row);
            name->setToolTip(plainToolTip(tr("Offered to the model as %1").arg(tool->name())));
            if (!tool->needsApproval())
                asks = tr("runs without asking");
            if (tool->validationSkipped())
                asks += u", "_s + tr("arguments not checked");
        } else if (info.readOnlyHint && config.trusted) {
            asks = tr("runs without asking");
        }
        if (info.destructiveHint)
            kind->setText(tr("execute (destructive)"));
        auto *approval = new QTableWidgetItem(asks);
        const QString description = AgentLoop::displayedLine(info.description,
                                                             descriptionCellLength);
        auto *text = new QTableWidgetItem(description);
        text->setToolTip(plainToolTip(
                AgentLoop::displayed(info.description,
                                     {true, true, false, AgentLoop::mcpDescriptionLimit})));
        m_tools->setItem(row, ToolName, name);
        m_tools->setItem(row, ToolKind, kind);
        m_tools->setItem(row, ToolAsks, approval);
        m_tools->setItem(row, ToolDescription, text);
    }
    m_tabs->setTabText(0, rows > 0 ? tr("Tools (%1)").arg(QLocale().toString(rows)) : tr("Tools"));
    followStandardError(server);
}

void McpServersPage::followStandardError(McpServer *server)
{
    if (server == m_standardErrorSource && (server || m_standardError->document()->isEmpty()))
        return;
    disconnect(m_standardErrorConnection);
    m_standardErrorSource = server;
    m_standardError->clear();
    if (!server)
        return;
    QStringList lines;
    for (const QString &line : server->standardErrorTail())
        lines << AgentLoop::displayedLine(line, standardErrorLineLength);
    m_standardError->setPlainText(lines.join(u'\n'));
    m_standardError->verticalScrollBar()->setValue(m_standardError->verticalScrollBar()->maximum());
    m_standardErrorConnection
            = connect(server,
                      &McpServer::standardErrorLine,
                      m_standardError,
                      [this](const QString &line) {
                          m_standardError->appendPlainText(
                                  AgentLoop::displayedLine(line, standardErrorLineLength));
                      });
}

void McpServersPage::updateButtons()
{
    const McpServerConfig *server = selectedServer();
    m_edit->setEnabled(server);
    m_remove->setEnabled(server);
    m_enable->setEnabled(server);
    m_enable->setText(server && !server->enabled ? tr("Ena&ble") : tr("Disa&ble"));
    const int index = selectedIndex();
    m_restart->setEnabled(server && server->enabled && liveServer(index));
    m_trusted->setEnabled(server);
    const bool untrusted = m_workspaceHasServers && !m_workspaceTrusted;
    m_trustWorkspace->setVisible(untrusted);
}

void McpServersPage::showMessages()
{
    QStringList problems;
    if (!m_saveError.isEmpty())
        problems << m_saveError;
    if (!m_appError.isEmpty())
        problems << tr("The app's servers cannot be used: %1").arg(m_appError);
    if (!m_workspaceError.isEmpty())
        problems << tr("This workspace's servers cannot be used: %1").arg(m_workspaceError);
    if (m_workspaceHasServers && !m_workspaceTrusted)
        problems << tr("This workspace's .agentloop/mcp.json lists servers that have not been "
                       "trusted in its present content: they do not start until you trust them.");
    m_message->setText(AgentLoop::displayed(problems.join(u'\n'), {true, true, false, 8000}));
    m_message->setVisible(!problems.isEmpty());
    setLabelColor(m_message, toneColor(Tone::Bad, palette()));
    m_files->setText(tr("Servers for all workspaces are kept in %1; this workspace's in %2. "
                        "Changes on this page are saved at once.")
                             .arg(QDir::toNativeSeparators(appMcpServersFilePath()),
                                  QDir::toNativeSeparators(
                                          AgentLoop::workspaceMcpServersPath(m_workspace))));
}

int McpServersPage::selectedIndex() const
{
    const QList<QTreeWidgetItem *> selected = m_list->selectedItems();
    if (selected.isEmpty())
        return -1;
    const int index = selected.first()->data(NameColumn, Qt::UserRole).toInt();
    return index >= 0 && index < m_servers.size() ? index : -1;
}

int McpServersPage::indexOf(const QString &name, McpConfigOrigin origin) const
{
    for (int i = 0; i < m_servers.size(); ++i) {
        if (m_servers.at(i).name == name && m_servers.at(i).origin == origin)
            return i;
    }
    return -1;
}

const McpServerConfig *McpServersPage::selectedServer() const
{
    const int index = selectedIndex();
    return index >= 0 ? &m_servers.at(index) : nullptr;
}

void McpServersPage::selectServer(const QString &name, McpConfigOrigin origin)
{
    const int index = indexOf(name, origin);
    for (int row = 0; row < m_list->topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = m_list->topLevelItem(row);
        if (item->data(NameColumn, Qt::UserRole).toInt() == index)
            m_list->setCurrentItem(item);
    }
}

QList<McpServerConfig> McpServersPage::serversOf(McpConfigOrigin origin) const
{
    QList<McpServerConfig> servers;
    for (const McpServerConfig &server : m_servers) {
        if (server.origin == origin)
            servers.append(server);
    }
    return servers;
}

bool McpServersPage::save(McpConfigOrigin origin, const QList<McpServerConfig> &servers)
{
    AgentLoop::Result<void> written;
    if (origin == McpConfigOrigin::Workspace) {
        written = writeWorkspaceMcpServers(m_workspace, servers);
    } else {
        QDir().mkpath(QFileInfo(appMcpServersFilePath()).absolutePath());
        written = AgentLoop::writeMcpServersFile(appMcpServersFilePath(), servers);
    }
    m_saveError = written ? QString() : tr("Not saved: %1").arg(written.error().toString());
    reload();
    if (written)
        emit serversChanged();
    return bool(written);
}

void McpServersPage::addServer()
{
    openServerDialog(-1);
}

void McpServersPage::editSelectedServer()
{
    if (const int index = selectedIndex(); index >= 0)
        openServerDialog(index);
}

void McpServersPage::openServerDialog(int index)
{
    if (m_serverDialog)
        m_serverDialog->reject();
    McpServerConfig server;
    if (index >= 0)
        server = m_servers.at(index);
    QStringList taken;
    for (const McpServerConfig &other : serversOf(server.origin)) {
        if (index < 0 || other.name != server.name)
            taken << other.name;
    }
    auto *dialog = new McpServerDialog(server, taken, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_serverDialog = dialog;
    const QString oldName = server.name;
    connect(dialog, &QDialog::accepted, this, [this, dialog, index, oldName] {
        const McpServerConfig edited = dialog->server();
        QList<McpServerConfig> servers = serversOf(edited.origin);
        const auto old = std::find_if(servers.begin(), servers.end(), [&](const auto &kept) {
            return kept.name == oldName;
        });
        if (index >= 0 && old != servers.end())
            *old = edited;
        else
            servers.append(edited);
        if (save(edited.origin, servers))
            selectServer(edited.name, edited.origin);
    });
    dialog->open();
}

void McpServersPage::removeSelectedServer()
{
    const McpServerConfig *selected = selectedServer();
    if (!selected)
        return;
    const McpServerConfig removed = *selected;
    QList<McpServerConfig> servers = serversOf(removed.origin);
    servers.removeIf([&](const McpServerConfig &server) { return server.name == removed.name; });
    save(removed.origin, servers);
}

void McpServersPage::restartSelectedServer()
{
    if (McpServer *server = liveServer(selectedIndex()))
        server->restart();
    scheduleRefresh();
}

void McpServersPage::setSelectedEnabled(bool enabled)
{
    if (const McpServerConfig *selected = selectedServer(); selected && selected->enabled != enabled)
        changeSelected([enabled](McpServerConfig &server) { server.enabled = enabled; });
}

void McpServersPage::setSelectedTrusted(bool trusted)
{
    if (const McpServerConfig *selected = selectedServer(); selected && selected->trusted != trusted)
        changeSelected([trusted](McpServerConfig &server) { server.trusted = trusted; });
}

void McpServersPage::changeSelected(const std::function<void(McpServerConfig &)> &change)
{
    const McpServerConfig *selected = selectedServer();
    if (!selected)
        return;
    const QString name = selected->name;
    const McpConfigOrigin origin = selected->origin;
    QList<McpServerConfig> servers = serversOf(origin);
    for (McpServerConfig &server : servers) {
        if (server.name == name)
            change(server);
    }
    if (save(origin, servers))
        selectServer(name, origin);
}

void McpServersPage::importServers()
{
    if (m_importDialog)
        m_importDialog->reject();
    QStringList existing;
    for (const McpServerConfig &server : serversOf(McpConfigOrigin::App))
        existing << server.name;
    auto *dialog = new McpImportDialog(existing, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_importDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        QList<McpServerConfig> servers = serversOf(McpConfigOrigin::App);
        for (McpServerConfig imported : dialog->servers()) {
            imported.origin = McpConfigOrigin::App;
            imported.sourcePath = appMcpServersFilePath();
            servers.removeIf(
                    [&](const McpServerConfig &kept) { return kept.name == imported.name; });
            servers.append(imported);
        }
        if (save(McpConfigOrigin::App, servers) && !dialog->servers().isEmpty())
            selectServer(dialog->servers().first().name, McpConfigOrigin::App);
    });
    dialog->open();
}

void McpServersPage::trustWorkspace()
{
    const WorkspaceMcpServers own = workspaceMcpServers(m_workspace);
    if (!own.needsTrust() || m_trustPrompt)
        return;
    m_trustPrompt = McpTrustPrompt::ask(own, this);
    connect(m_trustPrompt, &McpTrustPrompt::answered, this, [this](bool trusted) {
        reload();
        if (trusted)
            emit serversChanged();
    });
}

McpServerDialog *McpServersPage::serverDialog() const
{
    return m_serverDialog;
}

McpImportDialog *McpServersPage::importDialog() const
{
    return m_importDialog;
}

McpTrustPrompt *McpServersPage::trustPrompt() const
{
    return m_trustPrompt;
}

QString McpServersPage::detailStateText() const
{
    return m_state->text();
}

QString McpServersPage::protocolText() const
{
    return m_protocol->isVisibleTo(this) ? m_protocol->text() : QString();
}

QString McpServersPage::launchText() const
{
    return m_launch->text();
}

QString McpServersPage::warningText() const
{
    return m_warnings->isVisibleTo(this) ? m_warnings->text() : QString();
}

QString McpServersPage::messageText() const
{
    return m_message->isVisibleTo(this) ? m_message->text() : QString();
}

void McpServersPage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        scheduleRefresh();
}

} // namespace Gui
