#include "clioptions.h"

#include "protocol/providerpresets.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace Cli {

namespace {

struct CliText
{
    Q_DECLARE_TR_FUNCTIONS(Cli)
};

// A whole number the command line may set: its range, and the message, %1 being what the option
// holds, for anything else.
struct NumberOption
{
    const QCommandLineOption *option;
    int minimum;
    int maximum;
    QString message;
    int *value;
};

bool readNumber(const QCommandLineParser &parser, const NumberOption &number, QString *error)
{
    const QString text = parser.value(*number.option);
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < number.minimum || value > number.maximum) {
        *error = number.message.arg(text);
        return false;
    }
    *number.value = value;
    return true;
}

// The rules given one by one: --allow, --ask, --deny, each as often as wanted.
struct RuleOption
{
    const QCommandLineOption *option;
    AgentLoop::RuleEffect effect;
};

// --permissions FILE must name a file: a missing one is a typo, not "no rules".
bool readRulesFile(const QString &path, QList<AgentLoop::PermissionRule> *rules, QString *error)
{
    if (!QFileInfo(path).isFile()) {
        *error = CliText::tr("The permissions file %1 does not exist.")
                         .arg(QDir::toNativeSeparators(path));
        return false;
    }
    const auto read = AgentLoop::readRuleFile(path, AgentLoop::RuleOrigin::CommandLine);
    if (!read) {
        *error = CliText::tr("--permissions: %1").arg(read.error().message);
        return false;
    }
    *rules += *read;
    return true;
}

// --mcp-config FILE must name a file: a missing one is a typo, not "no servers".
bool readMcpFile(const QString &path, QList<AgentLoop::McpServerConfig> *servers, QString *error)
{
    if (!QFileInfo(path).isFile()) {
        *error = CliText::tr("The MCP configuration file %1 does not exist.")
                         .arg(QDir::toNativeSeparators(path));
        return false;
    }
    const auto read = AgentLoop::readMcpServersFile(QFileInfo(path).absoluteFilePath(),
                                                    AgentLoop::McpConfigOrigin::File);
    if (!read) {
        *error = CliText::tr("--mcp-config: %1").arg(read.error().message);
        return false;
    }
    *servers += *read;
    return true;
}

} // namespace

ParsedCommandLine parseCommandLine(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(CliText::tr(
            "Runs one task through the agent loop: the model may ask to run shell "
            "commands, each of which you approve at this terminal unless a rule (--allow, "
            "--deny, .agentloop/permissions.json) decides it.\n\n"
            "Settings come from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL in "
            "the environment or in a .env file in the current directory, or, with "
            "--profile, from a provider profile made in the app.\n\n"
            "Exit codes: 0 answered; 2 usage or configuration error (nothing sent); "
            "3 agent failure; 4 provider or network error; 130 interrupted. With "
            "--permissions-check: 0 allow, 1 ask, 2 deny."));
    const QCommandLineOption helpOption({u"h"_s, u"help"_s}, CliText::tr("Show this help."));
    const QCommandLineOption versionOption(u"version"_s, CliText::tr("Show the version."));
    const QCommandLineOption
            promptOption(u"prompt"_s,
                         CliText::tr("The task for the agent."),
                         //: The value an option takes, as shown in --help: --option <value>
                         CliText::tr("text"));
    const QCommandLineOption
            workspaceOption(u"workspace"_s,
                            CliText::tr(
                                    "The folder commands run in (default: the current directory)."),
                            //: The value an option takes, as shown in --help: --option <value>
                            CliText::tr("dir"));
    const QCommandLineOption
            maxTurnsOption(u"max-turns"_s,
                           CliText::tr("The most model requests for this task (default: 20)."),
                           //: The value an option takes, as shown in --help: --option <value>
                           CliText::tr("n"),
                           u"20"_s);
    const QCommandLineOption timeoutOption(
            u"request-timeout"_s,
            CliText::tr("Seconds the provider may stay silent before a request is given up "
                        "(default: 120)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("seconds"),
            u"120"_s);
    const QCommandLineOption noStreamOption(
            u"no-stream"_s,
            CliText::tr("Ask for the whole answer at once instead of a stream (for providers "
                        "that reject stream: true)."));
    const QCommandLineOption maxRetriesOption(
            u"max-retries"_s,
            CliText::tr("How often a rate-limited or failed request is sent again (default: 3)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("n"),
            u"3"_s);
    const QCommandLineOption maxResponseOption(
            u"max-response-mb"_s,
            CliText::tr("The most megabytes one answer may bring before it is given up "
                        "(default: 64)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("n"),
            u"64"_s);
    const QCommandLineOption maxAnswerTimeOption(
            u"max-answer-minutes"_s,
            CliText::tr("The most minutes one answer may take, however steadily it arrives, "
                        "before it is given up (default: 10)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("minutes"),
            u"10"_s);
    const QCommandLineOption transcriptOption(
            u"transcript"_s,
            CliText::tr("Write every request and response as JSON Lines to this file (the API "
                        "key is redacted)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("file"));
    const QCommandLineOption conversationOption(
            u"conversation"_s,
            CliText::tr("Continue the conversation saved in this file, and append every new "
                        "message to it as it happens."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("file"));
    const QCommandLineOption bundleOption(
            u"bundle"_s,
            CliText::tr("Write a bug bundle to this zip file: the requests and responses of the "
                        "run, its tool runs, audit lines, versions and settings, the API key "
                        "removed. Without --prompt, of the --conversation alone, without "
                        "contacting a model."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("file"));
    const QCommandLineOption profileOption(
            u"profile"_s,
            CliText::tr("Use this provider profile of the app (its name or id) instead of the "
                        "OPENAI_* settings."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("name"));
    const QCommandLineOption checkOption(
            u"check"_s,
            CliText::tr("Instead of a task, check what the provider can do (model list, "
                        "streaming, tool calling, usage, reasoning) with one tiny request."));
    //: The value an option takes, as shown in --help: --option <value>
    const QString ruleValue = CliText::tr("rule");
    const QCommandLineOption
            allowOption(u"allow"_s,
                        CliText::tr(
                                "Allow the calls this rule matches without asking, e.g. "
                                "\"shell(git status)\" or \"shell(npm run test:*)\" (repeatable)."),
                        ruleValue);
    const QCommandLineOption askOption(
            u"ask"_s,
            CliText::tr("Ask before the calls this rule matches, even where another rule would "
                        "allow them (repeatable)."),
            ruleValue);
    const QCommandLineOption
            denyOption(u"deny"_s,
                       CliText::tr("Deny the calls this rule matches; deny beats ask beats allow "
                                   "(repeatable)."),
                       ruleValue);
    const QCommandLineOption permissionsOption(
            u"permissions"_s,
            CliText::tr("Add the rules of this file: {\"allow\": [...], \"ask\": [...], "
                        "\"deny\": [...]}, as in the workspace's .agentloop/permissions.json "
                        "(which is always read too)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("file"));
    const QCommandLineOption readOnlyCommandsOption(
            u"read-only-commands"_s,
            CliText::tr("Allow the built-in read-only commands (git status, git diff, ls, pwd, "
                        "...) without asking, unless they redirect or substitute."));
    const QCommandLineOption permissionsCheckOption(
            u"permissions-check"_s,
            CliText::tr("Instead of a task, print what the rules decide about this call, e.g. "
                        "\"shell(git diff; rm -rf ~)\", and the rule that decided it; exit 0 "
                        "(allow), 1 (ask) or 2 (deny). Nothing is sent and no key is needed."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("call"));
    const QCommandLineOption contextWindowOption(
            u"context-window"_s,
            CliText::tr("The model's context window in tokens (default: what the provider's "
                        "model list says, else the built-in table of common models, else "
                        "128000)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("tokens"));
    const QCommandLineOption verboseOption(
            u"verbose"_s,
            CliText::tr("After every answer of the model, print the context budget of the next "
                        "request on stderr: tokens used of the window, estimated or as the "
                        "provider counted them."));
    const QCommandLineOption maxTokensOption(
            u"max-tokens"_s,
            CliText::tr("The most tokens the model may write in one answer (default: the "
                        "provider's own limit). An answer cut off at the limit is continued up to "
                        "3 times."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("n"));
    const QCommandLineOption maxTokensFieldOption(
            u"max-tokens-field"_s,
            CliText::tr("The request field --max-tokens goes under: max_tokens or "
                        "max_completion_tokens (default: what the provider expects; OpenAI "
                        "max_completion_tokens, everyone else max_tokens)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("field"));
    const QCommandLineOption fallbackModelOption(
            u"fallback-model"_s,
            CliText::tr("A model of the same provider to send the request to when the model is "
                        "not found, or is still rate-limited or failing after the retries; the "
                        "run stays with it (repeatable, tried in order)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("model"));
    const QCommandLineOption mcpConfigOption(
            u"mcp-config"_s,
            CliText::tr("Start the MCP servers of this file ({\"mcpServers\": {...}}, as Claude "
                        "Desktop and Cursor write it) and offer their tools to the model as "
                        "mcp__<server>__<tool> (repeatable; the workspace's .agentloop/mcp.json "
                        "only when named here)."),
            //: The value an option takes, as shown in --help: --option <value>
            CliText::tr("file"));
    const QCommandLineOption mcpListOption(
            u"mcp-list"_s,
            CliText::tr("Instead of a task, start the servers of --mcp-config, print each one's "
                        "state, protocol version and tools (read or execute, and whether a call "
                        "asks), and exit. No model is contacted and no key is needed."));
    parser.addOptions({helpOption,
                       versionOption,
                       promptOption,
                       workspaceOption,
                       maxTurnsOption,
                       timeoutOption,
                       noStreamOption,
                       maxRetriesOption,
                       maxResponseOption,
                       maxAnswerTimeOption,
                       transcriptOption,
                       conversationOption,
                       bundleOption,
                       profileOption,
                       checkOption,
                       allowOption,
                       askOption,
                       denyOption,
                       permissionsOption,
                       readOnlyCommandsOption,
                       permissionsCheckOption,
                       contextWindowOption,
                       verboseOption,
                       maxTokensOption,
                       maxTokensFieldOption,
                       fallbackModelOption,
                       mcpConfigOption,
                       mcpListOption});

    ParsedCommandLine result;
    const QString tryHelp = CliText::tr("Try --help for usage.");
    const bool parsed = parser.parse(arguments);
    if (!parser.unknownOptionNames().isEmpty()) {
        const QString name = parser.unknownOptionNames().first();
        result.error = CliText::tr("Unknown argument: %1")
                               .arg((name.size() == 1 ? u"-"_s : u"--"_s) + name)
                       + u'\n' + tryHelp;
        return result;
    }
    if (!parsed) {
        result.error = parser.errorText() + u'\n' + tryHelp;
        return result;
    }
    if (!parser.positionalArguments().isEmpty()) {
        result.error = CliText::tr("Unknown argument: %1").arg(parser.positionalArguments().first())
                       + u'\n' + tryHelp;
        return result;
    }
    if (parser.isSet(helpOption)) {
        result.output = parser.helpText();
        return result;
    }
    if (parser.isSet(versionOption)) {
        result.output = u"agentloop-cli " AGENTLOOP_VERSION "\n"_s;
        return result;
    }

    CliOptions options;
    options.prompt = parser.value(promptOption);
    options.check = parser.isSet(checkOption);
    options.permissionsCheck = parser.value(permissionsCheckOption);
    if (options.check && parser.isSet(promptOption)) {
        result.error = CliText::tr("--check takes no --prompt: it sends a test request of its own.")
                       + u'\n' + tryHelp;
        return result;
    }
    const bool checksPermissions = parser.isSet(permissionsCheckOption);
    if (checksPermissions && (options.check || parser.isSet(promptOption))) {
        result.error = CliText::tr("--permissions-check takes no --prompt and no --check: it "
                                   "only decides the call it is given.")
                       + u'\n' + tryHelp;
        return result;
    }
    if (checksPermissions && options.permissionsCheck.trimmed().isEmpty()) {
        result.error = CliText::tr("--permissions-check needs a call, e.g. \"shell(git status)\".")
                       + u'\n' + tryHelp;
        return result;
    }
    options.bundlePath = parser.value(bundleOption);
    if (parser.isSet(bundleOption)) {
        if (options.bundlePath.trimmed().isEmpty()) {
            result.error = CliText::tr("--bundle needs the name of a zip file.") + u'\n' + tryHelp;
            return result;
        }
        if (options.check || checksPermissions) {
            result.error = CliText::tr("--bundle does not go with --check or --permissions-check.")
                           + u'\n' + tryHelp;
            return result;
        }
        if (!parser.isSet(promptOption) && !parser.isSet(conversationOption)) {
            result.error = CliText::tr("--bundle needs --conversation, --prompt or both.") + u'\n'
                           + tryHelp;
            return result;
        }
    }
    options.mcpList = parser.isSet(mcpListOption);
    if (options.mcpList
        && (parser.isSet(promptOption) || options.check || checksPermissions
            || parser.isSet(bundleOption))) {
        result.error = CliText::tr("--mcp-list takes no --prompt, --check, --permissions-check "
                                   "or --bundle: it only lists the MCP servers.")
                       + u'\n' + tryHelp;
        return result;
    }
    if (options.mcpList && !parser.isSet(mcpConfigOption)) {
        result.error = CliText::tr("--mcp-list needs the servers: --mcp-config FILE.") + u'\n'
                       + tryHelp;
        return result;
    }
    const bool bundlesOnly = parser.isSet(bundleOption) && !parser.isSet(promptOption);
    if (!options.check && !checksPermissions && !bundlesOnly && !options.mcpList
        && options.prompt.trimmed().isEmpty()) {
        result.error = CliText::tr("--prompt is required and must not be blank.") + u'\n' + tryHelp;
        return result;
    }
    const NumberOption numbers[] = {
            {&maxTurnsOption,
             1,
             1000,
             CliText::tr("--max-turns must be a whole number from 1 to 1000, not \"%1\"."),
             &options.maxTurns},
            {&timeoutOption,
             1,
             86400,
             CliText::tr("--request-timeout must be a whole number of seconds from 1 to "
                         "86400, not \"%1\"."),
             &options.requestTimeoutSeconds},
            {&maxRetriesOption,
             0,
             10,
             CliText::tr("--max-retries must be a whole number from 0 to 10, not \"%1\"."),
             &options.maxRetries},
            {&maxResponseOption,
             1,
             1024,
             CliText::tr("--max-response-mb must be a whole number from 1 to 1024, not "
                         "\"%1\"."),
             &options.maxResponseMegabytes},
            {&maxAnswerTimeOption,
             1,
             1440,
             CliText::tr("--max-answer-minutes must be a whole number of minutes from 1 "
                         "to 1440, not \"%1\"."),
             &options.maxAnswerMinutes},
    };
    for (const NumberOption &number : numbers) {
        if (!readNumber(parser, number, &result.error))
            return result;
    }
    if (parser.isSet(contextWindowOption)
        && !readNumber(parser,
                       {&contextWindowOption,
                        1,
                        100'000'000,
                        CliText::tr("--context-window must be a whole number of tokens from 1 to "
                                    "100000000, not \"%1\"."),
                        &options.contextWindow},
                       &result.error))
        return result;
    if (parser.isSet(maxTokensOption)
        && !readNumber(parser,
                       {&maxTokensOption,
                        0,
                        10'000'000,
                        CliText::tr("--max-tokens must be a whole number of tokens from 0 (the "
                                    "provider's limit) to 10000000, not \"%1\"."),
                        &options.maxTokens},
                       &result.error))
        return result;
    if (parser.isSet(maxTokensFieldOption)) {
        options.maxTokensField = AgentLoop::maxTokensFieldFromName(
                parser.value(maxTokensFieldOption).trimmed());
        if (!options.maxTokensField) {
            result.error = CliText::tr("--max-tokens-field must be max_tokens or "
                                       "max_completion_tokens, not \"%1\".")
                                   .arg(parser.value(maxTokensFieldOption))
                           + u'\n' + tryHelp;
            return result;
        }
    }
    for (const QString &model : parser.values(fallbackModelOption)) {
        if (model.trimmed().isEmpty()) {
            result.error = CliText::tr("--fallback-model needs the name of a model.") + u'\n'
                           + tryHelp;
            return result;
        }
        options.fallbackModels.append(model.trimmed());
    }
    options.verbose = parser.isSet(verboseOption);
    options.stream = !parser.isSet(noStreamOption);

    const QString workspace = parser.isSet(workspaceOption) ? parser.value(workspaceOption)
                                                            : QDir::currentPath();
    const QFileInfo workspaceInfo(workspace);
    if (!workspaceInfo.isDir()) {
        result.error = CliText::tr("The workspace %1 is not a folder that exists.")
                               .arg(QDir::toNativeSeparators(workspace));
        return result;
    }
    options.workspace = workspaceInfo.absoluteFilePath();
    options.transcriptPath = parser.value(transcriptOption);
    options.conversationPath = parser.value(conversationOption);
    options.profile = parser.value(profileOption).trimmed();
    if (parser.isSet(profileOption) && options.profile.isEmpty()) {
        result.error = CliText::tr("--profile needs the name of a profile.") + u'\n' + tryHelp;
        return result;
    }
    const RuleOption ruleOptions[] = {{&allowOption, AgentLoop::RuleEffect::Allow},
                                      {&askOption, AgentLoop::RuleEffect::Ask},
                                      {&denyOption, AgentLoop::RuleEffect::Deny}};
    for (const RuleOption &ruleOption : ruleOptions) {
        for (const QString &text : parser.values(*ruleOption.option))
            options.rules.append(
                    {text.trimmed(), ruleOption.effect, AgentLoop::RuleOrigin::CommandLine});
    }
    for (const QString &path : parser.values(permissionsOption)) {
        if (!readRulesFile(path, &options.rules, &result.error))
            return result;
    }
    options.readOnlyCommands = parser.isSet(readOnlyCommandsOption);
    for (const QString &path : parser.values(mcpConfigOption)) {
        if (!readMcpFile(path, &options.mcpServers, &result.error))
            return result;
    }
    result.options = options;
    return result;
}

} // namespace Cli
