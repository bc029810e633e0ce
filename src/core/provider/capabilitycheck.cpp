#include "provider/capabilitycheck.h"

#include "base/displaytext.h"
#include "base/redaction.h"
#include "protocol/completion.h"
#include "protocol/history.h"
#include "protocol/requestbody.h"
#include "protocol/sseparser.h"
#include "provider/chatclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace AgentLoop {

namespace {

// A check answers within seconds or not at all: the profile's own patience (minutes, retries)
// would leave the user looking at a spinner.
constexpr std::chrono::milliseconds checkRequestTimeout = 30s;
// A reasoning model streams its thinking before it calls the tool: room for that, but bounded.
constexpr std::chrono::milliseconds checkAnswerTime = 60s;
constexpr qsizetype maxDetailLength = 600;
constexpr qsizetype maxListedModelsInDetail = 20;

const QString testToolName = u"report_ready"_s;

// Written for the model, not for the user: not translated (models follow English best).
const QString testPrompt = u"Call the tool report_ready now, with ready set to true. Do not "
                           "answer in text."_s;

QJsonArray testToolDefinitions()
{
    const QJsonObject parameters{
            {u"type"_s, u"object"_s},
            {u"properties"_s,
             QJsonObject{{u"ready"_s,
                          QJsonObject{{u"type"_s, u"boolean"_s},
                                      {u"description"_s, u"Always true."_s}}}}},
            {u"required"_s, QJsonArray{u"ready"_s}},
            {u"additionalProperties"_s, false},
    };
    return QJsonArray{QJsonObject{
            {u"type"_s, u"function"_s},
            {u"function"_s,
             QJsonObject{{u"name"_s, testToolName},
                         {u"description"_s, u"Report that you are ready."_s},
                         {u"parameters"_s, parameters}}},
    }};
}

// Which field of the raw answer carried reasoning: `reasoning_content` (DeepSeek, Qwen, Kimi) or
// `reasoning` (Groq, OpenRouter, vLLM); empty when neither did. Read from the bytes received, as
// the assembled message keeps reasoning under one name whichever field it came in.
QString reasoningFieldIn(const QJsonObject &messageOrDelta)
{
    for (const QString &field : {u"reasoning_content"_s, u"reasoning"_s}) {
        const QJsonValue value = messageOrDelta.value(field);
        if (value.isString() && !value.toString().isEmpty())
            return field;
    }
    return {};
}

QString reasoningFieldOf(const Exchange &exchange)
{
    const auto inChoices = [](const QJsonObject &root, const QString &part) {
        for (const QJsonValue &choice : root.value(u"choices"_s).toArray()) {
            if (QString field = reasoningFieldIn(choice.toObject().value(part).toObject());
                !field.isEmpty())
                return field;
        }
        return QString();
    };
    if (!exchange.streamed)
        return inChoices(QJsonDocument::fromJson(exchange.responseBody).object(), u"message"_s);

    QString found;
    const SseParser::EventHandler onEvent = [&](const SseEventView &event) {
        if (!found.isEmpty() || event.data == "[DONE]")
            return;
        found = inChoices(QJsonDocument::fromJson(event.data.toByteArray()).object(), u"delta"_s);
    };
    SseParser parser;
    static_cast<void>(parser.feed(exchange.responseBody, onEvent));
    static_cast<void>(parser.finish(onEvent));
    return found;
}

bool isModelListed(const QStringList &ids, const QString &model)
{
    // Gemini's OpenAI-compatible list names its models "models/gemini-2.0-flash".
    return ids.contains(model) || ids.contains(u"models/"_s + model);
}

bool isKeyRefusal(int status)
{
    return status == 401 || status == 403;
}

} // namespace

const CapabilityFinding *CapabilityReport::finding(CapabilityFinding::Capability capability) const
{
    for (const CapabilityFinding &f : findings) {
        if (f.capability == capability)
            return &f;
    }
    return nullptr;
}

CapabilityCheck::CapabilityCheck(QObject *parent)
    : QObject(parent)
    , m_client(new ChatClient(this))
{
    connect(m_client, &ChatClient::modelsListed, this, &CapabilityCheck::onModelsListed);
    connect(m_client, &ChatClient::modelsFailed, this, &CapabilityCheck::onModelsFailed);
    connect(m_client, &ChatClient::completed, this, &CapabilityCheck::onCompleted);
    connect(m_client, &ChatClient::failed, this, &CapabilityCheck::onFailed);
    connect(m_client, &ChatClient::providerAdjusted, this, &CapabilityCheck::onAdjusted);
    connect(m_client, &ChatClient::responseReceived, this, [this](const Exchange &exchange) {
        m_lastExchange = exchange;
    });
}

CapabilityCheck::~CapabilityCheck()
{
    // The client is destroyed after this object's members: nothing it does on the way may reach
    // them.
    m_client->abort();
    m_client->disconnect(this);
}

void CapabilityCheck::start(const ProviderSettings &settings)
{
    cancel();
    m_settings = settings;
    m_settings.requestTimeout = std::min(settings.requestTimeout, checkRequestTimeout);
    m_settings.maxAnswerTime = std::min(settings.maxAnswerTime, checkAnswerTime);
    m_settings.retry.maxRetries = 0;
    m_report = CapabilityReport{};
    m_lastExchange = Exchange{};
    m_streamFailure.reset();
    m_streamingRefused = false;
    m_client->setSettings(m_settings);

    m_step = Step::Models;
    m_client->listModels();
    // After the request is on its way, so that a receiver may cancel() from here.
    emit progress(tr("Listing models…"));
}

void CapabilityCheck::cancel()
{
    m_client->abort();
    m_step = Step::Idle;
}

bool CapabilityCheck::isRunning() const
{
    return m_step != Step::Idle;
}

void CapabilityCheck::onModelsListed(const QStringList &ids)
{
    if (m_step != Step::Models)
        return;
    setFinding(CapabilityFinding::Reachable, CapabilityFinding::Yes, tr("Reachable: yes"));
    setFinding(CapabilityFinding::KeyAccepted, CapabilityFinding::Yes, tr("Key accepted: yes"));
    m_report.models = ids;
    if (isModelListed(ids, m_settings.model)) {
        setFinding(CapabilityFinding::ModelExists, CapabilityFinding::Yes, tr("Model exists: yes"));
    } else if (ids.isEmpty()) {
        setFinding(CapabilityFinding::ModelExists,
                   CapabilityFinding::No,
                   tr("Model exists: no — the provider lists no models"));
    } else {
        QStringList some = ids.mid(0, maxListedModelsInDetail);
        if (ids.size() > some.size())
            some.append(u"…"_s);
        setFinding(CapabilityFinding::ModelExists,
                   CapabilityFinding::No,
                   // Two sources rather than %n: English has no catalogue to pick a plural from.
                   (ids.size() == 1 ? tr("Model exists: no — %1 is not the one model listed")
                                              .arg(displayedLine(m_settings.model, 80))
                                    : tr("Model exists: no — %1 is not among the %2 models listed")
                                              .arg(displayedLine(m_settings.model, 80))
                                              .arg(ids.size())),
                   shown(tr("Listed: %1").arg(some.join(u", "_s))));
    }
    sendToolRequest(m_settings.stream);
}

void CapabilityCheck::onModelsFailed(const Error &error)
{
    if (m_step != Step::Models)
        return;
    if (error.kind == Error::Network || error.kind == Error::Timeout) {
        setFinding(CapabilityFinding::Reachable,
                   CapabilityFinding::No,
                   tr("Reachable: no"),
                   shown(error.toString()));
        finish(error);
        return;
    }
    setFinding(CapabilityFinding::Reachable, CapabilityFinding::Yes, tr("Reachable: yes"));
    if (isKeyRefusal(error.httpStatus)) {
        setFinding(CapabilityFinding::KeyAccepted,
                   CapabilityFinding::No,
                   tr("Key accepted: no (HTTP %1)").arg(error.httpStatus),
                   shown(error.providerMessage.isEmpty() ? error.toString()
                                                         : error.providerMessage));
        finish(error);
        return;
    }
    // Azure deployments and some gateways have no model list (404), or answer something else
    // there: whether the key and the model work, the test request shows.
    setFinding(CapabilityFinding::ModelExists,
               CapabilityFinding::Unknown,
               error.httpStatus == 404
                       ? tr("Model exists: unknown — the provider has no model list")
                       : tr("Model exists: unknown — the model list could not be read"),
               shown(error.message));
    sendToolRequest(m_settings.stream);
}

void CapabilityCheck::sendToolRequest(bool stream)
{
    // The first request streams as the profile says; only a second one is the retry.
    m_step = m_streamFailure ? Step::WithoutStreaming : Step::ToolRequest;
    History history;
    history.append(Message::user(testPrompt));
    // The client's settings, not the check's: they keep what the provider refused so far.
    ProviderSettings settings = m_client->settings();
    settings.stream = stream;
    m_lastExchange = Exchange{};
    m_client->postChatCompletion(1, chatRequestBody(settings, history, testToolDefinitions()));
    emit progress(m_step == Step::ToolRequest ? tr("Sending a test request with one tool…")
                                              : tr("Trying again without streaming…"));
}

void CapabilityCheck::onAdjusted(const ProviderAdjustment &adjustment)
{
    if (m_step == Step::Idle)
        return;
    switch (adjustment.change) {
    case ProviderAdjustment::StreamUsageOff:
        m_report.suggestedStreamUsage = false;
        break;
    case ProviderAdjustment::StreamingOff:
        m_report.suggestedStream = false;
        m_streamingRefused = true;
        break;
    }
}

void CapabilityCheck::onCompleted(const Completion &completion)
{
    if (m_step != Step::ToolRequest && m_step != Step::WithoutStreaming)
        return;
    setFinding(CapabilityFinding::KeyAccepted, CapabilityFinding::Yes, tr("Key accepted: yes"));

    // Streaming.
    if (m_streamingRefused) {
        setFinding(CapabilityFinding::Streaming,
                   CapabilityFinding::No,
                   tr("Streaming: no — the provider cannot stream with tools"));
    } else if (m_step == Step::WithoutStreaming) {
        m_report.suggestedStream = false;
        setFinding(CapabilityFinding::Streaming,
                   CapabilityFinding::No,
                   tr("Streaming: no — the streamed request failed, the same request without "
                      "streaming worked"),
                   m_streamFailure ? shown(m_streamFailure->message) : QString());
    } else if (!m_settings.stream) {
        setFinding(CapabilityFinding::Streaming,
                   CapabilityFinding::Unknown,
                   tr("Streaming: not tried — the profile asks for whole answers"));
    } else if (m_lastExchange.streamed) {
        setFinding(CapabilityFinding::Streaming, CapabilityFinding::Yes, tr("Streaming: yes"));
    } else {
        setFinding(CapabilityFinding::Streaming,
                   CapabilityFinding::No,
                   tr("Streaming: no — the provider sent one whole answer instead"));
    }

    // Tool calling.
    const QList<ToolCall> &calls = completion.message.toolCalls();
    const auto call = std::find_if(calls.cbegin(), calls.cend(), [](const ToolCall &c) {
        return c.name == testToolName;
    });
    if (call != calls.cend()) {
        setFinding(CapabilityFinding::ToolCalling,
                   CapabilityFinding::Yes,
                   tr("Tool calling: yes"),
                   shown(call->arguments));
    } else if (!calls.isEmpty()) {
        setFinding(CapabilityFinding::ToolCalling,
                   CapabilityFinding::No,
                   tr("Tool calling: no — the model called %1 instead of the test tool")
                           .arg(displayedLine(calls.first().name, 80)));
    } else {
        setFinding(CapabilityFinding::ToolCalling,
                   CapabilityFinding::No,
                   tr("Tool calling: no — the model answered in text instead"),
                   shown(completion.message.content()));
    }

    // Usage reporting.
    if (completion.usage) {
        setFinding(CapabilityFinding::UsageReporting,
                   CapabilityFinding::Yes,
                   tr("Usage reporting: yes"),
                   tr("%1 prompt tokens, %2 completion tokens")
                           .arg(completion.usage->promptTokens)
                           .arg(completion.usage->completionTokens));
    } else if (m_lastExchange.streamed && !m_client->settings().streamUsage) {
        setFinding(CapabilityFinding::UsageReporting,
                   CapabilityFinding::No,
                   tr("Usage reporting: no — not asked for, since the provider refuses "
                      "stream_options"));
    } else {
        setFinding(CapabilityFinding::UsageReporting,
                   CapabilityFinding::No,
                   tr("Usage reporting: no"));
    }

    // Reasoning field.
    m_report.reasoningField = reasoningFieldOf(m_lastExchange);
    if (m_report.reasoningField.isEmpty()) {
        setFinding(CapabilityFinding::ReasoningField,
                   CapabilityFinding::No,
                   tr("Reasoning field: none"));
    } else {
        setFinding(CapabilityFinding::ReasoningField,
                   CapabilityFinding::Yes,
                   tr("Reasoning field: %1").arg(m_report.reasoningField));
    }
    finish();
}

bool CapabilityCheck::shouldTryWithoutStreaming(const Error &error) const
{
    if (m_step != Step::ToolRequest || !m_client->settings().stream)
        return false;
    if (error.kind == Error::Timeout || isKeyRefusal(m_lastExchange.httpStatus))
        return false;
    if (m_lastExchange.streamed) // the stream reported an error, or broke off
        return true;
    // A refusal that names streaming but not in the words the client recognises.
    return m_lastExchange.httpStatus >= 400
           && (error.providerMessage.contains(u"stream"_s, Qt::CaseInsensitive)
               || m_lastExchange.responseBody.toLower().contains("stream"));
}

void CapabilityCheck::onFailed(const Error &error)
{
    if (m_step != Step::ToolRequest && m_step != Step::WithoutStreaming)
        return;
    if (shouldTryWithoutStreaming(error)) {
        m_streamFailure = error;
        sendToolRequest(false);
        return;
    }
    // Without streaming it failed as well: streaming was not the problem, so the streamed
    // request's failure is the one to report (the profile's own request).
    const Error reported = m_step == Step::WithoutStreaming && m_streamFailure ? *m_streamFailure
                                                                               : error;
    QString detail = reported.toString();
    if (m_step == Step::WithoutStreaming && m_streamFailure)
        detail += u'\n' + tr("Without streaming: %1").arg(error.message);

    const int status = m_lastExchange.httpStatus > 0 ? m_lastExchange.httpStatus
                                                     : reported.httpStatus;
    if (isKeyRefusal(status)) {
        setFinding(CapabilityFinding::KeyAccepted,
                   CapabilityFinding::No,
                   tr("Key accepted: no (HTTP %1)").arg(status),
                   shown(reported.providerMessage.isEmpty() ? detail : reported.providerMessage));
        finish(reported);
        return;
    }
    if (status > 0) {
        // The provider read the request: the key got past its door.
        setFinding(CapabilityFinding::KeyAccepted, CapabilityFinding::Yes, tr("Key accepted: yes"));
    }
    if (reported.kind == Error::Http && status >= 400) {
        const bool aboutTools = reported.providerMessage.contains(u"tool"_s, Qt::CaseInsensitive);
        setFinding(CapabilityFinding::ToolCalling,
                   CapabilityFinding::No,
                   aboutTools
                           ? tr("Tool calling: no — the provider refused the request with a "
                                "tool (HTTP %1)")
                                     .arg(status)
                           : tr("Tool calling: no — the test request failed (HTTP %1)").arg(status),
                   shown(detail));
    } else if (reported.kind == Error::Network || reported.kind == Error::Timeout) {
        setFinding(CapabilityFinding::ToolCalling,
                   CapabilityFinding::Unknown,
                   tr("Tool calling: unknown — the test request got no complete answer"),
                   shown(detail));
    } else {
        setFinding(CapabilityFinding::ToolCalling,
                   CapabilityFinding::No,
                   tr("Tool calling: no — the answer to the test request could not be read"),
                   shown(detail));
    }
    finish(reported);
}

void CapabilityCheck::setFinding(CapabilityFinding::Capability capability,
                                 CapabilityFinding::Outcome outcome,
                                 const QString &summary,
                                 const QString &detail)
{
    const CapabilityFinding finding{capability, outcome, summary, detail};
    auto &findings = m_report.findings;
    const auto at = std::find_if(findings.begin(), findings.end(), [&](const CapabilityFinding &f) {
        return f.capability >= capability;
    });
    if (at != findings.end() && at->capability == capability)
        *at = finding;
    else
        findings.insert(at, finding);
}

CapabilityFinding::Outcome CapabilityCheck::outcomeOf(CapabilityFinding::Capability capability) const
{
    const CapabilityFinding *finding = m_report.finding(capability);
    return finding ? finding->outcome : CapabilityFinding::Unknown;
}

QString CapabilityCheck::shown(const QString &text) const
{
    return displayed(redacted(text, m_settings.apiKey),
                     DisplayOptions{.keepLineFeeds = true,
                                    .keepTabs = false,
                                    .markLookAlikes = false,
                                    .maxLength = maxDetailLength});
}

void CapabilityCheck::finish(const std::optional<Error> &error)
{
    m_step = Step::Idle;
    if (error) {
        Error masked = *error;
        masked.message = redacted(masked.message, m_settings.apiKey);
        masked.hint = redacted(masked.hint, m_settings.apiKey);
        masked.providerMessage = redacted(masked.providerMessage, m_settings.apiKey);
        m_report.error = masked;
    }
    m_report.ok = outcomeOf(CapabilityFinding::Reachable) == CapabilityFinding::Yes
                  && outcomeOf(CapabilityFinding::KeyAccepted) == CapabilityFinding::Yes
                  && outcomeOf(CapabilityFinding::ToolCalling) == CapabilityFinding::Yes;
    // A copy: a receiver may start() the next check, which starts a new report.
    const CapabilityReport report = m_report;
    emit finished(report);
}

} // namespace AgentLoop
