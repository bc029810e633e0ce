#include "protocol/history.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSet>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct HistoryText
{
    Q_DECLARE_TR_FUNCTIONS(History)
};

// ["call_1","call_2"], the way the ids appear in the protocol's own JSON.
QString idList(const QStringList &ids)
{
    return QString::fromUtf8(
            QJsonDocument(QJsonArray::fromStringList(ids)).toJson(QJsonDocument::Compact));
}

// Walks the history once and sorts every tool-call id that breaks the pairing rule.
struct PairingReport
{
    QStringList missing;
    QStringList duplicateResults;
    QStringList orphanResults;
    QStringList duplicateCalls;

    explicit PairingReport(const QList<Message> &messages)
    {
        QStringList open; // ids of the current assistant message, in order
        QSet<QString> answered;
        auto closeBlock = [&] {
            for (const QString &id : std::as_const(open)) {
                if (!answered.contains(id))
                    missing.append(id);
            }
            open.clear();
            answered.clear();
        };
        for (const Message &message : messages) {
            if (message.role() == Role::Tool) {
                const QString id = message.toolCallId();
                if (!open.contains(id))
                    orphanResults.append(id);
                else if (answered.contains(id))
                    duplicateResults.append(id);
                else
                    answered.insert(id);
                continue;
            }
            closeBlock();
            for (const ToolCall &call : message.toolCalls()) {
                if (open.contains(call.id))
                    duplicateCalls.append(call.id);
                else
                    open.append(call.id);
            }
        }
        closeBlock();
    }
};

} // namespace

void History::append(const Message &message)
{
    appendSerialised(message, message.toJsonBytes());
}

void History::appendFrom(const History &other, qsizetype index)
{
    const qsizetype start = other.m_jsonStarts.at(index);
    const qsizetype end = index + 1 < other.m_jsonStarts.size()
                                  ? other.m_jsonStarts.at(index + 1) - 1 // before the comma
                                  : other.m_messagesJson.size();
    appendSerialised(other.m_messages.at(index),
                     QByteArrayView(other.m_messagesJson).sliced(start, end - start));
}

void History::appendSerialised(const Message &message, QByteArrayView json)
{
    if (!m_messages.isEmpty())
        m_messagesJson += ',';
    m_jsonStarts.append(m_messagesJson.size());
    m_messagesJson += json;
    m_messages.append(message);
}

QJsonArray History::toJson() const
{
    QJsonArray array;
    for (const Message &message : m_messages)
        array.append(message.toJson());
    return array;
}

Result<History> History::fromJson(const QJsonArray &messages)
{
    History history;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        if (!messages.at(i).isObject()) {
            return Error{Error::Protocol,
                         HistoryText::tr("Message %1 is not a JSON object.").arg(i + 1),
                         {}};
        }
        Result<Message> message = Message::fromJson(messages.at(i).toObject());
        if (!message)
            return message.error();
        history.append(*message);
    }
    return history;
}

Result<void> History::checkPairing() const
{
    const PairingReport report(m_messages);
    QStringList problems;
    if (!report.missing.isEmpty())
        problems << HistoryText::tr("missing tool results for ids: %1").arg(idList(report.missing));
    if (!report.duplicateResults.isEmpty()) {
        problems << HistoryText::tr("duplicate tool results for ids: %1")
                            .arg(idList(report.duplicateResults));
    }
    if (!report.orphanResults.isEmpty()) {
        problems << HistoryText::tr("tool results without a matching tool call for ids: %1")
                            .arg(idList(report.orphanResults));
    }
    if (!report.duplicateCalls.isEmpty()) {
        problems << HistoryText::tr("duplicate tool call ids in one assistant message: %1")
                            .arg(idList(report.duplicateCalls));
    }
    if (problems.isEmpty())
        return {};
    return Error{Error::Contract,
                 problems.join(u"; "_s),
                 HistoryText::tr("Every tool call must be answered by exactly one tool message "
                                 "before the next request; nothing was sent.")};
}

QList<ToolCall> History::unansweredToolCalls() const
{
    qsizetype index = m_messages.size() - 1;
    QSet<QString> answered;
    while (index >= 0 && m_messages.at(index).role() == Role::Tool)
        answered.insert(m_messages.at(index--).toolCallId());
    if (index < 0)
        return {};
    QList<ToolCall> unanswered;
    for (const ToolCall &call : m_messages.at(index).toolCalls()) {
        if (!answered.contains(call.id))
            unanswered.append(call);
    }
    return unanswered;
}

} // namespace AgentLoop
