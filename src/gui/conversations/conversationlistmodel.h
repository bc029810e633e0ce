#pragma once

#include "storage/conversationstore.h"

#include <QAbstractListModel>
#include <QList>

namespace Gui {

// The saved conversations, one row each: the title (editable: renaming) and the date of the last
// change. The order is the store's (newest first); a view sorts and filters through a proxy.
class ConversationListModel final : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        TitleRole,
        UpdatedRole, // QDateTime
        CurrentRole, // bool: the conversation open in the window
    };
    Q_ENUM(Role)

    explicit ConversationListModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // Qt::EditRole: asks for a rename (titleEdited); the title changes once the store has it.
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setConversations(const QList<AgentLoop::ConversationHeader> &conversations);
    // A new conversation goes first.
    void prepend(const AgentLoop::ConversationHeader &header);
    void remove(const QString &id);
    void setTitle(const QString &id, const QString &title);
    // A line was saved: the conversation moves on, with this many messages in a file this large.
    void setSaved(const QString &id, const QDateTime &updated, int messageCount, qint64 sizeBytes);
    void setCurrentId(const QString &id);
    const QString &currentId() const { return m_currentId; }

    // The row of that conversation, or -1.
    int rowOf(const QString &id) const;
    const AgentLoop::ConversationHeader &header(int row) const { return m_items.at(row); }

    // "14:05" today, "Yesterday", then the locale's short date.
    static QString displayDate(const QDateTime &when, const QDateTime &now);

signals:
    void titleEdited(const QString &id, const QString &title);

private:
    bool isRow(const QModelIndex &index) const;

    QList<AgentLoop::ConversationHeader> m_items;
    QString m_currentId;
};

} // namespace Gui
