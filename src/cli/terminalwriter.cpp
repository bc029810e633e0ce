#include "terminalwriter.h"

#include "base/displaytext.h"
#include "base/redaction.h"

#include <QIODevice>

namespace Cli {

TerminalWriter::TerminalWriter(FILE *stream)
    : m_stream(stream, QIODevice::WriteOnly)
{}

TerminalWriter::TerminalWriter(QIODevice *device)
    : m_stream(device)
{}

QString TerminalWriter::redacted(const QString &text) const
{
    return AgentLoop::redacted(text, m_secret);
}

void TerminalWriter::write(const QString &text)
{
    // Redacted before it is made safe: an escape inside the key must not keep it from matching.
    m_stream << AgentLoop::displayed(redacted(text)) << Qt::flush;
}

QString TerminalWriter::line(const QString &text, qsizetype maxLength) const
{
    return AgentLoop::displayedLine(redacted(text), maxLength);
}

} // namespace Cli
