// Streaming, provider differences and resilience, end to end: a real AgentController (and its
// ChatClient) talking HTTP to a FakeChatServer on 127.0.0.1, with the real shell tool in front of
// a FakeCommandRunner.

#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "testjson.h"
#include "testmain.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QTimer>

#include <chrono>
#include <memory>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(AgentLoop::FakeResponse)

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_Streaming : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    // The same conversation, streamed or not.
    void sameHistoryStreamedOrNot_data();
    void sameHistoryStreamedOrNot();
    void requestBodyAsksForAStreamOnlyWhenStreaming();
    void streamedExchangeShowsRawEventsAndAssembledMessage();

    // How a streamed tool call may arrive.
    void toolCallFragments_data();
    void toolCallFragments();
    void usageOnlyFinalChunk();
    void reasoningIsShownAndSentBack_data();
    void reasoningIsShownAndSentBack();
    void textArrivesIncrementally();

    // Provider differences.
    void providerDifferences_data();
    void providerDifferences();
    void streamedErrorNeverShowsTheKey();
    void aKeyStreamedInPiecesIsNotInTheRecordedExchange();

    // Resilience.
    void retryAfterSecondsIsHonoured();
    void retryAfterHttpDateIsHonoured();
    void retriedStatuses_data();
    void retriedStatuses();
    void neverRetried_data();
    void neverRetried();
    void connectionRefusedIsRetriedThenFails();
    void streamBrokenOffIsNotRetried_data();
    void streamBrokenOffIsNotRetried();
    void silentProviderTimesOutWithoutRetry();
    void stopDuringStream();
    void stopDuringRetryWait();
    void clientSignalOrder();
};

namespace {

const QString apiKey = u"sk-test-streaming-0123456789"_s;
const QString model = u"gpt-4.1"_s;
constexpr qint64 created = 1727346165;
constexpr int endTimeoutMs = Testing::hangGuardMs;
constexpr int maxRetries = 3;

// An assistant message as Message::toJson writes it (and as the history sends it back).
QJsonObject assistantJson(const QJsonValue &content, const QJsonArray &toolCalls = {})
{
    QJsonObject message{{u"role"_s, u"assistant"_s}, {u"content"_s, content}};
    if (!toolCalls.isEmpty())
        message.insert(u"tool_calls"_s, toolCalls);
    return message;
}

QJsonObject usageJson()
{
    return {{u"prompt_tokens"_s, 20}, {u"completion_tokens"_s, 10}, {u"total_tokens"_s, 30}};
}

// A chat.completion.chunk with the given choices.
QByteArray chunkEvent(const QJsonArray &choices)
{
    return FakeResponse::sseEvent({{u"id"_s, u"chatcmpl-stream"_s},
                                   {u"object"_s, u"chat.completion.chunk"_s},
                                   {u"created"_s, created},
                                   {u"model"_s, model},
                                   {u"choices"_s, choices}});
}

QJsonObject choiceDelta(const QJsonObject &delta, const QJsonValue &finishReason, int index = 0)
{
    return {{u"index"_s, index},
            {u"delta"_s, delta},
            {u"logprobs"_s, QJsonValue::Null},
            {u"finish_reason"_s, finishReason}};
}

// One chunk of choice 0.
QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return chunkEvent({choiceDelta(delta, finishReason)});
}

// The last chunk of a stream with stream_options.include_usage: no choices, only usage.
QByteArray usageChunk()
{
    return FakeResponse::sseEvent({{u"id"_s, u"chatcmpl-stream"_s},
                                   {u"object"_s, u"chat.completion.chunk"_s},
                                   {u"created"_s, created},
                                   {u"model"_s, model},
                                   {u"choices"_s, QJsonArray()},
                                   {u"usage"_s, usageJson()}});
}

QJsonObject toolDelta(const QJsonArray &fragments)
{
    return {{u"tool_calls"_s, fragments}};
}

// The first fragment of a call: index, id, type and name (and, if given, the start of the
// arguments).
QJsonObject callStart(int index,
                      const QString &id,
                      const QString &name,
                      const QJsonValue &arguments = u""_s)
{
    return {{u"index"_s, index},
            {u"id"_s, id},
            {u"type"_s, u"function"_s},
            {u"function"_s, QJsonObject{{u"name"_s, name}, {u"arguments"_s, arguments}}}};
}

QJsonObject callArguments(int index, const QString &piece)
{
    return {{u"index"_s, index}, {u"function"_s, QJsonObject{{u"arguments"_s, piece}}}};
}

QStringList pieces(const QString &text, int size)
{
    QStringList result;
    for (qsizetype i = 0; i < text.size(); i += size)
        result.append(text.mid(i, size));
    return result;
}

// The stream a provider would send for this assistant message: role, reasoning, text and every
// tool call in small pieces, the finish_reason, usage, [DONE].
QList<QByteArray> streamEventsFor(const QJsonObject &message,
                                  const QString &finishReason,
                                  int pieceSize = 3)
{
    const QJsonValue content = message.value(u"content"_s);
    QList<QByteArray> events{chunk({{u"role"_s, u"assistant"_s},
                                    {u"content"_s, content.isString() ? u""_s : QJsonValue()}})};
    for (const QString &piece : pieces(message.value(u"reasoning_content"_s).toString(), pieceSize))
        events.append(chunk({{u"reasoning_content"_s, piece}, {u"content"_s, QJsonValue()}}));
    for (const QString &piece : pieces(content.toString(), pieceSize))
        events.append(chunk({{u"content"_s, piece}}));
    const QJsonArray calls = message.value(u"tool_calls"_s).toArray();
    for (int index = 0; index < calls.size(); ++index) {
        const QJsonObject call = calls.at(index).toObject();
        const QJsonObject function = call.value(u"function"_s).toObject();
        events.append(chunk(toolDelta({callStart(index,
                                                 call.value(u"id"_s).toString(),
                                                 function[u"name"_s].toString())})));
        for (const QString &piece : pieces(function[u"arguments"_s].toString(), pieceSize))
            events.append(chunk(toolDelta({callArguments(index, piece)})));
    }
    events.append(chunk({}, finishReason));
    events.append(usageChunk());
    events.append(FakeResponse::sseDone());
    return events;
}

// The same events, cut into network chunks of `size` bytes wherever that falls.
QList<QByteArray> rechunked(const QList<QByteArray> &events, int size)
{
    const QByteArray all = events.join();
    QList<QByteArray> chunks;
    for (qsizetype i = 0; i < all.size(); i += size)
        chunks.append(all.mid(i, size));
    return chunks;
}

FakeResponse streamOf(const QList<QByteArray> &events, int delayMs = 2)
{
    return FakeResponse::stream(events, delayMs);
}

FakeResponse withHeader(FakeResponse response, const QByteArray &name, const QByteArray &value)
{
    response.headers.append({name, value});
    return response;
}

// A chat.completion body with these choices; usage only when given.
FakeResponse completionWithChoices(const QJsonArray &choices,
                                   const QJsonValue &usage = QJsonValue::Undefined)
{
    QJsonObject root{{u"id"_s, u"chatcmpl-plain"_s},
                     {u"object"_s, u"chat.completion"_s},
                     {u"created"_s, created},
                     {u"model"_s, model},
                     {u"choices"_s, choices}};
    if (!usage.isUndefined())
        root.insert(u"usage"_s, usage);
    return FakeResponse::json(root);
}

QJsonObject messageChoice(const QJsonObject &message, const QJsonValue &finishReason, int index = 0)
{
    QJsonObject choice{{u"index"_s, index},
                       {u"message"_s, message},
                       {u"logprobs"_s, QJsonValue::Null}};
    if (!finishReason.isUndefined())
        choice.insert(u"finish_reason"_s, finishReason);
    return choice;
}

// How long the client waited between its first two attempts, at least: the time from the first
// chat request's arrival (before its answer was even sent) to the second's. Load can only make
// it longer.
class RetryGap
{
public:
    explicit RetryGap(FakeChatServer &server)
    {
        QObject::connect(&server,
                         &FakeChatServer::requestReceived,
                         &server,
                         [this, &server](int index) {
                             if (server.allRequests().at(index).method != "POST")
                                 return;
                             if (!m_sinceTheFirst.isValid())
                                 m_sinceTheFirst.start();
                             else if (m_ms < 0)
                                 m_ms = m_sinceTheFirst.elapsed();
                         });
    }
    qint64 ms() const { return m_ms; }

private:
    QElapsedTimer m_sinceTheFirst;
    qint64 m_ms = -1;
};

QString exchangeAttempts(const QSignalSpy &spy)
{
    QStringList attempts;
    for (const QList<QVariant> &arguments : spy)
        attempts.append(QString::number(arguments.first().value<Exchange>().attempt));
    return attempts.join(u',');
}

// A read-only tool without parameters: the one that "" arguments ({}) fit.
class PingTool final : public Tool
{
public:
    PingTool()
        : Tool(u"ping"_s,
               u"Answers pong."_s,
               JsonSchema(QJsonObject{{u"type"_s, u"object"_s},
                                      {u"properties"_s, QJsonObject()},
                                      {u"additionalProperties"_s, false}}),
               SideEffect::Read)
    {}

    QString approvalReason() const override { return {}; }

    ToolRun *invoke(const PreparedCall &, QObject *parent) const override
    {
        class Run final : public ToolRun
        {
        public:
            explicit Run(QObject *owner)
                : ToolRun(owner)
            {
                QTimer::singleShot(0, this, [this] {
                    emit finished(ToolResult::success(u"pong"_s));
                });
            }
            void cancel() override {}
        };
        return new Run(parent);
    }
};

// The agent as the app builds it; approvals are allowed by a lambda, a turn of the event loop
// later, as a dialog would answer.
class Harness
{
public:
    explicit Harness(bool stream = true, const QUrl &baseUrl = {})
    {
        ProviderSettings settings;
        settings.baseUrl = baseUrl.isEmpty() ? server.baseUrl() : baseUrl;
        settings.apiKey = apiKey;
        settings.model = model;
        settings.requestTimeout = 10s;
        settings.stream = stream;
        settings.retry.maxRetries = maxRetries;
        settings.retry.baseDelay = 4ms; // 2-4, 4-8, 8-16 ms
        settings.retry.maxDelay = 50ms;
        agent.setProvider(settings);
        ShellToolOptions options;
        options.workspace = u"/tmp/agentloop-workspace"_s;
        installStandardTools(agent, std::make_shared<FakeCommandRunner>(runner), options);
        agent.addTool(std::make_shared<PingTool>());
        QObject::connect(&agent,
                         &AgentController::approvalRequested,
                         &agent,
                         [this](const ApprovalRequest &request) {
                             QTimer::singleShot(0, &agent, [this, id = request.id] {
                                 agent.resolveApproval(id, ApprovalAnswer::allowOnce());
                             });
                         });
    }

    void setRetry(const RetryPolicy &retry)
    {
        ProviderSettings settings = agent.provider();
        settings.retry = retry;
        agent.setProvider(settings);
    }
    void setRequestTimeout(std::chrono::milliseconds timeout)
    {
        ProviderSettings settings = agent.provider();
        settings.requestTimeout = timeout;
        agent.setProvider(settings);
    }

    bool ended() const { return !finished.isEmpty() || !failed.isEmpty(); }
    Error error() const
    {
        return failed.isEmpty() ? Error() : failed.first().first().value<Error>();
    }
    QString answer() const
    {
        return finished.isEmpty() ? QString() : finished.first().first().toString();
    }
    QByteArray historyJson() const { return compact(agent.history().toJson()); }
    Exchange received(qsizetype i) const { return receivedSpy.at(i).first().value<Exchange>(); }
    Exchange sent(qsizetype i) const { return sentSpy.at(i).first().value<Exchange>(); }
    QString textDeltas() const
    {
        QString text;
        for (const QList<QVariant> &arguments : textSpy)
            text += arguments.first().toString();
        return text;
    }
    QString reasoningDeltas() const
    {
        QString text;
        for (const QList<QVariant> &arguments : reasoningSpy)
            text += arguments.first().toString();
        return text;
    }

    FakeChatServer server;
    FakeCommandRunner runner;
    AgentController agent;
    QSignalSpy finished{&agent, &AgentController::finished};
    QSignalSpy failed{&agent, &AgentController::failed};
    QSignalSpy sentSpy{&agent, &AgentController::requestSent};
    QSignalSpy receivedSpy{&agent, &AgentController::responseReceived};
    QSignalSpy completions{&agent, &AgentController::completionReceived};
    QSignalSpy appended{&agent, &AgentController::messageAppended};
    QSignalSpy textSpy{&agent, &AgentController::assistantTextDelta};
    QSignalSpy reasoningSpy{&agent, &AgentController::assistantReasoningDelta};
    QSignalSpy retries{&agent, &AgentController::retryScheduled};
};

// What every conversation here starts with: the system prompt and the user's prompt.
constexpr qsizetype promptMessages = 2;

} // namespace

#define WAIT_FOR_END(h) QTRY_VERIFY_WITH_TIMEOUT((h).ended(), endTimeoutMs)

void tst_Streaming::initTestCase()
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<Exchange>();
    qRegisterMetaType<Completion>();
    qRegisterMetaType<Message>();
    qRegisterMetaType<ApprovalRequest>();
}

void tst_Streaming::sameHistoryStreamedOrNot_data()
{
    QTest::addColumn<QJsonObject>("firstMessage"); // the assistant's tool-calling message
    QTest::addColumn<int>("pieceSize");

    const QJsonObject echo = toolCallJson(u"call_echo"_s, u"shell"_s, uR"({"command":"echo 42"})"_s);
    const QJsonObject ping = toolCallJson(u"call_ping"_s, u"ping"_s, u"{}"_s);
    QTest::newRow("a tool call, no text") << assistantJson(QJsonValue::Null, {echo}) << 4;
    QTest::newRow("text and a tool call, 1-character pieces")
            << assistantJson(u"Let me run it: ünïcode ✓."_s, {echo}) << 1;
    QTest::newRow("two parallel calls") << assistantJson(QJsonValue::Null, {echo, ping}) << 3;
    QJsonObject reasoning = assistantJson(u"Running it."_s, {echo});
    reasoning.insert(u"reasoning_content"_s, u"The user wants the output of echo 42."_s);
    QTest::newRow("reasoning model") << reasoning << 5;
}

void tst_Streaming::sameHistoryStreamedOrNot()
{
    QFETCH(QJsonObject, firstMessage);
    QFETCH(int, pieceSize);

    const QJsonObject finalMessage = assistantJson(u"The output is 42. Fertig ✓"_s);
    QByteArray histories[2];
    QList<RecordedRequest> requests[2];
    for (const bool stream : {false, true}) {
        Harness h(stream);
        if (stream) {
            h.server.script({streamOf(streamEventsFor(firstMessage, u"tool_calls"_s, pieceSize)),
                             streamOf(streamEventsFor(finalMessage, u"stop"_s, pieceSize))});
        } else {
            h.server.script({FakeResponse::completion(firstMessage, u"tool_calls"_s),
                             FakeResponse::completion(finalMessage, u"stop"_s)});
        }
        h.runner.enqueue(0, u"42\n"_s);
        QVERIFY(h.agent.run(u"Run echo 42 and tell me the output"_s));
        WAIT_FOR_END(h);
        QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
        QCOMPARE(h.answer(), finalMessage[u"content"_s].toString());
        histories[stream] = h.historyJson();
        requests[stream] = h.server.requests();
        QCOMPARE(h.agent.history().size(),
                 promptMessages + 2 + firstMessage[u"tool_calls"_s].toArray().size());
        // The assistant message is kept as the provider meant it, reasoning included.
        QCOMPARE(compact(h.agent.history().toJson().at(promptMessages)), compact(firstMessage));
        QCOMPARE(h.textSpy.isEmpty(), !stream);
    }
    QCOMPARE(histories[true], histories[false]);

    // The provider receives the same conversation either way; only the stream fields differ.
    QCOMPARE(requests[true].size(), 2);
    QCOMPARE(requests[false].size(), 2);
    for (int i = 0; i < 2; ++i) {
        QJsonObject streamed = requests[true].at(i).json();
        QCOMPARE(streamed.take(u"stream"_s), QJsonValue(true));
        QCOMPARE(compact(streamed.take(u"stream_options"_s)),
                 compact(QJsonObject{{u"include_usage"_s, true}}));
        QCOMPARE(compact(streamed), compact(requests[false].at(i).json()));
    }
}

void tst_Streaming::requestBodyAsksForAStreamOnlyWhenStreaming()
{
    for (const bool stream : {true, false}) {
        Harness h(stream);
        h.server.script(
                {stream ? FakeResponse::streamedAnswer({u"Hi"_s}) : FakeResponse::answer(u"Hi"_s)});
        QVERIFY(h.agent.run(u"Say hi"_s));
        WAIT_FOR_END(h);
        QCOMPARE(h.answer(), u"Hi"_s);
        const RecordedRequest request = h.server.requests().first();
        QStringList keys = request.json().keys();
        keys.sort();
        if (stream) {
            QCOMPARE(keys,
                     QStringList({u"messages"_s,
                                  u"model"_s,
                                  u"stream"_s,
                                  u"stream_options"_s,
                                  u"tools"_s}));
            QVERIFY2(request.body.contains(R"("stream":true)"), request.body.constData());
            QVERIFY2(request.body.contains(R"("stream_options":{"include_usage":true})"),
                     request.body.constData());
        } else {
            QCOMPARE(keys, QStringList({u"messages"_s, u"model"_s, u"tools"_s}));
            QVERIFY2(!request.body.contains("stream"), request.body.constData());
        }
        QCOMPARE(h.received(0).streamed, stream);
    }
}

void tst_Streaming::streamedExchangeShowsRawEventsAndAssembledMessage()
{
    Harness h;
    const QJsonObject first = assistantJson(u"Checking."_s,
                                            {toolCallJson(u"call_1"_s,
                                                          u"shell"_s,
                                                          uR"({"command":"echo hi"})"_s)});
    const QList<QByteArray> firstEvents = streamEventsFor(first, u"tool_calls"_s);
    // SSE lines cut anywhere: the raw bytes are what was received, not a re-serialisation.
    const QList<QByteArray> secondEvents = streamEventsFor(assistantJson(u"hi it is"_s), u"stop"_s);
    h.server.script({streamOf(firstEvents), streamOf(rechunked(secondEvents, 7), 0)});
    h.runner.enqueue(0, u"hi\n"_s);
    QVERIFY(h.agent.run(u"echo hi"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.answer(), u"hi it is"_s);

    QCOMPARE(h.receivedSpy.size(), 2);
    const QList<QByteArray> rawEvents[2] = {firstEvents, secondEvents};
    const qsizetype assistantAt[2] = {promptMessages, promptMessages + 2};
    for (int i = 0; i < 2; ++i) {
        const Exchange exchange = h.received(i);
        QVERIFY(exchange.streamed);
        QCOMPARE(exchange.httpStatus, 200);
        QCOMPARE(exchange.attempt, 1);
        QVERIFY(exchange.retryNotice.isEmpty());
        QCOMPARE(exchange.responseBody, rawEvents[i].join());
        QCOMPARE(exchange.requestBody, h.server.requests().at(i).body);
        QVERIFY2(!exchange.assembledMessage.isEmpty(), exchange.responseBody.constData());
        QCOMPARE(compact(parseObject(exchange.assembledMessage)),
                 compact(h.agent.history().at(assistantAt[i]).toJson()));
    }
    QCOMPARE(compact(parseObject(h.received(0).assembledMessage)), compact(first));
}

void tst_Streaming::toolCallFragments_data()
{
    QTest::addColumn<FakeResponse>("stream");
    QTest::addColumn<QJsonObject>("expected"); // the assistant message in the history

    const QString arguments = uR"({"command":"echo hi"})"_s;
    const QJsonObject echo = toolCallJson(u"call_1"_s, u"shell"_s, arguments);
    const QByteArray role = chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}});

    {
        QList<QByteArray> events{role, chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s)}))};
        for (const QString &piece : pieces(arguments, 1))
            events.append(chunk(toolDelta({callArguments(0, piece)})));
        events += {chunk({}, u"tool_calls"_s), usageChunk(), FakeResponse::sseDone()};
        QTest::newRow("arguments in 1-byte fragments")
                << streamOf(events, 1) << assistantJson(QJsonValue::Null, {echo});
        QTest::newRow("SSE lines cut across 5-byte network chunks")
                << streamOf(rechunked(events, 5), 0) << assistantJson(QJsonValue::Null, {echo});
    }
    {
        // The index first; the arguments start; id, type and name only later, then repeated.
        const QList<QByteArray>
                events{role,
                       chunk(toolDelta({QJsonObject{{u"index"_s, 0},
                                                    {u"function"_s,
                                                     QJsonObject{{u"arguments"_s, u""_s}}}}})),
                       chunk(toolDelta({callArguments(0, u"{\"comm"_s)})),
                       chunk(toolDelta({QJsonObject{{u"index"_s, 0}, {u"id"_s, u"call_1"_s}}})),
                       chunk(toolDelta({callArguments(0, u"and\":\"ec"_s)})),
                       chunk(toolDelta({QJsonObject{{u"index"_s, 0},
                                                    {u"type"_s, u"function"_s},
                                                    {u"function"_s,
                                                     QJsonObject{{u"name"_s, u"shell"_s},
                                                                 {u"arguments"_s, u"ho"_s}}}}})),
                       chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, u" hi\"}"_s)})),
                       chunk({}, u"tool_calls"_s),
                       FakeResponse::sseDone()};
        QTest::newRow("id and name after the index")
                << streamOf(events) << assistantJson(QJsonValue::Null, {echo});
    }
    {
        const QList<QByteArray> events{role,
                                       chunk(toolDelta(
                                               {callStart(0, u"call_1"_s, u"shell"_s, u"{"_s)})),
                                       chunk(toolDelta({callArguments(0, arguments.mid(1))})),
                                       chunk({}, u"tool_calls"_s),
                                       FakeResponse::sseDone()};
        QTest::newRow("leading { with the name")
                << streamOf(events) << assistantJson(QJsonValue::Null, {echo});
    }
    {
        const QList<QByteArray>
                events{chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments)}),
                             u"tool_calls"_s),
                       FakeResponse::sseDone()};
        QTest::newRow("the whole call in one chunk")
                << streamOf(events) << assistantJson(QJsonValue::Null, {echo});
    }
    {
        // Two calls whose fragments alternate; index 1 even starts first.
        const QString pingArguments = u"{}"_s;
        const QList<QByteArray> events{role,
                                       chunk(toolDelta({callStart(1, u"call_2"_s, u"ping"_s)})),
                                       chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s)})),
                                       chunk(toolDelta({callArguments(0, arguments.left(8))})),
                                       chunk(toolDelta({callArguments(1, u"{"_s)})),
                                       chunk(toolDelta({callArguments(0, arguments.mid(8, 6)),
                                                        callArguments(1, u"}"_s)})),
                                       chunk(toolDelta({callArguments(0, arguments.mid(14))})),
                                       chunk({}, u"tool_calls"_s),
                                       usageChunk(),
                                       FakeResponse::sseDone()};
        QTest::newRow("two parallel calls interleaved by index")
                << streamOf(events)
                << assistantJson(QJsonValue::Null,
                                 {echo, toolCallJson(u"call_2"_s, u"ping"_s, pingArguments)});
    }
    {
        const QList<QByteArray> events{chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                                       chunk({{u"content"_s, u"I'll run "_s}}),
                                       chunk({{u"content"_s, u"it now."_s}}),
                                       chunk(toolDelta(
                                               {callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                                       chunk({}, u"tool_calls"_s),
                                       FakeResponse::sseDone()};
        QTest::newRow("text and a tool call in one message")
                << streamOf(events) << assistantJson(u"I'll run it now."_s, {echo});
    }
    {
        const QList<QByteArray> events{role,
                                       chunk(toolDelta(
                                               {callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                                       chunk({}, u"stop"_s),
                                       FakeResponse::sseDone()};
        QTest::newRow("tool_calls with finish_reason stop")
                << streamOf(events) << assistantJson(QJsonValue::Null, {echo});
    }
    {
        const QList<QByteArray> events{role,
                                       chunk(toolDelta(
                                               {callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                                       usageChunk(),
                                       FakeResponse::sseDone()};
        QTest::newRow("no finish_reason at all")
                << streamOf(events) << assistantJson(QJsonValue::Null, {echo});
    }
    {
        // The last fragment and the finish_reason share the last chunk; no [DONE] follows.
        const QList<QByteArray>
                events{role,
                       chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments.left(10))})),
                       chunk(toolDelta({callArguments(0, arguments.mid(10))}), u"tool_calls"_s)};
        QTest::newRow("finish_reason only in the last chunk")
                << streamOf(events) << assistantJson(QJsonValue::Null, {echo});
    }
}

void tst_Streaming::toolCallFragments()
{
    QFETCH(FakeResponse, stream);
    QFETCH(QJsonObject, expected);

    Harness h;
    h.server.script({stream, FakeResponse::streamedAnswer({u"It printed "_s, u"hi."_s})});
    h.runner.enqueue(0, u"hi\n"_s);
    QVERIFY(h.agent.run(u"echo hi"_s));
    WAIT_FOR_END(h);
    QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
    QCOMPARE(h.answer(), u"It printed hi."_s);

    // The loop continued (decided from the assembled message), the calls ran in index order.
    const QList<RecordedRequest> requests = h.server.requests();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(compact(h.agent.history().toJson().at(promptMessages)), compact(expected));
    const QJsonArray calls = expected[u"tool_calls"_s].toArray();
    const QList<QJsonObject> toolMessages = requests[1].toolMessages();
    QCOMPARE(toolMessages.size(), calls.size());
    for (qsizetype i = 0; i < calls.size(); ++i)
        QCOMPARE(toolMessages[i][u"tool_call_id"_s].toString(), calls[i][u"id"_s].toString());
    QCOMPARE(toolMessages[0][u"content"_s].toString(), u"hi"_s);
    QCOMPARE(h.runner.requests().size(), 1);
    QCOMPARE(h.runner.requests().first().command, u"echo hi"_s);
    // What the provider receives back is the assembled message, byte for byte in the arguments.
    QCOMPARE(compact(requests[1].messages().at(promptMessages)), compact(expected));
    QVERIFY(requests[1].body.contains(R"("arguments":"{\"command\":\"echo hi\"}")"));
}

void tst_Streaming::usageOnlyFinalChunk()
{
    Harness h;
    h.server.script({streamOf(streamEventsFor(assistantJson(u"Hello there"_s), u"stop"_s))});
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.answer(), u"Hello there"_s);
    QCOMPARE(h.completions.size(), 1);
    const Completion completion = h.completions.first().at(1).value<Completion>();
    QVERIFY(completion.usage.has_value());
    QCOMPARE(completion.usage->promptTokens, 20);
    QCOMPARE(completion.usage->completionTokens, 10);
    QCOMPARE(completion.usage->totalTokens, 30);
    QCOMPARE(completion.finishReason, u"stop"_s);
    QCOMPARE(completion.id, u"chatcmpl-stream"_s);
    QCOMPARE(completion.model, model);
}

void tst_Streaming::reasoningIsShownAndSentBack_data()
{
    QTest::addColumn<bool>("stream");
    QTest::newRow("streamed") << true;
    QTest::newRow("not streamed") << false;
}

void tst_Streaming::reasoningIsShownAndSentBack()
{
    QFETCH(bool, stream);

    const QString reasoning = u"The user wants echo hi. I should call the shell."_s;
    QJsonObject first = assistantJson(QJsonValue::Null,
                                      {toolCallJson(u"call_1"_s,
                                                    u"shell"_s,
                                                    uR"({"command":"echo hi"})"_s)});
    first.insert(u"reasoning_content"_s, reasoning);
    Harness h(stream);
    h.server.script({stream ? streamOf(streamEventsFor(first, u"tool_calls"_s, 6), 5)
                            : FakeResponse::completion(first, u"tool_calls"_s),
                     FakeResponse::answer(u"Done."_s)});
    h.runner.enqueue(0, u"hi\n"_s);
    QVERIFY(h.agent.run(u"echo hi"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.answer(), u"Done."_s);

    if (stream) {
        QVERIFY2(h.reasoningSpy.size() > 1, qPrintable(QString::number(h.reasoningSpy.size())));
        QCOMPARE(h.reasoningDeltas(), reasoning);
        QVERIFY(h.textSpy.isEmpty()); // the reasoning is not the answer
    } else {
        QVERIFY(h.reasoningSpy.isEmpty());
    }
    QCOMPARE(h.agent.history().at(promptMessages).reasoningContent(), reasoning);
    // DeepSeek wants it back on the assistant message of the same task.
    const QJsonObject sentBack = h.server.requests().at(1).messages().at(promptMessages).toObject();
    QCOMPARE(sentBack[u"reasoning_content"_s].toString(), reasoning);
    QVERIFY(sentBack[u"content"_s].isNull());
    // ...but never on the user's or the tool's messages.
    for (const QJsonValue &message : h.server.requests().at(1).messages()) {
        if (message[u"role"_s].toString() != u"assistant")
            QVERIFY(!message.toObject().contains(u"reasoning_content"_s));
    }
}

void tst_Streaming::textArrivesIncrementally()
{
    const QStringList parts{u"The "_s, u"answer "_s, u"is "_s, u"42, "_s, u"ünïcode ✓."_s};
    Harness h;
    h.server.script({FakeResponse::streamedAnswer(parts)}); // 20 ms between chunks
    QStringList deltasWhileStreaming;
    QObject::connect(&h.agent,
                     &AgentController::assistantTextDelta,
                     &h.agent,
                     [&](const QString &text) {
                         deltasWhileStreaming.append(text);
                         // Each piece is shown before the answer is complete.
                         QVERIFY(h.finished.isEmpty());
                         QCOMPARE(h.agent.history().size(), promptMessages);
                     });
    QVERIFY(h.agent.run(u"What is the answer?"_s));
    WAIT_FOR_END(h);
    QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
    QVERIFY2(h.textSpy.size() > 1, qPrintable(QString::number(h.textSpy.size())));
    QCOMPARE(h.textDeltas(), parts.join(QString()));
    QCOMPARE(h.answer(), parts.join(QString()));
    QCOMPARE(h.agent.history().last().content(), parts.join(QString()));
    QCOMPARE(deltasWhileStreaming.size(), h.textSpy.size());

    // Not streamed: no deltas, the same answer.
    Harness plain(false);
    plain.server.script({FakeResponse::answer(parts.join(QString()))});
    QVERIFY(plain.agent.run(u"What is the answer?"_s));
    WAIT_FOR_END(plain);
    QCOMPARE(plain.answer(), parts.join(QString()));
    QVERIFY(plain.textSpy.isEmpty());
}

void tst_Streaming::providerDifferences_data()
{
    QTest::addColumn<FakeResponse>("response"); // the answer to the first request
    QTest::addColumn<QJsonObject>("expected");  // the assistant message kept; empty on failure
    QTest::addColumn<QString>("toolContent");   // what the first call's tool message says
    QTest::addColumn<bool>("usage");            // the completion carries usage
    QTest::addColumn<int>("errorKind");         // Error::None on success
    QTest::addColumn<QString>("errorMessage");  // a fragment of the failure
    QTest::addColumn<int>("requests");          // chat requests sent for the first turn

    const QString arguments = uR"({"command":"echo hi"})"_s;
    const QJsonObject echo = toolCallJson(u"call_1"_s, u"shell"_s, arguments);
    const QJsonObject echoCall{{u"id"_s, u"call_1"_s},
                               {u"type"_s, u"function"_s},
                               {u"function"_s,
                                QJsonObject{{u"name"_s, u"shell"_s}, {u"arguments"_s, arguments}}}};
    const QJsonObject plainUsage = usageJson();
    const auto success = [&](const char *name,
                             const FakeResponse &response,
                             const QJsonObject &expected,
                             bool usage,
                             const QString &toolContent = u"hi"_s) {
        QTest::newRow(name) << response << expected << toolContent << usage << int(Error::None)
                            << QString() << 1;
    };
    const auto plainMessage = [&](const QJsonObject &message,
                                  const QJsonValue &finishReason = u"tool_calls"_s) {
        return completionWithChoices({messageChoice(message, finishReason)}, plainUsage);
    };

    // content "" vs null vs absent; "" beside tool calls goes back as null (Kimi and GLM reject
    // "", MoonshotAI/kimi-cli#2621, songquanpeng/one-api#1153)
    success("content \"\" (plain)",
            plainMessage({{u"role"_s, u"assistant"_s},
                          {u"content"_s, u""_s},
                          {u"tool_calls"_s, QJsonArray{echoCall}}}),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("content \"\" (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                      chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                      chunk({}, u"tool_calls"_s),
                      usageChunk(),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("content null (plain)",
            plainMessage({{u"role"_s, u"assistant"_s},
                          {u"content"_s, QJsonValue()},
                          {u"tool_calls"_s, QJsonArray{echoCall}}}),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("content null (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                      chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                      chunk({}, u"tool_calls"_s),
                      usageChunk(),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("content absent (plain)",
            plainMessage({{u"role"_s, u"assistant"_s}, {u"tool_calls"_s, QJsonArray{echoCall}}}),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("content absent (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}}),
                      chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                      chunk({}, u"tool_calls"_s),
                      usageChunk(),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            true);

    // tool_calls with finish_reason stop, or none at all: the message decides.
    success("tool_calls with finish_reason stop (plain)",
            plainMessage(assistantJson(QJsonValue::Null, {echo}), u"stop"_s),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("no finish_reason (plain)",
            plainMessage(assistantJson(QJsonValue::Null, {echo}), QJsonValue::Undefined),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("finish_reason null (plain)",
            plainMessage(assistantJson(QJsonValue::Null, {echo}), QJsonValue::Null),
            assistantJson(QJsonValue::Null, {echo}),
            true);

    // A missing `type` on a tool call.
    QJsonObject untyped = echoCall;
    untyped.remove(u"type"_s);
    success("tool call without type (plain)",
            plainMessage(assistantJson(QJsonValue::Null, {untyped})),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("tool call without type (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                      chunk(toolDelta({QJsonObject{{u"index"_s, 0},
                                                   {u"id"_s, u"call_1"_s},
                                                   {u"function"_s,
                                                    QJsonObject{{u"name"_s, u"shell"_s},
                                                                {u"arguments"_s, arguments}}}}})),
                      chunk({}, u"tool_calls"_s),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            false);

    // Usage absent.
    success("usage absent (plain)",
            completionWithChoices(
                    {messageChoice(assistantJson(QJsonValue::Null, {echo}), u"tool_calls"_s)}),
            assistantJson(QJsonValue::Null, {echo}),
            false);
    success("usage absent (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                      chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                      chunk({}, u"tool_calls"_s),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            false);

    // Arguments as an object instead of a string: kept as compact JSON text.
    const QJsonObject argumentsObject{{u"command"_s, u"echo hi"_s}};
    success("arguments as an object (plain)",
            plainMessage(assistantJson(QJsonValue::Null,
                                       {toolCallJson(u"call_1"_s, u"shell"_s, argumentsObject)})),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("arguments as an object (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                      chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, argumentsObject)})),
                      chunk({}, u"tool_calls"_s),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            false);

    // Empty-string arguments mean {}: the parameterless tool runs.
    const QJsonObject ping = toolCallJson(u"call_1"_s, u"ping"_s, u""_s);
    success("empty-string arguments (plain)",
            plainMessage(assistantJson(QJsonValue::Null, {ping})),
            assistantJson(QJsonValue::Null, {ping}),
            true,
            u"pong"_s);
    success("empty-string arguments (streamed)",
            streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                      chunk(toolDelta({callStart(0, u"call_1"_s, u"ping"_s, u""_s)})),
                      chunk({}, u"tool_calls"_s),
                      FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {ping}),
            false,
            u"pong"_s);

    // Several choices: index 0 is used, wherever it is.
    success("several choices (plain)",
            completionWithChoices(
                    {messageChoice(assistantJson(u"Choice one says no tools."_s), u"stop"_s, 1),
                     messageChoice(assistantJson(QJsonValue::Null, {echo}), u"tool_calls"_s, 0)},
                    plainUsage),
            assistantJson(QJsonValue::Null, {echo}),
            true);
    success("several choices (streamed)",
            streamOf(
                    {chunkEvent({choiceDelta({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}},
                                             QJsonValue::Null,
                                             1),
                                 choiceDelta({{u"role"_s, u"assistant"_s},
                                              {u"content"_s, QJsonValue()}},
                                             QJsonValue::Null,
                                             0)}),
                     chunkEvent(
                             {choiceDelta({{u"content"_s, u"Choice one."_s}}, QJsonValue::Null, 1)}),
                     chunkEvent(
                             {choiceDelta(toolDelta({callStart(0, u"call_9"_s, u"ping"_s, u"{}"_s)}),
                                          QJsonValue::Null,
                                          1)}),
                     chunk(toolDelta({callStart(0, u"call_1"_s, u"shell"_s, arguments)})),
                     chunkEvent(
                             {choiceDelta({}, u"stop"_s, 1), choiceDelta({}, u"tool_calls"_s, 0)}),
                     usageChunk(),
                     FakeResponse::sseDone()}),
            assistantJson(QJsonValue::Null, {echo}),
            true);

    // HTTP 200 whose body is an error: reported, not retried.
    const QJsonObject errorBody{{u"error"_s,
                                 QJsonObject{{u"message"_s, u"Upstream model is overloaded"_s},
                                             {u"type"_s, u"server_error"_s},
                                             {u"code"_s, QJsonValue::Null}}}};
    QTest::newRow("HTTP 200 with an error object (plain)")
            << FakeResponse::json(errorBody) << QJsonObject() << QString() << false
            << int(Error::Protocol) << u"Upstream model is overloaded"_s << 1;
    QTest::newRow("HTTP 200 with an error event (streamed)")
            << streamOf({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                         FakeResponse::sseEvent(errorBody)})
            << QJsonObject() << QString() << false << int(Error::Protocol)
            << u"Upstream model is overloaded"_s << 1;

    // A proxy's HTML page: 502 is worth retrying; the last one is reported as such.
    QTest::newRow("HTML error page from a proxy (502)")
            << FakeResponse::raw(
                       "<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>\n",
                       502,
                       "text/html; charset=utf-8")
            << QJsonObject() << QString() << false << int(Error::Http)
            << u"HTTP 502: an HTML page"_s << 1 + maxRetries;
}

void tst_Streaming::providerDifferences()
{
    QFETCH(FakeResponse, response);
    QFETCH(QJsonObject, expected);
    QFETCH(QString, toolContent);
    QFETCH(bool, usage);
    QFETCH(int, errorKind);
    QFETCH(QString, errorMessage);
    QFETCH(int, requests);

    Harness h;
    // The first response is sent for every attempt of the first request.
    h.server.setHandler([&](const RecordedRequest &request) {
        return request.toolMessages().isEmpty() ? response : FakeResponse::answer(u"Done."_s);
    });
    h.runner.enqueue(0, u"hi\n"_s);
    QVERIFY(h.agent.run(u"echo hi"_s));
    WAIT_FOR_END(h);

    if (errorKind != Error::None) {
        QCOMPARE(h.finished.size(), 0);
        const Error error = h.error();
        QCOMPARE(int(error.kind), errorKind);
        QVERIFY2(error.message.contains(errorMessage), qPrintable(error.toString()));
        QVERIFY(!error.hint.isEmpty());
        QTest::qWait(100); // longer than any retry delay here
        QCOMPARE(h.server.requests().size(), requests);
        QCOMPARE(h.retries.size(), requests - 1);
        QCOMPARE(h.agent.history().size(), promptMessages); // nothing from the failed turn
        QCOMPARE(h.agent.state(), AgentController::State::Idle);
        return;
    }

    QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
    QCOMPARE(h.answer(), u"Done."_s);
    QCOMPARE(h.server.requests().size(), requests + 1);
    QCOMPARE(compact(h.agent.history().toJson().at(promptMessages)), compact(expected));
    const QList<QJsonObject> toolMessages = h.server.requests().at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 1);
    QCOMPARE(toolMessages[0][u"content"_s].toString(), toolContent);
    QCOMPARE(compact(h.server.requests().at(1).messages().at(promptMessages)), compact(expected));
    const Completion completion = h.completions.first().at(1).value<Completion>();
    QCOMPARE(completion.usage.has_value(), usage);
    if (usage)
        QCOMPARE(completion.usage->totalTokens, 30);
}

// The model repeats the key a tool printed, a few characters per event: the exchange the inspector,
// the transcript and the bug bundle keep holds the marker where the joined text held the key.
void tst_Streaming::aKeyStreamedInPiecesIsNotInTheRecordedExchange()
{
    Harness h;
    h.server.script({FakeResponse::streamedAnswer(
            {u"It is "_s, apiKey.first(10), apiKey.sliced(10, 9), apiKey.sliced(19), u"."_s})});
    QVERIFY(h.agent.run(u"what is the key?"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.answer(), u"It is [REDACTED]."_s);
    const QByteArray recorded = h.received(0).responseBody;
    QVERIFY(recorded.contains("\"It is \""));
    QString joined;
    for (const QByteArray &line : recorded.split('\n')) {
        if (line.startsWith("data: {"))
            joined += QJsonDocument::fromJson(line.sliced(6))
                              .object()[u"choices"_s][0][u"delta"_s][u"content"_s]
                              .toString();
    }
    QCOMPARE(joined, u"It is [REDACTED]."_s);
    for (qsizetype at = 0; at + 6 <= apiKey.size(); at += 3)
        QVERIFY2(!recorded.contains(apiKey.sliced(at, 6).toUtf8()), recorded.constData());
}

// A careless provider echoes the key in an error event: the user never sees it.
void tst_Streaming::streamedErrorNeverShowsTheKey()
{
    Harness h;
    h.server.setHandler([](const RecordedRequest &request) {
        const QString echoed = u"Key %1 has no quota"_s.arg(
                QString::fromUtf8(request.header("Authorization").mid(7)));
        return streamOf({FakeResponse::sseEvent(
                {{u"error"_s, QJsonObject{{u"message"_s, echoed}, {u"type"_s, u"quota"_s}}}})});
    });
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    const Error error = h.error();
    QCOMPARE(error.kind, Error::Protocol);
    QCOMPARE(error.providerMessage, u"Key [REDACTED] has no quota"_s);
    QVERIFY2(!error.toString().contains(apiKey), qPrintable(error.toString()));
    QVERIFY2(error.message.contains(u"Key [REDACTED] has no quota"_s), qPrintable(error.message));
    QVERIFY(!h.received(0).responseBody.contains(apiKey.toUtf8()));
    QCOMPARE(h.server.requests().size(), 1);
}

void tst_Streaming::retryAfterSecondsIsHonoured()
{
    Harness h;
    h.server.script({withHeader(FakeResponse::httpError(429, u"Rate limit reached for gpt-4.1"_s),
                                "Retry-After",
                                "1"),
                     FakeResponse::streamedAnswer({u"Fine, "_s, u"here it is."_s})});
    const RetryGap gap(h.server);
    const QString prompt = u"Say something after the rate limit"_s;
    QVERIFY(h.agent.run(prompt));
    WAIT_FOR_END(h);
    QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
    QCOMPARE(h.answer(), u"Fine, here it is."_s);

    // The wait was the provider's, not the 4 ms backoff. (The retry timer is precise: it never
    // fires early; 5 % spares a coarse one.)
    const QList<RecordedRequest> requests = h.server.requests();
    QCOMPARE(requests.size(), 2);
    QVERIFY2(gap.ms() >= 950, qPrintable(QString::number(gap.ms())));
    const QList<QVariant> retry = h.retries.first();
    QCOMPARE(retry.at(0).toString(), u"Retrying in 1 s (attempt 2 of 4)."_s);
    QCOMPARE(retry.at(1).toLongLong(), 1000);
    QCOMPARE(retry.at(2).toInt(), 2);
    QCOMPARE(retry.at(3).toInt(), 4);

    // The same request again: the prompt once in the history and once in the second request.
    QCOMPARE(requests[1].body, requests[0].body);
    int userMessages = 0;
    for (const QJsonValue &message : requests[1].messages())
        userMessages += message[u"role"_s].toString() == u"user" ? 1 : 0;
    QCOMPARE(userMessages, 1);
    QCOMPARE(requests[1].messages().last()[u"content"_s].toString(), prompt);
    QCOMPARE(h.agent.history().size(), promptMessages + 1);
    int userInHistory = 0;
    for (const Message &message : h.agent.history().messages())
        userInHistory += message.role() == Role::User ? 1 : 0;
    QCOMPARE(userInHistory, 1);

    // The inspector: two attempts of turn 1, the first with its notice.
    QCOMPARE(exchangeAttempts(h.sentSpy), u"1,2"_s);
    QCOMPARE(exchangeAttempts(h.receivedSpy), u"1,2"_s);
    QCOMPARE(h.received(0).turn, 1);
    QCOMPARE(h.received(1).turn, 1);
    QCOMPARE(h.received(0).httpStatus, 429);
    QCOMPARE(h.received(0).retryNotice, u"Retrying in 1 s (attempt 2 of 4)."_s);
    QVERIFY(!h.received(0).streamed);
    QCOMPARE(h.received(1).httpStatus, 200);
    QVERIFY(h.received(1).retryNotice.isEmpty());
    QVERIFY(h.received(1).streamed);
}

void tst_Streaming::retryAfterHttpDateIsHonoured()
{
    Harness h;
    // The date is two seconds ahead, to the second, of the moment the 503 is sent.
    qint64 answeredAt = 0; // milliseconds since the epoch
    qint64 retryAt = 0;
    h.server.setHandler([&](const RecordedRequest &) {
        if (retryAt > 0)
            return FakeResponse::streamedAnswer({u"Back."_s});
        answeredAt = QDateTime::currentMSecsSinceEpoch();
        const QDateTime date = QDateTime::fromSecsSinceEpoch(answeredAt / 1000 + 2, Qt::UTC);
        retryAt = date.toMSecsSinceEpoch();
        return withHeader(FakeResponse::httpError(503, u"Overloaded"_s),
                          "Retry-After",
                          QLocale::c()
                                  .toString(date, u"ddd, dd MMM yyyy hh:mm:ss 'GMT'"_s)
                                  .toLatin1());
    });
    qint64 scheduledAt = 0;
    QObject::connect(&h.agent, &AgentController::retryScheduled, &h.agent, [&] {
        scheduledAt = QDateTime::currentMSecsSinceEpoch();
    });
    const RetryGap gap(h.server);
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.answer(), u"Back."_s);
    QCOMPARE(h.server.requests().size(), 2);
    QCOMPARE(h.retries.size(), 1);

    // The client read the date after it was sent and before it scheduled the retry: the delay is
    // the date's distance from a moment in between.
    const qint64 delayMs = h.retries.first().at(1).toLongLong();
    const QByteArray context = QByteArray::number(delayMs) + " ms, the date "
                               + QByteArray::number(retryAt - answeredAt) + " ms after the answer";
    QVERIFY2(delayMs <= retryAt - answeredAt, context.constData());
    QVERIFY2(delayMs >= retryAt - scheduledAt, context.constData());
    QVERIFY2(gap.ms() >= delayMs * 95 / 100, qPrintable(QString::number(gap.ms())));
}

void tst_Streaming::retriedStatuses_data()
{
    QTest::addColumn<QList<int>>("failures"); // the statuses before the answer
    QTest::addColumn<bool>("answered");       // false: the last failure is the result

    QTest::newRow("500 then success") << QList<int>{500} << true;
    QTest::newRow("408 then success") << QList<int>{408} << true;
    QTest::newRow("409 then success") << QList<int>{409} << true;
    QTest::newRow("429 then success") << QList<int>{429} << true;
    QTest::newRow("502, 504 then success") << QList<int>{502, 504} << true;
    QTest::newRow("503 three times then success") << QList<int>{503, 503, 503} << true;
    QTest::newRow("503 four times") << QList<int>{503, 503, 503, 503} << false;
}

void tst_Streaming::retriedStatuses()
{
    QFETCH(QList<int>, failures);
    QFETCH(bool, answered);

    Harness h;
    QList<FakeResponse> script;
    for (const int status : failures)
        script.append(FakeResponse::httpError(status, u"Status %1 from the provider"_s.arg(status)));
    script.append(FakeResponse::streamedAnswer({u"Made it."_s}));
    h.server.script(script);
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    QTest::qWait(100); // longer than any backoff here: nothing else is sent

    const int attempts = answered ? int(failures.size()) + 1 : 1 + maxRetries;
    QCOMPARE(h.server.requests().size(), attempts);
    QCOMPARE(h.retries.size(), attempts - 1);
    QCOMPARE(h.sentSpy.size(), attempts);
    QCOMPARE(h.receivedSpy.size(), attempts);
    for (int i = 0; i < attempts; ++i) {
        const Exchange exchange = h.received(i);
        QCOMPARE(exchange.turn, 1);
        QCOMPARE(exchange.attempt, i + 1);
        QCOMPARE(h.sent(i).attempt, i + 1);
        const bool retried = i < attempts - 1;
        QCOMPARE(exchange.retryNotice.isEmpty(), !retried);
        if (retried) {
            QCOMPARE(exchange.httpStatus, failures.at(i));
            QVERIFY2(exchange.retryNotice.endsWith(u"(attempt %1 of 4)."_s.arg(i + 2)),
                     qPrintable(exchange.retryNotice));
            QCOMPARE(h.retries.at(i).at(0).toString(), exchange.retryNotice);
            QCOMPARE(h.retries.at(i).at(2).toInt(), i + 2);
            QCOMPARE(h.retries.at(i).at(3).toInt(), 4);
        }
        QCOMPARE(h.server.requests().at(i).body, h.server.requests().first().body);
    }
    if (answered) {
        QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
        QCOMPARE(h.answer(), u"Made it."_s);
        QCOMPARE(h.agent.history().size(), promptMessages + 1);
    } else {
        QCOMPARE(h.finished.size(), 0);
        const Error error = h.error();
        QCOMPARE(error.kind, Error::Http);
        QCOMPARE(error.httpStatus, 503);
        QCOMPARE(error.providerMessage, u"Status 503 from the provider"_s);
        QCOMPARE(h.received(attempts - 1).httpStatus, 503);
        QCOMPARE(h.agent.history().size(), promptMessages);
    }
}

void tst_Streaming::neverRetried_data()
{
    QTest::addColumn<int>("status");
    QTest::newRow("400") << 400;
    QTest::newRow("401") << 401;
    QTest::newRow("403") << 403;
    QTest::newRow("404") << 404;
    QTest::newRow("422") << 422;
}

void tst_Streaming::neverRetried()
{
    QFETCH(int, status);

    Harness h;
    h.server.script({FakeResponse::httpError(status, u"No."_s),
                     FakeResponse::streamedAnswer({u"must not be asked"_s})});
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    QTest::qWait(100); // longer than any backoff here
    QCOMPARE(h.server.requests().size(), 1);
    QCOMPARE(h.retries.size(), 0);
    QCOMPARE(h.error().kind, Error::Http);
    QCOMPARE(h.error().httpStatus, status);
    QCOMPARE(h.receivedSpy.size(), 1);
    QVERIFY(h.received(0).retryNotice.isEmpty());
}

void tst_Streaming::connectionRefusedIsRetriedThenFails()
{
    const quint16 port = closedPort();
    QVERIFY(port != 0);
    Harness h(true, QUrl(u"http://127.0.0.1:%1/v1"_s.arg(port)));
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.retries.size(), maxRetries);
    QCOMPARE(h.sentSpy.size(), 1 + maxRetries);
    QCOMPARE(exchangeAttempts(h.receivedSpy), u"1,2,3,4"_s);
    QCOMPARE(h.received(0).httpStatus, 0);
    QVERIFY(!h.received(0).retryNotice.isEmpty());
    QVERIFY(h.received(maxRetries).retryNotice.isEmpty());
    const Error error = h.error();
    QCOMPARE(error.kind, Error::Network);
    QVERIFY2(error.hint.contains(u"Nothing is listening at 127.0.0.1:%1"_s.arg(port)),
             qPrintable(error.toString()));
    QCOMPARE(h.agent.history().size(), promptMessages);
}

void tst_Streaming::streamBrokenOffIsNotRetried_data()
{
    QTest::addColumn<QList<QByteArray>>("chunks"); // sent before the connection closes

    const QList<QByteArray> events{chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                                   chunk({{u"content"_s, u"The answer "_s}}),
                                   chunk({{u"content"_s, u"is"_s}})};
    QTest::newRow("between two events") << events;
    const QByteArray next = chunk({{u"content"_s, u" 42"_s}});
    QTest::newRow("inside an event") << (events + QList<QByteArray>{next.left(next.size() / 2)});
}

void tst_Streaming::streamBrokenOffIsNotRetried()
{
    QFETCH(QList<QByteArray>, chunks);

    Harness h;
    FakeResponse broken = streamOf(chunks, 20);
    broken.behaviour = FakeResponse::StreamThenDrop;
    h.server.script({broken, FakeResponse::streamedAnswer({u"Second "_s, u"time."_s})});
    QVERIFY(h.agent.run(u"What is the answer?"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.finished.size(), 0);
    const Error error = h.error();
    QCOMPARE(error.kind, Error::Network);
    QVERIFY2(error.message.startsWith(u"The answer stream broke off: "_s),
             qPrintable(error.message));
    QVERIFY(!error.hint.isEmpty());
    QCOMPARE(h.textDeltas(), u"The answer is"_s); // the user saw it: it must not come twice
    QTest::qWait(150);
    QCOMPARE(h.server.requests().size(), 1);
    QCOMPARE(h.retries.size(), 0);
    QCOMPARE(h.receivedSpy.size(), 1);
    QVERIFY(h.received(0).streamed);
    QVERIFY(h.received(0).retryNotice.isEmpty());
    QVERIFY(h.received(0).assembledMessage.isEmpty());
    // No partial assistant message.
    QCOMPARE(h.agent.history().size(), promptMessages);
    QVERIFY(h.agent.history().checkPairing().hasValue());
    QCOMPARE(h.agent.state(), AgentController::State::Idle);

    // The next prompt works.
    h.failed.clear();
    QVERIFY(h.agent.run(u"Try again"_s));
    WAIT_FOR_END(h);
    QVERIFY2(h.failed.isEmpty(), qPrintable(h.error().toString()));
    QCOMPARE(h.answer(), u"Second time."_s);
    QCOMPARE(h.server.requests().size(), 2);
    QCOMPARE(h.agent.history().last().content(), u"Second time."_s);
}

void tst_Streaming::silentProviderTimesOutWithoutRetry()
{
    Harness h;
    h.setRequestTimeout(500ms);
    h.server.script({FakeResponse::neverAnswer(), FakeResponse::streamedAnswer({u"no"_s})});
    QElapsedTimer clock;
    clock.start();
    QVERIFY(h.agent.run(u"hi"_s));
    WAIT_FOR_END(h);
    // Not before its time: counted from before the request, so load only lengthens it (a coarse
    // timer fires at most 5 % early).
    QVERIFY2(clock.elapsed() >= 400, qPrintable(QString::number(clock.elapsed())));
    const Error error = h.error();
    QCOMPARE(error.kind, Error::Timeout);
    QVERIFY2(error.message.contains(u"0.5 s"_s), qPrintable(error.message));
    QTest::qWait(150);
    QCOMPARE(h.server.requests().size(), 1);
    QCOMPARE(h.retries.size(), 0);
    QCOMPARE(h.agent.history().size(), promptMessages);
}

void tst_Streaming::stopDuringStream()
{
    Harness h;
    QList<QByteArray> events{chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}})};
    for (int i = 0; i < 60; ++i)
        events.append(chunk({{u"content"_s, u"word%1 "_s.arg(i)}}));
    events += {chunk({}, u"stop"_s), FakeResponse::sseDone()};
    h.server.script({streamOf(events, 30), FakeResponse::streamedAnswer({u"After the stop."_s})});
    QVERIFY(h.agent.run(u"Write a long text"_s));
    QTRY_VERIFY_WITH_TIMEOUT(h.textSpy.size() >= 2, endTimeoutMs);

    // Stopped, not finished: most of the 60 words were still to come.
    h.agent.cancel();
    QTRY_VERIFY(!h.failed.isEmpty());
    QCOMPARE(h.failed.size(), 1);
    QCOMPARE(h.finished.size(), 0);
    QCOMPARE(h.error().kind, Error::Cancelled);
    QCOMPARE(h.agent.state(), AgentController::State::Idle);
    QVERIFY(!h.agent.isRequestPending());

    // Nothing more from the abandoned stream.
    const qsizetype texts = h.textSpy.size();
    const qsizetype received = h.receivedSpy.size();
    const qsizetype appended = h.appended.size();
    QTest::qWait(300);
    QCOMPARE(h.textSpy.size(), texts);
    QCOMPARE(h.receivedSpy.size(), received);
    QCOMPARE(h.appended.size(), appended);
    QCOMPARE(h.completions.size(), 0);
    QCOMPARE(h.finished.size(), 0);
    QCOMPARE(h.failed.size(), 1);
    QCOMPARE(h.retries.size(), 0);
    QCOMPARE(h.agent.history().size(), promptMessages);
    QCOMPARE(h.server.requests().size(), 1);

    // And the agent is ready for the next prompt.
    h.failed.clear();
    QVERIFY(h.agent.run(u"Again, shorter"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.answer(), u"After the stop."_s);
}

void tst_Streaming::stopDuringRetryWait()
{
    Harness h;
    h.server.script({withHeader(FakeResponse::httpError(429, u"Slow down"_s), "Retry-After", "1"),
                     FakeResponse::streamedAnswer({u"must not be asked"_s})});
    QVERIFY(h.agent.run(u"hi"_s));
    QTRY_COMPARE_WITH_TIMEOUT(h.retries.size(), 1, endTimeoutMs);
    QVERIFY(h.agent.isRequestPending()); // waiting for the retry
    QCOMPARE(h.agent.state(), AgentController::State::WaitingForModel);

    h.agent.cancel();
    QCOMPARE(h.failed.size(), 1);
    QCOMPARE(h.error().kind, Error::Cancelled);
    QVERIFY(!h.agent.isRequestPending());
    QTest::qWait(1300); // past the retry's time
    QCOMPARE(h.server.requests().size(), 1);
    QCOMPARE(h.sentSpy.size(), 1);
    QCOMPARE(h.failed.size(), 1);
    QCOMPARE(h.finished.size(), 0);
    QCOMPARE(h.agent.history().size(), promptMessages);
}

// The ChatClient alone: per attempt requestSent then responseReceived, retryScheduled in between,
// text while the stream arrives, exactly one completed at the end.
void tst_Streaming::clientSignalOrder()
{
    FakeChatServer server;
    server.script({FakeResponse::httpError(500, u"Try later"_s, u"server_error"_s),
                   FakeResponse::streamedAnswer({u"One "_s, u"two."_s})});
    ProviderSettings settings;
    settings.baseUrl = server.baseUrl();
    settings.apiKey = apiKey;
    settings.model = model;
    settings.retry.baseDelay = 4ms;
    ChatClient client;
    client.setSettings(settings);
    QStringList events;
    QObject::connect(&client, &ChatClient::requestSent, &client, [&](const Exchange &exchange) {
        events.append(u"sent %1"_s.arg(exchange.attempt));
    });
    QObject::connect(&client, &ChatClient::responseReceived, &client, [&](const Exchange &exchange) {
        events.append(u"received %1 %2"_s.arg(exchange.attempt).arg(exchange.httpStatus));
    });
    QObject::connect(&client,
                     &ChatClient::retryScheduled,
                     &client,
                     [&](const QString &, qint64, int nextAttempt, int maxAttempts) {
                         events.append(u"retry %1/%2"_s.arg(nextAttempt).arg(maxAttempts));
                     });
    // Deltas are coalesced per network read, so how many arrive is up to the network.
    QObject::connect(&client, &ChatClient::textDelta, &client, [&](const QString &text) {
        if (events.last().startsWith(u"text "_s))
            events.last() += text;
        else
            events.append(u"text "_s + text);
    });
    QObject::connect(&client, &ChatClient::completed, &client, [&](const Completion &completion) {
        events.append(u"completed "_s + completion.message.content());
    });
    QObject::connect(&client, &ChatClient::failed, &client, [&](const Error &error) {
        events.append(u"failed "_s + error.message);
    });

    client.postChatCompletion(1, R"({"model":"gpt-4.1","messages":[],"stream":true})");
    QTRY_VERIFY_WITH_TIMEOUT(!client.isBusy() && events.size() > 4, endTimeoutMs);
    QTest::qWait(50);
    QCOMPARE(events,
             QStringList({u"sent 1"_s,
                          u"received 1 500"_s,
                          u"retry 2/4"_s,
                          u"sent 2"_s,
                          u"text One two."_s,
                          u"received 2 200"_s,
                          u"completed One two."_s}));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Streaming)

#include "tst_streaming.moc"
