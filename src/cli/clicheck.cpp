#include "clicheck.h"

#include "clirun.h"

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

CliCheck::CliCheck(const CliOptions &options, const ProviderSettings &provider, QObject *parent)
    : QObject(parent)
    , m_provider(provider)
    , m_out(stdout)
    , m_err(stderr)
{
    m_provider.requestTimeout = std::chrono::seconds(options.requestTimeoutSeconds);
    // --no-stream turns a profile's streaming off, never on.
    m_provider.stream = provider.stream && options.stream;
    m_out.setSecret(provider.apiKey);
    m_err.setSecret(provider.apiKey);
    connect(&m_check, &CapabilityCheck::progress, this, [this](const QString &step) {
        m_err.writeLine(m_err.line(step));
    });
    connect(&m_check, &CapabilityCheck::finished, this, &CliCheck::print);
}

void CliCheck::start()
{
    m_check.start(m_provider);
}

void CliCheck::print(const CapabilityReport &report)
{
    for (const CapabilityFinding &finding : report.findings) {
        m_out.writeLine(m_out.line(finding.summary));
        if (!finding.detail.isEmpty())
            m_out.writeLine(u"    "_s + m_out.line(finding.detail));
    }
    if (report.suggestedStream == false)
        m_out.writeLine(tr("Suggested: turn streaming off (--no-stream, or the profile's "
                           "streaming switch)."));
    if (report.suggestedStreamUsage == false)
        m_out.writeLine(tr("Suggested: leave stream_options out (the profile's usage switch); "
                           "the app does so by itself after the first refusal."));
    emit done(report.ok ? Answered : ProviderError);
}

} // namespace Cli
