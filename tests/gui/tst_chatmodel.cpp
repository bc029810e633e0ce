#include "chatdelegate.h"
#include "chatmodel.h"
#include "chatview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>

using namespace Qt::StringLiterals;
using Gui::ChatItem;
using Gui::ChatModel;

namespace {

ChatItem item(ChatItem::Kind kind, const QString &text)
{
    ChatItem result;
    result.kind = kind;
    result.text = text;
    return result;
}

ChatItem toolResult(const QString &output, bool ok = true, int exitCode = 0)
{
    ChatItem result = item(ChatItem::ToolResult, output);
    result.toolName = u"shell"_s;
    result.ok = ok;
    result.exitCode = exitCode;
    result.errorCode = ok ? QString() : u"shell_failed"_s;
    return result;
}

QString lines(int count)
{
    QStringList list;
    for (int i = 1; i <= count; ++i)
        list << u"line %1"_s.arg(i);
    return list.join(u'\n');
}

// One of each kind, as a conversation produces them.
void appendConversation(ChatModel &model, int round)
{
    model.append(item(ChatItem::UserPrompt, u"Prompt %1"_s.arg(round)));
    ChatItem call = item(ChatItem::ToolCall, {});
    call.toolName = u"shell"_s;
    call.toolCallId = u"call_%1"_s.arg(round);
    call.arguments = u"{\"command\":\"echo %1\"}"_s.arg(round);
    call.turn = round;
    model.append(call);
    model.append(toolResult(round % 3 == 0 ? lines(20) : QString::number(round)));
    model.append(item(ChatItem::AssistantText, u"**Done** with `echo %1`."_s.arg(round)));
}

} // namespace

class tst_ChatModel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void passesModelTester();
    void appendInsertsExactlyOneRow();
    void collapsedRoleToggles();
    void copyTextIsWhatTheUserSees();
    void appendingLaysOutOnlyTheNewItem();
    void showAllMakesTheResultTaller();
    void doubleClickOpensSelectableText();
};

void tst_ChatModel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void tst_ChatModel::passesModelTester()
{
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int round = 1; round <= 12; ++round)
        appendConversation(model, round);
    ChatItem error = item(ChatItem::ErrorMessage, u"HTTP 401: Incorrect API key"_s);
    error.hint = u"Check the API key in the settings."_s;
    model.append(error);
    model.append(item(ChatItem::Notice, u"Stopped by the user."_s));
    QCOMPARE(model.rowCount(), 12 * 4 + 2);

    const QModelIndex longResult = model.index(10, 0); // round 3's result: 20 lines
    QCOMPARE(longResult.data(ChatModel::KindRole).toInt(), int(ChatItem::ToolResult));
    QVERIFY(model.setData(longResult, false, ChatModel::CollapsedRole));
    model.toggleCollapsed(longResult);
    QCOMPARE(model.index(1, 0).data(ChatModel::ToolCallIdRole).toString(), u"call_1"_s);
    QCOMPARE(model.toolCallRow(u"call_2"_s), 5);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.toolCallRow(u"call_2"_s), -1);
    appendConversation(model, 1);
    QCOMPARE(model.rowCount(), 4);
}

void tst_ChatModel::appendInsertsExactlyOneRow()
{
    ChatModel model;
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy layout(&model, &QAbstractItemModel::layoutChanged);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    for (int row = 0; row < 10000; ++row) {
        QCOMPARE(model.append(item(ChatItem::AssistantText, u"message %1"_s.arg(row))), row);
        QCOMPARE(inserted.size(), row + 1);
        const QList<QVariant> &arguments = inserted.at(row);
        QVERIFY(!arguments.at(0).toModelIndex().isValid());
        QCOMPARE(arguments.at(1).toInt(), row);
        QCOMPARE(arguments.at(2).toInt(), row);
    }
    QCOMPARE(model.rowCount(), 10000);
    QCOMPARE(reset.size(), 0);
    QCOMPARE(layout.size(), 0);
    QCOMPARE(changed.size(), 0);
    QCOMPARE(model.index(9999, 0).data(ChatModel::TextRole).toString(), u"message 9999"_s);
}

void tst_ChatModel::collapsedRoleToggles()
{
    ChatModel model;
    model.append(toolResult(lines(3)));
    model.append(toolResult(lines(ChatModel::collapsedLineCount + 1), false, 2));
    const QModelIndex shortResult = model.index(0, 0);
    const QModelIndex longResult = model.index(1, 0);
    QCOMPARE(shortResult.data(ChatModel::CollapsibleRole).toBool(), false);
    QCOMPARE(longResult.data(ChatModel::CollapsibleRole).toBool(), true);
    QCOMPARE(longResult.data(ChatModel::LineCountRole).toInt(), ChatModel::collapsedLineCount + 1);
    QCOMPARE(longResult.data(ChatModel::CollapsedRole).toBool(), true);
    QCOMPARE(longResult.data(ChatModel::ExitCodeRole).toInt(), 2);
    QCOMPARE(longResult.data(ChatModel::OkRole).toBool(), false);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.toggleCollapsed(longResult);
    QCOMPARE(longResult.data(ChatModel::CollapsedRole).toBool(), false);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex(), longResult);
    QCOMPARE(changed.at(0).at(2).value<QList<int>>(), QList<int>{ChatModel::CollapsedRole});
    model.toggleCollapsed(longResult);
    QCOMPARE(longResult.data(ChatModel::CollapsedRole).toBool(), true);
    // Only the collapsed state can be changed from outside.
    QVERIFY(!model.setData(longResult, u"other"_s, ChatModel::TextRole));
    QCOMPARE(changed.size(), 2);
}

void tst_ChatModel::copyTextIsWhatTheUserSees()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    appendConversation(model, 1);
    ChatItem error = item(ChatItem::ErrorMessage, u"HTTP 404: Not found"_s);
    error.hint = u"Add /v1 to the base URL."_s;
    model.append(error);

    QCOMPARE(model.index(1, 0).data(Qt::DisplayRole).toString(),
             u"shell\n{\n  \"command\": \"echo 1\"\n}"_s);
    QCOMPARE(model.index(4, 0).data(Qt::DisplayRole).toString(),
             u"HTTP 404: Not found\nAdd /v1 to the base URL."_s);

    view.selectionModel()->select(model.index(0, 0), QItemSelectionModel::Select);
    view.selectionModel()->select(model.index(3, 0), QItemSelectionModel::Select);
    QCOMPARE(view.selectedText(), u"Prompt 1\n\n**Done** with `echo 1`."_s);
    view.setCurrentIndex(model.index(3, 0));
    view.selectionModel()->select(model.index(3, 0), QItemSelectionModel::ClearAndSelect);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QGuiApplication::clipboard()->text(), u"**Done** with `echo 1`."_s);
}

void tst_ChatModel::appendingLaysOutOnlyTheNewItem()
{
    // Text layout is what costs; the list view asks every item for its size on each append,
    // which must be a cache lookup for all but the new one.
    const auto layoutsForOneAppend = [](int existing) {
        ChatModel model;
        Gui::ChatView view;
        view.setChatModel(&model);
        view.resize(700, 500);
        for (int i = 0; i < existing / 4; ++i)
            appendConversation(model, i + 1);
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return -1;
        view.scrollToBottom(); // runs the pending layout now
        QCoreApplication::processEvents();
        const int before = view.chatDelegate()->layoutCount();
        model.append(item(ChatItem::AssistantText, u"One more *message*."_s));
        view.scrollToBottom();
        view.viewport()->repaint();
        QCoreApplication::processEvents();
        if (view.verticalScrollBar()->value() != view.verticalScrollBar()->maximum())
            return -2;
        return view.chatDelegate()->layoutCount() - before;
    };
    QCOMPARE(layoutsForOneAppend(12), 1);
    QCOMPARE(layoutsForOneAppend(10000), 1);
}

void tst_ChatModel::showAllMakesTheResultTaller()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 800);
    model.append(toolResult(lines(30)));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QModelIndex result = model.index(0, 0);
    view.scrollToTop();
    const int collapsedHeight = view.visualRect(result).height();
    view.setCurrentIndex(result);
    QTest::keyClick(&view, Qt::Key_Space);
    QCOMPARE(result.data(ChatModel::CollapsedRole).toBool(), false);
    view.scrollToTop();
    const int expandedHeight = view.visualRect(result).height();
    // 30 lines instead of 6 (and "Show less" instead of "Show all").
    QVERIFY2(expandedHeight > collapsedHeight + 15 * view.fontMetrics().height(),
             qPrintable(u"%1 -> %2"_s.arg(collapsedHeight).arg(expandedHeight)));
}

void tst_ChatModel::doubleClickOpensSelectableText()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 400);
    model.append(item(ChatItem::AssistantText, u"Run `ls -la` and **read** the output."_s));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QRect rect = view.visualRect(model.index(0, 0));
    // A double-click as the platform delivers it: press, release, press, double-click, release.
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mousePress(view.viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, rect.center());
    auto *text = view.findChild<QTextBrowser *>(u"chatItemTextView"_s);
    QVERIFY(text);
    QTRY_VERIFY(text->isVisible());
    // The rendered Markdown, selectable: what the user reads, without the markup.
    QCOMPARE(text->toPlainText(), u"Run ls -la and read the output."_s);
    QVERIFY(text->textInteractionFlags() & Qt::TextSelectableByMouse);
    text->selectAll();
    QCOMPARE(text->textCursor().selectedText(), u"Run ls -la and read the output."_s);
    QVERIFY(view.viewport()->rect().contains(text->geometry()));
}

QTEST_MAIN(tst_ChatModel)
#include "tst_chatmodel.moc"
