#include "protocol/completion.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_Completion : public QObject
{
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void rejects_data();
    void rejects();
    void usage_data();
    void usage();
    void replaysRecordedResponses_data();
    void replaysRecordedResponses();
    void httpErrorHints_data();
    void httpErrorHints();
    void httpErrorMessage_data();
    void httpErrorMessage();
    void toolCallLimit_data();
    void toolCallLimit();
    void finishReasonSynonyms_data();
    void finishReasonSynonyms();
    void toolCallsWithoutIdsGetOne();
};

namespace {

// The seed's first answer: content null, one call, arguments a JSON string.
const QByteArray seedToolCallResponse = R"({
  "choices": [{
    "finish_reason": "tool_calls",
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [{
        "id": "call_abc123",
        "type": "function",
        "function": {
          "name": "shell",
          "arguments": "{\"command\":\"Write-Output 42\"}"
        }
      }]
    }
  }]
})";

// The seed's final answer: text, an empty tool_calls array.
const QByteArray seedFinalResponse = R"({
  "choices": [{
    "finish_reason": "stop",
    "message": {
      "role": "assistant",
      "content": "命令执行成功,输出是 42。",
      "tool_calls": []
    }
  }]
})";

} // namespace

void tst_Completion::parses_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<Message>("expected");
    QTest::addColumn<QString>("finishReason");

    QTest::newRow("seed: tool call, content null")
            << seedToolCallResponse
            << Message::assistant(std::nullopt,
                                  {{u"call_abc123"_s,
                                    u"shell"_s,
                                    uR"({"command":"Write-Output 42"})"_s}})
            << u"tool_calls"_s;
    QTest::newRow("seed: final answer, empty tool_calls")
            << seedFinalResponse << Message::assistant(u"命令执行成功,输出是 42。"_s) << u"stop"_s;
    QTest::newRow("text and a call")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"tool_calls","message":{)"
                          R"("role":"assistant","content":"I'll check.","tool_calls":[{"id":"c1",)"
                          R"("type":"function","function":{"name":"shell",)"
                          R"("arguments":"{\"command\": \"ls\"}"}}]}}]})")
            << Message::assistant(u"I'll check."_s,
                                  {{u"c1"_s, u"shell"_s, uR"({"command": "ls"})"_s}})
            << u"tool_calls"_s;
    QTest::newRow("neither text nor calls still parses (the loop decides)")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop",)"
                          R"("message":{"role":"assistant","content":null}}]})")
            << Message::assistant(std::nullopt) << u"stop"_s;
    QTest::newRow("no finish_reason at all")
            << QByteArray(R"({"choices":[{"message":{"role":"assistant","content":"hi"}}]})")
            << Message::assistant(u"hi"_s) << QString();
    QTest::newRow("finish_reason null")
            << QByteArray(R"({"choices":[{"finish_reason":null,)"
                          R"("message":{"role":"assistant","content":"hi"}}]})")
            << Message::assistant(u"hi"_s) << QString();
    QTest::newRow("missing role in message")
            << QByteArray(R"({"choices":[{"finish_reason":"stop","message":{"content":"hi"}}]})")
            << Message::assistant(u"hi"_s) << u"stop"_s;
    QTest::newRow("several choices: index 0 chosen even when listed second") << QByteArray(
            R"({"choices":[)"
            R"({"index":1,"finish_reason":"stop","message":{"role":"assistant","content":"second"}},)"
            R"({"index":0,"finish_reason":"length","message":{"role":"assistant","content":"first"}},)"
            R"({"index":2,"finish_reason":"stop","message":{"role":"assistant","content":"third"}}]})")
                                                                             << Message::assistant(
                                                                                        u"first"_s)
                                                                             << u"length"_s;
    QTest::newRow("refusal shown as the text")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop","message":{)"
                          R"("role":"assistant","content":null,)"
                          R"("refusal":"I'm very sorry, but I can't assist with that."}}]})")
            << Message::assistant(u"I'm very sorry, but I can't assist with that."_s) << u"stop"_s;
    QTest::newRow("refusal null leaves content alone")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop","message":{)"
                          R"("role":"assistant","content":"fine","refusal":null}}]})")
            << Message::assistant(u"fine"_s) << u"stop"_s;
    QTest::newRow("arguments as an object, missing type")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"tool_calls","message":{)"
                          R"("role":"assistant","tool_calls":[{"id":"c1","function":{)"
                          R"("name":"shell","arguments":{"command":"pwd"}}}]}}]})")
            << Message::assistant(std::nullopt, {{u"c1"_s, u"shell"_s, uR"({"command":"pwd"})"_s}})
            << u"tool_calls"_s;
    // https://ai.google.dev/gemini-api/docs/thought-signatures (OpenAI compatibility)
    QTest::newRow("Gemini 3: extra_content kept on the call")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"tool_calls","message":{)"
                          R"("role":"assistant","tool_calls":[{"id":"c1","type":"function",)"
                          R"("extra_content":{"google":{"thought_signature":"CtQB+sig=="}},)"
                          R"("index":0,"function":{"name":"shell","arguments":"{}"}}]}}]})")
            << Message::assistant(std::nullopt,
                                  {{u"c1"_s,
                                    u"shell"_s,
                                    u"{}"_s,
                                    QJsonObject{{u"extra_content"_s,
                                                 QJsonObject{{u"google"_s,
                                                              QJsonObject{{u"thought_signature"_s,
                                                                           u"CtQB+sig=="_s}}}}}}}})
            << u"tool_calls"_s;
    // https://docs.mistral.ai/capabilities/reasoning/ (magistral: content as parts)
    QTest::newRow("Mistral thinking parts: reasoning, shown, not sent back")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop","message":{)"
                          R"("role":"assistant","content":[{"type":"thinking","thinking":[)"
                          R"({"type":"text","text":"The user greets."}]},)"
                          R"({"type":"text","text":"Hello!"}]}}]})")
            << Message::assistant(u"Hello!"_s, {}, u"The user greets."_s, ReasoningField::Reasoning)
            << u"stop"_s;
    QTest::newRow("Groq's reasoning: shown, not sent back")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop","message":{)"
                          R"("role":"assistant","content":"Hi","reasoning":"Greet back."}}]})")
            << Message::assistant(u"Hi"_s, {}, u"Greet back."_s, ReasoningField::Reasoning)
            << u"stop"_s;
    QTest::newRow("DeepSeek's reasoning_content: sent back")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop","message":{)"
                          R"("role":"assistant","content":"Hi","reasoning_content":"Greet."}}]})")
            << Message::assistant(u"Hi"_s, {}, u"Greet."_s, ReasoningField::ReasoningContent)
            << u"stop"_s;
    QTest::newRow("UTF-8 BOM-less Chinese and escapes kept")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop","message":{)"
                          R"("role":"assistant","content":"\u4e2d\u6587 \"x\"\n"}}]})")
            << Message::assistant(u"中文 \"x\"\n"_s) << u"stop"_s;
}

void tst_Completion::parses()
{
    QFETCH(QByteArray, body);
    QFETCH(Message, expected);
    QFETCH(QString, finishReason);

    const Result<Completion> completion = parseCompletion(body);
    QVERIFY2(completion.hasValue(), qPrintable(completion ? QString() : completion.error().message));
    const Message &message = completion->message;
    QCOMPARE(message.role(), Role::Assistant);
    QCOMPARE(message.hasContent(), expected.hasContent());
    QCOMPARE(message.content(), expected.content());
    QCOMPARE(message.toolCalls(), expected.toolCalls());
    QCOMPARE(message.reasoningContent(), expected.reasoningContent());
    QCOMPARE(message.sendsReasoningBack(), expected.sendsReasoningBack());
    QCOMPARE(completion->finishReason, finishReason);
    // What goes back to the provider.
    QCOMPARE(message.toJson(), expected.toJson());
}

void tst_Completion::rejects_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("messageContains");
    QTest::addColumn<QString>("hintContains");

    QTest::newRow("HTTP 200 with an error object")
            << QByteArray(R"({"error":{"message":"The model `gpt-9` does not exist",)"
                          R"("type":"invalid_request_error","code":"model_not_found"}})")
            << u"The model `gpt-9` does not exist"_s << u"could not answer"_s;
    QTest::newRow("HTTP 200 with an error string")
            << QByteArray(R"({"error":"upstream overloaded"})") << u"upstream overloaded"_s
            << QString();
    QTest::newRow("HTML page") << QByteArray(
            "<!DOCTYPE html>\n<html><head><title>Login</title></head>"
            "<body>Please sign in</body></html>")
                               << u"HTML page"_s << u"/v1"_s;
    QTest::newRow("HTML page with leading blank lines")
            << QByteArray("\n\n  <html><body>502 Bad Gateway</body></html>") << u"HTML page"_s
            << u"base URL"_s;
    QTest::newRow("not JSON") << QByteArray("Internal Server Error") << u"not JSON"_s
                              << u"base URL"_s;
    QTest::newRow("empty body") << QByteArray() << u"not JSON"_s << QString();
    QTest::newRow("truncated JSON")
            << QByteArray(R"({"choices":[{"message":{"role":)") << u"not JSON"_s << QString();
    QTest::newRow("JSON array") << QByteArray("[1,2]") << u"not JSON"_s << QString();
    QTest::newRow("no choices key") << QByteArray(R"({"id":"x","object":"chat.completion"})")
                                    << u"no choices"_s << u"compatible"_s;
    QTest::newRow("empty choices")
            << QByteArray(R"({"id":"x","choices":[]})") << u"no choices"_s << u"compatible"_s;
    QTest::newRow("choice without message")
            << QByteArray(R"({"choices":[{"index":0,"finish_reason":"stop"}]})") << u"no message"_s
            << QString();
    QTest::newRow("content a number")
            << QByteArray(R"({"choices":[{"index":0,"message":{"content":5}}]})") << u"content"_s
            << QString();
}

void tst_Completion::rejects()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, messageContains);
    QFETCH(QString, hintContains);

    const Result<Completion> completion = parseCompletion(body);
    QVERIFY(!completion.hasValue());
    QCOMPARE(completion.error().kind, Error::Protocol);
    QVERIFY2(completion.error().message.contains(messageContains),
             qPrintable(completion.error().message));
    QVERIFY2(completion.error().hint.contains(hintContains), qPrintable(completion.error().hint));
}

void tst_Completion::usage_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("hasUsage");
    QTest::addColumn<qint64>("prompt");
    QTest::addColumn<qint64>("completionTokens");
    QTest::addColumn<qint64>("total");

    QTest::newRow("present") << QByteArray(
            R"({"id":"chatcmpl-1","model":"gpt-4.1","choices":[{"index":0,)"
            R"("message":{"role":"assistant","content":"a"},"finish_reason":"stop"}],)"
            R"("usage":{"prompt_tokens":79,"completion_tokens":14,"total_tokens":93}})")
                             << true << qint64(79) << qint64(14) << qint64(93);
    QTest::newRow("absent") << seedFinalResponse << false << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("null") << QByteArray(R"({"choices":[{"index":0,"message":{"content":"a"}}],)"
                                        R"("usage":null})")
                          << false << qint64(0) << qint64(0) << qint64(0);
}

void tst_Completion::usage()
{
    QFETCH(QByteArray, body);
    QFETCH(bool, hasUsage);
    QFETCH(qint64, prompt);
    QFETCH(qint64, completionTokens);
    QFETCH(qint64, total);

    const Result<Completion> completion = parseCompletion(body);
    QVERIFY(completion.hasValue());
    QCOMPARE(completion->usage.has_value(), hasUsage);
    if (hasUsage) {
        QCOMPARE(completion->usage->promptTokens, prompt);
        QCOMPARE(completion->usage->completionTokens, completionTokens);
        QCOMPARE(completion->usage->totalTokens, total);
        QCOMPARE(completion->id, u"chatcmpl-1"_s);
        QCOMPARE(completion->model, u"gpt-4.1"_s);
    }
}

// Every recorded response of a real provider parses to exactly what the file holds.
void tst_Completion::replaysRecordedResponses_data()
{
    QTest::addColumn<QString>("path");

    const QDir directory(sharedVectorsPath(u"openai-python-responses"_s));
    if (!directory.exists())
        QSKIP(qPrintable(u"shared vectors not found at %1"_s.arg(directory.path())));
    const QStringList files = directory.entryList({u"*.json"_s}, QDir::Files, QDir::Name);
    if (files.isEmpty())
        QSKIP(qPrintable(u"shared vectors not found at %1 (no *.json)"_s.arg(directory.path())));
    for (const QString &file : files)
        QTest::newRow(qPrintable(file)) << directory.filePath(file);
}

void tst_Completion::replaysRecordedResponses()
{
    QFETCH(QString, path);

    QFile file(path);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
    const QByteArray body = file.readAll();

    // The expectation, read straight from the file.
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    QVERIFY(!root.isEmpty());
    QJsonObject choice;
    for (const QJsonValue &candidate : root.value(u"choices"_s).toArray()) {
        if (candidate[u"index"_s].toInt(-1) == 0)
            choice = candidate.toObject();
    }
    QVERIFY2(!choice.isEmpty(), "the recording has no choice with index 0");
    const QJsonObject message = choice.value(u"message"_s).toObject();
    const QJsonValue content = message.value(u"content"_s);
    const QJsonValue refusal = message.value(u"refusal"_s);
    const QJsonArray toolCalls = message.value(u"tool_calls"_s).toArray();

    const Result<Completion> completion = parseCompletion(body);
    QVERIFY2(completion.hasValue(), qPrintable(completion ? QString() : completion.error().message));
    const Message &parsed = completion->message;

    QCOMPARE(parsed.role(), Role::Assistant);
    if (content.isString()) {
        QVERIFY(parsed.hasContent());
        QCOMPARE(parsed.content(), content.toString());
    } else if (refusal.isString()) {
        QCOMPARE(parsed.content(), refusal.toString()); // a refusal is what the user reads
    } else {
        QVERIFY(!parsed.hasContent());
    }
    QCOMPARE(parsed.toolCalls().size(), toolCalls.size());
    for (qsizetype i = 0; i < toolCalls.size(); ++i) {
        const QJsonObject call = toolCalls.at(i).toObject();
        const QJsonObject function = call.value(u"function"_s).toObject();
        QCOMPARE(parsed.toolCalls().at(i).id, call.value(u"id"_s).toString());
        QCOMPARE(parsed.toolCalls().at(i).name, function.value(u"name"_s).toString());
        // Byte for byte: this string goes back to the provider unchanged.
        QCOMPARE(parsed.toolCalls().at(i).arguments.toUtf8(),
                 function.value(u"arguments"_s).toString().toUtf8());
    }
    // Re-encoding gives the provider the same tool_calls array it sent.
    QCOMPARE(parsed.toJson().value(u"tool_calls"_s).toArray().size(), toolCalls.size());
    for (qsizetype i = 0; i < toolCalls.size(); ++i) {
        QCOMPARE(parsed.toJson()[u"tool_calls"_s][i][u"function"_s][u"arguments"_s].toString(),
                 toolCalls.at(i)[u"function"_s][u"arguments"_s].toString());
    }
    QCOMPARE(completion->finishReason, choice.value(u"finish_reason"_s).toString());
    QCOMPARE(completion->id, root.value(u"id"_s).toString());
    QCOMPARE(completion->model, root.value(u"model"_s).toString());
    const QJsonObject usage = root.value(u"usage"_s).toObject();
    QCOMPARE(completion->usage.has_value(), !usage.isEmpty());
    if (completion->usage) {
        QCOMPARE(completion->usage->promptTokens, usage.value(u"prompt_tokens"_s).toInteger());
        QCOMPARE(completion->usage->completionTokens,
                 usage.value(u"completion_tokens"_s).toInteger());
        QCOMPARE(completion->usage->totalTokens, usage.value(u"total_tokens"_s).toInteger());
    }
}

void tst_Completion::httpErrorHints_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("hintContains");

    QTest::newRow("400") << 400 << u"model"_s;
    QTest::newRow("401") << 401 << u"OPENAI_API_KEY"_s;
    QTest::newRow("403") << 403 << u"OPENAI_API_KEY"_s;
    QTest::newRow("404") << 404 << u"/v1"_s;
    QTest::newRow("408") << 408 << u"try again"_s;
    QTest::newRow("429") << 429 << u"Rate limit"_s;
    QTest::newRow("500") << 500 << u"try again"_s;
    QTest::newRow("502") << 502 << u"try again"_s;
    QTest::newRow("503") << 503 << u"try again"_s;
}

void tst_Completion::httpErrorHints()
{
    QFETCH(int, status);
    QFETCH(QString, hintContains);

    const QByteArray body = R"({"error":{"message":"provider says no","type":"x","code":null}})";
    const Error error = httpError(status, body);
    QCOMPARE(error.kind, Error::Http);
    QCOMPARE(error.httpStatus, status);
    QCOMPARE(error.providerMessage, u"provider says no"_s);
    QVERIFY2(error.message.contains(QString::number(status)), qPrintable(error.message));
    QVERIFY2(error.message.contains(u"provider says no"_s), qPrintable(error.message));
    QVERIFY2(error.hint.contains(hintContains), qPrintable(error.hint));
    // What a front end prints holds both the problem and the fix.
    QVERIFY(error.toString().contains(error.hint));
}

void tst_Completion::httpErrorMessage_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("providerMessage");
    QTest::addColumn<QString>("messageContains");

    QTest::newRow("OpenAI error object")
            << QByteArray(
                       R"({"error":{"message":"Incorrect API key provided: sk-ab***",)"
                       R"("type":"invalid_request_error","param":null,"code":"invalid_api_key"}})")
            << u"Incorrect API key provided: sk-ab***"_s << u"Incorrect API key provided"_s;
    QTest::newRow("top-level message")
            << QByteArray(R"({"message":"Not Found"})") << u"Not Found"_s << u"Not Found"_s;
    QTest::newRow("HTML page") << QByteArray("<html><body><h1>404</h1></body></html>") << QString()
                               << u"an HTML page"_s;
    QTest::newRow("plain text") << QByteArray("no such route") << QString() << u"no such route"_s;
    QTest::newRow("empty") << QByteArray() << QString() << u"HTTP 401"_s;
}

void tst_Completion::httpErrorMessage()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, providerMessage);
    QFETCH(QString, messageContains);

    const Error error = httpError(401, body);
    QCOMPARE(error.httpStatus, 401);
    QCOMPARE(error.providerMessage, providerMessage);
    QVERIFY2(error.message.startsWith(u"HTTP 401"_s), qPrintable(error.message));
    QVERIFY2(error.message.contains(messageContains), qPrintable(error.message));
    QCOMPARE(providerErrorMessage(body), providerMessage);
}

void tst_Completion::toolCallLimit_data()
{
    QTest::addColumn<int>("calls");
    QTest::addColumn<bool>("accepted");

    QTest::newRow("one") << 1 << true;
    QTest::newRow("the limit") << maxToolCallsPerMessage << true;
    QTest::newRow("one past the limit") << maxToolCallsPerMessage + 1 << false;
    QTest::newRow("a thousand") << 1000 << false;
}

// A message with more tool calls than the loop will run is refused whole, not cut short.
void tst_Completion::toolCallLimit()
{
    QFETCH(int, calls);
    QFETCH(bool, accepted);

    QJsonArray toolCalls;
    for (int i = 0; i < calls; ++i) {
        toolCalls.append(
                QJsonObject{{u"id"_s, u"call_%1"_s.arg(i)},
                            {u"type"_s, u"function"_s},
                            {u"function"_s,
                             QJsonObject{{u"name"_s, u"shell"_s},
                                         {u"arguments"_s, u"{\"command\":\"echo %1\"}"_s.arg(i)}}}});
    }
    const QJsonObject message{{u"role"_s, u"assistant"_s},
                              {u"content"_s, QJsonValue::Null},
                              {u"tool_calls"_s, toolCalls}};
    const QJsonObject choice{{u"index"_s, 0},
                             {u"message"_s, message},
                             {u"finish_reason"_s, u"tool_calls"_s}};
    const QByteArray body = QJsonDocument(QJsonObject{{u"choices"_s, QJsonArray{choice}}})
                                    .toJson(QJsonDocument::Compact);

    const Result<Completion> completion = parseCompletion(body);
    QCOMPARE(completion.hasValue(), accepted);
    if (accepted) {
        QCOMPARE(completion->message.toolCalls().size(), calls);
        QCOMPARE(completion->message.toolCalls().last().id, u"call_%1"_s.arg(calls - 1));
        return;
    }
    QCOMPARE(completion.error().kind, Error::Agent);
    QCOMPARE(completion.error().message,
             u"The model asked for more than 128 tool calls in one message, so none of them was "
             u"run."_s);
    QVERIFY(!completion.error().hint.isEmpty());
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Completion)
void tst_Completion::finishReasonSynonyms_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("expected");

    QTest::newRow("stop") << u"stop"_s << u"stop"_s;
    QTest::newRow("tool_calls") << u"tool_calls"_s << u"tool_calls"_s;
    QTest::newRow("length") << u"length"_s << u"length"_s;
    QTest::newRow("content_filter") << u"content_filter"_s << u"content_filter"_s;
    QTest::newRow("Together: eos") << u"eos"_s << u"stop"_s;
    QTest::newRow("LiteLLM / Anthropic-style: end_turn") << u"end_turn"_s << u"stop"_s;
    QTest::newRow("stop_sequence") << u"stop_sequence"_s << u"stop"_s;
    QTest::newRow("OpenAI (deprecated): function_call") << u"function_call"_s << u"tool_calls"_s;
    QTest::newRow("max_tokens") << u"max_tokens"_s << u"length"_s;
    QTest::newRow("Zhipu GLM: sensitive") << u"sensitive"_s << u"content_filter"_s;
    QTest::newRow("OpenRouter: error") << u"error"_s << u"error"_s;
    QTest::newRow("undocumented: kept as it is") << u"banana"_s << u"banana"_s;
    QTest::newRow("none") << QString() << QString();
}

void tst_Completion::finishReasonSynonyms()
{
    QFETCH(QString, provider);
    QFETCH(QString, expected);

    QCOMPARE(finishReasonFromProvider(provider), expected);
    const QJsonObject choice{{u"index"_s, 0},
                             {u"message"_s, QJsonObject{{u"content"_s, u"x"_s}}},
                             {u"finish_reason"_s,
                              provider.isEmpty() ? QJsonValue() : QJsonValue(provider)}};
    const Result<Completion> completion = parseCompletion(
            compact(QJsonObject{{u"choices"_s, QJsonArray{choice}}}));
    QVERIFY(completion);
    QCOMPARE(completion->finishReason, expected);
    QCOMPARE(completion->providerFinishReason, provider);
}

// Gemini (some paths), vLLM and llama.cpp may send a call with an empty or no id.
void tst_Completion::toolCallsWithoutIdsGetOne()
{
    const QByteArray body
            = R"({"id":"chatcmpl-9","choices":[{"index":0,"finish_reason":"tool_calls",)"
              R"("message":{"role":"assistant","content":null,"tool_calls":[)"
              R"({"type":"function","function":{"name":"shell","arguments":"{}"}},)"
              R"({"id":"","type":"function","function":{"name":"shell","arguments":"{}"}},)"
              R"({"id":"call_kept","type":"function","function":{"name":"ls"}}]}}]})";
    const Result<Completion> completion = parseCompletion(body);
    QVERIFY2(completion, qPrintable(completion ? QString() : completion.error().message));
    const QList<ToolCall> calls = completion->message.toolCalls();
    QCOMPARE(calls.size(), 3);
    QVERIFY2(calls[0].id.startsWith(u"call_") && calls[0].id.size() > 10, qPrintable(calls[0].id));
    QVERIFY2(calls[1].id.startsWith(u"call_") && calls[1].id.size() > 10, qPrintable(calls[1].id));
    QVERIFY(calls[0].id != calls[1].id); // unique within the message, though the calls are equal
    QCOMPARE(calls[2].id, u"call_kept"_s);
    QCOMPARE(parseCompletion(body)->message.toolCalls(), calls); // the same answer, the same ids
    // A saved conversation is not a provider's answer: an id-less call there is still refused.
    QVERIFY(!Message::fromJson(
            QJsonObject{{u"role"_s, u"assistant"_s},
                        {u"tool_calls"_s,
                         QJsonArray{QJsonObject{
                                 {u"function"_s, QJsonObject{{u"name"_s, u"shell"_s}}}}}}}));
}

#include "tst_completion.moc"
