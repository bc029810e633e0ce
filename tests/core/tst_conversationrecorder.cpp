// ConversationRecorder: what the loop appends reaches the conversation file, from the first
// prompt on; saved conversations are continued and repaired; a failure to write is reported
// once and loses nothing already saved.

#include "agent/conversationrecorder.h"
#include "testmain.h"
#include "testpaths.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_ConversationRecorder : public QObject
{
    Q_OBJECT

private slots:
    void init();

    void newConversationStartsAtTheFirstPrompt();
    void everyMessageIsSavedInOrder();
    void nothingIsSavedWhenNewConversationsAreOff();
    void titleIsTheFirstLineOfThePrompt_data();
    void titleIsTheFirstLineOfThePrompt();
    void openedConversationIsRepairedAndContinued();
    void openedFileByPathIsContinued();
    void openingAMissingConversationFails();
    void failureIsReportedOnceAndTheNextConversationSavesAgain();
    void stopWritingLeavesTheFileAsItWas();
    void titledHeaderNamesAnUnsavedConversation();

private:
    ProviderSettings provider() const;
    ConversationStore store() const;

    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_ConversationRecorder::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

ProviderSettings tst_ConversationRecorder::provider() const
{
    ProviderSettings settings;
    settings.baseUrl = QUrl(u"http://127.0.0.1:9/v1"_s);
    settings.model = u"gpt-test"_s;
    settings.apiKey = u"sk-never-written"_s;
    return settings;
}

ConversationStore tst_ConversationRecorder::store() const
{
    return ConversationStore(m_dir->filePath(u"conversations"_s), m_dir->filePath(u"outputs"_s));
}

void tst_ConversationRecorder::newConversationStartsAtTheFirstPrompt()
{
    ConversationRecorder recorder(store());
    QSignalSpy created(&recorder, &ConversationRecorder::created);

    // A system message alone makes no file: a conversation without a prompt is not one.
    QVERIFY(recorder.record(Message::system(u"You are a coding agent."_s), provider()).hasValue());
    QVERIFY(recorder.header().id.isEmpty());
    QVERIFY(store().list().isEmpty());
    QCOMPARE(created.size(), 0);

    QVERIFY(recorder.record(Message::user(u"list the files"_s), provider()).hasValue());
    QCOMPARE(created.size(), 1);
    const auto header = created.at(0).at(0).value<ConversationHeader>();
    QVERIFY(!header.id.isEmpty());
    QCOMPARE(recorder.header().id, header.id);
    QCOMPARE(header.title, u"list the files"_s);
    QCOMPARE(header.model, u"gpt-test"_s);

    const QList<ConversationHeader> listed = store().list();
    QCOMPARE(listed.size(), 1);
    QCOMPARE(listed.first().id, header.id);
    QCOMPARE(listed.first().baseUrl, u"http://127.0.0.1:9/v1"_s);

    // Both messages, the waiting system message first.
    const auto loaded = store().load(header.id);
    QVERIFY(loaded.hasValue());
    QCOMPARE(loaded->history.size(), 2);
    QCOMPARE(loaded->history.messages().at(0).role(), Role::System);
    QCOMPARE(loaded->history.messages().at(1).content(), u"list the files"_s);
}

void tst_ConversationRecorder::everyMessageIsSavedInOrder()
{
    ConversationRecorder recorder(store());
    QSignalSpy saved(&recorder, &ConversationRecorder::saved);
    const QString arguments = uR"({"command":"ls"})"_s;
    const QList<Message> messages{
            Message::user(u"list the files"_s),
            Message::assistant(std::nullopt, {ToolCall{u"call_1"_s, u"shell"_s, arguments}}),
            Message::tool(u"call_1"_s, u"a.txt\nb.txt"_s),
            Message::assistant(u"Two files."_s),
    };
    for (const Message &message : messages)
        QVERIFY(recorder.record(message, provider()).hasValue());
    // The first created the file; each later one is reported as saved.
    QCOMPARE(saved.size(), 3);
    QCOMPARE(saved.last().at(0).toString(), recorder.header().id);

    const auto loaded = store().load(recorder.header().id);
    QVERIFY(loaded.hasValue());
    QCOMPARE(loaded->history.size(), messages.size());
    for (int i = 0; i < messages.size(); ++i)
        QCOMPARE(loaded->history.messages().at(i).toJson(), messages.at(i).toJson());
    QVERIFY(loaded->repairs.isEmpty());
    // The key is never written.
    QFile file(store().pathFor(recorder.header().id));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains("sk-never-written"));
}

void tst_ConversationRecorder::nothingIsSavedWhenNewConversationsAreOff()
{
    ConversationRecorder recorder(store());
    recorder.setSavesNewConversations(false);
    QVERIFY(recorder.record(Message::user(u"hello"_s), provider()).hasValue());
    QVERIFY(recorder.record(Message::assistant(u"Hi."_s), provider()).hasValue());
    QVERIFY(recorder.header().id.isEmpty());
    QVERIFY(!QDir(store().directory()).exists() || store().list().isEmpty());
}

void tst_ConversationRecorder::titleIsTheFirstLineOfThePrompt_data()
{
    QTest::addColumn<QString>("prompt");
    QTest::addColumn<QString>("title");
    QTest::newRow("plain") << u"fix the build"_s << u"fix the build"_s;
    QTest::newRow("first line only") << u"  fix the build\nthe log says…"_s << u"fix the build"_s;
    QTest::newRow("spaces folded") << u"fix\t the   build"_s << u"fix the build"_s;
    QTest::newRow("chinese") << u"修复构建错误\n日志如下"_s << u"修复构建错误"_s;
    QTest::newRow("cut at 60 with an ellipsis")
            << QString(u'x').repeated(80) << QString(u'x').repeated(59) + u'…';
}

void tst_ConversationRecorder::titleIsTheFirstLineOfThePrompt()
{
    QFETCH(QString, prompt);
    QFETCH(QString, title);
    QCOMPARE(ConversationRecorder::titleFor(prompt), title);
    ConversationRecorder recorder(store());
    QVERIFY(recorder.record(Message::user(prompt), provider()).hasValue());
    QCOMPARE(store().list().value(0).title, title);
}

void tst_ConversationRecorder::openedConversationIsRepairedAndContinued()
{
    QString id;
    {
        // A run that crashed while its command ran: the call has no result.
        ConversationRecorder first(store());
        QVERIFY(first.record(Message::user(u"run it"_s), provider()).hasValue());
        const QString arguments = uR"({"command":"make"})"_s;
        QVERIFY(first.record(Message::assistant(std::nullopt,
                                                {ToolCall{u"call_9"_s, u"shell"_s, arguments}}),
                             provider())
                        .hasValue());
        id = first.header().id;
    }
    ConversationRecorder recorder(store());
    const auto continued = recorder.open(id);
    QVERIFY2(continued.hasValue(), qPrintable(continued ? QString() : continued.error().message));
    QVERIFY(!continued->notSaved);
    QCOMPARE(recorder.header().id, id);
    QCOMPARE(continued->conversation.repairs.size(), 1);
    const History &history = continued->conversation.history;
    QCOMPARE(history.size(), 3);
    QCOMPARE(history.last().role(), Role::Tool);
    QCOMPARE(history.last().toolCallId(), u"call_9"_s);
    QVERIFY(history.checkPairing().hasValue());

    // The next prompt goes into the same file, after the repair.
    QSignalSpy saved(&recorder, &ConversationRecorder::saved);
    QSignalSpy created(&recorder, &ConversationRecorder::created);
    QVERIFY(recorder.record(Message::user(u"again"_s), provider()).hasValue());
    QCOMPARE(saved.size(), 1);
    QCOMPARE(created.size(), 0);
    QCOMPARE(store().list().size(), 1);
    const auto reloaded = store().load(id);
    QVERIFY(reloaded.hasValue());
    QCOMPARE(reloaded->history.size(), 4);
    QCOMPARE(reloaded->history.last().content(), u"again"_s);
    QVERIFY(reloaded->repairs.isEmpty()); // repaired once, on disk
}

void tst_ConversationRecorder::openedFileByPathIsContinued()
{
    ConversationRecorder first(store());
    QVERIFY(first.record(Message::user(u"one"_s), provider()).hasValue());
    QVERIFY(first.record(Message::assistant(u"One."_s), provider()).hasValue());
    const QString path = store().pathFor(first.header().id);

    // The CLI: a file by path, with new conversations off.
    ConversationRecorder recorder(ConversationStore(m_dir->filePath(u"elsewhere"_s)));
    recorder.setSavesNewConversations(false);
    const auto continued = recorder.openFile(path);
    QVERIFY(continued.hasValue());
    QCOMPARE(continued->conversation.history.size(), 2);
    QCOMPARE(recorder.header().id, QFileInfo(path).completeBaseName());
    QVERIFY(recorder.record(Message::user(u"two"_s), provider()).hasValue());
    QCOMPARE(ConversationStore::loadFile(path)->history.size(), 3);
}

void tst_ConversationRecorder::openingAMissingConversationFails()
{
    ConversationRecorder recorder(store());
    const auto continued = recorder.open(u"20260101-000000-dead"_s);
    QVERIFY(!continued.hasValue());
    QVERIFY(!continued.error().message.isEmpty());
    // Still a recorder for a new conversation.
    QVERIFY(recorder.record(Message::user(u"hello"_s), provider()).hasValue());
    QCOMPARE(store().list().size(), 1);
}

void tst_ConversationRecorder::failureIsReportedOnceAndTheNextConversationSavesAgain()
{
    const QString blocked = uncreatableFolder(m_dir->path());
    ConversationRecorder recorder(ConversationStore(blocked, m_dir->filePath(u"outputs"_s)));
    const Result<void> first = recorder.record(Message::user(u"hello"_s), provider());
    QVERIFY(!first.hasValue());
    QCOMPARE(first.error().kind, Error::Io);
    QVERIFY(recorder.hasFailed());
    // The run goes on: later messages are not written, and not reported again.
    QVERIFY(recorder.record(Message::assistant(u"Hi."_s), provider()).hasValue());
    QVERIFY(recorder.header().id.isEmpty());

    // A new conversation tries again (here it fails again, and says so again).
    recorder.startNew();
    QVERIFY(!recorder.hasFailed());
    QVERIFY(!recorder.record(Message::user(u"again"_s), provider()).hasValue());
}

void tst_ConversationRecorder::stopWritingLeavesTheFileAsItWas()
{
    ConversationRecorder recorder(store());
    QVERIFY(recorder.record(Message::user(u"hello"_s), provider()).hasValue());
    const QString path = store().pathFor(recorder.header().id);
    const qint64 size = QFileInfo(path).size();
    recorder.stopWriting();
    QVERIFY(recorder.record(Message::assistant(u"Hi."_s), provider()).hasValue());
    QCOMPARE(QFileInfo(path).size(), size);
}

void tst_ConversationRecorder::titledHeaderNamesAnUnsavedConversation()
{
    ConversationRecorder recorder(store());
    recorder.setSavesNewConversations(false);
    History history;
    history.append(Message::system(u"system"_s));
    history.append(Message::user(u"export me\nplease"_s));
    QCOMPARE(recorder.titledHeader(history).title, u"export me"_s);
    recorder.setTitle(u"Renamed"_s);
    QCOMPARE(recorder.titledHeader(history).title, u"Renamed"_s);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ConversationRecorder)
#include "tst_conversationrecorder.moc"
