#include "mainwindow.h"

#include "agent/agentsetup.h"
#include "approvalprompt.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "tools/commandrunner.h"
#include "conversations/conversationlistmodel.h"
#include "conversations/conversationpanel.h"
#include "provider/demoprovider.h"
#include "base/displaytext.h"
#include "inspector/inspector.h"
#include "storage/keystore.h"
#include "chat/liveanswer.h"
#include "chat/promptedit.h"
#include "settings/settingsdialog.h"
#include "showntext.h"
#include "inspector/turnmodel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::AgentController;
using AgentLoop::KeyStore;

namespace Gui {

namespace {

constexpr qsizetype titleLength = 60;

// The list's name for a conversation: the first line of its first prompt, cut to fit.
QString titleFor(const QString &prompt)
{
    QString title = prompt.trimmed().section(u'\n', 0, 0).simplified();
    if (title.size() > titleLength)
        title = title.left(titleLength - 1).trimmed() + u'…';
    return title;
}

// A file name from a title: what the export dialog suggests.
QString fileNameFor(const QString &title, const QString &suffix)
{
    QString name;
    for (const QChar c : title) {
        if (c.isLetterOrNumber())
            name += c;
        else if (!name.isEmpty() && !name.endsWith(u'-'))
            name += u'-';
    }
    while (name.endsWith(u'-'))
        name.chop(1);
    return (name.isEmpty() ? u"conversation"_s : name.left(60)) + u'.' + suffix;
}

} // namespace

MainWindow::MainWindow(const AppSettings &settings, QWidget *parent)
    : MainWindow(settings, Options{}, parent)
{}

MainWindow::MainWindow(const AppSettings &settings, Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(std::move(options))
    , m_chatModel(new ChatModel(this))
    , m_liveAnswer(new LiveAnswer(m_chatModel, this))
    , m_turnModel(new TurnModel(this))
    , m_chatView(new ChatView(this))
    , m_prompt(new PromptEdit(this))
    , m_send(new QPushButton(tr("&Send"), this))
    , m_stop(new QPushButton(tr("S&top"), this))
    , m_inspector(new Inspector(this))
    , m_inspectorDock(new QDockWidget(tr("Inspector"), this))
    , m_statusLabel(new QLabel(this))
    , m_turnLabel(new QLabel(this))
    , m_providerLabel(new QLabel(this))
    , m_demoLabel(new QLabel(tr("Demo mode"), this))
    , m_store(m_options.conversationDirectory.isEmpty()
                      ? AgentLoop::ConversationStore::defaultDirectory()
                      : m_options.conversationDirectory,
              m_options.outputDirectory.isEmpty()
                      ? AgentLoop::ConversationStore::defaultOutputDirectory()
                      : m_options.outputDirectory)
    , m_conversations(new ConversationListModel(this))
    , m_conversationPanel(new ConversationPanel(m_conversations, this))
    , m_conversationsDock(new QDockWidget(tr("Conversations"), this))
{
    setObjectName(u"mainWindow"_s);
    if (!m_options.commandRunner)
        m_options.commandRunner = std::make_shared<AgentLoop::ProcessCommandRunner>();
    if (m_options.keyStore) {
        m_keyStore = m_options.keyStore;
    } else {
        m_ownKeyStore = std::make_unique<KeyStore>();
        m_keyStore = m_ownKeyStore.get();
    }

    m_chatView->setChatModel(m_chatModel);
    m_inspector->setModel(m_turnModel);

    m_prompt->setObjectName(u"promptEdit"_s);
    m_prompt->setAccessibleName(tr("Prompt"));
    m_prompt->setPlaceholderText(
            tr("Tell the agent what to do. Enter sends, Shift+Enter starts a new line."));
    m_send->setObjectName(u"sendButton"_s);
    m_send->setAccessibleName(tr("Send prompt"));
    m_send->setToolTip(tr("Send the prompt (Enter)"));
    m_send->setDefault(false);
    m_send->setAutoDefault(false);
    m_stop->setObjectName(u"stopButton"_s);
    m_stop->setAccessibleName(tr("Stop the run"));
    m_stop->setToolTip(tr("Stop the run: abort the request or kill the running command (Esc)"));
    m_stop->setAutoDefault(false);
    const int buttonWidth = qMax(m_send->sizeHint().width(), m_stop->sizeHint().width()) + 16;
    m_send->setMinimumWidth(buttonWidth);
    m_stop->setMinimumWidth(buttonWidth);
    connect(m_send, &QPushButton::clicked, this, &MainWindow::send);
    connect(m_stop, &QPushButton::clicked, this, &MainWindow::stop);
    connect(m_prompt, &PromptEdit::submitted, this, &MainWindow::send);
    connect(m_prompt, &QPlainTextEdit::textChanged, this, &MainWindow::updateActions);
    auto *stopShortcut = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(stopShortcut, &QShortcut::activated, this, [this] {
        // Esc in the approval box means "no", never "stop everything".
        if (!QApplication::activeModalWidget())
            stop();
    });

    auto *buttons = new QVBoxLayout;
    buttons->setSpacing(6);
    buttons->addWidget(m_send);
    buttons->addWidget(m_stop);
    buttons->addStretch();
    auto *promptBar = new QWidget(this);
    promptBar->setObjectName(u"promptBar"_s);
    auto *promptLayout = new QHBoxLayout(promptBar);
    promptLayout->setContentsMargins(10, 8, 10, 8);
    promptLayout->setSpacing(8);
    promptLayout->addWidget(m_prompt, 1);
    promptLayout->addLayout(buttons);

    auto *line = new QFrame(this);
    line->setFrameShape(QFrame::HLine);
    line->setFrameShadow(QFrame::Sunken);

    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_chatView, 1);
    centralLayout->addWidget(line);
    centralLayout->addWidget(promptBar);
    setCentralWidget(central);

    m_inspectorDock->setObjectName(u"inspectorDock"_s);
    m_inspectorDock->setWidget(m_inspector);
    m_inspectorDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable
                                 | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    connect(m_chatView, &ChatView::turnActivated, m_inspector, &Inspector::selectTurn);
    connect(m_chatView, &ChatView::inspectRequested, this, [this](int turn) {
        m_inspectorDock->show();
        m_inspectorDock->raise();
        m_inspector->selectTurn(turn);
    });

    createConversationPanel();
    createActions();
    createStatusBar();
    connectController();
    setTabOrder(m_prompt, m_send);
    setTabOrder(m_send, m_stop);
    setTabOrder(m_stop, m_chatView);
    setTabOrder(m_chatView, m_inspector->table());
    setTabOrder(m_inspector->table(), m_conversationPanel->searchField());
    setTabOrder(m_conversationPanel->searchField(), m_conversationPanel->listView());

    m_tick.setInterval(1000);
    m_tick.setTimerType(Qt::PreciseTimer); // a coarse one may skip a second of a countdown
    connect(&m_tick, &QTimer::timeout, this, &MainWindow::updateStatus);

    resize(1280, 800);
    resizeDocks({m_conversationsDock, m_inspectorDock}, {270, 480}, Qt::Horizontal);
    applySettings(settings);
    setIdleStatus(tr("Ready"));
    m_prompt->setFocus();
}

MainWindow::~MainWindow()
{
    // Whatever the controller still emits while it is torn down is nobody's business here.
    m_controller.disconnect(this);
}

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_newAction = file->addAction(tr("&New conversation"), this, &MainWindow::newConversation);
    m_newAction->setShortcut(QKeySequence::New);
    m_newAction->setStatusTip(tr("Clear the conversation and its history"));
    m_settingsAction = file->addAction(tr("&Settings…"), this, &MainWindow::openSettings);
    m_settingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    m_settingsAction->setMenuRole(QAction::PreferencesRole);
    QMenu *exportMenu = file->addMenu(tr("&Export conversation"));
    m_exportJsonAction = exportMenu->addAction(tr("Messages as &JSON…"), this, [this] {
        exportConversationAs(ExportFormat::MessagesJson);
    });
    m_exportJsonAction->setStatusTip(
            tr("Save the conversation as the messages array of a request, ready to paste"));
    m_exportMarkdownAction = exportMenu->addAction(tr("&Markdown…"), this, [this] {
        exportConversationAs(ExportFormat::Markdown);
    });
    m_exportMarkdownAction->setStatusTip(tr("Save the conversation as a readable Markdown file"));
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

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About Agent Loop"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
}

void MainWindow::createConversationPanel()
{
    m_conversationsDock->setObjectName(u"conversationsDock"_s);
    m_conversationsDock->setWidget(m_conversationPanel);
    m_conversationsDock->setFeatures(QDockWidget::DockWidgetClosable
                                     | QDockWidget::DockWidgetMovable
                                     | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, m_conversationsDock);
    connect(m_conversationPanel,
            &ConversationPanel::openRequested,
            this,
            &MainWindow::openConversation);
    connect(m_conversationPanel,
            &ConversationPanel::deleteRequested,
            this,
            [this](const QString &id, const QString &) { deleteConversation(id); });
    connect(m_conversations,
            &ConversationListModel::titleEdited,
            this,
            &MainWindow::renameConversation);
    reloadConversations();
}

void MainWindow::reloadConversations()
{
    m_conversations->setConversations(m_store.list());
    m_conversations->setCurrentId(m_conversation.id);
}

void MainWindow::saveMessage(const AgentLoop::Message &message)
{
    if (m_saveFailed)
        return;
    const auto failed = [this](const AgentLoop::Error &error) {
        // Once: the run goes on, unsaved.
        m_saveFailed = true;
        m_unsaved.clear();
        m_writer.close();
        ChatItem item;
        item.kind = ChatItem::ErrorMessage;
        item.text = error.message;
        item.hint = tr("%1 The run goes on, but this conversation is not saved from here on.")
                            .arg(error.hint)
                            .trimmed();
        m_chatModel->append(item);
    };
    if (!m_writer.isOpen()) {
        // The first prompt names the conversation and creates its file; a system message before
        // it waits for it (both are written before the request goes out).
        m_unsaved.append(message);
        if (message.role() != AgentLoop::Role::User)
            return;
        const AgentLoop::ProviderSettings provider = m_controller.provider();
        const auto created = m_writer.create(m_store,
                                             titleFor(message.content()),
                                             provider.model,
                                             provider.baseUrl);
        if (!created) {
            failed(created.error());
            return;
        }
        m_conversation = *created;
        for (const AgentLoop::Message &pending : std::exchange(m_unsaved, {})) {
            if (const auto written = m_writer.append(pending); !written) {
                failed(written.error());
                return;
            }
        }
        m_conversations->prepend(m_conversation);
        m_conversations->setCurrentId(m_conversation.id);
        m_conversationPanel->selectConversation(m_conversation.id);
        return;
    }
    if (const auto written = m_writer.append(message); !written) {
        failed(written.error());
        return;
    }
    m_conversations->setUpdated(m_conversation.id, QDateTime::currentDateTime());
}

void MainWindow::openConversation(const QString &id)
{
    if (m_controller.isRunning() || id.isEmpty())
        return;
    if (id == m_conversation.id) {
        m_prompt->setFocus();
        return;
    }
    const auto loaded = m_store.load(id);
    if (!loaded) {
        showError(loaded.error().message);
        return;
    }
    clearConversation();
    m_conversation = loaded->header;
    m_controller.setHistory(loaded->history);
    showHistory(loaded->history);
    QList<ChatItem> notices;
    for (const QString &repair : loaded->repairs) {
        ChatItem item;
        item.kind = ChatItem::Notice;
        item.text = tr("Repaired: %1").arg(repair);
        notices.append(item);
    }
    m_chatModel->append(std::move(notices));
    if (const auto opened = m_writer.open(m_store.pathFor(id)); !opened) {
        ChatItem item;
        item.kind = ChatItem::ErrorMessage;
        item.text = opened.error().message;
        item.hint = tr("%1 New messages in this conversation are not saved.")
                            .arg(opened.error().hint)
                            .trimmed();
        m_chatModel->append(item);
        m_saveFailed = true;
    }
    m_conversations->setCurrentId(m_conversation.id);
    m_conversationPanel->selectConversation(m_conversation.id);
    m_chatView->scrollToBottom();
    setIdleStatus(tr("Opened “%1”").arg(m_conversation.title));
    updateActions();
}

void MainWindow::showHistory(const AgentLoop::History &history)
{
    // The messages as the live run shows them, added in one insertion.
    QList<ChatItem> items;
    items.reserve(history.size());
    QHash<QString, QString> toolNames;
    for (const AgentLoop::Message &message : history.messages()) {
        switch (message.role()) {
        case AgentLoop::Role::System:
            break;
        case AgentLoop::Role::User: {
            ChatItem item;
            item.kind = ChatItem::UserPrompt;
            item.text = message.content();
            items.append(std::move(item));
            break;
        }
        case AgentLoop::Role::Assistant:
            if (message.hasText() || !message.reasoningContent().isEmpty()) {
                ChatItem item;
                item.kind = ChatItem::AssistantText;
                item.text = message.hasText() ? message.content() : QString();
                item.reasoning = message.reasoningContent();
                items.append(std::move(item));
            }
            for (const AgentLoop::ToolCall &call : message.toolCalls()) {
                toolNames.insert(call.id, call.name);
                ChatItem item;
                item.kind = ChatItem::ToolCall;
                item.toolName = call.name;
                item.toolCallId = call.id;
                item.arguments = call.arguments;
                items.append(std::move(item));
            }
            break;
        case AgentLoop::Role::Tool: {
            ChatItem item;
            item.kind = ChatItem::ToolResult;
            item.text = message.content();
            item.toolCallId = message.toolCallId();
            item.toolName = toolNames.value(item.toolCallId);
            items.append(std::move(item));
            break;
        }
        }
    }
    m_chatModel->append(std::move(items));
}

void MainWindow::renameConversation(const QString &id, const QString &title)
{
    if (const auto renamed = m_store.rename(id, title); !renamed) {
        showError(renamed.error().message);
        return;
    }
    m_conversations->setTitle(id, title);
    if (id == m_conversation.id)
        m_conversation.title = title;
}

void MainWindow::deleteConversation(const QString &id)
{
    const int row = m_conversations->rowOf(id);
    if (row < 0)
        return;
    const QString title = m_conversations->header(row).title;
    auto *box = new QMessageBox(QMessageBox::Question,
                                tr("Delete Conversation"),
                                tr("Delete “%1”? This cannot be undone.").arg(title),
                                QMessageBox::Yes | QMessageBox::No,
                                this);
    box->setObjectName(u"deleteConversationBox"_s);
    box->setTextFormat(Qt::PlainText); // the title is as the list shows it, and no HTML
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::No);
    box->setEscapeButton(QMessageBox::No);
    connect(box, &QMessageBox::finished, this, [this, box, id] {
        if (box->clickedButton() != box->button(QMessageBox::Yes))
            return;
        if (id == m_conversation.id) {
            // Nothing more goes into the file that is about to go.
            m_writer.close();
            m_saveFailed = true;
        }
        if (const auto removed = m_store.remove(id); !removed) {
            showError(removed.error().message);
            return;
        }
        m_conversations->remove(id);
        if (id == m_conversation.id)
            newConversation();
    });
    box->open();
}

void MainWindow::exportConversationAs(ExportFormat format)
{
    if (m_controller.history().isEmpty())
        return;
    if (m_exportDialog)
        m_exportDialog->reject();
    const bool json = format == ExportFormat::MessagesJson;
    QString title = m_conversation.title;
    if (title.isEmpty()) {
        for (const AgentLoop::Message &message : m_controller.history().messages()) {
            if (message.role() == AgentLoop::Role::User) {
                title = titleFor(message.content());
                break;
            }
        }
    }
    auto *dialog = new QFileDialog(this,
                                   json ? tr("Export Messages as JSON")
                                        : tr("Export Conversation as Markdown"));
    dialog->setObjectName(u"exportDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    dialog->setNameFilter(json ? tr("JSON files (*.json)") : tr("Markdown files (*.md)"));
    dialog->setDefaultSuffix(json ? u"json"_s : u"md"_s);
    dialog->selectFile(fileNameFor(title, json ? u"json"_s : u"md"_s));
    m_exportDialog = dialog;
    connect(dialog, &QFileDialog::fileSelected, this, [this, format](const QString &path) {
        if (const auto written = exportConversation(format, path); !written)
            showError(written.error().message);
        else
            setIdleStatus(tr("Exported to %1").arg(QDir::toNativeSeparators(path)));
    });
    dialog->open();
}

AgentLoop::Result<void> MainWindow::exportConversation(ExportFormat format,
                                                       const QString &path) const
{
    const AgentLoop::History &history = m_controller.history();
    QByteArray bytes;
    if (format == ExportFormat::MessagesJson) {
        bytes = AgentLoop::exportMessagesJson(history);
    } else {
        AgentLoop::ConversationHeader header = m_conversation;
        if (header.title.isEmpty()) {
            for (const AgentLoop::Message &message : history.messages()) {
                if (message.role() == AgentLoop::Role::User) {
                    header.title = titleFor(message.content());
                    break;
                }
            }
        }
        bytes = AgentLoop::exportMarkdown(header, history).toUtf8();
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        return AgentLoop::Error{AgentLoop::Error::Io,
                                tr("Cannot export the conversation to %1: %2")
                                        .arg(QDir::toNativeSeparators(path), file.errorString())};
    }
    return {};
}

QFileDialog *MainWindow::exportDialog() const
{
    return m_exportDialog;
}

void MainWindow::showError(const QString &text)
{
    // Errors quote files and providers: shown as the characters they are.
    AgentLoop::DisplayOptions shown;
    shown.maxLength = 4000;
    auto *box = new QMessageBox(QMessageBox::Warning,
                                tr("Agent Loop"),
                                AgentLoop::displayed(text, shown),
                                QMessageBox::Ok,
                                this);
    box->setTextFormat(Qt::PlainText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::createStatusBar()
{
    m_statusLabel->setObjectName(u"statusText"_s);
    m_statusLabel->setAccessibleName(tr("Agent status"));
    m_statusLabel->setTextFormat(Qt::PlainText);
    // A long error message is cut at the window's edge (the tooltip has all of it) instead of
    // making the window wider.
    m_statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_statusLabel->setMinimumWidth(1);
    m_turnLabel->setObjectName(u"turnText"_s);
    m_turnLabel->setAccessibleName(tr("Turn"));
    m_providerLabel->setObjectName(u"providerText"_s);
    m_providerLabel->setTextFormat(Qt::PlainText);
    m_providerLabel->setAccessibleName(tr("Provider"));
    m_demoLabel->setObjectName(u"demoLabel"_s);
    m_demoLabel->setAccessibleName(tr("Demo mode"));
    m_demoLabel->setToolTip(tr("Answers come from a built-in scripted model: nothing is sent over "
                               "the network. Open File › Settings to connect a real provider."));
    m_demoLabel->setAutoFillBackground(true);
    m_demoLabel->setContentsMargins(8, 1, 8, 1);
    updateDemoLabelColours();
    QFont demoFont = m_demoLabel->font();
    demoFont.setBold(true);
    m_demoLabel->setFont(demoFont);

    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_turnLabel);
    statusBar()->addPermanentWidget(m_providerLabel);
    statusBar()->addPermanentWidget(m_demoLabel);
}

void MainWindow::updateDemoLabelColours()
{
    QPalette demoPalette = palette();
    demoPalette.setColor(QPalette::Window, palette().color(QPalette::Highlight));
    demoPalette.setColor(QPalette::WindowText, palette().color(QPalette::HighlightedText));
    m_demoLabel->setPalette(demoPalette);
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateDemoLabelColours();
}

void MainWindow::connectController()
{
    connect(&m_controller, &AgentController::stateChanged, this, &MainWindow::onStateChanged);
    connect(&m_controller, &AgentController::turnStarted, this, [this](int turn, int maxTurns) {
        m_turn = turn;
        m_maxTurns = maxTurns;
        updateStatus();
    });
    connect(&m_controller, &AgentController::requestSent, this, &MainWindow::onRequestSent);
    connect(&m_controller,
            &AgentController::retryScheduled,
            this,
            [this](const QString &, qint64 delayMs, int nextAttempt, int maxAttempts) {
                onRetryScheduled(delayMs, nextAttempt, maxAttempts);
            });
    connect(&m_controller, &AgentController::assistantTextDelta, m_liveAnswer, &LiveAnswer::addText);
    connect(&m_controller,
            &AgentController::assistantReasoningDelta,
            m_liveAnswer,
            &LiveAnswer::addReasoning);
    connect(&m_controller, &AgentController::responseReceived, m_turnModel, &TurnModel::setResponse);
    connect(&m_controller,
            &AgentController::completionReceived,
            this,
            [this](int, const AgentLoop::Completion &completion) {
                m_turnModel->setCompletion(completion);
            });
    connect(&m_controller, &AgentController::messageAppended, this, &MainWindow::onMessageAppended);
    connect(&m_controller,
            &AgentController::approvalRequested,
            this,
            &MainWindow::onApprovalRequested);
    connect(&m_controller,
            &AgentController::toolStarted,
            this,
            [this](const AgentLoop::ToolCall &call) {
                m_runningTool = call.name;
                m_phaseClock.start();
                updateStatus();
            });
    connect(&m_controller, &AgentController::toolFinished, this, &MainWindow::onToolFinished);
    connect(&m_controller, &AgentController::finished, this, &MainWindow::onFinished);
    connect(&m_controller, &AgentController::failed, this, &MainWindow::onFailed);
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
    if (m_settings.keyIsInStore() && m_settings.apiKey.isEmpty()) {
        connect(
                m_keyStore,
                &KeyStore::keyRead,
                this,
                [this, firstStart, task](const QString &key) {
                    if (!key.isEmpty() && m_settings.apiKey.isEmpty()) {
                        AppSettings settings = m_settings;
                        settings.apiKey = key;
                        applySettings(settings);
                    }
                    if (firstStart || (!m_settings.demoMode && !m_settings.isConfigured()))
                        openSettings();
                    offerStartupTask(task);
                },
                Qt::SingleShotConnection);
        m_keyStore->readKey();
        return;
    }
    if (firstStart || (!m_settings.demoMode && !m_settings.isConfigured()))
        openSettings();
    offerStartupTask(task);
}

void MainWindow::offerStartupTask(const QString &task)
{
    if (task.trimmed().isEmpty())
        return;
    m_prompt->setPlainText(task);
    // While the settings are open, the task waits in the box for the user to send it.
    if (!m_settingsDialog)
        send();
}

void MainWindow::applySettings(const AppSettings &settings)
{
    if (m_controller.isRunning()) {
        m_pendingSettings = settings;
        return;
    }
    m_pendingSettings.reset();
    m_settings = settings;
    if (m_settings.demoMode && !m_demoNetworkInstalled) {
        // It passes every other URL to the network, so it can stay when the demo is turned off.
        m_controller.setNetworkAccessManager(
                new AgentLoop::DemoNetworkAccessManager(&m_controller));
        m_demoNetworkInstalled = true;
    }
    m_controller.setProvider(m_settings.provider());
    AgentLoop::AgentOptions agentOptions = m_controller.options();
    agentOptions.maxTurns = m_settings.maxTurns;
    m_controller.setOptions(agentOptions);

    AgentLoop::ShellToolOptions toolOptions;
    toolOptions.workspace = m_settings.workspace.isEmpty() ? QDir::homePath()
                                                           : m_settings.workspace;
    // Long outputs are kept with the conversation, and deleted with it.
    toolOptions.outputDirectory = [this] {
        return m_store.outputDirectoryFor(m_conversation.id.isEmpty() ? u"unsaved"_s
                                                                      : m_conversation.id);
    };
    AgentLoop::installStandardTools(m_controller, m_options.commandRunner, toolOptions);

    const AgentLoop::ProviderSettings provider = m_controller.provider();
    if (m_settings.demoMode) {
        m_providerLabel->clear();
        m_providerLabel->hide();
    } else {
        //: The status bar's provider: "<model> at <host:port>"
        const QString text = tr("%1 at %2").arg(provider.model, provider.baseUrl.authority());
        m_providerLabel->setText(AgentLoop::displayedLine(text, 200)); // a model id from /models
        m_providerLabel->setToolTip(provider.baseUrl.toString());
        m_providerLabel->show();
    }
    m_demoLabel->setVisible(m_settings.demoMode);
    m_chatView->setPlaceholderText(
            m_settings.demoMode
                    ? tr("This is the offline demo: a built-in scripted model answers, nothing "
                         "goes over the network. Ask it anything, for example “What files are "
                         "in my workspace?”, and watch one trip around the agent loop.")
                    : tr("Tell the agent what to do. It shows you every command before it runs "
                         "and runs it only after you say yes."));
    updateTitle();
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_settings.demoMode ? tr("Agent Loop — Demo") : tr("Agent Loop"));
}

QString MainWindow::statusText() const
{
    return m_statusLabel->text();
}

ApprovalPrompt *MainWindow::pendingApproval() const
{
    return m_approval;
}

QString MainWindow::turnText() const
{
    return m_turnLabel->text();
}

void MainWindow::send()
{
    const QString prompt = m_prompt->toPlainText();
    if (prompt.trimmed().isEmpty() || m_controller.isRunning())
        return;
    if (!m_settings.demoMode && !m_settings.isConfigured()) {
        setIdleStatus(tr("Set a base URL, an API key and a model first."));
        openSettings();
        return;
    }
    if (m_controller.run(prompt))
        m_prompt->clear();
    updateActions();
}

void MainWindow::stop()
{
    if (!m_controller.isRunning())
        return;
    // Cancel first: the approval box answers no as it closes, which must not let the run go on.
    m_controller.cancel();
    closeApproval();
}

void MainWindow::newConversation()
{
    if (m_controller.isRunning()) {
        // A running command stops asynchronously; the conversation is cleared once it has.
        m_newConversationPending = true;
        stop();
        if (m_controller.isRunning())
            return;
    }
    clearConversation();
}

void MainWindow::clearConversation()
{
    m_newConversationPending = false;
    m_controller.newConversation();
    m_writer.close();
    m_conversation = {};
    m_unsaved.clear();
    m_saveFailed = false;
    m_conversations->setCurrentId({});
    m_liveAnswer->reset();
    m_chatModel->clear();
    m_turnModel->clear();
    m_callTurns.clear();
    m_currentRequest = 0;
    m_turn = 0;
    m_turnLabel->clear();
    setIdleStatus(tr("Ready"));
    m_prompt->setFocus();
}

void MainWindow::openSettings()
{
    if (m_settingsDialog) {
        m_settingsDialog->raise();
        m_settingsDialog->activateWindow();
        return;
    }
    // The dialog saves on OK (the key into the credential store); applying is this window's part.
    auto *dialog = new SettingsDialog(m_settings, m_keyStore, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_settingsDialog = dialog;
    connect(dialog, &SettingsDialog::settingsApplied, this, &MainWindow::applySettings);
    dialog->open();
}

void MainWindow::showAbout()
{
    auto *box = new QMessageBox(this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowTitle(tr("About Agent Loop"));
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setTextFormat(Qt::RichText);
    box->setText(tr("<h3>Agent Loop %1</h3>"
                    "<p>A desktop coding agent for OpenAI-compatible Chat Completions "
                    "endpoints.</p>"
                    "<p>It sends your task with its tools to the model, shows you every command "
                    "the model wants to run, runs it only after your yes, and feeds the result "
                    "back, until the model answers. Every request and response is in the "
                    "inspector.</p>"
                    "<p>Built with Qt %2.</p>")
                         .arg(QStringLiteral(AGENTLOOP_VERSION), QString::fromLatin1(qVersion())));
    box->setStandardButtons(QMessageBox::Ok);
    box->open();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // Closing stops the run: the request is aborted or the command's process tree is killed, and
    // an open approval box closes; nothing it asked about runs.
    if (m_controller.isRunning())
        m_controller.cancel();
    closeApproval();
    if (m_settingsDialog)
        m_settingsDialog->reject();
    if (m_exportDialog)
        m_exportDialog->reject();
    saveLayout();
    event->accept();
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_prompt->hasFocus() && !m_approval)
        m_prompt->setFocus();
}

void MainWindow::saveLayout() const
{
    if (!m_options.persist || !m_started)
        return;
    AppSettings::saveWindowLayout(
            {saveGeometry(), saveState(AppSettings::WindowLayout::stateVersion)});
}

void MainWindow::restoreLayout()
{
    if (!m_options.persist)
        return;
    const AppSettings::WindowLayout layout = AppSettings::loadWindowLayout();
    restoreGeometry(layout.geometry);
    restoreState(layout.state, AppSettings::WindowLayout::stateVersion);
}

void MainWindow::updateActions()
{
    const bool running = m_controller.isRunning();
    m_send->setEnabled(!running && !m_prompt->toPlainText().trimmed().isEmpty());
    m_stop->setEnabled(running);
    m_conversationPanel->setOpenEnabled(!running);
    const bool hasMessages = !m_controller.history().isEmpty();
    if (m_exportJsonAction) {
        m_exportJsonAction->setEnabled(hasMessages);
        m_exportMarkdownAction->setEnabled(hasMessages);
    }
}

void MainWindow::setIdleStatus(const QString &text)
{
    m_idleText = text;
    updateStatus();
}

void MainWindow::updateStatus()
{
    const qint64 seconds = m_phaseClock.isValid() ? m_phaseClock.elapsed() / 1000 : 0;
    QString text;
    switch (m_state) {
    case AgentController::State::Idle:
        text = m_idleText;
        break;
    case AgentController::State::WaitingForModel:
        if (m_retryAt) {
            // Rounded up: "1 s" until the very moment of the retry, never "0 s" while waiting.
            const qint64 remaining = (m_retryAt->remainingTime() + 999) / 1000;
            text = tr("Retrying in %1 s (attempt %2 of %3)")
                           .arg(qMax<qint64>(remaining, 1))
                           .arg(m_retryAttempt)
                           .arg(m_retryAttempts);
        } else {
            text = tr("Waiting for the model… %1 s").arg(seconds);
        }
        break;
    case AgentController::State::AwaitingApproval:
        text = tr("Awaiting your approval");
        break;
    case AgentController::State::RunningTool:
        text = tr("Running %1… %2 s").arg(m_runningTool, QString::number(seconds));
        break;
    }
    // A tool's name, an error that quotes the provider, a conversation's title: one line, escaped.
    text = AgentLoop::displayedLine(text, 1000);
    m_statusLabel->setText(text);
    m_statusLabel->setToolTip(plainToolTip(text));
    m_turnLabel->setText(m_turn > 0 ? tr("Turn %1 of %2").arg(m_turn).arg(m_maxTurns) : QString());
    updateActions();
}

void MainWindow::onStateChanged(AgentController::State state)
{
    m_state = state;
    if (state != AgentController::State::WaitingForModel) {
        m_retryAt.reset();
        m_tick.setInterval(1000);
    }
    if (state == AgentController::State::WaitingForModel
        || state == AgentController::State::RunningTool)
        m_phaseClock.start();
    if (state == AgentController::State::WaitingForModel
        || state == AgentController::State::RunningTool) {
        if (!m_tick.isActive())
            m_tick.start();
    } else {
        m_tick.stop();
    }
    updateStatus();
}

void MainWindow::onRequestSent(const AgentLoop::Exchange &exchange)
{
    m_currentRequest = m_turnModel->addRequest(exchange);
    // A retry is only made before any byte of an answer arrived, so no live answer can be
    // waiting here; if one were, it would never be completed.
    if (m_liveAnswer->isActive())
        m_liveAnswer->abandon();
    m_liveAnswer->setTurn(m_currentRequest);
    if (std::exchange(m_retryAt, std::nullopt)) {
        m_phaseClock.start();
        m_tick.start(1000); // the seconds count from this attempt
    }
    updateStatus();
}

void MainWindow::onRetryScheduled(qint64 delayMs, int nextAttempt, int maxAttempts)
{
    m_retryAt = QDeadlineTimer(delayMs, Qt::PreciseTimer);
    m_retryAttempt = nextAttempt;
    m_retryAttempts = maxAttempts;
    // A countdown shown to the second needs a finer tick than the elapsed seconds.
    m_tick.start(250);
    updateStatus();
}

void MainWindow::onMessageAppended(const AgentLoop::Message &message)
{
    // On disk before the next request goes out.
    saveMessage(message);
    switch (message.role()) {
    case AgentLoop::Role::System:
    case AgentLoop::Role::Tool: // shown from toolFinished, which knows how the call ended
        return;
    case AgentLoop::Role::User: {
        ChatItem item;
        item.kind = ChatItem::UserPrompt;
        item.text = message.content();
        m_chatModel->append(item);
        return;
    }
    case AgentLoop::Role::Assistant:
        break;
    }
    // The final message replaces the streamed one in place; reasoning alone (before tool calls)
    // is shown too, folded; a message without either shows no text item.
    ChatItem answer;
    answer.kind = ChatItem::AssistantText;
    answer.text = message.hasText() ? message.content() : QString();
    answer.reasoning = message.reasoningContent();
    answer.turn = m_currentRequest;
    m_liveAnswer->finish(answer);
    for (const AgentLoop::ToolCall &call : message.toolCalls()) {
        ChatItem item;
        item.kind = ChatItem::ToolCall;
        item.toolName = call.name;
        item.toolCallId = call.id;
        item.arguments = call.arguments;
        item.turn = m_currentRequest;
        m_callTurns.insert(call.id, m_currentRequest);
        m_chatModel->append(item);
    }
}

void MainWindow::onApprovalRequested(const AgentLoop::ApprovalRequest &request)
{
    closeApproval();
    m_approval = ApprovalPrompt::ask(request, this);
    // The controller as context: an answer that comes while the window is destroyed goes
    // nowhere (the controller is gone by then).
    connect(m_approval,
            &ApprovalPrompt::decided,
            &m_controller,
            [this](quint64 id, AgentLoop::Decision decision) {
                m_controller.resolveApproval(id, decision);
            });
}

void MainWindow::onToolFinished(const AgentLoop::ToolCall &call, const AgentLoop::ToolResult &result)
{
    ChatItem item;
    item.kind = result.errorCode == u"denied" ? ChatItem::Denial : ChatItem::ToolResult;
    item.text = result.content;
    item.toolName = call.name;
    item.toolCallId = call.id;
    item.ok = result.ok;
    item.errorCode = result.errorCode;
    item.exitCode = result.exitCode;
    // Calls that never reached a process (unknown tool, invalid arguments) have no duration.
    item.durationMs = result.exitCode >= 0 || result.durationMs > 0 ? result.durationMs : -1;
    item.outputFile = result.outputFile;
    item.turn = m_callTurns.value(call.id, m_currentRequest);
    m_chatModel->append(item);
}

void MainWindow::onFinished()
{
    setIdleStatus(tr("Finished"));
    whenIdle();
}

void MainWindow::onFailed(const AgentLoop::Error &error)
{
    closeApproval();
    m_turnModel->abortPending();
    m_liveAnswer->abandon();
    ChatItem item;
    if (error.kind == AgentLoop::Error::Cancelled) {
        item.kind = ChatItem::Notice;
        item.text = error.message;
        setIdleStatus(tr("Stopped"));
    } else {
        item.kind = ChatItem::ErrorMessage;
        item.text = error.message;
        item.hint = error.hint;
        item.turn = m_currentRequest;
        setIdleStatus(tr("Failed: %1").arg(error.message));
    }
    m_chatModel->append(item);
    whenIdle();
}

void MainWindow::whenIdle()
{
    if (m_pendingSettings)
        applySettings(*m_pendingSettings);
    if (m_newConversationPending)
        clearConversation();
}

void MainWindow::closeApproval()
{
    if (!m_approval)
        return;
    // The box answers no when it closes; the controller ignores an answer it no longer waits for.
    if (QMessageBox *box = m_approval->messageBox())
        box->reject();
    m_approval = nullptr;
}

} // namespace Gui
