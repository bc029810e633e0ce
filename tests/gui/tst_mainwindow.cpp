#include "approvalprompt.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/promptedit.h"
#include "elevationbar.h"
#include "fakechatserver.h"
#include "inspector/inspector.h"
#include "inspector/jsonformat.h"
#include "inspector/turnmodel.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "processreaper.h"
#include "settings/appsettings.h"
#include "settings/settingsdialog.h"
#include "temporarysettings.h"
#include "testjson.h"
#include "testmain.h"
#include "tools/commandrunner.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>

#include <list>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;
using Gui::ChatModel;

namespace {

// A command that runs for 30 s in the shell the window uses (detectShell()'s). The other commands
// here (echo, and > to a file) mean the same in /bin/sh, cmd.exe and PowerShell.
QString longCommand()
{
    switch (detectShell().kind) {
    case ShellInfo::Cmd:
        return u"ping -n 30 127.0.0.1 >nul"_s;
    case ShellInfo::PowerShellCore:
    case ShellInfo::WindowsPowerShell:
        return u"Start-Sleep -Seconds 30"_s;
    case ShellInfo::PosixShell:
        break;
    }
    return u"sleep 30"_s;
}

// The processes of longCommand() while it runs, the shell's first: the shell this process
// started and, but in PowerShell (which sleeps itself), the sleep or ping it started. Empty until
// all of them run.
QList<qint64> longCommandProcesses()
{
    const ShellInfo shell = detectShell();
    const QList<qint64> shells = childProcesses(QCoreApplication::applicationPid(),
                                                QFileInfo(shell.program).completeBaseName());
    if (shells.size() != 1 || shell.isPowerShell())
        return shells;
    const QList<qint64> sleeps = childProcesses(shells.first(),
                                                shell.kind == ShellInfo::Cmd ? u"ping"_s
                                                                             : u"sleep"_s);
    return sleeps.size() == 1 ? QList<qint64>{shells.first(), sleeps.first()} : QList<qint64>();
}

// The seconds in "<phase>… <n> s", or -1 when the text is not that.
int shownSeconds(const QString &text, const QString &phase)
{
    const QRegularExpression counting(u"^"_s + QRegularExpression::escape(phase) + u"… (\\d+) s$"_s);
    const QRegularExpressionMatch match = counting.match(text);
    return match.hasMatch() ? match.captured(1).toInt() : -1;
}

// A workspace whose path has spaces and non-ASCII characters, as a user's real folders have.
MainWindowFixture::Options inAUsersFolder()
{
    MainWindowFixture::Options options;
    options.workspaceTemplate = QDir::tempPath() + u"/Agent Loop 工作区-XXXXXX"_s;
    return options;
}

} // namespace

class tst_MainWindow : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void startsReadyWithFocusInThePrompt();
    void promptKeys();
    void approvedCallRunsAndTheAnswerIsShown();
    void declinedCallRunsNothing_data();
    void declinedCallRunsNothing();
    void stopDuringASlowRequest();
    void stopDuringALongCommand();
    void closingTheWindowStopsTheRun();
    void inspectorHoldsEveryRequestAsSent();
    void conversationContinuesAndNewConversationClears();
    void providerErrorIsShownWithItsHint();
    void demoModeIsLabelled();
    void firstStartOpensTheSettings();
    void elevatedAppWarnsUntilHidden();

private:
    void approveAndFinish(MainWindowFixture &f, const QString &command, const QString &answer);

    TemporarySettings m_settings;
};

void tst_MainWindow::init()
{
    rejectVisibleMessageBoxes();
}

void tst_MainWindow::approveAndFinish(MainWindowFixture &f,
                                      const QString &command,
                                      const QString &answer)
{
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(command)),
                     FakeResponse::answer(answer)});
    f.type(u"Run %1 for me"_s.arg(command));
    QVERIFY(f.waitForApproval());
    QVERIFY(f.allowPendingCall());
    QVERIFY(f.waitUntilFinished());
}

void tst_MainWindow::startsReadyWithFocusInThePrompt()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    QCOMPARE(QApplication::focusWidget(), f.window->promptEdit());
    QCOMPARE(f.window->statusText(), u"Ready"_s);
    QCOMPARE(f.window->windowTitle(), u"Agent Loop"_s);
    QVERIFY(!f.window->findChild<QLabel *>(u"demoLabel"_s)->isVisible());
    QVERIFY(f.window->inspectorDock()->isVisible());
    QVERIFY(!f.window->sendButton()->isEnabled()); // nothing typed yet
    QVERIFY(!f.window->stopButton()->isEnabled());
    QVERIFY(!f.window->promptEdit()->placeholderText().isEmpty());
    QVERIFY(!f.window->promptEdit()->accessibleName().isEmpty());
    QVERIFY(!f.window->sendButton()->accessibleName().isEmpty());
    QVERIFY(!f.window->stopButton()->accessibleName().isEmpty());

    // View > Inspector hides and shows the dock.
    QAction *toggle = f.window->inspectorDock()->toggleViewAction();
    toggle->trigger();
    QVERIFY(!f.window->inspectorDock()->isVisible());
    toggle->trigger();
    QVERIFY(f.window->inspectorDock()->isVisible());
    QStringList menus;
    for (QAction *action : f.window->menuBar()->actions())
        menus << action->text();
    QCOMPARE(menus, (QStringList{u"&File"_s, u"&View"_s, u"&Provider"_s, u"&Help"_s}));
}

void tst_MainWindow::promptKeys()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    Gui::PromptEdit *prompt = f.window->promptEdit();
    QTest::keyClicks(prompt, u"first line"_s);
    QVERIFY(f.window->sendButton()->isEnabled());
    QTest::keyClick(prompt, Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(prompt, u"second line"_s);
    QCOMPARE(prompt->toPlainText(), u"first line\nsecond line"_s);
    QCOMPARE(f.server.requests().size(), 0);

    f.server.script({FakeResponse::answer(u"Two lines received."_s)});
    QTest::keyClick(prompt, Qt::Key_Return);
    QVERIFY(prompt->toPlainText().isEmpty());
    QVERIFY(!f.window->sendButton()->isEnabled());
    QVERIFY(f.window->stopButton()->isEnabled());
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 1);
    const QJsonArray messages = f.server.requests().at(0).messages();
    QCOMPARE(messages.last().toObject().value(u"content"_s).toString(),
             u"first line\nsecond line"_s);
    QVERIFY(!f.window->stopButton()->isEnabled());

    // Enter on an empty prompt sends nothing.
    QTest::keyClick(prompt, Qt::Key_Return);
    QTest::qWait(50);
    QCOMPARE(f.server.requests().size(), 1);
}

void tst_MainWindow::approvedCallRunsAndTheAnswerIsShown()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(u"echo 42"_s)),
                     FakeResponse::answer(u"The command printed **42**."_s)});
    f.type(u"What does echo 42 print?"_s);

    QMessageBox *box = f.waitForApproval();
    QVERIFY(box);
    QCOMPARE(f.window->statusText(), u"Awaiting your approval"_s);
    QVERIFY(box->windowTitle().contains(u"Approve"_s, Qt::CaseInsensitive));
    QVERIFY2(box->text().contains(u"shell"_s), qPrintable(box->text()));
    const QString shown = box->text() + box->informativeText();
    QVERIFY2(shown.contains(u"requires explicit approval"_s), qPrintable(shown)); // the reason
    auto *arguments = f.window->pendingApproval()->argumentsView();
    QVERIFY(arguments && arguments->isVisible());
    QCOMPARE(arguments->toPlainText(), u"echo 42"_s); // the command line itself
    QCOMPARE(box->defaultButton(), f.window->pendingApproval()->denyButton());
    // The chat already shows the call the box asks about.
    const QList<ChatItem> calls = f.items(ChatItem::ToolCall);
    QCOMPARE(calls.size(), 1);
    QCOMPARE(calls.at(0).toolName, u"shell"_s);
    QCOMPARE(calls.at(0).arguments, shellArguments(u"echo 42"_s));
    QCOMPARE(f.server.requests().size(), 1); // nothing ran, nothing sent back yet

    QVERIFY(f.allowPendingCall());
    QVERIFY(f.waitUntilFinished());
    QVERIFY(!visibleMessageBox());

    const QList<ChatItem> results = f.items(ChatItem::ToolResult);
    QCOMPARE(results.size(), 1);
    QCOMPARE(results.at(0).text, u"42"_s);
    QCOMPARE(results.at(0).exitCode, 0);
    QVERIFY(results.at(0).ok);
    const QList<ChatItem> answers = f.items(ChatItem::AssistantText);
    QCOMPARE(answers.size(), 1);
    QCOMPARE(answers.at(0).text, u"The command printed **42**."_s);
    QCOMPARE(f.window->chatModel()->item(0).kind, ChatItem::UserPrompt);
    QCOMPARE(f.window->chatModel()->item(0).text, u"What does echo 42 print?"_s);

    QCOMPARE(f.server.requests().size(), 2);
    const QList<QJsonObject> toolMessages = f.server.requests().at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 1);
    QCOMPARE(toolMessages.at(0).value(u"tool_call_id"_s).toString(), u"call_1"_s);
    QCOMPARE(toolMessages.at(0).value(u"content"_s).toString(), u"42"_s);
    QCOMPARE(f.window->turnText(), u"Turn 2 of 20"_s);
    QVERIFY(f.window->sendButton()->isEnabled() == false); // the prompt box is empty
    QVERIFY(!f.window->stopButton()->isEnabled());

    // Selecting the tool call in the chat selects the request that asked for it.
    Gui::ChatView *view = f.window->chatView();
    const int callRow = f.window->chatModel()->toolCallRow(u"call_1"_s);
    view->scrollTo(f.window->chatModel()->index(callRow, 0));
    QTest::mouseClick(view->viewport(),
                      Qt::LeftButton,
                      {},
                      view->visualRect(f.window->chatModel()->index(callRow, 0)).center());
    QCOMPARE(view->currentIndex().row(), callRow);
    QCOMPARE(f.window->inspector()->currentTurn(), 1);
    QVERIFY(f.window->inspector()->responseText().contains(u"\"tool_calls\""_s));
    const int answerRow = f.window->chatModel()->rowCount() - 1;
    view->setCurrentIndex(f.window->chatModel()->index(answerRow, 0));
    QCOMPARE(f.window->inspector()->currentTurn(), 2);
}

void tst_MainWindow::declinedCallRunsNothing_data()
{
    QTest::addColumn<QString>("how");
    QTest::addColumn<bool>("runs");
    QTest::newRow("yes (control)") << u"yes"_s << true;
    QTest::newRow("no") << u"no"_s << false;
    QTest::newRow("escape") << u"escape"_s << false;
    QTest::newRow("close") << u"close"_s << false;
}

void tst_MainWindow::declinedCallRunsNothing()
{
    QFETCH(QString, how);
    QFETCH(bool, runs);
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    const QString command = u"echo ran > marker.txt"_s;
    f.server.script({FakeResponse::toolCall(u"call_9"_s, u"shell"_s, shellArguments(command)),
                     FakeResponse::answer(u"Understood."_s)});
    f.type(u"Write the marker"_s);
    QMessageBox *box = f.waitForApproval();
    QVERIFY(box);
    if (how == u"yes") {
        QVERIFY(f.allowPendingCall());
    } else if (how == u"no") {
        QTest::mouseClick(f.window->pendingApproval()->denyButton(), Qt::LeftButton);
    } else if (how == u"escape") {
        QTest::keyClick(box, Qt::Key_Escape);
    } else {
        box->close();
    }
    QVERIFY(f.waitUntilFinished());

    QCOMPARE(QFile::exists(f.inWorkspace(u"marker.txt"_s)), runs);
    QCOMPARE(f.server.requests().size(), 2);
    const QList<QJsonObject> toolMessages = f.server.requests().at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 1);
    QCOMPARE(toolMessages.at(0).value(u"tool_call_id"_s).toString(), u"call_9"_s);
    const QString content = toolMessages.at(0).value(u"content"_s).toString();
    QCOMPARE(content.startsWith(u"denied"_s), !runs);
    const QList<ChatItem> denials = f.items(ChatItem::Denial);
    QCOMPARE(denials.size(), runs ? 0 : 1);
    if (!runs)
        QCOMPARE(denials.at(0).text, content); // what the model was told
}

void tst_MainWindow::stopDuringASlowRequest()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    f.server.script({FakeResponse::neverAnswer(), FakeResponse::answer(u"Back again."_s)});
    f.type(u"Take your time"_s);
    const QString waiting = u"Waiting for the model"_s;
    QTRY_VERIFY(shownSeconds(f.window->statusText(), waiting) >= 0);
    QCOMPARE(f.window->turnText(), u"Turn 1 of 20"_s);
    QTRY_VERIFY(shownSeconds(f.window->statusText(), waiting) >= 1); // the seconds count
    QVERIFY(f.window->stopButton()->isEnabled());
    QVERIFY(!f.window->sendButton()->isEnabled());

    QTest::mouseClick(f.window->stopButton(), Qt::LeftButton);
    QCOMPARE(f.window->statusText(), u"Stopped"_s);
    QVERIFY(!f.window->controller().isRunning());
    QVERIFY(!f.window->stopButton()->isEnabled());
    QCOMPARE(f.window->turnModel()->index(0, Gui::TurnModel::StatusColumn).data().toString(),
             u"stopped"_s);
    QVERIFY(f.window->controller().history().checkPairing().hasValue());

    // The same conversation goes on.
    QTest::keyClicks(f.window->promptEdit(), u"Are you there?"_s);
    QVERIFY(f.window->sendButton()->isEnabled());
    QTest::mouseClick(f.window->sendButton(), Qt::LeftButton);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 2);
    QStringList userPrompts;
    for (const QJsonValue &message : f.server.requests().at(1).messages()) {
        if (message.toObject().value(u"role"_s).toString() == u"user")
            userPrompts << message.toObject().value(u"content"_s).toString();
    }
    QCOMPARE(userPrompts, (QStringList{u"Take your time"_s, u"Are you there?"_s}));
}

void tst_MainWindow::stopDuringALongCommand()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(longCommand())),
                     FakeResponse::answer(u"unused"_s)});
    f.type(u"Sleep"_s);
    QVERIFY(f.waitForApproval());
    QVERIFY(f.allowPendingCall());
    QTRY_VERIFY(shownSeconds(f.window->statusText(), u"Running shell"_s) >= 0);
    QList<qint64> pids;
    QTRY_VERIFY_WITH_TIMEOUT(!(pids = longCommandProcesses()).isEmpty(), Testing::hangGuardMs);
    std::list<WatchedProcess> processes(pids.cbegin(), pids.cend());

    // The command would run 30 s: the stop ends it, and every process of it.
    QTest::mouseClick(f.window->stopButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(f.window->statusText(), u"Stopped"_s, Testing::hangGuardMs);
    for (const WatchedProcess &process : processes)
        QTRY_VERIFY2(process.isGone(), qPrintable(QString::number(process.pid())));

    QCOMPARE(f.server.requests().size(), 1);
    const History &history = f.window->controller().history();
    QVERIFY(history.checkPairing().hasValue());
    QCOMPARE(history.last().role(), Role::Tool);
    QVERIFY(history.last().content().startsWith(u"cancelled"_s));
    const QList<ChatItem> results = f.items(ChatItem::ToolResult);
    QCOMPARE(results.size(), 1);
    QCOMPARE(results.at(0).errorCode, u"cancelled"_s);
    QVERIFY(!f.window->stopButton()->isEnabled());
}

void tst_MainWindow::closingTheWindowStopsTheRun()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    f.server.script({FakeResponse::toolCall(u"call_1"_s,
                                            u"shell"_s,
                                            shellArguments(u"echo ran > marker.txt"_s)),
                     FakeResponse::answer(u"unused"_s)});
    f.type(u"Write the marker"_s);
    QVERIFY(f.waitForApproval());
    QVERIFY(f.window->close());
    QTRY_VERIFY(visibleMessageBox() == nullptr);
    QVERIFY(!f.window->controller().isRunning());
    f.window.reset();
    QTest::qWait(100);
    QVERIFY(!QFile::exists(f.inWorkspace(u"marker.txt"_s)));
    QCOMPARE(f.server.requests().size(), 1);
}

void tst_MainWindow::inspectorHoldsEveryRequestAsSent()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    approveAndFinish(f, u"echo 42"_s, u"It printed 42."_s);

    const QList<RecordedRequest> requests = f.server.requests();
    Gui::TurnModel *turns = f.window->turnModel();
    Gui::Inspector *inspector = f.window->inspector();
    QCOMPARE(turns->rowCount(), requests.size());
    QCOMPARE(requests.size(), 2);
    QStringList everything;
    for (int row = 0; row < requests.size(); ++row) {
        QCOMPARE(turns->record(row).exchange.requestBody, requests.at(row).body);
        inspector->selectTurn(row + 1);
        QCOMPARE(inspector->currentTurn(), row + 1);
        QCOMPARE(inspector->requestText(), Gui::prettyJson(requests.at(row).body));
        QCOMPARE(Gui::compactJson(inspector->requestText()),
                 QString::fromUtf8(requests.at(row).body));
        QCOMPARE(turns->index(row, Gui::TurnModel::StatusColumn).data().toString(), u"200"_s);
        QVERIFY(inspector->headersText().contains(u"Authorization: Bearer [REDACTED]"_s));
        everything << inspector->requestText() << inspector->responseText()
                   << inspector->headersText()
                   << AgentLoop::curlCommand(turns->record(row).exchange);
        for (int column = 0; column < turns->columnCount(); ++column)
            everything << turns->index(row, column).data().toString()
                       << turns->index(row, column).data(Qt::ToolTipRole).toString();
    }
    QCOMPARE(turns->index(0, Gui::TurnModel::FinishReasonColumn).data().toString(), u"tool_calls"_s);
    QCOMPARE(turns->index(1, Gui::TurnModel::FinishReasonColumn).data().toString(), u"stop"_s);
    for (int row = 0; row < f.window->chatModel()->rowCount(); ++row)
        everything << ChatModel::plainText(f.window->chatModel()->item(row));
    everything << f.window->statusText();
    // The key did reach the provider, and is nowhere on screen.
    QCOMPARE(requests.at(0).header("Authorization"), "Bearer " + f.apiKey.toLatin1());
    QVERIFY(!everything.join(u'\n').contains(f.apiKey));
}

void tst_MainWindow::conversationContinuesAndNewConversationClears()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    approveAndFinish(f, u"echo first"_s, u"First done."_s);
    QCOMPARE(f.server.requests().size(), 2);

    f.server.script({FakeResponse::answer(u"Second done."_s)});
    f.type(u"And now?"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 3);
    const QJsonArray third = f.server.requests().at(2).messages();
    QStringList roles;
    for (const QJsonValue &message : third)
        roles << message.toObject().value(u"role"_s).toString();
    QCOMPARE(roles,
             (QStringList{u"system"_s,
                          u"user"_s,
                          u"assistant"_s,
                          u"tool"_s,
                          u"assistant"_s,
                          u"user"_s}));
    QCOMPARE(f.window->turnModel()->rowCount(), 3);

    // Ctrl+N: a clean slate, and the next request carries none of the old history.
    QVERIFY(f.waitForWindowActive());
    QTest::keyClick(f.window->promptEdit(), Qt::Key_N, Qt::ControlModifier);
    QCOMPARE(f.window->chatModel()->rowCount(), 0);
    QCOMPARE(f.window->turnModel()->rowCount(), 0);
    QVERIFY(f.window->controller().history().isEmpty());
    QCOMPARE(f.window->inspector()->currentTurn(), 0);
    f.server.script({FakeResponse::answer(u"Fresh."_s)});
    f.type(u"Hello again"_s);
    QVERIFY(f.waitUntilFinished());
    const QJsonArray fresh = f.server.requests().at(3).messages();
    QCOMPARE(fresh.size(), 2);
    QCOMPARE(fresh.at(1).toObject().value(u"content"_s).toString(), u"Hello again"_s);
    QCOMPARE(f.window->turnModel()->rowCount(), 1);
}

void tst_MainWindow::providerErrorIsShownWithItsHint()
{
    MainWindowFixture f(inAUsersFolder());
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    f.server.script({FakeResponse::httpError(400, u"Unsupported parameter: 'tools'"_s)});
    f.type(u"Hi"_s);
    QTRY_VERIFY_WITH_TIMEOUT(f.window->statusText().startsWith(u"Failed: "_s), Testing::hangGuardMs);
    const QList<ChatItem> errors = f.items(ChatItem::ErrorMessage);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.at(0).text.contains(u"Unsupported parameter"_s), qPrintable(errors.at(0).text));
    QVERIFY(f.window->statusText().contains(errors.at(0).text));
    QVERIFY(!errors.at(0).hint.isEmpty());
    QCOMPARE(f.window->turnModel()->index(0, Gui::TurnModel::StatusColumn).data().toString(),
             u"400"_s);
}

void tst_MainWindow::demoModeIsLabelled()
{
    MainWindowFixture f(inAUsersFolder());
    f.settings.demoMode = true;
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    QCOMPARE(f.window->windowTitle(), u"Agent Loop — Demo"_s);
    auto *label = f.window->findChild<QLabel *>(u"demoLabel"_s);
    QVERIFY(label && label->isVisible());
    QCOMPARE(label->text(), u"Demo mode"_s);

    // Leaving the demo takes the label away.
    Gui::AppSettings settings = f.window->settings();
    settings.demoMode = false;
    f.window->applySettings(settings);
    QCOMPARE(f.window->windowTitle(), u"Agent Loop"_s);
    QVERIFY(!label->isVisible());
}

void tst_MainWindow::firstStartOpensTheSettings()
{
    QFile::remove(Gui::AppSettings::settingsFilePath());
    MainWindowFixture f(inAUsersFolder());
    f.settings.demoMode = true;
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    Gui::AppSettings demo = f.window->settings();
    demo.apiKey.clear(); // nothing configured: the key would come from the credential store
    f.window->applySettings(demo);
    f.window->start();
    Gui::SettingsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = f.window->findChild<Gui::SettingsDialog *>()) != nullptr
                && dialog->isVisible());

    // What the dialog applies, the window uses: a real provider, no demo label.
    Gui::AppSettings configured = dialog->settings();
    configured.demoMode = false;
    configured.baseUrl = f.server.baseUrl().toString();
    configured.apiKey = f.apiKey;
    configured.model = u"gpt-test"_s;
    emit dialog->settingsApplied(configured);
    dialog->reject();
    QCOMPARE(f.window->windowTitle(), u"Agent Loop"_s);
    QCOMPARE(f.window->controller().provider().baseUrl, f.server.baseUrl());
    f.server.script({FakeResponse::answer(u"Configured."_s)});
    f.type(u"Hello"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 1);
    QCOMPARE(f.server.requests().at(0).json().value(u"model"_s).toString(), u"gpt-test"_s);
}

// Run as administrator (root), the window says so above the conversation until the user hides
// it; Escape, which closes so much else, does not.
void tst_MainWindow::elevatedAppWarnsUntilHidden()
{
#ifdef Q_OS_WIN
    const QString warning = u"Agent Loop is running as administrator: every command you approve "
                            "runs with full rights over this computer. Close it and start it "
                            "normally."_s;
#else
    const QString warning = u"Agent Loop is running as root: every command you approve runs with "
                            "full rights over this computer. Close it and start it as your own "
                            "user."_s;
#endif
    {
        MainWindowFixture f;
        f.windowOptions.runsElevated = true;
        f.openWindow();
        QVERIFY(f.waitForWindowActive());
        auto *bar = f.window->findChild<Gui::ElevationBar *>(u"elevationBar"_s);
        QVERIFY(bar);
        QVERIFY(bar->isVisible());
        QCOMPARE(f.window->findChild<QLabel *>(u"elevationText"_s)->text(), warning);
        QVERIFY(bar->mapTo(f.window.get(), QPoint(0, bar->height())).y()
                <= f.window->chatView()->mapTo(f.window.get(), QPoint()).y());
        QCOMPARE(QApplication::focusWidget(), f.window->promptEdit());

        QTest::keyClick(f.window->promptEdit(), Qt::Key_Escape);
        QVERIFY(bar->isVisible());
        QTest::mouseClick(bar->hideButton(), Qt::LeftButton);
        QVERIFY(!bar->isVisible());
    }
    MainWindowFixture f;
    f.windowOptions.runsElevated = false;
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    QVERIFY(!f.window->findChild<Gui::ElevationBar *>());
    QVERIFY(!f.window->findChild<QLabel *>(u"elevationText"_s));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_MainWindow)
#include "tst_mainwindow.moc"
