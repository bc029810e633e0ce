#pragma once

#include "context/modelprice.h"
#include "protocol/completion.h"
#include "protocol/exchange.h"
#include "protocol/protocolcheck.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

#include <optional>

namespace Gui {

// One HTTP exchange with the provider, as the inspector shows it: a model request of the
// conversation, or one attempt of it when it was retried.
struct TurnRecord
{
    // NotSent: a protocol rule failed before the request went out (no exchange).
    enum class State { Pending, Answered, Aborted, NotSent };

    int number = 0; // the request number within the conversation, from 1; shared by its attempts
    AgentLoop::Exchange exchange;
    State state = State::Pending;
    QString finishReason;
    std::optional<AgentLoop::Usage> usage;
    // The rules checked before it went out and the repairs since the request before; none for a
    // compaction's summary or a continuation.
    std::optional<AgentLoop::ProtocolReport> protocol;
};

// The inspector's table: one row per HTTP exchange with the provider, in the order they were
// sent. A row appears when the request is sent and is completed by its response. A retried
// request has a row per attempt, all with its number ("1 · attempt 2"); the chat's items name
// the request, and rowOfRequest() finds its last attempt, the one whose answer they show.
class TurnModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        StatusColumn,
        FirstByteColumn, // latency: from sending to the answer's first byte
        DurationColumn,  // total time, to the answer's last byte
        FinishReasonColumn,
        TokensColumn,
        CostColumn,  // from the prices the user entered (hidden while none is)
        ModelColumn, // the model asked (a fallback's once the run went to one)
        ColumnCount
    };
    enum Role { PromptTokensRole = Qt::UserRole + 1, CompletionTokensRole, TotalTokensRole };

    explicit TurnModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    const TurnRecord &record(int row) const { return m_records.at(row); }

    // What the conversation's requests shown here add up to: the inspector's line under the
    // table.
    struct Totals
    {
        int requests = 0;   // distinct request numbers
        int retries = 0;    // attempts after the first
        qint64 modelMs = 0; // time waiting for answers, every attempt
        qint64 promptTokens = 0;
        qint64 completionTokens = 0;
        QHash<QString, double> costs; // by currency
        int unpricedAnswers = 0;      // answers with usage whose model has no price
        bool operator==(const Totals &) const = default;
    };
    Totals totals() const { return m_totals; }
    // "3 requests · 1 retry · 4.2 s waiting · 1,234 tokens in · 56 out · $0.0042"
    QString totalsText() const;

    // Prices by model id; rows show a cost once their usage is known.
    void setPrices(const AgentLoop::ModelPrices &prices);
    bool hasPrices() const { return !m_prices.isEmpty(); }
    // The cost of one row's answer, when its model has a price and it reported usage.
    std::optional<double> costOf(const TurnRecord &record) const;
    // The row of the last attempt of request number, or -1.
    int rowOfRequest(int number) const;

    // Returns the new row's request number: the next one, or for a retry (attempt 2 and up) that
    // of the attempt before.
    int addRequest(const AgentLoop::Exchange &exchange,
                   const std::optional<AgentLoop::ProtocolReport> &protocol = std::nullopt);
    // A request the protocol check stopped: a row of its own that says nothing was sent.
    int addUnsent(const AgentLoop::ProtocolReport &protocol);
    void setResponse(const AgentLoop::Exchange &exchange);
    void setCompletion(const AgentLoop::Completion &completion);
    // The request still waiting for an answer will not get one (the user stopped the run).
    void abortPending();
    void clear();

signals:
    void totalsChanged();
    void pricesChanged();

private:
    bool isRow(const QModelIndex &index) const;
    void changed(int row);
    void updateTotals();

    QList<TurnRecord> m_records;
    AgentLoop::ModelPrices m_prices;
    Totals m_totals;
};

} // namespace Gui
