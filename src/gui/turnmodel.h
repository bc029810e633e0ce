#pragma once

#include "completion.h"
#include "exchange.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>

namespace Gui {

// One model request of the conversation, as the inspector shows it.
struct TurnRecord
{
    enum class State { Pending, Answered, Aborted };

    int number = 0; // the request number within the conversation, from 1
    AgentLoop::Exchange exchange;
    State state = State::Pending;
    QString finishReason;
    std::optional<AgentLoop::Usage> usage;
};

// The inspector's table: one row per HTTP exchange with the provider, in the order they were
// sent. A row appears when the request is sent and is completed by its response.
class TurnModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        StatusColumn,
        DurationColumn,
        FinishReasonColumn,
        TokensColumn,
        ColumnCount
    };
    enum Role { PromptTokensRole = Qt::UserRole + 1, CompletionTokensRole, TotalTokensRole };

    explicit TurnModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    const TurnRecord &record(int row) const { return m_records.at(row); }

    // Returns the new row's request number.
    int addRequest(const AgentLoop::Exchange &exchange);
    void setResponse(const AgentLoop::Exchange &exchange);
    void setCompletion(const AgentLoop::Completion &completion);
    // The request still waiting for an answer will not get one (the user stopped the run).
    void abortPending();
    void clear();

private:
    bool isRow(const QModelIndex &index) const;
    void changed(int row);

    QList<TurnRecord> m_records;
};

} // namespace Gui
