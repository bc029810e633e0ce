#pragma once

#include "base/result.h"
#include "chat/chatmodel.h"

#include <QHash>
#include <QObject>

namespace AgentLoop {
class AgentSession;
struct Compaction;
struct ContinuedConversation;
class History;
class Message;
} // namespace AgentLoop

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
    LiveAnswer *liveAnswer() const { return m_liveAnswer; }
    // The inspector row of the request in flight or last answered; 0 before the first.
    int currentRequest() const { return m_currentRequest; }

    // Continues a saved conversation (not while a run goes on): its messages in one insertion,
    // then what was repaired in it, then why new messages will not be saved, if they will not.
    AgentLoop::Result<AgentLoop::ContinuedConversation> openConversation(const QString &id);
    // Starts a new conversation: at once when idle; else the run is stopped, and the
    // conversation cleared when it has (a killed command ends asynchronously). cleared() follows.
    void newConversation();

signals:
    // The feed shows an empty conversation, or a saved one from its beginning.
    void cleared();

private:
    void clear();
    void whenIdle();
    void showConversation(const AgentLoop::ContinuedConversation &continued);
    void showMessage(const AgentLoop::Message &message);
    void showError(const QString &text, const QString &hint, int turn);
    void showNotice(const QString &text);

    AgentLoop::AgentSession &m_session;
    ChatModel *m_chatModel;
    LiveAnswer *m_liveAnswer;
    TurnModel *m_turnModel;
    AuditModel *m_auditModel;
    int m_currentRequest = 0;
    QHash<QString, int> m_callTurns; // tool_call id -> the request that asked for it
    bool m_newConversationPending = false;
};

} // namespace Gui
