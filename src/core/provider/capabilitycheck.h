#pragma once

#include "base/error.h"
#include "protocol/exchange.h"
#include "protocol/providersettings.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace AgentLoop {

class ChatClient;
struct Completion;
struct ProviderAdjustment;

// What "Test connection" found out about a provider, one line per capability, in plain words.
struct CapabilityFinding
{
    enum Capability {
        Reachable,      // something answered at the base URL
        KeyAccepted,    // no 401/403
        ModelExists,    // the model is in /models (Unknown when the provider has no list)
        Streaming,      // the answer came as Server-Sent Events
        ToolCalling,    // the model called the test tool
        UsageReporting, // `usage` came back (in the last chunk when streaming)
        ReasoningField, // which field carries reasoning: reasoning_content, reasoning, none
    };
    // ReasoningField: Yes names the field in the summary; No means the answer carried no
    // reasoning (as it should for a model that does not reason).
    enum Outcome { Yes, No, Unknown };

    Capability capability = Reachable;
    Outcome outcome = Unknown;
    QString summary; // "Tool calling: yes", ready to show (translated, a whole sentence)
    QString detail;  // the provider's words or what was seen, may be empty (shown escaped)
};

struct CapabilityReport
{
    QList<CapabilityFinding> findings; // in Capability order, each at most once
    QStringList models;                // from /models, sorted; empty when not listed
    // Switches for the profile that would make it work better, when the check found any:
    // stream (false: whole answers, e.g. a server that cannot stream with tools) and streamUsage
    // (false: the provider refuses stream_options).
    std::optional<bool> suggestedStream;
    std::optional<bool> suggestedStreamUsage;
    QString reasoningField;     // "reasoning_content", "reasoning" or empty
    bool ok = false;            // reachable, key accepted and a tool call came back
    std::optional<Error> error; // what stopped the check or failed its request, if anything

    const CapabilityFinding *finding(CapabilityFinding::Capability capability) const;
    bool hasSuggestions() const { return suggestedStream || suggestedStreamUsage; }
};

// Runs the capability check for settings, asynchronously: GET /models, then one tiny streamed
// request with one tool ("Call the tool ... now."), and, when streaming with tools fails, the
// same request without streaming. progress() says what it is doing; finished() comes exactly once
// (not after cancel()).
class CapabilityCheck final : public QObject
{
    Q_OBJECT
public:
    explicit CapabilityCheck(QObject *parent = nullptr);
    ~CapabilityCheck() override;

    void start(const ProviderSettings &settings);
    void cancel();
    bool isRunning() const;

signals:
    void progress(const QString &step);
    void finished(const AgentLoop::CapabilityReport &report);

private:
    enum class Step { Idle, Models, ToolRequest, WithoutStreaming };

    void onModelsListed(const QStringList &ids);
    void onModelsFailed(const Error &error);
    void onCompleted(const Completion &completion);
    void onFailed(const Error &error);
    void onAdjusted(const ProviderAdjustment &adjustment);
    void sendToolRequest(bool stream);
    bool shouldTryWithoutStreaming(const Error &error) const;
    void setFinding(CapabilityFinding::Capability capability,
                    CapabilityFinding::Outcome outcome,
                    const QString &summary,
                    const QString &detail = {});
    CapabilityFinding::Outcome outcomeOf(CapabilityFinding::Capability capability) const;
    // Text from the provider or the model, fit for a detail line: key masked, escaped, bounded.
    QString shown(const QString &text) const;
    void finish(const std::optional<Error> &error = std::nullopt);

    ChatClient *m_client = nullptr;
    Step m_step = Step::Idle;
    ProviderSettings m_settings; // as given to start(), with the check's bounds
    CapabilityReport m_report;
    Exchange m_lastExchange;              // the last response of the request in flight
    std::optional<Error> m_streamFailure; // why the streamed request failed, before the retry
    bool m_streamingRefused = false;      // the client resent without streaming
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::CapabilityReport)
