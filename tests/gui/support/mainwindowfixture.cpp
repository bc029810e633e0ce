#include "mainwindowfixture.h"

#include "approvalprompt.h"
#include "chat/promptedit.h"
#include "tools/commandrunner.h"

#include <QApplication>
#include <QDir>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTest>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

std::optional<QTemporaryDir> temporaryWorkspace(const MainWindowFixture::Options &options)
{
    if (!options.workspace.isEmpty())
        return std::nullopt;
    if (options.workspaceTemplate.isEmpty())
        return std::make_optional<QTemporaryDir>();
    return std::make_optional<QTemporaryDir>(options.workspaceTemplate);
}

} // namespace

MainWindowFixture::MainWindowFixture()
    : MainWindowFixture(Options{})
{}

MainWindowFixture::MainWindowFixture(const Options &options)
    : apiKey(options.apiKey)
    , keyStore(AgentLoop::KeyStore::Backend::SessionOnly, u"agentloop-tests"_s)
    , m_workspace(temporaryWorkspace(options))
    , m_windowSize(options.windowSize)
{
    server.setRequiredApiKey(apiKey.toUtf8());
    settings.baseUrl = server.baseUrl().toString();
    settings.apiKey = apiKey;
    settings.model = u"gpt-test"_s;
    settings.workspace = m_workspace ? m_workspace->path() : options.workspace;
    settings.maxTurns = 20;
    settings.requestTimeoutSeconds = 30;
    windowOptions.commandRunner = std::make_shared<ProcessCommandRunner>();
    windowOptions.keyStore = &keyStore;
    windowOptions.persist = false;
    // Whatever this test runs as (CI runs as root): the warning bar changes the window's layout
    // and focus chain, so only the tests of it ask for it.
    windowOptions.runsElevated = false;
    if (options.savesInWorkspace) {
        windowOptions.conversationDirectory = inWorkspace(u"conversations"_s);
        windowOptions.outputDirectory = inWorkspace(u"outputs"_s);
    }
}

void MainWindowFixture::openWindow()
{
    window = std::make_unique<Gui::MainWindow>(settings, windowOptions);
    if (!m_windowSize.isEmpty())
        window->resize(m_windowSize);
    window->show();
    QApplication::setActiveWindow(window.get());
    // The saved conversations are listed on another thread.
    if (!QTest::qWaitFor([this] { return !window->isListingConversations(); }, 10000))
        qWarning("the saved conversations are still not listed after 10 s");
}

bool MainWindowFixture::waitForWindowActive()
{
    QApplication::setActiveWindow(window.get());
    return QTest::qWaitForWindowActive(window.get());
}

bool MainWindowFixture::waitForWindowExposed()
{
    return QTest::qWaitForWindowExposed(window.get());
}

void MainWindowFixture::type(const QString &prompt)
{
    QTest::keyClicks(window->promptEdit(), prompt);
    QTest::keyClick(window->promptEdit(), Qt::Key_Return);
}

void MainWindowFixture::sendPasted(const QString &prompt)
{
    window->promptEdit()->setPlainText(prompt);
    QTest::keyClick(window->promptEdit(), Qt::Key_Return);
}

QMessageBox *MainWindowFixture::waitForApproval()
{
    const auto openBox = [this]() -> QMessageBox * {
        Gui::ApprovalPrompt *approval = window->pendingApproval();
        QMessageBox *box = approval ? approval->messageBox() : nullptr;
        return box && box->isVisible() ? box : nullptr;
    };
    if (!QTest::qWaitFor([&] { return openBox() != nullptr; }, 10000))
        return nullptr;
    return openBox();
}

bool MainWindowFixture::allowPendingCall()
{
    Gui::ApprovalPrompt *approval = window->pendingApproval();
    if (!approval)
        return false;
    const QPointer<QPushButton> allow = approval->allowButton();
    if (!QTest::qWaitFor([&] { return allow && allow->isEnabled(); }, 10000))
        return false;
    QTest::mouseClick(allow, Qt::LeftButton);
    return true;
}

bool MainWindowFixture::waitUntilFinished(int timeoutMs)
{
    if (QTest::qWaitFor([this] { return window->statusText() == u"Finished"; }, timeoutMs))
        return true;
    qWarning("the status bar still says \"%s\" after %d ms",
             qPrintable(window->statusText()),
             timeoutMs);
    return false;
}

bool MainWindowFixture::openConversation(const QString &id)
{
    window->openConversation(id);
    return waitUntilOpened(id);
}

bool MainWindowFixture::waitUntilOpened(const QString &id, int timeoutMs)
{
    const auto opened = [this, &id] {
        return window->currentConversationId() == id && window->runFeed()->openingId().isEmpty()
               && !window->runFeed()->isShowingEarlierEntries();
    };
    if (QTest::qWaitFor(opened, timeoutMs))
        return true;
    qWarning("conversation %s is not open after %d ms: the window shows \"%s\", the status bar "
             "says \"%s\"",
             qPrintable(id),
             timeoutMs,
             qPrintable(window->currentConversationId()),
             qPrintable(window->statusText()));
    return false;
}

Gui::ChatModel *MainWindowFixture::chat() const
{
    return window->chatModel();
}

QList<Gui::ChatItem> MainWindowFixture::items(Gui::ChatItem::Kind kind) const
{
    QList<Gui::ChatItem> found;
    for (const int row : rows(kind))
        found << chat()->item(row);
    return found;
}

QList<int> MainWindowFixture::rows(Gui::ChatItem::Kind kind) const
{
    QList<int> found;
    for (int row = 0; row < chat()->rowCount(); ++row) {
        if (chat()->item(row).kind == kind)
            found << row;
    }
    return found;
}

QString MainWindowFixture::inWorkspace(const QString &name) const
{
    return QDir(settings.workspace).filePath(name);
}

QMessageBox *visibleMessageBox()
{
    for (QWidget *widget : QApplication::topLevelWidgets()) {
        if (auto *box = qobject_cast<QMessageBox *>(widget); box && box->isVisible())
            return box;
    }
    return nullptr;
}

void rejectVisibleMessageBoxes()
{
    while (QMessageBox *box = visibleMessageBox())
        box->reject();
}

} // namespace AgentLoop
