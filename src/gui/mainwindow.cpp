#include "mainwindow.h"

#include "agentstatusbar.h"
#include "approvals.h"
#include "chat/chatview.h"
#include "chat/promptbar.h"
#include "chat/promptedit.h"
#include "chat/runfeed.h"
#include "conversations/conversationlistmodel.h"
#include "conversations/conversationpanel.h"
#include "elevationbar.h"
#include "experiments.h"
#include "inspector/inspector.h"
#include "inspector/replayactions.h"
#include "inspector/turnmodel.h"
#include "mcpservers.h"
#include "settings/settingsdialog.h"
#include "showntext.h"
#include "storage/keystore.h"
#include "timeline/timelinedock.h"

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::AgentController;
using AgentLoop::KeyStore;

namespace Gui {

namespace {

QDockWidget *dock(const QString &title, const QString &objectName, QWidget *content, QWidget *parent)
{
    auto *dock = new QDockWidget(title, parent);
    dock->setObjectName(objectName);
    dock->setWidget(content); // closable, movable and floatable: QDockWidget's default
    return dock;
}

} // namespace

MainWindow::MainWindow(const AppSettings &settings, QWidget *parent)
    : MainWindow(settings, Options{}, parent)
{}

MainWindow::MainWindow(const AppSettings &settings, Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_session(options.commandRunner,
                AgentLoop::ConversationStore(options.conversationDirectory, options.outputDirectory))
    , m_options(std::move(options))
    , m_keyStore(m_options.keyStore)
    , m_feed(new RunFeed(m_session, this))
    , m_chatView(new ChatView(this))
    , m_promptBar(new PromptBar(m_session.controller(), this))
    , m_inspector(new Inspector(this))
    , m_inspectorDock(dock(tr("Inspector"), u"inspectorDock"_s, m_inspector, this))
    , m_statusBar(new AgentStatusBar(this))
    , m_conversations(new ConversationListModel(this))
    , m_conversationPanel(new ConversationPanel(m_conversations, this))
    , m_conversationsDock(
              dock(tr("Conversations"), u"conversationsDock"_s, m_conversationPanel, this))
    , m_approvals(new Approvals(m_session, this))
    , m_compactions(new Compactions(m_session, m_chatView, this))
    , m_bugBundles(new BugBundles(m_session, m_inspector, this))
    , m_conversationActions(
              new ConversationActions(m_session, m_conversations, m_conversationPanel, this))
    , m_profileSwitcher(new ProfileSwitcher(m_statusBar, this))
    , m_replayActions(new ReplayActions(m_session, m_inspector, this))
    , m_rawOutputs(new RawOutputs(m_chatView, m_promptBar, this))
    , m_experiments(new Experiments(m_session, m_feed, this))
    , m_mcpServers(new McpServers(m_session, this))
{
    setObjectName(u"mainWindow"_s);
    if (!m_keyStore)
        m_keyStore = (m_ownKeyStore = std::make_unique<KeyStore>()).get();

    m_chatView->setChatModel(m_feed->chatModel());
    m_inspector->setModel(m_feed->turnModel(), m_feed->auditModel());
    connect(m_promptBar, &PromptBar::settingsNeeded, this, [this] {
        setIdleStatus(tr("Set a base URL, an API key and a model first."));
        openSettings();
    });
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    if (m_options.runsElevated)
        centralLayout->addWidget(new ElevationBar(central));
    centralLayout->addWidget(m_chatView, 1);
    centralLayout->addWidget(m_promptBar);
    setCentralWidget(central);
    setStatusBar(m_statusBar);
    connect(m_profileSwitcher, &ProfileSwitcher::profileChosen, this, &MainWindow::switchProfile);
    connect(m_profileSwitcher, &ProfileSwitcher::editRequested, this, &MainWindow::openSettings);
    m_statusBar->addPermanentWidget(m_mcpServers->statusButton());
    connect(m_mcpServers, &McpServers::settingsRequested, this, &MainWindow::openMcpSettings);
    connect(m_mcpServers, &McpServers::serversTrusted, this, &MainWindow::applyMcpServers);

    createDocks();
    createActions();
    connectSession();
    setTabOrder(m_promptBar->stopButton(), m_chatView);
    setTabOrder(m_chatView, m_inspector->table());
    setTabOrder(m_inspector->table(), m_conversationPanel->searchField());
    setTabOrder(m_conversationPanel->searchField(), m_conversationPanel->listView());

    resize(1280, 800);
    resizeDocks({m_conversationsDock, m_inspectorDock}, {270, 480}, Qt::Horizontal);
    applySettings(settings);
    setIdleStatus(tr("Ready"));
    m_promptBar->edit()->setFocus();
}

MainWindow::~MainWindow()
{
    // Whatever the session still emits while it is torn down is nobody's business here.
    m_session.controller().disconnect();
    m_session.disconnect();
}

void MainWindow::createDocks()
{
    addDockWidget(Qt::LeftDockWidgetArea, m_conversationsDock);
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    m_timeline = new TimelineDock(m_feed->timeline(), m_inspector, m_inspectorDock, m_chatView, this);
    connect(m_chatView, &ChatView::turnActivated, m_inspector, &Inspector::selectTurn);
    connect(m_chatView, &ChatView::inspectRequested, this, [this](int turn) {
        m_inspectorDock->show();
        m_inspectorDock->raise();
        m_inspector->selectTurn(turn);
    });
    connect(m_conversationPanel,
            &ConversationPanel::openRequested,
            this,
            &MainWindow::openConversation);
    connect(m_conversationActions,
            &ConversationActions::currentDeleted,
            this,
            &MainWindow::newConversation);
    connect(m_replayActions,
            &ReplayActions::forked,
            this,
            [this](const AgentLoop::ConversationHeader &header) {
                reloadConversations();
                openConversation(header.id);
            });
    connect(m_conversationActions, &ConversationActions::exported, this, [this](const QString &path) {
        setIdleStatus(tr("Exported to %1").arg(QDir::toNativeSeparators(path)));
    });
    connect(m_bugBundles, &BugBundles::saved, this, [this](const QString &path) {
        setIdleStatus(tr("Bug bundle saved to %1").arg(QDir::toNativeSeparators(path)));
    });
}

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newAction = file->addAction(tr("&New conversation"),
                                         this,
                                         &MainWindow::newConversation);
    newAction->setShortcut(QKeySequence::New);
    newAction->setStatusTip(tr("Clear the conversation and its history"));
    QAction *settings = file->addAction(tr("&Settings…"), this, &MainWindow::openSettings);
    settings->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    settings->setMenuRole(QAction::PreferencesRole);
    m_conversationActions->addExportActions(file->addMenu(tr("&Export conversation")));
    m_bugBundles->addAction(file);
    file->addSeparator();
    m_compactions->addActions(file);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *inspector = m_inspectorDock->toggleViewAction();
    inspector->setText(tr("&Inspector"));
    inspector->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    inspector->setStatusTip(tr("Show or hide the raw requests and responses of every turn"));
    view->addAction(inspector);
    QAction *conversations = m_conversationsDock->toggleViewAction();
    conversations->setText(tr("&Conversations"));
    conversations->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    conversations->setStatusTip(tr("Show or hide the list of saved conversations"));
    view->addAction(conversations);
    view->addAction(m_timeline->toggleAction());
    menuBar()->addMenu(m_profileSwitcher->menu());
    addAction(m_profileSwitcher->popupAction()); // Ctrl+Shift+P, also while the menu is rebuilt

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_experiments->action());
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Agent Loop"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
}

void MainWindow::connectSession()
{
    const AgentController &controller = m_session.controller();
    m_statusBar->follow(controller);
    connect(&controller, &AgentController::stateChanged, this, &MainWindow::updateActions);
    connect(m_feed, &RunFeed::opened, this, &MainWindow::conversationOpened);
    connect(m_feed,
            &RunFeed::openFailed,
            this,
            [this](const QString &, const AgentLoop::Error &error) {
                conversationNotOpened(error);
            });
    connect(m_feed, &RunFeed::cleared, this, [this] {
        m_promptBar->setOpening(false); // a new conversation supersedes one still being read
        m_conversations->setCurrentId(currentConversationId());
        m_statusBar->clearTurn();
        setIdleStatus(tr("Ready"));
        m_promptBar->edit()->setFocus();
    });
    connect(&m_session,
            &AgentLoop::AgentSession::configurationApplied,
            this,
            &MainWindow::showConfiguration);
    connect(&controller, &AgentController::providerAdjusted, this, &MainWindow::keepAdjustment);
    connect(m_compactions, &Compactions::confirmationTurnedOff, this, [this] {
        m_settings.confirmCompaction = false; // saved already; the settings opened later show it
        if (m_pendingSettings)
            m_pendingSettings->confirmCompaction = false;
    });
}

void MainWindow::start(const QString &task)
{
    if (m_started)
        return;
    m_started = true;
    restoreLayout();
    if (!m_settings.loadWarning.isEmpty())
        setIdleStatus(m_settings.loadWarning);
    const bool firstStart = !QFile::exists(AppSettings::settingsFilePath());
    m_settings.readStoredKey(*m_keyStore, this, [this, firstStart, task](const QString &key) {
        if (!key.isEmpty() && m_settings.keyOf(m_settings.currentProfileId).isEmpty())
            applySettings(m_settings.withCurrentKey(key));
        if (firstStart || (!m_settings.demoMode && !m_settings.isConfigured()))
            openSettings();
        offerStartupTask(task);
    });
}

void MainWindow::offerStartupTask(const QString &task)
{
    if (task.trimmed().isEmpty())
        return;
    m_promptBar->setText(task);
    // While the settings are open, the task waits in the box for the user to send it.
    if (!m_settingsDialog)
        m_promptBar->send();
}

void MainWindow::applySettings(const AppSettings &settings)
{
    m_pendingSettings = settings;
    m_session.configure(settings.sessionConfiguration()); // showConfiguration() when applied
}

void MainWindow::showConfiguration()
{
    if (m_pendingSettings)
        m_settings = *std::exchange(m_pendingSettings, std::nullopt);
    m_session.discoverContextWindows();
    m_statusBar->showConfiguration(m_session.configuration());
    m_compactions->setConfirms(m_settings.confirmCompaction);
    m_feed->turnModel()->setPrices(m_settings.modelPrices);
    m_bugBundles->setKnownKeys(QStringList(m_settings.profileKeys.values()) << m_settings.apiKey);
    m_profileSwitcher->showProfiles(m_settings);
    m_chatView->setDemoMode(m_settings.demoMode);
    m_promptBar->setReady(m_settings.demoMode || m_settings.isConfigured());
    setWindowTitle(m_settings.demoMode ? tr("Agent Loop — Demo") : tr("Agent Loop"));
    // A workspace's own servers start only once the user trusts its file as it is.
    m_mcpServers->checkWorkspace(m_settings.workspace);
}

void MainWindow::applyMcpServers()
{
    applySettings(m_pendingSettings.value_or(m_settings));
}

void MainWindow::switchProfile(const QString &profileId)
{
    std::optional<AppSettings> chosen = m_pendingSettings.value_or(m_settings).withProfile(profileId);
    if (!chosen)
        return;
    chosen->save();
    chosen->readStoredKey(*m_keyStore, this, [this, settings = *chosen](const QString &key) {
        applySettings(key.isEmpty() ? settings : settings.withCurrentKey(key));
    });
}

void MainWindow::keepAdjustment(const AgentLoop::ProviderAdjustment &adjustment)
{
    const AgentLoop::ProviderProfile profile = m_settings.keepAdjustment(adjustment);
    AppSettings settings = m_pendingSettings.value_or(m_settings);
    settings.updateProfile(profile); // a switch waiting for the run's end stays
    applySettings(settings);
    if (m_settingsDialog) // its OK must not undo what was learned
        m_settingsDialog->takeSwitches(profile);
}

void MainWindow::openConversation(const QString &id)
{
    if (id == currentConversationId())
        m_promptBar->edit()->setFocus();
    if (controller().isRunning() || id.isEmpty() || id == currentConversationId())
        return;
    // Read on another thread; the conversation shown stays until this one is ready (opened()).
    m_feed->openConversation(id);
    m_promptBar->setOpening(true);
    const int row = m_conversations->rowOf(id);
    setIdleStatus(row >= 0 ? tr("Opening “%1”…").arg(m_conversations->header(row).title)
                           : tr("Opening the conversation…"));
}

void MainWindow::conversationOpened(const AgentLoop::ConversationHeader &header)
{
    m_promptBar->setOpening(false);
    m_conversationPanel->selectConversation(header.id);
    m_chatView->scrollToBottom();
    setIdleStatus(tr("Opened “%1”").arg(header.title));
}

void MainWindow::conversationNotOpened(const AgentLoop::Error &error)
{
    m_promptBar->setOpening(false);
    m_conversationPanel->selectConversation(currentConversationId());
    setIdleStatus(tr("Ready"));
    showWarning(this, error.message);
}

void MainWindow::openSettings()
{
    if (m_settingsDialog) {
        m_settingsDialog->raise();
        m_settingsDialog->activateWindow();
        return;
    }
    // The dialog saves on OK (the key into the credential store); applying is this window's part.
    auto *dialog = new SettingsDialog(m_settings, m_keyStore, this, &m_session);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_settingsDialog = dialog;
    connect(dialog, &SettingsDialog::settingsApplied, this, &MainWindow::applySettings);
    connect(dialog, &SettingsDialog::mcpServersChanged, this, &MainWindow::applyMcpServers);
    dialog->open();
}

SettingsDialog *MainWindow::settingsDialog() const
{
    return m_settingsDialog;
}

void MainWindow::openMcpSettings()
{
    openSettings();
    if (m_settingsDialog)
        m_settingsDialog->showMcpServers();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // Closing stops the run: the request is aborted or the command's process tree is killed, and
    // an open approval box closes; nothing it asked about runs.
    if (controller().isRunning())
        controller().cancel();
    m_approvals->close();
    m_compactions->close();
    if (m_settingsDialog)
        m_settingsDialog->reject();
    m_conversationActions->closeDialogs();
    m_bugBundles->closeDialogs();
    m_replayActions->closeDialogs();
    m_mcpServers->closeDialogs();
    saveLayout();
    event->accept();
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_promptBar->edit()->hasFocus() && !m_approvals->pending())
        m_promptBar->edit()->setFocus();
}

void MainWindow::saveLayout() const
{
    if (m_options.persist && m_started)
        AppSettings::saveWindowLayout(AppSettings::WindowLayout::of(*this));
}

void MainWindow::restoreLayout()
{
    if (m_options.persist)
        AppSettings::loadWindowLayout().restore(*this);
}

void MainWindow::updateActions()
{
    m_conversationPanel->setOpenEnabled(!controller().isRunning());
    m_conversationActions->updateExportActions();
}

void MainWindow::setIdleStatus(const QString &text)
{
    m_statusBar->setIdleText(text);
    updateActions();
}

} // namespace Gui
