#pragma once

#include "tools/outputfile.h"
#include "tools/tool.h"

#include <QAbstractListModel>
#include <QHash>
#include <QList>
#include <QString>

#include <memory>

namespace Gui {

// One entry of the chat view, in the user's terms.
struct ChatItem
{
    enum Kind {
        UserPrompt,
        AssistantText, // Markdown
        ToolCall,
        ToolResult,
        Denial,       // the user declined the call; nothing ran
        ErrorMessage, // the run failed: text is what went wrong, hint how to fix it
        Notice,       // a quiet line: "Stopped by the user."
        FileChange,   // a tool changed a file: text is the unified diff, fileChange the file
        // Where a compaction took effect: a divider "N messages compacted" that unfolds to the
        // original messages it covers (reasoning holds them, as shown; text stays empty).
        Compaction,
    };

    // AssistantText only: whether the answer is still arriving, or stopped before it was complete.
    enum class Stream { Complete, Live, Incomplete };

    // The texts are given as they came; the model keeps them as they are shown: through
    // AgentLoop::displayText() (bidi controls, invisible characters and the like as escapes, so
    // that no layout interprets them) and bounded in size. The Copy action and the painting see
    // the same text.
    Kind kind = Notice;
    QString text;      // prompt, Markdown, tool output, error message
    QString reasoning; // AssistantText: the model's reasoning_content, shown folded
    QString hint;      // ErrorMessage: the fix
    QString toolName;
    QString toolCallId; // an identifier, never shown: kept as it came
    QString arguments;  // ToolCall: the arguments text as the model sent it; shown indented
    QString errorCode;  // ToolResult, Denial: "shell_failed", "denied", "cancelled", ...
    int exitCode = -1;  // -1 when no process ran
    bool ok = true;
    qint64 durationMs = -1;
    AgentLoop::OutputFile outputFile; // ToolResult: the whole output, when text has only part of it
    // ToolResult of a command that ran: what was launched and its bytes ("Show raw output…").
    std::shared_ptr<const AgentLoop::RunRecord> runRecord;
    // FileChange: the file (its path and encoding as shown; absolutePath as it came, never
    // shown, for opening it) and the counts; the diff itself is text.
    AgentLoop::FileChange fileChange;
    int turn = 0;          // the inspector's request number (from 1) that produced it; 0: none
    bool collapsed = true; // long tool output cut, or an assistant's reasoning folded
    Stream stream = Stream::Complete;
    quint64 id = 0;    // assigned by the model; stable while the item lives
    int lineCount = 0; // lines of text; counted once, by the model
    // Set by the model: how much of text (of arguments, for a ToolCall) and of reasoning is past
    // the bound and not shown, in UTF-8 bytes. The roles and plainText() end such a text with a
    // note that says so.
    qint64 cutBytes = 0;
    qint64 reasoningCutBytes = 0;
    // Compaction: which one (AgentLoop::Compaction::id, never shown) and how many messages of the
    // history its request no longer sends as they are.
    QString compactionId;
    qsizetype compactedMessages = 0;
};

// The conversation as the user sees it. Append-only while a conversation lasts: adding an item
// inserts exactly one row and touches nothing else, so the 10 000th message costs what the
// 10th did. The one exception is the last row while a streamed answer arrives: it grows, is
// replaced by the final message, or (when the answer came to nothing) is taken away. A saved
// conversation may also grow at its top while it is shown from its end (prepend()).
class ChatModel final : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role {
        KindRole = Qt::UserRole + 1,
        TextRole,
        HintRole,
        ToolNameRole,
        ToolCallIdRole,
        ArgumentsRole,
        ErrorCodeRole,
        ExitCodeRole,
        OkRole,
        DurationRole,
        TurnRole,
        CollapsedRole,   // settable
        CollapsibleRole, // the output is longer than collapsedLineCount lines
        LineCountRole,
        ItemIdRole,
        ReasoningRole,
        StreamRole,             // int(ChatItem::Stream)
        OutputFilePathRole,     // empty: no file with the whole output
        OutputFileBytesRole,    // qint64
        OutputFileCompleteRole, // false: stopped at the size cap or by a write error
        FilePathRole,           // FileChange: the path as the user knows it
        FileAbsolutePathRole,   // FileChange: what "Open file" opens
        FileEncodingRole,       // FileChange: "GB18030, CRLF"
        AddedLinesRole,
        RemovedLinesRole,
        NewFileRole,
        CompactionIdRole,
        CompactedMessagesRole, // qsizetype as qint64
    };
    Q_ENUM(Role)

    // Tool output longer than this is shown cut until the user asks for all of it.
    static constexpr int collapsedLineCount = 6;
    // So is a diff longer than this.
    static constexpr int collapsedDiffLineCount = 20;
    // At most this many characters of an item's text are shown (laid out, copied): tool output
    // and arguments, which the inspector has in full; answers, reasoning, prompts and errors.
    static constexpr qsizetype shownToolTextLength = 64 * 1024;
    // (A paragraph without spaces takes a layout time that grows with its square: 0.5 s at
    // 128 K characters, 2.5 s at 256 K.)
    static constexpr qsizetype shownTextLength = 128 * 1024;

    explicit ChatModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Returns the new row.
    int append(ChatItem item);
    // Adds all of them in one insertion: a reopened conversation of 10 000 messages costs the view
    // one layout, not 10 000.
    void append(QList<ChatItem> items);
    // Puts items, in their order, before the first row: a reopened conversation's earlier
    // messages, which arrive after its last screen. Costs what appending them would.
    void prepend(QList<ChatItem> items);
    void clear();
    // Every item as shown, and the way to show them again after clear() (they are not prepared
    // a second time).
    const QList<ChatItem> &items() const { return m_items; }
    void restore(const QList<ChatItem> &items);

    // A streamed answer grows in place: each call changes that one row (one dataChanged).
    void appendText(int row, const QString &text, const QString &reasoning);
    // Puts item in place of the one at row, as the same item to the view (same id, same fold
    // state): the live answer becomes the final message without a flicker.
    void replace(int row, ChatItem item);
    void setStream(int row, ChatItem::Stream stream);
    // Takes the last item away; a live answer that came to nothing.
    void removeLast();
    // Takes the divider of this compaction away (it was undone); false when there is none.
    bool removeCompaction(const QString &compactionId);
    // The row of the divider of this compaction, or -1.
    int compactionRow(const QString &compactionId) const;
    const ChatItem &item(int row) const { return m_items.at(row); }
    void toggleCollapsed(const QModelIndex &index);
    // A divider's label: "12 messages compacted".
    static QString compactionTitle(qsizetype messages);
    // The row of the ToolCall item with this id, or -1.
    int toolCallRow(const QString &toolCallId) const;

    // What "Copy" puts on the clipboard for one item: its text as the user would paste it.
    static QString plainText(const ChatItem &item);
    // The item's text (a ToolCall's arguments) and its reasoning as shown, with the note on what
    // was cut.
    static QString shownBody(const ChatItem &item);
    static QString shownReasoning(const ChatItem &item);
    // Adds more to text as a live answer grows: shown as append() would show all of it.
    static void appendShown(QString &text, qint64 &cutBytes, const QString &more, qsizetype limit);
    // What a screen reader says the item is: "Result of shell, exit code 0".
    static QString description(const ChatItem &item);
    // A FileChange's header: "Edited src/main.cpp" / "Created docs/new.md" (path as shown).
    static QString fileChangeTitle(bool newFile, const QString &path);
    // The lines a collapsible item shows while collapsed.
    static int collapsedLines(const ChatItem &item);
    static int lineCount(const QString &text);

private:
    bool isRow(const QModelIndex &index) const;
    // Puts the item's texts in the form they are shown in; once, as it comes in.
    static void prepare(ChatItem &item);

    QList<ChatItem> m_items;
    // ToolCall rows by call id, counted from the first row there was before any prepend():
    // the row is the value plus m_prepended, so that prepending does not touch them.
    QHash<QString, int> m_toolCallRows;
    int m_prepended = 0;
    quint64 m_nextId = 1;
};

} // namespace Gui
