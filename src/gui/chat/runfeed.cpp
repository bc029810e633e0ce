#include "chat/runfeed.h"

#include "agent/agentsession.h"
#include "agent/runtimeline.h"
#include "base/background.h"
#include "chat/liveanswer.h"
#include "inspector/auditmodel.h"
#include "inspector/turnmodel.h"

#include <QElapsedTimer>
#include <QLocale>

#include <algorithm>

#include <limits>

using namespace Qt::StringLiterals;
using AgentLoop::AgentController;
using AgentLoop::Role;

namespace Gui {

QList<ChatItem> chatItemsFor(const AgentLoop::Message &message,
                             int turn,
                             const QHash<QString, QString> &toolNames)
{
    QList<ChatItem> items;
    const auto add = [&items, turn](ChatItem::Kind kind) -> ChatItem & {
        ChatItem &item = items.emplace_back();
        item.kind = kind;
        item.turn = turn;
        return item;
    };
    switch (message.role()) {
    case Role::System:
        break;
    case Role::User:
        add(ChatItem::UserPrompt).text = message.content();
        break;
    case Role::Assistant:
        if (message.hasText() || !message.reasoningContent().isEmpty()) {
            ChatItem &answer = add(ChatItem::AssistantText);
            answer.text = message.hasText() ? message.content() : QString();
            answer.reasoning = message.reasoningContent();
        }
        for (const AgentLoop::ToolCall &call : message.toolCalls()) {
            ChatItem &item = add(ChatItem::ToolCall);
            item.toolName = call.name;
            item.toolCallId = call.id;
            item.arguments = call.arguments;
        }
        break;
    case Role::Tool: {
        ChatItem &item = add(ChatItem::ToolResult);
        item.text = message.content();
        item.toolCallId = message.toolCallId();
        item.toolName = toolNames.value(item.toolCallId);
        break;
    }
    }
    return items;
}

namespace {

// Of one original message under a divider: enough to recognise it (the inspector and the
// conversation file have all of it).
constexpr qsizetype compactedEntryLength = 1500;
// The divider's whole text; ChatModel bounds it again as it bounds every text.
constexpr qsizetype compactedTextLength = 64 * 1024;

QString cut(const QString &text)
{
    if (text.size() <= compactedEntryLength)
        return text;
    return text.left(compactedEntryLength) + u" …"_s;
}

} // namespace

ChatItem compactionItemFor(const AgentLoop::History &history,
                           const AgentLoop::Compaction &compaction)
{
    const QList<AgentLoop::Message> &messages = history.messages();
    QHash<qsizetype, const AgentLoop::OutputStub *> stubs;
    for (const AgentLoop::OutputStub &stub : compaction.stubs)
        stubs.insert(stub.messageIndex, &stub);
    QHash<QString, QString> toolNames;
    QStringList entries;
    qsizetype covered = 0;
    qsizetype length = 0;
    const qsizetype end = std::min<qsizetype>(messages.size(), compaction.messageCount);
    for (qsizetype i = 0; i < end; ++i) {
        const AgentLoop::Message &message = messages.at(i);
        for (const AgentLoop::ToolCall &call : message.toolCalls())
            toolNames.insert(call.id, call.name);
        const bool summarised = i < compaction.summarizedEnd && message.role() != Role::System
                                && message.role() != Role::User;
        const AgentLoop::OutputStub *stub = stubs.value(i);
        if (!summarised && !stub)
            continue;
        ++covered;
        if (length > compactedTextLength)
            continue; // counted, no longer shown
        QString entry;
        if (message.role() == Role::Assistant) {
            entry = RunFeed::tr("Assistant: %1").arg(cut(message.content()));
            for (const AgentLoop::ToolCall &call : message.toolCalls())
                entry += u'\n'
                         + RunFeed::tr("Tool call %1: %2").arg(call.name, cut(call.arguments));
        } else if (message.role() == Role::Tool) {
            const QString tool = toolNames.value(message.toolCallId());
            entry = stub && !summarised
                            ? RunFeed::tr("Result of %1 (now a stub; the whole output is in %2):")
                                      .arg(tool, stub->savedPath)
                            : RunFeed::tr("Result of %1:").arg(tool);
            entry += u'\n' + cut(message.content());
        } else {
            entry = cut(message.content());
        }
        length += entry.size();
        entries << entry;
    }
    if (covered > entries.size())
        entries << RunFeed::tr("[%1 more not shown here]")
                           .arg(QLocale().toString(covered - entries.size()));
    ChatItem item;
    item.kind = ChatItem::Compaction;
    item.compactionId = compaction.id;
    item.compactedMessages = covered;
    const QString figures = RunFeed::tr("About %1 → %2 tokens.")
                                    .arg(QLocale().toString(compaction.tokensBefore),
                                         QLocale().toString(compaction.tokensAfter));
    const QString how = compaction.summary.isEmpty()
                                ? RunFeed::tr("Long tool outputs are replaced by stubs in the "
                                              "requests from here on.")
                                : RunFeed::tr("Summarised by %1 for the requests from here on.")
                                          .arg(compaction.model);
    QString text = how + u' ' + figures;
    if (!compaction.summary.isEmpty())
        text += u"\n\n"_s + RunFeed::tr("What the model reads instead:") + u'\n'
                + cut(compaction.summary);
    text += u"\n\n"_s + RunFeed::tr("The original messages:") + u"\n\n"_s + entries.join(u"\n\n"_s);
    item.reasoning = text;
    return item;
}

RunFeed::RunFeed(AgentLoop::AgentSession &session, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_chatModel(new ChatModel(this))
    , m_liveAnswer(new LiveAnswer(m_chatModel, this))
    , m_turnModel(new TurnModel(this))
    , m_auditModel(new AuditModel(this))
    , m_timeline(new AgentLoop::RunTimeline(session.controller(), this))
{
    m_earlierTimer.setSingleShot(true);
    m_earlierTimer.setInterval(0);
    connect(&m_earlierTimer, &QTimer::timeout, this, &RunFeed::showEarlierEntries);
    const AgentController &controller = session.controller();
    connect(&controller,
            &AgentController::protocolChecked,
            this,
            [this](const AgentLoop::ProtocolReport &report) {
                if (report.sent) {
                    m_pendingProtocol = report;
                    return;
                }
                // Nothing goes out: the row says so, and the error shown next names it.
                m_pendingProtocol.reset();
                m_currentRequest = m_turnModel->addUnsent(report);
            });
    connect(&controller,
            &AgentController::requestSent,
            this,
            [this](const AgentLoop::Exchange &exchange) {
                m_currentRequest
                        = m_turnModel->addRequest(exchange,
                                                  exchange.purpose == AgentLoop::ExchangePurpose::Turn
                                                          ? m_pendingProtocol
                                                          : std::nullopt);
                // A continuation of a cut-off answer grows the answer shown so far: its message
                // is the parts joined.
                if (exchange.purpose == AgentLoop::ExchangePurpose::Continuation
                    && m_liveAnswer->isActive())
                    return;
                // A retry is only made before any byte of an answer arrived, so no live answer can be
                // waiting here; if one were, it would never be completed.
                if (m_liveAnswer->isActive())
                    m_liveAnswer->abandon();
                m_liveAnswer->setTurn(m_currentRequest);
            });
    connect(&controller, &AgentController::responseReceived, m_turnModel, &TurnModel::setResponse);
    connect(&controller,
            &AgentController::completionReceived,
            m_turnModel,
            [this](int, const AgentLoop::Completion &completion) {
                m_turnModel->setCompletion(completion);
            });
    connect(&controller, &AgentController::assistantTextDelta, m_liveAnswer, &LiveAnswer::addText);
    connect(&controller,
            &AgentController::assistantReasoningDelta,
            m_liveAnswer,
            &LiveAnswer::addReasoning);
    connect(&controller, &AgentController::messageAppended, this, &RunFeed::showMessage);
    connect(&controller,
            &AgentController::toolFinished,
            this,
            [this](const AgentLoop::ToolCall &call, const AgentLoop::ToolResult &result) {
                ChatItem item;
                item.kind = result.errorCode == u"denied" ? ChatItem::Denial : ChatItem::ToolResult;
                item.text = result.content;
                item.toolName = call.name;
                item.toolCallId = call.id;
                item.ok = result.ok;
                item.errorCode = result.errorCode;
                item.exitCode = result.exitCode;
                // Calls that never reached a process (unknown tool, invalid arguments) have no
                // duration.
                item.durationMs = result.exitCode >= 0 || result.durationMs > 0 ? result.durationMs
                                                                                : -1;
                item.outputFile = result.outputFile;
                item.runRecord = result.runRecord;
                // A file the call changed is shown as what changed in it (a call that failed
                // after changing it too: the file is changed all the same).
                if (!result.fileChange.isEmpty()) {
                    item.kind = ChatItem::FileChange;
                    item.fileChange = result.fileChange;
                    item.text = result.fileChange.diff;
                }
                item.turn = m_callTurns.value(call.id, m_currentRequest);
                m_chatModel->append(item);
                if (result.runRecord)
                    keepRawBytesWithinBudget(result.runRecord);
            });
    connect(&controller, &AgentController::failed, this, [this](const AgentLoop::Error &error) {
        m_turnModel->abortPending();
        m_liveAnswer->abandon();
        if (error.kind == AgentLoop::Error::Cancelled) {
            ChatItem item;
            item.kind = ChatItem::Notice;
            item.text = error.message;
            m_chatModel->append(item);
        } else {
            showError(error.message, error.hint, m_currentRequest);
        }
    });
    // The client dropped a field the provider refused and sent the request again: said once, as
    // a quiet line (the window keeps the change in the profile).
    connect(&controller,
            &AgentController::providerAdjusted,
            this,
            [this](const AgentLoop::ProviderAdjustment &adjustment) {
                showNotice(adjustment.notice);
            });
    connect(&controller,
            &AgentController::compacted,
            this,
            [this](const AgentLoop::Compaction &compaction) {
                m_chatModel->append(compactionItemFor(m_session.controller().history(), compaction));
            });
    connect(&controller,
            &AgentController::compactionUndone,
            this,
            [this](const QString &compactionId) {
                // Its divider may still wait among the earlier entries of a reopened one.
                if (!m_chatModel->removeCompaction(compactionId))
                    forgetEarlierDivider(compactionId);
            });
    // What the loop did on its own: a continuation, a fallback model, a compaction after a
    // context-length error.
    connect(&controller, &AgentController::notice, this, &RunFeed::showNotice);
    connect(&session, &AgentLoop::AgentSession::auditRecorded, m_auditModel, &AuditModel::append);
    connect(&controller, &AgentController::finished, this, &RunFeed::whenIdle);
    connect(&controller, &AgentController::failed, this, &RunFeed::whenIdle);
    connect(&session,
            &AgentLoop::AgentSession::saveFailed,
            this,
            [this](const AgentLoop::Error &error) {
                showError(error.message,
                          tr("%1 The run goes on, but this conversation is not saved from here on.")
                                  .arg(error.hint)
                                  .trimmed(),
                          0);
            });
}

void RunFeed::showMessage(const AgentLoop::Message &message)
{
    // A tool message is shown from toolFinished, which knows how the call ended.
    if (message.role() == Role::Tool)
        return;
    QList<ChatItem> items = chatItemsFor(message, m_currentRequest);
    if (message.role() == Role::Assistant) {
        // The final message replaces the streamed one in place, or takes it away when it has
        // neither text nor reasoning.
        ChatItem answer;
        answer.kind = ChatItem::AssistantText;
        answer.turn = m_currentRequest;
        if (!items.isEmpty() && items.first().kind == ChatItem::AssistantText)
            answer = items.takeFirst();
        m_liveAnswer->finish(answer);
        for (const ChatItem &call : std::as_const(items))
            m_callTurns.insert(call.toolCallId, m_currentRequest);
    }
    for (const ChatItem &item : std::as_const(items))
        m_chatModel->append(item);
}

void RunFeed::openConversation(const QString &id)
{
    if (id.isEmpty() || id == m_openingId)
        return;
    m_openingId = id;
    const quint64 generation = ++m_openGeneration;
    // Its end is read first, and shown while the rest is read (unless the rest came first).
    AgentLoop::whenFinished(m_session.readConversationTail(id),
                            this,
                            [this, generation](
                                    const AgentLoop::Result<AgentLoop::ConversationTail> &tail) {
                                if (generation == m_openGeneration && !m_openingId.isEmpty() && tail)
                                    showPreview(*tail);
                            });
    AgentLoop::whenFinished(
            m_session.readConversation(id),
            this,
            [this, id, generation](AgentLoop::ReadConversation read) {
                if (generation != m_openGeneration)
                    return; // superseded by a later open or a new conversation
                m_openingId.clear();
                auto continued = read.loaded ? m_session.continueConversation(std::move(read))
                                             : AgentLoop::Result<AgentLoop::ContinuedConversation>(
                                                     read.loaded.error());
                if (!continued) {
                    // The conversation shown before comes back.
                    if (m_preview)
                        m_chatModel->restore(std::exchange(m_preview, std::nullopt)->shownBefore);
                    emit openFailed(id, continued.error());
                    return;
                }
                const std::optional<Preview> preview = std::exchange(m_preview, std::nullopt);
                clear(preview ? KeepChat : ClearChat);
                showConversation(*continued, preview);
                emit opened(continued->conversation.header);
            });
}

// The end of a conversation still being read, in place of the one shown.
void RunFeed::showPreview(const AgentLoop::ConversationTail &tail)
{
    if (!m_preview)
        m_preview = Preview{m_chatModel->items(), {}};
    m_preview->messages = tail.messages.mid(
            std::max<qsizetype>(0, tail.messages.size() - lastScreenEntries));
    QHash<QString, QString> toolNames;
    for (const AgentLoop::Message &message : std::as_const(tail.messages)) {
        for (const AgentLoop::ToolCall &call : message.toolCalls())
            toolNames.insert(call.id, call.name);
    }
    QList<ChatItem> items;
    for (const AgentLoop::Message &message : std::as_const(m_preview->messages))
        items.append(chatItemsFor(message, 0, toolNames));
    m_liveAnswer->reset();
    m_chatModel->clear();
    m_chatModel->append(std::move(items));
}

void RunFeed::newConversation()
{
    AgentController &controller = m_session.controller();
    if (controller.isRunning()) {
        // Cleared when the run has ended (whenIdle), at once or, for a command being killed,
        // a little later.
        m_newConversationPending = true;
        controller.cancel();
        return;
    }
    m_newConversationPending = false;
    ++m_openGeneration; // a conversation still being read is not opened
    m_openingId.clear();
    m_session.newConversation();
    clear();
}

void RunFeed::whenIdle()
{
    if (m_newConversationPending)
        newConversation();
}

// A saved conversation is shown from its end: the last entries at once, with what was repaired
// and why it will not be saved, then the earlier ones above them, a batch per turn of the event
// loop, each of a few milliseconds of work. A conversation of 100 MB thus shows its last screen at once and never stalls the
// window while the rest arrives.
void RunFeed::showConversation(const AgentLoop::ContinuedConversation &continued,
                               const std::optional<Preview> &preview)
{
    const AgentLoop::LoadedConversation &loaded = continued.conversation;
    EarlierEntries &earlier = m_earlier;
    earlier = {};
    const AgentController &controller = m_session.controller();
    earlier.history = controller.history();
    earlier.compactions = controller.compactions();
    // Each compaction's divider after the last message it knew of (those that fit the history).
    const QList<AgentLoop::Message> &messages = earlier.history.messages();
    earlier.entries.reserve(messages.size() + earlier.compactions.size());
    qsizetype nextCompaction = 0;
    const auto addDividers = [&](qsizetype messagesSoFar) {
        while (nextCompaction < earlier.compactions.size()
               && earlier.compactions.at(nextCompaction).messageCount <= messagesSoFar)
            earlier.entries.append(-1 - nextCompaction++);
    };
    for (qsizetype i = 0; i < messages.size(); ++i) {
        addDividers(i);
        earlier.entries.append(i);
        for (const AgentLoop::ToolCall &call : messages.at(i).toolCalls())
            earlier.toolNames.insert(call.id, call.name);
    }
    addDividers(std::numeric_limits<qsizetype>::max());

    QList<ChatItem> last;
    if (preview && showsAsPreviewed(*preview)) {
        // The rows of the preview stay: only a result whose call was before it learns its tool.
        const QList<ChatItem> items = itemsOfEntries(earlier.entries.size()
                                                     - preview->messages.size());
        for (int row = 0; row < items.size(); ++row) {
            if (m_chatModel->item(row).toolName.isEmpty() && !items.at(row).toolName.isEmpty())
                m_chatModel->replace(row, items.at(row));
        }
    } else {
        m_chatModel->clear();
        last = itemsOfEntries(std::max<qsizetype>(0, earlier.entries.size() - lastScreenEntries));
    }
    for (const QString &repair : loaded.repairs) {
        ChatItem &item = last.emplace_back();
        item.kind = ChatItem::Notice;
        item.text = tr("Repaired: %1").arg(repair);
    }
    m_chatModel->append(std::move(last));
    if (continued.notSaved) {
        showError(continued.notSaved->message,
                  tr("%1 New messages in this conversation are not saved.")
                          .arg(continued.notSaved->hint)
                          .trimmed(),
                  0);
    }
    if (earlier.entries.isEmpty()) {
        emit conversationShown();
        return;
    }
    m_earlierTimer.start();
}

// Whether the preview shows the last entries of the conversation as it was read: the same
// messages, no divider among them, and a row for each of their items.
bool RunFeed::showsAsPreviewed(const Preview &preview) const
{
    const EarlierEntries &earlier = m_earlier;
    const QList<AgentLoop::Message> &messages = earlier.history.messages();
    const qsizetype count = preview.messages.size();
    if (count == 0 || count > earlier.entries.size() || count > messages.size()
        || messages.mid(messages.size() - count) != preview.messages)
        return false;
    int rows = 0;
    for (qsizetype i = 0; i < count; ++i) {
        if (earlier.entries.at(earlier.entries.size() - count + i) != messages.size() - count + i)
            return false;
        rows += int(chatItemsFor(preview.messages.at(i)).size());
    }
    return rows == m_chatModel->rowCount();
}

// The items of entries [from, the first entry not shown yet); those entries are then shown.
QList<ChatItem> RunFeed::itemsOfEntries(qsizetype from)
{
    EarlierEntries &earlier = m_earlier;
    QList<ChatItem> items;
    for (qsizetype e = from; e < earlier.entries.size(); ++e) {
        const qsizetype entry = earlier.entries.at(e);
        if (entry < 0) {
            items.append(compactionItemFor(earlier.history, earlier.compactions.at(-1 - entry)));
        } else {
            items.append(chatItemsFor(earlier.history.messages().at(entry), 0, earlier.toolNames));
        }
    }
    earlier.entries.resize(from);
    return items;
}

void RunFeed::showEarlierEntries()
{
    // Entry by entry for about earlierBatchBudgetMs: building, preparing and measuring each is
    // timed here, since the view measures rows inserted above the end at once. Painting the
    // screen comes on top, once per turn of the event loop.
    EarlierEntries &earlier = m_earlier;
    QElapsedTimer spent;
    spent.start();
    do {
        m_chatModel->prepend(itemsOfEntries(earlier.entries.size() - 1));
    } while (!earlier.entries.isEmpty() && spent.nsecsElapsed() < earlierBatchBudgetNs);
    if (earlier.entries.isEmpty()) {
        earlier = {};
        emit conversationShown();
        return;
    }
    m_earlierTimer.start();
}

void RunFeed::forgetEarlierDivider(const QString &compactionId)
{
    EarlierEntries &earlier = m_earlier;
    for (qsizetype e = earlier.entries.size() - 1; e >= 0; --e) {
        const qsizetype entry = earlier.entries.at(e);
        if (entry < 0 && earlier.compactions.at(-1 - entry).id == compactionId) {
            earlier.entries.removeAt(e);
            return;
        }
    }
}

void RunFeed::showError(const QString &text, const QString &hint, int turn)
{
    ChatItem item;
    item.kind = ChatItem::ErrorMessage;
    item.text = text;
    item.hint = hint;
    item.turn = turn;
    m_chatModel->append(item);
}

void RunFeed::showNotice(const QString &text)
{
    // Below the answer it speaks of, when that is still being written.
    if (m_liveAnswer->isActive())
        m_liveAnswer->flush();
    ChatItem item;
    item.kind = ChatItem::Notice;
    item.text = text;
    item.turn = m_currentRequest;
    m_chatModel->append(item);
}

namespace {

qint64 rawBytesOf(const AgentLoop::RunRecord &record)
{
    return record.standardOutput.totalBytes - record.standardOutput.droppedBytes
           + record.standardError.totalBytes - record.standardError.droppedBytes;
}

// The stream without its bytes: they count as dropped.
void dropBytes(AgentLoop::RawStream &stream)
{
    stream.chunks.clear();
    stream.droppedBytes = stream.totalBytes;
}

} // namespace

void RunFeed::keepRawBytesWithinBudget(const std::shared_ptr<const AgentLoop::RunRecord> &newest)
{
    m_rawRecords.append(newest);
    m_rawBytes += rawBytesOf(*newest);
    while (m_rawBytes > rawBytesBudget && m_rawRecords.size() > 1) {
        const std::shared_ptr<const AgentLoop::RunRecord> oldest = m_rawRecords.takeFirst();
        m_rawBytes -= rawBytesOf(*oldest);
        // The oldest records are near the top of the chat. An open dialog keeps its own copy.
        for (int row = 0; row < m_chatModel->rowCount(); ++row) {
            ChatItem item = m_chatModel->item(row);
            if (item.runRecord != oldest)
                continue;
            auto trimmed = std::make_shared<AgentLoop::RunRecord>(*oldest);
            dropBytes(trimmed->standardOutput);
            dropBytes(trimmed->standardError);
            item.runRecord = std::move(trimmed);
            m_chatModel->replace(row, std::move(item));
            break;
        }
    }
}

void RunFeed::clear(ChatRows rows)
{
    m_earlierTimer.stop();
    m_earlier = {};
    m_preview.reset();
    m_liveAnswer->reset();
    if (rows == ClearChat)
        m_chatModel->clear();
    m_turnModel->clear();
    m_timeline->clear();
    // The session's trail is the new conversation's by now: empty, or the opened one's.
    m_auditModel->setEntries(m_session.auditTrail());
    m_callTurns.clear();
    m_rawRecords.clear();
    m_rawBytes = 0;
    m_pendingProtocol.reset();
    m_currentRequest = 0;
    emit cleared();
}

} // namespace Gui
