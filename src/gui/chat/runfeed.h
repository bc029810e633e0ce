#pragma once

#include "agent/agentsession.h"
#include "base/result.h"
#include "chat/chatmodel.h"

#include <QHash>
#include <QObject>
#include <QTimer>

namespace AgentLoop {
class RunTimeline;
}

namespace Gui {

class AuditModel;
class LiveAnswer;
class TurnModel;

// The chat items one message of the history shows, the same for a live run and a saved
// conversation: a prompt; an answer's text and reasoning (none when it has neither), then one
// item per tool call; a tool message's result (named after its call in toolNames). System
// messages show nothing. turn is the inspector's request number the items belong to (0: none).
QList<ChatItem> chatItemsFor(const AgentLoop::Message &message,
                             int turn = 0,
                             const QHash<QString, QString> &toolNames = {});

// The divider where a compaction took effect: how many messages of history its request no longer
// sends as they are (summarised, or a tool output replaced by a stub), and, folded under it, those
// messages as they were.
ChatItem compactionItemFor(const AgentLoop::History &history,
                           const AgentLoop::Compaction &compaction);

// The conversation as the window shows it, kept apart from any widget: the chat items, the
// streamed answer as it grows, the inspector's list of requests and the audit trail, fed from the
// session's signals for a live run and from the history (and the session's audit trail) for a
// saved conversation.
class RunFeed final : public QObject
{
    Q_OBJECT
public:
    explicit RunFeed(AgentLoop::AgentSession &session, QObject *parent = nullptr);

    ChatModel *chatModel() const { return m_chatModel; }
    TurnModel *turnModel() const { return m_turnModel; }
    AuditModel *auditModel() const { return m_auditModel; }
    // What the runs of this conversation spent their time on, for the Timeline.
    AgentLoop::RunTimeline *timeline() const { return m_timeline; }
    LiveAnswer *liveAnswer() const { return m_liveAnswer; }
    // The inspector row of the request in flight or last answered; 0 before the first.
    int currentRequest() const { return m_currentRequest; }

    // Continues a saved conversation (not while a run goes on) without blocking the window: it
    // is read on another thread, then shown from its end (its last entries, what was repaired in
    // it, why new messages will not be saved if they will not), and the earlier entries arrive
    // above in small batches; conversationShown() says when all are there. opened() or
    // openFailed() follows; a later open or a new conversation supersedes one still being read.
    void openConversation(const QString &id);
    // The id of the conversation being read, or empty.
    const QString &openingId() const { return m_openingId; }
    // Whether earlier entries of the conversation shown are still to arrive.
    bool isShowingEarlierEntries() const { return m_earlierTimer.isActive(); }

    // A reopened conversation shows this many entries (messages and dividers) at once.
    static constexpr qsizetype lastScreenEntries = 40;
    // Starts a new conversation: at once when idle; else the run is stopped, and the
    // conversation cleared when it has (a killed command ends asynchronously). cleared() follows.
    void newConversation();

signals:
    // The feed shows an empty conversation, or is about to show a saved one.
    void cleared();
    // The conversation is the session's, its last entries are shown.
    void opened(const AgentLoop::ConversationHeader &header);
    void openFailed(const QString &id, const AgentLoop::Error &error);
    // Every entry of the opened conversation is in the chat model.
    void conversationShown();

private:
    // The end of a conversation being read, shown until it is (in place of the one before, which
    // comes back if it cannot be opened).
    struct Preview
    {
        QList<ChatItem> shownBefore;
        QList<AgentLoop::Message> messages;
    };
    enum ChatRows { ClearChat, KeepChat };
    void clear(ChatRows rows = ClearChat);
    void whenIdle();
    void showPreview(const AgentLoop::ConversationTail &tail);
    void showConversation(const AgentLoop::ContinuedConversation &continued,
                          const std::optional<Preview> &preview = std::nullopt);
    bool showsAsPreviewed(const Preview &preview) const;
    QList<ChatItem> itemsOfEntries(qsizetype from);
    void showEarlierEntries();
    void forgetEarlierDivider(const QString &compactionId);
    void showMessage(const AgentLoop::Message &message);
    void showError(const QString &text, const QString &hint, int turn);
    void showNotice(const QString &text);

    AgentLoop::AgentSession &m_session;
    ChatModel *m_chatModel;
    LiveAnswer *m_liveAnswer;
    TurnModel *m_turnModel;
    AuditModel *m_auditModel;
    AgentLoop::RunTimeline *m_timeline;
    int m_currentRequest = 0;
    QHash<QString, int> m_callTurns; // tool_call id -> the request that asked for it
    // The raw bytes of the commands' records the chat keeps ("Show raw output…"), newest last,
    // within rawBytesBudget: an older record beyond it keeps what ran and how it was decoded,
    // and its bytes are dropped (a long session of builds would otherwise keep them all).
    static constexpr qint64 rawBytesBudget = qint64(64) << 20;
    void keepRawBytesWithinBudget(const std::shared_ptr<const AgentLoop::RunRecord> &newest);
    QList<std::shared_ptr<const AgentLoop::RunRecord>> m_rawRecords;
    qint64 m_rawBytes = 0;
    // The protocol check of the turn's request about to go out (and of its retries).
    std::optional<AgentLoop::ProtocolReport> m_pendingProtocol;
    bool m_newConversationPending = false;
    QString m_openingId;
    quint64 m_openGeneration = 0;

    // What of a reopened conversation is still to be shown, above what is.
    struct EarlierEntries
    {
        AgentLoop::History history;
        QList<AgentLoop::Compaction> compactions;
        // In order, those not shown yet: a message's index, or -1 - a compaction's (a divider).
        QList<qsizetype> entries;
        QHash<QString, QString> toolNames; // tool_call id -> its tool, of every call
    };
    static constexpr qint64 earlierBatchBudgetNs = 5'000'000;
    EarlierEntries m_earlier;
    std::optional<Preview> m_preview;
    QTimer m_earlierTimer;
};

} // namespace Gui
