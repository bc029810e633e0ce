// The app against a streaming provider: the answer grows in the chat as it arrives (coalesced),
// reasoning is folded, the inspector shows the raw events and the assembled message, retries
// are visible, and the stream and retry settings reach the requests.

#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "fakechatserver.h"
#include "inspector/inspector.h"
#include "inspector/jsonformat.h"
#include "inspector/turnmodel.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "settings/appsettings.h"
#include "settings/settingsdialog.h"
#include "temporarysettings.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;
using Gui::ChatModel;

namespace {

QJsonObject chunkWith(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return {{u"id"_s, u"chatcmpl-gui"_s},
            {u"object"_s, u"chat.completion.chunk"_s},
            {u"created"_s, 1700000000},
            {u"model"_s, u"gpt-test"_s},
            {u"choices"_s,
             QJsonArray{QJsonObject{{u"index"_s, 0},
                                    {u"delta"_s, delta},
                                    {u"finish_reason"_s, finishReason}}}}};
}

// A streamed answer: reasoning pieces first (DeepSeek's reasoning_content), then text pieces.
QList<QByteArray> answerEvents(const QStringList &text, const QStringList &reasoning = {})
{
    QList<QByteArray> events{FakeResponse::sseEvent(
            chunkWith({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}))};
    for (const QString &piece : reasoning)
        events << FakeResponse::sseEvent(chunkWith({{u"reasoning_content"_s, piece}}));
    for (const QString &piece : text)
        events << FakeResponse::sseEvent(chunkWith({{u"content"_s, piece}}));
    events << FakeResponse::sseEvent(chunkWith({}, u"stop"_s)) << FakeResponse::sseDone();
    return events;
}

// The window size these tests lay the chat out at.
MainWindowFixture::Options wideWindow()
{
    MainWindowFixture::Options options;
    options.windowSize = {1100, 700};
    return options;
}

} // namespace

class tst_StreamingGui : public QObject
{
    Q_OBJECT

private slots:
    void answerGrowsWhileItStreams();
    void thousandsOfDeltasAreCoalesced();
    void reasoningIsFoldedAndExpands();
    void brokenStreamKeepsTheTextMarkedIncomplete();
    void inspectorShowsRawEventsAndTheAssembledMessage();
    void retryIsShownInTheStatusBarAndTheInspector();
    void streamAndRetrySettingsReachTheRequest();

private:
    TemporarySettings m_settings;
};

void tst_StreamingGui::answerGrowsWhileItStreams()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    QAbstractItemModelTester tester(f.chat(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QStringList pieces{u"The "_s,
                             u"answer "_s,
                             u"arrives "_s,
                             u"one "_s,
                             u"piece "_s,
                             u"at "_s,
                             u"a "_s,
                             u"time, "_s,
                             u"as "_s,
                             u"**Markdown**."_s};
    const QString full = pieces.join(QString());
    FakeResponse streamed = FakeResponse::streamedAnswer(pieces);
    streamed.chunkDelayMs = 50;
    f.server.script({streamed});

    // What the user sees in the assistant's row, each time it changes while the answer streams.
    QStringList seen;
    QSignalSpy inserted(f.chat(), &QAbstractItemModel::rowsInserted);
    connect(f.chat(), &QAbstractItemModel::dataChanged, f.chat(), [&](const QModelIndex &topLeft) {
        const ChatItem &item = f.chat()->item(topLeft.row());
        if (item.kind == ChatItem::AssistantText && item.stream == ChatItem::Stream::Live)
            seen << item.text;
    });
    f.type(u"Stream it"_s);

    // Partial text is on screen before the stream has ended.
    QTRY_VERIFY_WITH_TIMEOUT(seen.size() >= 3, Testing::hangGuardMs);
    QVERIFY(f.window->controller().isRunning());
    const QList<int> live = f.rows(ChatItem::AssistantText);
    QCOMPARE(live.size(), 1);
    const ChatItem &liveItem = f.chat()->item(live.first());
    QCOMPARE(liveItem.stream, ChatItem::Stream::Live);
    QVERIFY(!liveItem.text.isEmpty() && liveItem.text.size() < full.size());
    QVERIFY(full.startsWith(liveItem.text));
    const quint64 liveId = liveItem.id;

    QVERIFY(f.waitUntilFinished());
    // It grew, always as a beginning of the answer.
    for (qsizetype i = 1; i < seen.size(); ++i) {
        QVERIFY2(seen.at(i).size() > seen.at(i - 1).size(), qPrintable(seen.join(u" | "_s)));
        QVERIFY(full.startsWith(seen.at(i)));
    }
    // Exactly one assistant row: the live one, now the final message.
    const QList<int> answers = f.rows(ChatItem::AssistantText);
    QCOMPARE(answers.size(), 1);
    const ChatItem &answer = f.chat()->item(answers.first());
    QCOMPARE(answer.text, full);
    QCOMPARE(answer.stream, ChatItem::Stream::Complete);
    QCOMPARE(answer.id, liveId);
    QCOMPARE(answer.turn, 1);
    QCOMPARE(f.chat()->rowCount(), 2); // the prompt and the answer
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(f.window->controller().history().last().content(), full);
}

void tst_StreamingGui::thousandsOfDeltasAreCoalesced()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    // A long conversation already on screen: the stream must not lay it out again.
    for (int i = 0; i < 300; ++i) {
        ChatItem item;
        item.kind = i % 2 ? ChatItem::AssistantText : ChatItem::UserPrompt;
        item.text = u"Earlier message %1 with *some* Markdown."_s.arg(i);
        f.chat()->append(item);
    }
    Gui::ChatView *view = f.window->chatView();
    view->scrollToBottom();
    QTest::qWait(50);
    const int history = f.chat()->rowCount();

    QStringList pieces;
    for (int i = 0; i < 2000; ++i)
        pieces << u"w%1 "_s.arg(i);
    const QString full = pieces.join(QString());
    // 2000 delta events in 100 network chunks: a fast provider, and as many separate deltas as
    // the local socket delivers in reasonable time (a chunk takes ~10 ms on loopback).
    const QList<QByteArray> events = answerEvents(pieces);
    QList<QByteArray> chunks;
    for (qsizetype i = 0; i < events.size(); i += 20)
        chunks << events.mid(i, 20).join();
    f.server.script({FakeResponse::stream(chunks, 1)});

    int liveRow = -1;
    int liveUpdates = 0;
    int otherUpdates = 0;
    QSignalSpy deltas(&f.window->controller(), &AgentController::assistantTextDelta);
    connect(f.chat(),
            &QAbstractItemModel::rowsInserted,
            f.chat(),
            [&](const QModelIndex &, int first) {
                if (f.chat()->item(first).kind == ChatItem::AssistantText)
                    liveRow = first;
            });
    connect(f.chat(),
            &QAbstractItemModel::dataChanged,
            f.chat(),
            [&](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                if (topLeft.row() == liveRow && bottomRight.row() == liveRow)
                    ++liveUpdates;
                else
                    ++otherUpdates;
            });
    QSignalSpy inserted(f.chat(), &QAbstractItemModel::rowsInserted);
    const int layoutsBefore = view->chatDelegate()->layoutCount();
    QElapsedTimer clock;
    clock.start();
    f.type(u"Say a lot"_s);
    QVERIFY(f.waitUntilFinished());
    const qint64 elapsed = clock.elapsed();

    // One row for the prompt, one for the answer: the live row became the final one.
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(liveRow, history + 1);
    QCOMPARE(f.chat()->rowCount(), history + 2);
    QCOMPARE(f.chat()->item(liveRow).text, full);
    QCOMPARE(otherUpdates, 0);
    // At most one update per 50 ms (and the final message), however many deltas came: the
    // stream took `elapsed` ms (measured around it: load only lengthens it) and brought `deltas`
    // deltas (2000 events).
    const int bound = int(elapsed / 50) + 3;
    const QString figures = u"%1 deltas, %2 updates of the live row in %3 ms (bound %4)"_s
                                    .arg(deltas.size())
                                    .arg(liveUpdates)
                                    .arg(elapsed)
                                    .arg(bound);
    qInfo("%s", qPrintable(figures));
    QVERIFY2(liveUpdates <= bound, qPrintable(figures));
    QVERIFY2(liveUpdates <= deltas.size(), qPrintable(figures));
    // Only the live item was laid out again, once per update at most, never the history.
    const int layouts = view->chatDelegate()->layoutCount() - layoutsBefore;
    QVERIFY2(layouts <= liveUpdates + 4,
             qPrintable(u"%1 layouts for %2 updates"_s.arg(layouts).arg(liveUpdates)));
    // Following the answer to its end.
    QTRY_COMPARE(view->verticalScrollBar()->value(), view->verticalScrollBar()->maximum());
}

void tst_StreamingGui::reasoningIsFoldedAndExpands()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    const QStringList reasoning{u"The user wants "_s,
                                u"a short answer; "_s,
                                u"42 is the classic one.\n"_s,
                                u"Check: yes."_s};
    f.server.script(
            {FakeResponse::stream(answerEvents({u"It is "_s, u"**42**."_s}, reasoning), 60)});
    f.type(u"What is the answer?"_s);

    // While the reasoning streams: a live item, reasoning folded, no text yet.
    QTRY_VERIFY_WITH_TIMEOUT(!f.rows(ChatItem::AssistantText).isEmpty(), Testing::hangGuardMs);
    const int row = f.rows(ChatItem::AssistantText).first();
    const QModelIndex index = f.chat()->index(row, 0);
    QCOMPARE(f.chat()->item(row).stream, ChatItem::Stream::Live);
    QVERIFY(!f.chat()->item(row).reasoning.isEmpty());
    QVERIFY(f.chat()->item(row).text.isEmpty());
    QVERIFY(index.data(ChatModel::CollapsedRole).toBool());
    QVERIFY(index.data(ChatModel::CollapsibleRole).toBool());

    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.rows(ChatItem::AssistantText), QList<int>{row});
    QCOMPARE(f.chat()->item(row).reasoning, reasoning.join(QString()));
    QCOMPARE(f.chat()->item(row).text, u"It is **42**."_s);
    QVERIFY(index.data(ChatModel::CollapsedRole).toBool()); // still folded

    // A click on "Reasoning" unfolds it; the item grows by the reasoning's lines.
    Gui::ChatView *view = f.window->chatView();
    view->scrollTo(index);
    QTest::qWait(20);
    const QRect rect = view->visualRect(index);
    const int foldedHeight = rect.height();
    QStyleOptionViewItem option;
    option.initFrom(view);
    option.rect = rect;
    option.font = view->font();
    option.widget = view;
    QPoint toggle;
    for (int y = rect.top(); y < rect.bottom() && toggle.isNull(); y += 2) {
        for (int x = rect.left(); x < rect.left() + rect.width() / 2; x += 4) {
            if (view->chatDelegate()->hitTest(option, index, {x, y})
                == Gui::ChatDelegate::Hit::Toggle) {
                toggle = {x, y};
                break;
            }
        }
    }
    QVERIFY(!toggle.isNull());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, toggle);
    QVERIFY(!index.data(ChatModel::CollapsedRole).toBool());
    view->scrollTo(index);
    QTRY_VERIFY2(view->visualRect(index).height() > foldedHeight + view->fontMetrics().height(),
                 qPrintable(u"%1 -> %2"_s.arg(foldedHeight).arg(view->visualRect(index).height())));
    // And folds again from the keyboard.
    view->setCurrentIndex(index);
    QTest::keyClick(view, Qt::Key_Space);
    QVERIFY(index.data(ChatModel::CollapsedRole).toBool());
}

void tst_StreamingGui::brokenStreamKeepsTheTextMarkedIncomplete()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    QList<QByteArray> events = answerEvents({u"Half "_s, u"an "_s, u"answer"_s});
    events.removeLast(); // [DONE]
    events.removeLast(); // finish_reason
    FakeResponse broken = FakeResponse::stream(events, 30);
    broken.behaviour = FakeResponse::StreamThenDrop;
    f.server.script({broken});
    f.type(u"Break off"_s);
    QTRY_VERIFY_WITH_TIMEOUT(f.window->statusText().startsWith(u"Failed: "_s), Testing::hangGuardMs);

    // The text the user was reading stays, marked incomplete, above the error; it is not in
    // the history the model will see.
    const QList<int> answers = f.rows(ChatItem::AssistantText);
    QCOMPARE(answers.size(), 1);
    QCOMPARE(f.chat()->item(answers.first()).text, u"Half an answer"_s);
    QCOMPARE(f.chat()->item(answers.first()).stream, ChatItem::Stream::Incomplete);
    QCOMPARE(f.chat()->index(answers.first(), 0).data(Qt::AccessibleDescriptionRole).toString(),
             u"Assistant, incomplete answer"_s);
    QCOMPARE(f.rows(ChatItem::ErrorMessage), QList<int>{answers.first() + 1});
    QCOMPARE(f.window->controller().history().last().role(), Role::User);
}

void tst_StreamingGui::inspectorShowsRawEventsAndTheAssembledMessage()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    const QList<QByteArray> events = answerEvents({u"Raw "_s, u"events."_s});
    FakeResponse streamed = FakeResponse::stream(events, 5);
    f.server.script({streamed, FakeResponse::answer(u"Not streamed."_s)});
    f.type(u"Show me the wire"_s);
    QVERIFY(f.waitUntilFinished());

    Gui::Inspector *inspector = f.window->inspector();
    Gui::TurnModel *turns = f.window->turnModel();
    QCOMPARE(turns->rowCount(), 1);
    QVERIFY(turns->record(0).exchange.streamed);
    inspector->selectTurn(1);
    // The events exactly as they arrived: not re-indented.
    QCOMPARE(inspector->responseText(), QString::fromUtf8(events.join()));
    QVERIFY(inspector->responseText().startsWith(u"data: {\"choices\""_s));
    QTabWidget *tabs = inspector->tabs();
    const int assembledTab = tabs->indexOf(inspector->assembledPage());
    QVERIFY(assembledTab >= 0);
    QVERIFY(tabs->isTabVisible(assembledTab));
    QCOMPARE(tabs->tabText(assembledTab), u"Assembled"_s);
    const QByteArray assembled = turns->record(0).exchange.assembledMessage;
    QCOMPARE(inspector->assembledText(), Gui::prettyJson(assembled));
    QCOMPARE(QJsonDocument::fromJson(Gui::compactJson(inspector->assembledText()).toUtf8()).object(),
             (QJsonObject{{u"role"_s, u"assistant"_s}, {u"content"_s, u"Raw events."_s}}));
    tabs->setCurrentIndex(assembledTab);

    // A provider that answers with plain JSON: the response as before, no Assembled tab.
    f.type(u"And now without"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(turns->rowCount(), 2);
    QVERIFY(!turns->record(1).exchange.streamed);
    QCOMPARE(inspector->currentTurn(), 2);
    QCOMPARE(inspector->responseText(), Gui::prettyJson(turns->record(1).exchange.responseBody));
    QVERIFY(!tabs->isTabVisible(assembledTab));
    QVERIFY(tabs->currentIndex() != assembledTab);
    QVERIFY(inspector->assembledText().isEmpty());
}

void tst_StreamingGui::retryIsShownInTheStatusBarAndTheInspector()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    FakeResponse limited = FakeResponse::httpError(429,
                                                   u"Rate limit reached"_s,
                                                   u"requests"_s,
                                                   u"rate_limit_exceeded"_s);
    limited.headers = {{"Retry-After", "3"}};
    FakeResponse streamed = FakeResponse::streamedAnswer({u"Made "_s, u"it."_s});
    streamed.chunkDelayMs = 5;
    f.server.script({limited, streamed});
    QStringList countdown; // what the status bar said from the retry's scheduling on
    connect(&f.window->controller(), &AgentController::retryScheduled, f.window.get(), [&] {
        countdown << f.window->statusText();
    });
    QStringList statusAtSecondAttempt;
    connect(&f.window->controller(),
            &AgentController::requestSent,
            f.window.get(),
            [&](const Exchange &exchange) {
                if (exchange.attempt == 2)
                    statusAtSecondAttempt << f.window->statusText();
            });
    f.type(u"Try hard"_s);

    // A live countdown until the next attempt goes out. A loaded machine may stall the event loop
    // past a second, so one may pass unseen, but not all of them.
    QVERIFY(QTest::qWaitFor(
            [&] {
                const QString shown = f.window->statusText();
                if (!countdown.isEmpty() && statusAtSecondAttempt.isEmpty()
                    && countdown.last() != shown)
                    countdown << shown;
                return !statusAtSecondAttempt.isEmpty();
            },
            20000));
    const QStringList seconds{u"Retrying in 3 s (attempt 2 of 4)"_s,
                              u"Retrying in 2 s (attempt 2 of 4)"_s,
                              u"Retrying in 1 s (attempt 2 of 4)"_s};
    QVERIFY2(countdown.size() >= 2, qPrintable(countdown.join(u" | "_s)));
    QCOMPARE(countdown.first(), seconds.first());
    qsizetype next = 0;
    for (const QString &text : std::as_const(countdown)) {
        next = seconds.indexOf(text, next);
        QVERIFY2(next >= 0, qPrintable(countdown.join(u" | "_s)));
    }
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(statusAtSecondAttempt, QStringList{u"Waiting for the model… 0 s"_s});
    QCOMPARE(f.server.requests().size(), 2);
    QCOMPARE(f.server.requests().at(0).body, f.server.requests().at(1).body);

    // One inspector row per attempt, both for request 1.
    Gui::TurnModel *turns = f.window->turnModel();
    QCOMPARE(turns->rowCount(), 2);
    const auto cell = [&](int row, int column) {
        return turns->index(row, column).data().toString();
    };
    QCOMPARE(cell(0, Gui::TurnModel::NumberColumn), u"1 · attempt 1"_s);
    QCOMPARE(cell(1, Gui::TurnModel::NumberColumn), u"1 · attempt 2"_s);
    QCOMPARE(cell(0, Gui::TurnModel::StatusColumn), u"429 · Retrying in 3 s (attempt 2 of 4)."_s);
    QCOMPARE(cell(1, Gui::TurnModel::StatusColumn), u"200"_s);
    QCOMPARE(turns->rowOfRequest(1), 1);
    Gui::Inspector *inspector = f.window->inspector();
    inspector->selectRow(0);
    QVERIFY2(inspector->summaryText().startsWith(u"Request 1 · attempt 1 · POST"_s),
             qPrintable(inspector->summaryText()));
    QVERIFY(inspector->summaryText().endsWith(u"HTTP 429 · Retrying in 3 s (attempt 2 of 4)."_s));
    QVERIFY(inspector->responseText().contains(u"Rate limit reached"_s));

    // The chat's answer points at the attempt that produced it.
    const int answerRow = f.rows(ChatItem::AssistantText).first();
    QCOMPARE(f.chat()->item(answerRow).text, u"Made it."_s);
    QCOMPARE(f.chat()->item(answerRow).turn, 1);
    f.window->chatView()->setCurrentIndex(f.chat()->index(answerRow, 0));
    QCOMPARE(inspector->currentRow(), 1);
    QCOMPARE(inspector->currentTurn(), 1);
    // The retry did not duplicate the prompt in the history.
    int prompts = 0;
    for (const Message &message : f.window->controller().history().messages())
        prompts += message.role() == Role::User ? 1 : 0;
    QCOMPARE(prompts, 1);
    QCOMPARE(f.window->controller().history().last().role(), Role::Assistant);
}

void tst_StreamingGui::streamAndRetrySettingsReachTheRequest()
{
    MainWindowFixture f(wideWindow());
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    QCOMPARE(f.window->controller().provider().stream, true);
    QCOMPARE(f.window->controller().provider().retry.maxRetries, 3);
    f.server.script({FakeResponse::streamedAnswer({u"Streamed."_s})});
    f.type(u"First"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().at(0).json().value(u"stream"_s), QJsonValue(true));

    // Untick streaming and allow one retry in the settings dialog, as a user would.
    f.window->openSettings();
    Gui::SettingsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = f.window->findChild<Gui::SettingsDialog *>()) != nullptr
                && dialog->isVisible());
    auto *stream = dialog->findChild<QCheckBox *>(u"streamCheck"_s);
    auto *retries = dialog->findChild<QSpinBox *>(u"retriesSpin"_s);
    QVERIFY(stream && retries);
    QVERIFY(stream->isChecked());
    QCOMPARE(retries->value(), 3);
    QCOMPARE(retries->minimum(), 0);
    QCOMPARE(retries->maximum(), 10);
    QVERIFY(!stream->accessibleName().isEmpty());
    QVERIFY(!retries->accessibleName().isEmpty());
    stream->click();
    retries->setValue(1);
    dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    QCOMPARE(f.window->settings().stream, false);
    QCOMPARE(f.window->settings().maxRetries, 1);
    QCOMPARE(f.window->controller().provider().stream, false);
    QCOMPARE(f.window->controller().provider().retry.maxRetries, 1);

    // Stored: the next start has them too.
    const Gui::AppSettings reloaded = Gui::AppSettings::load(QProcessEnvironment(),
                                                             f.settings.workspace);
    QCOMPARE(reloaded.stream, false);
    QCOMPARE(reloaded.maxRetries, 1);
    QCOMPARE(reloaded.provider().stream, false);
    QCOMPARE(reloaded.provider().retry.maxRetries, 1);

    // The next request does not ask for a stream; one retry, then the failure is shown.
    f.server.script({FakeResponse::httpError(503, u"Overloaded"_s, u"server_error"_s),
                     FakeResponse::httpError(503, u"Still overloaded"_s, u"server_error"_s)});
    f.type(u"Second"_s);
    QTRY_VERIFY_WITH_TIMEOUT(f.window->statusText().startsWith(u"Failed: "_s), Testing::hangGuardMs);
    QCOMPARE(f.server.requests().size(), 3);
    const QJsonObject body = f.server.requests().at(1).json();
    QVERIFY(!body.contains(u"stream"_s));
    QVERIFY(!body.contains(u"stream_options"_s));
    QCOMPARE(f.window->turnModel()->rowCount(), 3);
    QVERIFY(f.window->statusText().contains(u"Still overloaded"_s));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_StreamingGui)
#include "tst_streaming_gui.moc"
