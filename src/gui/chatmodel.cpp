#include "chatmodel.h"

#include "jsonformat.h"

using namespace Qt::StringLiterals;

namespace Gui {

bool ChatModel::isRow(const QModelIndex &index) const
{
    return index.isValid() && index.model() == this && index.row() < m_items.size();
}

ChatModel::ChatModel(QObject *parent)
    : QAbstractListModel(parent)
{}

int ChatModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant ChatModel::data(const QModelIndex &index, int role) const
{
    if (!isRow(index))
        return {};
    const ChatItem &item = m_items.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole:
        return plainText(item);
    case Qt::AccessibleDescriptionRole:
        return description(item);
    case KindRole:
        return int(item.kind);
    case TextRole:
        return item.text;
    case HintRole:
        return item.hint;
    case ToolNameRole:
        return item.toolName;
    case ToolCallIdRole:
        return item.toolCallId;
    case ArgumentsRole:
        return item.arguments;
    case ErrorCodeRole:
        return item.errorCode;
    case ExitCodeRole:
        return item.exitCode;
    case OkRole:
        return item.ok;
    case DurationRole:
        return item.durationMs;
    case TurnRole:
        return item.turn;
    case CollapsedRole:
        return item.collapsed;
    case CollapsibleRole:
        if (item.kind == ChatItem::AssistantText)
            return !item.reasoning.isEmpty();
        return (item.kind == ChatItem::ToolResult || item.kind == ChatItem::Denial)
               && item.lineCount > collapsedLineCount;
    case LineCountRole:
        return item.lineCount;
    case ItemIdRole:
        return item.id;
    case ReasoningRole:
        return item.reasoning;
    case StreamRole:
        return int(item.stream);
    case OutputFilePathRole:
        return item.outputFile.path;
    case OutputFileBytesRole:
        return item.outputFile.bytes;
    case OutputFileCompleteRole:
        return item.outputFile.complete;
    default:
        return {};
    }
}

bool ChatModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != CollapsedRole || !isRow(index))
        return false;
    ChatItem &item = m_items[index.row()];
    if (item.collapsed == value.toBool())
        return true;
    item.collapsed = value.toBool();
    emit dataChanged(index, index, {CollapsedRole});
    return true;
}

Qt::ItemFlags ChatModel::flags(const QModelIndex &index) const
{
    if (!isRow(index))
        return Qt::NoItemFlags;
    // "Editable" opens a read-only text view on double-click, for selecting part of a message.
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (m_items.at(index.row()).kind != ChatItem::Notice)
        flags |= Qt::ItemIsEditable;
    return flags;
}

QHash<int, QByteArray> ChatModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(KindRole, "kind");
    names.insert(TextRole, "text");
    names.insert(HintRole, "hint");
    names.insert(ToolNameRole, "toolName");
    names.insert(ToolCallIdRole, "toolCallId");
    names.insert(ArgumentsRole, "arguments");
    names.insert(ErrorCodeRole, "errorCode");
    names.insert(ExitCodeRole, "exitCode");
    names.insert(OkRole, "ok");
    names.insert(DurationRole, "durationMs");
    names.insert(TurnRole, "turn");
    names.insert(CollapsedRole, "collapsed");
    names.insert(CollapsibleRole, "collapsible");
    names.insert(LineCountRole, "lineCount");
    names.insert(ItemIdRole, "itemId");
    names.insert(ReasoningRole, "reasoning");
    names.insert(StreamRole, "stream");
    names.insert(OutputFilePathRole, "outputFilePath");
    names.insert(OutputFileBytesRole, "outputFileBytes");
    names.insert(OutputFileCompleteRole, "outputFileComplete");
    return names;
}

int ChatModel::append(ChatItem item)
{
    const int row = int(m_items.size());
    item.id = m_nextId++;
    item.lineCount = lineCount(item.text);
    beginInsertRows({}, row, row);
    if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
        m_toolCallRows.insert(item.toolCallId, row);
    m_items.append(std::move(item));
    endInsertRows();
    return row;
}

void ChatModel::append(QList<ChatItem> items)
{
    if (items.isEmpty())
        return;
    const int first = int(m_items.size());
    beginInsertRows({}, first, first + int(items.size()) - 1);
    m_items.reserve(m_items.size() + items.size());
    for (ChatItem &item : items) {
        item.id = m_nextId++;
        item.lineCount = lineCount(item.text);
        if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
            m_toolCallRows.insert(item.toolCallId, int(m_items.size()));
        m_items.append(std::move(item));
    }
    endInsertRows();
}

void ChatModel::clear()
{
    if (m_items.isEmpty())
        return;
    beginResetModel();
    m_items.clear();
    m_toolCallRows.clear();
    endResetModel();
}

void ChatModel::appendText(int row, const QString &text, const QString &reasoning)
{
    if (row < 0 || row >= m_items.size() || (text.isEmpty() && reasoning.isEmpty()))
        return;
    ChatItem &item = m_items[row];
    item.text += text;
    item.reasoning += reasoning;
    if (!text.isEmpty())
        item.lineCount = lineCount(item.text);
    const QModelIndex changed = index(row, 0);
    emit dataChanged(changed,
                     changed,
                     {Qt::DisplayRole,
                      Qt::AccessibleTextRole,
                      TextRole,
                      ReasoningRole,
                      LineCountRole,
                      CollapsibleRole});
}

void ChatModel::replace(int row, ChatItem item)
{
    if (row < 0 || row >= m_items.size())
        return;
    ChatItem &old = m_items[row];
    if (old.kind == ChatItem::ToolCall)
        m_toolCallRows.remove(old.toolCallId);
    item.id = old.id;
    item.collapsed = old.collapsed;
    item.lineCount = lineCount(item.text);
    if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
        m_toolCallRows.insert(item.toolCallId, row);
    old = std::move(item);
    const QModelIndex changed = index(row, 0);
    emit dataChanged(changed, changed);
}

void ChatModel::setStream(int row, ChatItem::Stream stream)
{
    if (row < 0 || row >= m_items.size() || m_items.at(row).stream == stream)
        return;
    m_items[row].stream = stream;
    const QModelIndex changed = index(row, 0);
    emit dataChanged(changed, changed, {StreamRole, Qt::AccessibleDescriptionRole});
}

void ChatModel::removeLast()
{
    if (m_items.isEmpty())
        return;
    const int row = int(m_items.size()) - 1;
    beginRemoveRows({}, row, row);
    if (m_items.last().kind == ChatItem::ToolCall)
        m_toolCallRows.remove(m_items.last().toolCallId);
    m_items.removeLast();
    endRemoveRows();
}

void ChatModel::toggleCollapsed(const QModelIndex &index)
{
    if (index.isValid())
        setData(index, !index.data(CollapsedRole).toBool(), CollapsedRole);
}

int ChatModel::toolCallRow(const QString &toolCallId) const
{
    return m_toolCallRows.value(toolCallId, -1);
}

QString ChatModel::plainText(const ChatItem &item)
{
    switch (item.kind) {
    case ChatItem::ToolCall:
        return item.toolName + u'\n' + prettyJson(item.arguments);
    case ChatItem::ErrorMessage:
        return item.hint.isEmpty() ? item.text : item.text + u'\n' + item.hint;
    case ChatItem::UserPrompt:
    case ChatItem::AssistantText:
    case ChatItem::ToolResult:
    case ChatItem::Denial:
    case ChatItem::Notice:
        break;
    }
    return item.text;
}

QString ChatModel::description(const ChatItem &item)
{
    switch (item.kind) {
    case ChatItem::UserPrompt:
        return tr("Your prompt");
    case ChatItem::AssistantText:
        switch (item.stream) {
        case ChatItem::Stream::Live:
            return tr("Assistant, answering");
        case ChatItem::Stream::Incomplete:
            return tr("Assistant, incomplete answer");
        case ChatItem::Stream::Complete:
            break;
        }
        return tr("Assistant");
    case ChatItem::ToolCall:
        return tr("Tool call: %1").arg(item.toolName);
    case ChatItem::ToolResult:
        if (item.exitCode >= 0)
            return tr("Result of %1, exit code %2").arg(item.toolName).arg(item.exitCode);
        return item.ok ? tr("Result of %1").arg(item.toolName)
                       : tr("Result of %1: %2").arg(item.toolName, item.errorCode);
    case ChatItem::Denial:
        return tr("Denied: %1 did not run").arg(item.toolName);
    case ChatItem::ErrorMessage:
        return tr("Error");
    case ChatItem::Notice:
        break;
    }
    return tr("Notice");
}

int ChatModel::lineCount(const QString &text)
{
    if (text.isEmpty())
        return 0;
    qsizetype lines = text.count(u'\n') + 1;
    if (text.endsWith(u'\n'))
        --lines;
    return int(lines);
}

} // namespace Gui
