#include "chat/chatmodel.h"
#include "chat/promptedit.h"
#include "conversations/conversationlistmodel.h"
#include "conversations/conversationpanel.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "keystore.h"
#include "longoutput.h"
#include "mainwindow.h"
#include "settings/appsettings.h"
#include "storage/conversationstore.h"
#include "testjson.h"
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
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;
using Gui::ChatModel;
using Gui::ConversationListModel;
using Gui::MainWindow;

namespace {

const QString apiKey = u"sk-conversation-test-secret-93b1"_s;
const QString systemPrompt = u"You are a careful coding agent."_s;

QMessageBox *visibleMessageBox()
{
    for (QWidget *widget : QApplication::topLevelWidgets()) {
        if (auto *box = qobject_cast<QMessageBox *>(widget); box && box->isVisible())
            return box;
    }
    return nullptr;
}

QList<ChatItem> itemsOf(const ChatModel *model, ChatItem::Kind kind)
{
    QList<ChatItem> items;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).kind == kind)
            items << model->item(row);
    }
    return items;
}

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

struct Fixture
{
    explicit Fixture(const QString &directory = {})
        : keyStore(Gui::KeyStore::Backend::SessionOnly, u"agentloop-tests"_s)
    {
        server.setRequiredApiKey(apiKey.toLatin1());
        storeDirectory = directory.isEmpty() ? store.filePath(u"conversations"_s) : directory;
    }

    void createWindow()
    {
        Gui::AppSettings settings;
        settings.baseUrl = server.baseUrl().toString();
        settings.apiKey = apiKey;
        settings.model = u"gpt-test"_s;
        settings.workspace = store.path();
        settings.maxTurns = 5;
        settings.requestTimeoutSeconds = 30;
        MainWindow::Options options;
        options.commandRunner = runner;
        options.keyStore = &keyStore;
        options.persist = false;
        options.conversationDirectory = storeDirectory;
        options.outputDirectory = store.filePath(u"outputs"_s);
        window = std::make_unique<MainWindow>(settings, options);
        AgentOptions agent = window->controller().options();
        agent.systemPrompt = systemPrompt;
        window->controller().setOptions(agent);
        tester = std::make_unique<QAbstractItemModelTester>(
                window->conversationListModel(),
                QAbstractItemModelTester::FailureReportingMode::QtTest);
        window->show();
    }

    void type(const QString &prompt)
    {
        window->promptEdit()->setPlainText(prompt);
        QTest::keyClick(window->promptEdit(), Qt::Key_Return);
    }

    QString currentPath() const
    {
        return window->conversationStore().pathFor(window->currentConversationId());
    }

    QListView *list() const { return window->conversationPanel()->listView(); }

    Gui::KeyStore keyStore;
    FakeChatServer server;
    QTemporaryDir store;
    QString storeDirectory;
    std::shared_ptr<CommandRunner> runner = std::make_shared<FakeCommandRunner>();
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<QAbstractItemModelTester> tester;
};

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
    void tenThousandMessagesOpenInOneInsertion();
    void bidiInTitlesAndSavedMessagesIsShownEscaped();
    void titleFromAPromptIsShownEscaped();
};

void tst_Conversations::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setApplicationName(u"AgentLoopTests"_s);
}

void tst_Conversations::init()
{
    QFile::remove(Gui::AppSettings::settingsFilePath());
}

void tst_Conversations::aRunIsSavedAsItGoes()
{
    Fixture f;
    QByteArray atFirstRequest;
    f.server.setHandler([&](const RecordedRequest &) {
        // What is on disk when the provider gets the request.
        const QList<ConversationHeader> saved = ConversationStore(f.storeDirectory).list();
        if (saved.size() == 1 && atFirstRequest.isEmpty())
            atFirstRequest = readFile(ConversationStore(f.storeDirectory).pathFor(saved[0].id));
        return FakeResponse::answer(u"Hello there."_s);
    });
    f.createWindow();
    QCOMPARE(f.window->conversationsDock()->isVisible(), true);
    QCOMPARE(f.window->conversationListModel()->rowCount(), 0);

    f.type(u"Say hello\nand nothing else, please"_s);
    QTRY_COMPARE(f.server.requests().size(), 1);
    QTRY_VERIFY(!f.window->controller().isRunning());

    const QJsonArray early = messageLines(atFirstRequest);
    QCOMPARE(early.size(), 2);
    QCOMPARE(early[0].toObject().value(u"role"_s).toString(), u"system"_s);
    QCOMPARE(early[1].toObject().value(u"role"_s).toString(), u"user"_s);

    const QByteArray file = readFile(f.currentPath());
    QCOMPARE(messageLines(file), f.window->controller().history().toJson());
    QVERIFY(!file.contains(apiKey.toLatin1()));

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
    Fixture f(unwritable);
    f.server.script({FakeResponse::answer(u"One."_s), FakeResponse::answer(u"Two."_s)});
    f.createWindow();
    f.type(u"first"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 1);
    f.type(u"second"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 2);

    const QList<ChatItem> errors = itemsOf(f.window->chatModel(), ChatItem::ErrorMessage);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].text.contains(QDir::toNativeSeparators(unwritable)),
             qPrintable(errors[0].text));
    QCOMPARE(itemsOf(f.window->chatModel(), ChatItem::AssistantText).size(), 2);
}

void tst_Conversations::searchFiltersByTitle()
{
    Fixture f;
    QVERIFY(!writeConversation(f.storeDirectory, u"Fix the Apple build"_s, {Message::user(u"a"_s)})
                     .isEmpty());
    QVERIFY(!writeConversation(f.storeDirectory, u"Refactor the parser"_s, {Message::user(u"b"_s)})
                     .isEmpty());
    f.createWindow();
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
    Fixture f;
    const QString id = writeConversation(f.storeDirectory,
                                         u"Old one"_s,
                                         {Message::system(systemPrompt),
                                          Message::user(u"What is 2 + 2?"_s),
                                          Message::assistant(u"4"_s)});
    QVERIFY(!id.isEmpty());
    f.server.script({FakeResponse::answer(u"8"_s)});
    f.createWindow();

    // Enter on the list's item opens it.
    QListView *list = f.list();
    list->setFocus();
    list->setCurrentIndex(list->model()->index(0, 0));
    QTest::keyClick(list, Qt::Key_Return);
    QCOMPARE(f.window->currentConversationId(), id);
    QCOMPARE(f.window->controller().history().size(), 3);
    const QList<ChatItem> prompts = itemsOf(f.window->chatModel(), ChatItem::UserPrompt);
    QCOMPARE(prompts.size(), 1);
    QCOMPARE(prompts[0].text, u"What is 2 + 2?"_s);
    QCOMPARE(itemsOf(f.window->chatModel(), ChatItem::AssistantText).size(), 1);

    f.type(u"And doubled?"_s);
    QTRY_COMPARE(f.server.requests().size(), 1);
    QTRY_VERIFY(!f.window->controller().isRunning());
    const QJsonArray sent = f.server.requests()[0].messages();
    QCOMPARE(sent.size(), 4);
    QCOMPARE(sent[1].toObject().value(u"content"_s).toString(), u"What is 2 + 2?"_s);
    QCOMPARE(sent[3].toObject().value(u"content"_s).toString(), u"And doubled?"_s);
    // Continued in the same file.
    QCOMPARE(messageLines(readFile(f.currentPath())), f.window->controller().history().toJson());
    QCOMPARE(f.window->conversationListModel()->rowCount(), 1);
}

void tst_Conversations::renamePersists()
{
    Fixture f;
    const QString id = writeConversation(f.storeDirectory, u"Before"_s, {Message::user(u"x"_s)});
    f.createWindow();
    ConversationListModel *model = f.window->conversationListModel();
    QVERIFY(model->setData(model->index(0), u"After"_s, Qt::EditRole));
    QCOMPARE(model->index(0).data().toString(), u"After"_s);
    f.window->reloadConversations();
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0).data().toString(), u"After"_s);
    QCOMPARE(ConversationStore(f.storeDirectory).list().value(0).title, u"After"_s);
}

void tst_Conversations::deleteAsksFirst()
{
    Fixture f;
    const QString id = writeConversation(f.storeDirectory, u"Doomed"_s, {Message::user(u"x"_s)});
    f.createWindow();
    const QString path = f.window->conversationStore().pathFor(id);
    f.window->openConversation(id);
    QCOMPARE(f.window->currentConversationId(), id);

    QListView *list = f.list();
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
    Fixture f;
    f.runner = std::make_shared<ProcessCommandRunner>();
    f.createWindow();
    const QString command = countingCommand(f.window->settings().workspace, 100000);
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(command)),
                     FakeResponse::answer(u"Counted."_s)});
    f.type(u"Count to 100000"_s);
    QMessageBox *box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = visibleMessageBox()) != nullptr, 10000);
    auto *allow = box->findChild<QPushButton *>(u"approvalAllow"_s);
    QVERIFY(allow);
    QTRY_VERIFY(allow->isEnabled()); // Allow wakes after a short delay
    allow->click();
    QTRY_VERIFY_WITH_TIMEOUT(f.server.requests().size() == 2 && !f.window->controller().isRunning(),
                             15000);

    // In the conversation's own folder, named after the call; the model is told where.
    const QString id = f.window->currentConversationId();
    QVERIFY(!id.isEmpty());
    const QString folder = f.store.filePath(u"outputs/"_s + id);
    const QString path = QDir(folder).filePath(u"call_1.log"_s);
    const QList<ChatItem> results = itemsOf(f.window->chatModel(), ChatItem::ToolResult);
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
    QTRY_VERIFY((box = visibleMessageBox()));
    box->button(QMessageBox::Yes)->click();
    QTRY_VERIFY(!QFile::exists(f.window->conversationStore().pathFor(id)));
    QVERIFY(!QFileInfo::exists(folder));
    QVERIFY(QFileInfo::exists(f.store.filePath(u"outputs"_s))); // other conversations' stay
}

void tst_Conversations::interruptedTailIsRepairedVisibly()
{
    Fixture f;
    const QString id = writeConversation(f.storeDirectory,
                                         u"Crashed"_s,
                                         {Message::user(u"list files"_s),
                                          Message::assistant(std::nullopt,
                                                             {ToolCall{u"call_1"_s,
                                                                       u"shell"_s,
                                                                       uR"({"command":"ls"})"_s}})});
    QVERIFY(!id.isEmpty());
    {
        // A torn last line, as a kill -9 mid-write leaves it.
        QFile file(ConversationStore(f.storeDirectory).pathFor(id));
        QVERIFY(file.open(QIODevice::Append));
        file.write(R"({"role":"tool","tool_call_id":"call_1","cont)");
    }
    f.createWindow();
    f.window->openConversation(id);
    QCOMPARE(f.window->currentConversationId(), id);
    QVERIFY(f.window->controller().history().checkPairing().hasValue());
    const QList<ChatItem> notices = itemsOf(f.window->chatModel(), ChatItem::Notice);
    QVERIFY(!notices.isEmpty());
    for (const ChatItem &notice : notices)
        QVERIFY2(notice.text.startsWith(u"Repaired: "_s), qPrintable(notice.text));
    QCOMPARE(itemsOf(f.window->chatModel(), ChatItem::ToolCall).size(), 1);
    QCOMPARE(itemsOf(f.window->chatModel(), ChatItem::ToolResult).size(), 1);
}

void tst_Conversations::exportsJsonAndMarkdown()
{
    Fixture f;
    f.server.script({FakeResponse::answer(u"Exported answer."_s)});
    f.createWindow();
    f.type(u"Export me"_s);
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
    QVERIFY(!text.contains(apiKey));

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
    Fixture f;
    const QString id = writeConversation(f.storeDirectory, u"Other"_s, {Message::user(u"x"_s)});
    f.server.script({FakeResponse::neverAnswer()});
    f.createWindow();
    f.type(u"slow"_s);
    QTRY_VERIFY(f.window->controller().isRunning() && f.server.requests().size() == 1);
    QCOMPARE(f.window->conversationPanel()->openAction()->isEnabled(), false);
    f.window->openConversation(id);
    QVERIFY(f.window->currentConversationId() != id);
    f.window->stop();
    QTRY_VERIFY(!f.window->controller().isRunning());
    f.window->openConversation(id);
    QCOMPARE(f.window->currentConversationId(), id);
}

void tst_Conversations::tenThousandMessagesOpenInOneInsertion()
{
    Fixture f;
    QList<Message> messages;
    for (int i = 0; i < 5000; ++i) {
        messages << Message::user(u"Question %1"_s.arg(i))
                 << Message::assistant(u"Answer %1"_s.arg(i));
    }
    const QString id = writeConversation(f.storeDirectory, u"Long"_s, messages);
    QVERIFY(!id.isEmpty());
    f.createWindow();
    int inserts = 0;
    connect(f.window->chatModel(), &QAbstractItemModel::rowsInserted, f.window.get(), [&] {
        ++inserts;
    });
    f.window->openConversation(id);
    QCoreApplication::processEvents();
    // One insertion for the whole history, not one per message (how long it takes is the
    // benchmark's business, not a test's).
    QCOMPARE(f.window->chatModel()->rowCount(), 10000);
    QCOMPARE(inserts, 1);
}

void tst_Conversations::bidiInTitlesAndSavedMessagesIsShownEscaped()
{
    Fixture f;
    // A file anyone may have written: "Invoice \u202Efdp.exe" reads "Invoice exe.pdf".
    const QString title = u"Invoice \u202Efdp.exe <b>now</b>"_s;
    const QString id
            = writeConversation(f.storeDirectory,
                                title,
                                {Message::user(u"open \u202Efdp.exe"_s),
                                 Message::assistant(std::nullopt,
                                                    {ToolCall{u"call_1"_s,
                                                              u"shell\u2066"_s,
                                                              u"{\"command\":\"ls \u202E-la\"}"_s}}),
                                 Message::tool(u"call_1"_s, u"a\u2028b"_s),
                                 Message::assistant(u"Done \u2067x\u2069"_s)});
    QVERIFY(!id.isEmpty());
    f.createWindow();
    ConversationListModel *model = f.window->conversationListModel();
    const QString shown = u"Invoice ⟨U+202E⟩fdp.exe <b>now</b>"_s;
    QCOMPARE(model->index(0).data().toString(), shown);
    QCOMPARE(model->index(0).data(ConversationListModel::TitleRole).toString(), shown);
    QVERIFY(model->index(0).data(Qt::AccessibleTextRole).toString().startsWith(shown));
    // The tooltip starts like HTML: it is escaped, not rendered.
    const QString tip = model->index(0).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(u"Invoice ⟨U+202E⟩fdp.exe &lt;b&gt;now&lt;/b&gt;"_s), qPrintable(tip));

    f.window->openConversation(id);
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
    QCOMPARE(ConversationStore(f.storeDirectory).list().value(0).title, title);
}

void tst_Conversations::titleFromAPromptIsShownEscaped()
{
    Fixture f;
    f.server.script({FakeResponse::answer(u"Fine."_s)});
    f.createWindow();
    f.type(u"Rename \u202Egnp.exe\u202C please"_s);
    QTRY_VERIFY(!f.window->controller().isRunning() && f.server.requests().size() == 1);
    ConversationListModel *model = f.window->conversationListModel();
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0).data().toString(), u"Rename ⟨U+202E⟩gnp.exe⟨U+202C⟩ please"_s);
    // The file keeps the title as it was made, and the provider got the prompt as it was typed.
    QCOMPARE(ConversationStore(f.storeDirectory).list().value(0).title,
             u"Rename \u202Egnp.exe\u202C please"_s);
    QCOMPARE(f.server.requests()[0].messages().last().toObject().value(u"content"_s).toString(),
             u"Rename \u202Egnp.exe\u202C please"_s);
}

QTEST_MAIN(tst_Conversations)
#include "tst_conversations.moc"
