#include "context/tokenledger.h"

#include "context/tokenestimate.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QString ContextBudget::text() const
{
    const QString figure = formatTokenCount(used) + u" / "_s + formatTokenCount(window.tokens);
    return estimated ? u"≈"_s + figure : figure;
}

void TokenLedger::clear()
{
    *this = TokenLedger();
}

void TokenLedger::rebuild(const QList<Message> &requestMessages)
{
    m_prefix.clear();
    m_prefix.reserve(requestMessages.size() + 1);
    m_prefix.append(0);
    for (const Message &message : requestMessages)
        m_prefix.append(m_prefix.last() + estimateMessageTokens(message));
    m_reportedCount = -1;
    m_reportedPrompt = 0;
    m_answerTokens = 0;
}

void TokenLedger::rebuild(const TokenLedger &estimates)
{
    m_prefix = estimates.m_prefix;
    m_reportedCount = -1;
    m_reportedPrompt = 0;
    m_answerTokens = 0;
}

void TokenLedger::append(const Message &message)
{
    // The answer the provider just counted: it goes back in the next request as it was counted,
    // plus the message framing the completion did not include.
    if (m_answerTokens > 0 && m_reportedCount == messageCount()
        && message.role() == Role::Assistant) {
        m_reportedPrompt += m_answerTokens + messageFramingTokens;
        ++m_reportedCount;
    }
    m_answerTokens = 0;
    m_prefix.append(m_prefix.last() + estimateMessageTokens(message));
}

void TokenLedger::setToolDefinitions(const QByteArray &json)
{
    m_toolTokens = estimateTextTokens(QString::fromUtf8(json));
}

void TokenLedger::recordUsage(qsizetype messageCount, const Usage &usage)
{
    if (usage.promptTokens <= 0 || messageCount < 0 || messageCount > this->messageCount())
        return;
    const qint64 estimate = m_prefix.at(messageCount) + m_toolTokens;
    if (estimate > 0)
        m_calibration = double(usage.promptTokens) / double(estimate);
    m_reportedCount = messageCount;
    m_reportedPrompt = usage.promptTokens;
    m_answerTokens = messageCount == this->messageCount()
                             ? qMax<qint64>(usage.completionTokens - usage.reasoningTokens, 0)
                             : 0;
}

qint64 TokenLedger::calibrated(qint64 estimate) const
{
    return qint64(std::llround(estimate * calibration()));
}

qint64 TokenLedger::nextRequestTokens() const
{
    if (m_reportedCount < 0)
        return calibrated(m_prefix.last() + m_toolTokens);
    return m_reportedPrompt + calibrated(m_prefix.last() - m_prefix.at(m_reportedCount));
}

qint64 TokenLedger::tokensOf(qsizetype from, qsizetype to) const
{
    return calibrated(m_prefix.at(to) - m_prefix.at(from));
}

qint64 TokenLedger::tokensOf(const Message &message) const
{
    return calibrated(estimateMessageTokens(message));
}

qint64 TokenLedger::toolDefinitionTokens() const
{
    return calibrated(m_toolTokens);
}

bool TokenLedger::isExact() const
{
    return m_reportedCount >= 0 && m_reportedCount == messageCount();
}

} // namespace AgentLoop
