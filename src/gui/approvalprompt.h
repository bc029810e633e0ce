#pragma once

#include "agentcontroller.h"

#include <QMessageBox>
#include <QObject>
#include <QPlainTextEdit>
#include <QPointer>

class QAbstractButton;

namespace Gui {

// Asks the user whether one tool call may run: a window-modal QMessageBox (opened with open(),
// never exec()) titled "Approve tool call?", naming the tool and the reason, with the arguments
// as pretty JSON in a monospace, selectable, scrollable box so that a long command is readable
// in full. Yes and No; No is the default and the escape button.
//
// decided() is emitted exactly once: Yes allows; No, Esc, closing the box, and the box or its
// parent being destroyed (quitting while it is open) deny. Fail closed: anything but Yes denies.
//
// The prompt is owned by its message box, which deletes itself once answered. When the parent is
// destroyed, decided() is emitted from inside that destruction: connect it to an object that
// outlives the parent or dies before it (the controller), not to the parent itself.
class ApprovalPrompt final : public QObject
{
    Q_OBJECT
public:
    static ApprovalPrompt *ask(const AgentLoop::ApprovalRequest &request, QWidget *parent);
    ~ApprovalPrompt() override;

    quint64 requestId() const { return m_requestId; }
    bool isDecided() const { return m_decided; }
    // For tests and screenshots; null once the box is gone.
    QMessageBox *messageBox() const { return m_box; }
    QPlainTextEdit *argumentsView() const { return m_arguments; }

    // The arguments as shown: pretty JSON, or the model's text as it came when it is not JSON.
    static QString prettyArguments(const AgentLoop::ApprovalRequest &request);

signals:
    void decided(quint64 requestId, AgentLoop::Decision decision);

private:
    ApprovalPrompt(const AgentLoop::ApprovalRequest &request, QMessageBox *box);
    void decide(AgentLoop::Decision decision);

    quint64 m_requestId = 0;
    bool m_decided = false;
    QPointer<QMessageBox> m_box;
    QPointer<QPlainTextEdit> m_arguments;
    QAbstractButton *m_yes = nullptr;
};

} // namespace Gui
