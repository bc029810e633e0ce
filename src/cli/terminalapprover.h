#pragma once

#include "agentcontroller.h"

#include <QByteArray>
#include <QObject>

#include <functional>

class QSocketNotifier;

namespace Cli {

// Asks at the terminal, one prompt per call, exactly as the seed shows:
//   Tool call needs approval: shell
//   Reason: ...
//   Arguments: {"command":"echo 42"}
//   Allow this call? [y/N]
// Only "y" or "yes" allows. Without an interactive terminal, end of input, or an unreadable
// answer, the call is denied (fail closed). Reading never blocks the event loop.
class TerminalApprover final : public QObject
{
    Q_OBJECT
public:
    using Writer = std::function<void(const QString &)>;

    TerminalApprover(Writer writeToTerminal, QObject *parent = nullptr);
    ~TerminalApprover() override;

    void ask(const AgentLoop::ApprovalRequest &request);

    static bool standardInputIsInteractive();

signals:
    void decided(quint64 requestId, AgentLoop::Decision decision);

private:
    void startReading();
    void onInputReady();
    void finishWith(const QByteArray &answer, bool endOfInput);

    Writer m_write;
    quint64 m_requestId = 0;
    bool m_waiting = false;
    QByteArray m_line;
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace Cli
