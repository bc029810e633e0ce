#include "conversations/conversationlistmodel.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QFont>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// A title comes from a model's message or from a file anyone may have written: it is kept as it
// is shown, one line, escaped and bounded.
constexpr qsizetype shownTitleLength = 200;

AgentLoop::ConversationHeader shown(AgentLoop::ConversationHeader header)
{
    header.title = AgentLoop::displayedLine(header.title, shownTitleLength);
    return header;
}

} // namespace

bool ConversationListModel::isRow(const QModelIndex &index) const
{
    return index.isValid() && index.model() == this && !index.parent().isValid()
           && index.row() < m_items.size();
}

ConversationListModel::ConversationListModel(QObject *parent)
    : QAbstractListModel(parent)
{}

int ConversationListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant ConversationListModel::data(const QModelIndex &index, int role) const
{
    if (!isRow(index))
        return {};
    const AgentLoop::ConversationHeader &item = m_items.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
    case TitleRole:
        return item.title;
    case Qt::ToolTipRole:
        return plainToolTip(
                tr("%1\nStarted %2\n%Ln message(s), %3", nullptr, item.messageCount)
                        .arg(item.title,
                             QLocale().toString(item.created.toLocalTime(), QLocale::ShortFormat),
                             QLocale().formattedDataSize(item.sizeBytes)));
    case Qt::AccessibleTextRole:
        return tr("%1, %2").arg(item.title, displayDate(item.updated, QDateTime::currentDateTime()));
    case Qt::FontRole:
        if (item.id == m_currentId) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case IdRole:
        return item.id;
    case UpdatedRole:
        return item.updated;
    case CurrentRole:
        return item.id == m_currentId;
    default:
        return {};
    }
}

bool ConversationListModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !isRow(index))
        return false;
    const QString title = value.toString().simplified();
    if (title.isEmpty() || title == m_items.at(index.row()).title)
        return false;
    emit titleEdited(m_items.at(index.row()).id, title);
    return true;
}

Qt::ItemFlags ConversationListModel::flags(const QModelIndex &index) const
{
    if (!isRow(index))
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

QHash<int, QByteArray> ConversationListModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(IdRole, "conversationId");
    names.insert(TitleRole, "title");
    names.insert(UpdatedRole, "updated");
    names.insert(CurrentRole, "current");
    return names;
}

void ConversationListModel::setConversations(
        const QList<AgentLoop::ConversationHeader> &conversations)
{
    beginResetModel();
    m_items.clear();
    m_items.reserve(conversations.size());
    for (const AgentLoop::ConversationHeader &header : conversations)
        m_items.append(shown(header));
    endResetModel();
}

void ConversationListModel::prepend(const AgentLoop::ConversationHeader &header)
{
    if (rowOf(header.id) >= 0)
        return;
    beginInsertRows({}, 0, 0);
    m_items.prepend(shown(header));
    endInsertRows();
}

void ConversationListModel::remove(const QString &id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_items.removeAt(row);
    endRemoveRows();
}

void ConversationListModel::setTitle(const QString &id, const QString &newTitle)
{
    const int row = rowOf(id);
    const QString title = AgentLoop::displayedLine(newTitle, shownTitleLength);
    if (row < 0 || m_items.at(row).title == title)
        return;
    m_items[row].title = title;
    const QModelIndex changed = index(row);
    emit dataChanged(changed, changed);
}

void ConversationListModel::setSaved(const QString &id,
                                     const QDateTime &updated,
                                     int messageCount,
                                     qint64 sizeBytes)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    AgentLoop::ConversationHeader &item = m_items[row];
    item.updated = updated;
    item.messageCount = messageCount;
    item.sizeBytes = sizeBytes;
    const QModelIndex changed = index(row);
    emit dataChanged(changed, changed, {UpdatedRole, Qt::AccessibleTextRole, Qt::ToolTipRole});
}

void ConversationListModel::setCurrentId(const QString &id)
{
    if (id == m_currentId)
        return;
    const int oldRow = rowOf(m_currentId);
    m_currentId = id;
    for (const int row : {oldRow, rowOf(id)}) {
        if (row >= 0)
            emit dataChanged(index(row), index(row), {CurrentRole, Qt::FontRole});
    }
}

int ConversationListModel::rowOf(const QString &id) const
{
    if (id.isEmpty())
        return -1;
    for (int row = 0; row < m_items.size(); ++row) {
        if (m_items.at(row).id == id)
            return row;
    }
    return -1;
}

QString ConversationListModel::displayDate(const QDateTime &when, const QDateTime &now)
{
    if (!when.isValid())
        return {};
    const QDateTime local = when.toLocalTime();
    const QDate today = now.toLocalTime().date();
    const QLocale locale;
    if (local.date() == today)
        return locale.toString(local.time(), QLocale::ShortFormat);
    if (local.date() == today.addDays(-1))
        return tr("Yesterday");
    return locale.toString(local.date(), QLocale::ShortFormat);
}

} // namespace Gui
