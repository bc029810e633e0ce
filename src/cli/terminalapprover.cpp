#include "terminalapprover.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QPointer>
#include <QSocketNotifier>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <iostream>
#include <string>
#include <thread>
#else
#include <unistd.h>
#endif

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Cli {

TerminalApprover::TerminalApprover(Writer writeToTerminal, QObject *parent)
    : QObject(parent)
    , m_write(std::move(writeToTerminal))
{}

TerminalApprover::~TerminalApprover() = default;

bool TerminalApprover::standardInputIsInteractive()
{
#ifdef Q_OS_WIN
    // Not _isatty: it is true for every character device, NUL too, so "agentloop-cli < NUL"
    // would prompt. Only a console has a console mode.
    DWORD mode = 0;
    return GetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), &mode) != 0;
#else
    return isatty(STDIN_FILENO) == 1;
#endif
}

namespace {

// The arguments exactly as the model sent them, on one line. JSON allows CR, LF and tab between
// tokens; printed raw, a CR lets the model overwrite the command on the terminal with spaces (and
// newlines scroll it away), so such text is shown as its compact form, the same JSON.
QString argumentsLine(const AgentLoop::ApprovalRequest &request)
{
    const bool hasControl = std::any_of(request.arguments.cbegin(),
                                        request.arguments.cend(),
                                        [](QChar c) { return c.unicode() < 0x20 || c == u'\x7f'; });
    if (!hasControl)
        return request.arguments;
    return QString::fromUtf8(QJsonDocument(request.argumentsObject).toJson(QJsonDocument::Compact));
}

} // namespace

void TerminalApprover::ask(const AgentLoop::ApprovalRequest &request)
{
    m_write(tr("Tool call needs approval: %1").arg(request.toolName) + u'\n');
    m_write(tr("Reason: %1").arg(request.reason) + u'\n');
    m_write(tr("Arguments: %1").arg(argumentsLine(request)) + u'\n');
    m_requestId = request.id;
    if (!standardInputIsInteractive()) {
        m_write(tr("No interactive input; the call is denied by default.") + u'\n');
        emit decided(request.id, AgentLoop::Decision::Deny);
        return;
    }
    m_write(tr("Allow this call? [y/N] "));
    m_waiting = true;
    m_line.clear();
    startReading();
}

void TerminalApprover::finishWith(const QByteArray &answer, bool endOfInput)
{
    if (!m_waiting)
        return;
    m_waiting = false;
    if (m_notifier)
        m_notifier->setEnabled(false);
    const QByteArray word = answer.trimmed().toLower();
    const bool allowed = !endOfInput && (word == "y" || word == "yes");
    if (endOfInput)
        m_write(u'\n' + tr("No answer; the call is denied.") + u'\n');
    else if (!allowed)
        m_write(tr("Denied.") + u'\n');
    emit decided(m_requestId, allowed ? AgentLoop::Decision::Allow : AgentLoop::Decision::Deny);
}

#ifdef Q_OS_WIN

// The Windows console cannot be watched by a socket notifier; one short-lived thread reads the
// line and hands it back to the event loop.
void TerminalApprover::startReading()
{
    std::thread([this, guard = QPointer<TerminalApprover>(this)] {
        std::string line;
        const bool gotLine = static_cast<bool>(std::getline(std::cin, line));
        QMetaObject::invokeMethod(
                qApp,
                [guard, line = QByteArray::fromStdString(line), gotLine] {
                    if (guard)
                        guard->finishWith(line, !gotLine);
                },
                Qt::QueuedConnection);
    }).detach();
}

void TerminalApprover::onInputReady() {}

#else

void TerminalApprover::startReading()
{
    if (!m_notifier) {
        m_notifier = new QSocketNotifier(STDIN_FILENO, QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &TerminalApprover::onInputReady);
    }
    m_notifier->setEnabled(true);
}

void TerminalApprover::onInputReady()
{
    char buffer[256];
    const ssize_t count = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (count <= 0) {
        finishWith(m_line, true);
        return;
    }
    m_line.append(buffer, count);
    if (const qsizetype newline = m_line.indexOf('\n'); newline >= 0)
        finishWith(m_line.left(newline), false);
}

#endif

} // namespace Cli
