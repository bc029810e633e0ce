#include "approvalprompt.h"
#include "chat/chatmodel.h"
#include "experiments.h"
#include "inspector/inspector.h"
#include "inspector/protocolstrip.h"
#include "inspector/turnmodel.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "temporarysettings.h"
#include "testjson.h"
#include "testmain.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;

namespace {

MainWindowFixture::Options savedInTheWorkspace()
{
    MainWindowFixture::Options options;
    options.savesInWorkspace = true;
    return options;
}

QAction *helpAction(Gui::MainWindow &window, const QString &text)
{
    for (QAction *menu : window.menuBar()->actions()) {
        if (menu->text() != u"&Help")
            continue;
        for (QAction *action : menu->menu()->actions()) {
            if (action->text() == text)
                return action;
        }
    }
    return nullptr;
}

bool waitUntilIdle(Gui::MainWindow &window)
{
    return QTest::qWaitFor([&] { return !window.controller().isRunning(); }, 15000);
}

QStringList chipTexts(const Gui::ProtocolStrip &strip)
{
    QStringList texts;
    for (const QLabel *chip : strip.chips()) {
        if (!chip->isHidden())
            texts << chip->text();
    }
    return texts;
}

} // namespace

class tst_ExperimentsGui : public QObject
{
    Q_OBJECT

private slots:
    void init() { rejectVisibleMessageBoxes(); }
    void helpMenuRunsTheTurnLimitExperiment();
    void missingResultShowsTheBrokenRuleAndNothingSent();
    void everyRequestShowsItsChecks();
    void stoppedCallShowsAsARepair();

private:
    TemporarySettings m_settings;
};

void tst_ExperimentsGui::helpMenuRunsTheTurnLimitExperiment()
{
    MainWindowFixture f(savedInTheWorkspace());
    f.openWindow();
    QAction *action = helpAction(*f.window, u"&Experiments…"_s);
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(u"Ctrl+Shift+X"_s));
    action->trigger();
    Gui::ExperimentsDialog *dialog = f.window->experiments()->dialog();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    // The three experiments and the five questions, each with a Run button.
    for (const Experiment &experiment : courseExperiments())
        QVERIFY(dialog->runButton(experiment.id));
    QPushButton *run = dialog->runButton(Experiment::MaxTurns);
    QTest::mouseClick(run, Qt::LeftButton);
    QVERIFY(QTest::qWaitFor([&] { return !f.window->experiments()->dialog(); }, 5000));

    // What to look at, then the usual approval of the scripted model's command.
    const QList<ChatItem> notices = f.items(ChatItem::Notice);
    QVERIFY(!notices.isEmpty());
    QVERIFY2(notices.first().text.contains(u"Agent exceeded maxTurns=1"_s),
             qPrintable(notices.first().text));
    QVERIFY(f.waitForApproval());
    QVERIFY(f.allowPendingCall());
    QVERIFY(waitUntilIdle(*f.window));
    const QList<ChatItem> errors = f.items(ChatItem::ErrorMessage);
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first().text, u"Agent exceeded maxTurns=1"_s);
    QCOMPARE(f.items(ChatItem::ToolResult).size(), 1); // the command ran first
    QCOMPARE(f.window->turnModel()->rowCount(), 1);

    // The user's provider heard nothing and is the session's again.
    QVERIFY(f.server.requests().isEmpty());
    QCOMPARE(f.window->controller().provider().baseUrl, f.server.baseUrl());
    QCOMPARE(f.window->controller().options().maxTurns, 20);
    QVERIFY(!f.window->settings().demoMode);
}

void tst_ExperimentsGui::missingResultShowsTheBrokenRuleAndNothingSent()
{
    MainWindowFixture f(savedInTheWorkspace());
    f.openWindow();
    QVERIFY(f.window->experiments()->run(Experiment::MissingResult));
    QVERIFY(waitUntilIdle(*f.window));
    const QList<ChatItem> errors = f.items(ChatItem::ErrorMessage);
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first().text, u"missing tool results for ids: [\"call_2\"]"_s);
    // The broken history is in the chat: two calls, one result.
    QCOMPARE(f.items(ChatItem::ToolCall).size(), 2);
    QCOMPARE(f.items(ChatItem::ToolResult).size(), 1);

    // The inspector's only row says nothing was sent, and its strip names the broken rule.
    Gui::TurnModel *turns = f.window->turnModel();
    QCOMPARE(turns->rowCount(), 1);
    QCOMPARE(turns->data(turns->index(0, Gui::TurnModel::StatusColumn)).toString(), u"not sent"_s);
    f.window->inspector()->selectRow(0);
    Gui::ProtocolStrip *strip = f.window->inspector()->protocolStrip();
    QVERIFY(strip->isVisibleTo(f.window->inspector()));
    QCOMPARE(strip->headline(), u"Protocol check failed (pairing): nothing was sent."_s);
    QCOMPARE(chipTexts(*strip),
             (QStringList{u"✗ pairing: message 2, call_2"_s,
                          u"✓ no orphan results"_s,
                          u"✓ roles in order"_s,
                          u"✓ unique call ids"_s,
                          u"✓ tool snapshot"_s}));
    QCOMPARE(strip->chips().first()->toolTip(),
             u"Message 2 (assistant) calls call_2, but no tool message after it answers that id."_s);
    QVERIFY(f.window->inspector()->requestText().isEmpty());
    QVERIFY(f.server.requests().isEmpty());
}

void tst_ExperimentsGui::everyRequestShowsItsChecks()
{
    MainWindowFixture f(savedInTheWorkspace());
    f.openWindow();
    f.server.script({FakeResponse::answer(u"Hello."_s)});
    f.type(u"Say hello"_s);
    QVERIFY(f.waitUntilFinished());
    f.window->inspector()->selectRow(0);
    Gui::ProtocolStrip *strip = f.window->inspector()->protocolStrip();
    QVERIFY(strip->isVisibleTo(f.window->inspector()));
    QCOMPARE(strip->headline(), u"Protocol check before this request: all 5 rules hold."_s);
    const QStringList chips = chipTexts(*strip);
    QCOMPARE(chips.size(), 5);
    for (const QString &chip : chips)
        QVERIFY2(chip.startsWith(u"✓ "_s), qPrintable(chip));
    QVERIFY2(strip->chips().last()->toolTip().contains(u"shell"_s),
             qPrintable(strip->chips().last()->toolTip()));
    QVERIFY(strip->repairText().isEmpty());
}

void tst_ExperimentsGui::stoppedCallShowsAsARepair()
{
    MainWindowFixture f(savedInTheWorkspace());
    f.openWindow();
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(u"echo hi"_s)),
                     FakeResponse::answer(u"Fine."_s)});
    f.type(u"Run echo hi"_s);
    QVERIFY(f.waitForApproval());
    f.window->stop();
    QVERIFY(waitUntilIdle(*f.window));
    f.type(u"Never mind"_s);
    QVERIFY(f.waitUntilFinished());
    Gui::TurnModel *turns = f.window->turnModel();
    QCOMPARE(turns->rowCount(), 2);
    f.window->inspector()->selectRow(1);
    const QString diff = f.window->inspector()->protocolStrip()->repairText();
    QVERIFY2(diff.contains(u"+ [4] tool call_1: cancelled: the user stopped the run"_s),
             qPrintable(diff));
    QVERIFY2(diff.contains(u"  [3] assistant tool_calls: call_1 shell"_s), qPrintable(diff));
    f.window->inspector()->selectRow(0);
    QVERIFY(f.window->inspector()->protocolStrip()->repairText().isEmpty());
}

AGENTLOOP_TEST_MAIN(QApplication, tst_ExperimentsGui)
#include "tst_experiments_gui.moc"
