#include "chat/liveanswer.h"

#include <utility>

namespace Gui {

namespace {

// A delta may end between the two halves of a surrogate pair (an emoji), or of a CRLF: the first
// half waits in pending for the second, or it would be shown as a lone surrogate, or a lone CR.
QString takeComplete(QString &pending)
{
    if (pending.isEmpty() || !(pending.back().isHighSurrogate() || pending.back() == u'\r'))
        return std::exchange(pending, {});
    QString complete = pending.first(pending.size() - 1);
    pending = pending.last(1);
    return complete;
}

} // namespace

LiveAnswer::LiveAnswer(ChatModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &LiveAnswer::flush);
    // Earlier messages of a reopened conversation may still arrive above it (ChatModel::prepend).
    connect(model,
            &QAbstractItemModel::rowsInserted,
            this,
            [this](const QModelIndex &, int first, int last) {
                if (m_row >= first)
                    m_row += last - first + 1;
            });
}

void LiveAnswer::addText(const QString &text)
{
    m_text += text;
    schedule();
}

void LiveAnswer::addReasoning(const QString &text)
{
    m_reasoning += text;
    schedule();
}

void LiveAnswer::schedule()
{
    if (m_timer.isActive() || !hasPending())
        return;
    // The first delta after a quiet spell is shown at once (the user sees the answer start
    // without delay); what follows within the interval waits for the timer.
    const auto since = std::chrono::milliseconds(m_sinceUpdate.isValid() ? m_sinceUpdate.elapsed()
                                                                         : updateInterval.count());
    if (since >= updateInterval)
        flush();
    else
        m_timer.start(updateInterval - since);
}

void LiveAnswer::flush()
{
    m_timer.stop();
    if (!hasPending() || !m_model)
        return;
    write(takeComplete(m_text), takeComplete(m_reasoning));
}

void LiveAnswer::write(const QString &text, const QString &reasoning)
{
    if (text.isEmpty() && reasoning.isEmpty())
        return;
    if (m_row < 0) {
        ChatItem item;
        item.kind = ChatItem::AssistantText;
        item.text = text;
        item.reasoning = reasoning;
        item.turn = m_turn;
        item.stream = ChatItem::Stream::Live;
        m_row = m_model->append(std::move(item));
    } else {
        m_model->appendText(m_row, text, reasoning);
    }
    ++m_updates;
    m_sinceUpdate.start();
}

int LiveAnswer::finish(ChatItem item)
{
    m_timer.stop();
    m_text.clear();
    // Reasoning the user watched arrive stays, even when the message does not carry it.
    if (item.reasoning.isEmpty() && m_model) {
        if (m_row >= 0) {
            const ChatItem &live = m_model->item(m_row);
            item.reasoning = live.reasoning; // as shown already, and cut where it was cut
            item.reasoningCutBytes = live.reasoningCutBytes;
        }
        ChatModel::appendShown(item.reasoning,
                               item.reasoningCutBytes,
                               m_reasoning,
                               ChatModel::shownTextLength);
    }
    m_reasoning.clear();
    if (!m_model || (item.text.isEmpty() && item.reasoning.isEmpty())) {
        discard();
        return -1;
    }
    item.stream = ChatItem::Stream::Complete;
    int row = m_row;
    if (row >= 0)
        m_model->replace(row, std::move(item));
    else
        row = m_model->append(std::move(item));
    reset();
    return row;
}

void LiveAnswer::discard()
{
    m_timer.stop();
    m_text.clear();
    m_reasoning.clear();
    // The live item is the last row: nothing else is added while an answer streams.
    if (m_model && m_row >= 0 && m_row == m_model->rowCount() - 1)
        m_model->removeLast();
    reset();
}

void LiveAnswer::abandon()
{
    // The partial answer stays, marked "(incomplete)": the user has been reading it, and text
    // that vanishes when a stream breaks or when they press Stop looks like a bug and loses
    // what they saw. The error or "Stopped" line below it says why it ends there; the model
    // never sees it (it is not in the history). A half of a pair that waited stays alone now.
    m_timer.stop();
    if (m_model)
        write(std::exchange(m_text, {}), std::exchange(m_reasoning, {}));
    if (m_model && m_row >= 0)
        m_model->setStream(m_row, ChatItem::Stream::Incomplete);
    reset();
}

void LiveAnswer::reset()
{
    m_timer.stop();
    m_text.clear();
    m_reasoning.clear();
    m_row = -1;
    m_updates = 0;
    m_sinceUpdate.invalidate();
}

} // namespace Gui
