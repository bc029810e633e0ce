#pragma once

#include "base/error.h"
#include "protocol/providersettings.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace AgentLoop {

class ChatClient;

// What "Test connection" found out about a provider, one line per capability, in plain words.
struct CapabilityFinding
{
    enum Capability {
        Reachable,     // something answered at the base URL
        KeyAccepted,   // no 401/403
        ModelExists,   // the model is in /models (Unknown when the provider has no list)
        Streaming,     // the answer came as Server-Sent Events
        ToolCalling,   // the model called the test tool
        UsageReporting,// `usage` came back (in the last chunk when streaming)
        ReasoningField,// which field carries reasoning: reasoning_content, reasoning, none
    };
    enum Outcome { Yes, No, Unknown };

    Capability capability = Reachable;
    Outcome outcome = Unknown;
    QString summary; // "Tool calling: works", ready to show (translated)
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
    QString reasoningField; // "reasoning_content", "reasoning" or empty
    bool ok = false;        // reachable, key accepted and a tool call came back
    std::optional<Error> error; // what stopped the check early, if anything

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

    void start(const ProviderSettings &settings);
    void cancel();
    bool isRunning() const;

signals:
    void progress(const QString &step);
    void finished(const AgentLoop::CapabilityReport &report);

private:
    class Run;
    ChatClient *m_client = nullptr;
    Run *m_run = nullptr;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::CapabilityReport)
