#pragma once

#include "chat/chatmodel.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <chrono>

namespace Gui {

// A streamed answer on its way into the chat. Deltas are collected in a buffer and written into
// the model at most once per updateInterval, always into the same row: the first write appends
// the live item, later ones grow it (one dataChanged for that row each), and the final message
// takes its place. A provider sending thousands of tokens per second thus costs the view at most
// twenty updates of one item per second, whatever the token rate.
class LiveAnswer final : public QObject
{
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds updateInterval{50};

    explicit LiveAnswer(ChatModel *model, QObject *parent = nullptr);

    // The inspector's request number the answer belongs to.
    void setTurn(int turn) { m_turn = turn; }
    void addText(const QString &text);
    void addReasoning(const QString &text);

    // Whether a live item is shown or deltas wait for their first write.
    bool isActive() const { return m_row >= 0 || hasPending(); }
    // The live item's row, or -1.
    int row() const { return m_row; }
    // How many times the model was written to for the current answer.
    int updateCount() const { return m_updates; }

    // Writes what is buffered now; but for the first half of a surrogate pair or of a CRLF that
    // a delta ended with, which waits for its second half in the next delta.
    void flush();
    // The final message: put in place of the live item, or appended when there was none.
    // Returns its row; -1 when it shows nothing (no text, no reasoning), and the live item,
    // if any, is taken away.
    int finish(ChatItem item);
    // The live item goes, and what is buffered with it.
    void discard();
    // The answer ended without a message (an error, or the user stopped it).
    void abandon();
    // The conversation was cleared: forget the row without touching the model.
    void reset();

private:
    bool hasPending() const { return !m_text.isEmpty() || !m_reasoning.isEmpty(); }
    void schedule();
    void write(const QString &text, const QString &reasoning);

    QPointer<ChatModel> m_model;
    QTimer m_timer;
    QElapsedTimer m_sinceUpdate;
    QString m_text;
    QString m_reasoning;
    int m_row = -1;
    int m_turn = 0;
    int m_updates = 0;
};

} // namespace Gui
