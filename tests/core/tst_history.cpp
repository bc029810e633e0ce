#include "protocol/history.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_History : public QObject
{
    Q_OBJECT

private slots:
    void checkPairing_data();
    void checkPairing();
    void unansweredToolCalls_data();
    void unansweredToolCalls();
    void appendOnly();
    void jsonRoundTrip();
    void messagesJsonIsTheArraysInside();
    void fromJsonRejects_data();
    void fromJsonRejects();
};

namespace {

ToolCall shellCall(const QString &id, const QString &command = u"echo 42"_s)
{
    return {id, u"shell"_s, uR"({"command":"%1"})"_s.arg(command)};
}

Message callsMessage(const QStringList &ids, const std::optional<QString> &text = std::nullopt)
{
    QList<ToolCall> calls;
    for (const QString &id : ids)
        calls.append(shellCall(id));
    return Message::assistant(text, calls);
}

History historyOf(const QList<Message> &messages)
{
    History history;
    for (const Message &message : messages)
        history.append(message);
    return history;
}

const Message systemMessage = Message::system(u"You are a coding agent."_s);
const Message userMessage = Message::user(u"运行 Write-Output 42,并告诉我结果"_s);

} // namespace

void tst_History::checkPairing_data()
{
    QTest::addColumn<History>("history");
    QTest::addColumn<QString>("error"); // empty: valid

    const Message tool1 = Message::tool(u"call_1"_s, u"42"_s);
    const Message tool2 = Message::tool(u"call_2"_s, u"43"_s);
    const Message tool3 = Message::tool(u"call_3"_s, u"44"_s);

    // Valid sequences.
    QTest::newRow("empty") << History() << QString();
    QTest::newRow("system + user") << historyOf({systemMessage, userMessage}) << QString();
    QTest::newRow("seed two turns")
            << historyOf({systemMessage,
                          userMessage,
                          callsMessage({u"call_abc123"_s}),
                          Message::tool(u"call_abc123"_s, u"42"_s),
                          Message::assistant(u"命令执行成功,输出是 42。"_s)})
            << QString();
    QTest::newRow("two calls answered in order")
            << historyOf({userMessage, callsMessage({u"call_1"_s, u"call_2"_s}), tool1, tool2})
            << QString();
    QTest::newRow("two calls answered out of order")
            << historyOf({userMessage, callsMessage({u"call_1"_s, u"call_2"_s}), tool2, tool1})
            << QString();
    QTest::newRow("text and calls, then a second prompt")
            << historyOf({userMessage,
                          callsMessage({u"call_1"_s}, u"Let me check."_s),
                          tool1,
                          Message::assistant(u"done"_s),
                          Message::user(u"again"_s),
                          callsMessage({u"call_2"_s}),
                          tool2})
            << QString();
    QTest::newRow("same id reused in a later assistant message") << historyOf(
            {userMessage, callsMessage({u"call_1"_s}), tool1, callsMessage({u"call_1"_s}), tool1})
                                                                 << QString();

    // Missing results: the seed's experiment 2, and two missing.
    QTest::newRow("missing call_2 (experiment 2)")
            << historyOf({userMessage, callsMessage({u"call_1"_s, u"call_2"_s}), tool1})
            << uR"(missing tool results for ids: ["call_2"])"_s;
    QTest::newRow("missing call_2 and call_3")
            << historyOf({userMessage, callsMessage({u"call_1"_s, u"call_2"_s, u"call_3"_s}), tool1})
            << uR"(missing tool results for ids: ["call_2","call_3"])"_s;
    QTest::newRow("missing all, followed by a user message")
            << historyOf({userMessage, callsMessage({u"call_1"_s}), Message::user(u"go on"_s)})
            << uR"(missing tool results for ids: ["call_1"])"_s;
    QTest::newRow("missing all, followed by a text answer")
            << historyOf({userMessage, callsMessage({u"call_1"_s}), Message::assistant(u"x"_s)})
            << uR"(missing tool results for ids: ["call_1"])"_s;

    // Duplicates and orphans.
    QTest::newRow("duplicate result")
            << historyOf({userMessage, callsMessage({u"call_1"_s}), tool1, tool1})
            << uR"(duplicate tool results for ids: ["call_1"])"_s;
    QTest::newRow("orphan tool message")
            << historyOf({userMessage, callsMessage({u"call_1"_s}), tool1, tool3})
            << uR"(tool results without a matching tool call for ids: ["call_3"])"_s;
    QTest::newRow("orphan tool message at the start")
            << historyOf({systemMessage, tool1})
            << uR"(tool results without a matching tool call for ids: ["call_1"])"_s;
    QTest::newRow("result after an intervening user message: missing and orphan")
            << historyOf({userMessage, callsMessage({u"call_1"_s}), Message::user(u"wait"_s), tool1})
            << uR"(missing tool results for ids: ["call_1"]; )"
               uR"(tool results without a matching tool call for ids: ["call_1"])"_s;
    QTest::newRow("duplicate call ids in one message")
            << historyOf({userMessage, callsMessage({u"call_1"_s, u"call_1"_s}), tool1})
            << uR"(duplicate tool call ids in one assistant message: ["call_1"])"_s;
}

void tst_History::checkPairing()
{
    QFETCH(History, history);
    QFETCH(QString, error);

    const Result<void> pairing = history.checkPairing();
    if (error.isEmpty()) {
        QVERIFY2(pairing.hasValue(), qPrintable(pairing ? QString() : pairing.error().message));
        return;
    }
    QVERIFY(!pairing.hasValue());
    QCOMPARE(pairing.error().kind, Error::Contract);
    QCOMPARE(pairing.error().message, error);
    // The user is told that nothing was sent, and why the rule exists.
    QVERIFY(pairing.error().hint.contains(u"nothing was sent"_s));
}

void tst_History::unansweredToolCalls_data()
{
    QTest::addColumn<History>("history");
    QTest::addColumn<QStringList>("unanswered");

    QTest::newRow("empty") << History() << QStringList();
    QTest::newRow("ends with user") << historyOf({systemMessage, userMessage}) << QStringList();
    QTest::newRow("ends with text answer")
            << historyOf({userMessage, Message::assistant(u"hi"_s)}) << QStringList();
    QTest::newRow("calls, nothing answered")
            << historyOf({userMessage, callsMessage({u"call_1"_s, u"call_2"_s})})
            << QStringList{u"call_1"_s, u"call_2"_s};
    QTest::newRow("calls, first answered")
            << historyOf({userMessage,
                          callsMessage({u"call_1"_s, u"call_2"_s, u"call_3"_s}),
                          Message::tool(u"call_1"_s, u"x"_s)})
            << QStringList{u"call_2"_s, u"call_3"_s};
    QTest::newRow("calls, middle answered")
            << historyOf({userMessage,
                          callsMessage({u"call_1"_s, u"call_2"_s, u"call_3"_s}),
                          Message::tool(u"call_2"_s, u"x"_s)})
            << QStringList{u"call_1"_s, u"call_3"_s};
    QTest::newRow("all answered") << historyOf({userMessage,
                                                callsMessage({u"call_1"_s, u"call_2"_s}),
                                                Message::tool(u"call_2"_s, u"x"_s),
                                                Message::tool(u"call_1"_s, u"y"_s)})
                                  << QStringList();
    QTest::newRow("only the last assistant message counts")
            << historyOf({userMessage,
                          callsMessage({u"call_1"_s}),
                          Message::user(u"wait"_s),
                          callsMessage({u"call_9"_s})})
            << QStringList{u"call_9"_s};
}

void tst_History::unansweredToolCalls()
{
    QFETCH(History, history);
    QFETCH(QStringList, unanswered);

    QStringList ids;
    for (const ToolCall &call : history.unansweredToolCalls())
        ids.append(call.id);
    QCOMPARE(ids, unanswered);
    // Unanswered calls of the last message are exactly what the pairing check reports missing.
    if (!unanswered.isEmpty()) {
        const Result<void> pairing = history.checkPairing();
        QVERIFY(!pairing.hasValue());
        QVERIFY(pairing.error().message.contains(u"missing tool results"_s));
    }
}

void tst_History::appendOnly()
{
    History history;
    QVERIFY(history.isEmpty());
    history.append(systemMessage);
    history.append(userMessage);
    const Message first = history.at(0);
    history.append(callsMessage({u"call_1"_s}));
    QCOMPARE(history.size(), 3);
    QVERIFY(history.at(0) == first);
    QVERIFY(history.at(1) == userMessage);
    QCOMPARE(history.last().toolCalls().first().id, u"call_1"_s);
    QCOMPARE(history.messages().size(), 3);
}

void tst_History::jsonRoundTrip()
{
    const History original = historyOf({systemMessage,
                                        userMessage,
                                        callsMessage({u"call_abc123"_s}),
                                        Message::tool(u"call_abc123"_s, u"42"_s),
                                        callsMessage({u"call_1"_s, u"call_2"_s}, u"两个"_s),
                                        Message::tool(u"call_1"_s, u"shell_failed: exit code 1"_s),
                                        Message::tool(u"call_2"_s, u"denied: no"_s),
                                        Message::assistant(u"命令执行成功,输出是 42。"_s)});

    const QJsonArray json = original.toJson();
    QCOMPARE(json.size(), original.size());
    QVERIFY(json.at(2)[u"content"_s].isNull());
    QCOMPARE(json.at(2)[u"tool_calls"_s][0][u"function"_s][u"arguments"_s].toString(),
             uR"({"command":"echo 42"})"_s);
    QCOMPARE(json.at(3)[u"tool_call_id"_s].toString(), u"call_abc123"_s);

    // Through bytes, as a saved conversation goes.
    const QByteArray bytes = QJsonDocument(json).toJson(QJsonDocument::Compact);
    const Result<History> back = History::fromJson(QJsonDocument::fromJson(bytes).array());
    QVERIFY(back.hasValue());
    QCOMPARE(back->size(), original.size());
    for (qsizetype i = 0; i < original.size(); ++i)
        QVERIFY2(back->at(i) == original.at(i), qPrintable(u"message %1"_s.arg(i)));
    QCOMPARE(QJsonDocument(back->toJson()).toJson(QJsonDocument::Compact), bytes);
    QVERIFY(back->checkPairing().hasValue());
}

void tst_History::fromJsonRejects_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("errorContains");

    QTest::newRow("not an object")
            << QByteArray(R"([{"role":"user","content":"a"}, 7])") << u"Message 2"_s;
    QTest::newRow("unknown role") << QByteArray(R"([{"role":"user","content":"a"},)"
                                                R"({"role":"robot","content":"b"}])")
                                  << u"robot"_s;
    QTest::newRow("tool without id")
            << QByteArray(R"([{"role":"tool","content":"42"}])") << u"tool_call_id"_s;
}

void tst_History::fromJsonRejects()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, errorContains);

    const Result<History> history = History::fromJson(QJsonDocument::fromJson(json).array());
    QVERIFY(!history.hasValue());
    QVERIFY2(history.error().message.contains(errorContains), qPrintable(history.error().message));
}

void tst_History::messagesJsonIsTheArraysInside()
{
    History history;
    QCOMPARE(history.messagesJson(), QByteArray());
    history.append(Message::system(QStringLiteral("be brief")));
    history.append(Message::user(QStringLiteral("运行 \"echo 42\"")));
    history.append(Message::assistant(std::nullopt,
                                      {{QStringLiteral("call_1"),
                                        QStringLiteral("shell"),
                                        QStringLiteral("{\"command\":\"echo 42\"}")}}));
    history.append(Message::tool(QStringLiteral("call_1"), QStringLiteral("42")));

    const QByteArray array = '[' + history.messagesJson() + ']';
    QJsonParseError error;
    const QJsonDocument parsed = QJsonDocument::fromJson(array, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(parsed.array(), history.toJson());
    // A copy keeps the text; appending to it leaves the original alone.
    History copy = history;
    copy.append(Message::user(QStringLiteral("again")));
    QCOMPARE(QJsonDocument::fromJson('[' + history.messagesJson() + ']').array(), history.toJson());
    QCOMPARE(QJsonDocument::fromJson('[' + copy.messagesJson() + ']').array().size(), 5);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_History)
#include "tst_history.moc"
