#pragma once

#include "clioptions.h"
#include "provider/capabilitycheck.h"
#include "terminalwriter.h"

#include <QObject>

namespace Cli {

// agentloop-cli --check: the capability check at the terminal. Each finding is a line on stdout
// (its detail indented under it), progress goes to stderr; done() carries the exit code: 0 when
// tool calling works, 4 when it does not.
class CliCheck final : public QObject
{
    Q_OBJECT
public:
    CliCheck(const CliOptions &options,
             const AgentLoop::ProviderSettings &provider,
             QObject *parent = nullptr);

    void start();

signals:
    void done(int exitCode);

private:
    void print(const AgentLoop::CapabilityReport &report);

    AgentLoop::ProviderSettings m_provider;
    TerminalWriter m_out;
    TerminalWriter m_err;
    AgentLoop::CapabilityCheck m_check;
};

} // namespace Cli
