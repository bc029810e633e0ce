#pragma once

#include "protocol/exchange.h"
#include "base/result.h"

#include <QFile>
#include <QString>

namespace AgentLoop {

// Writes every exchange with the provider as one JSON line: turn, method, url, status, duration,
// the redacted request headers, and the request and response bodies (as JSON when they parse,
// as text otherwise). Each line is flushed as it is written.
class TranscriptWriter final
{
public:
    Result<void> open(const QString &path);
    Result<void> write(const Exchange &exchange);
    bool isOpen() const { return m_file.isOpen(); }

private:
    QFile m_file;
};

} // namespace AgentLoop
