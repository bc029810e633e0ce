#include "agent/runtimeline.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/runfeed.h"
#include "fakechatserver.h"
#include "inspector/inspector.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "testjson.h"
#include "testmain.h"
#include "timeline/timelinedock.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QTabWidget>
#include <QTest>
#include <QWheelEvent>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

class tst_TimelineGui : public QObject
{
    Q_OBJECT

private slots:
    void cleanup();

    // A run shows on the timeline; a click on a box selects its turn in the inspector and
    // scrolls the chat to it.
    void clickingABoxSelectsItsTurn();
    // The keys do what the mouse does.
    void keysChooseAndActivateBoxes();
    void zoomKeepsTheTimeUnderThePointer();
    void newConversationClearsTheTimeline();
};

namespace {

// A run of two requests around an approved command, with the window's timeline shown.
void runTwoTurns(MainWindowFixture &f)
{
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(u"echo hi"_s))
                             .withDelay(150),
                     FakeResponse::answer(u"It printed hi."_s).withDelay(150)});
    f.type(u"Say hi"_s);
    QVERIFY(f.waitForApproval());
    QVERIFY(f.allowPendingCall());
    QVERIFY(f.waitUntilFinished());
}

Gui::TimelineView *shownTimeline(MainWindowFixture &f)
{
    Gui::TimelineDock *timeline = f.window->timelineDock();
    if (!timeline->dock()->isVisible())
        timeline->toggleAction()->trigger();
    return timeline->panel()->view();
}

// The centre of a span's box, in the view's viewport.
QPoint centreOf(Gui::TimelineView *view, int span)
{
    const RunTimeline *timeline = view->timeline();
    return view->timelineGeometry()
            .spanRect(timeline->spans().at(span), timeline->now())
            .center()
            .toPoint();
}

} // namespace

void tst_TimelineGui::cleanup()
{
    rejectVisibleMessageBoxes();
}

void tst_TimelineGui::clickingABoxSelectsItsTurn()
{
    MainWindowFixture f;
    f.openWindow();
    Gui::TimelineDock *dock = f.window->timelineDock();
    QVERIFY(!dock->dock()->isVisible()); // hidden until asked for

    // View › Timeline, Ctrl+Shift+T.
    QAction *toggle = dock->toggleAction();
    QCOMPARE(toggle->text(), u"&Timeline"_s);
    QCOMPARE(toggle->shortcut(), QKeySequence(u"Ctrl+Shift+T"_s));
    QMenu *view = nullptr;
    for (QAction *menu : f.window->menuBar()->actions()) {
        if (menu->text() == u"&View"_s)
            view = menu->menu();
    }
    QVERIFY(view);
    QVERIFY(view->actions().contains(toggle));
    QTest::keyClick(f.window.get(), Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY(dock->dock()->isVisible());
    Gui::TimelineView *timelineView = dock->panel()->view();
    QVERIFY(!timelineView->accessibleName().isEmpty());

    runTwoTurns(f);
    const RunTimeline *timeline = f.window->runFeed()->timeline();
    QCOMPARE(timelineView->timeline(), timeline);
    const QList<TimelineSpan> &spans = timeline->spans();
    QCOMPARE(spans.size(), 4);
    QCOMPARE(spans[0].kind, TimelineSpan::Request);
    QCOMPARE(spans[1].kind, TimelineSpan::Approval);
    QCOMPARE(spans[2].kind, TimelineSpan::ToolRun);
    QCOMPARE(spans[3].kind, TimelineSpan::Request);
    QCOMPARE(spans[3].turn, 2);

    // The summary line, once its throttle has run.
    QLabel *summary = dock->panel()->summaryLabel();
    QTRY_VERIFY2(summary->text().contains(u"2 requests"_s), qPrintable(summary->text()));
    QTRY_VERIFY2(summary->text().contains(u"Tokens 40 in, 20 out"_s), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains(u"0 retries"_s), qPrintable(summary->text()));

    // The tooltip of the first request: how long it took, its first byte, its tokens.
    const QString tip = timelineView->toolTipFor(spans[0]);
    QVERIFY2(tip.contains(u"Request 1"_s), qPrintable(tip));
    QVERIFY2(tip.contains(u"First byte after"_s), qPrintable(tip));
    QVERIFY2(tip.contains(u"Tokens: 20 in, 10 out"_s), qPrintable(tip));

    // The inspector shows the last request; a click on the first one's box selects it there,
    // on the Requests page, and the chat scrolls to its first item.
    Gui::Inspector *inspector = f.window->inspector();
    QTRY_COMPARE(inspector->currentTurn(), 2);
    inspector->pages()->setCurrentIndex(1); // Audit
    timelineView->zoomToFit();
    QTest::mouseClick(timelineView->viewport(), Qt::LeftButton, {}, centreOf(timelineView, 0));
    QCOMPARE(inspector->currentTurn(), 1);
    QCOMPARE(inspector->pages()->currentIndex(), 0);
    Gui::ChatView *chat = f.window->chatView();
    QCOMPARE(chat->currentIndex().data(Gui::ChatModel::TurnRole).toInt(), 1);
    QVERIFY(chat->viewport()->rect().intersects(chat->visualRect(chat->currentIndex())));

    // The tool's box belongs to request 1, the answer's to request 2.
    QTest::mouseClick(timelineView->viewport(), Qt::LeftButton, {}, centreOf(timelineView, 3));
    QCOMPARE(inspector->currentTurn(), 2);
    QCOMPARE(chat->currentIndex().data(Gui::ChatModel::TurnRole).toInt(), 2);
    QCOMPARE(timelineView->selectedSpan(), 3);
    QTest::mouseClick(timelineView->viewport(), Qt::LeftButton, {}, centreOf(timelineView, 2));
    QCOMPARE(inspector->currentTurn(), 1);

    // Hidden again with the same action.
    toggle->trigger();
    QVERIFY(!dock->dock()->isVisible());
}

void tst_TimelineGui::keysChooseAndActivateBoxes()
{
    MainWindowFixture f;
    f.openWindow();
    Gui::TimelineView *view = shownTimeline(f);
    runTwoTurns(f);
    Gui::Inspector *inspector = f.window->inspector();
    QTRY_COMPARE(inspector->currentTurn(), 2);
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Home);
    QCOMPARE(view->selectedSpan(), 0);
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(inspector->currentTurn(), 1);
    QTest::keyClick(view, Qt::Key_End);
    QCOMPARE(view->selectedSpan(), 3);
    QTest::keyClick(view, Qt::Key_Left);
    QCOMPARE(view->selectedSpan(), 2);
    QTest::keyClick(view, Qt::Key_Right);
    QTest::keyClick(view, Qt::Key_Enter);
    QCOMPARE(inspector->currentTurn(), 2);
    // + and - zoom by the same step.
    const double scale = view->pixelsPerMs();
    QTest::keyClick(view, Qt::Key_Plus);
    QVERIFY(view->pixelsPerMs() > scale);
    QTest::keyClick(view, Qt::Key_Minus);
    QVERIFY(qFuzzyCompare(view->pixelsPerMs(), scale));
}

void tst_TimelineGui::zoomKeepsTheTimeUnderThePointer()
{
    MainWindowFixture f;
    f.openWindow();
    Gui::TimelineView *view = shownTimeline(f);
    RunTimeline *timeline = f.window->runFeed()->timeline();
    // A long session, not following the controller: 200 turns of 10 s.
    for (int turn = 1; turn <= 200; ++turn) {
        TimelineSpan request;
        request.lane = TimelineSpan::Model;
        request.kind = TimelineSpan::Request;
        request.startMs = (turn - 1) * 10'000;
        request.endMs = request.startMs + 4000;
        request.firstByteMs = request.startMs + 1000;
        request.turn = turn;
        timeline->addSpan(request);
    }
    timeline->setNow(200 * 10'000);
    view->setPixelsPerMs(0.05);
    QTRY_VERIFY(view->horizontalScrollBar()->maximum() > 0);
    view->horizontalScrollBar()->setValue(view->horizontalScrollBar()->maximum() / 2);
    const double x = view->viewport()->width() * 0.7;
    const qint64 before = view->timelineGeometry().msAt(x);
    QWheelEvent wheel(QPointF(x, 40),
                      view->viewport()->mapToGlobal(QPointF(x, 40)),
                      QPoint(),
                      QPoint(0, 120),
                      Qt::NoButton,
                      Qt::ControlModifier,
                      Qt::NoScrollPhase,
                      false);
    QCoreApplication::sendEvent(view->viewport(), &wheel);
    QVERIFY(view->pixelsPerMs() > 0.05);
    QVERIFY2(std::abs(view->timelineGeometry().msAt(x) - before) <= 30,
             qPrintable(u"%1 vs %2"_s.arg(view->timelineGeometry().msAt(x)).arg(before)));
    // Fit: the whole session in the view.
    view->zoomToFit();
    const TimelineSpan &last = timeline->spans().last();
    QVERIFY(view->timelineGeometry().spanRect(last, timeline->now()).right()
            <= view->viewport()->width());
    QVERIFY(view->timelineGeometry().xAt(0) >= 0);
}

void tst_TimelineGui::newConversationClearsTheTimeline()
{
    MainWindowFixture f;
    f.openWindow();
    Gui::TimelineView *view = shownTimeline(f);
    runTwoTurns(f);
    QCOMPARE(view->timeline()->spans().size(), 4);
    QLabel *summary = f.window->timelineDock()->panel()->summaryLabel();
    QTRY_VERIFY(summary->text().contains(u"2 requests"_s));
    f.window->newConversation();
    QTRY_VERIFY(view->timeline()->spans().isEmpty());
    QTRY_VERIFY2(summary->text().contains(u"0 requests"_s), qPrintable(summary->text()));
    QCOMPARE(view->selectedSpan(), -1);
}

AGENTLOOP_TEST_MAIN(QApplication, tst_TimelineGui)
#include "tst_timeline_gui.moc"
