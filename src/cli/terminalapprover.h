#pragma once

#include "agent/agentcontroller.h"

#include <QByteArray>
#include <QObject>

class QSocketNotifier;

namespace Cli {

class TerminalWriter;

// Asks at the terminal, one prompt per call, showing what will run (the command decoded from the
// arguments, not the model's JSON text), each of its lines behind a gutter so that none can pose
// as a line of ours:
//   Tool call needs approval: shell
//   Reason: ...
//   Command (1 line, 7 characters):
//     │ echo 42
//   Asked because:
//     │ `echo 42` matches no allow rule.
//   Allow this call? [y/a/N]
// A command is preceded by a line saying that commands are not confined to the workspace. A file
// edit shows the file and the unified diff, without colour:
//   Edit src/main.cpp (GB18030, CRLF)
//   Changes (+1 −1 lines):
//     │ @@ -3,3 +3,3 @@
//     │ -    std::puts("hello");
//     │ +    std::puts("你好");
// Other tools (an MCP server's) show "Arguments:" and the decoded arguments as indented JSON, whole
// (up to 64 Ki characters, the rest counted). A reason of several lines (an MCP tool's, which
// quotes the server's description) stands behind the gutter too. Characters shown as
// escapes and letters that look like Latin ones are named in warnings after the text.
// Why it is asked is the rules' explanation and details (PermissionCheck), behind the gutter too:
// they quote the command. "y" or "yes" allows the call once; "a" allows this tool with these
// exact arguments for the rest of the conversation; "n: reason" (or "no: reason") denies and the
// model reads the reason; anything else denies. Without an interactive terminal, end of input,
// or an unreadable answer, the call is denied (fail closed). Reading never blocks the event loop.
class TerminalApprover final : public QObject
{
    Q_OBJECT
public:
    explicit TerminalApprover(TerminalWriter &terminal, QObject *parent = nullptr);
    ~TerminalApprover() override;

    void ask(const AgentLoop::ApprovalRequest &request);

    static bool standardInputIsInteractive();
    // What a typed line answers: see the class comment. A reason is at most maxReasonLength
    // characters, without control characters.
    static AgentLoop::ApprovalAnswer answerFor(const QString &typed);
    static constexpr qsizetype maxReasonLength = 2000;

signals:
    void decided(quint64 requestId, const AgentLoop::ApprovalAnswer &answer);

private:
    void writePreview(const AgentLoop::CallPreview &preview);
    void writeWhyAsked(const AgentLoop::PermissionCheck &check);
    void confirm(const AgentLoop::ApprovalAnswer &answer);
    void startReading();
    void onInputReady();
    void finishWith(const QByteArray &typed, bool endOfInput);

    TerminalWriter &m_terminal;
    quint64 m_requestId = 0;
    bool m_waiting = false;
    QByteArray m_line;
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace Cli
