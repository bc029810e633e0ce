// Cut-off answers and failing models (course chapter 11), through the real loop and real HTTP to
// a scripted model on 127.0.0.1: what the provider receives (continuation requests, tool messages
// for calls cut off, the output limit's field, the fallback model) and what the run ends with.

#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "protocol/providerpresets.h"
#include "protocol/requestbody.h"
#include "storage/config.h"
#include "storage/providerprofiles.h"
#include "testmain.h"

#include <QJsonArray>
#include <QProcessEnvironment>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

Q_DECLARE_METATYPE(AgentLoop::FakeResponse)
Q_DECLARE_METATYPE(AgentLoop::MaxTokensField)

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class tst_CutOffFallback : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    // finish_reason "length" on a text answer.
    void threePartsJoinIntoOneAssistantMessage();
    void zeroContinuationsKeepsTheError();
    void theLimitOfContinuationsEndsWithAnError();
    void aContinuationThatCallsAToolKeepsTheTextWithTheCall();

    // finish_reason "length" with tool calls.
    void cutOffToolCallsAreAnsweredAndNeverRun();

    // The output limit's field.
    void maxTokensGoesUnderTheProvidersField_data();
    void maxTokensGoesUnderTheProvidersField();
    void presetsAndProfilesKnowTheField();

    // Fallback models.
    void failingModelFallsBack_data();
    void failingModelFallsBack();
    void otherErrorsDoNotFallBack();
    void exhaustedFallbacksNameTheModelsTried();
    void theNextRunStartsWithThePrimaryModel();
    void aContinuationThatFailsGoesToTheFallback();
};

namespace {

const QString apiKey = u"sk-test-0123456789abcdefCUTOFF"_s;
const QString primaryModel = u"gpt-primary"_s;
constexpr int endTimeoutMs = Testing::hangGuardMs;
const QString instructionStart = u"Your previous answer was cut off at the output token limit."_s;

FakeResponse toolCallsCutOff(const QList<FakeToolCall> &calls)
{
    QJsonArray array;
    for (const FakeToolCall &call : calls) {
        array.append(QJsonObject{{u"id"_s, call.id},
                                 {u"type"_s, u"function"_s},
                                 {u"function"_s,
                                  QJsonObject{{u"name"_s, call.name},
                                              {u"arguments"_s, call.arguments}}}});
    }
    return FakeResponse::completion({{u"role"_s, u"assistant"_s},
                                     {u"content"_s, QJsonValue::Null},
                                     {u"tool_calls"_s, array}},
                                    u"length"_s);
}

QString modelOf(const RecordedRequest &request)
{
    return request.json().value(u"model"_s).toString();
}

class Harness
{
public:
    Harness()
    {
        settings.baseUrl = server.baseUrl();
        settings.apiKey = apiKey;
        settings.model = primaryModel;
        settings.retry.maxRetries = 1;
        settings.retry.baseDelay = 2ms;
        settings.retry.maxDelay = 5ms;
        agent.setProvider(settings);
        ShellToolOptions options;
        options.workspace = u"/tmp/agentloop-workspace"_s;
        installStandardTools(agent, std::make_shared<FakeCommandRunner>(runner), options);
        QObject::connect(&agent,
                         &AgentController::approvalRequested,
                         &agent,
                         [this](const ApprovalRequest &request) {
                             approvals.append(request);
                             agent.resolveApproval(request.id, ApprovalAnswer::allowOnce());
                         });
    }

    void setContinuations(int limit)
    {
        AgentOptions options = agent.options();
        options.context.maxContinuations = limit;
        agent.setOptions(options);
    }
    void setFallbacks(const QStringList &models)
    {
        AgentOptions options = agent.options();
        options.fallbacks.clear();
        for (const QString &model : models) {
            ProviderSettings fallback = settings;
            fallback.model = model;
            options.fallbacks.append(fallback);
        }
        agent.setOptions(options);
    }

    bool ended() const { return !finished.isEmpty() || !failed.isEmpty(); }
    bool runToTheEnd(const QString &prompt)
    {
        finished.clear();
        failed.clear();
        if (!agent.run(prompt))
            return false;
        return QTest::qWaitFor([this] { return ended(); }, endTimeoutMs);
    }
    Error error() const
    {
        return failed.isEmpty() ? Error() : failed.first().first().value<Error>();
    }
    QString answer() const
    {
        return finished.isEmpty() ? QString() : finished.first().first().toString();
    }
    QList<Exchange> exchanges() const
    {
        QList<Exchange> list;
        for (const QList<QVariant> &arguments : sent)
            list.append(arguments.first().value<Exchange>());
        return list;
    }
    QStringList notices() const
    {
        QStringList list;
        for (const QList<QVariant> &arguments : noticeSpy)
            list.append(arguments.first().toString());
        return list;
    }
    QList<Message> assistantMessages() const
    {
        QList<Message> list;
        for (const Message &message : agent.history().messages()) {
            if (message.role() == Role::Assistant)
                list.append(message);
        }
        return list;
    }

    ProviderSettings settings;
    FakeChatServer server;
    FakeCommandRunner runner;
    AgentController agent;
    QSignalSpy finished{&agent, &AgentController::finished};
    QSignalSpy failed{&agent, &AgentController::failed};
    QSignalSpy sent{&agent, &AgentController::requestSent};
    QSignalSpy noticeSpy{&agent, &AgentController::notice};
    QSignalSpy continuations{&agent, &AgentController::continuationRequested};
    QSignalSpy fallbacks{&agent, &AgentController::fallbackActivated};
    QSignalSpy turns{&agent, &AgentController::turnStarted};
    QList<ApprovalRequest> approvals;
};

} // namespace

void tst_CutOffFallback::initTestCase()
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<Exchange>();
    qRegisterMetaType<ApprovalRequest>();
    qRegisterMetaType<ProviderSettings>();
}

void tst_CutOffFallback::threePartsJoinIntoOneAssistantMessage()
{
    Harness h;
    h.server.script({FakeResponse::answer(u"Part one, "_s, u"length"_s),
                     FakeResponse::answer(u"part two, "_s, u"length"_s),
                     FakeResponse::answer(u"part three."_s),
                     FakeResponse::answer(u"Next answer."_s)});
    QVERIFY(h.runToTheEnd(u"write it"_s));
    QCOMPARE(h.answer(), u"Part one, part two, part three."_s);
    QCOMPARE(h.server.requests().size(), 3);
    QCOMPARE(h.turns.size(), 1); // continuations are the same turn

    // Each continuation: the history, the answer so far, the app's instruction.
    const QStringList soFar{u"Part one, "_s, u"Part one, part two, "_s};
    for (int i = 1; i <= 2; ++i) {
        const QJsonArray messages = h.server.requests().at(i).messages();
        const QJsonObject user = messages.at(messages.size() - 3).toObject();
        QCOMPARE(user.value(u"role"_s).toString(), u"user"_s);
        QCOMPARE(user.value(u"content"_s).toString(), u"write it"_s);
        const QJsonObject partial = messages.at(messages.size() - 2).toObject();
        QCOMPARE(partial.value(u"role"_s).toString(), u"assistant"_s);
        QCOMPARE(partial.value(u"content"_s).toString(), soFar.at(i - 1));
        const QJsonObject instruction = messages.last().toObject();
        QCOMPARE(instruction.value(u"role"_s).toString(), u"user"_s);
        QVERIFY(instruction.value(u"content"_s).toString().startsWith(instructionStart));
        // The tools stay: the model may go on with a call.
        QVERIFY(h.server.requests().at(i).json().contains(u"tools"_s));
    }
    const QList<Exchange> exchanges = h.exchanges();
    QCOMPARE(exchanges.size(), 3);
    QCOMPARE(exchanges.at(0).purpose, ExchangePurpose::Turn);
    QCOMPARE(exchanges.at(1).purpose, ExchangePurpose::Continuation);
    QCOMPARE(exchanges.at(2).purpose, ExchangePurpose::Continuation);
    QCOMPARE(exchanges.at(2).turn, 1);

    QCOMPARE(h.continuations.size(), 2);
    QCOMPARE(h.continuations.at(0), (QList<QVariant>{2, 4}));
    QCOMPARE(h.continuations.at(1), (QList<QVariant>{3, 4}));
    QCOMPARE(h.notices().size(), 2);
    QVERIFY2(h.notices().first().contains(u"part 2 of at most 4"_s),
             qPrintable(h.notices().first()));

    // One assistant message in the history, no instruction, and what the next turn sends.
    QCOMPARE(h.assistantMessages().size(), 1);
    QCOMPARE(h.assistantMessages().first().content(), u"Part one, part two, part three."_s);
    for (const Message &message : h.agent.history().messages())
        QVERIFY(!message.content().startsWith(instructionStart));
    QVERIFY(h.agent.history().checkPairing().hasValue());

    QVERIFY(h.runToTheEnd(u"and now?"_s));
    QCOMPARE(h.answer(), u"Next answer."_s);
    const QJsonArray next = h.server.requests().at(3).messages();
    QStringList roles;
    for (const QJsonValue &message : next)
        roles << message[u"role"_s].toString();
    QCOMPARE(roles, (QStringList{u"system"_s, u"user"_s, u"assistant"_s, u"user"_s}));
    QCOMPARE(next.at(2)[u"content"_s].toString(), u"Part one, part two, part three."_s);
    QCOMPARE(next.at(3)[u"content"_s].toString(), u"and now?"_s);
}

void tst_CutOffFallback::zeroContinuationsKeepsTheError()
{
    Harness h;
    h.setContinuations(0);
    h.server.script({FakeResponse::answer(u"The answer is cut"_s, u"length"_s),
                     FakeResponse::answer(u"must not be asked"_s)});
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.finished.size(), 0);
    QCOMPARE(h.error().kind, Error::Agent);
    QCOMPARE(h.error().message, u"Model output reached the token limit"_s);
    QCOMPARE(h.server.requests().size(), 1);
    QCOMPARE(h.continuations.size(), 0);
    // The text is kept for the user to read.
    QCOMPARE(h.assistantMessages().size(), 1);
    QCOMPARE(h.assistantMessages().first().content(), u"The answer is cut"_s);
}

void tst_CutOffFallback::theLimitOfContinuationsEndsWithAnError()
{
    Harness h;
    h.setContinuations(2);
    h.server.setHandler(
            [](const RecordedRequest &) { return FakeResponse::answer(u"more "_s, u"length"_s); });
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.finished.size(), 0);
    QCOMPARE(h.error().kind, Error::Agent);
    // (The plural comes from the translations, which a test does not load.)
    QVERIFY2(h.error().message.startsWith(
                     u"Model output reached the token limit, even after 2 continuation"_s),
             qPrintable(h.error().message));
    QVERIFY(!h.error().hint.isEmpty());
    QCOMPARE(h.server.requests().size(), 3);
    QCOMPARE(h.assistantMessages().size(), 1);
    QCOMPARE(h.assistantMessages().first().content(), u"more more more "_s);
    QVERIFY(h.agent.history().checkPairing().hasValue());
    QCOMPARE(h.agent.state(), AgentController::State::Idle);
}

void tst_CutOffFallback::aContinuationThatCallsAToolKeepsTheTextWithTheCall()
{
    Harness h;
    h.server.script(
            {FakeResponse::answer(u"I will list the files"_s, u"length"_s),
             FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s, u" now."_s),
             FakeResponse::answer(u"Done."_s)});
    h.runner.enqueue(0, u"a.txt\n"_s);
    QVERIFY(h.runToTheEnd(u"list"_s));
    QCOMPARE(h.answer(), u"Done."_s);
    QCOMPARE(h.runner.requests().size(), 1);
    const QList<Message> assistants = h.assistantMessages();
    QCOMPARE(assistants.size(), 2);
    QCOMPARE(assistants.first().content(), u"I will list the files now."_s);
    QCOMPARE(assistants.first().toolCalls().size(), 1);
    QVERIFY(h.agent.history().checkPairing().hasValue());
    const QList<QJsonObject> tools = h.server.requests().at(2).toolMessages();
    QCOMPARE(tools.size(), 1);
    QCOMPARE(tools.first().value(u"tool_call_id"_s).toString(), u"call_1"_s);
}

void tst_CutOffFallback::cutOffToolCallsAreAnsweredAndNeverRun()
{
    Harness h;
    h.server.script(
            {toolCallsCutOff({{u"call_1"_s, u"shell"_s, uR"({"command":"touch a"})"_s},
                              {u"call_2"_s, u"write_file"_s, uR"({"path":"b.txt","conte)"_s}}),
             FakeResponse::answer(u"I will write less at a time."_s)});
    QVERIFY(h.runToTheEnd(u"write the files"_s));
    QCOMPARE(h.answer(), u"I will write less at a time."_s);
    QVERIFY(h.runner.requests().isEmpty()); // nothing ran
    QVERIFY(h.approvals.isEmpty());         // nothing was shown for approval
    QCOMPARE(h.server.requests().size(), 2);
    QCOMPARE(h.turns.size(), 2); // asking again is a turn

    const QList<QJsonObject> tools = h.server.requests().at(1).toolMessages();
    QCOMPARE(tools.size(), 2);
    QCOMPARE(tools.at(0).value(u"tool_call_id"_s).toString(), u"call_1"_s);
    QCOMPARE(tools.at(1).value(u"tool_call_id"_s).toString(), u"call_2"_s);
    for (const QJsonObject &tool : tools) {
        const QString content = tool.value(u"content"_s).toString();
        QVERIFY2(content.startsWith(u"output_cut_off: "_s), qPrintable(content));
        QVERIFY2(content.contains(u"less output per call"_s), qPrintable(content));
    }
    QVERIFY(h.agent.history().checkPairing().hasValue());
    QCOMPARE(h.notices().size(), 1);
}

void tst_CutOffFallback::maxTokensGoesUnderTheProvidersField_data()
{
    QTest::addColumn<int>("maxTokens");
    QTest::addColumn<MaxTokensField>("field");
    QTest::addColumn<QString>("sent");   // the field expected in the body; empty: none
    QTest::addColumn<QString>("absent"); // a field that must not be there

    QTest::newRow("unset") << 0 << MaxTokensField::MaxCompletionTokens << QString()
                           << u"max_completion_tokens"_s;
    QTest::newRow("unset, max_tokens")
            << 0 << MaxTokensField::MaxTokens << QString() << u"max_tokens"_s;
    QTest::newRow("max_tokens") << 512 << MaxTokensField::MaxTokens << u"max_tokens"_s
                                << u"max_completion_tokens"_s;
    QTest::newRow("max_completion_tokens") << 512 << MaxTokensField::MaxCompletionTokens
                                           << u"max_completion_tokens"_s << u"max_tokens"_s;
}

void tst_CutOffFallback::maxTokensGoesUnderTheProvidersField()
{
    QFETCH(int, maxTokens);
    QFETCH(MaxTokensField, field);
    QFETCH(QString, sent);
    QFETCH(QString, absent);

    Harness h;
    ProviderSettings settings = h.settings;
    settings.maxTokens = maxTokens;
    settings.maxTokensField = field;
    h.agent.setProvider(settings);
    h.server.script({FakeResponse::answer(u"ok"_s)});
    QVERIFY(h.runToTheEnd(u"go"_s));
    const QJsonObject body = h.server.requests().first().json();
    QVERIFY(!body.contains(absent));
    if (sent.isEmpty()) {
        QVERIFY(!body.contains(u"max_tokens"_s));
        QVERIFY(!body.contains(u"max_completion_tokens"_s));
    } else {
        QCOMPARE(body.value(sent).toInt(), maxTokens);
    }
}

void tst_CutOffFallback::presetsAndProfilesKnowTheField()
{
    QCOMPARE(defaultMaxTokensField(u"openai"_s), MaxTokensField::MaxCompletionTokens);
    for (const QString &id : {u"deepseek"_s, u"qwen"_s, u"kimi"_s, u"glm"_s, QString()})
        QCOMPARE(defaultMaxTokensField(id), MaxTokensField::MaxTokens);
    // OPENAI_BASE_URL alone says which provider it is.
    QProcessEnvironment environment;
    environment.insert(QString::fromLatin1(baseUrlVariable), u"https://api.openai.com/v1"_s);
    environment.insert(QString::fromLatin1(apiKeyVariable), apiKey);
    environment.insert(QString::fromLatin1(modelVariable), u"o3"_s);
    QTemporaryDir empty;
    const Result<LoadedConfig> openai = loadConfig(environment, empty.path());
    QVERIFY(openai);
    QCOMPARE(openai->provider.maxTokensField, MaxTokensField::MaxCompletionTokens);
    environment.insert(QString::fromLatin1(baseUrlVariable), u"https://api.deepseek.com/v1"_s);
    const Result<LoadedConfig> deepseek = loadConfig(environment, empty.path());
    QVERIFY(deepseek);
    QCOMPARE(deepseek->provider.maxTokensField, MaxTokensField::MaxTokens);
    QCOMPARE(maxTokensFieldFromName(u"max_tokens"_s), MaxTokensField::MaxTokens);
    QCOMPARE(maxTokensFieldFromName(u"max_completion_tokens"_s),
             MaxTokensField::MaxCompletionTokens);
    QVERIFY(!maxTokensFieldFromName(u"maxtokens"_s));

    // Saved with the profile; a profile saved before the field takes its preset's.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QSettings file(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
    ProviderProfile custom;
    custom.id = u"p1"_s;
    custom.name = u"Custom"_s;
    custom.maxTokens = 1000;
    custom.maxTokensField = MaxTokensField::MaxCompletionTokens;
    ProviderProfile old;
    old.id = u"p2"_s;
    old.name = u"Old OpenAI"_s;
    old.presetId = u"openai"_s;
    saveProfiles(file, {custom, old});
    file.remove(u"profiles/p2/maxTokensField"_s);
    const QList<ProviderProfile> loaded = loadProfiles(file);
    QCOMPARE(loaded.size(), 2);
    QCOMPARE(loaded.at(0).maxTokensField, MaxTokensField::MaxCompletionTokens);
    QCOMPARE(file.value(u"profiles/p1/maxTokensField"_s).toString(), u"max_completion_tokens"_s);
    QCOMPARE(loaded.at(0).settings(apiKey).maxTokensField, MaxTokensField::MaxCompletionTokens);
    QCOMPARE(loaded.at(1).maxTokensField, MaxTokensField::MaxCompletionTokens);
}

void tst_CutOffFallback::failingModelFallsBack_data()
{
    QTest::addColumn<FakeResponse>("failure");
    QTest::addColumn<int>("primaryRequests"); // retries included
    QTest::addColumn<QString>("noticeText");

    QTest::newRow("OpenAI 404 model_not_found")
            << FakeResponse::httpError(404,
                                       u"The model `gpt-primary` does not exist or you do not have "
                                       u"access to it."_s,
                                       u"invalid_request_error"_s,
                                       u"model_not_found"_s)
            << 1 << u"does not know the model gpt-primary (HTTP 404)"_s;
    QTest::newRow("DeepSeek Model Not Exist")
            << FakeResponse::httpError(400, u"Model Not Exist"_s) << 1
            << u"does not know the model gpt-primary (HTTP 400)"_s;
    QTest::newRow("404 model not found")
            << FakeResponse::httpError(404, u"model not found"_s, u"not_found"_s) << 1
            << u"does not know the model"_s;
    QTest::newRow("429 after the retries")
            << FakeResponse::httpError(429, u"Rate limit reached"_s, u"requests"_s) << 2
            << u"still rate-limited after the retries (HTTP 429)"_s;
    QTest::newRow("503 after the retries")
            << FakeResponse::httpError(503, u"The server is overloaded"_s, u"server_error"_s) << 2
            << u"still fails after the retries (HTTP 503)"_s;
    QTest::newRow("500 after the retries")
            << FakeResponse::httpError(500, u"Internal error"_s, u"server_error"_s) << 2
            << u"still fails after the retries (HTTP 500)"_s;
}

void tst_CutOffFallback::failingModelFallsBack()
{
    QFETCH(FakeResponse, failure);
    QFETCH(int, primaryRequests);
    QFETCH(QString, noticeText);

    Harness h;
    h.setFallbacks({u"gpt-fallback"_s, u"gpt-second"_s});
    int fallbackTurn = 0;
    h.server.setHandler([&](const RecordedRequest &request) {
        if (modelOf(request) == primaryModel)
            return failure;
        // The fallback answers the turn with a call, then with the answer: it stays on.
        if (++fallbackTurn == 1)
            return FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s);
        return FakeResponse::answer(u"From the fallback."_s);
    });
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.error().message, QString());
    QCOMPARE(h.answer(), u"From the fallback."_s);

    QStringList models;
    for (const RecordedRequest &request : h.server.requests())
        models << modelOf(request);
    QStringList expected;
    for (int i = 0; i < primaryRequests; ++i)
        expected << primaryModel;
    expected << u"gpt-fallback"_s << u"gpt-fallback"_s;
    QCOMPARE(models, expected);
    // The same request went to the fallback: the same messages, the same turn.
    const QList<RecordedRequest> requests = h.server.requests();
    QCOMPARE(requests.at(primaryRequests).messages(), requests.first().messages());
    QCOMPARE(h.turns.size(), 2);

    QCOMPARE(h.fallbacks.size(), 1);
    QCOMPARE(h.fallbacks.first().at(1).value<ProviderSettings>().model, u"gpt-fallback"_s);
    QCOMPARE(h.notices().size(), 1);
    QVERIFY2(h.notices().first().contains(noticeText), qPrintable(h.notices().first()));
    QVERIFY2(h.notices().first().contains(u"fallback model gpt-fallback"_s),
             qPrintable(h.notices().first()));

    // Each exchange says which model it asked.
    const QList<Exchange> exchanges = h.exchanges();
    QCOMPARE(exchanges.size(), models.size());
    for (qsizetype i = 0; i < exchanges.size(); ++i)
        QCOMPARE(exchanges.at(i).model, models.at(i));
    QCOMPARE(exchanges.at(primaryRequests).turn, 1);
}

void tst_CutOffFallback::otherErrorsDoNotFallBack()
{
    Harness h;
    h.setFallbacks({u"gpt-fallback"_s});
    h.server.script({FakeResponse::httpError(401, u"Incorrect API key provided"_s),
                     FakeResponse::answer(u"must not be asked"_s)});
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.error().kind, Error::Http);
    QCOMPARE(h.error().httpStatus, 401);
    QVERIFY(!h.error().message.contains(u"models tried"_s));
    QCOMPARE(h.server.requests().size(), 1);
    QCOMPARE(h.fallbacks.size(), 0);
}

void tst_CutOffFallback::exhaustedFallbacksNameTheModelsTried()
{
    Harness h;
    h.setFallbacks({u"gpt-fallback"_s, u"gpt-second"_s});
    h.server.setHandler([](const RecordedRequest &request) {
        if (modelOf(request) == primaryModel)
            return FakeResponse::httpError(404,
                                           u"The model `gpt-primary` does not exist"_s,
                                           u"invalid_request_error"_s,
                                           u"model_not_found"_s);
        return FakeResponse::httpError(503, u"Overloaded"_s, u"server_error"_s);
    });
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.finished.size(), 0);
    QCOMPARE(h.error().kind, Error::Http);
    QCOMPARE(h.error().httpStatus, 503);
    QVERIFY2(h.error().message.contains(u"(models tried: gpt-primary, gpt-fallback, gpt-second)"_s),
             qPrintable(h.error().message));
    // 1 (not found, never retried) + 2 + 2 (retried once each).
    QCOMPARE(h.server.requests().size(), 5);
    QCOMPARE(h.fallbacks.size(), 2);
}

void tst_CutOffFallback::theNextRunStartsWithThePrimaryModel()
{
    Harness h;
    h.setFallbacks({u"gpt-fallback"_s});
    int primaryCalls = 0;
    h.server.setHandler([&](const RecordedRequest &request) {
        if (modelOf(request) == primaryModel && ++primaryCalls <= 2)
            return FakeResponse::httpError(503, u"Overloaded"_s, u"server_error"_s);
        return FakeResponse::answer(u"answered by "_s + modelOf(request));
    });
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.answer(), u"answered by gpt-fallback"_s);
    QCOMPARE(h.agent.provider().model, u"gpt-fallback"_s);
    QVERIFY(h.runToTheEnd(u"again"_s));
    QCOMPARE(h.answer(), u"answered by gpt-primary"_s);
    QCOMPARE(h.agent.provider().model, primaryModel);
}

void tst_CutOffFallback::aContinuationThatFailsGoesToTheFallback()
{
    Harness h;
    h.setFallbacks({u"gpt-fallback"_s});
    h.server.setHandler([](const RecordedRequest &request) {
        const QJsonArray messages = request.messages();
        const bool continuation = messages.last()[u"content"_s].toString().startsWith(
                instructionStart);
        if (!continuation)
            return FakeResponse::answer(u"Begun by the primary, "_s, u"length"_s);
        if (modelOf(request) == primaryModel)
            return FakeResponse::httpError(503, u"Overloaded"_s, u"server_error"_s);
        return FakeResponse::answer(u"ended by the fallback."_s);
    });
    QVERIFY(h.runToTheEnd(u"go"_s));
    QCOMPARE(h.answer(), u"Begun by the primary, ended by the fallback."_s);
    const QList<RecordedRequest> requests = h.server.requests();
    QCOMPARE(requests.size(), 4); // the turn, the continuation twice, then to the fallback
    QCOMPARE(modelOf(requests.at(3)), u"gpt-fallback"_s);
    QCOMPARE(requests.at(3).messages(), requests.at(1).messages());
    QCOMPARE(h.exchanges().at(3).purpose, ExchangePurpose::Continuation);
    QCOMPARE(h.assistantMessages().size(), 1);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_CutOffFallback)
#include "tst_cutofffallback.moc"
