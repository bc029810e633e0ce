#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/promptedit.h"
#include "chat/runfeed.h"
#include "conversations/conversationlistmodel.h"
#include "conversations/conversationpanel.h"
#include "fakechatserver.h"
#include "longoutput.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "settings/appsettings.h"
#include "storage/conversationstore.h"
#include "temporarysettings.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListView>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;
using Gui::ChatModel;
using Gui::ConversationListModel;
using Gui::MainWindow;

namespace {

const QString systemPrompt = u"You are a careful coding agent."_s;

// The message lines of a conversation file (header lines left out).
QJsonArray messageLines(const QByteArray &bytes)
{
    QJsonArray messages;
    for (const QByteArray &line : bytes.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (!object.contains(u"agentloop"_s))
            messages.append(object);
    }
    return messages;
}

// A saved conversation, written as the app writes one.
QString writeConversation(const QString &directory,
                          const QString &title,
                          const QList<Message> &messages)
{
    ConversationStore store(directory);
    ConversationWriter writer;
    const auto header = writer.create(store, title, u"gpt-test"_s, QUrl(u"http://127.0.0.1/v1"_s));
    if (!header)
        return {};
    for (const Message &message : messages) {
        if (!writer.append(message))
            return {};
    }
    return header->id;
}

// Conversations saved in the workspace, where each test can see and prepare them.
MainWindowFixture::Options savingInTheWorkspace()
{
    MainWindowFixture::Options options;
    options.savesInWorkspace = true;
    return options;
}

// Opens the window these tests look at: its conversation list checked by a model tester for as
// long as the list lives, its conversations begun with systemPrompt.
void openWindow(MainWindowFixture &f)
{
    f.openWindow();
    AgentOptions agent = f.window->controller().options();
    agent.systemPrompt = systemPrompt;
    f.window->controller().setOptions(agent);
    new QAbstractItemModelTester(f.window->conversationListModel(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 f.window->conversationListModel());
}

QString currentPath(const MainWindowFixture &f)
{
    return f.window->conversationStore().pathFor(f.window->currentConversationId());
}

QListView *conversationList(const MainWindowFixture &f)
{
    return f.window->conversationPanel()->listView();
}

} // namespace

class tst_Conversations : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void aRunIsSavedAsItGoes();
    void writeErrorIsShownOnceAndTheRunGoesOn();
    void searchFiltersByTitle();
    void reopenedConversationContinues();
    void renamePersists();
    void deleteAsksFirst();
    void longOutputIsKeptWithTheConversationAndDeletedWithIt();
    void interruptedTailIsRepairedVisibly();
    void exportsJsonAndMarkdown();
    void openingWaitsForTheRun();
    void aLongConversationShowsItsEndFirst();
    void aReaderWhoScrolledUpKeepsTheirPlace();
    void aPromptSentWhileEarlierMessagesArriveIsAnsweredAtTheEnd();
    void aConversationStillBeingReadIsSuperseded();
    void aConversationThatCannotBeReadKeepsTheOneShown();
    void bidiInTitlesAndSavedMessagesIsShownEscaped();
    void titleFromAPromptIsShownEscaped();

private:
    TemporarySettings m_settings;
};

void tst_Conversations::initTestCase()
{
    QApplication::setApplicationName(u"AgentLoopTests"_s);
}

void tst_Conversations::init()
{
    QFile::remove(Gui::AppSettings::settingsFilePath());
}

void tst_Conversations::aRunIsSavedAsItGoes()
{
    MainWindowFixture f(savingInTheWorkspace());
    QByteArray atFirstRequest;
    f.server.setHandler([&](const RecordedRequest &) {
        // What is on disk when the provider gets the request.
        const QList<ConversationHeader> saved
                = ConversationStore(f.windowOptions.conversationDirectory).list();
        if (saved.size() == 1 && atFirstRequest.isEmpty())
            atFirstRequest = readFile(
                    ConversationStore(f.windowOptions.conversationDirectory).pathFor(saved[0].id));
        return FakeResponse::answer(u"Hello there."_s);
    });
    openWindow(f);
    QCOMPARE(f.window->conversationsDock()->isVisible(), true);
    QCOMPARE(f.window->conversationListModel()->rowCount(), 0);

    f.sendPasted(u"Say hello\nand nothing else, please"_s);
    QTRY_COMPARE(f.server.requests().size(), 1);
    QTRY_VERIFY(!f.window->controller().isRunning());

    const QJsonArray early = messageLines(atFirstRequest);
    QCOMPARE(early.size(), 2);
    QCOMPARE(early[0].toObject().value(u"role"_s).toString(), u"system"_s);
    QCOMPARE(early[1].toObject().value(u"role"_s).toString(), u"user"_s);

    const QByteArray file = readFile(currentPath(f));
    QCOMPARE(messageLines(file), f.window->controller().history().toJson());
    QVERIFY(!file.contains(f.apiKey.toLatin1()));

    // The list shows it, named after the first line of the prompt, and marked as the open one.
    ConversationListModel *model = f.window->conversationListModel();
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex index = model->index(0);
    QCOMPARE(index.data(ConversationListModel::TitleRole).toString(), u"Say hello"_s);
    QCOMPARE(index.data(ConversationListModel::CurrentRole).toBool(), true);
    QCOMPARE(f.window->conversationPanel()->proxyModel()->rowCount(), 1);
}

void tst_Conversations::writeErrorIsShownOnceAndTheRunGoesOn()
{
    QTemporaryDir dir;
    const QString unwritable = uncreatableFolder(dir.path());
    QVERIFY(!unwritable.isEmpty());
    MainWindowFixture f(savingInTheWorkspace());
    f.windowOptions.conversationDirectory = unwritable;
    f.server.script({FakeResponse::answer(u"One."_s), FakeResponse::answer(u"Two."_s)});
    openWindow(f);
    f.sendPasted(u"first"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 1);
    f.sendPasted(u"second"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 2);

    const QList<ChatItem> errors = f.items(ChatItem::ErrorMessage);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].text.contains(QDir::toNativeSeparators(unwritable)),
             qPrintable(errors[0].text));
    QCOMPARE(f.items(ChatItem::AssistantText).size(), 2);
}

void tst_Conversations::searchFiltersByTitle()
{
    MainWindowFixture f(savingInTheWorkspace());
    QVERIFY(!writeConversation(f.windowOptions.conversationDirectory,
                               u"Fix the Apple build"_s,
                               {Message::user(u"a"_s)})
                     .isEmpty());
    QVERIFY(!writeConversation(f.windowOptions.conversationDirectory,
                               u"Refactor the parser"_s,
                               {Message::user(u"b"_s)})
                     .isEmpty());
    openWindow(f);
    QSortFilterProxyModel *proxy = f.window->conversationPanel()->proxyModel();
    QCOMPARE(proxy->rowCount(), 2);
    QTest::keyClicks(f.window->conversationPanel()->searchField(), u"aPPLE"_s);
    QCOMPARE(proxy->rowCount(), 1);
    QCOMPARE(proxy->index(0, 0).data(ConversationListModel::TitleRole).toString(),
             u"Fix the Apple build"_s);
    f.window->conversationPanel()->searchField()->clear();
    QCOMPARE(proxy->rowCount(), 2);
}

void tst_Conversations::reopenedConversationContinues()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeConversation(f.windowOptions.conversationDirectory,
                                         u"Old one"_s,
                                         {Message::system(systemPrompt),
                                          Message::user(u"What is 2 + 2?"_s),
                                          Message::assistant(u"4"_s)});
    QVERIFY(!id.isEmpty());
    f.server.script({FakeResponse::answer(u"8"_s)});
    openWindow(f);

    // Enter on the list's item opens it.
    QListView *list = conversationList(f);
    list->setFocus();
    list->setCurrentIndex(list->model()->index(0, 0));
    QTest::keyClick(list, Qt::Key_Return);
    QVERIFY(f.waitUntilOpened(id));
    QCOMPARE(f.window->controller().history().size(), 3);
    const QList<ChatItem> prompts = f.items(ChatItem::UserPrompt);
    QCOMPARE(prompts.size(), 1);
    QCOMPARE(prompts[0].text, u"What is 2 + 2?"_s);
    QCOMPARE(f.items(ChatItem::AssistantText).size(), 1);

    f.sendPasted(u"And doubled?"_s);
    QTRY_COMPARE(f.server.requests().size(), 1);
    QTRY_VERIFY(!f.window->controller().isRunning());
    const QJsonArray sent = f.server.requests()[0].messages();
    QCOMPARE(sent.size(), 4);
    QCOMPARE(sent[1].toObject().value(u"content"_s).toString(), u"What is 2 + 2?"_s);
    QCOMPARE(sent[3].toObject().value(u"content"_s).toString(), u"And doubled?"_s);
    // Continued in the same file.
    QCOMPARE(messageLines(readFile(currentPath(f))), f.window->controller().history().toJson());
    QCOMPARE(f.window->conversationListModel()->rowCount(), 1);
}

void tst_Conversations::renamePersists()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeConversation(f.windowOptions.conversationDirectory,
                                         u"Before"_s,
                                         {Message::user(u"x"_s)});
    openWindow(f);
    ConversationListModel *model = f.window->conversationListModel();
    QVERIFY(model->setData(model->index(0), u"After"_s, Qt::EditRole));
    QCOMPARE(model->index(0).data().toString(), u"After"_s);
    f.window->reloadConversations();
    QVERIFY(f.window->isListingConversations());
    QTRY_VERIFY(!f.window->isListingConversations());
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0).data().toString(), u"After"_s);
    QCOMPARE(ConversationStore(f.windowOptions.conversationDirectory).list().value(0).title,
             u"After"_s);
}

void tst_Conversations::deleteAsksFirst()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeConversation(f.windowOptions.conversationDirectory,
                                         u"Doomed"_s,
                                         {Message::user(u"x"_s)});
    openWindow(f);
    const QString path = f.window->conversationStore().pathFor(id);
    QVERIFY(f.openConversation(id));

    QListView *list = conversationList(f);
    list->setFocus();
    list->setCurrentIndex(list->model()->index(0, 0));
    QTest::keyClick(list, Qt::Key_Delete);
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = visibleMessageBox()));
    QVERIFY(box->text().contains(u"Delete “Doomed”? This cannot be undone."_s));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::No));
    box->button(QMessageBox::No)->click();
    QTRY_VERIFY(!visibleMessageBox());
    QVERIFY(QFile::exists(path));
    QCOMPARE(f.window->conversationListModel()->rowCount(), 1);

    f.window->conversationPanel()->deleteAction()->trigger();
    QTRY_VERIFY((box = visibleMessageBox()));
    box->button(QMessageBox::Yes)->click();
    QTRY_VERIFY(!QFile::exists(path));
    QCOMPARE(f.window->conversationListModel()->rowCount(), 0);
    // It was open: a new conversation took its place.
    QVERIFY(f.window->currentConversationId().isEmpty());
    QVERIFY(f.window->controller().history().isEmpty());
    QCOMPARE(f.window->chatModel()->rowCount(), 0);
}

void tst_Conversations::longOutputIsKeptWithTheConversationAndDeletedWithIt()
{
    MainWindowFixture f(savingInTheWorkspace());
    openWindow(f);
    const QString command = countingCommand(f.window->settings().workspace, 100000);
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(command)),
                     FakeResponse::answer(u"Counted."_s)});
    f.sendPasted(u"Count to 100000"_s);
    QVERIFY(f.waitForApproval());
    QVERIFY(f.allowPendingCall());
    QTRY_VERIFY_WITH_TIMEOUT(f.server.requests().size() == 2 && !f.window->controller().isRunning(),
                             Testing::hangGuardMs);

    // In the conversation's own folder, named after the call; the model is told where.
    const QString id = f.window->currentConversationId();
    QVERIFY(!id.isEmpty());
    const QString folder = QDir(f.windowOptions.outputDirectory).filePath(id);
    const QString path = QDir(folder).filePath(u"call_1.log"_s);
    const QList<ChatItem> results = f.items(ChatItem::ToolResult);
    QCOMPARE(results.size(), 1);
    QCOMPARE(results.at(0).outputFile.path, path);
    QVERIFY(results.at(0).outputFile.complete);
    QCOMPARE(QFileInfo(path).size(), 588895); // seq 1 100000 | wc -c
    const QString sent
            = f.server.requests().at(1).toolMessages().value(0).value(u"content"_s).toString();
    QVERIFY2(sent.endsWith(u"[The full output (588895 bytes) is in the file %1]"_s.arg(
                     QDir::toNativeSeparators(path))),
             qPrintable(sent.right(200)));

    f.window->conversationPanel()->deleteAction()->trigger();
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = visibleMessageBox()));
    box->button(QMessageBox::Yes)->click();
    QTRY_VERIFY(!QFile::exists(f.window->conversationStore().pathFor(id)));
    QVERIFY(!QFileInfo::exists(folder));
    QVERIFY(QFileInfo::exists(f.windowOptions.outputDirectory)); // other conversations' stay
}

void tst_Conversations::interruptedTailIsRepairedVisibly()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeConversation(f.windowOptions.conversationDirectory,
                                         u"Crashed"_s,
                                         {Message::user(u"list files"_s),
                                          Message::assistant(std::nullopt,
                                                             {ToolCall{u"call_1"_s,
                                                                       u"shell"_s,
                                                                       uR"({"command":"ls"})"_s}})});
    QVERIFY(!id.isEmpty());
    {
        // A torn last line, as a kill -9 mid-write leaves it.
        QFile file(ConversationStore(f.windowOptions.conversationDirectory).pathFor(id));
        QVERIFY(file.open(QIODevice::Append));
        file.write(R"({"role":"tool","tool_call_id":"call_1","cont)");
    }
    openWindow(f);
    QVERIFY(f.openConversation(id));
    QVERIFY(f.window->controller().history().checkPairing().hasValue());
    const QList<ChatItem> notices = f.items(ChatItem::Notice);
    QVERIFY(!notices.isEmpty());
    for (const ChatItem &notice : notices)
        QVERIFY2(notice.text.startsWith(u"Repaired: "_s), qPrintable(notice.text));
    QCOMPARE(f.items(ChatItem::ToolCall).size(), 1);
    QCOMPARE(f.items(ChatItem::ToolResult).size(), 1);
}

void tst_Conversations::exportsJsonAndMarkdown()
{
    MainWindowFixture f(savingInTheWorkspace());
    f.server.script({FakeResponse::answer(u"Exported answer."_s)});
    openWindow(f);
    f.sendPasted(u"Export me"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 1);

    QTemporaryDir out;
    const QString json = out.filePath(u"messages.json"_s);
    QVERIFY(f.window->exportConversation(MainWindow::ExportFormat::MessagesJson, json).hasValue());
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(readFile(json), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(document.array(), f.window->controller().history().toJson());

    const QString markdown = out.filePath(u"conversation.md"_s);
    QVERIFY(f.window->exportConversation(MainWindow::ExportFormat::Markdown, markdown).hasValue());
    const QString text = QString::fromUtf8(readFile(markdown));
    QVERIFY(text.contains(u"Export me"_s));
    QVERIFY(text.contains(u"Exported answer."_s));
    QVERIFY(!text.contains(f.apiKey));

    // The menu's way: a file dialog that does not block.
    QVERIFY(!f.window->exportConversation(MainWindow::ExportFormat::Markdown,
                                          out.filePath(u"missing/x.md"_s))
                     .hasValue());
    f.window->exportConversationAs(MainWindow::ExportFormat::MessagesJson);
    QFileDialog *dialog = f.window->exportDialog();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QCOMPARE(dialog->acceptMode(), QFileDialog::AcceptSave);
    dialog->reject();
}

void tst_Conversations::openingWaitsForTheRun()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeConversation(f.windowOptions.conversationDirectory,
                                         u"Other"_s,
                                         {Message::user(u"x"_s)});
    f.server.script({FakeResponse::neverAnswer()});
    openWindow(f);
    f.sendPasted(u"slow"_s);
    QTRY_VERIFY(f.window->controller().isRunning() && f.server.requests().size() == 1);
    QCOMPARE(f.window->conversationPanel()->openAction()->isEnabled(), false);
    f.window->openConversation(id);
    QVERIFY(f.window->currentConversationId() != id);
    f.window->stop();
    QTRY_VERIFY(!f.window->controller().isRunning());
    QVERIFY(f.openConversation(id));
}

namespace {

// A saved conversation of longRows rows: "Question i" and "Answer i", i from 0 to 1 499.
constexpr int longRows = 3000;
QString writeLongConversation(const MainWindowFixture &f)
{
    QList<Message> messages;
    for (int i = 0; i < longRows / 2; ++i) {
        messages << Message::user(u"Question %1"_s.arg(i))
                 << Message::assistant(u"Answer %1"_s.arg(i));
    }
    return writeConversation(f.windowOptions.conversationDirectory, u"Long"_s, messages);
}

QString rowText(int row)
{
    return (row % 2 ? u"Answer %1"_s : u"Question %1"_s).arg(row / 2);
}

QString topRowText(const Gui::ChatView *view)
{
    return view->indexAt(QPoint(view->viewport()->width() / 2, 1)).data().toString();
}

} // namespace

void tst_Conversations::aLongConversationShowsItsEndFirst()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeLongConversation(f);
    QVERIFY(!id.isEmpty());
    openWindow(f);
    f.window->promptEdit()->setPlainText(u"waiting"_s);
    ChatModel *chat = f.chat();
    QList<std::pair<int, int>> inserts; // first row, rows
    QString lastRowAtFirstInsert;
    connect(chat,
            &QAbstractItemModel::rowsInserted,
            f.window.get(),
            [&](const QModelIndex &, int first, int last) {
                inserts.append({first, last - first + 1});
                if (inserts.size() == 1)
                    lastRowAtFirstInsert = chat->item(chat->rowCount() - 1).text;
            });
    f.window->openConversation(id);
    // It is read on another thread: meanwhile the window says so, and nothing can be sent.
    QCOMPARE(f.window->statusText(), u"Opening “Long”…"_s);
    QVERIFY(!f.window->sendButton()->isEnabled());
    QVERIFY(f.waitUntilOpened(id));
    QCOMPARE(f.window->statusText(), u"Opened “Long”"_s);
    QVERIFY(f.window->sendButton()->isEnabled());

    // The last screen first, in one insertion; then the earlier messages above it, in batches.
    QCOMPARE(lastRowAtFirstInsert, u"Answer 1499"_s);
    QCOMPARE(inserts.first(), std::make_pair(0, int(Gui::RunFeed::lastScreenEntries)));
    QVERIFY2(inserts.size() > 2, qPrintable(QString::number(inserts.size())));
    for (qsizetype i = 1; i < inserts.size(); ++i)
        QCOMPARE(inserts.at(i).first, 0);
    QCOMPARE(chat->rowCount(), longRows);
    for (int row = 0; row < chat->rowCount(); ++row)
        QCOMPARE(chat->item(row).text, rowText(row));
    // The reader was at the end and still is.
    const QScrollBar *bar = f.window->chatView()->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0 && bar->value() >= bar->maximum() - 2);
    QCOMPARE(f.window->controller().history().size(), longRows);
}

void tst_Conversations::aReaderWhoScrolledUpKeepsTheirPlace()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString id = writeLongConversation(f);
    QVERIFY(!id.isEmpty());
    openWindow(f);
    Gui::ChatView *view = f.window->chatView();
    QString readAtTop;
    // As soon as the last screen is shown, the user scrolls to its top, while the earlier
    // messages are still arriving above it.
    connect(f.window->runFeed(), &Gui::RunFeed::opened, f.window.get(), [&] {
        QTimer::singleShot(0, f.window.get(), [&] {
            QVERIFY(f.window->runFeed()->isShowingEarlierEntries());
            view->scrollToTop();
            readAtTop = topRowText(view);
        });
    });
    f.window->openConversation(id);
    QVERIFY(f.waitUntilOpened(id));
    QVERIFY(!readAtTop.isEmpty());
    QCoreApplication::processEvents();
    QCOMPARE(f.chat()->rowCount(), longRows);
    // What they read is still where it was, with everything before it above.
    QCOMPARE(topRowText(view), readAtTop);
    QVERIFY(view->verticalScrollBar()->value() > 0);
    QVERIFY(readAtTop != rowText(0));
}

void tst_Conversations::aPromptSentWhileEarlierMessagesArriveIsAnsweredAtTheEnd()
{
    MainWindowFixture f(savingInTheWorkspace());
    f.settings.stream = true;
    const QString id = writeLongConversation(f);
    QVERIFY(!id.isEmpty());
    QStringList pieces;
    for (int i = 0; i < 40; ++i)
        pieces << u"piece %1 "_s.arg(i);
    f.server.script({FakeResponse::streamedAnswer(pieces)});
    openWindow(f);
    bool sentEarly = false;
    connect(f.window->runFeed(), &Gui::RunFeed::opened, f.window.get(), [&] {
        QTimer::singleShot(0, f.window.get(), [&] {
            sentEarly = f.window->runFeed()->isShowingEarlierEntries();
            f.sendPasted(u"And now?"_s);
        });
    });
    f.window->openConversation(id);
    QVERIFY(f.waitUntilOpened(id));
    QVERIFY(f.waitUntilFinished());
    QVERIFY(sentEarly);
    // The streamed answer grew in its own row at the end, whatever arrived above it.
    ChatModel *chat = f.chat();
    QCOMPARE(chat->rowCount(), longRows + 2);
    QCOMPARE(chat->item(longRows).text, u"And now?"_s);
    QCOMPARE(chat->item(longRows + 1).text, pieces.join(QString()));
    QCOMPARE(chat->item(longRows + 1).stream, ChatItem::Stream::Complete);
    for (int row = 0; row < longRows; ++row)
        QCOMPARE(chat->item(row).text, rowText(row));
    QCOMPARE(f.server.requests().size(), 1);
    QCOMPARE(f.server.requests().first().messages().size(), longRows + 1);
}

void tst_Conversations::aConversationStillBeingReadIsSuperseded()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString first = writeLongConversation(f);
    const QString second = writeConversation(f.windowOptions.conversationDirectory,
                                             u"Short"_s,
                                             {Message::user(u"short one"_s)});
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    openWindow(f);

    // A second click before the first conversation is read: the second one opens.
    f.window->openConversation(first);
    QVERIFY(f.openConversation(second));
    QTest::qWait(300);
    QCOMPARE(f.window->currentConversationId(), second);
    QCOMPARE(f.chat()->rowCount(), 1);
    QCOMPARE(f.chat()->item(0).text, u"short one"_s);

    // A new conversation before it is read: it stays new.
    f.window->openConversation(first);
    f.window->newConversation();
    QTest::qWait(300);
    QVERIFY(f.window->currentConversationId().isEmpty());
    QCOMPARE(f.chat()->rowCount(), 0);
    QVERIFY(f.window->runFeed()->openingId().isEmpty());
}

void tst_Conversations::aConversationThatCannotBeReadKeepsTheOneShown()
{
    MainWindowFixture f(savingInTheWorkspace());
    const QString shown = writeConversation(f.windowOptions.conversationDirectory,
                                            u"Shown"_s,
                                            {Message::user(u"still here"_s)});
    const QString gone = writeConversation(f.windowOptions.conversationDirectory,
                                           u"Gone"_s,
                                           {Message::user(u"x"_s)});
    QVERIFY(!shown.isEmpty() && !gone.isEmpty());
    openWindow(f);
    QVERIFY(f.openConversation(shown));
    // Deleted by another program after it was listed.
    QVERIFY(QFile::remove(f.window->conversationStore().pathFor(gone)));
    f.window->promptEdit()->setPlainText(u"next task"_s);
    f.window->openConversation(gone);
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = visibleMessageBox()));
    QVERIFY2(box->text().contains(
                     QDir::toNativeSeparators(f.window->conversationStore().pathFor(gone))),
             qPrintable(box->text()));
    box->button(QMessageBox::Ok)->click();
    QCOMPARE(f.window->currentConversationId(), shown);
    QCOMPARE(f.chat()->rowCount(), 1);
    QCOMPARE(f.chat()->item(0).text, u"still here"_s);
    QCOMPARE(f.window->conversationPanel()
                     ->listView()
                     ->currentIndex()
                     .data(ConversationListModel::IdRole)
                     .toString(),
             shown);
    // The prompt waited, and can go now.
    QVERIFY(f.window->sendButton()->isEnabled());
    QCOMPARE(f.window->statusText(), u"Ready"_s);

    // A file whose end reads well but whose whole does not (a result no call asked for): its end
    // may show for a moment, then the conversation shown before comes back as it was.
    QList<Message> broken;
    for (int i = 0; i < 3000; ++i)
        broken << Message::user(u"q %1"_s.arg(i)) << Message::assistant(u"a %1"_s.arg(i));
    broken.insert(1, Message::tool(u"call_orphan"_s, u"no call asked for this"_s));
    const QString unpaired = writeConversation(f.windowOptions.conversationDirectory,
                                               u"Unpaired"_s,
                                               broken);
    QVERIFY(!unpaired.isEmpty());
    f.window->reloadConversations();
    QTRY_VERIFY(!f.window->isListingConversations());
    f.window->openConversation(unpaired);
    QTRY_VERIFY((box = visibleMessageBox()));
    QVERIFY2(box->text().contains(u"call_orphan"_s), qPrintable(box->text()));
    box->button(QMessageBox::Ok)->click();
    QCOMPARE(f.window->currentConversationId(), shown);
    QCOMPARE(f.chat()->rowCount(), 1);
    QCOMPARE(f.chat()->item(0).text, u"still here"_s);
    QVERIFY(f.window->sendButton()->isEnabled());
}

void tst_Conversations::bidiInTitlesAndSavedMessagesIsShownEscaped()
{
    MainWindowFixture f(savingInTheWorkspace());
    // A file anyone may have written: "Invoice \u202Efdp.exe" reads "Invoice exe.pdf".
    const QString title = u"Invoice \u202Efdp.exe <b>now</b>"_s;
    const QString id
            = writeConversation(f.windowOptions.conversationDirectory,
                                title,
                                {Message::user(u"open \u202Efdp.exe"_s),
                                 Message::assistant(std::nullopt,
                                                    {ToolCall{u"call_1"_s,
                                                              u"shell\u2066"_s,
                                                              u"{\"command\":\"ls \u202E-la\"}"_s}}),
                                 Message::tool(u"call_1"_s, u"a\u2028b"_s),
                                 Message::assistant(u"Done \u2067x\u2069"_s)});
    QVERIFY(!id.isEmpty());
    openWindow(f);
    ConversationListModel *model = f.window->conversationListModel();
    const QString shown = u"Invoice ⟨U+202E⟩fdp.exe <b>now</b>"_s;
    QCOMPARE(model->index(0).data().toString(), shown);
    QCOMPARE(model->index(0).data(ConversationListModel::TitleRole).toString(), shown);
    QVERIFY(model->index(0).data(Qt::AccessibleTextRole).toString().startsWith(shown));
    // The tooltip starts like HTML: it is escaped, not rendered.
    const QString tip = model->index(0).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(u"Invoice ⟨U+202E⟩fdp.exe &lt;b&gt;now&lt;/b&gt;"_s), qPrintable(tip));
    // What the list's index says of the file: its messages and size.
    QVERIFY2(tip.contains(u"4 message(s), "_s), qPrintable(tip));
    QVERIFY2(tip.contains(QLocale().formattedDataSize(
                     QFileInfo(f.windowOptions.conversationDirectory + u'/' + id + u".jsonl"_s)
                             .size())),
             qPrintable(tip));

    QVERIFY(f.openConversation(id));
    QCOMPARE(f.window->statusText(), u"Opened “Invoice ⟨U+202E⟩fdp.exe <b>now</b>”"_s);
    const ChatModel *chat = f.window->chatModel();
    QCOMPARE(chat->rowCount(), 4);
    QCOMPARE(chat->index(0, 0).data().toString(), u"open ⟨U+202E⟩fdp.exe"_s);
    QCOMPARE(chat->index(1, 0).data().toString(),
             u"shell⟨U+2066⟩\n{\n  \"command\": \"ls ⟨U+202E⟩-la\"\n}"_s);
    QCOMPARE(chat->index(2, 0).data().toString(), u"a⟨U+2028⟩b"_s);
    QCOMPARE(chat->index(2, 0).data(Qt::AccessibleDescriptionRole).toString(),
             u"Result of shell⟨U+2066⟩"_s);
    QCOMPARE(chat->index(3, 0).data(ChatModel::TextRole).toString(), u"Done ⟨U+2067⟩x⟨U+2069⟩"_s);

    // Deleting asks with the title as the list shows it, as plain text.
    f.window->conversationPanel()->deleteAction()->trigger();
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = visibleMessageBox()));
    QCOMPARE(box->textFormat(), Qt::PlainText);
    QVERIFY2(box->text().contains(u"Delete “Invoice ⟨U+202E⟩fdp.exe <b>now</b>”?"_s),
             qPrintable(box->text()));
    box->button(QMessageBox::No)->click();
    QTRY_VERIFY(!visibleMessageBox());

    // An export is no screen: it has the exact text.
    QTemporaryDir out;
    const QString markdown = out.filePath(u"conversation.md"_s);
    QVERIFY(f.window->exportConversation(MainWindow::ExportFormat::Markdown, markdown).hasValue());
    QVERIFY(QString::fromUtf8(readFile(markdown)).contains(u"open \u202Efdp.exe"_s));
    QCOMPARE(ConversationStore(f.windowOptions.conversationDirectory).list().value(0).title, title);
}

void tst_Conversations::titleFromAPromptIsShownEscaped()
{
    MainWindowFixture f(savingInTheWorkspace());
    f.server.script({FakeResponse::answer(u"Fine."_s)});
    openWindow(f);
    f.sendPasted(u"Rename \u202Egnp.exe\u202C please"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 1);
    ConversationListModel *model = f.window->conversationListModel();
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0).data().toString(), u"Rename ⟨U+202E⟩gnp.exe⟨U+202C⟩ please"_s);
    // The file keeps the title as it was made, and the provider got the prompt as it was typed.
    QCOMPARE(ConversationStore(f.windowOptions.conversationDirectory).list().value(0).title,
             u"Rename \u202Egnp.exe\u202C please"_s);
    QCOMPARE(f.server.requests()[0].messages().last().toObject().value(u"content"_s).toString(),
             u"Rename \u202Egnp.exe\u202C please"_s);
}

AGENTLOOP_TEST_MAIN(QApplication, tst_Conversations)
#include "tst_conversations.moc"
