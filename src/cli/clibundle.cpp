#include "clibundle.h"

#include "clirun.h"

#include "agent/audittrail.h"
#include "storage/conversationstore.h"
#include "storage/providerprofiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QLocale>
#include <QSettings>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

namespace {

struct BundleText
{
    Q_DECLARE_TR_FUNCTIONS(Cli)
};

QJsonObject optionsJson(const CliOptions &options)
{
    return {{u"workspace"_s, QDir::toNativeSeparators(options.workspace)},
            {u"max_turns"_s, options.maxTurns},
            {u"request_timeout_s"_s, options.requestTimeoutSeconds},
            {u"stream"_s, options.stream},
            {u"max_retries"_s, options.maxRetries},
            {u"max_response_mb"_s, options.maxResponseMegabytes},
            {u"max_answer_minutes"_s, options.maxAnswerMinutes},
            {u"profile"_s, options.profile},
            {u"read_only_commands"_s, options.readOnlyCommands},
            {u"context_window"_s, options.contextWindow},
            {u"max_tokens"_s, options.maxTokens},
            {u"fallback_models"_s, QJsonArray::fromStringList(options.fallbackModels)},
            {u"rules"_s, qint64(options.rules.size())}};
}

} // namespace

Result<BugBundleContents> bundleContents(const CliOptions &options, const ProviderSettings &provider)
{
    BugBundleContents contents;
    contents.application = u"agentloop-cli"_s;
    contents.baseUrl = provider.baseUrl;
    contents.model = provider.model;
    contents.secrets = {provider.apiKey};
    if (!options.conversationPath.isEmpty()) {
        const QString &path = options.conversationPath;
        if (!QFileInfo(path).isFile()) {
            return Error(Error::Configuration,
                         BundleText::tr("The conversation %1 does not exist.")
                                 .arg(QDir::toNativeSeparators(options.conversationPath)));
        }
        Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
        if (!loaded)
            return loaded.error();
        contents.conversation = loaded->header;
        contents.history = loaded->history;
        contents.compactions = loaded->compactions;
        contents.audit = readAuditFile(ConversationStore::auditPathFor(path));
        if (contents.baseUrl.isEmpty())
            contents.baseUrl = QUrl(loaded->header.baseUrl);
        if (contents.model.isEmpty())
            contents.model = loaded->header.model;
    }
    const std::unique_ptr<QSettings> file = openSettingsFile();
    contents.settings = {{u"provider"_s, providerForBundle(provider)},
                         {u"cli"_s, optionsJson(options)},
                         {u"settings_file"_s, settingsFileForBundle(*file, &contents.secrets)}};
    return contents;
}

int writeBundle(const BugBundleContents &contents,
                const QString &path,
                TerminalWriter &terminal,
                TerminalWriter &err)
{
    const QList<ZipEntry> entries = bugBundleEntries(contents);
    const Result<void> written = writeBugBundle(path, entries, contents.secrets, contents.created);
    if (!written) {
        err.writeLine(
                BundleText::tr("Bug bundle not written: %1").arg(err.line(written.error().message)));
        if (!written.error().hint.isEmpty())
            err.writeLine(BundleText::tr("How to fix: %1").arg(err.line(written.error().hint)));
        return UsageError;
    }
    terminal.writeLine(BundleText::tr("Bug bundle (%n files, the API key removed):",
                                      nullptr,
                                      int(entries.size())));
    for (const ZipEntry &entry : entries) {
        terminal.writeLine(
                u"  "_s + terminal.line(entry.name) + u"  "_s
                + QLocale().formattedDataSize(entry.data.size(), 1, QLocale::DataSizeSIFormat));
    }
    terminal.writeLine(BundleText::tr("Written to %1")
                               .arg(terminal.line(QDir::toNativeSeparators(
                                       QFileInfo(path).absoluteFilePath()))));
    return Answered;
}

int bundleConversation(const CliOptions &options,
                       const ProviderSettings &provider,
                       TerminalWriter &out,
                       TerminalWriter &err)
{
    const Result<BugBundleContents> contents = bundleContents(options, provider);
    if (!contents) {
        err.writeLine(
                BundleText::tr("Configuration error: %1").arg(err.line(contents.error().message)));
        return UsageError;
    }
    return writeBundle(*contents, options.bundlePath, out, err);
}

} // namespace Cli
