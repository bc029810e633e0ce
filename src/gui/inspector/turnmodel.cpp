#include "inspector/turnmodel.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QLocale>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// The provider's words in a cell: its finish_reason, a network error, a retry notice that quotes
// it.
constexpr qsizetype shownCellLength = 300;

QString shownCell(const QString &text)
{
    return AgentLoop::displayedLine(text, shownCellLength);
}

QString durationText(qint64 ms)
{
    return ms < 1000 ? TurnModel::tr("%1 ms").arg(ms)
                     : TurnModel::tr("%1 s").arg(QLocale().toString(double(ms) / 1000.0, 'f', 1));
}

} // namespace

bool TurnModel::isRow(const QModelIndex &index) const
{
    return index.isValid() && index.model() == this && index.row() < m_records.size();
}

TurnModel::TurnModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

int TurnModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_records.size());
}

int TurnModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TurnModel::data(const QModelIndex &index, int role) const
{
    if (!isRow(index))
        return {};
    const TurnRecord &record = m_records.at(index.row());
    const AgentLoop::Exchange &exchange = record.exchange;
    switch (role) {
    case PromptTokensRole:
        return record.usage ? QVariant(record.usage->promptTokens) : QVariant();
    case CompletionTokensRole:
        return record.usage ? QVariant(record.usage->completionTokens) : QVariant();
    case TotalTokensRole:
        return record.usage ? QVariant(record.usage->totalTokens) : QVariant();
    case Qt::TextAlignmentRole:
        // Amounts right-aligned; the rest is text ("1 · attempt 2", "429 · Retrying in 2 s").
        return index.column() == DurationColumn || index.column() == TokensColumn
                               || index.column() == FirstByteColumn || index.column() == CostColumn
                       ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == TokensColumn && record.usage)
            return tr("Prompt: %1 tokens\nCompletion: %2 tokens\nTotal: %3 tokens")
                    .arg(record.usage->promptTokens)
                    .arg(record.usage->completionTokens)
                    .arg(record.usage->totalTokens);
        if (index.column() == CostColumn && record.usage) {
            const AgentLoop::ModelPrice price = m_prices.value(exchange.model);
            if (!price.isSet())
                return tr("No price for %1 (Settings › Context)")
                        .arg(AgentLoop::displayedLine(exchange.model, 80));
            return tr("%1 prompt tokens at %2 per million + %3 completion tokens at %4 per "
                      "million")
                    .arg(QLocale().toString(record.usage->promptTokens),
                         AgentLoop::formatCost(price.inputPerMillion, price.currency),
                         QLocale().toString(record.usage->completionTokens),
                         AgentLoop::formatCost(price.outputPerMillion, price.currency));
        }
        if (index.column() == StatusColumn && record.state == TurnRecord::State::NotSent
            && record.protocol && record.protocol->firstFailure())
            return plainToolTip(record.protocol->firstFailure()->detail);
        if (index.column() == StatusColumn) {
            QStringList parts;
            if (!exchange.errorString.isEmpty())
                parts << AgentLoop::displayedLine(exchange.errorString, 2000);
            if (!exchange.retryNotice.isEmpty())
                parts << AgentLoop::displayedLine(exchange.retryNotice, 2000);
            return parts.isEmpty() ? QVariant() : QVariant(plainToolTip(parts.join(u'\n')));
        }
        if (index.column() == NumberColumn && record.state == TurnRecord::State::NotSent)
            return tr("Request %1 was not sent: a protocol rule failed").arg(record.number);
        if (index.column() == NumberColumn)
            return tr("Request %1, attempt %2 (turn %3 of its run), sent %4")
                    .arg(record.number)
                    .arg(exchange.attempt)
                    .arg(exchange.turn)
                    .arg(QLocale().toString(exchange.startedAt.toLocalTime(), QLocale::ShortFormat));
        return {};
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole:
        break;
    default:
        return {};
    }
    const QLocale locale;
    switch (Column(index.column())) {
    case NumberColumn: {
        // Attempts are numbered once there is more than one: a retry, or one that will follow.
        QString number = exchange.attempt > 1 || !exchange.retryNotice.isEmpty()
                                 ? tr("%1 · attempt %2").arg(record.number).arg(exchange.attempt)
                                 : QString::number(record.number);
        if (exchange.purpose == AgentLoop::ExchangePurpose::Compaction)
            number = tr("%1 · compaction").arg(number);
        else if (exchange.purpose == AgentLoop::ExchangePurpose::Continuation)
            number = tr("%1 · continuation").arg(number);
        else if (exchange.attempt <= 1 && exchange.retryNotice.isEmpty())
            return record.number;
        return number;
    }
    case StatusColumn: {
        QString status;
        switch (record.state) {
        case TurnRecord::State::Pending:
            return tr("waiting");
        case TurnRecord::State::Aborted:
            return tr("stopped");
        case TurnRecord::State::NotSent:
            return tr("not sent");
        case TurnRecord::State::Answered:
            status = exchange.httpStatus > 0 ? QString::number(exchange.httpStatus)
                                             : tr("no answer");
            break;
        }
        if (!exchange.retryNotice.isEmpty())
            status += u" · "_s + shownCell(exchange.retryNotice);
        return status;
    }
    case FirstByteColumn:
        if (record.state != TurnRecord::State::Answered || exchange.firstByteMs < 0)
            return QString();
        return durationText(exchange.firstByteMs);
    case DurationColumn:
        if (record.state != TurnRecord::State::Answered)
            return QString();
        return durationText(exchange.durationMs);
    case FinishReasonColumn:
        return shownCell(record.finishReason);
    case TokensColumn:
        if (!record.usage)
            return QString();
        return tr("%1 + %2 = %3")
                .arg(locale.toString(record.usage->promptTokens),
                     locale.toString(record.usage->completionTokens),
                     locale.toString(record.usage->totalTokens));
    case CostColumn: {
        const std::optional<double> cost = costOf(record);
        return cost ? AgentLoop::formatCost(*cost, m_prices.value(exchange.model).currency)
                    : QString();
    }
    case ModelColumn:
        return shownCell(exchange.model);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant TurnModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == TokensColumn)
        return tr("Prompt + completion = total tokens, when the provider reports usage");
    if (role == Qt::ToolTipRole && section == FirstByteColumn)
        return tr("Latency: from sending the request to the first byte of the answer");
    if (role == Qt::ToolTipRole && section == DurationColumn)
        return tr("Total time: from sending the request to the last byte of the answer");
    if (role == Qt::ToolTipRole && section == CostColumn)
        return tr("What the answer's tokens cost at the prices in Settings › Context");
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case NumberColumn:
        //: Column header: the request number
        return tr("#");
    case StatusColumn:
        return tr("HTTP");
    case FirstByteColumn:
        //: Column header: latency to the answer's first byte
        return tr("First byte");
    case DurationColumn:
        return tr("Time");
    case FinishReasonColumn:
        //: Column header: the response's finish_reason (stop, tool_calls, ...)
        return tr("Finish");
    case TokensColumn:
        return tr("Tokens");
    case CostColumn:
        return tr("Cost");
    case ModelColumn:
        //: Column header: the model the request asked for
        return tr("Model");
    case ColumnCount:
        break;
    }
    return {};
}

int TurnModel::rowOfRequest(int number) const
{
    // Numbers never decrease along the rows.
    const auto after = std::upper_bound(m_records.cbegin(),
                                        m_records.cend(),
                                        number,
                                        [](int n, const TurnRecord &r) { return n < r.number; });
    if (after == m_records.cbegin() || std::prev(after)->number != number)
        return -1;
    return int(std::prev(after) - m_records.cbegin());
}

int TurnModel::addRequest(const AgentLoop::Exchange &exchange,
                          const std::optional<AgentLoop::ProtocolReport> &protocol)
{
    const int row = int(m_records.size());
    const int last = m_records.isEmpty() ? 0 : m_records.last().number;
    beginInsertRows({}, row, row);
    TurnRecord record;
    record.number = exchange.attempt > 1 && last > 0 ? last : last + 1;
    record.exchange = exchange;
    record.protocol = protocol;
    m_records.append(record);
    endInsertRows();
    updateTotals();
    return record.number;
}

int TurnModel::addUnsent(const AgentLoop::ProtocolReport &protocol)
{
    const int row = int(m_records.size());
    beginInsertRows({}, row, row);
    TurnRecord record;
    record.number = m_records.isEmpty() ? 1 : m_records.last().number + 1;
    record.state = TurnRecord::State::NotSent;
    record.protocol = protocol;
    m_records.append(record);
    endInsertRows();
    updateTotals();
    return record.number;
}

void TurnModel::setResponse(const AgentLoop::Exchange &exchange)
{
    if (m_records.isEmpty() || m_records.last().state != TurnRecord::State::Pending)
        return;
    TurnRecord &record = m_records.last();
    record.exchange = exchange;
    record.state = TurnRecord::State::Answered;
    changed(int(m_records.size()) - 1);
}

void TurnModel::setCompletion(const AgentLoop::Completion &completion)
{
    if (m_records.isEmpty())
        return;
    TurnRecord &record = m_records.last();
    // What came on the wire, and what it was read as when that differs ("end_turn → stop").
    const QString &sent = completion.providerFinishReason;
    record.finishReason = sent.isEmpty() || sent == completion.finishReason
                                  ? completion.finishReason
                                  : u"%1 → %2"_s.arg(sent, completion.finishReason);
    record.usage = completion.usage;
    changed(int(m_records.size()) - 1);
}

void TurnModel::abortPending()
{
    if (m_records.isEmpty() || m_records.last().state != TurnRecord::State::Pending)
        return;
    m_records.last().state = TurnRecord::State::Aborted;
    changed(int(m_records.size()) - 1);
}

void TurnModel::clear()
{
    if (m_records.isEmpty())
        return;
    beginResetModel();
    m_records.clear();
    endResetModel();
    updateTotals();
}

void TurnModel::changed(int row)
{
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    updateTotals();
}

std::optional<double> TurnModel::costOf(const TurnRecord &record) const
{
    const auto price = m_prices.constFind(record.exchange.model);
    if (!record.usage || price == m_prices.cend() || !price->isSet())
        return std::nullopt;
    return price->costOf(*record.usage);
}

void TurnModel::setPrices(const AgentLoop::ModelPrices &prices)
{
    if (prices == m_prices)
        return;
    m_prices = prices;
    if (!m_records.isEmpty())
        emit dataChanged(index(0, CostColumn), index(int(m_records.size()) - 1, CostColumn));
    emit pricesChanged();
    updateTotals();
}

void TurnModel::updateTotals()
{
    Totals totals;
    int lastNumber = 0;
    for (const TurnRecord &record : std::as_const(m_records)) {
        if (record.state == TurnRecord::State::NotSent) // the protocol check stopped it
            continue;
        if (record.number != lastNumber)
            ++totals.requests;
        else
            ++totals.retries;
        lastNumber = record.number;
        if (record.state == TurnRecord::State::Answered)
            totals.modelMs += record.exchange.durationMs;
        if (!record.usage)
            continue;
        totals.promptTokens += record.usage->promptTokens;
        totals.completionTokens += record.usage->completionTokens;
        if (const std::optional<double> cost = costOf(record))
            totals.costs[m_prices.value(record.exchange.model).currency] += *cost;
        else
            ++totals.unpricedAnswers;
    }
    if (totals == m_totals)
        return;
    m_totals = totals;
    emit totalsChanged();
}

QString TurnModel::totalsText() const
{
    const Totals &totals = m_totals;
    if (totals.requests == 0)
        return tr("No requests yet");
    const QLocale locale;
    // English has no catalogue to pick a plural form from: a source for one, %n for more.
    QStringList parts{totals.requests == 1 ? tr("1 request")
                                           : tr("%n requests", nullptr, totals.requests)};
    if (totals.retries > 0)
        parts << (totals.retries == 1 ? tr("1 retry") : tr("%n retries", nullptr, totals.retries));
    parts << tr("%1 waiting for the model").arg(durationText(totals.modelMs));
    parts << tr("%1 tokens in · %2 out")
                     .arg(locale.toString(totals.promptTokens),
                          locale.toString(totals.completionTokens));
    QStringList currencies = totals.costs.keys();
    currencies.sort();
    for (const QString &currency : std::as_const(currencies)) {
        QString cost = AgentLoop::formatCost(totals.costs.value(currency), currency);
        // Some answers had no price: the figure is a lower bound.
        if (totals.unpricedAnswers > 0)
            cost = tr("≥ %1").arg(cost);
        parts << cost;
    }
    return parts.join(u" · "_s);
}

} // namespace Gui
