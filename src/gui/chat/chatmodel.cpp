#include "chat/chatmodel.h"

#include "inspector/jsonformat.h"
#include "showntext.h"

#include <QLocale>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

constexpr qsizetype shownNameLength = 200;
constexpr qsizetype shownPathLength = 1000;
constexpr qsizetype shownHintLength = 4096;

qsizetype shownLengthOf(ChatItem::Kind kind)
{
    switch (kind) {
    case ChatItem::ToolCall:
    case ChatItem::ToolResult:
    case ChatItem::Denial:
    case ChatItem::FileChange:
        return ChatModel::shownToolTextLength;
    case ChatItem::UserPrompt:
    case ChatItem::AssistantText:
    case ChatItem::ErrorMessage:
    case ChatItem::Notice:
    case ChatItem::Compaction:
        break;
    }
    return ChatModel::shownTextLength;
}

// Text followed by what says how much of it is not shown.
QString withCutNote(const QString &text, qint64 cutBytes, bool inInspector)
{
    if (cutBytes <= 0)
        return text;
    const QString size = QLocale().formattedDataSize(cutBytes, 1, QLocale::DataSizeSIFormat);
    const QString note = inInspector
                                 ? ChatModel::tr("[%1 more not shown here; the inspector has all "
                                                 "of it]")
                                           .arg(size)
                                 : ChatModel::tr("[%1 more not shown]").arg(size);
    return text.isEmpty() || text.endsWith(u'\n') ? text + note : text + u'\n' + note;
}

void makeShown(QString &text, qint64 &cutBytes, qsizetype limit)
{
    ShownText shown = Gui::shownText(text, limit);
    text = std::move(shown.text);
    cutBytes += shown.cutBytes;
}

} // namespace

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
        return item.kind == ChatItem::ToolCall ? item.text : shownBody(item);
    case HintRole:
        return item.hint;
    case ToolNameRole:
        return item.toolName;
    case ToolCallIdRole:
        return item.toolCallId;
    case ArgumentsRole:
        return item.kind == ChatItem::ToolCall ? shownBody(item) : item.arguments;
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
        if (item.kind == ChatItem::AssistantText || item.kind == ChatItem::Compaction)
            return !item.reasoning.isEmpty();
        return (item.kind == ChatItem::ToolResult || item.kind == ChatItem::Denial
                || item.kind == ChatItem::FileChange)
               && item.lineCount > collapsedLines(item);
    case LineCountRole:
        return item.lineCount;
    case ItemIdRole:
        return item.id;
    case ReasoningRole:
        return shownReasoning(item);
    case StreamRole:
        return int(item.stream);
    case OutputFilePathRole:
        return item.outputFile.path;
    case OutputFileBytesRole:
        return item.outputFile.bytes;
    case OutputFileCompleteRole:
        return item.outputFile.complete;
    case FilePathRole:
        return item.fileChange.path;
    case FileAbsolutePathRole:
        return item.fileChange.absolutePath;
    case FileEncodingRole:
        return item.fileChange.encoding;
    case AddedLinesRole:
        return item.fileChange.addedLines;
    case RemovedLinesRole:
        return item.fileChange.removedLines;
    case NewFileRole:
        return item.fileChange.newFile;
    case CompactionIdRole:
        return item.compactionId;
    case CompactedMessagesRole:
        return qint64(item.compactedMessages);
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
    const ChatItem::Kind kind = m_items.at(index.row()).kind;
    if (kind != ChatItem::Notice && kind != ChatItem::Compaction)
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
    names.insert(FilePathRole, "filePath");
    names.insert(FileAbsolutePathRole, "fileAbsolutePath");
    names.insert(FileEncodingRole, "fileEncoding");
    names.insert(AddedLinesRole, "addedLines");
    names.insert(RemovedLinesRole, "removedLines");
    names.insert(NewFileRole, "newFile");
    names.insert(CompactionIdRole, "compactionId");
    names.insert(CompactedMessagesRole, "compactedMessages");
    return names;
}

void ChatModel::prepare(ChatItem &item)
{
    const qsizetype limit = shownLengthOf(item.kind);
    if (item.kind == ChatItem::ToolCall)
        makeShown(item.arguments, item.cutBytes, limit);
    if (item.kind == ChatItem::FileChange) {
        // The diff is the text (kept once); its last line feed would start an empty line.
        if (item.text.isEmpty())
            item.text = item.fileChange.diff;
        item.fileChange.diff.clear();
        while (item.text.endsWith(u'\n'))
            item.text.chop(1);
        item.fileChange.path = AgentLoop::displayedLine(item.fileChange.path, shownPathLength);
        item.fileChange.encoding = AgentLoop::displayedLine(item.fileChange.encoding,
                                                            shownNameLength);
    }
    makeShown(item.text, item.cutBytes, limit);
    if (item.kind == ChatItem::FileChange && item.fileChange.diffTruncated && item.cutBytes == 0)
        item.text += u'\n' + tr("[The rest of the diff is not shown]");
    makeShown(item.reasoning, item.reasoningCutBytes, shownTextLength);
    qint64 hintCut = 0;
    makeShown(item.hint, hintCut, shownHintLength);
    if (hintCut > 0)
        item.hint += u'\x2026';
    item.toolName = AgentLoop::displayedLine(item.toolName, shownNameLength);
    item.errorCode = AgentLoop::displayedLine(item.errorCode, shownNameLength);
    item.lineCount = lineCount(shownBody(item));
}

int ChatModel::append(ChatItem item)
{
    const int row = int(m_items.size());
    item.id = m_nextId++;
    prepare(item);
    beginInsertRows({}, row, row);
    if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
        m_toolCallRows.insert(item.toolCallId, row - m_prepended);
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
        prepare(item);
        if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
            m_toolCallRows.insert(item.toolCallId, int(m_items.size()) - m_prepended);
        m_items.append(std::move(item));
    }
    endInsertRows();
}

void ChatModel::prepend(QList<ChatItem> items)
{
    if (items.isEmpty())
        return;
    const int count = int(items.size());
    beginInsertRows({}, 0, count - 1);
    m_prepended += count;
    // (No reserve(): QList keeps room at its front as it grows there, and reserving would take it.)
    for (int i = count - 1; i >= 0; --i) {
        ChatItem &item = items[i];
        prepare(item);
        // A later call with the same id (which the model should not send) keeps its row, as
        // it would have had appending.
        if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty()
            && !m_toolCallRows.contains(item.toolCallId))
            m_toolCallRows.insert(item.toolCallId, i - m_prepended);
        m_items.prepend(std::move(item));
    }
    for (int i = 0; i < count; ++i)
        m_items[i].id = m_nextId++;
    endInsertRows();
}

void ChatModel::clear()
{
    if (m_items.isEmpty())
        return;
    beginResetModel();
    m_items.clear();
    m_toolCallRows.clear();
    m_prepended = 0;
    endResetModel();
}

void ChatModel::restore(const QList<ChatItem> &items)
{
    beginResetModel();
    m_items = items;
    m_toolCallRows.clear();
    m_prepended = 0;
    for (qsizetype row = 0; row < m_items.size(); ++row) {
        ChatItem &item = m_items[row];
        item.id = m_nextId++;
        if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
            m_toolCallRows.insert(item.toolCallId, int(row));
    }
    endResetModel();
}

void ChatModel::appendText(int row, const QString &text, const QString &reasoning)
{
    if (row < 0 || row >= m_items.size() || (text.isEmpty() && reasoning.isEmpty()))
        return;
    ChatItem &item = m_items[row];
    appendShown(item.text, item.cutBytes, text, shownLengthOf(item.kind));
    appendShown(item.reasoning, item.reasoningCutBytes, reasoning, shownTextLength);
    if (!text.isEmpty())
        item.lineCount = lineCount(shownBody(item));
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
    prepare(item);
    if (item.kind == ChatItem::ToolCall && !item.toolCallId.isEmpty())
        m_toolCallRows.insert(item.toolCallId, row - m_prepended);
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

int ChatModel::compactionRow(const QString &compactionId) const
{
    // From the end: the divider undone is nearly always the latest.
    for (qsizetype row = m_items.size() - 1; row >= 0; --row) {
        const ChatItem &item = m_items.at(row);
        if (item.kind == ChatItem::Compaction && item.compactionId == compactionId)
            return int(row);
    }
    return -1;
}

bool ChatModel::removeCompaction(const QString &compactionId)
{
    const int row = compactionRow(compactionId);
    if (row < 0)
        return false;
    beginRemoveRows({}, row, row);
    m_items.removeAt(row);
    for (auto it = m_toolCallRows.begin(); it != m_toolCallRows.end(); ++it) {
        if (it.value() + m_prepended > row)
            --it.value();
    }
    endRemoveRows();
    return true;
}

QString ChatModel::compactionTitle(qsizetype messages)
{
    // Two sources rather than %n: English has no catalogue to pick a plural form from.
    return messages == 1 ? tr("1 message compacted")
                         : tr("%1 messages compacted").arg(QLocale().toString(messages));
}

void ChatModel::toggleCollapsed(const QModelIndex &index)
{
    if (index.isValid())
        setData(index, !index.data(CollapsedRole).toBool(), CollapsedRole);
}

int ChatModel::toolCallRow(const QString &toolCallId) const
{
    const auto found = m_toolCallRows.constFind(toolCallId);
    return found == m_toolCallRows.cend() ? -1 : found.value() + m_prepended;
}

QString ChatModel::plainText(const ChatItem &item)
{
    switch (item.kind) {
    case ChatItem::ToolCall:
        return item.toolName + u'\n' + prettyJson(shownBody(item));
    case ChatItem::FileChange: {
        const QLocale locale;
        QString header = fileChangeTitle(item.fileChange.newFile, item.fileChange.path);
        if (!item.fileChange.encoding.isEmpty())
            header += u" ("_s + item.fileChange.encoding + u')';
        header += u" +%1 \u2212%2"_s.arg(locale.toString(item.fileChange.addedLines),
                                         locale.toString(item.fileChange.removedLines));
        return header + u'\n' + shownBody(item);
    }
    case ChatItem::ErrorMessage:
        return item.hint.isEmpty() ? shownBody(item) : shownBody(item) + u'\n' + item.hint;
    case ChatItem::Compaction:
        return compactionTitle(item.compactedMessages) + u'\n' + shownReasoning(item);
    case ChatItem::UserPrompt:
    case ChatItem::AssistantText:
    case ChatItem::ToolResult:
    case ChatItem::Denial:
    case ChatItem::Notice:
        break;
    }
    return shownBody(item);
}

QString ChatModel::shownBody(const ChatItem &item)
{
    return withCutNote(item.kind == ChatItem::ToolCall ? item.arguments : item.text,
                       item.cutBytes,
                       item.turn > 0);
}

QString ChatModel::shownReasoning(const ChatItem &item)
{
    return withCutNote(item.reasoning, item.reasoningCutBytes, item.turn > 0);
}

void ChatModel::appendShown(QString &text, qint64 &cutBytes, const QString &more, qsizetype limit)
{
    if (more.isEmpty())
        return;
    // Once cut, the rest is only counted: a runaway answer costs its size, not its layout.
    if (cutBytes > 0) {
        cutBytes += utf8Length(more);
        return;
    }
    ShownText shown = Gui::shownText(more, limit - text.size());
    text += shown.text;
    cutBytes += shown.cutBytes;
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
    case ChatItem::FileChange: {
        const QLocale locale;
        return tr("%1, %2 added, %3 removed")
                .arg(fileChangeTitle(item.fileChange.newFile, item.fileChange.path),
                     locale.toString(item.fileChange.addedLines),
                     locale.toString(item.fileChange.removedLines));
    }
    case ChatItem::Compaction:
        return item.collapsed ? tr("%1, folded").arg(compactionTitle(item.compactedMessages))
                              : compactionTitle(item.compactedMessages);
    case ChatItem::Notice:
        break;
    }
    return tr("Notice");
}

QString ChatModel::fileChangeTitle(bool newFile, const QString &path)
{
    return newFile ? tr("Created %1").arg(path) : tr("Edited %1").arg(path);
}

int ChatModel::collapsedLines(const ChatItem &item)
{
    return item.kind == ChatItem::FileChange ? collapsedDiffLineCount : collapsedLineCount;
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
