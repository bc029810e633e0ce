#include "protocol/completion.h"
#include "protocol/sseparser.h"
#include "protocol/streamassembler.h"
#include "streamstate.h"
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

using Payloads = QList<QByteArray>;

class tst_StreamAssembler : public QObject
{
    Q_OBJECT

private slots:
    void recordedStreams_data();
    void recordedStreams();
    void parallelToolCallsInIndexOrder();
    void lengthRecording();
    void refusalRecordings_data();
    void refusalRecordings();
    void severalChoicesUseChoiceZero();
    void usageFromTheFinalChunk();

    void assembles_data();
    void assembles();
    void fails_data();
    void fails();
    void sameAsNonStreamed();
    void errorEvent();
    void errorSticks();
    void textDeltasAsTheyArrive();
    void reasoningContent();
    void toolCallsWithoutIdsGetOne();
    void finishReasonSynonyms();
    void hasOutputOnlyOnceTheModelAnswers();

    void scannerReadsRecordingsAsJsonDocument_data();
    void scannerReadsRecordingsAsJsonDocument();
    void scannerReadsChunksAsJsonDocument_data();
    void scannerReadsChunksAsJsonDocument();

    void toolCallLimit_data();
    void toolCallLimit();
};

namespace {

QByteArray readVector(const QString &relativePath)
{
    return readFile(sharedVectorsPath(relativePath));
}

#define SKIP_WITHOUT_VECTORS() \
    if (!QDir(sharedVectorsPath()).exists()) \
    QSKIP(qPrintable(u"shared vectors not found at %1"_s.arg(sharedVectorsPath())))

// Parses and assembles an SSE stream fed in chunks of chunkSize bytes (0: whole). The text
// deltas taken after every chunk are appended to *textDeltas.
Result<Completion> assemble(const QByteArray &sse,
                            qsizetype chunkSize,
                            QString *textDeltas = nullptr)
{
    SseParser parser;
    StreamAssembler assembler;
    const auto add = [&](const Result<QList<SseEvent>> &events) -> Result<void> {
        if (!events)
            return events.error();
        for (const SseEvent &event : *events) {
            if (Result<void> added = assembler.addEvent(event); !added)
                return added;
        }
        if (textDeltas)
            *textDeltas += assembler.takeTextDelta();
        return {};
    };
    const qsizetype step = chunkSize > 0 ? chunkSize : std::max<qsizetype>(sse.size(), 1);
    for (qsizetype at = 0; at < sse.size(); at += step) {
        if (Result<void> added = add(parser.feed(
                    QByteArrayView(sse).sliced(at).first(std::min(step, sse.size() - at))));
            !added)
            return added.error();
    }
    if (Result<void> added = add(parser.finish()); !added)
        return added.error();
    return assembler.result();
}

Result<Completion> assemblePayloads(const Payloads &payloads)
{
    StreamAssembler assembler;
    for (const QByteArray &payload : payloads)
        (void) assembler.addPayload(payload);
    return assembler.result();
}

QByteArray toSse(const Payloads &payloads)
{
    QByteArray sse;
    for (const QByteArray &payload : payloads)
        sse += "data: " + payload + "\n\n";
    return sse;
}

QByteArray wire(const Message &message)
{
    return compact(message.toJson());
}

// What a recording must give, read without the assembler: every data line is one JSON chunk.
struct Expected
{
    std::optional<QString> content;
    QString refusal;
    QMap<int, ToolCall> calls;
    QMap<int, QStringList> argumentFragments;
    QString finishReason;
    QJsonObject usage;
    QString id;
    QString model;
};

Expected expectedFromRecording(const QByteArray &sse)
{
    Expected expected;
    for (const QByteArray &line : sse.split('\n')) {
        if (!line.startsWith("data: {"))
            continue;
        const QJsonObject chunk = QJsonDocument::fromJson(line.mid(6)).object();
        if (expected.id.isEmpty())
            expected.id = chunk[u"id"_s].toString();
        if (expected.model.isEmpty())
            expected.model = chunk[u"model"_s].toString();
        if (chunk[u"usage"_s].isObject())
            expected.usage = chunk[u"usage"_s].toObject();
        for (const QJsonValue choice : chunk[u"choices"_s].toArray()) {
            if (choice[u"index"_s].toInt() != 0)
                continue;
            const QJsonObject delta = choice[u"delta"_s].toObject();
            if (delta[u"content"_s].isString())
                expected.content = expected.content.value_or(QString())
                                   + delta[u"content"_s].toString();
            expected.refusal += delta[u"refusal"_s].toString();
            for (const QJsonValue fragment : delta[u"tool_calls"_s].toArray()) {
                const int index = fragment[u"index"_s].toInt();
                ToolCall &call = expected.calls[index];
                if (fragment[u"id"_s].isString())
                    call.id = fragment[u"id"_s].toString();
                const QJsonObject function = fragment[u"function"_s].toObject();
                if (function[u"name"_s].isString())
                    call.name = function[u"name"_s].toString();
                if (function[u"arguments"_s].isString())
                    expected.argumentFragments[index] << function[u"arguments"_s].toString();
            }
            if (choice[u"finish_reason"_s].isString())
                expected.finishReason = choice[u"finish_reason"_s].toString();
        }
    }
    for (auto it = expected.calls.begin(); it != expected.calls.end(); ++it)
        it->arguments = expected.argumentFragments.value(it.key()).join(QString());
    return expected;
}

Result<Completion> assembleVector(const QString &relativePath)
{
    return assemble(readVector(relativePath), 0);
}

// Synthetic chunks, shaped like OpenAI's.
QByteArray chunk(const QJsonObject &delta, const QString &finishReason = {})
{
    const QJsonObject choice{
            {u"index"_s, 0},
            {u"delta"_s, delta},
            {u"finish_reason"_s, finishReason.isEmpty() ? QJsonValue() : QJsonValue(finishReason)},
    };
    return compact(QJsonObject{{u"id"_s, u"chatcmpl-1"_s},
                               {u"object"_s, u"chat.completion.chunk"_s},
                               {u"model"_s, u"test-model"_s},
                               {u"choices"_s, QJsonArray{choice}}});
}

QJsonObject text(const QString &content)
{
    return {{u"content"_s, content}};
}

// One tool-call fragment; index < 0, an empty id or name and an undefined arguments are left out.
QJsonObject fragment(int index,
                     const QString &id,
                     const QString &name,
                     const QJsonValue &arguments = QJsonValue::Undefined)
{
    QJsonObject call;
    if (index >= 0)
        call.insert(u"index"_s, index);
    if (!id.isEmpty()) {
        call.insert(u"id"_s, id);
        call.insert(u"type"_s, u"function"_s);
    }
    QJsonObject function;
    if (!name.isEmpty())
        function.insert(u"name"_s, name);
    if (!arguments.isUndefined())
        function.insert(u"arguments"_s, arguments);
    if (!function.isEmpty())
        call.insert(u"function"_s, function);
    return {{u"tool_calls"_s, QJsonArray{call}}};
}

QJsonObject args(int index, const QString &arguments)
{
    return fragment(index, {}, {}, arguments);
}

const QByteArray roleChunk = chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}});
const QByteArray done = "[DONE]";
const QString echoArguments = uR"({"command":"echo 42"})"_s;

} // namespace

void tst_StreamAssembler::recordedStreams_data()
{
    QTest::addColumn<QString>("path");
    const QDir root(sharedVectorsPath());
    if (!root.exists()) {
        QTest::newRow("missing") << QString(); // skipped, with a message, by the test itself
        return;
    }
    for (const QString &folder : {u"openai-python-streams"_s, u"openai-node-streams"_s}) {
        const QDir dir(root.filePath(folder));
        for (const QString &name : dir.entryList({u"*.sse"_s}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(folder + u'/' + name)) << folder + u'/' + name;
    }
}

void tst_StreamAssembler::recordedStreams()
{
    SKIP_WITHOUT_VECTORS();
    QFETCH(QString, path);
    const QByteArray sse = readVector(path);
    QVERIFY(!sse.isEmpty());

    const Result<Completion> whole = assemble(sse, 0);
    QVERIFY2(whole, qPrintable(whole ? QString() : whole.error().message));
    QString deltas;
    const Result<Completion> bytewise = assemble(sse, 1, &deltas);
    QVERIFY2(bytewise, qPrintable(bytewise ? QString() : bytewise.error().message));

    QCOMPARE(wire(bytewise->message), wire(whole->message));
    QCOMPARE(bytewise->finishReason, whole->finishReason);
    QCOMPARE(bytewise->id, whole->id);
    QCOMPARE(bytewise->model, whole->model);
    QVERIFY(whole->usage && bytewise->usage);
    QCOMPARE(bytewise->usage->totalTokens, whole->usage->totalTokens);

    const Expected expected = expectedFromRecording(sse);
    const Message &message = whole->message;
    if (expected.refusal.isEmpty()) {
        QCOMPARE(message.hasContent(), expected.content.has_value());
        QCOMPARE(message.content(), expected.content.value_or(QString()));
    } else {
        QCOMPARE(message.content(), expected.refusal);
    }
    QCOMPARE(deltas, message.content()); // the UI saw exactly the text the loop keeps
    QCOMPARE(message.toolCalls(), expected.calls.values());
    for (const ToolCall &call : message.toolCalls()) {
        QVERIFY(call.id.startsWith(u"call_"_s));
        QVERIFY(!call.name.isEmpty());
        QJsonParseError error;
        QVERIFY(QJsonDocument::fromJson(call.arguments.toUtf8(), &error).isObject());
    }
    QCOMPARE(whole->finishReason, expected.finishReason);
    QCOMPARE(whole->id, expected.id);
    QCOMPARE(whole->model, expected.model);
    QCOMPARE(whole->usage->promptTokens, expected.usage[u"prompt_tokens"_s].toInteger());
    QCOMPARE(whole->usage->completionTokens, expected.usage[u"completion_tokens"_s].toInteger());
    QCOMPARE(whole->usage->totalTokens, expected.usage[u"total_tokens"_s].toInteger());
}

void tst_StreamAssembler::parallelToolCallsInIndexOrder()
{
    SKIP_WITHOUT_VECTORS();
    const Result<Completion> completion = assembleVector(
            u"openai-python-streams/test_parse_multiple_pydantic_tools.f82268f2fefd.sse"_s);
    QVERIFY(completion);
    const QList<ToolCall> expected{
            {u"call_JMW1whyEaYG438VE1OIflxA2"_s,
             u"GetWeatherArgs"_s,
             uR"({"city": "Edinburgh", "country": "GB", "units": "c"})"_s},
            {u"call_DNYTawLBoN8fj3KN6qU9N1Ou"_s,
             u"get_stock_price"_s,
             uR"({"ticker": "AAPL", "exchange": "NASDAQ"})"_s},
    };
    QCOMPARE(completion->message.toolCalls(), expected);
    QVERIFY(!completion->message.hasContent()); // content null, as in the non-streamed form
    QCOMPARE(completion->finishReason, u"tool_calls"_s);
}

void tst_StreamAssembler::lengthRecording()
{
    SKIP_WITHOUT_VECTORS();
    const Result<Completion> completion = assembleVector(
            u"openai-python-streams/test_parse_max_tokens_reached.4cc50a6135d2.sse"_s);
    QVERIFY(completion);
    QCOMPARE(completion->finishReason, u"length"_s);
    QCOMPARE(completion->message.content(), uR"({")"_s);
}

void tst_StreamAssembler::refusalRecordings_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("refusal");
    QTest::newRow("python") << u"openai-python-streams/test_parse_pydantic_model_refusal.173417d55340.sse"_s
                            << u"I'm sorry, I can't assist with that request."_s;
    QTest::newRow("python, logprobs")
            << u"openai-python-streams/test_refusal_logprobs_events.569c877e6942.sse"_s
            << u"I'm very sorry, but I can't assist with that."_s;
    QTest::newRow("node") << u"openai-node-streams/stream_emits_refusal_logprobs_events_1.sse"_s
                          << u"I'm very sorry, but I can't assist with that request."_s;
}

void tst_StreamAssembler::refusalRecordings()
{
    SKIP_WITHOUT_VECTORS();
    QFETCH(QString, path);
    QFETCH(QString, refusal);
    SseParser parser;
    StreamAssembler assembler;
    const Result<QList<SseEvent>> events = parser.feed(readVector(path));
    QVERIFY(events);
    for (const SseEvent &event : *events)
        QVERIFY(assembler.addEvent(event));
    QCOMPARE(assembler.refusal(), refusal);
    QCOMPARE(assembler.takeTextDelta(), refusal);
    const Result<Completion> completion = assembler.result();
    QVERIFY(completion);
    QCOMPARE(completion->message.content(), refusal); // what the user reads
    QVERIFY(!completion->message.hasToolCalls());
    QCOMPARE(completion->finishReason, u"stop"_s);
}

void tst_StreamAssembler::severalChoicesUseChoiceZero()
{
    SKIP_WITHOUT_VECTORS();
    const Result<Completion> completion = assembleVector(
            u"openai-python-streams/test_parse_pydantic_model_multiple_choices.a491adda08c3.sse"_s);
    QVERIFY(completion);
    QCOMPARE(completion->message.content(),
             uR"({"city":"San Francisco","temperature":65,"units":"f"})"_s);
}

void tst_StreamAssembler::usageFromTheFinalChunk()
{
    SKIP_WITHOUT_VECTORS();
    const Result<Completion> completion = assembleVector(
            u"openai-python-streams/test_allows_non_strict_tools_but_no_parsing.2018feb66ae1.sse"_s);
    QVERIFY(completion);
    QVERIFY(completion->usage);
    QCOMPARE(completion->usage->promptTokens, qint64(44));
    QCOMPARE(completion->usage->completionTokens, qint64(16));
    QCOMPARE(completion->usage->totalTokens, qint64(60));
    QCOMPARE(completion->id, u"chatcmpl-ABfwERreu9s99xXsVuOWtIB2UOx62"_s);
    QCOMPARE(completion->model, u"gpt-4o-2024-08-06"_s);
}

void tst_StreamAssembler::assembles_data()
{
    QTest::addColumn<Payloads>("payloads");
    QTest::addColumn<Message>("expected");
    QTest::addColumn<QString>("finishReason");

    const ToolCall shell{u"call_1"_s, u"shell"_s, echoArguments};

    QTest::newRow("id first, name in a later fragment")
            << Payloads{roleChunk,
                        chunk(fragment(0, u"call_1"_s, {})),
                        chunk(fragment(0, {}, u"shell"_s)),
                        chunk(args(0, echoArguments)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << Message::assistant(std::nullopt, {shell}) << u"tool_calls"_s;
    QTest::newRow("name first, id in a later fragment")
            << Payloads{chunk(fragment(0, {}, u"shell"_s, u""_s)),
                        chunk(fragment(0, u"call_1"_s, {}, echoArguments)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << Message::assistant(std::nullopt, {shell}) << u"tool_calls"_s;
    QTest::newRow("{ shares the chunk with the name")
            << Payloads{roleChunk,
                        chunk(fragment(0, u"call_1"_s, u"shell"_s, u"{"_s)),
                        chunk(args(0, uR"("command":)"_s)),
                        chunk(args(0, uR"("echo 42"})"_s)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << Message::assistant(std::nullopt, {shell}) << u"tool_calls"_s;
    QTest::newRow("whole call in one chunk, with the finish_reason")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments), u"tool_calls"_s),
                        done}
            << Message::assistant(std::nullopt, {shell}) << u"tool_calls"_s;
    Payloads oneByte{roleChunk, chunk(fragment(0, u"call_1"_s, u"shell"_s, u""_s))};
    for (const QChar c : echoArguments)
        oneByte << chunk(args(0, QString(c)));
    oneByte << chunk({}, u"tool_calls"_s) << done;
    QTest::newRow("1-byte argument fragments")
            << oneByte << Message::assistant(std::nullopt, {shell}) << u"tool_calls"_s;
    QTest::newRow("id and name repeated in every fragment")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, u"{\"command\":"_s)),
                        chunk(fragment(0, u"call_1"_s, u"shell"_s, u"\"echo 42\"}"_s)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << Message::assistant(std::nullopt, {shell}) << u"tool_calls"_s;
    QTest::newRow("arguments as an object")
            << Payloads{chunk(fragment(0,
                                       u"call_1"_s,
                                       u"shell"_s,
                                       QJsonObject{{u"command"_s, u"echo 42"_s}})),
                        done}
            << Message::assistant(std::nullopt, {shell}) << QString();
    QTest::newRow("empty arguments stay empty, as non-streamed")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"list"_s, u""_s)),
                        chunk({}, u"tool_calls"_s)}
            << Message::assistant(std::nullopt, {{u"call_1"_s, u"list"_s, {}}}) << u"tool_calls"_s;

    const ToolCall second{u"call_2"_s, u"read_file"_s, uR"({"path":"a.txt"})"_s};
    QTest::newRow("two calls, fragments interleaved")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, u""_s)),
                        chunk(fragment(1, u"call_2"_s, u"read_file"_s, u""_s)),
                        chunk(args(0, u"{\"command\":"_s)),
                        chunk(args(1, uR"({"path":"a.txt"})"_s)),
                        chunk(args(0, u"\"echo 42\"}"_s)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << Message::assistant(std::nullopt, {shell, second}) << u"tool_calls"_s;
    QTest::newRow("two calls, index 1 first: kept in index order")
            << Payloads{chunk(fragment(1, u"call_2"_s, u"read_file"_s, uR"({"path":"a.txt"})"_s)),
                        chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments)),
                        done}
            << Message::assistant(std::nullopt, {shell, second}) << QString();
    QTest::newRow("fragments without an index")
            << Payloads{chunk(fragment(-1, u"call_1"_s, u"shell"_s, u"{\"command\":"_s)),
                        chunk(fragment(-1, {}, {}, u"\"echo 42\"}"_s)),
                        chunk(fragment(-1, u"call_2"_s, u"read_file"_s, u"{\"path\""_s)),
                        chunk(fragment(-1, u"call_2"_s, {}, u":\"a.txt\"}"_s)),
                        done}
            << Message::assistant(std::nullopt, {shell, second}) << QString();
    QTest::newRow("text and a tool call")
            << Payloads{chunk(text(u""_s)),
                        chunk(text(u"Let me "_s)),
                        chunk(text(u"check."_s)),
                        chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << Message::assistant(u"Let me check."_s, {shell}) << u"tool_calls"_s;
    // The loop decides from the tool calls, not from a finish_reason that says otherwise.
    QTest::newRow("tool calls with finish_reason stop")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments)),
                        chunk({}, u"stop"_s),
                        done}
            << Message::assistant(std::nullopt, {shell}) << u"stop"_s;
    QTest::newRow("text only") << Payloads{chunk(text(u"命令执行成功,"_s)),
                                           chunk(text(u"输出是 42。"_s)),
                                           chunk({}, u"stop"_s),
                                           done}
                               << Message::assistant(u"命令执行成功,输出是 42。"_s) << u"stop"_s;
    QTest::newRow("content empty string")
            << Payloads{chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                        chunk({}, u"stop"_s),
                        done}
            << Message::assistant(u""_s) << u"stop"_s;
    QTest::newRow("content absent")
            << Payloads{chunk({{u"role"_s, u"assistant"_s}}), chunk({}, u"stop"_s), done}
            << Message::assistant(std::nullopt) << u"stop"_s;
    QTest::newRow("missing [DONE] after a finish_reason")
            << Payloads{chunk(text(u"Hi"_s)), chunk({}, u"stop"_s)} << Message::assistant(u"Hi"_s)
            << u"stop"_s;
    QTest::newRow("[DONE] without a finish_reason")
            << Payloads{chunk(text(u"Hi"_s)), done} << Message::assistant(u"Hi"_s) << QString();
    QTest::newRow("usage-only final chunk")
            << Payloads{chunk(text(u"Hi"_s)),
                        chunk({}, u"stop"_s),
                        R"({"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})",
                        done}
            << Message::assistant(u"Hi"_s) << u"stop"_s;
    QTest::newRow("Azure's prompt-filter chunk first") << Payloads{
            R"({"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[]})",
            chunk(text(u"Hi"_s)),
            chunk({}, u"stop"_s),
            done} << Message::assistant(u"Hi"_s) << u"stop"_s;
    QTest::newRow("payloads after [DONE] are ignored")
            << Payloads{chunk(text(u"Hi"_s)), done, chunk(text(u" again"_s)), "not json"}
            << Message::assistant(u"Hi"_s) << QString();
    QTest::newRow("empty payloads are ignored")
            << Payloads{"", chunk(text(u"Hi"_s)), " ", chunk({}, u"stop"_s)}
            << Message::assistant(u"Hi"_s) << u"stop"_s;
    QTest::newRow("other choices are ignored")
            << Payloads{R"({"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]})",
                        R"({"choices":[{"index":2,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"y"}}]},"finish_reason":"tool_calls"}]})",
                        R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"}
            << Message::assistant(u"A"_s) << u"stop"_s;
    QTest::newRow("reasoning is kept apart from the answer, on the message")
            << Payloads{chunk({{u"reasoning_content"_s, u"Think."_s}, {u"content"_s, QJsonValue()}}),
                        chunk(text(u"Answer"_s)),
                        chunk({}, u"stop"_s)}
            << Message::assistant(u"Answer"_s, {}, u"Think."_s) << u"stop"_s;
    // Groq, OpenRouter and newer vLLM name it `reasoning`; Groq rejects `reasoning_content` back.
    QTest::newRow("reasoning under Groq's name is kept, not sent back")
            << Payloads{chunk({{u"reasoning"_s, u"Think."_s}, {u"content"_s, QJsonValue()}}),
                        chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments)),
                        chunk({}, u"tool_calls"_s)}
            << Message::assistant(std::nullopt, {shell}, u"Think."_s, ReasoningField::Reasoning)
            << u"tool_calls"_s;
    // A gateway that sends every call at index 0, each with its own id.
    const ToolCall list{u"call_2"_s, u"list"_s, u"{}"_s};
    QTest::newRow("same index, another id: a second call")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, u"{\"command\":"_s)),
                        chunk(args(0, u"\"echo 42\"}"_s)),
                        chunk(fragment(0, u"call_2"_s, u"list"_s, u"{"_s)),
                        chunk(args(0, u"}"_s)),
                        chunk({}, u"tool_calls"_s)}
            << Message::assistant(std::nullopt, {shell, list}) << u"tool_calls"_s;
    QTest::newRow("same index, another id, with index 1 open: placed after it")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments)),
                        chunk(fragment(1, u"call_3"_s, u"list"_s, u"{}"_s)),
                        chunk(fragment(0, u"call_2"_s, u"list"_s, u"{"_s)),
                        chunk(args(0, u"}"_s)),
                        chunk({}, u"tool_calls"_s)}
            << Message::assistant(std::nullopt, {shell, {u"call_3"_s, u"list"_s, u"{}"_s}, list})
            << u"tool_calls"_s;
    // Gemini 3: the thought signature rides on the call object and must go back verbatim.
    const QJsonObject signature{
            {u"google"_s, QJsonObject{{u"thought_signature"_s, u"CtQBAdHtim9+sig=="_s}}}};
    QJsonObject signedFragment = fragment(0, u"call_1"_s, u"shell"_s, echoArguments);
    {
        QJsonArray calls = signedFragment[u"tool_calls"_s].toArray();
        QJsonObject call = calls.first().toObject();
        call.insert(u"extra_content"_s, signature);
        calls.replace(0, call);
        signedFragment.insert(u"tool_calls"_s, calls);
    }
    ToolCall signedShell = shell;
    signedShell.extra = {{u"extra_content"_s, signature}};
    QTest::newRow("Gemini's extra_content is kept on the call")
            << Payloads{roleChunk, chunk(signedFragment), chunk({}, u"tool_calls"_s)}
            << Message::assistant(std::nullopt, {signedShell}) << u"tool_calls"_s;
    // Mistral magistral, when it streams content as parts.
    QTest::newRow("Mistral thinking parts: reasoning, not content")
            << Payloads{chunk({{u"content"_s,
                                QJsonArray{
                                        QJsonObject{{u"type"_s, u"thinking"_s},
                                                    {u"thinking"_s,
                                                     QJsonArray{QJsonObject{{u"type"_s, u"text"_s},
                                                                            {u"text"_s,
                                                                             u"Think."_s}}}}}}}}),
                        chunk({{u"content"_s,
                                QJsonArray{QJsonObject{{u"type"_s, u"text"_s},
                                                       {u"text"_s, u"Answer"_s}}}}}),
                        chunk({}, u"stop"_s)}
            << Message::assistant(u"Answer"_s, {}, u"Think."_s, ReasoningField::Reasoning)
            << u"stop"_s;
}

void tst_StreamAssembler::assembles()
{
    QFETCH(Payloads, payloads);
    QFETCH(Message, expected);
    QFETCH(QString, finishReason);

    const Result<Completion> completion = assemblePayloads(payloads);
    QVERIFY2(completion, qPrintable(completion ? QString() : completion.error().message));
    QCOMPARE(wire(completion->message), wire(expected));
    QCOMPARE(completion->message.hasContent(), expected.hasContent());
    QCOMPARE(completion->finishReason, finishReason);

    // The same payloads as an SSE stream, in 1-byte chunks.
    const Result<Completion> streamed = assemble(toSse(payloads), 1);
    QVERIFY(streamed);
    QCOMPARE(wire(streamed->message), wire(expected));
}

void tst_StreamAssembler::fails_data()
{
    QTest::addColumn<Payloads>("payloads");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");

    QTest::newRow("no [DONE] and no finish_reason")
            << Payloads{roleChunk, chunk(text(u"Hel"_s))} << int(Error::Network)
            << u"The stream ended before the model finished."_s;
    QTest::newRow("cut inside a tool call")
            << Payloads{chunk(fragment(0, u"call_1"_s, u"shell"_s, u"{\"comm"_s))}
            << int(Error::Network) << u"The stream ended before the model finished."_s;
    QTest::newRow("empty stream") << Payloads{} << int(Error::Network)
                                  << u"The stream ended before the model finished."_s;
    QTest::newRow("error object")
            << Payloads{chunk(text(u"Hel"_s)),
                        R"({"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}})",
                        done}
            << int(Error::Protocol)
            << u"The provider reported an error in the stream: Rate limit reached for gpt-4o"_s;
    QTest::newRow("error string") << Payloads{R"({"error":"overloaded"})"} << int(Error::Protocol)
                                  << u"The provider reported an error in the stream: overloaded"_s;
    QTest::newRow("not JSON") << Payloads{chunk(text(u"Hi"_s)),
                                          "<html><body>Bad gateway</body></html>",
                                          done}
                              << int(Error::Protocol) << u"<html><body>Bad gateway</body></html>"_s;
    QTest::newRow("truncated JSON") << Payloads{R"({"choices":[{"index":0,"delta":{"content":"Hi)"}
                                    << int(Error::Protocol) << u"not JSON"_s;
    QTest::newRow("JSON that is not an object")
            << Payloads{"[1,2,3]"} << int(Error::Protocol) << u"not an object"_s;
    QTest::newRow("no choices at all")
            << Payloads{R"({"id":"x","choices":[],"usage":{"total_tokens":1}})", done}
            << int(Error::Protocol) << u"The provider's stream has no choices."_s;
    QTest::newRow("tool call without a name")
            << Payloads{chunk(fragment(0, u"call_1"_s, {}, echoArguments)), done}
            << int(Error::Protocol) << u"has no function name"_s;
}

void tst_StreamAssembler::fails()
{
    QFETCH(Payloads, payloads);
    QFETCH(int, kind);
    QFETCH(QString, message);

    const Result<Completion> completion = assemblePayloads(payloads);
    QVERIFY(!completion);
    QCOMPARE(int(completion.error().kind), kind);
    QVERIFY2(completion.error().message.contains(message), qPrintable(completion.error().message));
}

void tst_StreamAssembler::sameAsNonStreamed()
{
    const Payloads payloads{
            chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
            chunk(text(u"Two "_s)),
            chunk(text(u"commands."_s)),
            chunk(fragment(0, u"call_1"_s, u"shell"_s, u"{\"command\":"_s)),
            chunk(args(0, u"\"echo 42\"}"_s)),
            chunk(fragment(1, u"call_2"_s, u"shell"_s, QJsonObject{{u"command"_s, u"dir"_s}})),
            chunk({}, u"tool_calls"_s),
            R"({"id":"chatcmpl-1","model":"test-model","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}})",
            done,
    };
    const QByteArray body = R"({
        "id": "chatcmpl-1", "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Two commands.",
            "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "shell", "arguments": "{\"command\":\"echo 42\"}"}},
                {"id": "call_2", "function": {"name": "shell", "arguments": {"command": "dir"}}}
            ]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    })";
    const Result<Completion> streamed = assemblePayloads(payloads);
    const Result<Completion> whole = parseCompletion(body);
    QVERIFY(streamed);
    QVERIFY(whole);
    QCOMPARE(wire(streamed->message), wire(whole->message));
    QCOMPARE(streamed->message, whole->message);
    QCOMPARE(streamed->finishReason, whole->finishReason);
    QCOMPARE(streamed->id, whole->id);
    QCOMPARE(streamed->model, whole->model);
    QVERIFY(streamed->usage && whole->usage);
    QCOMPARE(streamed->usage->promptTokens, whole->usage->promptTokens);
    QCOMPARE(streamed->usage->completionTokens, whole->usage->completionTokens);
    QCOMPARE(streamed->usage->totalTokens, whole->usage->totalTokens);
}

void tst_StreamAssembler::errorEvent()
{
    StreamAssembler assembler;
    QVERIFY(assembler.addEvent(SseEvent{{}, chunk(text(u"Hi"_s)), {}}));
    QVERIFY(assembler.addEvent(SseEvent{"ping", "{}", {}})); // other named events are ignored
    const Result<void> added = assembler.addEvent(
            SseEvent{"error", R"({"message":"Internal server error"})", {}});
    QVERIFY(!added);
    QCOMPARE(added.error().kind, Error::Protocol);
    QCOMPARE(added.error().providerMessage, u"Internal server error"_s);
    QVERIFY(!assembler.result());
    QCOMPARE(assembler.result().error().providerMessage, u"Internal server error"_s);

    StreamAssembler finished; // after [DONE] the stream is over, errors included
    QVERIFY(finished.addPayload(chunk(text(u"Hi"_s))));
    QVERIFY(finished.addPayload(done));
    QVERIFY(finished.addEvent(SseEvent{"error", R"({"message":"late"})", {}}));
    QVERIFY(finished.result());
}

void tst_StreamAssembler::errorSticks()
{
    StreamAssembler assembler;
    QVERIFY(!assembler.addPayload("garbage"));
    QVERIFY(assembler.hasError());
    QVERIFY(!assembler.addPayload(chunk(text(u"Hi"_s))));
    QVERIFY(!assembler.addPayload(chunk({}, u"stop"_s)));
    QVERIFY(!assembler.addPayload(done));
    QVERIFY(!assembler.result());
    QVERIFY(assembler.result().error().message.contains(u"garbage"_s));
}

void tst_StreamAssembler::textDeltasAsTheyArrive()
{
    StreamAssembler assembler;
    QVERIFY(assembler.addPayload(roleChunk));
    QCOMPARE(assembler.takeTextDelta(), QString());
    QVERIFY(assembler.addPayload(chunk(text(u"Hel"_s))));
    QVERIFY(assembler.addPayload(chunk(text(u"lo"_s))));
    QCOMPARE(assembler.takeTextDelta(), u"Hello"_s); // coalesced until taken
    QCOMPARE(assembler.takeTextDelta(), QString());
    QVERIFY(assembler.addPayload(chunk(text(u", world"_s))));
    QCOMPARE(assembler.takeTextDelta(), u", world"_s);
    QVERIFY(assembler.addPayload(chunk(fragment(0, u"call_1"_s, u"shell"_s, echoArguments))));
    QCOMPARE(assembler.takeTextDelta(), QString()); // tool calls are not text
    QCOMPARE(assembler.content(), u"Hello, world"_s);
    QCOMPARE(assembler.toolCalls(), (QList<ToolCall>{{u"call_1"_s, u"shell"_s, echoArguments}}));
    QVERIFY(!assembler.isDone());
    QVERIFY(assembler.addPayload(done));
    QVERIFY(assembler.isDone());
}

void tst_StreamAssembler::reasoningContent()
{
    StreamAssembler assembler;
    QVERIFY(assembler.addPayload(
            chunk({{u"role"_s, u"assistant"_s}, {u"reasoning_content"_s, u"The user "_s}})));
    QVERIFY(assembler.addPayload(chunk({{u"reasoning_content"_s, u"wants 42."_s}})));
    QCOMPARE(assembler.takeReasoningDelta(), u"The user wants 42."_s);
    QCOMPARE(assembler.takeTextDelta(), QString());
    QVERIFY(assembler.addPayload(
            chunk({{u"reasoning_content"_s, QJsonValue()}, {u"content"_s, u"42"_s}})));
    QVERIFY(assembler.addPayload(chunk({{u"reasoning"_s, u" (OpenRouter's name)"_s}})));
    QVERIFY(assembler.addPayload(chunk({}, u"stop"_s)));
    QCOMPARE(assembler.reasoningContent(), u"The user wants 42. (OpenRouter's name)"_s);
    QCOMPARE(assembler.takeReasoningDelta(), u" (OpenRouter's name)"_s);
    const Result<Completion> completion = assembler.result();
    QVERIFY(completion);
    QCOMPARE(completion->message.content(), u"42"_s); // the reasoning is not the answer
    QCOMPARE(completion->message.reasoningContent(), u"The user wants 42. (OpenRouter's name)"_s);
    // Some of it came as `reasoning_content`: the provider knows the field, it goes back.
    QVERIFY(completion->message.sendsReasoningBack());
}

// Gemini (some paths), vLLM and llama.cpp may send a call with an empty or no id.
void tst_StreamAssembler::toolCallsWithoutIdsGetOne()
{
    const Payloads payloads{
            roleChunk,
            chunk(fragment(0, {}, u"shell"_s, echoArguments)),
            R"({"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"",)"
            R"("type":"function","function":{"name":"shell","arguments":"{}"}}]}}]})",
            chunk(fragment(2, u"call_kept"_s, u"shell"_s, echoArguments)),
            chunk({}, u"tool_calls"_s),
            done,
    };
    const Result<Completion> completion = assemblePayloads(payloads);
    QVERIFY2(completion, qPrintable(completion ? QString() : completion.error().message));
    const QList<ToolCall> calls = completion->message.toolCalls();
    QCOMPARE(calls.size(), 3);
    QVERIFY2(calls[0].id.startsWith(u"call_"), qPrintable(calls[0].id));
    QVERIFY2(calls[1].id.startsWith(u"call_"), qPrintable(calls[1].id));
    QVERIFY(calls[0].id.size() > 10);
    QVERIFY(calls[0].id != calls[1].id);
    QCOMPARE(calls[2].id, u"call_kept"_s); // an id the provider sent is never replaced
    QCOMPARE(calls[0].arguments, echoArguments);
    // The same answer gets the same ids (the scanner and QJsonDocument agree on them).
    QCOMPARE(assemblePayloads(payloads)->message.toolCalls(), calls);
    QCOMPARE(compareChunkReadings(payloads), QString());
}

void tst_StreamAssembler::finishReasonSynonyms()
{
    const Result<Completion> completion = assemblePayloads(
            {chunk(text(u"Hi"_s)), chunk({}, u"eos"_s), done});
    QVERIFY(completion);
    QCOMPARE(completion->finishReason, u"stop"_s);
    QCOMPARE(completion->providerFinishReason, u"eos"_s); // as it came, for the inspector
    const Result<Completion> unknown = assemblePayloads(
            {chunk(text(u"Hi"_s)), chunk({}, u"banana"_s), done});
    QVERIFY(unknown);
    QCOMPARE(unknown->finishReason, u"banana"_s);
}

void tst_StreamAssembler::hasOutputOnlyOnceTheModelAnswers()
{
    StreamAssembler assembler;
    QVERIFY(assembler.addPayload(R"({"choices":[],"id":"","model":"","prompt_filter_results":[]})"));
    QVERIFY(assembler.addPayload(chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}})));
    QVERIFY(!assembler.hasOutput()); // a failure now may still be retried
    QVERIFY(assembler.addPayload(chunk(text(u"H"_s))));
    QVERIFY(assembler.hasOutput());

    StreamAssembler calls;
    QVERIFY(calls.addPayload(chunk(fragment(0, u"call_1"_s, u"shell"_s, u""_s))));
    QVERIFY(calls.hasOutput());
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_StreamAssembler)
#include "tst_streamassembler.moc"

void tst_StreamAssembler::scannerReadsRecordingsAsJsonDocument_data()
{
    recordedStreams_data();
}

// Every chunk real providers sent is read by the scanner, and read as QJsonDocument reads it.
void tst_StreamAssembler::scannerReadsRecordingsAsJsonDocument()
{
    SKIP_WITHOUT_VECTORS();
    QFETCH(QString, path);
    SseParser parser;
    Payloads payloads;
    const auto collect = [&](const SseEventView &event) {
        payloads.append(event.data.toByteArray());
    };
    QVERIFY(parser.feed(readVector(path), collect));
    QVERIFY(parser.finish(collect));
    QVERIFY(payloads.size() > 2);

    qsizetype jsonDocumentChunks = -1;
    QCOMPARE(compareChunkReadings(payloads, &jsonDocumentChunks), QString());
    QCOMPARE(jsonDocumentChunks, 0);
}

void tst_StreamAssembler::scannerReadsChunksAsJsonDocument_data()
{
    QTest::addColumn<Payloads>("payloads");
    QTest::addColumn<bool>("scanned"); // the scanner reads every payload itself

    const auto delta = [](const QByteArray &json) {
        return R"({"id":"c","model":"m","choices":[{"index":0,"delta":)" + json
               + R"(,"finish_reason":null}]})";
    };
    const auto text = [&](const QByteArray &jsonString) {
        return delta(R"({"content":)" + jsonString + "}");
    };
    const auto calls = [&](const QByteArray &jsonArray) {
        return delta(R"({"tool_calls":)" + jsonArray + "}");
    };

    // What the scanner reads itself.
    QTest::newRow("escapes") << Payloads{text(R"("a\"b\\c\/d\b\f\n\r\t\u00e9\u6D4B")")} << true;
    QTest::newRow("surrogate pair, escaped")
            << Payloads{text(R"("\ud83d\ude00 and \uD83D\uDE00")")} << true;
    QTest::newRow("raw UTF-8") << Payloads{text("\"\xF0\x9F\x98\x80 caf\xC3\xA9 \xE6\xB5\x8B\"")}
                               << true;
    QTest::newRow("lone surrogates") << Payloads{text(R"("\ud800x\udc00")")} << true;
    QTest::newRow("noncharacter") << Payloads{text("\"\xEF\xBF\xBE\"")} << true;
    QTest::newRow("NUL and raw control characters")
            << Payloads{text(QByteArray(R"("\u0000 )") + '\x01' + "\t\"")} << true;
    QTest::newRow("any key order")
            << Payloads{R"({"choices":[{"finish_reason":null,"delta":{"content":"x","role":)"
                        R"("assistant"},"index":0}],"model":"m","id":"c"})"}
            << true;
    QTest::newRow("whitespace everywhere")
            << Payloads{"{ \"id\" : \"c\" ,\n\t\"choices\" :\r\n [ { \"index\" : 0 , \"delta\" "
                        ": { \"content\" : \"x\" } } ] , \"usage\" : null }"}
            << true;
    QTest::newRow("unknown nested fields")
            << Payloads{R"({"id":"c","x":{"y":[1,-2.5,1.5e-05,{"z":null,"w":[true,false]}]},)"
                        R"("choices":[{"index":0,"logprobs":{"content":[{"token":"x","logprob":)"
                        R"(-0.25,"bytes":[120]}]},"delta":{"audio":{"a":"\u00e9"},"content":"x"}}]})"}
            << true;
    QTest::newRow("content null, then text") << Payloads{text("null"), text(R"("x")")} << true;
    QTest::newRow("content only empty") << Payloads{text(R"("")")} << true;
    QTest::newRow("several choices")
            << Payloads{R"({"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":)"
                        R"({"content":"yes"}},{"delta":{"content":", no index"}},{"index":-0,)"
                        R"("delta":{"content":", minus zero"}}]})"}
            << true;
    QTest::newRow("several tool calls in one chunk")
            << Payloads{calls(R"([{"index":1,"id":"call_b","type":"function","function":{"name":)"
                              R"("b","arguments":"{"}},{"index":0,"id":"call_a","function":)"
                              R"({"name":"a","arguments":"{\"x\""}}])"),
                        calls(R"([{"index":0,"function":{"arguments":":1}"}},{"index":1,)"
                              R"("function":{"arguments":"}"}}])")}
            << true;
    QTest::newRow("tool calls without index")
            << Payloads{calls(R"([{"id":"call_a","function":{"name":"a","arguments":"{"}}])"),
                        calls(R"([{"function":{"arguments":"}"}}])"),
                        calls(R"([{"id":"call_b","function":{"name":"b","arguments":null}}])"),
                        calls(R"([{"index":null,"function":{"arguments":"{}"}}])")}
            << true;
    QTest::newRow("tool call indexes out of int range")
            << Payloads{calls(R"([{"index":-1,"id":"call_a","function":{"name":"a"}}])"),
                        calls(R"([{"index":99999999999,"id":"call_b","function":{"name":"b"}}])")}
            << true;
    QTest::newRow("reasoning") << Payloads{delta(R"({"reasoning_content":"think"})"),
                                           delta(R"({"reasoning_content":null,"reasoning":" more"})"),
                                           delta(R"({"reasoning":"ignored","reasoning_content":""})"),
                                           text(R"("answer")")}
                               << true;
    QTest::newRow("refusal") << Payloads{delta(R"({"refusal":"no","content":null})"),
                                         delta(R"({"refusal":null})")}
                             << true;
    QTest::newRow("usage")
            << Payloads{text(R"("x")"),
                        R"({"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":)"
                        R"(2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":0}}})"}
            << true;
    QTest::newRow("usage null, then partial")
            << Payloads{text(R"("x")"),
                        R"({"choices":null,"usage":null})",
                        R"({"usage":{"total_tokens":5,"prompt_tokens":null}})"}
            << true;
    QTest::newRow("error null") << Payloads{R"({"error":null,"choices":[{"delta":{"content":"x"}}]})"}
                                << true;
    QTest::newRow("id and model null, then set")
            << Payloads{R"({"id":null,"model":null,"choices":[{"delta":{"content":"x"}}]})",
                        R"({"id":"c2","model":"m2","choices":[{"delta":null}]})"}
            << true;

    QTest::newRow("tool call with a null unknown member")
            << Payloads{calls(R"([{"index":0,"id":"call_a","extra_content":null,"function":)"
                              R"({"name":"a","arguments":"{}"}}])")}
            << true;
    QTest::newRow("same index, two ids")
            << Payloads{calls(R"([{"index":0,"id":"call_a","function":{"name":"a","arguments":)"
                              R"("{"}}])"),
                        calls(R"([{"index":0,"id":"call_b","function":{"name":"b"}}])"),
                        calls(R"([{"index":0,"function":{"arguments":"{}"}}])"),
                        calls(R"([{"index":0,"id":"call_b","function":{"arguments":""}}])")}
            << true;
    QTest::newRow("tool calls without ids")
            << Payloads{calls(R"([{"index":0,"id":"","function":{"name":"a","arguments":"{}"}},)"
                              R"({"index":1,"function":{"name":"b","arguments":"{}"}}])")}
            << true;

    // What it leaves to QJsonDocument, which must still give the same outcome.
    QTest::newRow("arguments sent as an object")
            << Payloads{calls(R"([{"index":0,"id":"call_a","function":{"name":"a","arguments":)"
                              R"({"x":[1,"y"]}}}])")}
            << false;
    QTest::newRow("Gemini's extra_content on a tool call")
            << Payloads{calls(R"([{"index":0,"id":"call_a","type":"function","function":{"name":)"
                              R"("a","arguments":"{}"},"extra_content":{"google":)"
                              R"({"thought_signature":"c2ln"}}}])"),
                        calls(R"([{"index":0,"function":{"arguments":""},"extra_content":{"x":1}}])")}
            << false;
    QTest::newRow("escaped tool-call key after the real one") << Payloads{calls(
            R"([{"index":0,"id":"call_a","\u0069d":null,"function":{"name":"a"}}])")}
                                                              << false;
    QTest::newRow("unknown tool-call member sent twice") << Payloads{calls(
            R"([{"index":0,"id":"call_a","x":null,"x":1,"function":{"name":"a"}}])")}
                                                         << false;
    QTest::newRow("content as Mistral's parts")
            << Payloads{delta(R"({"content":[{"type":"thinking","thinking":[{"type":"text",)"
                              R"("text":"hm"}]}]})"),
                        delta(R"({"content":[{"type":"text","text":"x"}]})")}
            << false;
    QTest::newRow("duplicate key") << Payloads{delta(R"({"content":"a","content":"b"})")} << false;
    QTest::newRow("escaped key") << Payloads{delta(R"({"cont\u0065nt":"x"})")} << false;
    QTest::newRow("unknown escape") << Payloads{text(R"("a\qb")")} << false;
    QTest::newRow("fraction as index")
            << Payloads{R"({"choices":[{"index":0.0,"delta":{"content":"x"}}]})"} << false;
    QTest::newRow("index as string")
            << Payloads{R"({"choices":[{"index":"0","delta":{"content":"x"}}]})"} << false;
    QTest::newRow("number out of range")
            << Payloads{R"({"x":1e400,"choices":[{"delta":{"content":"x"}}]})"} << false;
    QTest::newRow("provider error")
            << Payloads{text(R"("x")"), R"({"error":{"message":"boom"}})"} << false;
    QTest::newRow("truncated") << Payloads{R"({"choices":[{"delta":{"content":"x"})"} << false;
    QTest::newRow("trailing comma") << Payloads{R"({"choices":[],})"} << false;
    QTest::newRow("overlong UTF-8") << Payloads{text("\"\xC0\x80\"")} << false;
    QTest::newRow("UTF-8 surrogate") << Payloads{text("\"\xED\xA0\x80\"")} << false;
    QTest::newRow("past U+10FFFF") << Payloads{text("\"\xF5\x80\x80\x80\"")} << false;
    QTest::newRow("cut UTF-8") << Payloads{text("\"\xE6\xB5\"")} << false;
    QTest::newRow("not an object") << Payloads{"[1]", "\"x\"", "42"} << false;
    QTest::newRow("byte order mark") << Payloads{"\xEF\xBB\xBF" + text(R"("x")")} << false;
    QTest::newRow("deep nesting") << Payloads{"{\"x\":" + QByteArray(100, '[') + QByteArray(100, ']')
                                              + R"(,"choices":[{"delta":{"content":"x"}}]})"}
                                  << false;
    QTest::newRow("choice not an object") << Payloads{R"({"choices":[1]})"} << false;
    QTest::newRow("delta not an object") << Payloads{delta(R"("x")")} << false;
}

// The same chunks read by the scanner and by QJsonDocument alone show the same thing at every
// step: text and reasoning deltas, tool calls, errors, and the final completion.
void tst_StreamAssembler::scannerReadsChunksAsJsonDocument()
{
    QFETCH(Payloads, payloads);
    QFETCH(bool, scanned);
    const Payloads ending{R"({"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})",
                          done};
    qsizetype jsonDocumentChunks = -1;
    QCOMPARE(compareChunkReadings(payloads + ending, &jsonDocumentChunks), QString());
    if (scanned)
        QCOMPARE(jsonDocumentChunks, 0);
    else
        QVERIFY(jsonDocumentChunks > 0);
}

namespace {

// count calls, ids call_0..., one chunk each (or all in one chunk), with or without an index.
Payloads manyCalls(int count, bool withIndex, bool oneChunk, bool argumentsInPieces = false)
{
    Payloads payloads{roleChunk};
    QJsonArray all;
    for (int i = 0; i < count; ++i) {
        const QString id = u"call_%1"_s.arg(i);
        const QString arguments = uR"({"command":"echo %1"})"_s.arg(i);
        const int index = withIndex ? i : -1;
        if (argumentsInPieces) {
            payloads.append(chunk(fragment(index, id, u"shell"_s, arguments.left(5))));
            payloads.append(chunk(args(index, arguments.mid(5))));
        } else if (oneChunk) {
            all.append(fragment(index, id, u"shell"_s, arguments)
                               .value(u"tool_calls"_s)
                               .toArray()
                               .first());
        } else {
            payloads.append(chunk(fragment(index, id, u"shell"_s, arguments)));
        }
    }
    if (oneChunk)
        payloads.append(chunk({{u"tool_calls"_s, all}}));
    payloads.append(chunk({}, u"tool_calls"_s));
    payloads.append(done);
    return payloads;
}

} // namespace

void tst_StreamAssembler::toolCallLimit_data()
{
    QTest::addColumn<Payloads>("payloads");
    QTest::addColumn<int>("calls");      // accepted with this many calls; -1: refused
    QTest::addColumn<int>("keptAtMost"); // refused: calls held when it stopped

    const int limit = maxToolCallsPerMessage;
    QTest::newRow("the limit, one chunk each") << manyCalls(limit, true, false) << limit << 0;
    QTest::newRow("the limit, in one chunk") << manyCalls(limit, true, true) << limit << 0;
    QTest::newRow("the limit, arguments in pieces")
            << manyCalls(limit, true, false, true) << limit << 0;
    QTest::newRow("the limit, without index") << manyCalls(limit, false, false) << limit << 0;
    QTest::newRow("one past, one chunk each") << manyCalls(limit + 1, true, false) << -1 << limit;
    QTest::newRow("one past, in one chunk") << manyCalls(limit + 1, true, true) << -1 << limit;
    QTest::newRow("one past, without index") << manyCalls(limit + 1, false, false) << -1 << limit;
    QTest::newRow("a first call at index 128")
            << Payloads{roleChunk,
                        chunk(fragment(limit, u"call_x"_s, u"shell"_s, echoArguments)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << -1 << 0;
    // Kept by index: an index this large must be refused before anything is made for it.
    QTest::newRow("index 2000000000")
            << Payloads{roleChunk,
                        chunk(fragment(2000000000, u"call_x"_s, u"shell"_s, echoArguments)),
                        chunk({}, u"tool_calls"_s),
                        done}
            << -1 << 0;
    QTest::newRow("index past int")
            << Payloads{roleChunk,
                        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":99999999999,)"
                        R"("id":"call_x","function":{"name":"shell","arguments":"{}"}}]}}]})",
                        chunk({}, u"tool_calls"_s),
                        done}
            << -1 << 0;
}

// Past maxToolCallsPerMessage the whole message is refused, at the call that passes it: nothing
// more of the stream is kept, so the loop runs none of them.
void tst_StreamAssembler::toolCallLimit()
{
    QFETCH(Payloads, payloads);
    QFETCH(int, calls);
    QFETCH(int, keptAtMost);

    for (const auto reading : {StreamAssembler::ChunkReading::Scanner,
                               StreamAssembler::ChunkReading::JsonDocumentOnly}) {
        StreamAssembler assembler(reading);
        qsizetype refusedAt = -1;
        for (qsizetype i = 0; i < payloads.size(); ++i) {
            if (!assembler.addPayload(payloads[i]) && refusedAt < 0)
                refusedAt = i;
        }
        const Result<Completion> completion = assembler.result();
        if (calls >= 0) {
            QVERIFY2(completion.hasValue(),
                     qPrintable(completion ? QString() : completion.error().message));
            QVERIFY(!assembler.isRefused());
            QCOMPARE(completion->message.toolCalls().size(), calls);
            QCOMPARE(completion->message.toolCalls().last().id, u"call_%1"_s.arg(calls - 1));
            QCOMPARE(completion->message.toolCalls().last().arguments,
                     uR"({"command":"echo %1"})"_s.arg(calls - 1));
            continue;
        }
        QVERIFY(!completion.hasValue());
        QVERIFY(assembler.isRefused());
        QCOMPARE(completion.error().kind, Error::Agent);
        QCOMPARE(completion.error().message,
                 u"The model asked for more than 128 tool calls in one message, so none of them "
                 u"was run."_s);
        // Refused by the payload that brought the call too many, not at the end.
        QVERIFY(refusedAt >= 0 && refusedAt < payloads.size() - 2);
        QVERIFY(assembler.toolCalls().size() <= keptAtMost);
        // Whatever follows is ignored.
        QVERIFY(!assembler.addPayload(chunk(text(u"more"_s))));
        QVERIFY(assembler.content().isEmpty());
    }
}
