#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>

namespace Gui {

// The audit trail of the conversation shown (agent/audittrail.h): one row per finished call, in
// the order the calls finished. The inspector's Audit page and the settings' recent decisions
// show it; every text in it came from the model or a rules file and is shown through
// displayText().
class AuditModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        TimeColumn,
        TurnColumn,
        ToolColumn,
        CallColumn,
        WhatRanColumn,
        DecisionColumn,
        DecidedByColumn,
        ReasonColumn,
        ResultColumn,
        DurationColumn,
        ColumnCount
    };

    explicit AuditModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    const QJsonObject &entry(int row) const { return m_entries.at(row); }
    const QList<QJsonObject> &entries() const { return m_entries; }
    void setEntries(const QList<QJsonObject> &entries);
    void append(const QJsonObject &entry);

    // What the call ran, as rules are written against it: a shell call's command, a file call's
    // path, else the arguments as the model sent them.
    static QString subjectOf(const QJsonObject &entry);
    // "Allow", "Allow for this conversation", "Deny", with "(asked)" when the user was asked.
    static QString decisionText(const QJsonObject &entry);
    // The deciding rule as written, "You" or "Default".
    static QString decidedByText(const QJsonObject &entry);

private:
    QString text(const QJsonObject &entry, int column) const;

    QList<QJsonObject> m_entries;
};

} // namespace Gui
