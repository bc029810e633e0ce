#include "protocol/message.h"
#include "testjson.h"
#include "testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_Message : public QObject
{
    Q_OBJECT

private slots:
    void toJson_data();
    void toJson();
    void fromJson_data();
    void fromJson();
    void fromJsonRejects_data();
    void fromJsonRejects();
    void roundTrip_data();
    void roundTrip();
    void storedReasoning();
    void textAndContentFlags_data();
    void textAndContentFlags();
    void equality();
    void copiesShareOneFrozenPayload();
};

namespace {} // namespace

// What the provider receives for each role: the Chat Completions wire format.
void tst_Message::toJson_data()
{
    QTest::addColumn<Message>("message");
    QTest::addColumn<QByteArray>("expected");

    QTest::newRow("system") << Message::system(u"You are a coding agent."_s)
                            << QByteArray(
                                       R"({"role":"system","content":"You are a coding agent."})");
    QTest::newRow("user, Chinese")
            << Message::user(u"运行 Write-Output 42,并告诉我结果"_s)
            << QByteArray(R"({"role":"user","content":"运行 Write-Output 42,并告诉我结果"})");
    QTest::newRow("assistant text only")
            << Message::assistant(u"命令执行成功,输出是 42。"_s)
            << QByteArray(R"({"role":"assistant","content":"命令执行成功,输出是 42。"})");
    QTest::newRow("assistant calls only: content stays null")
            << Message::assistant(std::nullopt,
                                  {{u"call_abc123"_s,
                                    u"shell"_s,
                                    uR"({"command":"Write-Output 42"})"_s}})
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123",)"
                          R"("type":"function","function":{"name":"shell",)"
                          R"("arguments":"{\"command\":\"Write-Output 42\"}"}}]})");
    QTest::newRow("assistant text and two calls, malformed arguments kept as text")
            << Message::assistant(u"Let me look."_s,
                                  {{u"call_1"_s, u"shell"_s, uR"({"command": "ls"})"_s},
                                   {u"call_2"_s, u"shell"_s, u"{not json"_s}})
            << QByteArray(R"({"role":"assistant","content":"Let me look.","tool_calls":[)"
                          R"({"id":"call_1","type":"function","function":{"name":"shell",)"
                          R"("arguments":"{\"command\": \"ls\"}"}},)"
                          R"({"id":"call_2","type":"function","function":{"name":"shell",)"
                          R"("arguments":"{not json"}}]})");
    QTest::newRow("assistant empty string is not null")
            << Message::assistant(u""_s) << QByteArray(R"({"role":"assistant","content":""})");
    // Kimi: "text content is empty" (MoonshotAI/kimi-cli#2621); GLM: error 1214
    // (songquanpeng/one-api#1153). A streamed call arrives with content "" and goes back as null.
    QTest::newRow("assistant empty string with calls: null (Kimi, GLM)")
            << Message::assistant(u""_s, {{u"call_1"_s, u"shell"_s, u"{}"_s}})
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1",)"
                          R"("type":"function","function":{"name":"shell","arguments":"{}"}}]})");
    QTest::newRow("assistant text with calls stays")
            << Message::assistant(u" "_s, {{u"call_1"_s, u"shell"_s, u"{}"_s}})
            << QByteArray(R"({"role":"assistant","content":" ","tool_calls":[{"id":"call_1",)"
                          R"("type":"function","function":{"name":"shell","arguments":"{}"}}]})");
    // DeepSeek thinking mode with tool calls requires it back within the turn.
    QTest::newRow("reasoning_content is sent back")
            << Message::assistant(u"ok"_s, {}, u"think"_s, ReasoningField::ReasoningContent)
            << QByteArray(R"({"role":"assistant","content":"ok","reasoning_content":"think"})");
    // Groq: "property 'reasoning_content' is unsupported"; nobody requires `reasoning` back.
    QTest::newRow("reasoning under Groq's name is not sent back")
            << Message::assistant(u"ok"_s, {}, u"think"_s, ReasoningField::Reasoning)
            << QByteArray(R"({"role":"assistant","content":"ok"})");
    // Gemini 3 thought signatures (https://ai.google.dev/gemini-api/docs/thought-signatures).
    QTest::newRow("a call's extra members are sent back verbatim")
            << Message::assistant(
                       std::nullopt,
                       {{u"call_1"_s,
                         u"shell"_s,
                         u"{}"_s,
                         parseObject(
                                 R"({"extra_content":{"google":{"thought_signature":"c2ln"}}})")}})
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1",)"
                          R"("type":"function","function":{"name":"shell","arguments":"{}"},)"
                          R"("extra_content":{"google":{"thought_signature":"c2ln"}}}]})");
    QTest::newRow("tool") << Message::tool(u"call_abc123"_s, u"42"_s)
                          << QByteArray(
                                     R"({"role":"tool","content":"42","tool_call_id":"call_abc123"})");
}

void tst_Message::toJson()
{
    QFETCH(Message, message);
    QFETCH(QByteArray, expected);

    const QJsonObject json = message.toJson();
    // Compare as objects (key order is QJsonObject's) and check the two facts that matter most.
    QCOMPARE(compact(json), compact(parseObject(expected)));
    if (message.role() == Role::Assistant && !message.hasContent())
        QVERIFY(json.value(u"content"_s).isNull());
    for (const QJsonValue &call : json.value(u"tool_calls"_s).toArray())
        QVERIFY(call[u"function"_s][u"arguments"_s].isString());
}

// What providers really send, and what the history file may hold.
void tst_Message::fromJson_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<Message>("expected");

    QTest::newRow("system") << QByteArray(R"({"role":"system","content":"be brief"})")
                            << Message::system(u"be brief"_s);
    QTest::newRow("developer counts as system")
            << QByteArray(R"({"role":"developer","content":"be brief"})")
            << Message::system(u"be brief"_s);
    QTest::newRow("user") << QByteArray(R"({"role":"user","content":"hi"})")
                          << Message::user(u"hi"_s);
    QTest::newRow("user content as text parts")
            << QByteArray(R"({"role":"user","content":[{"type":"text","text":"运行 "},)"
                          R"({"type":"text","text":"echo 42"}]})")
            << Message::user(u"运行 echo 42"_s);
    QTest::newRow("assistant content null")
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123",)"
                          R"("type":"function","function":{"name":"shell",)"
                          R"("arguments":"{\"command\":\"Write-Output 42\"}"}}]})")
            << Message::assistant(std::nullopt,
                                  {{u"call_abc123"_s,
                                    u"shell"_s,
                                    uR"({"command":"Write-Output 42"})"_s}});
    QTest::newRow("assistant content absent = null")
            << QByteArray(R"({"role":"assistant"})") << Message::assistant(std::nullopt);
    QTest::newRow("assistant content empty string stays empty string")
            << QByteArray(R"({"role":"assistant","content":"","tool_calls":[]})")
            << Message::assistant(u""_s);
    QTest::newRow("tool call without type")
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1",)"
                          R"("function":{"name":"shell","arguments":"{\"command\":\"ls\"}"}}]})")
            << Message::assistant(std::nullopt,
                                  {{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s}});
    QTest::newRow("arguments as an object become compact text")
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1",)"
                          R"("type":"function","function":{"name":"shell",)"
                          R"("arguments":{ "command" : "ls -la" }}}]})")
            << Message::assistant(std::nullopt,
                                  {{u"call_1"_s, u"shell"_s, uR"({"command":"ls -la"})"_s}});
    QTest::newRow("empty arguments string kept")
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1",)"
                          R"("type":"function","function":{"name":"now","arguments":""}}]})")
            << Message::assistant(std::nullopt, {{u"call_1"_s, u"now"_s, u""_s}});
    QTest::newRow("arguments string kept byte for byte, spaces and escapes included")
            << QByteArray(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1",)"
                          R"("type":"function","function":{"name":"shell",)"
                          R"("arguments":"{ \"command\" :\t\"echo \\\"中文\\\"\" }"}}]})")
            << Message::assistant(std::nullopt,
                                  {{u"call_1"_s,
                                    u"shell"_s,
                                    u"{ \"command\" :\t\"echo \\\"中文\\\"\" }"_s}});
    QTest::newRow("tool") << QByteArray(R"({"role":"tool","tool_call_id":"call_1","content":"42"})")
                          << Message::tool(u"call_1"_s, u"42"_s);
    QTest::newRow("tool content null = empty")
            << QByteArray(R"({"role":"tool","tool_call_id":"call_1","content":null})")
            << Message::tool(u"call_1"_s, u""_s);
}

void tst_Message::fromJson()
{
    QFETCH(QByteArray, json);
    QFETCH(Message, expected);

    const Result<Message> message = Message::fromJson(parseObject(json));
    QVERIFY2(message.hasValue(), qPrintable(message ? QString() : message.error().message));
    QCOMPARE(message->role(), expected.role());
    QCOMPARE(message->hasContent(), expected.hasContent());
    QCOMPARE(message->content(), expected.content());
    QCOMPARE(message->toolCalls().size(), expected.toolCalls().size());
    for (qsizetype i = 0; i < expected.toolCalls().size(); ++i) {
        QCOMPARE(message->toolCalls().at(i).id, expected.toolCalls().at(i).id);
        QCOMPARE(message->toolCalls().at(i).name, expected.toolCalls().at(i).name);
        QCOMPARE(message->toolCalls().at(i).arguments, expected.toolCalls().at(i).arguments);
    }
    QCOMPARE(message->toolCallId(), expected.toolCallId());
    QVERIFY(*message == expected);
}

void tst_Message::fromJsonRejects_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("errorContains");

    QTest::newRow("unknown role") << QByteArray(R"({"role":"robot","content":"beep"})")
                                  << u"unknown role \"robot\""_s;
    QTest::newRow("no role") << QByteArray(R"({"content":"beep"})") << u"unknown role"_s;
    QTest::newRow("tool message without tool_call_id")
            << QByteArray(R"({"role":"tool","content":"42"})") << u"tool_call_id"_s;
    QTest::newRow("tool message with empty tool_call_id")
            << QByteArray(R"({"role":"tool","tool_call_id":"","content":"42"})")
            << u"tool_call_id"_s;
    QTest::newRow("content is a number")
            << QByteArray(R"({"role":"user","content":42})") << u"content"_s;
    QTest::newRow("content part that is not text")
            << QByteArray(R"({"role":"user","content":[{"type":"image_url","image_url":{}}]})")
            << u"content"_s;
    QTest::newRow("tool call without id")
            << QByteArray(R"({"role":"assistant","tool_calls":[{"type":"function",)"
                          R"("function":{"name":"shell","arguments":"{}"}}]})")
            << u"no id"_s;
    QTest::newRow("tool call without name")
            << QByteArray(R"({"role":"assistant","tool_calls":[{"id":"call_9","type":"function",)"
                          R"("function":{"arguments":"{}"}}]})")
            << u"call_9"_s;
    QTest::newRow("arguments a number")
            << QByteArray(R"({"role":"assistant","tool_calls":[{"id":"call_7","type":"function",)"
                          R"("function":{"name":"shell","arguments":7}}]})")
            << u"call_7"_s;
}

void tst_Message::fromJsonRejects()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, errorContains);

    const Result<Message> message = Message::fromJson(parseObject(json));
    QVERIFY(!message.hasValue());
    QCOMPARE(message.error().kind, Error::Protocol);
    QVERIFY2(message.error().message.contains(errorContains), qPrintable(message.error().message));
}

void tst_Message::roundTrip_data()
{
    QTest::addColumn<Message>("message");

    QTest::newRow("system") << Message::system(u"s"_s);
    QTest::newRow("user") << Message::user(u"中文 and \"quotes\"\n"_s);
    QTest::newRow("assistant null + calls")
            << Message::assistant(std::nullopt,
                                  {{u"call_1"_s, u"shell"_s, uR"({"command":"echo 1"})"_s},
                                   {u"call_2"_s, u"shell"_s, u"{oops"_s}});
    QTest::newRow("assistant text + call")
            << Message::assistant(u"ok"_s, {{u"call_1"_s, u"shell"_s, u"{}"_s}});
    QTest::newRow("assistant empty text") << Message::assistant(u""_s);
    QTest::newRow("tool") << Message::tool(u"call_1"_s, u"shell_failed: exit code 1"_s);
    QTest::newRow("DeepSeek's reasoning_content")
            << Message::assistant(u"ok"_s,
                                  {{u"call_1"_s, u"shell"_s, u"{}"_s}},
                                  u"think"_s,
                                  ReasoningField::ReasoningContent);
    QTest::newRow("Groq's reasoning: kept in the file, still not sent")
            << Message::assistant(u"ok"_s, {}, u"think"_s, ReasoningField::Reasoning);
    QTest::newRow("Gemini's extra_content") << Message::assistant(
            std::nullopt,
            {{u"call_1"_s,
              u"shell"_s,
              u"{}"_s,
              parseObject(R"({"extra_content":{"google":{"thought_signature":"c2ln"}}})")}});
}

void tst_Message::roundTrip()
{
    QFETCH(Message, message);

    // Through bytes, as a saved conversation would go.
    const QJsonObject reparsed = parseObject(compact(message.toStoredJson()));
    const Result<Message> back = Message::fromJson(reparsed);
    QVERIFY(back.hasValue());
    QVERIFY(*back == message);
    QCOMPARE(back->reasoningContent(), message.reasoningContent());
    QCOMPARE(back->sendsReasoningBack(), message.sendsReasoningBack());
    QCOMPARE(compact(back->toJson()), compact(message.toJson()));
    QCOMPARE(compact(back->toStoredJson()), compact(message.toStoredJson()));
}

// Files written before the reasoning field was kept hold reasoning as `reasoning_content` only.
void tst_Message::storedReasoning()
{
    const Message groq = Message::assistant(u"ok"_s, {}, u"think"_s, ReasoningField::Reasoning);
    QCOMPARE(compact(groq.toStoredJson()),
             compact(parseObject(R"({"role":"assistant","content":"ok","reasoning":"think"})")));
    const Result<Message> old = Message::fromJson(
            parseObject(R"({"role":"assistant","content":"ok","reasoning_content":"think"})"));
    QVERIFY(old);
    QVERIFY(old->sendsReasoningBack());
    QCOMPARE(compact(old->toStoredJson()), compact(old->toJson()));
}

void tst_Message::textAndContentFlags_data()
{
    QTest::addColumn<Message>("message");
    QTest::addColumn<bool>("hasContent");
    QTest::addColumn<bool>("hasText");
    QTest::addColumn<bool>("hasToolCalls");

    const QList<ToolCall> call{{u"c"_s, u"shell"_s, u"{}"_s}};
    QTest::newRow("null") << Message::assistant(std::nullopt) << false << false << false;
    QTest::newRow("empty") << Message::assistant(u""_s) << true << false << false;
    QTest::newRow("blank") << Message::assistant(u" \n\t"_s) << true << false << false;
    QTest::newRow("text") << Message::assistant(u"好的"_s) << true << true << false;
    QTest::newRow("null + call") << Message::assistant(std::nullopt, call) << false << false
                                 << true;
    QTest::newRow("text + call") << Message::assistant(u"x"_s, call) << true << true << true;
}

void tst_Message::textAndContentFlags()
{
    QFETCH(Message, message);
    QFETCH(bool, hasContent);
    QFETCH(bool, hasText);
    QFETCH(bool, hasToolCalls);

    QCOMPARE(message.hasContent(), hasContent);
    QCOMPARE(message.hasText(), hasText);
    QCOMPARE(message.hasToolCalls(), hasToolCalls);
    QCOMPARE(message.role(), Role::Assistant);
}

void tst_Message::equality()
{
    const QList<ToolCall> calls{{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s}};
    QVERIFY(Message::user(u"a"_s) == Message::user(u"a"_s));
    QVERIFY(!(Message::user(u"a"_s) == Message::user(u"b"_s)));
    QVERIFY(!(Message::user(u"a"_s) == Message::system(u"a"_s)));
    QVERIFY(Message::assistant(std::nullopt, calls) == Message::assistant(std::nullopt, calls));
    // null and "" are different messages on the wire.
    QVERIFY(!(Message::assistant(std::nullopt) == Message::assistant(u""_s)));
    // Arguments are compared as text: a different spelling is a different message.
    QVERIFY(!(Message::assistant(std::nullopt, calls)
              == Message::assistant(std::nullopt,
                                    {{u"call_1"_s, u"shell"_s, uR"({"command": "ls"})"_s}})));
    QVERIFY(!(Message::tool(u"call_1"_s, u"42"_s) == Message::tool(u"call_2"_s, u"42"_s)));
}

void tst_Message::copiesShareOneFrozenPayload()
{
    const QList<ToolCall> calls{{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s}};
    const Message original = Message::assistant(u"text"_s, calls);
    const Message copy = original; // NOLINT(performance-unnecessary-copy-initialization)

    // Same payload: the tool call list is the very same object, not a copy.
    QCOMPARE(&copy.toolCalls(), &original.toolCalls());
    QVERIFY(copy == original);

    // Assigning another message to a copy leaves the original as it was.
    Message other = original;
    other = Message::user(u"changed"_s);
    QCOMPARE(original.role(), Role::Assistant);
    QCOMPARE(original.content(), u"text"_s);
    QCOMPARE(original.toolCalls(), calls);

    // The constructor's inputs are copied in: changing them afterwards changes nothing.
    QList<ToolCall> mutableCalls = calls;
    QString text = u"before"_s;
    const Message frozen = Message::assistant(text, mutableCalls);
    mutableCalls[0].arguments = u"{}"_s;
    text = u"after"_s;
    QCOMPARE(frozen.toolCalls().first().arguments, uR"({"command":"ls"})"_s);
    QCOMPARE(frozen.content(), u"before"_s);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Message)
#include "tst_message.moc"
