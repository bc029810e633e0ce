#include "fakechatserver.h"
#include "provider/capabilitycheck.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace {

constexpr int signalTimeoutMs = Testing::hangGuardMs;
const QString testKey = u"sk-test-CapabilityKey-4Rw81nQ7"_s;

ProviderSettings settingsFor(const QUrl &baseUrl, const QString &key = testKey)
{
    ProviderSettings settings;
    settings.baseUrl = baseUrl;
    settings.apiKey = key;
    settings.model = u"gpt-4.1"_s;
    settings.requestTimeout = 10s;
    // Whatever the profile says, a check does not wait through retries.
    settings.retry.maxRetries = 3;
    settings.retry.baseDelay = 2ms;
    settings.retry.maxDelay = 10ms;
    return settings;
}

bool isModelList(const RecordedRequest &request)
{
    return request.method == "GET" && request.path == "/v1/models";
}

// A provider: its model list, and chat answers from chat (for POST /v1/chat/completions).
FakeChatServer::Handler provider(const std::function<FakeResponse(const RecordedRequest &)> &chat,
                                 const QStringList &models = {u"gpt-4.1"_s})
{
    return [chat, models](const RecordedRequest &request) {
        if (isModelList(request))
            return FakeResponse::models(models);
        return chat(request);
    };
}

QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return FakeResponse::sseEvent({{u"id"_s, u"chatcmpl-check"_s},
                                   {u"object"_s, u"chat.completion.chunk"_s},
                                   {u"model"_s, u"gpt-4.1"_s},
                                   {u"choices"_s,
                                    QJsonArray{QJsonObject{{u"index"_s, 0},
                                                           {u"delta"_s, delta},
                                                           {u"finish_reason"_s, finishReason}}}}});
}

QJsonObject usageJson()
{
    return {{u"prompt_tokens"_s, 61}, {u"completion_tokens"_s, 9}, {u"total_tokens"_s, 70}};
}

// The test tool called in a stream, as OpenAI streams it: role, the call's name, its arguments,
// finish_reason and (when asked for) a last chunk with usage. reasoningField, when set, carries
// some thinking first, as DeepSeek (reasoning_content) or Groq (reasoning) stream it.
FakeResponse streamedToolCall(bool withUsage = true, const QString &reasoningField = {})
{
    QList<QByteArray> chunks{chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, QJsonValue::Null}})};
    if (!reasoningField.isEmpty()) {
        chunks.append(chunk({{reasoningField, u"The user wants the tool called."_s}}));
        chunks.append(chunk({{reasoningField, u" So I call it."_s}}));
    }
    const QJsonObject name{{u"index"_s, 0},
                           {u"id"_s, u"call_ready"_s},
                           {u"type"_s, u"function"_s},
                           {u"function"_s,
                            QJsonObject{{u"name"_s, u"report_ready"_s}, {u"arguments"_s, u""_s}}}};
    const QJsonObject arguments{{u"index"_s, 0},
                                {u"function"_s,
                                 QJsonObject{{u"arguments"_s, u"{\"ready\":true}"_s}}}};
    chunks.append(chunk({{u"tool_calls"_s, QJsonArray{name}}}));
    chunks.append(chunk({{u"tool_calls"_s, QJsonArray{arguments}}}));
    chunks.append(chunk({}, u"tool_calls"_s));
    if (withUsage) {
        chunks.append(FakeResponse::sseEvent({{u"id"_s, u"chatcmpl-check"_s},
                                              {u"object"_s, u"chat.completion.chunk"_s},
                                              {u"choices"_s, QJsonArray{}},
                                              {u"usage"_s, usageJson()}}));
    }
    chunks.append(FakeResponse::sseDone());
    return FakeResponse::stream(chunks, 5);
}

// The same call as one JSON answer (with usage), reasoning as a non-streaming provider sends it.
FakeResponse wholeToolCall(const QString &reasoningField = {})
{
    QJsonObject message{{u"role"_s, u"assistant"_s},
                        {u"content"_s, QJsonValue::Null},
                        {u"tool_calls"_s,
                         QJsonArray{QJsonObject{{u"id"_s, u"call_ready"_s},
                                                {u"type"_s, u"function"_s},
                                                {u"function"_s,
                                                 QJsonObject{{u"name"_s, u"report_ready"_s},
                                                             {u"arguments"_s,
                                                              u"{\"ready\":true}"_s}}}}}}};
    if (!reasoningField.isEmpty())
        message.insert(reasoningField, u"The user wants the tool called."_s);
    return FakeResponse::completion(message, u"tool_calls"_s);
}

bool asksToStream(const RecordedRequest &request)
{
    return request.json().value(u"stream"_s).toBool();
}

// A check on settings, with spies on what a front end listens to.
struct SpiedCheck
{
    CapabilityCheck check;
    QSignalSpy progress{&check, &CapabilityCheck::progress};
    QSignalSpy finished{&check, &CapabilityCheck::finished};

    // Starts the check and waits for its report (an empty one, failing the test, on a timeout).
    CapabilityReport run(const ProviderSettings &settings)
    {
        check.start(settings);
        if (!finished.wait(signalTimeoutMs) && finished.isEmpty())
            return {};
        return finished.first().first().value<CapabilityReport>();
    }
    QStringList steps() const
    {
        QStringList texts;
        for (const QList<QVariant> &arguments : progress)
            texts.append(arguments.first().toString());
        return texts;
    }
};

CapabilityFinding::Outcome outcome(const CapabilityReport &report,
                                   CapabilityFinding::Capability capability)
{
    const CapabilityFinding *finding = report.finding(capability);
    return finding ? finding->outcome : CapabilityFinding::Unknown;
}

QString summary(const CapabilityReport &report, CapabilityFinding::Capability capability)
{
    const CapabilityFinding *finding = report.finding(capability);
    return finding ? finding->summary : u"(no finding)"_s;
}

QString detail(const CapabilityReport &report, CapabilityFinding::Capability capability)
{
    const CapabilityFinding *finding = report.finding(capability);
    return finding ? finding->detail : QString();
}

// Every text of the report a user could see.
QString everythingShown(const CapabilityReport &report)
{
    QStringList texts;
    for (const CapabilityFinding &finding : report.findings)
        texts << finding.summary << finding.detail;
    if (report.error)
        texts << report.error->message << report.error->hint << report.error->providerMessage;
    return texts.join(u'\n');
}

} // namespace

class tst_CapabilityCheck : public QObject
{
    Q_OBJECT

private slots:
    void goodProviderWorksThroughout();
    void wrongKeyStopsTheCheck();
    void keyEchoedByTheProviderIsMasked();
    void nothingListening();
    void modelNotListed();
    void noModelList_data();
    void noModelList();
    void refusedStreamOptionsAreLeftOut();
    void serverThatCannotStreamWithTools();
    void brokenStreamIsTriedWithoutStreaming();
    void textInsteadOfToolCall();
    void toolsRefused();
    void serverErrorIsNotRetried();
    void reasoningField_data();
    void reasoningField();
    void cancelMidRequest();
    void destroyedMidRequest();
};

void tst_CapabilityCheck::goodProviderWorksThroughout()
{
    FakeChatServer server;
    server.setHandler(provider([](const RecordedRequest &) { return streamedToolCall(); },
                               {u"gpt-4.1"_s, u"gpt-4o-mini"_s}));
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QVERIFY(report.ok);
    QCOMPARE(report.models, (QStringList{u"gpt-4.1"_s, u"gpt-4o-mini"_s}));
    const QStringList expected{u"Reachable: yes"_s,
                               u"Key accepted: yes"_s,
                               u"Model exists: yes"_s,
                               u"Streaming: yes"_s,
                               u"Tool calling: yes"_s,
                               u"Usage reporting: yes"_s,
                               u"Reasoning field: none"_s};
    QStringList summaries;
    for (const CapabilityFinding &finding : report.findings)
        summaries.append(finding.summary);
    QCOMPARE(summaries, expected);
    QCOMPARE(detail(report, CapabilityFinding::ToolCalling), u"{\"ready\":true}"_s);
    QVERIFY(!report.hasSuggestions());
    QVERIFY(!report.error);
    QVERIFY(report.reasoningField.isEmpty());
    QCOMPARE(spied.steps(),
             (QStringList{u"Listing models…"_s, u"Sending a test request with one tool…"_s}));
    QCOMPARE(spied.finished.size(), 1);
    QVERIFY(!spied.check.isRunning());

    // What the provider received: the model list asked for, then one request with one tool.
    QCOMPARE(server.allRequests().size(), 2);
    QVERIFY(isModelList(server.allRequests().first()));
    QCOMPARE(server.requests().size(), 1);
    const QJsonObject body = server.requests().first().json();
    QCOMPARE(body.value(u"model"_s).toString(), u"gpt-4.1"_s);
    QCOMPARE(body.value(u"stream"_s).toBool(), true);
    QCOMPARE(body.value(u"stream_options"_s).toObject().value(u"include_usage"_s).toBool(), true);
    QVERIFY(!body.contains(u"max_tokens"_s)); // a reasoning model needs room
    const QJsonArray tools = body.value(u"tools"_s).toArray();
    QCOMPARE(tools.size(), 1);
    const QJsonObject function = tools.first().toObject().value(u"function"_s).toObject();
    QCOMPARE(function.value(u"name"_s).toString(), u"report_ready"_s);
    const QJsonObject parameters = function.value(u"parameters"_s).toObject();
    QCOMPARE(parameters.value(u"properties"_s).toObject().keys(), QStringList{u"ready"_s});
    QCOMPARE(parameters.value(u"additionalProperties"_s).toBool(true), false);
    const QJsonArray messages = body.value(u"messages"_s).toArray();
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.first().toObject().value(u"role"_s).toString(), u"user"_s);
    QVERIFY(messages.first().toObject().value(u"content"_s).toString().contains(u"report_ready"_s));
}

void tst_CapabilityCheck::wrongKeyStopsTheCheck()
{
    FakeChatServer server;
    server.setRequiredApiKey("sk-the-right-key-0000000000");
    const QString wrongKey = u"sk-a-wrong-key-Zq81Lm40Xv"_s;
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl(), wrongKey));

    QVERIFY(!report.ok);
    QCOMPARE(outcome(report, CapabilityFinding::Reachable), CapabilityFinding::Yes);
    QCOMPARE(outcome(report, CapabilityFinding::KeyAccepted), CapabilityFinding::No);
    QCOMPARE(summary(report, CapabilityFinding::KeyAccepted), u"Key accepted: no (HTTP 401)"_s);
    QVERIFY2(detail(report, CapabilityFinding::KeyAccepted)
                     .startsWith(u"Incorrect API key provided"_s),
             qPrintable(detail(report, CapabilityFinding::KeyAccepted)));
    QVERIFY(!report.finding(CapabilityFinding::ToolCalling));
    QVERIFY(report.error);
    QCOMPARE(report.error->httpStatus, 401);
    QVERIFY(!everythingShown(report).contains(wrongKey));
    QVERIFY(server.requests().isEmpty()); // no chat request after the key was refused
}

// A provider that writes the whole key into its error message: the report shows it masked.
void tst_CapabilityCheck::keyEchoedByTheProviderIsMasked()
{
    FakeChatServer server;
    server.setHandler([](const RecordedRequest &request) {
        const QString key = QString::fromUtf8(request.header("Authorization").mid(7));
        return FakeResponse::httpError(401,
                                       u"Incorrect API key provided: %1."_s.arg(key),
                                       u"invalid_request_error"_s,
                                       u"invalid_api_key"_s);
    });
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QCOMPARE(outcome(report, CapabilityFinding::KeyAccepted), CapabilityFinding::No);
    const QString shown = everythingShown(report);
    QVERIFY2(!shown.contains(testKey), qPrintable(shown));
    QVERIFY(detail(report, CapabilityFinding::KeyAccepted).contains(u"[REDACTED]"_s));
}

void tst_CapabilityCheck::nothingListening()
{
    const quint16 port = closedPort();
    QVERIFY(port != 0);
    SpiedCheck spied;

    const CapabilityReport report = spied.run(
            settingsFor(QUrl(u"http://127.0.0.1:%1/v1"_s.arg(port))));

    QVERIFY(!report.ok);
    QCOMPARE(report.findings.size(), 1);
    QCOMPARE(outcome(report, CapabilityFinding::Reachable), CapabilityFinding::No);
    QCOMPARE(summary(report, CapabilityFinding::Reachable), u"Reachable: no"_s);
    QVERIFY(!detail(report, CapabilityFinding::Reachable).isEmpty());
    QVERIFY(report.error);
    QCOMPARE(report.error->kind, Error::Network);
    QCOMPARE(spied.steps(), QStringList{u"Listing models…"_s});
}

void tst_CapabilityCheck::modelNotListed()
{
    FakeChatServer server;
    server.setModels({u"deepseek-reasoner"_s, u"deepseek-coder"_s, u"deepseek-v2"_s});
    server.script({streamedToolCall()});
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.model = u"deepseek-chat"_s;
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settings);

    QCOMPARE(outcome(report, CapabilityFinding::ModelExists), CapabilityFinding::No);
    QCOMPARE(summary(report, CapabilityFinding::ModelExists),
             u"Model exists: no — deepseek-chat is not among the 3 models listed"_s);
    QCOMPARE(detail(report, CapabilityFinding::ModelExists),
             u"Listed: deepseek-coder, deepseek-reasoner, deepseek-v2"_s);
    // The check goes on: the request shows what the provider does with the name.
    QCOMPARE(server.requests().size(), 1);
    QCOMPARE(server.requests().first().json().value(u"model"_s).toString(), u"deepseek-chat"_s);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::Yes);
}

void tst_CapabilityCheck::noModelList_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expected");
    QTest::newRow("404 (Azure)")
            << 404 << QByteArray(R"({"error":{"code":"404","message":"Resource not found"}})")
            << u"Model exists: unknown — the provider has no model list"_s;
    QTest::newRow("not a list") << 200 << QByteArray(R"({"models":["gpt-4.1"]})")
                                << u"Model exists: unknown — the model list could not be read"_s;
}

void tst_CapabilityCheck::noModelList()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(QString, expected);
    FakeChatServer server;
    server.setHandler([&](const RecordedRequest &request) {
        return isModelList(request) ? FakeResponse::raw(body, status) : streamedToolCall();
    });
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QCOMPARE(outcome(report, CapabilityFinding::ModelExists), CapabilityFinding::Unknown);
    QCOMPARE(summary(report, CapabilityFinding::ModelExists), expected);
    QVERIFY(report.models.isEmpty());
    QCOMPARE(server.requests().size(), 1);
    QCOMPARE(outcome(report, CapabilityFinding::KeyAccepted), CapabilityFinding::Yes);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::Yes);
    QVERIFY(report.ok);
}

// Mistral: 422 extra_forbidden for stream_options; the client resends without it.
void tst_CapabilityCheck::refusedStreamOptionsAreLeftOut()
{
    FakeChatServer server;
    server.setHandler(provider([](const RecordedRequest &request) {
        if (request.json().contains(u"stream_options"_s)) {
            return FakeResponse::raw(
                    R"({"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],)"
                    R"("msg":"Extra inputs are not permitted","input":{"include_usage":true}}]})",
                    422);
        }
        return streamedToolCall(/*withUsage=*/true);
    }));
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QCOMPARE(report.suggestedStreamUsage, std::optional<bool>(false));
    QVERIFY(!report.suggestedStream);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::Yes);
    QCOMPARE(outcome(report, CapabilityFinding::Streaming), CapabilityFinding::Yes);
    QVERIFY(report.ok);
    QCOMPARE(server.requests().size(), 2);
    const QJsonObject second = server.requests().at(1).json();
    QVERIFY(!second.contains(u"stream_options"_s));
    QCOMPARE(second.value(u"stream"_s).toBool(), true);
}

// llama.cpp: 500 "Cannot use tools with stream"; the client resends without streaming.
void tst_CapabilityCheck::serverThatCannotStreamWithTools()
{
    FakeChatServer server;
    server.setHandler(provider([](const RecordedRequest &request) {
        if (asksToStream(request)) {
            return FakeResponse::raw(R"({"error":{"code":500,"message":"Cannot use tools with )"
                                     R"(stream","type":"server_error"}})",
                                     500);
        }
        return wholeToolCall();
    }));
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QCOMPARE(report.suggestedStream, std::optional<bool>(false));
    QCOMPARE(outcome(report, CapabilityFinding::Streaming), CapabilityFinding::No);
    QCOMPARE(summary(report, CapabilityFinding::Streaming),
             u"Streaming: no — the provider cannot stream with tools"_s);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::Yes);
    QCOMPARE(outcome(report, CapabilityFinding::UsageReporting), CapabilityFinding::Yes);
    QVERIFY(report.ok);
    QCOMPARE(server.requests().size(), 2);
    QVERIFY(!server.requests().at(1).json().contains(u"stream"_s));
}

// A stream that reports an error the client cannot fix by itself: the check tries once without
// streaming, and suggests whole answers when that works.
void tst_CapabilityCheck::brokenStreamIsTriedWithoutStreaming()
{
    FakeChatServer server;
    server.setHandler(provider([](const RecordedRequest &request) {
        if (asksToStream(request)) {
            return FakeResponse::stream({chunk({{u"role"_s, u"assistant"_s}}),
                                         FakeResponse::sseEvent(
                                                 {{u"error"_s,
                                                   QJsonObject{{u"message"_s,
                                                                u"tool call parsing failed"_s},
                                                               {u"type"_s, u"server_error"_s}}}})},
                                        5);
        }
        return wholeToolCall();
    }));
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QCOMPARE(spied.steps(),
             (QStringList{u"Listing models…"_s,
                          u"Sending a test request with one tool…"_s,
                          u"Trying again without streaming…"_s}));
    QCOMPARE(report.suggestedStream, std::optional<bool>(false));
    QCOMPARE(outcome(report, CapabilityFinding::Streaming), CapabilityFinding::No);
    QVERIFY2(detail(report, CapabilityFinding::Streaming).contains(u"tool call parsing failed"_s),
             qPrintable(detail(report, CapabilityFinding::Streaming)));
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::Yes);
    QVERIFY(report.ok);
    QCOMPARE(server.requests().size(), 2);
    QVERIFY(!server.requests().at(1).json().contains(u"stream"_s));
}

void tst_CapabilityCheck::textInsteadOfToolCall()
{
    FakeChatServer server;
    server.script({FakeResponse::streamedAnswer({u"I am "_s, u"ready."_s})});
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QVERIFY(!report.ok);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::No);
    QCOMPARE(summary(report, CapabilityFinding::ToolCalling),
             u"Tool calling: no — the model answered in text instead"_s);
    QCOMPARE(detail(report, CapabilityFinding::ToolCalling), u"I am ready."_s);
    QCOMPARE(outcome(report, CapabilityFinding::Streaming), CapabilityFinding::Yes);
    QCOMPARE(server.requests().size(), 1);
}

// A model without tool support: the provider's words, in plain terms.
void tst_CapabilityCheck::toolsRefused()
{
    FakeChatServer server;
    server.script({FakeResponse::httpError(400, u"deepseek-reasoner does not support tools"_s)});
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QVERIFY(!report.ok);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::No);
    QCOMPARE(summary(report, CapabilityFinding::ToolCalling),
             u"Tool calling: no — the provider refused the request with a tool (HTTP 400)"_s);
    QVERIFY(detail(report, CapabilityFinding::ToolCalling)
                    .contains(u"deepseek-reasoner does not support tools"_s));
    QCOMPARE(outcome(report, CapabilityFinding::KeyAccepted), CapabilityFinding::Yes);
    QVERIFY(report.error);
    QCOMPARE(report.error->httpStatus, 400);
    QCOMPARE(server.requests().size(), 1);
}

// The profile's retries (3 here) are not the check's: one 503 is the answer.
void tst_CapabilityCheck::serverErrorIsNotRetried()
{
    FakeChatServer server;
    server.script({FakeResponse::httpError(503, u"The server is overloaded"_s, u"server_error"_s),
                   streamedToolCall()});
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));

    QVERIFY(!report.ok);
    QCOMPARE(summary(report, CapabilityFinding::ToolCalling),
             u"Tool calling: no — the test request failed (HTTP 503)"_s);
    QVERIFY(detail(report, CapabilityFinding::ToolCalling).contains(u"The server is overloaded"_s));
    QCOMPARE(server.requests().size(), 1);
}

void tst_CapabilityCheck::reasoningField_data()
{
    QTest::addColumn<bool>("stream");
    QTest::addColumn<QString>("field");
    QTest::newRow("DeepSeek, streamed") << true << u"reasoning_content"_s;
    QTest::newRow("Groq, streamed") << true << u"reasoning"_s;
    QTest::newRow("DeepSeek, whole") << false << u"reasoning_content"_s;
    QTest::newRow("Groq, whole") << false << u"reasoning"_s;
}

void tst_CapabilityCheck::reasoningField()
{
    QFETCH(bool, stream);
    QFETCH(QString, field);
    FakeChatServer server;
    server.script({stream ? streamedToolCall(true, field) : wholeToolCall(field)});
    ProviderSettings settings = settingsFor(server.baseUrl());
    settings.stream = stream;
    SpiedCheck spied;

    const CapabilityReport report = spied.run(settings);

    QCOMPARE(report.reasoningField, field);
    QCOMPARE(outcome(report, CapabilityFinding::ReasoningField), CapabilityFinding::Yes);
    QCOMPARE(summary(report, CapabilityFinding::ReasoningField), u"Reasoning field: "_s + field);
    QCOMPARE(outcome(report, CapabilityFinding::ToolCalling), CapabilityFinding::Yes);
    QCOMPARE(server.requests().first().json().contains(u"stream"_s), stream);
    if (!stream) {
        QCOMPARE(summary(report, CapabilityFinding::Streaming),
                 u"Streaming: not tried — the profile asks for whole answers"_s);
        QVERIFY(!report.hasSuggestions());
    }
}

void tst_CapabilityCheck::cancelMidRequest()
{
    FakeChatServer server;
    server.script({FakeResponse::neverAnswer()});
    SpiedCheck spied;

    spied.check.start(settingsFor(server.baseUrl()));
    QVERIFY(spied.check.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, signalTimeoutMs);
    spied.check.cancel();

    QVERIFY(!spied.check.isRunning());
    QTest::qWait(200);
    QCOMPARE(spied.finished.size(), 0);

    // The same object checks again afterwards, with one finished() for the new check.
    server.script({streamedToolCall()});
    const CapabilityReport report = spied.run(settingsFor(server.baseUrl()));
    QCOMPARE(spied.finished.size(), 1);
    QVERIFY(report.ok);
}

void tst_CapabilityCheck::destroyedMidRequest()
{
    FakeChatServer server;
    server.script({streamedToolCall().withDelay(100)});
    auto check = std::make_unique<CapabilityCheck>();
    QSignalSpy finished(check.get(), &CapabilityCheck::finished);
    check->start(settingsFor(server.baseUrl()));
    QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, signalTimeoutMs);

    check.reset();

    QTest::qWait(300); // the answer arrives at a connection nobody reads any more
    QCOMPARE(finished.size(), 0);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_CapabilityCheck)
#include "tst_capabilitycheck.moc"
