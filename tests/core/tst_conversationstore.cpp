// ConversationStore: JSON Lines conversations that survive a crash, repaired on load by
// appending, never by rewriting.

#include "storage/conversationstore.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_ConversationStore : public QObject
{
    Q_OBJECT

private slots:
    void init();

    void roundTrip();
    void providerFieldsSurviveReopening();
    void headerLine();
    void listNewestFirstWithTitles();
    void renameAppendsAHeaderUpdate();
    void removeDeletesTheFile();
    void removeDeletesTheOutputsToo();
    void corruptMiddleLineIsSkipped();
    void tornLastLineIsSkippedAndNextAppendStartsANewLine();
    void interruptedTailIsAnsweredByAppending();
    void unrepairablePairingFailsAndLeavesTheFile();
    void theTailIsTheLastCompleteMessages();
    void notAConversation();
    void exportMessagesJsonIsTheHistory();
    void exportMarkdownIsReadable();
    // The audit trail: a table after the transcript, and the JSON Lines of its file.
    void exportsCarryTheAuditTrail();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

namespace {

const QString interrupted
        = u"interrupted: the app stopped before this call finished; it may or may not have run."_s;

History sampleHistory()
{
    History history;
    history.append(Message::system(u"You are a coding agent."_s));
    history.append(Message::user(u"run echo 42 and tell me the result"_s));
    history.append(
            Message::assistant(std::nullopt,
                               {ToolCall{u"call_1"_s, u"shell"_s, shellArguments(u"echo 42"_s)}}));
    history.append(Message::tool(u"call_1"_s, u"42\nline two"_s));
    history.append(Message::assistant(u"The output is 42."_s));
    return history;
}

bool appendBytes(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Append) && file.write(bytes) == bytes.size();
}

// A saved conversation with these messages; returns its path.
QString saveConversation(const ConversationStore &store,
                         const History &history,
                         const QString &title = u"run echo 42"_s)
{
    ConversationWriter writer;
    const Result<ConversationHeader> header = writer.create(store,
                                                            title,
                                                            u"gpt-4.1"_s,
                                                            QUrl(u"http://127.0.0.1:1/v1"_s));
    if (!header)
        return {};
    for (const Message &message : history.messages()) {
        if (!writer.append(message))
            return {};
    }
    return writer.path();
}

int skippedNotes(const QStringList &repairs)
{
    int count = 0;
    for (const QString &repair : repairs)
        count += repair.contains(u"could not be read and was skipped"_s) ? 1 : 0;
    return count;
}

} // namespace

void tst_ConversationStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void tst_ConversationStore::roundTrip()
{
    ConversationStore store(m_dir->filePath(u"conversations"_s));
    ConversationWriter writer;
    const Result<ConversationHeader> header = writer.create(store,
                                                            u"run echo 42 and tell me"_s,
                                                            u"gpt-4.1"_s,
                                                            QUrl(u"http://127.0.0.1:1/v1"_s));
    QVERIFY2(header, qPrintable(header ? QString() : header.error().message));
    QVERIFY(header->id.contains(QRegularExpression(u"^\\d{8}-\\d{6}-[0-9a-f]{4}$"_s)));
    QCOMPARE(writer.path(), store.pathFor(header->id));

    const History history = sampleHistory();
    for (const Message &message : history.messages())
        QVERIFY(writer.append(message));
    // Each append is on disk at once, before anything else happens.
    QCOMPARE(readFile(writer.path()).count('\n'), history.size() + 1);
    writer.close();

    const Result<LoadedConversation> loaded = store.load(header->id);
    QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().message));
    QCOMPARE(loaded->history.toJson(), history.toJson());
    QVERIFY(loaded->repairs.isEmpty());
    QCOMPARE(loaded->header.id, header->id);
    QCOMPARE(loaded->header.title, u"run echo 42 and tell me"_s);
    QCOMPARE(loaded->header.model, u"gpt-4.1"_s);
    QCOMPARE(loaded->header.baseUrl, u"http://127.0.0.1:1/v1"_s);
    QCOMPARE(loaded->header.created.toSecsSinceEpoch(), header->created.toSecsSinceEpoch());

    // Continuing: open and append more.
    QVERIFY(writer.open(store.pathFor(header->id)));
    QVERIFY(writer.append(Message::user(u"thanks"_s)));
    const Result<LoadedConversation> again = store.load(header->id);
    QVERIFY(again);
    QCOMPARE(again->history.size(), history.size() + 1);
    QCOMPARE(again->history.last(), Message::user(u"thanks"_s));
}

// What a provider needs back, or must not get back, is the same after the file is reopened:
// Gemini's thought signature on the call, DeepSeek's reasoning_content (sent back), Groq's
// reasoning (shown, never sent).
void tst_ConversationStore::providerFieldsSurviveReopening()
{
    ConversationStore store(m_dir->filePath(u"conversations"_s));
    ConversationWriter writer;
    const Result<ConversationHeader> header = writer.create(store,
                                                            u"quirks"_s,
                                                            u"gemini-3-pro"_s,
                                                            QUrl(u"http://127.0.0.1:1/v1"_s));
    QVERIFY(header);
    const QJsonObject signature = parseObject(
            R"({"extra_content":{"google":{"thought_signature":"CtQB+sig=="}}})");
    History history;
    history.append(Message::user(u"run echo 42"_s));
    history.append(Message::assistant(std::nullopt,
                                      {ToolCall{u"call_1"_s,
                                                u"shell"_s,
                                                shellArguments(u"echo 42"_s),
                                                signature}},
                                      u"DeepSeek thinks."_s,
                                      ReasoningField::ReasoningContent));
    history.append(Message::tool(u"call_1"_s, u"42"_s));
    history.append(Message::assistant(u"The output is 42."_s,
                                      {},
                                      u"Groq thinks."_s,
                                      ReasoningField::Reasoning));
    for (const Message &message : history.messages())
        QVERIFY(writer.append(message));
    writer.close();

    const Result<LoadedConversation> loaded = store.load(header->id);
    QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().message));
    QCOMPARE(loaded->history.messagesJson(), history.messagesJson()); // what the provider gets
    const Message &calls = loaded->history.at(1);
    QCOMPARE(calls.toolCalls().first().extra, signature);
    QVERIFY(calls.sendsReasoningBack());
    const Message &answer = loaded->history.at(3);
    QCOMPARE(answer.reasoningContent(), u"Groq thinks."_s);
    QVERIFY(!answer.sendsReasoningBack());
    QVERIFY(!answer.toJson().contains(u"reasoning"_s));
}

void tst_ConversationStore::headerLine()
{
    ConversationStore store(m_dir->path());
    ConversationWriter writer;
    // No credentials of the URL reach the file.
    const Result<ConversationHeader> header
            = writer.create(store,
                            u"  first line\nsecond line"_s,
                            u"m"_s,
                            QUrl(u"https://user:secret@example.com/v1?api-key=secret"_s));
    QVERIFY(header);
    const QByteArray bytes = readFile(writer.path());
    QVERIFY(!bytes.contains("secret"));
    const QJsonObject line = QJsonDocument::fromJson(bytes.split('\n').first()).object();
    QCOMPARE(line.value(u"agentloop"_s).toString(), u"conversation"_s);
    QCOMPARE(line.value(u"version"_s).toInt(), 1);
    QCOMPARE(line.value(u"title"_s).toString(), u"first line"_s);
    QCOMPARE(line.value(u"model"_s).toString(), u"m"_s);
    QCOMPARE(line.value(u"baseUrl"_s).toString(), u"https://example.com/v1"_s);
    QVERIFY(QDateTime::fromString(line.value(u"created"_s).toString(), Qt::ISODateWithMs).isValid());
}

void tst_ConversationStore::listNewestFirstWithTitles()
{
    ConversationStore store(m_dir->path());
    const QString older = saveConversation(store, sampleHistory(), u"older"_s);
    const QString newer = saveConversation(store, sampleHistory(), u"newer"_s);
    QVERIFY(!older.isEmpty() && !newer.isEmpty());
    QFile olderFile(older);
    QVERIFY(olderFile.open(QIODevice::ReadWrite));
    QVERIFY(olderFile.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                                  QFileDevice::FileModificationTime));
    olderFile.close();
    QVERIFY(appendBytes(m_dir->filePath(u"notes.jsonl"_s), "not a conversation\n"));

    const QList<ConversationHeader> list = store.list();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list.at(0).title, u"newer"_s);
    QCOMPARE(list.at(1).title, u"older"_s);
    QCOMPARE(store.pathFor(list.at(1).id), older);
    QVERIFY(list.at(0).updated > list.at(1).updated);
}

void tst_ConversationStore::renameAppendsAHeaderUpdate()
{
    ConversationStore store(m_dir->path());
    const QString path = saveConversation(store, sampleHistory());
    const QString id = QFileInfo(path).completeBaseName();
    const QByteArray before = readFile(path);
    QVERIFY(store.rename(id, u"Echo experiments"_s));

    const QByteArray after = readFile(path);
    QVERIFY(after.startsWith(before));
    const QJsonObject update = QJsonDocument::fromJson(after.mid(before.size())).object();
    QCOMPARE(update.value(u"agentloop"_s).toString(), u"rename"_s);
    QCOMPARE(update.value(u"title"_s).toString(), u"Echo experiments"_s);

    QCOMPARE(store.list().first().title, u"Echo experiments"_s);
    const Result<LoadedConversation> loaded = store.load(id);
    QVERIFY(loaded);
    QCOMPARE(loaded->header.title, u"Echo experiments"_s);
    QCOMPARE(loaded->history.toJson(), sampleHistory().toJson());
    QVERIFY(loaded->repairs.isEmpty());
}

void tst_ConversationStore::removeDeletesTheFile()
{
    ConversationStore store(m_dir->path());
    const QString path = saveConversation(store, sampleHistory());
    const QString id = QFileInfo(path).completeBaseName();
    QVERIFY(store.remove(id));
    QVERIFY(!QFileInfo::exists(path));
    QVERIFY(store.list().isEmpty());
    QVERIFY(!store.remove(id));
    QVERIFY(!store.load(id));
}

void tst_ConversationStore::removeDeletesTheOutputsToo()
{
    ConversationStore store(m_dir->filePath(u"conversations"_s), m_dir->filePath(u"outputs"_s));
    QCOMPARE(store.outputDirectoryFor(u"c1"_s), m_dir->filePath(u"outputs/c1"_s));
    const QString id = QFileInfo(saveConversation(store, sampleHistory())).completeBaseName();
    const QString kept = QFileInfo(saveConversation(store, sampleHistory())).completeBaseName();
    for (const QString &conversation : {id, kept}) {
        QVERIFY(QDir().mkpath(store.outputDirectoryFor(conversation)));
        QFile log(QDir(store.outputDirectoryFor(conversation)).filePath(u"call_1.log"_s));
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write("output\n");
    }
    QVERIFY(store.remove(id));
    QVERIFY(!QFileInfo::exists(store.outputDirectoryFor(id)));
    QVERIFY(!QFileInfo::exists(store.pathFor(id)));
    QVERIFY(QFileInfo::exists(store.outputDirectoryFor(kept) + u"/call_1.log"_s));
    QVERIFY(QFileInfo::exists(store.pathFor(kept)));
}

void tst_ConversationStore::corruptMiddleLineIsSkipped()
{
    ConversationStore store(m_dir->path());
    History first;
    first.append(Message::user(u"one"_s));
    first.append(Message::assistant(u"reply one"_s));
    const QString path = saveConversation(store, first);
    QVERIFY(appendBytes(path, "{\"role\":\"user\",\"content\":\"tw\x01garbage\n"));
    QVERIFY(appendBytes(path, "{\"role\":\"wizard\",\"content\":\"x\"}\n"));
    ConversationWriter writer;
    QVERIFY(writer.open(path));
    QVERIFY(writer.append(Message::user(u"three"_s)));
    QVERIFY(writer.append(Message::assistant(u"reply three"_s)));
    writer.close();
    const QByteArray before = readFile(path);

    const Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
    QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().message));
    QCOMPARE(loaded->history.size(), 4);
    QCOMPARE(loaded->history.at(0).content(), u"one"_s);
    QCOMPARE(loaded->history.at(1).content(), u"reply one"_s);
    QCOMPARE(loaded->history.at(2).content(), u"three"_s);
    QCOMPARE(loaded->history.at(3).content(), u"reply three"_s);
    QCOMPARE(loaded->repairs.size(), 2);
    QVERIFY2(loaded->repairs.at(0).startsWith(u"Line 4 could not be read and was skipped ("_s),
             qPrintable(loaded->repairs.at(0)));
    QVERIFY2(loaded->repairs.at(1).startsWith(u"Line 5 could not be read and was skipped ("_s),
             qPrintable(loaded->repairs.at(1)));
    // Skipping changes nothing on disk.
    QCOMPARE(readFile(path), before);
}

void tst_ConversationStore::tornLastLineIsSkippedAndNextAppendStartsANewLine()
{
    ConversationStore store(m_dir->path());
    History history;
    history.append(Message::user(u"one"_s));
    const QString path = saveConversation(store, history);
    // A kill in the middle of writing the assistant's answer.
    QVERIFY(appendBytes(path, "{\"role\":\"assistant\",\"content\":\"half an ans"));

    const Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
    QVERIFY(loaded);
    QCOMPARE(loaded->history.toJson(), history.toJson());
    QCOMPARE(loaded->repairs.size(), 1);
    QVERIFY2(loaded->repairs.first().startsWith(u"Line 3 could not be read and was skipped ("_s),
             qPrintable(loaded->repairs.first()));

    ConversationWriter writer;
    QVERIFY(writer.open(path));
    QVERIFY(writer.append(Message::assistant(u"a whole answer"_s)));
    writer.close();
    const QByteArray bytes = readFile(path);
    QVERIFY(bytes.contains("\"half an ans\n{"));

    const Result<LoadedConversation> again = ConversationStore::loadFile(path);
    QVERIFY(again);
    QCOMPARE(again->history.size(), 2);
    QCOMPARE(again->history.last().content(), u"a whole answer"_s);
    QCOMPARE(skippedNotes(again->repairs), 1);
}

void tst_ConversationStore::interruptedTailIsAnsweredByAppending()
{
    ConversationStore store(m_dir->path());
    History history;
    history.append(Message::user(u"make two files"_s));
    history.append(
            Message::assistant(std::nullopt,
                               {ToolCall{u"call_1"_s, u"shell"_s, shellArguments(u"touch a"_s)},
                                ToolCall{u"call_2"_s, u"shell"_s, shellArguments(u"touch b"_s)}}));
    history.append(Message::tool(u"call_1"_s, u"(no output)"_s));
    const QString path = saveConversation(store, history);
    QVERIFY(!history.checkPairing());
    const QByteArray before = readFile(path);

    const Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
    QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().message));
    QVERIFY(loaded->history.checkPairing());
    QCOMPARE(loaded->history.size(), history.size() + 1);
    const Message &repair = loaded->history.last();
    QCOMPARE(repair.role(), Role::Tool);
    QCOMPARE(repair.toolCallId(), u"call_2"_s);
    QCOMPARE(repair.content(), interrupted);
    QCOMPARE(loaded->repairs.size(), 1);
    QVERIFY2(loaded->repairs.first().contains(u"interrupted"_s),
             qPrintable(loaded->repairs.first()));

    // The file grew and never shrank: the old bytes are untouched at its start.
    const QByteArray after = readFile(path);
    QVERIFY(after.size() > before.size());
    QVERIFY(after.startsWith(before));

    // The repair is on disk: loading again needs none.
    const Result<LoadedConversation> again = ConversationStore::loadFile(path);
    QVERIFY(again);
    QVERIFY(again->repairs.isEmpty());
    QCOMPARE(again->history.toJson(), loaded->history.toJson());
    QCOMPARE(readFile(path), after);
}

void tst_ConversationStore::unrepairablePairingFailsAndLeavesTheFile()
{
    ConversationStore store(m_dir->path());
    History history;
    history.append(Message::user(u"hello"_s));
    history.append(Message::tool(u"call_9"_s, u"orphan"_s));
    history.append(Message::assistant(u"hi"_s));
    const QString path = saveConversation(store, history);
    const QByteArray before = readFile(path);

    const Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
    QVERIFY(!loaded);
    QCOMPARE(loaded.error().kind, Error::Contract);
    QVERIFY2(loaded.error().message.contains(u"call_9"_s), qPrintable(loaded.error().message));
    QCOMPARE(readFile(path), before);
}

void tst_ConversationStore::theTailIsTheLastCompleteMessages()
{
    ConversationStore store(m_dir->path());
    History history;
    for (int i = 0; i < 200; ++i) {
        history.append(Message::user(u"question %1 "_s.arg(i) + QString(u'x').repeated(100)));
        history.append(Message::assistant(u"answer %1"_s.arg(i)));
    }
    const QString path = saveConversation(store, history);
    QVERIFY(store.rename(QFileInfo(path).completeBaseName(), u"renamed"_s));
    const qint64 size = QFileInfo(path).size();

    // A few kilobytes: the messages of the lines that end in them, without the one cut at the
    // start and without the rename line.
    const Result<ConversationTail> tail = ConversationStore::readTail(path, 4096);
    QVERIFY2(tail, qPrintable(tail ? QString() : tail.error().message));
    QVERIFY(tail->messages.size() > 10 && tail->messages.size() < 60);
    const QList<Message> last = history.messages().mid(history.size() - tail->messages.size());
    QCOMPARE(tail->messages, last);
    QCOMPARE(tail->messages.last().content(), u"answer 199"_s);
    QCOMPARE(tail->header.model, u"gpt-4.1"_s);

    // More than the file: every message.
    const Result<ConversationTail> whole = ConversationStore::readTail(path, size * 2);
    QVERIFY(whole);
    QCOMPARE(whole->messages, history.messages());

    // Not a conversation, or no file: the same errors loading gives.
    QVERIFY(!ConversationStore::readTail(m_dir->filePath(u"missing.jsonl"_s), 4096));
    const QString notOurs = m_dir->filePath(u"x.jsonl"_s);
    QVERIFY(appendBytes(notOurs, "{\"role\":\"user\",\"content\":\"no header\"}\n"));
    QCOMPARE(ConversationStore::readTail(notOurs, 4096).error().kind, Error::Io);
}

void tst_ConversationStore::notAConversation()
{
    const QString path = m_dir->filePath(u"x.jsonl"_s);
    QVERIFY(appendBytes(path, "{\"role\":\"user\",\"content\":\"no header\"}\n"));
    const Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
    QVERIFY(!loaded);
    QCOMPARE(loaded.error().kind, Error::Io);
    QVERIFY(!ConversationStore::loadFile(m_dir->filePath(u"missing.jsonl"_s)));
}

void tst_ConversationStore::exportMessagesJsonIsTheHistory()
{
    const History history = sampleHistory();
    const QByteArray exported = exportMessagesJson(history);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(exported, &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    QVERIFY(document.isArray());
    QCOMPARE(document.array(), history.toJson());
    QCOMPARE(exported, QJsonDocument(history.toJson()).toJson(QJsonDocument::Indented));
}

void tst_ConversationStore::exportMarkdownIsReadable()
{
    ConversationHeader header;
    header.title = u"Echo"_s;
    header.created = QDateTime(QDate(2026, 11, 29), QTime(22, 47, 5));
    header.model = u"gpt-4.1"_s;
    const QString markdown = exportMarkdown(header, sampleHistory());
    QVERIFY2(markdown.startsWith(u"# Echo\n"_s), qPrintable(markdown));
    QVERIFY(markdown.contains(u"gpt-4.1"_s));
    QVERIFY(markdown.contains(u"2026-11-29"_s));
    QVERIFY(markdown.contains(u"## User\n\nrun echo 42 and tell me the result\n"_s));
    QVERIFY(markdown.contains(u"## Assistant\n"_s));
    QVERIFY(markdown.contains(u"### Tool call `shell`\n\n```json\n"_s));
    QVERIFY(markdown.contains(u"\"command\": \"echo 42\""_s));
    QVERIFY(markdown.contains(u"### Tool result\n\n```\n42\nline two\n```\n"_s));
    QVERIFY(markdown.contains(u"The output is 42."_s));
}

void tst_ConversationStore::exportsCarryTheAuditTrail()
{
    const QJsonObject allowed{{u"time"_s, u"2026-12-02T10:15:03.120Z"_s},
                              {u"turn"_s, 1},
                              {u"tool_call_id"_s, u"call_1"_s},
                              {u"tool"_s, u"shell"_s},
                              {u"arguments"_s, u"{\"command\":\"echo 42\"}"_s},
                              {u"decision"_s, u"allow"_s},
                              {u"asked"_s, true},
                              {u"decided_by"_s, u"user"_s},
                              {u"ok"_s, true},
                              {u"exit_code"_s, 0},
                              {u"duration_ms"_s, 12}};
    QJsonObject denied = allowed;
    denied[u"tool_call_id"_s] = u"call_2"_s;
    denied[u"decision"_s] = u"deny"_s;
    denied[u"asked"_s] = false;
    denied[u"decided_by"_s] = u"shell(a | b)"_s;
    denied[u"reason"_s] = u"line one\nline two"_s;
    denied[u"ok"_s] = false;
    denied[u"exit_code"_s] = -1;
    denied[u"error_code"_s] = u"denied"_s;

    const QString markdown = exportMarkdown(ConversationHeader{},
                                            sampleHistory(),
                                            {allowed, denied});
    const qsizetype section = markdown.indexOf(u"## Audit trail\n\n| Time | Turn | Tool | Call |"_s);
    QVERIFY2(section > markdown.indexOf(u"The output is 42."_s), qPrintable(markdown));
    QVERIFY2(markdown.contains(u"| 2026-12-02T10:15:03.120Z | 1 | shell | call_1 | allow (asked) "
                               u"| user |  | exit 0 | 12 ms |\n"_s),
             qPrintable(markdown));
    // A `|` or a line break in a cell cannot break the table.
    QVERIFY2(markdown.contains(
                     u"| deny | shell(a \\| b) | line one line two | denied | 12 ms |\n"_s),
             qPrintable(markdown));
    QVERIFY(!exportMarkdown(ConversationHeader{}, sampleHistory()).contains(u"Audit trail"_s));

    const QList<QByteArray> lines = exportAuditJsonLines({allowed, denied}).split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines.last().isEmpty());
    QCOMPARE(QJsonDocument::fromJson(lines.at(0)).object(), allowed);
    QCOMPARE(QJsonDocument::fromJson(lines.at(1)).object(), denied);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ConversationStore)

#include "tst_conversationstore.moc"
