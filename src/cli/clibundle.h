#pragma once

#include "clioptions.h"
#include "terminalwriter.h"

#include "base/result.h"
#include "protocol/providersettings.h"
#include "storage/bugbundle.h"

namespace Cli {

// --bundle: what the bundle holds besides the run's exchanges: the conversation saved at
// conversationPath (its messages, tool runs, compactions and audit lines; nothing when empty),
// the versions, and the settings (this run's provider and options, the app's settings file)
// without any key.
AgentLoop::Result<AgentLoop::BugBundleContents> bundleContents(
        const CliOptions &options, const AgentLoop::ProviderSettings &provider);

// Writes the bundle to path and lists its files and where it went on terminal; an error is
// printed on err. The exit code: Answered, or UsageError when it could not be written.
int writeBundle(const AgentLoop::BugBundleContents &contents,
                const QString &path,
                TerminalWriter &terminal,
                TerminalWriter &err);

// --bundle without --prompt: the bundle of the saved conversation, nothing sent to any model.
int bundleConversation(const CliOptions &options,
                       const AgentLoop::ProviderSettings &provider,
                       TerminalWriter &out,
                       TerminalWriter &err);

} // namespace Cli
