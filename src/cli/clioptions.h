#pragma once

#include "mcp/mcpconfig.h"
#include "permissions/permissionrules.h"
#include "protocol/providersettings.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace Cli {

struct CliOptions
{
    QString prompt;
    QString workspace; // absolute; the current directory when not given
    int maxTurns = 20;
    int requestTimeoutSeconds = 120;
    bool stream = true;
    int maxRetries = 3;
    int maxResponseMegabytes = 64; // the most one answer may bring
    int maxAnswerMinutes = 10;     // the most one answer may take
    QString transcriptPath;        // empty: no transcript
    QString conversationPath;      // a saved conversation to continue and extend; empty: none
    // --bundle FILE: a bug bundle (storage/bugbundle.h) written there; without a prompt, of the
    // saved conversation alone, nothing sent.
    QString bundlePath;
    QString profile;    // --profile: the app's profile to use; empty: OPENAI_* settings
    bool check = false; // --check: test what the provider can do instead of a task
    // --allow, --ask and --deny, then the rules of --permissions FILE (origin CommandLine).
    QList<AgentLoop::PermissionRule> rules;
    bool readOnlyCommands = false; // --read-only-commands: the built-in list allows without asking
    // --permissions-check: the sample call (`shell(git status)`) to decide instead of a task.
    QString permissionsCheck;
    // --context-window N: the model's window in tokens; 0: the provider's /models, the built-in
    // table or 128 000.
    int contextWindow = 0;
    // --verbose: the context budget after every answer, on stderr.
    bool verbose = false;
    // --max-tokens N: the output limit of every request; 0: the provider's default (or the
    // profile's).
    int maxTokens = 0;
    // --max-tokens-field: the field it goes under; unset: what the provider expects.
    std::optional<AgentLoop::MaxTokensField> maxTokensField;
    // --fallback-model MODEL (repeatable): tried in order, with the same provider, when the model
    // is not found, or stays rate-limited or failing after the retries.
    QStringList fallbackModels;
    // --mcp-config FILE (repeatable): the servers of every file, in order; a run starts them
    // before its first request. The workspace's .agentloop/mcp.json is used only when named so.
    QList<AgentLoop::McpServerConfig> mcpServers;
    // --mcp-list: start the servers, print their states and tools, and exit; no model, no key.
    bool mcpList = false;
};

struct ParsedCommandLine
{
    std::optional<CliOptions> options; // set when the run can start
    QString output;                    // --help or --version text for stdout
    QString error;                     // a usage error for stderr (exit code 2)
};

// Parses agentloop-cli's arguments (arguments[0] is the program). Unknown arguments and missing
// or malformed values are usage errors that name the argument.
ParsedCommandLine parseCommandLine(const QStringList &arguments);

} // namespace Cli
