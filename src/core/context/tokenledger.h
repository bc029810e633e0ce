#pragma once

#include "context/contextwindow.h"
#include "protocol/completion.h"
#include "protocol/message.h"

#include <QList>
#include <QMetaType>

namespace AgentLoop {

// The figure a front end shows for the next request: used / window.
struct ContextBudget
{
    qint64 used = 0; // tokens of the next request (messages and tool definitions)
    ContextWindow window;
    bool estimated = true; // "≈": some of `used` is an estimate, not the provider's count
    double fraction() const { return window.tokens > 0 ? double(used) / window.tokens : 0; }
    // "31.2k / 128k", or "≈31.2k / 128k" when estimated.
    QString text() const;
    friend bool operator==(const ContextBudget &, const ContextBudget &) = default;
};

// The token accounting of one request history. Each message is estimated once, when it joins;
// prefix sums make the figure for the next request cost nothing however long the history is.
// Every usage the provider reports calibrates the estimate for this conversation (its prompt
// tokens against what the estimate said of the same messages), so that after the first answer
// the figure is the provider's own count plus the calibrated estimate of what came since. The
// answer that report came with counts as the provider counted it too (its completion tokens,
// less hidden reasoning), when it is the next message to join.
class TokenLedger final
{
public:
    void clear();
    // The history the next request sends changed wholesale (a compaction, an undo, a loaded
    // conversation). The calibration is kept: it belongs to the model, not to the messages.
    void rebuild(const QList<Message> &requestMessages);
    // The same from a ledger that was rebuilt for these very messages (estimated elsewhere, or
    // on another thread); this ledger's calibration stays.
    void rebuild(const TokenLedger &estimates);
    void append(const Message &message);
    // The tool definitions each request carries, as JSON text.
    void setToolDefinitions(const QByteArray &json);
    // The provider counted a request that carried the first messageCount messages, and the answer
    // to it (which joins as message messageCount, if it is the next to join).
    void recordUsage(qsizetype messageCount, const Usage &usage);

    qsizetype messageCount() const { return m_prefix.size() - 1; }
    // Tokens of the next request: the last reported prompt plus the calibrated estimate of what
    // joined after it (or all estimated, before any report).
    qint64 nextRequestTokens() const;
    // Tokens of messages [from, to) and of one message, calibrated.
    qint64 tokensOf(qsizetype from, qsizetype to) const;
    qint64 tokensOf(const Message &message) const;
    qint64 toolDefinitionTokens() const;
    bool isExact() const; // the provider counted every message
    bool isCalibrated() const { return m_calibration.has_value(); }
    double calibration() const { return m_calibration.value_or(1.0); }

private:
    qint64 calibrated(qint64 estimate) const;

    QList<qint64> m_prefix{0}; // m_prefix[i]: the raw estimate of messages [0, i)
    qint64 m_toolTokens = 0;   // raw estimate
    std::optional<double> m_calibration;
    qsizetype m_reportedCount = -1; // messages the provider counted (the last report's)
    qint64 m_reportedPrompt = 0;    // their tokens
    qint64 m_answerTokens = 0;      // of the answer the last report came with, until it joins
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ContextBudget)
