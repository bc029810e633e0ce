#include "agent/conversationfork.h"
#include "protocol/jsondiff.h"
#include "protocol/requestbody.h"
#include "protocol/requestcheck.h"
#include "storage/conversationstore.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
//
// The structural diff of "Edit and resend", the check of an edited request body, and the file
// "Fork from here" writes.
class tst_JsonDiff : public QObject
{
    Q_OBJECT

private slots:
    void diff_data();
    void diff();
    void diffIsCapped();
    void streamedResponsesCompareTheirMessages();

    void checkFindsProblems_data();
    void checkFindsProblems();
    void checkAcceptsWhatTheLoopSends();
    void syntaxErrorHasLineAndColumn();

    void forkWritesExactlyTheMessages();
    void forkRefusesBrokenPairing();
};

namespace {

QJsonValue parse(const QByteArray &json)
{
    if (json.isEmpty())
        return QJsonValue(QJsonValue::Undefined);
    // Scalars too: wrapped in an array to be read.
    const QJsonDocument document = QJsonDocument::fromJson("[" + json + "]");
    if (!document.isArray())
        qFatal("test data is not JSON: %s", json.constData());
    return document.array().at(0);
}

QString compactValue(const QJsonValue &value)
{
    if (value.isUndefined())
        return u"-"_s;
    const QByteArray json = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(json.mid(1, json.size() - 2));
}

// "~ path old new", "+ path new", "- path old"
QStringList lines(const JsonDiff &diff)
{
    QStringList out;
    for (const JsonChange &change : diff.changes) {
        const char kind = change.kind == JsonChange::Added     ? '+'
                          : change.kind == JsonChange::Removed ? '-'
                                                               : '~';
        out << u"%1 %2 %3 %4"_s.arg(QChar::fromLatin1(kind),
                                    change.path.isEmpty() ? u"<root>"_s : change.path,
                                    compactValue(change.before),
                                    compactValue(change.after));
    }
    return out;
}

QByteArray requestWith(const QByteArray &messages, const QByteArray &extra = {})
{
    return R"({"model":"gpt-4.1","messages":)" + messages + extra + "}";
}

const QByteArray callAndResult = R"([{"role":"user","content":"list files"},
             {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
               "function":{"name":"shell","arguments":"{\"command\":\"ls\"}"}}]},
             {"role":"tool","tool_call_id":"call_1","content":"a.txt"}])";

} // namespace

void tst_JsonDiff::diff_data()
{
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("equal objects") << QByteArray(R"({"a":1,"b":[1,2]})")
                                   << QByteArray(R"({"b":[1,2],"a":1})") << QStringList();
    QTest::newRow("changed content")
            << QByteArray(R"({"choices":[{"message":{"content":"hi"}}]})")
            << QByteArray(R"({"choices":[{"message":{"content":"hello"}}]})")
            << QStringList{uR"(~ choices[0].message.content "hi" "hello")"_s};
    QTest::newRow("added and removed keys, sorted")
            << QByteArray(R"({"b":1,"d":2})") << QByteArray(R"({"a":0,"b":1,"c":{"x":1}})")
            << QStringList{u"+ a - 0"_s, uR"(+ c - {"x":1})"_s, u"- d 2 -"_s};
    QTest::newRow("array grows and shrinks by index")
            << QByteArray(R"({"x":[1,2,3]})") << QByteArray(R"({"x":[1,5]})")
            << QStringList{u"~ x[1] 2 5"_s, u"- x[2] 3 -"_s};
    QTest::newRow("item added at the front shifts the rest")
            << QByteArray("[1,2]") << QByteArray("[0,1,2]")
            << QStringList{u"~ [0] 1 0"_s, u"~ [1] 2 1"_s, u"+ [2] - 2"_s};
    QTest::newRow("type change is one change")
            << QByteArray(R"({"content":"text"})") << QByteArray(R"({"content":[{"type":"text"}]})")
            << QStringList{uR"(~ content "text" [{"type":"text"}])"_s};
    QTest::newRow("null against a value")
            << QByteArray(R"({"content":null})") << QByteArray(R"({"content":"x"})")
            << QStringList{uR"(~ content null "x")"_s};
    QTest::newRow("number equality is by value")
            << QByteArray(R"({"n":1})") << QByteArray(R"({"n":1.0})") << QStringList();
    QTest::newRow("keys that are not names are quoted")
            << QByteArray(R"({"a b":1,"1x":2,"é":3})") << QByteArray(R"({"a b":2,"1x":2,"é":4})")
            << QStringList{uR"(~ ["a b"] 1 2)"_s, uR"(~ ["é"] 3 4)"_s};
    QTest::newRow("different roots") << QByteArray("[1]") << QByteArray(R"({"a":1})")
                                     << QStringList{uR"(~ <root> [1] {"a":1})"_s};
    QTest::newRow("nested paths")
            << QByteArray(R"({"choices":[{"message":{"tool_calls":[{"id":"a"}]}}]})")
            << QByteArray(
                       R"({"choices":[{"message":{"tool_calls":[{"id":"b","type":"function"}]}}]})")
            << QStringList{uR"(~ choices[0].message.tool_calls[0].id "a" "b")"_s,
                           uR"(+ choices[0].message.tool_calls[0].type - "function")"_s};
}

void tst_JsonDiff::diff()
{
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(QStringList, expected);
    const JsonDiff diff = diffJson(parse(before), parse(after));
    QCOMPARE(lines(diff), expected);
    QCOMPARE(diff.omitted, 0);
    QCOMPARE(diff.isEmpty(), expected.isEmpty());
    // Reversed, every addition is a removal and every change is swapped.
    const JsonDiff reversed = diffJson(parse(after), parse(before));
    QCOMPARE(reversed.changes.size(), diff.changes.size());
    for (qsizetype i = 0; i < diff.changes.size(); ++i) {
        QCOMPARE(reversed.changes.at(i).path, diff.changes.at(i).path);
        QCOMPARE(reversed.changes.at(i).before, diff.changes.at(i).after);
    }
}

void tst_JsonDiff::diffIsCapped()
{
    QJsonArray before;
    QJsonArray after;
    for (int i = 0; i < 100; ++i) {
        before.append(i);
        after.append(i + 1);
    }
    const JsonDiff diff = diffJson(before, after, 10);
    QCOMPARE(diff.changes.size(), 10);
    QCOMPARE(diff.omitted, 90);
    QCOMPARE(diff.changes.last().path, u"[9]"_s);
    QVERIFY(!diff.isEmpty());
}

void tst_JsonDiff::streamedResponsesCompareTheirMessages()
{
    Exchange plain;
    plain.responseBody
            = R"({"id":"a","choices":[{"index":0,"message":{"role":"assistant","content":"one"}}]})";
    Exchange other = plain;
    other.responseBody
            = R"({"id":"b","choices":[{"index":0,"message":{"role":"assistant","content":"two"}}]})";
    ComparedResponses compared = comparableResponses(plain, other);
    QVERIFY(!compared.messagesOnly);
    QCOMPARE(lines(diffJson(compared.before, compared.after)),
             (QStringList{uR"(~ choices[0].message.content "one" "two")"_s, uR"(~ id "a" "b")"_s}));

    Exchange streamed;
    streamed.streamed = true;
    streamed.responseBody = "data: {\"id\":\"c\",\"choices\":[]}\n\ndata: [DONE]\n\n";
    streamed.assembledMessage = R"({"role":"assistant","content":"three"})";
    compared = comparableResponses(plain, streamed);
    QVERIFY(compared.messagesOnly);
    QCOMPARE(lines(diffJson(compared.before, compared.after)),
             QStringList{uR"(~ content "one" "three")"_s});
}

void tst_JsonDiff::checkFindsProblems_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");

    QTest::newRow("not JSON") << QByteArray(R"({"model": "x", "messages": [)")
                              << int(RequestProblem::Syntax) << u"Line 1, column "_s;
    QTest::newRow("not an object") << QByteArray("[1]") << int(RequestProblem::Schema)
                                   << u"The body must be a JSON object."_s;
    QTest::newRow("no messages") << QByteArray(R"({"model":"gpt-4.1"})")
                                 << int(RequestProblem::Schema)
                                 << uR"(missing required property "messages")"_s;
    QTest::newRow("temperature out of range")
            << requestWith(R"([{"role":"user","content":"hi"}])", R"(,"temperature":5)")
            << int(RequestProblem::Schema) << u"/temperature: "_s;
    QTest::newRow("unknown role") << requestWith(R"([{"role":"robot","content":"hi"}])")
                                  << int(RequestProblem::Schema) << u"/messages/0/role: "_s;
    QTest::newRow("arguments as an object")
            << requestWith(R"([{"role":"user","content":"x"},{"role":"assistant","content":null,
                "tool_calls":[{"id":"c","type":"function","function":{"name":"shell",
                "arguments":{"command":"ls"}}}]},{"role":"tool","tool_call_id":"c","content":"ok"}])")
            << int(RequestProblem::Schema) << u"/messages/1/tool_calls/0/function/arguments: "_s;
    QTest::newRow("unanswered tool call")
            << requestWith(R"([{"role":"user","content":"x"},{"role":"assistant","content":null,
                "tool_calls":[{"id":"call_7","type":"function","function":{"name":"shell",
                "arguments":"{}"}}]},{"role":"user","content":"never mind"}])")
            << int(RequestProblem::Pairing) << uR"(missing tool results for ids: ["call_7"])"_s;
    QTest::newRow("orphan tool message")
            << requestWith(
                       R"([{"role":"user","content":"x"},{"role":"tool","tool_call_id":"call_9","content":"?"}])")
            << int(RequestProblem::Pairing)
            << uR"(tool results without a matching tool call for ids: ["call_9"])"_s;
}

void tst_JsonDiff::checkFindsProblems()
{
    QFETCH(QByteArray, body);
    QFETCH(int, kind);
    QFETCH(QString, message);
    const RequestCheck check = checkRequestBody(body);
    QVERIFY(!check.isValid());
    QCOMPARE(int(check.problems.first().kind), kind);
    QVERIFY2(check.problems.first().message.contains(message),
             qPrintable(check.problems.first().message));
    QCOMPARE(check.hasSyntaxError(), kind == RequestProblem::Syntax);
}

void tst_JsonDiff::checkAcceptsWhatTheLoopSends()
{
    ProviderSettings provider;
    provider.model = u"gpt-4.1"_s;
    provider.stream = true;
    const Result<History> history = History::fromJson(
            QJsonDocument::fromJson(callAndResult).array());
    QVERIFY(history);
    const QJsonArray tools{
            QJsonObject{{u"type"_s, u"function"_s},
                        {u"function"_s,
                         QJsonObject{{u"name"_s, u"shell"_s},
                                     {u"description"_s, u"Runs a command"_s},
                                     {u"parameters"_s, QJsonObject{{u"type"_s, u"object"_s}}}}}}};
    const RequestCheck check = checkRequestBody(chatRequestBody(provider, *history, tools));
    QVERIFY2(check.isValid(),
             qPrintable(check.problems.isEmpty() ? QString() : check.problems.first().message));
    QVERIFY(check.history);
    QCOMPARE(check.history->toJson(), history->toJson());
}

void tst_JsonDiff::syntaxErrorHasLineAndColumn()
{
    const RequestCheck check = checkRequestBody("{\n  \"model\": \"x\",\n  \"messages\": [}\n");
    QVERIFY(check.hasSyntaxError());
    QCOMPARE(check.problems.size(), 1);
    QCOMPARE(check.problems.first().line, 3);
    QCOMPARE(check.problems.first().column, 16); // the "}"
    QVERIFY(!check.history);
    // A string never closed: at the end of the text.
    const RequestCheck open = checkRequestBody("{\"model\": \"gpt");
    QVERIFY(open.hasSyntaxError());
    QCOMPARE(open.problems.first().line, 1);
    QVERIFY2(open.problems.first().column >= 11, qPrintable(open.problems.first().message));
    // A name without its colon: at the value where the colon was due.
    const RequestCheck colon = checkRequestBody("{\n\"model\" \"x\"}");
    QCOMPARE(colon.problems.first().line, 2);
    QCOMPARE(colon.problems.first().column, 9);
}

void tst_JsonDiff::forkWritesExactlyTheMessages()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ConversationStore store(dir.filePath(u"conversations"_s), dir.filePath(u"outputs"_s));
    ProviderSettings provider;
    provider.model = u"gpt-4.1"_s;
    provider.baseUrl = QUrl(u"http://127.0.0.1:1/v1"_s);

    // The conversation forked from, already saved.
    ConversationWriter original;
    const Result<ConversationHeader> originalHeader = original.create(store,
                                                                      u"Original"_s,
                                                                      provider.model,
                                                                      provider.baseUrl);
    QVERIFY(originalHeader);
    QVERIFY(original.append(Message::user(u"list files"_s)));
    original.close();
    QFile originalFile(store.pathFor(originalHeader->id));
    QVERIFY(originalFile.open(QIODevice::ReadOnly));
    const QByteArray originalBytes = originalFile.readAll();
    originalFile.close();

    const Result<History> history = History::fromJson(
            QJsonDocument::fromJson(callAndResult).array());
    QVERIFY(history);
    const Result<ConversationHeader> fork = forkConversation(store,
                                                             *history,
                                                             u"Original (fork)"_s,
                                                             provider);
    QVERIFY2(fork, qPrintable(fork ? QString() : fork.error().message));
    QVERIFY(fork->id != originalHeader->id);

    const Result<LoadedConversation> loaded = store.load(fork->id);
    QVERIFY(loaded);
    QCOMPARE(loaded->history.toJson(), history->toJson());
    QCOMPARE(loaded->header.title, u"Original (fork)"_s);
    QVERIFY(loaded->repairs.isEmpty());

    QVERIFY(originalFile.open(QIODevice::ReadOnly));
    QCOMPARE(originalFile.readAll(), originalBytes);
    QCOMPARE(QDir(store.directory()).entryList({u"*.jsonl"_s}, QDir::Files).size(), 2);
}

void tst_JsonDiff::forkRefusesBrokenPairing()
{
    QTemporaryDir dir;
    const ConversationStore store(dir.filePath(u"conversations"_s), dir.filePath(u"outputs"_s));
    History history;
    history.append(Message::user(u"x"_s));
    history.append(Message::tool(u"call_9"_s, u"?"_s));
    const Result<ConversationHeader> fork = forkConversation(store, history, u"t"_s, {});
    QVERIFY(!fork);
    QVERIFY(fork.error().message.contains(u"call_9"_s));
    QVERIFY(QDir(store.directory()).entryList({u"*.jsonl"_s}, QDir::Files).isEmpty());
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_JsonDiff)
#include "tst_jsondiff.moc"
