#pragma once

#include "context/compaction.h"

#include <QCheckBox>
#include <QMessageBox>
#include <QObject>
#include <QPointer>
#include <QPushButton>

namespace Gui {

// Asks the user, before an automatic compaction, whether it may happen: a window-modal
// QMessageBox (opened with open(), never exec()) titled "Compact the conversation?" that says
// what it will do, from the preview: how many earlier messages one extra request summarises, how
// many long tool outputs become stubs, and the request's tokens before and after. Compact is the
// default button; Send without compacting, Esc and closing the box send the request as it is.
// "Don't ask again" goes with either answer: from then on compactions happen without asking.
//
// decided() is emitted exactly once. The prompt is owned by its box, which deletes itself once
// answered; a box destroyed unanswered (its parent closing) answers "send without compacting".
class CompactionPrompt final : public QObject
{
    Q_OBJECT
public:
    static CompactionPrompt *ask(quint64 proposalId,
                                 const AgentLoop::CompactionPreview &preview,
                                 QWidget *parent);
    ~CompactionPrompt() override;

    // What the box says of this preview, as plain text.
    static QString description(const AgentLoop::CompactionPreview &preview);

    quint64 proposalId() const { return m_proposalId; }
    // For tests and screenshots; null once the box is gone.
    QMessageBox *messageBox() const { return m_box; }
    QPushButton *compactButton() const { return m_compact; }
    QPushButton *sendButton() const { return m_send; }
    QCheckBox *dontAskCheck() const { return m_dontAsk; }

signals:
    void decided(quint64 proposalId, bool compact, bool dontAskAgain);

private:
    CompactionPrompt(quint64 proposalId,
                     const AgentLoop::CompactionPreview &preview,
                     QMessageBox *box);
    void decide(bool compact);

    quint64 m_proposalId = 0;
    bool m_decided = false;
    QPointer<QMessageBox> m_box;
    QPointer<QPushButton> m_compact;
    QPointer<QPushButton> m_send;
    QPointer<QCheckBox> m_dontAsk;
};

} // namespace Gui
