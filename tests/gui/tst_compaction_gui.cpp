#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "compactionprompt.h"
#include "compactions.h"
#include "fakechatserver.h"
#include "inspector/turnmodel.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "settings/appsettings.h"
#include "temporarysettings.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QStatusBar>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;
using Gui::ChatModel;

namespace {

// A long answer: the earlier exchanges are worth summarising.
QString longAnswer(int n)
{
    QString text = u"Answer %1: "_s.arg(n);
    for (int i = 0; i < 120; ++i)
        text += u"the build step %1 passed; "_s.arg(i);
    return text;
}

bool isSummaryRequest(const RecordedRequest &request)
{
    return !request.json().contains(u"tools"_s);
}

bool sendsText(const RecordedRequest &request, const QString &text)
{
    for (const QJsonValue &message : request.messages()) {
        if (message.toObject().value(u"content"_s).toString().contains(text))
            return true;
    }
    return false;
}

} // namespace

class tst_CompactionGui : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void promptSaysWhatWillHappen();
    void compactSendsTheSummaryRequestFirst();
    void sendWithoutCompactingSendsTheOriginal();
    void escapeSendsWithoutCompacting();
    void dontAskAgainSavesTheSetting();
    void compactNowAndUndo();
    void actionsDisabledWhileRunning();
    void dividerFoldsAndSurvivesReopen();
    void contextErrorNoticeShows();
    void removingADividerKeepsTheRowsOfToolCalls();
    void inspectorNamesTheRequestsPurpose();

private:
    // Two exchanges with long answers, then a window just big enough for them: the next prompt
    // passes the threshold. Requests: the handler's; it answers a summary request with SUMMARY.
    void prepare(MainWindowFixture &f, bool contextError = false);
    void answerTwoPrompts(MainWindowFixture &f);
    void shrinkWindow(MainWindowFixture &f);
    Gui::CompactionPrompt *waitForPrompt(MainWindowFixture &f);
    // All of the above, then a third task typed: the box it brings (null when none came), and in
    // m_requestsBefore the requests the server had received before it.
    Gui::CompactionPrompt *promptForThirdTask(MainWindowFixture &f);

    TemporarySettings m_settings;
    int m_answers = 0;
    bool m_contextErrorSent = false;
    qsizetype m_requestsBefore = 0;
};

void tst_CompactionGui::init()
{
    rejectVisibleMessageBoxes();
    m_answers = 0;
    m_contextErrorSent = false;
}

void tst_CompactionGui::prepare(MainWindowFixture &f, bool contextError)
{
    f.settings.context.keepRecentExchanges = 1;
    f.settings.contextWindows.insert(u"gpt-test"_s, 1'000'000);
    f.server.setHandler([this, &f, contextError](const RecordedRequest &request) {
        if (request.method == "GET")
            return FakeResponse::models({u"gpt-test"_s});
        if (isSummaryRequest(request))
            return FakeResponse::answer(u"SUMMARY of the earlier turns"_s);
        if (contextError && m_answers >= 2 && !m_contextErrorSent) {
            m_contextErrorSent = true;
            return FakeResponse::httpError(400,
                                           u"This model's maximum context length is 100 tokens"_s,
                                           u"invalid_request_error"_s,
                                           u"context_length_exceeded"_s);
        }
        Q_UNUSED(f);
        return FakeResponse::answer(longAnswer(++m_answers));
    });
}

void tst_CompactionGui::answerTwoPrompts(MainWindowFixture &f)
{
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    f.type(u"first task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"second task"_s);
    QVERIFY(f.waitUntilFinished());
}

void tst_CompactionGui::shrinkWindow(MainWindowFixture &f)
{
    // The figure the status bar shows: a window of that size is past its threshold at once.
    const qint64 used = f.window->controller().budget().used;
    QVERIFY(used > 0);
    Gui::AppSettings settings = f.window->settings();
    settings.contextWindows.insert(u"gpt-test"_s, used);
    f.window->applySettings(settings);
    QCOMPARE(f.window->controller().options().contextWindow.tokens, used);
}

Gui::CompactionPrompt *tst_CompactionGui::waitForPrompt(MainWindowFixture &f)
{
    (void) QTest::qWaitFor([&f] { return f.window->compactions()->pending() != nullptr; }, 10000);
    return f.window->compactions()->pending();
}

Gui::CompactionPrompt *tst_CompactionGui::promptForThirdTask(MainWindowFixture &f)
{
    prepare(f);
    answerTwoPrompts(f);
    shrinkWindow(f);
    m_requestsBefore = f.server.requests().size();
    f.type(u"third task"_s);
    return waitForPrompt(f);
}

void tst_CompactionGui::promptSaysWhatWillHappen()
{
    MainWindowFixture f;
    Gui::CompactionPrompt *prompt = promptForThirdTask(f);
    const qsizetype requestsBefore = m_requestsBefore;
    QVERIFY(prompt);
    QMessageBox *box = prompt->messageBox();
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    QCOMPARE(box->windowTitle(), u"Compact the conversation?"_s);
    QVERIFY2(box->text().contains(u"earlier messages summarised by one extra request"_s),
             qPrintable(box->text()));
    QVERIFY2(box->text().contains(u"The request goes from about "_s), qPrintable(box->text()));
    QCOMPARE(prompt->compactButton()->text(), u"&Compact"_s);
    QCOMPARE(prompt->sendButton()->text(), u"&Send without compacting"_s);
    QCOMPARE(box->defaultButton(), prompt->compactButton());
    QCOMPARE(box->escapeButton(), prompt->sendButton());
    QCOMPARE(prompt->dontAskCheck()->text(), u"&Don't ask again"_s);
    QVERIFY(!prompt->dontAskCheck()->isChecked());
    // Nothing goes out while the box waits.
    QTest::qWait(200);
    QCOMPARE(f.server.requests().size(), requestsBefore);
    QCOMPARE(f.window->statusText(), u"Awaiting your approval"_s);
    prompt->sendButton()->click();
    QVERIFY(f.waitUntilFinished());
}

void tst_CompactionGui::compactSendsTheSummaryRequestFirst()
{
    MainWindowFixture f;
    Gui::CompactionPrompt *prompt = promptForThirdTask(f);
    const qsizetype before = m_requestsBefore;
    QVERIFY(prompt);
    prompt->compactButton()->click();
    QVERIFY(f.waitUntilFinished());
    const QList<RecordedRequest> requests = f.server.requests().mid(before);
    QCOMPARE(requests.size(), 2);
    QVERIFY(isSummaryRequest(requests.at(0)));
    QVERIFY(!isSummaryRequest(requests.at(1)));
    QVERIFY(sendsText(requests.at(1), u"SUMMARY of the earlier turns"_s));
    QVERIFY(!sendsText(requests.at(1), u"Answer 1: "_s));
    // The inspector names the summary request; the chat shows where the compaction took effect.
    Gui::TurnModel *turns = f.window->turnModel();
    const int summaryRow = turns->rowCount() - 2;
    QCOMPARE(turns->index(summaryRow, Gui::TurnModel::NumberColumn).data().toString(),
             u"%1 · compaction"_s.arg(summaryRow + 1));
    const QList<ChatItem> dividers = f.items(ChatItem::Compaction);
    QCOMPARE(dividers.size(), 1);
    QVERIFY(dividers.first().compactedMessages >= 2);
    // After the third prompt, before the answer it led to.
    const QList<int> prompts = f.rows(ChatItem::UserPrompt);
    QCOMPARE(f.rows(ChatItem::Compaction).first(), prompts.last() + 1);
}

void tst_CompactionGui::sendWithoutCompactingSendsTheOriginal()
{
    MainWindowFixture f;
    Gui::CompactionPrompt *prompt = promptForThirdTask(f);
    const qsizetype before = m_requestsBefore;
    QVERIFY(prompt);
    prompt->sendButton()->click();
    QVERIFY(f.waitUntilFinished());
    const QList<RecordedRequest> requests = f.server.requests().mid(before);
    QCOMPARE(requests.size(), 1);
    QVERIFY(!isSummaryRequest(requests.at(0)));
    QVERIFY(sendsText(requests.at(0), u"Answer 1: "_s));
    QVERIFY(sendsText(requests.at(0), u"third task"_s));
    QVERIFY(f.items(ChatItem::Compaction).isEmpty());
    QVERIFY(f.window->controller().compactions().isEmpty());
}

void tst_CompactionGui::escapeSendsWithoutCompacting()
{
    MainWindowFixture f;
    Gui::CompactionPrompt *prompt = promptForThirdTask(f);
    const qsizetype before = m_requestsBefore;
    QVERIFY(prompt);
    QTRY_VERIFY(prompt->messageBox()->isVisible());
    QTest::keyClick(prompt->messageBox(), Qt::Key_Escape);
    QVERIFY(f.waitUntilFinished());
    const QList<RecordedRequest> requests = f.server.requests().mid(before);
    QCOMPARE(requests.size(), 1);
    QVERIFY(sendsText(requests.at(0), u"Answer 1: "_s));
}

void tst_CompactionGui::dontAskAgainSavesTheSetting()
{
    MainWindowFixture f;
    prepare(f);
    answerTwoPrompts(f);
    shrinkWindow(f);
    QVERIFY(Gui::AppSettings::load().confirmCompaction);
    f.type(u"third task"_s);
    Gui::CompactionPrompt *prompt = waitForPrompt(f);
    QVERIFY(prompt);
    prompt->dontAskCheck()->setChecked(true);
    prompt->sendButton()->click();
    QVERIFY(f.waitUntilFinished());
    QVERIFY(!Gui::AppSettings::load().confirmCompaction);
    QVERIFY(!f.window->settings().confirmCompaction);
    // The next threshold compacts without asking: the summary request goes out at once.
    const qsizetype before = f.server.requests().size();
    f.type(u"fourth task"_s);
    QVERIFY(f.waitUntilFinished());
    QVERIFY(!f.window->compactions()->pending());
    const QList<RecordedRequest> requests = f.server.requests().mid(before);
    QCOMPARE(requests.size(), 2);
    QVERIFY(isSummaryRequest(requests.at(0)));
}

void tst_CompactionGui::compactNowAndUndo()
{
    MainWindowFixture f;
    prepare(f);
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    QAbstractItemModelTester tester(f.chat(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAction *compactNow = f.window->compactions()->compactNowAction();
    QAction *undo = f.window->compactions()->undoAction();
    // In the File menu, and in the chat's context menu.
    QVERIFY(f.window->findChildren<QMenu *>().size() > 0);
    bool inFileMenu = false;
    for (QMenu *menu : f.window->findChildren<QMenu *>())
        inFileMenu |= menu->actions().contains(compactNow) && menu->actions().contains(undo);
    QVERIFY(inFileMenu);
    QCOMPARE(compactNow->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    // Nothing to compact, once the preview planned on another thread says so.
    QTRY_COMPARE(compactNow->toolTip(),
                 u"Nothing to compact yet: no older turns or long tool outputs"_s);
    QVERIFY(!compactNow->isEnabled());
    QVERIFY(!undo->isEnabled());

    f.type(u"first task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"second task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"third task"_s);
    QVERIFY(f.waitUntilFinished());
    QTRY_VERIFY(compactNow->isEnabled()); // planned on another thread
    QVERIFY(!undo->isEnabled());

    const qsizetype before = f.server.requests().size();
    QTest::keySequence(f.window.get(), compactNow->shortcut());
    QTRY_COMPARE(f.items(ChatItem::Compaction).size(), 1);
    QCOMPARE(f.server.requests().size(), before + 1);
    QVERIFY(isSummaryRequest(f.server.requests().last()));
    QTRY_VERIFY(!f.window->controller().isRunning());
    QVERIFY(undo->isEnabled());
    // The divider is the last row: the compaction took effect after the last answer.
    QCOMPARE(f.rows(ChatItem::Compaction).first(), f.chat()->rowCount() - 1);

    // The chat's context menu offers both.
    Gui::ChatView *view = f.window->chatView();
    const QPoint centre = view->viewport()->rect().center();
    QContextMenuEvent event(QContextMenuEvent::Keyboard,
                            centre,
                            view->viewport()->mapToGlobal(centre));
    QApplication::sendEvent(view->viewport(), &event);
    QTRY_VERIFY(view->contextMenu());
    QVERIFY(view->contextMenu()->actions().contains(compactNow));
    QVERIFY(view->contextMenu()->actions().contains(undo));
    view->contextMenu()->close();

    const qsizetype rows = f.chat()->rowCount();
    undo->trigger();
    QVERIFY(f.items(ChatItem::Compaction).isEmpty());
    QCOMPARE(f.chat()->rowCount(), rows - 1);
    QVERIFY(!undo->isEnabled());
    QVERIFY(f.window->controller().compactions().isEmpty());
    // The next request sends every message again.
    f.type(u"fourth task"_s);
    QVERIFY(f.waitUntilFinished());
    QVERIFY(sendsText(f.server.requests().last(), u"Answer 1: "_s));
}

void tst_CompactionGui::actionsDisabledWhileRunning()
{
    MainWindowFixture f;
    prepare(f);
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    f.type(u"first task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"second task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"third task"_s);
    QVERIFY(f.waitUntilFinished());
    QAction *compactNow = f.window->compactions()->compactNowAction();
    QTRY_VERIFY(compactNow->isEnabled());
    f.server.setHandler([](const RecordedRequest &) { return FakeResponse::neverAnswer(); });
    f.type(u"slow task"_s);
    QTRY_VERIFY(f.window->controller().isRunning());
    QVERIFY(!compactNow->isEnabled());
    QVERIFY(!f.window->compactions()->undoAction()->isEnabled());
    QCOMPARE(compactNow->toolTip(), u"Not while the agent is working"_s);
    f.window->stop();
    QTRY_VERIFY(!f.window->controller().isRunning());
    QTRY_VERIFY(compactNow->isEnabled());
}

void tst_CompactionGui::dividerFoldsAndSurvivesReopen()
{
    MainWindowFixture::Options options;
    options.savesInWorkspace = true;
    MainWindowFixture f(options);
    prepare(f);
    f.openWindow();
    QVERIFY(f.waitForWindowExposed());
    QAbstractItemModelTester tester(f.chat(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    f.type(u"first task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"second task"_s);
    QVERIFY(f.waitUntilFinished());
    f.type(u"third task"_s);
    QVERIFY(f.waitUntilFinished());
    QTRY_VERIFY(f.window->compactions()->compactNowAction()->isEnabled());
    f.window->compactions()->compactNowAction()->trigger();
    QTRY_COMPARE(f.items(ChatItem::Compaction).size(), 1);
    QTRY_VERIFY(!f.window->controller().isRunning());

    ChatModel *chat = f.chat();
    const int row = f.rows(ChatItem::Compaction).first();
    const QModelIndex divider = chat->index(row, 0);
    QVERIFY(divider.data(ChatModel::CollapsibleRole).toBool());
    QVERIFY(divider.data(ChatModel::CollapsedRole).toBool());
    QVERIFY(divider.data(Qt::AccessibleDescriptionRole).toString().endsWith(u", folded"_s));
    const QString label = ChatModel::compactionTitle(
            divider.data(ChatModel::CompactedMessagesRole).toLongLong());
    QVERIFY2(label.endsWith(u" messages compacted"_s), qPrintable(label));
    // Enter unfolds it to the original messages, and folds it back.
    Gui::ChatView *view = f.window->chatView();
    view->setFocus();
    view->setCurrentIndex(divider);
    QTest::keyClick(view, Qt::Key_Return);
    QVERIFY(!divider.data(ChatModel::CollapsedRole).toBool());
    const QString shown = divider.data(ChatModel::ReasoningRole).toString();
    QVERIFY2(shown.contains(u"Answer 1: the build step 0 passed"_s), qPrintable(shown.left(300)));
    QVERIFY(shown.contains(u"SUMMARY"_s) || shown.contains(u"Summarised by gpt-test"_s));
    QVERIFY(view->visualRect(divider).height() > 3 * view->fontMetrics().height());
    QTest::keyClick(view, Qt::Key_Return);
    QVERIFY(divider.data(ChatModel::CollapsedRole).toBool());
    QVERIFY(view->visualRect(divider).height() < 4 * view->fontMetrics().height());
    // A click on its label unfolds it and folds it back (the label is in the middle of the
    // folded row, at the top of the unfolded one).
    view->scrollTo(divider);
    const int foldedHeight = view->visualRect(divider).height();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(divider).center());
    QVERIFY(!divider.data(ChatModel::CollapsedRole).toBool());
    view->scrollTo(divider, QAbstractItemView::PositionAtTop);
    const QRect unfolded = view->visualRect(divider);
    QVERIFY(unfolded.height() > foldedHeight);
    QTest::mouseClick(view->viewport(),
                      Qt::LeftButton,
                      {},
                      QPoint(unfolded.center().x(), unfolded.top() + foldedHeight / 2));
    QVERIFY(divider.data(ChatModel::CollapsedRole).toBool());

    // Reopened: the divider is where it was, after the third answer.
    const QString id = f.window->currentConversationId();
    const int rowsBefore = chat->rowCount();
    f.window->newConversation();
    QTRY_COMPARE(chat->rowCount(), 0);
    QVERIFY(f.openConversation(id));
    QCOMPARE(chat->rowCount(), rowsBefore);
    QCOMPARE(f.rows(ChatItem::Compaction), QList<int>{row});
    QCOMPARE(f.items(ChatItem::Compaction).first().compactedMessages,
             chat->item(row).compactedMessages);
    QVERIFY(f.window->compactions()->undoAction()->isEnabled());

    // Undone, and reopened again: no divider.
    f.window->compactions()->undoAction()->trigger();
    QVERIFY(f.items(ChatItem::Compaction).isEmpty());
    f.window->newConversation();
    QTRY_COMPARE(chat->rowCount(), 0);
    QVERIFY(f.openConversation(id));
    QCOMPARE(chat->rowCount(), rowsBefore - 1);
    QVERIFY(f.items(ChatItem::Compaction).isEmpty());
}

void tst_CompactionGui::contextErrorNoticeShows()
{
    MainWindowFixture f;
    prepare(f, true);
    answerTwoPrompts(f);
    f.type(u"third task"_s);
    QTRY_VERIFY_WITH_TIMEOUT(!f.items(ChatItem::Notice).isEmpty(), Testing::hangGuardMs);
    const QString notice = f.items(ChatItem::Notice).first().text;
    QVERIFY2(notice.contains(u"too long for the model's context window"_s), qPrintable(notice));
    QCOMPARE(f.window->statusBar()->currentMessage(), notice);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.items(ChatItem::Compaction).size(), 1);
    QVERIFY(sendsText(f.server.requests().last(), u"SUMMARY of the earlier turns"_s));
}

void tst_CompactionGui::removingADividerKeepsTheRowsOfToolCalls()
{
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    ChatItem prompt;
    prompt.kind = ChatItem::UserPrompt;
    prompt.text = u"task"_s;
    model.append(prompt);
    ChatItem divider;
    divider.kind = ChatItem::Compaction;
    divider.compactionId = u"c1"_s;
    divider.compactedMessages = 1;
    divider.reasoning = u"Assistant: earlier"_s;
    model.append(divider);
    ChatItem call;
    call.kind = ChatItem::ToolCall;
    call.toolName = u"shell"_s;
    call.toolCallId = u"call_1"_s;
    call.arguments = u"{}"_s;
    model.append(call);
    QCOMPARE(model.toolCallRow(u"call_1"_s), 2);
    QCOMPARE(model.index(1, 0).data(Qt::DisplayRole).toString(),
             u"1 message compacted\nAssistant: earlier"_s);
    QVERIFY(!(model.flags(model.index(1, 0)) & Qt::ItemIsEditable));
    QVERIFY(!model.removeCompaction(u"other"_s));
    QVERIFY(model.removeCompaction(u"c1"_s));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.toolCallRow(u"call_1"_s), 1);
    QCOMPARE(model.compactionRow(u"c1"_s), -1);
}

void tst_CompactionGui::inspectorNamesTheRequestsPurpose()
{
    Gui::TurnModel turns;
    Exchange exchange;
    exchange.turn = 1;
    exchange.attempt = 1;
    turns.addRequest(exchange);
    exchange.purpose = ExchangePurpose::Compaction;
    turns.addRequest(exchange);
    exchange.purpose = ExchangePurpose::Continuation;
    turns.addRequest(exchange);
    const auto number = [&turns](int row) {
        return turns.index(row, Gui::TurnModel::NumberColumn).data().toString();
    };
    QCOMPARE(number(0), u"1"_s);
    QCOMPARE(number(1), u"2 · compaction"_s);
    QCOMPARE(number(2), u"3 · continuation"_s);
}

AGENTLOOP_TEST_MAIN(QApplication, tst_CompactionGui)
#include "tst_compaction_gui.moc"
