// Provider × quirk, end to end: each row is a fake provider on 127.0.0.1 that answers the way a
// real one does (recorded traffic, its documentation, or the issue that reported it) and refuses
// what that provider refuses. A real AgentController runs the seed's flow through it: the prompt,
// a shell call, the approval (allowed), the command (a FakeCommandRunner), the result paired by
// tool_call_id, the answer. Each row names its source.
//
// A row is a QuirkRow: the provider's answers in order, what it rejects, ProviderSettings tweaks,
// and what the user must see (the answer, or a failure message). Add a row to quirks_data(); a
// provider that refuses a header or a field is a `rejects` function (see the ones below), a
// setting it needs goes in `settings`, and a row whose run must fail sets `failure` (requests
// it refused are then allowed, and counted).

#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "protocol/providerpresets.h"
#include "testjson.h"
#include "testmain.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

// What a run left behind, for a row's own checks.
struct Outcome
{
    QList<RecordedRequest> requests; // the chat requests, as the provider received them
    History history;
    QString answer;                // the run's answer; empty when it failed
    Error error;                   // the failure; Error::None when it finished
    QString reasoningShown;        // the reasoning deltas the user saw while streaming
    QList<Completion> completions; // what the controller received, turn by turn
    int retries = 0;
    QList<ProviderAdjustment> adjustments; // fields left out after a refusal, in order
};

// One provider × quirk.
struct QuirkRow
{
    QString source = {}; // documentation URL, issue, or the file in /work/shared/vectors
    bool stream = true;
    // The provider's answers, one per chat request, in order (a request past them gets a 500).
    QList<FakeResponse> answers = {};
    // What this provider refuses: its error response for such a request, or nothing.
    std::function<std::optional<FakeResponse>(const RecordedRequest &)> rejects = {};
    // Settings this provider needs, on top of the test's (URL, key, model, short retries).
    std::function<void(ProviderSettings &)> settings = {};
    // The commands the model asks for, in order: each is approved and run once.
    QStringList commands{u"echo 42"_s};
    QString answer = {};  // the run finishes with exactly this...
    QString failure = {}; // ...or, when set, fails with a message that contains this
    // Requests the provider refuses on the way to an answer (a field it refuses by name, left
    // out when the request is sent again).
    int refusals = 0;
    // More about what the provider received or the user saw.
    std::function<void(const Outcome &)> check = {};
    QString skip = {}; // set when the row's data is not there (the shared vectors)
};

} // namespace

Q_DECLARE_METATYPE(QuirkRow)

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_ProviderQuirks : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void quirks_data();
    void quirks();
    // Every preset, the seed's flow: its base URL's path, its way of sending the key, and the
    // refusals of its provider.
    void presets_data();
    void presets();
};

namespace {

const QString apiKey = u"sk-test-quirks-0123456789"_s;
const QString model = u"quirk-model"_s;
constexpr int endTimeoutMs = 10000;
const QString finalAnswer = u"The output is 42."_s;

// --- what providers send -------------------------------------------------------------------

QJsonObject chunkObject(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return {{u"id"_s, u"chatcmpl-quirk"_s},
            {u"object"_s, u"chat.completion.chunk"_s},
            {u"created"_s, 1727346165},
            {u"model"_s, model},
            {u"choices"_s,
             QJsonArray{QJsonObject{{u"index"_s, 0},
                                    {u"delta"_s, delta},
                                    {u"finish_reason"_s, finishReason}}}}};
}

// "data: {...}\n\n"
QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return FakeResponse::sseEvent(chunkObject(delta, finishReason));
}

QByteArray usageChunk()
{
    return FakeResponse::sseEvent({{u"id"_s, u"chatcmpl-quirk"_s},
                                   {u"object"_s, u"chat.completion.chunk"_s},
                                   {u"model"_s, model},
                                   {u"choices"_s, QJsonArray()},
                                   {u"usage"_s,
                                    QJsonObject{{u"prompt_tokens"_s, 20},
                                                {u"completion_tokens"_s, 10},
                                                {u"total_tokens"_s, 30}}}});
}

FakeResponse sse(const QList<QByteArray> &events)
{
    return FakeResponse::stream(events, 1);
}

QJsonObject toolCalls(const QJsonArray &fragments)
{
    return {{u"tool_calls"_s, fragments}};
}

// A streamed call's first fragment: index, id, type, name and the whole arguments.
QJsonObject callFragment(int index,
                         const QJsonValue &id,
                         const QString &command = u"echo 42"_s,
                         const QJsonObject &extra = {})
{
    QJsonObject fragment = extra;
    fragment.insert(u"index"_s, index);
    if (!id.isUndefined())
        fragment.insert(u"id"_s, id);
    fragment.insert(u"type"_s, u"function"_s);
    fragment.insert(u"function"_s,
                    QJsonObject{{u"name"_s, u"shell"_s}, {u"arguments"_s, shellArguments(command)}});
    return fragment;
}

// A tool call of a non-streamed message.
QJsonObject shellCall(const QJsonValue &id,
                      const QString &command = u"echo 42"_s,
                      const QJsonObject &extra = {})
{
    QJsonObject call = extra;
    if (!id.isUndefined())
        call.insert(u"id"_s, id);
    call.insert(u"type"_s, u"function"_s);
    call.insert(u"function"_s,
                QJsonObject{{u"name"_s, u"shell"_s}, {u"arguments"_s, shellArguments(command)}});
    return call;
}

QJsonObject assistant(const QJsonValue &content,
                      const QJsonArray &calls = {},
                      const QJsonObject &more = {})
{
    QJsonObject message = more;
    message.insert(u"role"_s, u"assistant"_s);
    message.insert(u"content"_s, content);
    if (!calls.isEmpty())
        message.insert(u"tool_calls"_s, calls);
    return message;
}

// The usual streamed tool call: a role chunk (content as given), one fragment, the finish.
FakeResponse streamedCall(const QJsonValue &roleContent,
                          const QJsonObject &fragment,
                          const QString &finishReason = u"tool_calls"_s)
{
    return sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, roleContent}}),
                chunk(toolCalls({fragment})),
                chunk({}, finishReason),
                usageChunk(),
                FakeResponse::sseDone()});
}

FakeResponse streamedAnswer(const QString &finishReason = u"stop"_s)
{
    return FakeResponse::streamedAnswer({u"The output "_s, u"is 42."_s}, finishReason);
}

FakeResponse plainAnswer(const QString &finishReason = u"stop"_s)
{
    return FakeResponse::answer(finalAnswer, finishReason);
}

// --- what providers refuse -----------------------------------------------------------------

FakeResponse badRequest(const QByteArray &body, int status = 400)
{
    return FakeResponse::raw(body, status);
}

QList<QJsonObject> assistantMessages(const RecordedRequest &request)
{
    QList<QJsonObject> messages;
    for (const QJsonValue &message : request.messages()) {
        if (message[u"role"_s].toString() == u"assistant")
            messages.append(message.toObject());
    }
    return messages;
}

// The assistant message with tool calls that the request sends back (the last one).
QJsonObject sentBackCallMessage(const RecordedRequest &request)
{
    QJsonObject found;
    for (const QJsonObject &message : assistantMessages(request)) {
        if (!message[u"tool_calls"_s].toArray().isEmpty())
            found = message;
    }
    return found;
}

using Rejecter = std::function<std::optional<FakeResponse>(const RecordedRequest &)>;

// The first rejecter that refuses the request decides.
Rejecter anyOf(const QList<Rejecter> &rejecters)
{
    return [rejecters](const RecordedRequest &request) -> std::optional<FakeResponse> {
        for (const Rejecter &rejecter : rejecters) {
            if (std::optional<FakeResponse> rejection = rejecter(request))
                return rejection;
        }
        return std::nullopt;
    };
}

// Kimi: "" beside tool_calls is "text content is empty" (MoonshotAI/kimi-cli#2621).
std::optional<FakeResponse> kimiRejects(const RecordedRequest &request)
{
    for (const QJsonObject &message : assistantMessages(request)) {
        if (!message[u"tool_calls"_s].toArray().isEmpty() && message[u"content"_s].isString()
            && message[u"content"_s].toString().isEmpty())
            return badRequest(R"({"error":{"message":"Invalid request: text content is empty",)"
                              R"("type":"invalid_request_error"}})");
    }
    return std::nullopt;
}

// Zhipu GLM: error 1214 for the same message (songquanpeng/one-api#1153).
std::optional<FakeResponse> glmRejects(const RecordedRequest &request)
{
    for (const QJsonObject &message : assistantMessages(request)) {
        if (!message[u"tool_calls"_s].toArray().isEmpty() && message[u"content"_s].isString()
            && message[u"content"_s].toString().isEmpty())
            return badRequest(R"({"error":{"code":"1214","message":"messages[2]:content和)"
                              R"(tool_calls 字段不能同时为空"}})");
    }
    return std::nullopt;
}

// Groq: neither reasoning field is accepted back (https://console.groq.com/docs/reasoning).
std::optional<FakeResponse> groqRejects(const RecordedRequest &request)
{
    for (const QJsonObject &message : assistantMessages(request)) {
        for (const QString &field : {u"reasoning_content"_s, u"reasoning"_s}) {
            if (message.contains(field))
                return badRequest(compact(QJsonObject{
                        {u"error"_s,
                         QJsonObject{{u"message"_s,
                                      u"'messages.2' : for 'role:assistant' the following must be "
                                      u"satisfied[('messages.2' : property '%1' is unsupported)]"_s
                                              .arg(field)},
                                     {u"type"_s, u"invalid_request_error"_s}}}}));
        }
    }
    return std::nullopt;
}

// DeepSeek thinking mode with tool calls: the reasoning of the turn's calls must come back
// (https://api-docs.deepseek.com/guides/thinking_mode).
std::optional<FakeResponse> deepSeekRejects(const RecordedRequest &request)
{
    const QJsonObject sent = sentBackCallMessage(request);
    if (!sent.isEmpty() && sent[u"reasoning_content"_s].toString().isEmpty())
        return badRequest(
                R"({"error":{"message":"Missing `reasoning_content` field in the )"
                R"(assistant message at message index 2. For more information, please )"
                R"(refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",)"
                R"("type":"invalid_request_error"}})");
    return std::nullopt;
}

// Gemini 3: each function call goes back with its thought signature
// (https://ai.google.dev/gemini-api/docs/thought-signatures).
Rejecter geminiRejects(const QString &signature)
{
    return [signature](const RecordedRequest &request) -> std::optional<FakeResponse> {
        for (const QJsonValue &call : sentBackCallMessage(request)[u"tool_calls"_s].toArray()) {
            if (call[u"extra_content"_s][u"google"_s][u"thought_signature"_s].toString()
                != signature)
                return badRequest(
                        R"({"error":{"code":400,"message":"Function call is missing a )"
                        R"(thought_signature in functionCall parts. This is required for tools )"
                        R"(to work correctly, and missing thought_signature may lead to )"
                        R"(degraded model performance. Additional data, function call )"
                        R"(`default_api:shell` , position 2. Please refer to )"
                        R"(https://ai.google.dev/gemini-api/docs/thought-signatures for more )"
                        R"(details.","status":"INVALID_ARGUMENT"}})");
        }
        return std::nullopt;
    };
}

// Mistral validates messages strictly: a field it does not know is a 422
// (https://docs.mistral.ai/api/#tag/chat).
std::optional<FakeResponse> mistralRejects(const RecordedRequest &request)
{
    for (const QJsonObject &message : assistantMessages(request)) {
        for (const QString &field : {u"reasoning_content"_s, u"reasoning"_s}) {
            if (message.contains(field))
                return badRequest(
                        compact(QJsonObject{
                                {u"object"_s, u"error"_s},
                                {u"message"_s,
                                 QJsonObject{{u"detail"_s,
                                              QJsonArray{QJsonObject{
                                                      {u"type"_s, u"extra_forbidden"_s},
                                                      {u"loc"_s,
                                                       QJsonArray{u"body"_s,
                                                                  u"messages"_s,
                                                                  2,
                                                                  u"assistant"_s,
                                                                  field}},
                                                      {u"msg"_s,
                                                       u"Extra inputs are not permitted"_s}}}}}},
                                {u"type"_s, u"invalid_request_message_error"_s}}),
                        422);
        }
    }
    return std::nullopt;
}

// OpenAI's pairing rule, which LM Studio and others enforce too (an empty id is "Invalid
// 'messages' in payload", lmstudio-ai/lmstudio-bug-tracker#830): every call has an id, and the
// tool messages right after answer each of them.
std::optional<FakeResponse> pairingRejects(const RecordedRequest &request)
{
    const QJsonArray messages = request.messages();
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QJsonArray calls = messages[i][u"tool_calls"_s].toArray();
        if (calls.isEmpty())
            continue;
        QStringList ids;
        for (const QJsonValue &call : calls)
            ids.append(call[u"id"_s].toString());
        QStringList answered;
        for (qsizetype j = i + 1; j < messages.size() && messages[j][u"role"_s] == u"tool"_s; ++j)
            answered.append(messages[j][u"tool_call_id"_s].toString());
        if (ids.contains(QString()) || answered != ids)
            return badRequest(R"({"error":{"message":"An assistant message with 'tool_calls' )"
                              R"(must be followed by tool messages responding to each )"
                              R"('tool_call_id'.","type":"invalid_request_error",)"
                              R"("param":"messages","code":null}})");
    }
    return std::nullopt;
}

// Mistral's request schema is closed: stream_options is "extra_forbidden" too, as recorded from
// api.mistral.ai (the same FastAPI 422 as for a message field).
std::optional<FakeResponse> mistralRejectsStreamOptions(const RecordedRequest &request)
{
    if (!request.json().contains(u"stream_options"_s))
        return std::nullopt;
    return badRequest(R"({"object":"error","message":{"detail":[{"type":"extra_forbidden",)"
                      R"("loc":["body","stream_options"],"msg":"Extra inputs are not permitted",)"
                      R"("input":{"include_usage":true}}]},"type":"invalid_request_message_error",)"
                      R"("param":null,"code":null})",
                      422);
}

// llama.cpp's server before streamed tool calls (ggml-org/llama.cpp#12379, server.cpp's
// "Cannot use tools with stream").
std::optional<FakeResponse> llamaCppRejectsStreamingWithTools(const RecordedRequest &request)
{
    if (!request.json().value(u"stream"_s).toBool()
        || request.json()[u"tools"_s].toArray().isEmpty())
        return std::nullopt;
    return badRequest(R"({"error":{"code":500,"message":"Cannot use tools with stream",)"
                      R"("type":"server_error"}})",
                      500);
}

// Azure OpenAI: POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…
// with the key in an api-key header (learn.microsoft.com/azure/ai-foundry/openai/reference);
// anything else is a 401 or a 404 in Azure's words.
Rejecter azureRejects(const QByteArray &deploymentPath)
{
    return [deploymentPath](const RecordedRequest &request) -> std::optional<FakeResponse> {
        if (request.header("api-key") != apiKey.toUtf8())
            return badRequest(R"({"error":{"code":"401","message":"Access denied due to invalid )"
                              R"(subscription key or wrong API endpoint. Make sure to provide a )"
                              R"(valid key for an active subscription and use a correct regional )"
                              R"(API endpoint for your resource."}})",
                              401);
        if (request.path != deploymentPath + "/chat/completions?api-version=2024-10-21")
            return badRequest(R"({"error":{"code":"404","message":"Resource not found"}})", 404);
        return std::nullopt;
    };
}

// How a hosted provider checks the key: a Bearer header (or Azure's api-key header).
Rejecter keyRejects(AuthStyle auth)
{
    return [auth](const RecordedRequest &request) -> std::optional<FakeResponse> {
        const bool accepted = auth == AuthStyle::None
                              || (auth == AuthStyle::Bearer
                                  && request.header("Authorization") == "Bearer " + apiKey.toUtf8())
                              || (auth == AuthStyle::ApiKeyHeader
                                  && request.header("api-key") == apiKey.toUtf8());
        if (accepted)
            return std::nullopt;
        return badRequest(R"({"error":{"message":"Incorrect API key provided",)"
                          R"("type":"invalid_request_error","code":"invalid_api_key"}})",
                          401);
    };
}

// --- checks shared by rows -----------------------------------------------------------------

// What the follow-up request sent back as the assistant's tool-calling message.
QJsonObject sentBack(const Outcome &outcome)
{
    return outcome.requests.size() < 2 ? QJsonObject()
                                       : sentBackCallMessage(outcome.requests.last());
}

void contentWentBackNull(const Outcome &outcome)
{
    const QJsonObject message = sentBack(outcome);
    QVERIFY2(message.contains(u"content"_s) && message[u"content"_s].isNull(),
             compact(message).constData());
}

std::function<void(const Outcome &)> reasoningShownNotSentBack(const QString &reasoning,
                                                               bool streamed)
{
    return [reasoning, streamed](const Outcome &outcome) {
        const QJsonObject message = sentBack(outcome);
        QVERIFY2(!message.contains(u"reasoning_content"_s) && !message.contains(u"reasoning"_s),
                 compact(message).constData());
        // Still the user's to read: in the chat while it streams, and in the history.
        if (streamed)
            QCOMPARE(outcome.reasoningShown, reasoning);
        bool kept = false;
        for (const Message &m : outcome.history.messages())
            kept = kept || (m.hasToolCalls() && m.reasoningContent() == reasoning);
        QVERIFY(kept);
    };
}

std::function<void(const Outcome &)> reasoningSentBack(const QString &reasoning)
{
    return [reasoning](const Outcome &outcome) {
        QCOMPARE(sentBack(outcome)[u"reasoning_content"_s].toString(), reasoning);
    };
}

// The partial answer of a failed turn is not in the history as an answer.
void nothingKeptFromTheTurn(const Outcome &outcome)
{
    QCOMPARE(outcome.history.size(), 2); // the system prompt and the user's prompt
    QCOMPARE(outcome.history.last().role(), Role::User);
}

// The chat requests, whatever the base URL's path (Azure's deployments, GLM's /api/paas/v4).
QList<RecordedRequest> chatRequests(const FakeChatServer &server)
{
    QList<RecordedRequest> requests;
    for (const RecordedRequest &request : server.allRequests()) {
        const QByteArray path = request.path.split('?').first();
        if (request.method == "POST" && path.endsWith("/chat/completions"))
            requests.append(request);
    }
    return requests;
}

// Runs one row end to end and checks what every row promises; then the row's own checks.
void runRow(const QuirkRow &row)
{
    QVERIFY2(!row.source.isEmpty(), "every row names its source");
    QVERIFY2(row.answer.isEmpty() != row.failure.isEmpty(), "a row expects an answer or a failure");

    FakeChatServer server;
    QVERIFY(server.isListening());
    qsizetype answered = 0;
    QStringList rejections;
    server.setHandler([&](const RecordedRequest &request) {
        if (row.rejects) {
            if (std::optional<FakeResponse> rejection = row.rejects(request)) {
                rejections.append(QString::fromUtf8(rejection->body));
                return *rejection;
            }
        }
        if (answered >= row.answers.size())
            return FakeResponse::httpError(500, u"the fake provider's script ran out"_s);
        return row.answers.at(answered++);
    });

    ProviderSettings settings;
    settings.baseUrl = server.baseUrl();
    settings.apiKey = apiKey;
    settings.model = model;
    settings.requestTimeout = 10s;
    settings.stream = row.stream;
    settings.retry.maxRetries = 2;
    settings.retry.baseDelay = 2ms;
    settings.retry.maxDelay = 20ms;
    if (row.settings)
        row.settings(settings);

    FakeCommandRunner runner;
    for (qsizetype i = 0; i < row.commands.size(); ++i)
        runner.enqueue(0, u"output %1\n"_s.arg(i + 1));
    AgentController agent;
    agent.setProvider(settings);
    ShellToolOptions options;
    options.workspace = u"/tmp/agentloop-workspace"_s;
    installStandardTools(agent, std::make_shared<FakeCommandRunner>(runner), options);
    QStringList approved;
    QObject::connect(&agent,
                     &AgentController::approvalRequested,
                     &agent,
                     [&](const ApprovalRequest &r) {
                         approved.append(r.arguments);
                         QTimer::singleShot(0, &agent, [&agent, id = r.id] {
                             agent.resolveApproval(id,
                                                   ApprovalAnswer::allowOnce()); // the user says yes
                         });
                     });
    QSignalSpy finished(&agent, &AgentController::finished);
    QSignalSpy failed(&agent, &AgentController::failed);
    QSignalSpy completions(&agent, &AgentController::completionReceived);
    QSignalSpy retries(&agent, &AgentController::retryScheduled);
    QSignalSpy adjustments(&agent, &AgentController::providerAdjusted);
    QString reasoningShown;
    QObject::connect(&agent,
                     &AgentController::assistantReasoningDelta,
                     &agent,
                     [&](const QString &text) { reasoningShown += text; });

    QVERIFY(agent.run(u"Run echo 42 and tell me the output"_s));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), endTimeoutMs);

    Outcome outcome;
    outcome.requests = chatRequests(server);
    outcome.history = agent.history();
    outcome.answer = finished.isEmpty() ? QString() : finished.first().first().toString();
    outcome.error = failed.isEmpty() ? Error() : failed.first().first().value<Error>();
    outcome.reasoningShown = reasoningShown;
    for (const QList<QVariant> &arguments : completions)
        outcome.completions.append(arguments.at(1).value<Completion>());
    outcome.retries = int(retries.size());
    for (const QList<QVariant> &arguments : adjustments)
        outcome.adjustments.append(arguments.first().value<ProviderAdjustment>());

    if (!row.failure.isEmpty()) {
        QVERIFY2(finished.isEmpty(), qPrintable(outcome.answer));
        QVERIFY2(outcome.error.message.contains(row.failure), qPrintable(outcome.error.toString()));
    } else {
        QVERIFY2(failed.isEmpty(), qPrintable(outcome.error.toString()));
        QCOMPARE(outcome.answer, row.answer);
    }
    // A run that succeeds met only the refusals it expects; one that fails may have met any (its
    // message says so).
    if (row.failure.isEmpty())
        QVERIFY2(rejections.size() == row.refusals, qPrintable(rejections.join(u'\n')));
    QCOMPARE(answered, row.answers.size()); // every scripted answer used, no more
    QCOMPARE(outcome.requests.size(), answered + rejections.size());

    // Each call was shown for approval, allowed, run once, and answered by its id.
    QStringList expectedArguments;
    for (const QString &command : row.commands)
        expectedArguments.append(shellArguments(command));
    QCOMPARE(approved, expectedArguments);
    QStringList ran;
    for (const CommandRequest &request : runner.requests())
        ran.append(request.command);
    QCOMPARE(ran, row.commands);
    if (!row.commands.isEmpty()) {
        const RecordedRequest &followUp = outcome.requests.last();
        const QJsonArray calls = sentBackCallMessage(followUp)[u"tool_calls"_s].toArray();
        const QList<QJsonObject> results = followUp.toolMessages();
        QCOMPARE(calls.size(), row.commands.size());
        QCOMPARE(results.size(), row.commands.size());
        for (qsizetype i = 0; i < results.size(); ++i) {
            QVERIFY(!calls[i][u"id"_s].toString().isEmpty());
            QCOMPARE(results[i][u"tool_call_id"_s].toString(), calls[i][u"id"_s].toString());
            QVERIFY2(results[i][u"content"_s].toString().contains(u"output %1"_s.arg(i + 1)),
                     qPrintable(results[i][u"content"_s].toString()));
        }
    }
    if (row.check) {
        row.check(outcome);
        if (QTest::currentTestFailed())
            return;
    }
}

} // namespace

void tst_ProviderQuirks::initTestCase()
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<Completion>();
    qRegisterMetaType<ApprovalRequest>();
    qRegisterMetaType<ProviderAdjustment>();
}

void tst_ProviderQuirks::quirks_data()
{
    QTest::addColumn<QuirkRow>("row");
    const auto add = [](const char *name, const QuirkRow &row) {
        QTest::newRow(name) << row;
    };

    // --- 1. content "" beside tool calls goes back as null ---------------------------------
    add("Kimi, streamed: content \"\" with a call",
        {.source = u"MoonshotAI/kimi-cli#2621"_s,
         .answers = {streamedCall(u""_s, callFragment(0, u"functions.shell:0"_s)), streamedAnswer()},
         .rejects = kimiRejects,
         .answer = finalAnswer,
         .check = contentWentBackNull});
    add("Kimi, not streamed: content \"\" with a call",
        {.source = u"MoonshotAI/kimi-cli#2621"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(u""_s, {shellCall(u"functions.shell:0"_s)}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = kimiRejects,
         .answer = finalAnswer,
         .check = contentWentBackNull});
    add("Zhipu GLM, streamed: content \"\" with a call",
        {.source = u"songquanpeng/one-api#1153"_s,
         .answers = {streamedCall(u""_s, callFragment(0, u"call_-8a2c"_s)), streamedAnswer()},
         .rejects = glmRejects,
         .answer = finalAnswer,
         .check = contentWentBackNull});
    add("Zhipu GLM, not streamed: content \"\" with a call",
        {.source = u"songquanpeng/one-api#1153"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(u""_s, {shellCall(u"call_-8a2c"_s)}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = glmRejects,
         .answer = finalAnswer,
         .check = contentWentBackNull});
    add("text beside a call goes back as it came",
        {.source = u"/work/shared/vectors/openapi/openai-openapi.json (content: string or null)"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(u"Let me run it."_s,
                                                        {shellCall(u"call_1"_s)}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = kimiRejects,
         .answer = finalAnswer,
         .check = [](const Outcome &outcome) {
             QCOMPARE(sentBack(outcome)[u"content"_s].toString(), u"Let me run it."_s);
         }});

    // --- 2. reasoning goes back only under the name it came as ------------------------------
    const QString thinking = u"The user wants echo 42; I call the shell."_s;
    add("Groq, streamed: reasoning shown, not sent back",
        {.source = u"https://console.groq.com/docs/reasoning"_s,
         .answers = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                          chunk({{u"reasoning"_s, thinking.left(12)}}),
                          chunk({{u"reasoning"_s, thinking.mid(12)}}),
                          chunk(toolCalls({callFragment(0, u"call_groq1"_s)})),
                          chunk({}, u"tool_calls"_s),
                          usageChunk(),
                          FakeResponse::sseDone()}),
                     streamedAnswer()},
         .rejects = groqRejects,
         .answer = finalAnswer,
         .check = reasoningShownNotSentBack(thinking, true)});
    add("Groq, not streamed: reasoning kept, not sent back",
        {.source = u"https://console.groq.com/docs/reasoning"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(QJsonValue::Null,
                                                        {shellCall(u"call_groq1"_s)},
                                                        {{u"reasoning"_s, thinking}}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = groqRejects,
         .answer = finalAnswer,
         .check = reasoningShownNotSentBack(thinking, false)});
    add("DeepSeek, streamed: reasoning_content sent back within the turn",
        {.source = u"https://api-docs.deepseek.com/guides/thinking_mode"_s,
         .answers
         = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                 chunk({{u"reasoning_content"_s, thinking.left(20)}, {u"content"_s, QJsonValue()}}),
                 chunk({{u"reasoning_content"_s, thinking.mid(20)}, {u"content"_s, QJsonValue()}}),
                 chunk(toolCalls({callFragment(0, u"call_00_ds"_s)})),
                 chunk({}, u"tool_calls"_s),
                 usageChunk(),
                 FakeResponse::sseDone()}),
            streamedAnswer()},
         .rejects = deepSeekRejects,
         .answer = finalAnswer,
         .check = reasoningSentBack(thinking)});
    add("DeepSeek, not streamed: reasoning_content sent back within the turn",
        {.source = u"https://api-docs.deepseek.com/guides/thinking_mode"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(QJsonValue::Null,
                                                        {shellCall(u"call_00_ds"_s)},
                                                        {{u"reasoning_content"_s, thinking}}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = deepSeekRejects,
         .answer = finalAnswer,
         .check = reasoningSentBack(thinking)});
    add("OpenRouter: SSE comment lines and `reasoning`",
        {.source = u"https://openrouter.ai/docs/api-reference/streaming"_s,
         .answers = {sse({": OPENROUTER PROCESSING\n\n",
                          chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                          ": OPENROUTER PROCESSING\n\n",
                          chunk({{u"reasoning"_s, thinking}}),
                          chunk(toolCalls({callFragment(0, u"call_or1"_s)})),
                          chunk({}, u"tool_calls"_s),
                          usageChunk(),
                          FakeResponse::sseDone()}),
                     sse({": OPENROUTER PROCESSING\n\n",
                          chunk({{u"content"_s, finalAnswer}}),
                          ": OPENROUTER PROCESSING\n\n",
                          chunk({}, u"stop"_s),
                          FakeResponse::sseDone()})},
         .rejects = anyOf({groqRejects, pairingRejects}), // routed to Groq
         .answer = finalAnswer,
         .check = reasoningShownNotSentBack(thinking, true)});

    // --- 3. Gemini 3 thought signatures go back verbatim ------------------------------------
    const QString signature = u"CtQBAdHtim9yZWFzb25pbmcgc2lnbmF0dXJlIG9mIEdlbWluaSAz+/A=="_s;
    const QJsonObject signatureExtra{
            {u"extra_content"_s,
             QJsonObject{{u"google"_s, QJsonObject{{u"thought_signature"_s, signature}}}}}};
    const auto signatureSentBack = [signatureExtra](const Outcome &outcome) {
        QCOMPARE(compact(sentBack(outcome)[u"tool_calls"_s][0][u"extra_content"_s]),
                 compact(signatureExtra[u"extra_content"_s]));
    };
    add("Gemini 3, streamed: extra_content on the call",
        {.source = u"https://ai.google.dev/gemini-api/docs/thought-signatures"_s,
         .answers
         = {streamedCall(QJsonValue::Null,
                         callFragment(0, u"function-call-1"_s, u"echo 42"_s, signatureExtra)),
            streamedAnswer()},
         .rejects = anyOf({geminiRejects(signature), pairingRejects}),
         .answer = finalAnswer,
         .check = signatureSentBack});
    add("Gemini 3, not streamed: extra_content on the call",
        {.source = u"https://ai.google.dev/gemini-api/docs/thought-signatures"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(QJsonValue::Null,
                                                        {shellCall(u"function-call-1"_s,
                                                                   u"echo 42"_s,
                                                                   signatureExtra)}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = anyOf({geminiRejects(signature), pairingRejects}),
         .answer = finalAnswer,
         .check = signatureSentBack});

    // --- 4. calls without an id get one, used by the tool message too -----------------------
    const auto madeUpIdPaired = [](const Outcome &outcome) {
        const QString id = sentBack(outcome)[u"tool_calls"_s][0][u"id"_s].toString();
        QVERIFY2(id.startsWith(u"call_") && id.size() > 10, qPrintable(id));
        QCOMPARE(outcome.requests.last().toolMessages().first()[u"tool_call_id"_s].toString(), id);
    };
    add("vLLM, streamed: a call without an id",
        {.source = u"vllm-project/vllm#18412"_s,
         .answers = {streamedCall(QJsonValue::Null, callFragment(0, QJsonValue::Undefined)),
                     streamedAnswer()},
         .rejects = pairingRejects,
         .answer = finalAnswer,
         .check = madeUpIdPaired});
    add("llama.cpp, not streamed: a call with id \"\"",
        {.source = u"ggml-org/llama.cpp#11992"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(QJsonValue::Null, {shellCall(u""_s)}),
                                              u"tool_calls"_s),
                     plainAnswer()},
         .rejects = pairingRejects,
         .answer = finalAnswer,
         .check = madeUpIdPaired});
    add("llama.cpp / LM Studio, streamed: two calls with id \"\"",
        {.source = u"ggml-org/llama.cpp#11992, lmstudio-ai/lmstudio-bug-tracker#830"_s,
         .answers = {sse({chunk({{u"role"_s, u"assistant"_s}}),
                          chunk(toolCalls({callFragment(0, u""_s, u"echo 1"_s),
                                           callFragment(1, u""_s, u"echo 2"_s)})),
                          chunk({}, u"tool_calls"_s),
                          FakeResponse::sseDone()}),
                     streamedAnswer()},
         .rejects = pairingRejects,
         .commands = {u"echo 1"_s, u"echo 2"_s},
         .answer = finalAnswer,
         .check = [](const Outcome &outcome) {
             const QJsonArray calls = sentBack(outcome)[u"tool_calls"_s].toArray();
             QCOMPARE(calls.size(), 2);
             QVERIFY(calls[0][u"id"_s].toString() != calls[1][u"id"_s].toString());
         }});

    // --- 5. a new id at an index already in use starts another call --------------------------
    add("Ollama-style gateway: two calls both at index 0",
        {.source = u"vercel/ai#14277, cloudwego/eino#927"_s,
         .answers = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                          chunk(toolCalls({callFragment(0, u"call_a"_s, u"echo 1"_s)})),
                          chunk(toolCalls({callFragment(0, u"call_b"_s, u"echo 2"_s)})),
                          chunk({}, u"tool_calls"_s),
                          FakeResponse::sseDone()}),
                     streamedAnswer()},
         .rejects = pairingRejects,
         .commands = {u"echo 1"_s, u"echo 2"_s},
         .answer = finalAnswer,
         .check = [](const Outcome &outcome) {
             const QJsonArray calls = sentBack(outcome)[u"tool_calls"_s].toArray();
             QCOMPARE(calls.size(), 2);
             QCOMPARE(calls[0][u"id"_s].toString(), u"call_a"_s);
             QCOMPARE(calls[1][u"id"_s].toString(), u"call_b"_s);
             QCOMPARE(calls[1][u"function"_s][u"arguments"_s].toString(),
                      shellArguments(u"echo 2"_s));
         }});
    {
        // Qwen (DashScope) repeats type and sends id "" on every continuation fragment.
        const QString arguments = shellArguments(u"echo 42"_s);
        const auto continuation = [](const QString &piece) {
            return chunk(toolCalls(
                    {QJsonObject{{u"index"_s, 0},
                                 {u"id"_s, u""_s},
                                 {u"type"_s, u"function"_s},
                                 {u"function"_s, QJsonObject{{u"arguments"_s, piece}}}}}));
        };
        add("Qwen, streamed: continuation fragments with id \"\"",
            {.source = u"https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling"_s,
             .answers = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                              chunk(toolCalls(
                                      {QJsonObject{{u"index"_s, 0},
                                                   {u"id"_s, u"call_8f08d2b0fc0c4d8fab7123"_s},
                                                   {u"type"_s, u"function"_s},
                                                   {u"function"_s,
                                                    QJsonObject{{u"name"_s, u"shell"_s},
                                                                {u"arguments"_s, u""_s}}}}})),
                              continuation(arguments.left(9)),
                              continuation(arguments.mid(9)),
                              chunk({}, u"tool_calls"_s),
                              FakeResponse::sseDone()}),
                         streamedAnswer()},
             .rejects = pairingRejects,
             .answer = finalAnswer,
             .check = [arguments](const Outcome &outcome) {
                 const QJsonArray calls = sentBack(outcome)[u"tool_calls"_s].toArray();
                 QCOMPARE(calls.size(), 1);
                 QCOMPARE(calls[0][u"function"_s][u"arguments"_s].toString(), arguments);
             }});
    }

    // --- 6. finish_reason synonyms ------------------------------------------------------------
    const auto providerSaid = [](const QString &value) {
        return [value](const Outcome &outcome) {
            QVERIFY(!outcome.completions.isEmpty());
            QCOMPARE(outcome.completions.last().providerFinishReason, value);
        };
    };
    add("Together: eos is stop",
        {.source = u"https://docs.together.ai/reference/chat-completions-1"_s,
         .stream = false,
         .answers = {FakeResponse::toolCall(u"call_t1"_s, u"shell"_s, shellArguments(u"echo 42"_s)),
                     plainAnswer(u"eos"_s)},
         .answer = finalAnswer,
         .check = providerSaid(u"eos"_s)});
    add("LiteLLM / Anthropic-style gateway, streamed: end_turn is stop",
        {.source = u"https://docs.anthropic.com/en/api/messages (stop_reason end_turn)"_s,
         .answers = {streamedCall(QJsonValue::Null, callFragment(0, u"toolu_01"_s)),
                     streamedAnswer(u"end_turn"_s)},
         .answer = finalAnswer,
         .check = providerSaid(u"end_turn"_s)});
    add("Anthropic-style gateway: stop_sequence is stop",
        {.source = u"https://docs.anthropic.com/en/api/messages (stop_reason stop_sequence)"_s,
         .stream = false,
         .answers = {FakeResponse::toolCall(u"toolu_01"_s, u"shell"_s, shellArguments(u"echo 42"_s)),
                     plainAnswer(u"stop_sequence"_s)},
         .answer = finalAnswer});
    add("OpenAI's deprecated function_call is tool_calls",
        {.source = u"/work/shared/vectors/openapi/openai-openapi.json (finish_reason enum)"_s,
         .stream = false,
         .answers = {FakeResponse::completion(assistant(QJsonValue::Null, {shellCall(u"call_f"_s)}),
                                              u"function_call"_s),
                     plainAnswer()},
         .answer = finalAnswer});
    add("max_tokens is length",
        {.source = u"https://docs.anthropic.com/en/api/messages (stop_reason max_tokens)"_s,
         .stream = false,
         // The answer and the three continuations the loop asks for, each cut off again.
         .answers = {FakeResponse::answer(u"The output is"_s, u"max_tokens"_s),
                     FakeResponse::answer(u" still"_s, u"max_tokens"_s),
                     FakeResponse::answer(u" going"_s, u"max_tokens"_s),
                     FakeResponse::answer(u" on"_s, u"max_tokens"_s)},
         .commands = {},
         .failure = u"Model output reached the token limit"_s});
    add("Zhipu GLM: sensitive is content_filter",
        {.source = u"https://docs.bigmodel.cn/api-reference (finish_reason: sensitive)"_s,
         .answers = {FakeResponse::streamedAnswer({u"The"_s}, u"sensitive"_s)},
         .commands = {},
         .failure = u"content filter"_s});
    add("OpenRouter, streamed: finish_reason error",
        {.source = u"https://openrouter.ai/docs/api-reference/errors (errors during streaming)"_s,
         .answers = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                          chunk({{u"content"_s, u"The output is"_s}}),
                          chunk({{u"content"_s, u""_s}}, u"error"_s),
                          FakeResponse::sseDone()})},
         .commands = {},
         .failure = u"The provider reported an error in the middle of its answer"_s,
         .check = nothingKeptFromTheTurn});
    add("OpenRouter, not streamed: finish_reason error",
        {.source = u"https://openrouter.ai/docs/api-reference/errors"_s,
         .stream = false,
         .answers = {FakeResponse::answer(u"The output is"_s, u"error"_s)},
         .commands = {},
         .failure = u"The provider reported an error in the middle of its answer"_s,
         .check = nothingKeptFromTheTurn});
    add("OpenRouter, streamed: error object and finish_reason error in one chunk",
        {.source = u"https://openrouter.ai/docs/api-reference/errors (errors during streaming)"_s,
         .answers = {sse({chunk({{u"content"_s, u"The output is"_s}}),
                          R"(data: {"id":"cmpl-abc123","object":"chat.completion.chunk",)"
                          R"("created":1234567890,"model":"gpt-3.5-turbo","provider":"openai",)"
                          R"("error":{"code":"server_error","message":"Provider disconnected )"
                          R"(unexpectedly"},"choices":[{"index":0,"delta":{"content":""},)"
                          R"("finish_reason":"error"}]})"
                          "\n\n",
                          FakeResponse::sseDone()})},
         .commands = {},
         .failure = u"Provider disconnected unexpectedly"_s,
         .check = nothingKeptFromTheTurn});
    add("undocumented finish_reason still fails by name",
        {.source = u"docs/DESIGN.md: anything unknown is Unsupported finish_reason: X"_s,
         .stream = false,
         .answers = {plainAnswer(u"eos_token"_s)},
         .commands = {},
         .failure = u"Unsupported finish_reason: eos_token"_s});

    // --- 7. Mistral magistral: content as parts ---------------------------------------------
    {
        const QJsonArray thinkingParts{
                QJsonObject{{u"type"_s, u"thinking"_s},
                            {u"thinking"_s,
                             QJsonArray{
                                     QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, thinking}}}}}};
        QJsonArray answerParts = thinkingParts;
        answerParts.append(QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, finalAnswer}});
        add("Mistral magistral, not streamed: thinking and text parts",
            {.source = u"https://docs.mistral.ai/capabilities/reasoning/"_s,
             .stream = false,
             .answers = {FakeResponse::completion(assistant(thinkingParts,
                                                            {shellCall(u"D681PevKs"_s)}),
                                                  u"tool_calls"_s),
                         FakeResponse::completion(assistant(answerParts), u"stop"_s)},
             .rejects = mistralRejects,
             .answer = finalAnswer,
             .check = reasoningShownNotSentBack(thinking, false)});
        add("Mistral magistral, streamed: thinking and text parts",
            {.source = u"https://docs.mistral.ai/capabilities/reasoning/"_s,
             .answers = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, thinkingParts}}),
                              chunk(toolCalls({callFragment(0, u"D681PevKs"_s)})),
                              chunk({}, u"tool_calls"_s),
                              FakeResponse::sseDone()}),
                         sse({chunk({{u"content"_s, QJsonArray{answerParts.last()}}}),
                              chunk({}, u"stop"_s),
                              FakeResponse::sseDone()})},
             .rejects = mistralRejects,
             .answer = finalAnswer,
             .check = reasoningShownNotSentBack(thinking, true)});
    }

    // --- 8. Anthropic's 529 Overloaded is retried ----------------------------------------------
    add("Anthropic: 529 Overloaded, then the answer",
        {.source = u"https://docs.anthropic.com/en/api/errors"_s,
         .stream = false,
         .answers = {badRequest(R"({"type":"error","error":{"type":"overloaded_error",)"
                                R"("message":"Overloaded"}})",
                                529),
                     FakeResponse::toolCall(u"toolu_01"_s, u"shell"_s, shellArguments(u"echo 42"_s)),
                     plainAnswer()},
         .answer = finalAnswer,
         .check = [](const Outcome &outcome) {
             QCOMPARE(outcome.retries, 1);
         }});

    // --- 9. fields a provider refuses by name: sent again without them -----------------------
    add("Mistral, streamed: stream_options refused (422 extra_forbidden)",
        {.source = u"https://docs.mistral.ai/api/ (closed request schema)"_s,
         .answers = {streamedCall(QJsonValue::Null, callFragment(0, u"Tq0bPz9aX"_s)),
                     streamedAnswer()},
         .rejects = anyOf({mistralRejectsStreamOptions, mistralRejects}),
         .settings = [](ProviderSettings &settings) { settings.providerId = u"mistral"_s; },
         .answer = finalAnswer,
         .refusals = 1,
         .check =
                 [](const Outcome &outcome) {
                     QCOMPARE(outcome.adjustments.size(), 1);
                     QCOMPARE(outcome.adjustments.first().change,
                              ProviderAdjustment::StreamUsageOff);
                     QVERIFY(outcome.adjustments.first().notice.startsWith(
                             u"Mistral refused the stream_options field (HTTP 422)"_s));
                     // Only the first request had it; the next turn leaves it out at once.
                     for (const RecordedRequest &request : outcome.requests.mid(1)) {
                         QVERIFY(!request.json().contains(u"stream_options"_s));
                         QVERIFY(request.json().value(u"stream"_s).toBool());
                     }
                     QCOMPARE(outcome.retries, 0);
                 }});
    add("llama.cpp server: \"Cannot use tools with stream\" (500)",
        {.source = u"ggml-org/llama.cpp#12379"_s,
         .answers = {FakeResponse::toolCall(u"chatcmpl-tool-1"_s,
                                            u"shell"_s,
                                            shellArguments(u"echo 42"_s)),
                     plainAnswer()},
         .rejects = llamaCppRejectsStreamingWithTools,
         .answer = finalAnswer,
         .refusals = 1,
         .check = [](const Outcome &outcome) {
             QCOMPARE(outcome.adjustments.size(), 1);
             QCOMPARE(outcome.adjustments.first().change, ProviderAdjustment::StreamingOff);
             // Not three retries of a 500 that cannot work: once more, without streaming.
             QCOMPARE(outcome.retries, 0);
             QCOMPARE(outcome.requests.size(), 3);
             for (const RecordedRequest &request : outcome.requests.mid(1))
                 QVERIFY(!request.json().contains(u"stream"_s));
         }});

    // --- 10. Azure OpenAI: the api-key header and the api-version query ---------------------
    const auto azureDeployment = [](ProviderSettings &settings) {
        settings.baseUrl.setPath(u"/openai/deployments/gpt41"_s);
        settings.baseUrl.setQuery(u"api-version=2024-10-21"_s);
    };
    add("Azure, from the base URL alone: api-key header, api-version kept",
        {.source = u"https://learn.microsoft.com/azure/ai-foundry/openai/reference"_s,
         .answers = {streamedCall(QJsonValue::Null, callFragment(0, u"call_az2"_s)),
                     streamedAnswer()},
         .rejects = azureRejects("/openai/deployments/gpt41"),
         // What loadConfig() does for OPENAI_BASE_URL: nothing but the URL says it is Azure.
         .settings =
                 [azureDeployment](ProviderSettings &settings) {
                     azureDeployment(settings);
                     recogniseProvider(settings);
                 },
         .answer = finalAnswer,
         .check =
                 [](const Outcome &outcome) {
                     for (const RecordedRequest &request : outcome.requests)
                         QVERIFY(request.header("Authorization").isEmpty());
                 }});
    add("Azure: a wrong key gets Azure's hint",
        {.source = u"https://learn.microsoft.com/azure/ai-foundry/openai/reference"_s,
         .rejects = azureRejects("/openai/deployments/gpt41"),
         .settings =
                 [azureDeployment](ProviderSettings &settings) {
                     azureDeployment(settings);
                     recogniseProvider(settings);
                     settings.apiKey = u"sk-not-the-azure-key"_s;
                 },
         .commands = {},
         .failure = u"HTTP 401: Access denied due to invalid subscription key"_s,
         .check =
                 [](const Outcome &outcome) {
                     QVERIFY2(outcome.error.hint.startsWith(
                                      u"Azure uses the api-key header; check the deployment's key"_s),
                              qPrintable(outcome.error.hint));
                 }});

    // --- what already works and must keep working --------------------------------------------
    add("Azure: an empty first chunk with prompt_filter_results",
        {.source = u"https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter"_s,
         .answers = {sse({R"(data: {"choices":[],"created":0,"id":"","model":"","object":"",)"
                          R"("prompt_filter_results":[{"prompt_index":0,"content_filter_results":)"
                          R"({"hate":{"filtered":false,"severity":"safe"}}}]})"
                          "\n\n",
                          chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue()}}),
                          chunk(toolCalls({callFragment(0, u"call_az1"_s)})),
                          chunk({}, u"tool_calls"_s),
                          FakeResponse::sseDone()}),
                     streamedAnswer()},
         .answer = finalAnswer});
    add("an error object inside a 200 stream",
        {.source = u"https://openrouter.ai/docs/api-reference/errors (errors during streaming)"_s,
         .answers = {sse({chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}),
                          R"(data: {"error":{"message":"Upstream model overloaded",)"
                          R"("code":502}})"
                          "\n\n"})},
         .commands = {},
         .failure = u"The provider reported an error in the stream: Upstream model overloaded"_s,
         .check = nothingKeptFromTheTurn});
    {
        // The answer turn is a recorded OpenAI stream that ends with a usage-only chunk.
        const QString recording
                = u"openai-python-streams/test_parse_pydantic_model.7e5ea4d12e7c.sse"_s;
        QuirkRow row{.source = u"/work/shared/vectors/"_s + recording,
                     .answers = {streamedCall(QJsonValue::Null, callFragment(0, u"call_u1"_s))}};
        if (!QFile::exists(sharedVectorsPath(recording))) {
            row.skip = u"shared vectors not found at %1"_s.arg(sharedVectorsPath());
        } else {
            const QByteArray sse = readFile(sharedVectorsPath(recording));
            row.answers.append(FakeResponse::stream({sse}));
            for (const QByteArray &line : sse.split('\n')) { // the recorded text, read apart
                if (line.startsWith("data: {"))
                    row.answer += parseObject(line.mid(6))[u"choices"_s][0][u"delta"_s][u"content"_s]
                                          .toString();
            }
            row.check = [](const Outcome &outcome) {
                QCOMPARE(outcome.completions.size(), 2);
                QVERIFY(outcome.completions[1].usage.has_value());
                QCOMPARE(outcome.completions[1].usage->totalTokens, 93); // from the last chunk
            };
        }
        add("OpenAI, recorded: a usage-only last chunk", row);
    }
    {
        // The SSE format allows "data:" without the space and CRLF line ends.
        const auto reframed =
                [](const QList<QByteArray> &events, const QByteArray &from, const QByteArray &to) {
                    QList<QByteArray> changed;
                    for (QByteArray event : events)
                        changed.append(event.replace(from, to));
                    return changed;
                };
        const QList<QByteArray> callEvents{chunk({{u"role"_s, u"assistant"_s}}),
                                           chunk(toolCalls({callFragment(0, u"call_s1"_s)})),
                                           chunk({}, u"tool_calls"_s),
                                           FakeResponse::sseDone()};
        const QList<QByteArray> answerEvents{chunk({{u"content"_s, finalAnswer}}),
                                             chunk({}, u"stop"_s),
                                             FakeResponse::sseDone()};
        add("`data:` without a space",
            {.source = u"https://html.spec.whatwg.org/multipage/server-sent-events.html"_s,
             .answers = {sse(reframed(callEvents, "data: ", "data:")),
                         sse(reframed(answerEvents, "data: ", "data:"))},
             .answer = finalAnswer});
        add("CRLF framing",
            {.source = u"https://html.spec.whatwg.org/multipage/server-sent-events.html"_s,
             .answers = {sse(reframed(callEvents, "\n", "\r\n")),
                         sse(reframed(answerEvents, "\n", "\r\n"))},
             .answer = finalAnswer});
    }
}

void tst_ProviderQuirks::quirks()
{
    QFETCH(QuirkRow, row);
    if (!row.skip.isEmpty())
        QSKIP(qPrintable(row.skip));
    runRow(row);
}

void tst_ProviderQuirks::presets_data()
{
    QTest::addColumn<QString>("presetId");
    for (const ProviderPreset &preset : providerPresets())
        QTest::newRow(qPrintable(preset.id)) << preset.id;
}

void tst_ProviderQuirks::presets()
{
    QFETCH(QString, presetId);
    const ProviderPreset preset = providerPreset(presetId);
    // The preset's own path and query (Azure's placeholders filled), on the fake server.
    QString presetUrl = preset.baseUrl;
    presetUrl.replace(u"<resource>"_s, u"contoso"_s).replace(u"<deployment>"_s, u"gpt41"_s);
    const QUrl url(presetUrl);
    // Refusals of the providers that have them; every hosted one checks its key.
    QList<Rejecter> rejecters{keyRejects(preset.auth), pairingRejects};
    if (presetId == u"kimi")
        rejecters << kimiRejects;
    else if (presetId == u"glm")
        rejecters << glmRejects;
    else if (presetId == u"groq")
        rejecters << groqRejects;
    else if (presetId == u"mistral")
        rejecters << mistralRejectsStreamOptions << mistralRejects;
    else if (presetId == u"azure")
        rejecters << azureRejects(url.path().toUtf8());
    QuirkRow row{.source = u"src/core/protocol/providerpresets.cpp (the preset's own source)"_s,
                 .stream = preset.stream,
                 // A streamed call with content "" (what Kimi and GLM refuse back), then the answer.
                 .answers = {streamedCall(u""_s, callFragment(0, u"call_preset"_s)),
                             streamedAnswer()},
                 .rejects = anyOf(rejecters),
                 .settings =
                         [preset, url](ProviderSettings &settings) {
                             settings.baseUrl.setPath(url.path());
                             settings.baseUrl.setQuery(url.query());
                             settings.auth = preset.auth;
                             settings.providerId = preset.id;
                             settings.streamUsage = preset.streamUsage;
                             if (preset.auth == AuthStyle::None)
                                 settings.apiKey.clear();
                         },
                 .answer = finalAnswer,
                 .check =
                         [preset, url](const Outcome &outcome) {
                             for (const RecordedRequest &request : outcome.requests) {
                                 const QByteArray target = url.path().toUtf8()
                                                           + "/chat/completions";
                                 QVERIFY2(request.path.startsWith(target), request.path.constData());
                                 if (preset.auth == AuthStyle::None)
                                     QVERIFY(request.header("Authorization").isEmpty());
                                 QCOMPARE(request.json().contains(u"stream_options"_s),
                                          preset.streamUsage);
                             }
                         }};
    runRow(row);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ProviderQuirks)
#include "tst_providerquirks.moc"
