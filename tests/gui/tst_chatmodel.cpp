#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/liveanswer.h"
#include "diffstyle.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <algorithm>

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

// What an edit_file call changed, as the file tools describe it: a hunk of `lines` lines, every
// third one added and the one after it removed.
ChatItem fileChange(int lines = 8)
{
    ChatItem result = item(ChatItem::FileChange, {});
    result.toolName = u"edit_file"_s;
    result.toolCallId = u"call_9"_s;
    result.fileChange.path = u"src/main.cpp"_s;
    result.fileChange.absolutePath = u"/home/user/project/src/main.cpp"_s;
    result.fileChange.encoding = u"GB18030, CRLF"_s;
    QStringList diff{u"@@ -1,%1 +1,%1 @@"_s.arg(lines - 1)};
    for (int i = 1; i < lines; ++i) {
        const QChar sign = i % 3 == 1 ? u'+' : i % 3 == 2 ? u'-' : u' ';
        diff << sign + u"line %1"_s.arg(i);
        if (sign == u'+')
            ++result.fileChange.addedLines;
        else if (sign == u'-')
            ++result.fileChange.removedLines;
    }
    result.fileChange.diff = diff.join(u'\n') + u'\n';
    return result;
}

// The options the view paints the item at row with.
QStyleOptionViewItem optionFor(Gui::ChatView &view, int row)
{
    QStyleOptionViewItem option;
    option.initFrom(view.viewport());
    option.widget = &view;
    option.rect = view.visualRect(view.model()->index(row, 0));
    return option;
}

// How many pixels of the item at row are painted in exactly this colour.
int pixelsOf(Gui::ChatView &view, int row, const QColor &color)
{
    const QRect rect = view.visualRect(view.model()->index(row, 0));
    const QImage image = view.viewport()->grab(rect).toImage();
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            count += image.pixelColor(x, y).rgb() == color.rgb();
    }
    return count;
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

// Where the view sends a hit of this kind in the item at row, or a null point.
QPoint findHit(Gui::ChatView &view, int row, Gui::ChatDelegate::Hit hit)
{
    const auto *delegate = qobject_cast<Gui::ChatDelegate *>(view.itemDelegate());
    QStyleOptionViewItem option;
    option.initFrom(view.viewport());
    option.widget = &view;
    option.rect = view.visualRect(view.model()->index(row, 0));
    for (int y = option.rect.top(); y < option.rect.bottom(); y += 2) {
        for (int x = option.rect.left(); x < option.rect.right(); x += 2) {
            if (delegate->hitTest(option, view.model()->index(row, 0), {x, y}) == hit)
                return {x, y};
        }
    }
    return {};
}

// Stands in for the desktop: records what QDesktopServices::openUrl was asked to open.
class UrlCatcher : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> urls;
public slots:
    void open(const QUrl &url) { urls.append(url); }
};

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
    void outputFileLinksOpenTheFileAndItsFolder();
    void fileChangeShowsTheFileAndItsColouredDiff();
    void fileChangeBeyondTwentyLinesIsCollapsed();
    void fileChangeLinksOpenTheFileAndItsFolder();
    void fileChangeIsShownEscaped();
    void opensAsDocument_data();
    void opensAsDocument();
    void liveItemGrowsAndIsReplacedInPlace();
    void liveAnswerCoalescesDeltas();
    void liveAnswerEndings();
    void bidiInAnAnswerIsShownEscaped();
    void markdownEntitiesAndHtmlAreNotInterpreted();
    void toolNameWithATerminalEscapeIsShownEscaped();
    void surrogatePairSplitAcrossDeltasIsOneCharacter();
    void lineSeparatorInCommandOutputIsShownEscaped();
    void megabyteOfArgumentsOrOutputIsCutWithANote();
    void runawayAnswerIsCutWhileItStreams();
    void rowsAreStackedAndFoundWhereTheyArePainted();
    void rowHeightFollowsTheWidth();
    void rowHeightFollowsTheFont();
    void answerGrowingAtTheBottomMovesNothingAbove();
    void keysAndClicksSelectMessages();
};

namespace {

// The bidirectional controls a text layout would act on: embeddings, overrides and isolates.
bool hasRawBidi(const QString &text)
{
    return std::any_of(text.cbegin(), text.cend(), [](QChar c) {
        return (c.unicode() >= 0x202A && c.unicode() <= 0x202E)
               || (c.unicode() >= 0x2066 && c.unicode() <= 0x2069) || c.unicode() == 0x200F
               || c.unicode() == 0x061C;
    });
}

// The selectable text view of the item at row: the laid-out document, as it is painted.
QString laidOutText(Gui::ChatView &view, int row)
{
    view.edit(view.model()->index(row, 0));
    auto *text = view.findChild<QTextBrowser *>(u"chatItemTextView"_s);
    return text ? text->toPlainText() : u"(no text view)"_s;
}

// Closes the text view laidOutText() opened, as Esc does.
void closeTextView(Gui::ChatView &view)
{
    if (auto *text = view.findChild<QTextBrowser *>(u"chatItemTextView"_s)) {
        QPointer<QTextBrowser> guard(text);
        QTest::keyClick(text, Qt::Key_Escape);
        QTRY_VERIFY(!guard || !guard->isVisible());
    }
    // The view ignores a click on that item for a double-click interval after its editor closed.
    QTest::qWait(QApplication::doubleClickInterval() + 50);
}

} // namespace

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
    model.append(fileChange(30));
    QCOMPARE(model.rowCount(), 12 * 4 + 3);
    model.toggleCollapsed(model.index(12 * 4 + 2, 0));

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

void tst_ChatModel::outputFileLinksOpenTheFileAndItsFolder()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"call_1.log"_s);
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 500);
    ChatItem saved = toolResult(lines(3) + u"\n[The full output (20000000 bytes) is in the file "_s
                                + QDir::toNativeSeparators(path) + u"]"_s);
    saved.outputFile = {path, 20000000, true, {}};
    model.append(saved);
    model.append(toolResult(lines(3)));
    QCOMPARE(model.index(0, 0).data(ChatModel::OutputFilePathRole).toString(), path);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    UrlCatcher desktop;
    QDesktopServices::setUrlHandler(u"file"_s, &desktop, "open");
    const QPoint open = findHit(view, 0, Gui::ChatDelegate::Hit::OpenOutputFile);
    const QPoint folder = findHit(view, 0, Gui::ChatDelegate::Hit::ShowOutputFolder);
    QVERIFY(!open.isNull() && !folder.isNull());
    QVERIFY(open.x() < folder.x()); // "Open", then "Show in folder", on one line
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, open);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, folder);
    QDesktopServices::unsetUrlHandler(u"file"_s);
    QCOMPARE(desktop.urls,
             QList<QUrl>({QUrl::fromLocalFile(path), QUrl::fromLocalFile(dir.path())}));

    // A result that kept all of its output has no such links.
    QVERIFY(findHit(view, 1, Gui::ChatDelegate::Hit::OpenOutputFile).isNull());
}

void tst_ChatModel::fileChangeShowsTheFileAndItsColouredDiff()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 500);
    const ChatItem change = fileChange(8);
    model.append(change);
    const QModelIndex index = model.index(0, 0);
    QCOMPARE(index.data(ChatModel::KindRole).toInt(), int(ChatItem::FileChange));
    QString diff = change.fileChange.diff;
    diff.chop(1);
    QCOMPARE(index.data(ChatModel::TextRole).toString(), diff);
    QCOMPARE(index.data(ChatModel::FilePathRole).toString(), u"src/main.cpp"_s);
    QCOMPARE(index.data(ChatModel::FileEncodingRole).toString(), u"GB18030, CRLF"_s);
    QCOMPARE(index.data(ChatModel::AddedLinesRole).toInt(), 3);
    QCOMPARE(index.data(ChatModel::RemovedLinesRole).toInt(), 2);
    QCOMPARE(index.data(ChatModel::LineCountRole).toInt(), 8);
    QVERIFY(!index.data(ChatModel::CollapsibleRole).toBool()); // 8 lines: all shown
    // Copy: the header, then the diff.
    QCOMPARE(index.data(Qt::DisplayRole).toString(),
             u"Edited src/main.cpp (GB18030, CRLF) +3 −2\n"_s + diff);
    QCOMPARE(index.data(Qt::AccessibleDescriptionRole).toString(),
             u"Edited src/main.cpp, 3 added, 2 removed"_s);

    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto *delegate = view.chatDelegate();
    QCOMPARE(delegate->labels(optionFor(view, 0), index),
             (QStringList{u"Edited src/main.cpp"_s,
                          u"GB18030, CRLF"_s,
                          u"+3"_s,
                          u"−2"_s,
                          u"Open file"_s,
                          u"Open folder"_s}));
    // Added lines on green, removed lines on red, across the code area.
    view.viewport()->repaint();
    const Gui::DiffColors colors(view.palette());
    const int lineHeight = view.fontMetrics().height();
    QVERIFY2(pixelsOf(view, 0, colors.addedBackground) > 3 * 20 * lineHeight / 2,
             qPrintable(QString::number(pixelsOf(view, 0, colors.addedBackground))));
    QVERIFY(pixelsOf(view, 0, colors.removedBackground) > 2 * 20 * lineHeight / 2);
    QVERIFY(pixelsOf(view, 0, colors.hunkBackground) > 20 * lineHeight / 2);
    // The diff as it is laid out, every line.
    QCOMPARE(laidOutText(view, 0), diff);
    closeTextView(view);

    // A created file says so.
    ChatItem created = fileChange(3);
    created.fileChange.newFile = true;
    created.fileChange.path = u"docs/new.md"_s;
    created.fileChange.diffTruncated = true; // only its first lines
    model.append(created);
    QCOMPARE(delegate->labels(optionFor(view, 1), model.index(1, 0)).first(),
             u"Created docs/new.md"_s);
    QVERIFY(model.index(1, 0)
                    .data(ChatModel::TextRole)
                    .toString()
                    .endsWith(u"+line 1\n-line 2\n[The rest of the diff is not shown]"_s));
}

void tst_ChatModel::fileChangeBeyondTwentyLinesIsCollapsed()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 900);
    model.append(fileChange(20));
    model.append(fileChange(45));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto *delegate = view.chatDelegate();

    // Twenty lines are shown whole.
    QVERIFY(!model.index(0, 0).data(ChatModel::CollapsibleRole).toBool());
    QVERIFY(!delegate->labels(optionFor(view, 0), model.index(0, 0)).contains(u"Show less"_s));
    QVERIFY(findHit(view, 0, Gui::ChatDelegate::Hit::Toggle).isNull());

    // Forty-five: the first twenty, then "…", and a way to see all of them.
    const QModelIndex index = model.index(1, 0);
    QVERIFY(index.data(ChatModel::CollapsibleRole).toBool());
    QVERIFY(index.data(ChatModel::CollapsedRole).toBool());
    const QString diff = index.data(ChatModel::TextRole).toString();
    const QStringList lines = diff.split(u'\n');
    QCOMPARE(lines.size(), 45);
    QCOMPARE(laidOutText(view, 1), lines.first(20).join(u'\n') + u"\n…"_s);
    closeTextView(view);
    QVERIFY(delegate->labels(optionFor(view, 1), index).contains(u"Show all (45 lines)"_s));
    const int collapsedHeight = view.visualRect(index).height();

    const QPoint toggle = findHit(view, 1, Gui::ChatDelegate::Hit::Toggle);
    QVERIFY(!toggle.isNull());
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, toggle);
    QCOMPARE(index.data(ChatModel::CollapsedRole).toBool(), false);
    QVERIFY(delegate->labels(optionFor(view, 1), index).contains(u"Show less"_s));
    QCOMPARE(laidOutText(view, 1), diff);
    QVERIFY2(view.visualRect(index).height() > collapsedHeight + 20 * view.fontMetrics().height(),
             qPrintable(u"%1 -> %2"_s.arg(collapsedHeight).arg(view.visualRect(index).height())));
}

void tst_ChatModel::fileChangeLinksOpenTheFileAndItsFolder()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 700);
    model.append(fileChange(4));
    // A script the model wrote: opening it would run it, so only its folder is offered.
    ChatItem script = fileChange(4);
    script.fileChange.path = u"tools/setup.bat"_s;
    script.fileChange.absolutePath = u"/home/user/project/tools/setup.bat"_s;
    model.append(script);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    UrlCatcher desktop;
    QDesktopServices::setUrlHandler(u"file"_s, &desktop, "open");
    const auto unset = qScopeGuard([] { QDesktopServices::unsetUrlHandler(u"file"_s); });
    const QPoint open = findHit(view, 0, Gui::ChatDelegate::Hit::OpenChangedFile);
    const QPoint folder = findHit(view, 0, Gui::ChatDelegate::Hit::ShowChangedFolder);
    QVERIFY(!open.isNull() && !folder.isNull());
    QVERIFY(open.x() < folder.x()); // "Open file", then "Open folder", on one line
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, open);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, folder);
    QCOMPARE(desktop.urls,
             QList<QUrl>({QUrl::fromLocalFile(u"/home/user/project/src/main.cpp"_s),
                          // the folder as the platform spells it (Windows adds the drive)
                          QUrl::fromLocalFile(
                                  QFileInfo(u"/home/user/project/src/main.cpp"_s).absolutePath())}));

    desktop.urls.clear();
    QVERIFY(findHit(view, 1, Gui::ChatDelegate::Hit::OpenChangedFile).isNull());
    QVERIFY(!view.chatDelegate()
                     ->labels(optionFor(view, 1), model.index(1, 0))
                     .contains(u"Open file"_s));
    const QPoint scriptFolder = findHit(view, 1, Gui::ChatDelegate::Hit::ShowChangedFolder);
    QVERIFY(!scriptFolder.isNull());
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, scriptFolder);
    QCOMPARE(desktop.urls,
             QList<QUrl>{QUrl::fromLocalFile(
                     QFileInfo(u"/home/user/project/tools/setup.bat"_s).absolutePath())});
}

void tst_ChatModel::fileChangeIsShownEscaped()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 500);
    ChatItem change = fileChange(2);
    change.fileChange.path = u"src/\u202Etxt.exe"_s;
    change.fileChange.encoding = u"UTF-8\u2028, LF"_s;
    change.fileChange.diff
            = u"@@ -1,0 +1,2 @@\n+echo \u2066# ; rm -rf ~\u2069\n+printf '\x1b[2J'\n"_s;
    model.append(change);
    const QModelIndex index = model.index(0, 0);
    QCOMPARE(index.data(ChatModel::FilePathRole).toString(), u"src/⟨U+202E⟩txt.exe"_s);
    QCOMPARE(index.data(ChatModel::FileEncodingRole).toString(), u"UTF-8⟨U+2028⟩, LF"_s);
    const QString diff = u"@@ -1,0 +1,2 @@\n+echo ⟨U+2066⟩# ; rm -rf ~⟨U+2069⟩\n"
                         u"+printf '⟨U+001B⟩[2J'"_s;
    QCOMPARE(index.data(ChatModel::TextRole).toString(), diff);
    QVERIFY(!hasRawBidi(index.data(Qt::DisplayRole).toString()));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.chatDelegate()->labels(optionFor(view, 0), index).first(),
             u"Edited src/⟨U+202E⟩txt.exe"_s);
    QCOMPARE(laidOutText(view, 0), diff);
}

void tst_ChatModel::opensAsDocument_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("opens");
    QTest::newRow("source") << u"main.cpp"_s << true;
    QTest::newRow("Markdown") << u"README.md"_s << true;
    QTest::newRow("text, upper case") << u"NOTES.TXT"_s << true;
    QTest::newRow("archive") << u"data.tar.gz"_s << true;
    QTest::newRow("program") << u"tool.exe"_s << false;
    QTest::newRow("program, upper case") << u"TOOL.EXE"_s << false;
    QTest::newRow("batch") << u"setup.bat"_s << false;
    QTest::newRow("script host") << u"run.vbs"_s << false;
    QTest::newRow("JScript") << u"build.js"_s << false;
    QTest::newRow("PowerShell") << u"install.ps1"_s << false;
    QTest::newRow("Python") << u"tool.py"_s << false;
    QTest::newRow("shell") << u"deploy.sh"_s << false;
    QTest::newRow("shortcut") << u"docs.lnk"_s << false;
    QTest::newRow("launcher") << u"app.desktop"_s << false;
    QTest::newRow("registry") << u"settings.reg"_s << false;
    QTest::newRow("trailing dot and space") << u"setup.exe. "_s << false;
    QTest::newRow("double suffix") << u"invoice.pdf.exe"_s << false;
}

void tst_ChatModel::opensAsDocument()
{
    QFETCH(QString, name);
    QFETCH(bool, opens);
    QTemporaryDir dir;
    QCOMPARE(Gui::opensAsDocument(dir.filePath(name)), opens);
}

void tst_ChatModel::liveItemGrowsAndIsReplacedInPlace()
{
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    appendConversation(model, 1);
    ChatItem live = item(ChatItem::AssistantText, u"Par"_s);
    live.stream = ChatItem::Stream::Live;
    const int row = model.append(live);
    const quint64 id = model.item(row).id;
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.appendText(row, u"tial\nanswer"_s, u"thinking"_s);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), row);
    QCOMPARE(changed.at(0).at(1).toModelIndex().row(), row);
    QCOMPARE(model.item(row).text, u"Partial\nanswer"_s);
    QCOMPARE(model.item(row).lineCount, 2);
    QVERIFY(model.index(row, 0).data(ChatModel::CollapsibleRole).toBool()); // the reasoning
    QCOMPARE(model.index(row, 0).data(Qt::AccessibleDescriptionRole).toString(),
             u"Assistant, answering"_s);

    model.setData(model.index(row, 0), false, ChatModel::CollapsedRole); // reasoning unfolded
    ChatItem final = item(ChatItem::AssistantText, u"Partial\nanswer, complete."_s);
    final.reasoning = u"thinking"_s;
    model.replace(row, final);
    QCOMPARE(inserted.size(), 0);
    QCOMPARE(model.item(row).id, id);
    QCOMPARE(model.item(row).text, u"Partial\nanswer, complete."_s);
    QCOMPARE(model.item(row).stream, ChatItem::Stream::Complete);
    QVERIFY(!model.item(row).collapsed); // the user's choice stays
    QCOMPARE(model.toolCallRow(u"call_1"_s), 1);

    model.setStream(row, ChatItem::Stream::Incomplete);
    QCOMPARE(model.index(row, 0).data(ChatModel::StreamRole).toInt(),
             int(ChatItem::Stream::Incomplete));
    model.removeLast();
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.toolCallRow(u"call_1"_s), 1);
}

void tst_ChatModel::liveAnswerCoalescesDeltas()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 400);
    for (int round = 1; round <= 50; ++round)
        appendConversation(model, round);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.scrollToBottom();
    QCoreApplication::processEvents();

    Gui::LiveAnswer live(&model);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    const int layoutsBefore = view.chatDelegate()->layoutCount();
    QElapsedTimer clock;
    clock.start();
    QString expected;
    // 2000 deltas over about a second, with the event loop running in between as it would.
    for (int i = 0; i < 2000; ++i) {
        const QString delta = u"t%1 "_s.arg(i);
        expected += delta;
        live.addText(delta);
        if (i % 10 == 9)
            QTest::qWait(5);
    }
    QTRY_VERIFY(!live.isActive() || model.item(live.row()).text == expected);
    const qint64 elapsed = clock.elapsed();
    QCOMPARE(inserted.size(), 1);
    const int row = live.row();
    QCOMPARE(row, model.rowCount() - 1);
    for (const QList<QVariant> &signal : std::as_const(changed))
        QCOMPARE(signal.at(0).toModelIndex().row(), row);
    // One update when the first delta came, then one per 50 ms at most (elapsed is measured
    // around them all: load only lengthens it).
    const int updates = int(changed.size()) + 1;
    qInfo("2000 deltas in %lld ms: %d updates of the row", elapsed, updates);
    QVERIFY2(updates <= elapsed / 50 + 2,
             qPrintable(u"%1 updates in %2 ms"_s.arg(updates).arg(elapsed)));
    QCOMPARE(live.updateCount(), updates);
    view.viewport()->repaint();
    const int layouts = view.chatDelegate()->layoutCount() - layoutsBefore;
    QVERIFY2(layouts <= updates + 1, qPrintable(QString::number(layouts)));

    ChatItem final = item(ChatItem::AssistantText, expected);
    QCOMPARE(live.finish(final), row);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.item(row).text, expected);
    QCOMPARE(model.item(row).stream, ChatItem::Stream::Complete);
    QVERIFY(!live.isActive());
}

void tst_ChatModel::liveAnswerEndings()
{
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(item(ChatItem::UserPrompt, u"Hi"_s));
    Gui::LiveAnswer live(&model);

    // Broken off: the text stays, marked incomplete, with what was still buffered.
    live.setTurn(3);
    live.addText(u"Half"_s);
    live.addText(u" an answer"_s);
    QVERIFY(live.isActive());
    live.abandon();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.item(1).text, u"Half an answer"_s);
    QCOMPARE(model.item(1).turn, 3);
    QCOMPARE(model.item(1).stream, ChatItem::Stream::Incomplete);
    QVERIFY(!live.isActive());

    // Whitespace that ends in a tool call only: nothing to show, the live item goes.
    live.addText(u"\n"_s);
    QCOMPARE(model.rowCount(), 3);
    ChatItem empty = item(ChatItem::AssistantText, {});
    QCOMPARE(live.finish(empty), -1);
    QCOMPARE(model.rowCount(), 2);

    // Reasoning only, and a message that does not carry it: the reasoning stays.
    live.addReasoning(u"Let me look."_s);
    QCOMPARE(live.finish(empty), 2);
    QCOMPARE(model.item(2).reasoning, u"Let me look."_s);
    QVERIFY(model.item(2).text.isEmpty());

    // Not streamed: the final message is simply appended.
    QCOMPARE(live.finish(item(ChatItem::AssistantText, u"Plain."_s)), 3);
    QCOMPARE(model.rowCount(), 4);
}

void tst_ChatModel::bidiInAnAnswerIsShownEscaped()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 500);
    // "Run \u202Etxt.exe" reads "Run exe.txt" once laid out; the isolates reorder what they hold.
    const QString answer
            = u"Run \u202Etxt.exe\u202C now. Then \u2066a\u2069 \u2067b\u2069 \u2068c\u2069."_s;
    model.append(item(ChatItem::AssistantText, answer));
    ChatItem reasoning = item(ChatItem::AssistantText, u"ok"_s);
    reasoning.reasoning = u"think \u202Edrawkcab"_s;
    model.append(reasoning);

    const QModelIndex index = model.index(0, 0);
    const QString expected = u"Run ⟨U+202E⟩txt.exe⟨U+202C⟩ now. Then ⟨U+2066⟩a⟨U+2069⟩ "
                             u"⟨U+2067⟩b⟨U+2069⟩ ⟨U+2068⟩c⟨U+2069⟩."_s;
    QCOMPARE(index.data(ChatModel::TextRole).toString(), expected);
    QCOMPARE(index.data(Qt::DisplayRole).toString(), expected);
    QCOMPARE(index.data(Qt::AccessibleTextRole).toString(), expected);
    QCOMPARE(model.index(1, 0).data(ChatModel::ReasoningRole).toString(),
             u"think ⟨U+202E⟩drawkcab"_s);

    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString shown = laidOutText(view, 0);
    QVERIFY2(shown.contains(u"Run ⟨U+202E⟩txt.exe⟨U+202C⟩ now."_s), qPrintable(shown));
    QVERIFY(!hasRawBidi(shown));
    view.setCurrentIndex(model.index(0, 0));
    view.copySelection();
    QCOMPARE(QGuiApplication::clipboard()->text(), expected);
}

void tst_ChatModel::markdownEntitiesAndHtmlAreNotInterpreted()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 500);
    // The source is plain ASCII; the parse would make a right-to-left override of the entity and
    // hide the span's words in the card's colour.
    model.append(
            item(ChatItem::AssistantText,
                 u"Open &#x202E;fdp.exe and **this**: <span style=\"color:#ffffff\">hidden</span>"_s));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString shown = laidOutText(view, 0);
    QVERIFY2(shown.contains(u"Open ⟨U+202E⟩fdp.exe and this: "_s), qPrintable(shown));
    QVERIFY2(shown.contains(u"<span style=\"color:#ffffff\">hidden</span>"_s), qPrintable(shown));
    QVERIFY(!hasRawBidi(shown));
}

void tst_ChatModel::toolNameWithATerminalEscapeIsShownEscaped()
{
    ChatModel model;
    ChatItem call = item(ChatItem::ToolCall, {});
    call.toolName = u"shell\x1b[8m hidden"_s;
    call.toolCallId = u"call_1"_s;
    call.arguments = u"{\"command\":\"ls\"}"_s;
    model.append(call);
    ChatItem result = toolResult(u"done"_s);
    result.toolName = call.toolName;
    model.append(result);

    const QString name = u"shell⟨U+001B⟩[8m hidden"_s;
    QCOMPARE(model.index(0, 0).data(ChatModel::ToolNameRole).toString(), name);
    QCOMPARE(model.index(0, 0).data(Qt::DisplayRole).toString(),
             name + u"\n{\n  \"command\": \"ls\"\n}"_s);
    QCOMPARE(model.index(0, 0).data(Qt::AccessibleDescriptionRole).toString(),
             u"Tool call: "_s + name);
    QCOMPARE(model.index(1, 0).data(Qt::AccessibleDescriptionRole).toString(),
             u"Result of %1, exit code 0"_s.arg(name));
    QCOMPARE(model.toolCallRow(u"call_1"_s), 0);
}

void tst_ChatModel::surrogatePairSplitAcrossDeltasIsOneCharacter()
{
    ChatModel model;
    Gui::LiveAnswer live(&model);
    const QString grin = u"\U0001F600"_s; // 😀, two UTF-16 code units
    live.addText(u"Hi "_s + grin.at(0));  // the first delta is written at once...
    QCOMPARE(model.rowCount(), 1);
    live.addText(grin.at(1) + u"!"_s); // ...the second within the interval
    live.addReasoning(u"so "_s + grin.at(0));
    live.addReasoning(QString(grin.at(1)));
    QTRY_COMPARE(model.index(0, 0).data(ChatModel::TextRole).toString(), u"Hi "_s + grin + u'!');
    QCOMPARE(model.index(0, 0).data(ChatModel::ReasoningRole).toString(), u"so "_s + grin);

    // A stream that breaks off after half a pair: that half is alone, and shown as such.
    live.reset();
    live.addText(u"Bye "_s + grin.at(0));
    live.abandon();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, 0).data(ChatModel::TextRole).toString(), u"Bye ⟨U+D83D⟩"_s);

    // So does a CRLF split between two deltas.
    live.reset();
    live.addText(u"one\r"_s);
    live.addText(u"\ntwo"_s);
    QTRY_COMPARE(model.index(2, 0).data(ChatModel::TextRole).toString(), u"one\ntwo"_s);
}

void tst_ChatModel::lineSeparatorInCommandOutputIsShownEscaped()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 500);
    model.append(toolResult(u"total 0\u2028rm -rf ~\u2029\tdone\x7f\u009B31m"_s));
    const QString expected = u"total 0⟨U+2028⟩rm -rf ~⟨U+2029⟩\tdone⟨U+007F⟩⟨U+009B⟩31m"_s;
    QCOMPARE(model.index(0, 0).data(ChatModel::TextRole).toString(), expected);
    QCOMPARE(model.index(0, 0).data(Qt::DisplayRole).toString(), expected);
    QCOMPARE(model.index(0, 0).data(ChatModel::LineCountRole).toInt(), 1);
    // Windows' line ends are line ends; a CR alone (a progress bar's) is shown for what it is.
    model.append(toolResult(u"C:\\>dir\r\nfile\r\n50%\r100%"_s));
    QCOMPARE(model.index(1, 0).data(ChatModel::TextRole).toString(),
             u"C:\\>dir\nfile\n50%⟨U+000D⟩100%"_s);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(laidOutText(view, 0), expected);
}

void tst_ChatModel::megabyteOfArgumentsOrOutputIsCutWithANote()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    ChatItem call = item(ChatItem::ToolCall, {});
    call.toolName = u"shell"_s;
    call.toolCallId = u"call_1"_s;
    call.turn = 1;
    call.arguments = u"{\"command\":\"echo %1\"}"_s.arg(QString(1024 * 1024, u'x'));
    // Escapes take more room than what they stand for: a megabyte of zero-width spaces.
    ChatItem result = toolResult(QString(512 * 1024, u'\x200B') + QString(512 * 1024, u'y')
                                 + u"\n"_s);
    result.toolName = u"shell"_s;
    result.collapsed = false;
    QString zeroWidth;
    for (int i = 0; i < 512 * 1024; ++i)
        zeroWidth += i % 2 ? u"\x200B"_s : u"z"_s;
    ChatItem alternating = toolResult(zeroWidth);
    QElapsedTimer clock;
    clock.start();
    model.append(call);
    model.append(result);
    model.append(alternating);
    view.scrollToBottom();
    view.viewport()->repaint();
    QCoreApplication::processEvents();
    qInfo("three items of a megabyte each appended and painted in %lld ms", clock.elapsed());

    const QString arguments = model.index(0, 0).data(ChatModel::ArgumentsRole).toString();
    QVERIFY(arguments.startsWith(u"{\"command\":\"echo xxx"_s));
    QVERIFY2(arguments.endsWith(u"\n[983.1 kB more not shown here; the inspector has all of it]"_s),
             qPrintable(arguments.right(100)));
    QVERIFY(arguments.size() < ChatModel::shownToolTextLength + 100);
    QCOMPARE(model.index(0, 0).data(Qt::DisplayRole).toString(), u"shell\n"_s + arguments);

    const QString output = model.index(1, 0).data(ChatModel::TextRole).toString();
    QVERIFY2(output.startsWith(u"⟨U+200B ×524288⟩yyy"_s), qPrintable(output.left(40)));
    QVERIFY2(output.endsWith(u"y\n[458.8 kB more not shown]"_s), qPrintable(output.right(60)));
    const QString third = model.index(2, 0).data(ChatModel::TextRole).toString();
    QVERIFY(third.startsWith(u"z⟨U+200B⟩z⟨U+200B⟩"_s));
    QVERIFY(third.size() < ChatModel::shownToolTextLength + 100);
    // Never cut inside an escape.
    QVERIFY2(third.endsWith(u"⟩z\n[1.0 MB more not shown]"_s), qPrintable(third.right(60)));
}

void tst_ChatModel::runawayAnswerIsCutWhileItStreams()
{
    ChatModel model;
    Gui::LiveAnswer live(&model);
    live.setTurn(2);
    const QString paragraph = QString(999, u'a') + u'\n';
    QString all;
    for (int i = 0; i < 300; ++i) { // 300 000 characters, in deltas of a thousand
        live.addText(paragraph);
        live.flush();
        all += paragraph;
    }
    const QString note = u"[168.9 kB more not shown here; the inspector has all of it]"_s;
    QString shown = model.index(0, 0).data(ChatModel::TextRole).toString();
    QCOMPARE(shown.size(), ChatModel::shownTextLength + 1 + note.size());
    QVERIFY2(shown.endsWith(u"a\n"_s + note), qPrintable(shown.right(80)));

    // The final message is cut the same way.
    ChatItem final = item(ChatItem::AssistantText, all);
    final.turn = 2;
    QCOMPARE(live.finish(final), 0);
    QCOMPARE(model.index(0, 0).data(ChatModel::TextRole).toString(), shown);
}

namespace {

// Every row starts where the one above ends, and a click at its middle finds it.
QString stackingError(Gui::ChatView &view)
{
    const QAbstractItemModel *model = view.model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QRect rect = view.visualRect(model->index(row, 0));
        if (rect.height() <= 0 || rect.width() != view.viewport()->width())
            return u"row %1 is %2x%3"_s.arg(row).arg(rect.width()).arg(rect.height());
        if (row > 0 && rect.top() != view.visualRect(model->index(row - 1, 0)).bottom() + 1)
            return u"row %1 does not start where row %2 ends"_s.arg(row).arg(row - 1);
        if (view.indexAt(rect.center()) != model->index(row, 0))
            return u"the middle of row %1 is row %2"_s.arg(row).arg(
                    view.indexAt(rect.center()).row());
    }
    return {};
}

ChatItem longAnswer()
{
    QStringList words;
    for (int i = 0; i < 120; ++i)
        words << u"word%1"_s.arg(i);
    return item(ChatItem::AssistantText, words.join(u' '));
}

} // namespace

void tst_ChatModel::rowsAreStackedAndFoundWhereTheyArePainted()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 400);
    for (int round = 1; round <= 6; ++round)
        appendConversation(model, round);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.scrollToTop();
    QCOMPARE(stackingError(view), QString());
    // The scroll range is the rows' heights together: the last row ends at the view's bottom.
    view.scrollToBottom();
    const QRect last = view.visualRect(model.index(model.rowCount() - 1, 0));
    QCOMPARE(last.bottom() + 1, view.viewport()->height());
    QCOMPARE(view.indexAt(QPoint(10, view.viewport()->height() - 1)).row(), model.rowCount() - 1);
    QVERIFY(!view.indexAt(QPoint(10, view.viewport()->height() + 5)).isValid());

    // A removed row leaves no gap; nor does a row put at the top.
    model.removeLast();
    QCOMPARE(stackingError(view), QString());
    QTRY_COMPARE(view.visualRect(model.index(model.rowCount() - 1, 0)).bottom() + 1,
                 view.viewport()->height());
    model.clear();
    QTRY_COMPARE(view.verticalScrollBar()->maximum(), 0);
    QVERIFY(!view.indexAt(QPoint(10, 10)).isValid());
    appendConversation(model, 1);
    QCOMPARE(stackingError(view), QString());
}

void tst_ChatModel::rowHeightFollowsTheWidth()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(900, 500);
    model.append(longAnswer());
    model.append(item(ChatItem::UserPrompt, u"Below it."_s));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QModelIndex answer = model.index(0, 0);
    QTRY_VERIFY(view.visualRect(answer).width() == view.viewport()->width());
    const int wide = view.visualRect(answer).height();

    view.resize(350, 500);
    // Laid out again once the width has settled: narrower, so more lines, so taller.
    QTRY_VERIFY2(view.visualRect(answer).height() > wide * 3 / 2,
                 qPrintable(u"%1 -> %2"_s.arg(wide).arg(view.visualRect(answer).height())));
    QCOMPARE(stackingError(view), QString());
    view.resize(900, 500);
    QTRY_COMPARE(view.visualRect(answer).height(), wide);
    QCOMPARE(stackingError(view), QString());
}

void tst_ChatModel::rowHeightFollowsTheFont()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(700, 500);
    model.append(longAnswer());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QModelIndex answer = model.index(0, 0);
    const int before = view.visualRect(answer).height();
    QFont larger = view.font();
    larger.setPointSizeF(larger.pointSizeF() * 2);
    view.setFont(larger);
    QTRY_VERIFY2(view.visualRect(answer).height() > before * 3 / 2,
                 qPrintable(u"%1 -> %2"_s.arg(before).arg(view.visualRect(answer).height())));
}

void tst_ChatModel::answerGrowingAtTheBottomMovesNothingAbove()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 400);
    for (int round = 1; round <= 10; ++round)
        appendConversation(model, round);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.scrollToBottom();
    QCoreApplication::processEvents();

    Gui::LiveAnswer live(&model);
    live.addText(u"The first words."_s);
    live.flush();
    const int row = live.row();
    QTRY_COMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
    const QRect above = view.visualRect(model.index(row - 1, 0))
                                .translated(0, view.verticalScrollBar()->value());
    const int height = view.visualRect(model.index(row, 0)).height();
    for (int i = 0; i < 10; ++i) {
        live.addText(u"\n\nAnother paragraph, number %1, of the answer.\n\n"_s.arg(i));
        live.flush();
        QCoreApplication::processEvents();
    }
    // The answer grew at the bottom and stays in view; the message above it is where it was.
    QTRY_VERIFY(view.visualRect(model.index(row, 0)).height()
                > height + 5 * view.fontMetrics().height());
    QTRY_COMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
    QCOMPARE(view.visualRect(model.index(row - 1, 0))
                     .translated(0, view.verticalScrollBar()->value()),
             above);
    QCOMPARE(view.visualRect(model.index(row, 0)).bottom() + 1, view.viewport()->height());
    QCOMPARE(stackingError(view), QString());
}

void tst_ChatModel::keysAndClicksSelectMessages()
{
    ChatModel model;
    Gui::ChatView view;
    view.setChatModel(&model);
    view.resize(600, 400);
    for (int round = 1; round <= 8; ++round)
        appendConversation(model, round);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.scrollToTop();
    view.setFocus();

    // A click selects the message under it, Shift+click the messages down to the next one.
    QTest::mouseClick(view.viewport(),
                      Qt::LeftButton,
                      {},
                      view.visualRect(model.index(0, 0)).center());
    QCOMPARE(view.currentIndex().row(), 0);
    QTest::mouseClick(view.viewport(),
                      Qt::LeftButton,
                      Qt::ShiftModifier,
                      view.visualRect(model.index(2, 0)).center());
    QCOMPARE(view.selectedText(), u"Prompt 1\n\nshell\n{\n  \"command\": \"echo 1\"\n}\n\n1"_s);

    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(view.currentIndex().row(), 3);
    QTest::keyClick(&view, Qt::Key_Up);
    QCOMPARE(view.currentIndex().row(), 2);
    // End goes to the newest message and shows it; Home back to the first.
    QTest::keyClick(&view, Qt::Key_End);
    QCOMPARE(view.currentIndex().row(), model.rowCount() - 1);
    QVERIFY(view.viewport()->rect().contains(view.visualRect(view.currentIndex())));
    QTest::keyClick(&view, Qt::Key_Home);
    QCOMPARE(view.currentIndex().row(), 0);
    QCOMPARE(view.visualRect(view.currentIndex()).top(), 0);
    // Page Down moves by about a screen: to a row below the first screen.
    QTest::keyClick(&view, Qt::Key_PageDown);
    QVERIFY(view.currentIndex().row() > 0);
    QVERIFY(view.visualRect(view.currentIndex()).intersects(view.viewport()->rect()));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_ChatModel)
#include "tst_chatmodel.moc"
