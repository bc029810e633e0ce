#include "storage/bugbundle.h"

#include "base/redaction.h"
#include "protocol/streamredaction.h"
#include "storage/providerprofiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSet>
#include <QSettings>
#include <QStringConverter>
#include <QSysInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct BundleText
{
    Q_DECLARE_TR_FUNCTIONS(BugBundle)
};

// Longest first, so that a key that holds a shorter one is removed whole; each once, and
// trimmed as well as it came (a key is used trimmed).
QStringList normalisedSecrets(const QStringList &secrets)
{
    QStringList result;
    for (const QString &secret : secrets) {
        for (const QString &form : {secret, secret.trimmed()}) {
            if (!form.trimmed().isEmpty() && !result.contains(form))
                result.append(form);
        }
    }
    std::sort(result.begin(), result.end(), [](const QString &a, const QString &b) {
        return a.size() > b.size();
    });
    return result;
}

bool holdsSecret(const QByteArray &bytes, const QStringList &secrets)
{
    return std::any_of(secrets.cbegin(), secrets.cend(), [&](const QString &secret) {
        return containsSecret(bytes, secret);
    });
}

// Removing one secret can, in a text made to trick it, join the pieces of another: the passes
// go on until none is left (a few at most; the scan of the archive has the last word).
QByteArray withoutSecrets(QByteArray bytes, const QStringList &secrets)
{
    for (int pass = 0; pass < 4 && holdsSecret(bytes, secrets); ++pass) {
        for (const QString &secret : secrets)
            bytes = redacted(std::move(bytes), secret);
    }
    return bytes;
}

QByteArray indented(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

QByteArray indented(const QJsonArray &array)
{
    return QJsonDocument(array).toJson(QJsonDocument::Indented);
}

QString shownBaseUrl(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo).toString();
}

QString latin1(const QByteArray &bytes)
{
    return QString::fromLatin1(bytes);
}

QJsonArray headersJson(const HeaderList &headers)
{
    QJsonArray array;
    for (const auto &[name, value] : headers) {
        array.append(QJsonArray{latin1(name),
                                isCredentialHeader(name) ? QString::fromLatin1(redactedMarker)
                                                         : latin1(value)});
    }
    return array;
}

QString purposeName(ExchangePurpose purpose)
{
    switch (purpose) {
    case ExchangePurpose::Turn:
        return u"turn"_s;
    case ExchangePurpose::Compaction:
        return u"compaction"_s;
    case ExchangePurpose::Continuation:
        return u"continuation"_s;
    }
    return u"turn"_s;
}

QJsonObject exchangeHeadersJson(const BundleExchange &bundled)
{
    const Exchange &exchange = bundled.exchange;
    QJsonObject object{
            {u"number"_s, bundled.number},
            {u"turn"_s, exchange.turn},
            {u"attempt"_s, exchange.attempt},
            {u"purpose"_s, purposeName(exchange.purpose)},
            {u"model"_s, exchange.model},
            {u"method"_s, latin1(exchange.method)},
            {u"url"_s, exchange.url.adjusted(QUrl::RemoveUserInfo).toString()},
            {u"started_at"_s, exchange.startedAt.toUTC().toString(Qt::ISODateWithMs)},
            {u"duration_ms"_s, exchange.durationMs},
            {u"first_byte_ms"_s, exchange.firstByteMs},
            {u"http_status"_s, exchange.httpStatus},
            {u"streamed"_s, exchange.streamed},
            {u"request_headers"_s, headersJson(exchange.requestHeaders)},
            {u"response_headers"_s, headersJson(exchange.responseHeaders)},
    };
    if (!exchange.errorString.isEmpty())
        object.insert(u"error"_s, exchange.errorString);
    if (!exchange.retryNotice.isEmpty())
        object.insert(u"retry_notice"_s, exchange.retryNotice);
    return object;
}

// "3", "3-attempt2", "4-compaction": unique within the bundle.
QString exchangeStem(const BundleExchange &bundled, QSet<QString> *taken)
{
    QString stem = u"%1"_s.arg(bundled.number, 3, 10, QChar(u'0'));
    if (bundled.exchange.purpose != ExchangePurpose::Turn)
        stem += u'-' + purposeName(bundled.exchange.purpose);
    if (bundled.exchange.attempt > 1)
        stem += u"-attempt%1"_s.arg(bundled.exchange.attempt);
    QString unique = stem;
    for (int n = 2; taken->contains(unique); ++n)
        unique = stem + u'-' + QString::number(n);
    taken->insert(unique);
    return unique;
}

bool isEventStream(const QString &entryName)
{
    return entryName.endsWith(u".sse"_s);
}

QString responseExtension(const Exchange &exchange)
{
    if (exchange.streamed)
        return u".sse"_s;
    QJsonParseError error;
    static_cast<void>(QJsonDocument::fromJson(exchange.responseBody, &error));
    return error.error == QJsonParseError::NoError ? u".json"_s : u".txt"_s;
}

// Every tool call of the history, in order, with the tool message that answered it.
QJsonArray toolRunsJson(const History &history)
{
    QHash<QString, QString> results;
    for (const Message &message : history.messages()) {
        if (message.role() == Role::Tool)
            results.insert(message.toolCallId(), message.content());
    }
    QJsonArray runs;
    int assistantTurn = 0;
    for (const Message &message : history.messages()) {
        if (message.role() != Role::Assistant)
            continue;
        ++assistantTurn;
        for (const ToolCall &call : message.toolCalls()) {
            QJsonObject run{{u"assistant_message"_s, assistantTurn},
                            {u"tool_call_id"_s, call.id},
                            {u"tool"_s, call.name},
                            {u"arguments"_s, call.arguments}};
            const auto result = results.constFind(call.id);
            run.insert(u"result"_s, result == results.cend() ? QJsonValue() : QJsonValue(*result));
            runs.append(run);
        }
    }
    return runs;
}

QJsonObject osJson()
{
    return {{u"name"_s, QSysInfo::prettyProductName()},
            {u"type"_s, QSysInfo::productType()},
            {u"version"_s, QSysInfo::productVersion()},
            {u"kernel"_s, QSysInfo::kernelType() + u' ' + QSysInfo::kernelVersion()},
            {u"cpu"_s, QSysInfo::currentCpuArchitecture()},
            {u"build_abi"_s, QSysInfo::buildAbi()}};
}

// "Name: value" lines with the values of credential headers redacted.
QString redactedHeaderLines(const QString &text)
{
    QStringList lines = text.split(u'\n');
    for (QString &line : lines) {
        const qsizetype colon = line.indexOf(u':');
        if (colon > 0 && isCredentialHeader(line.first(colon).trimmed().toLatin1()))
            line = line.first(colon + 1) + u' ' + QString::fromLatin1(redactedMarker);
    }
    return lines.join(u'\n');
}

// An entry of the settings file that holds a key or a password of its own.
bool isSecretSetting(const QString &key)
{
    QString name = key.section(u'/', -1).toLower();
    name.remove(u'_').remove(u'-');
    for (const QString &word : {u"apikey"_s,
                                u"secret"_s,
                                u"password"_s,
                                u"accesstoken"_s,
                                u"authtoken"_s,
                                u"refreshtoken"_s}) {
        if (name.endsWith(word))
            return true;
    }
    return name == u"token"_s;
}

QJsonValue settingJson(const QVariant &value)
{
    if (value.typeId() == QMetaType::QByteArray) {
        const QByteArray bytes = value.toByteArray();
        auto decoder = QStringDecoder(QStringDecoder::Utf8);
        const QString text = decoder(bytes);
        if (decoder.hasError())
            return BundleText::tr("(binary, %n byte(s))", nullptr, int(bytes.size()));
        return text;
    }
    const QJsonValue json = QJsonValue::fromVariant(value);
    return json.isUndefined() ? QJsonValue(value.toString()) : json;
}

} // namespace

bool isCredentialHeader(QByteArrayView name)
{
    const QByteArray lower = name.toByteArray().trimmed().toLower();
    if (lower == "authorization" || lower == "proxy-authorization" || lower == "cookie"
        || lower == "set-cookie")
        return true;
    QByteArray squeezed;
    for (const char c : lower) {
        if (c != '-' && c != '_')
            squeezed.append(c);
    }
    for (const char *word : {"apikey", "token", "secret", "password", "auth", "session"}) {
        if (squeezed.contains(word))
            return true;
    }
    return false;
}

QJsonObject settingsFileForBundle(const QSettings &file, QStringList *secrets)
{
    QJsonObject object;
    const QStringList keys = file.allKeys();
    for (const QString &key : keys) {
        const QVariant value = file.value(key);
        if (isSecretSetting(key)) {
            if (secrets && !value.toString().trimmed().isEmpty())
                secrets->append(value.toString());
            continue;
        }
        if (key.section(u'/', -1).compare(u"extraHeaders"_s, Qt::CaseInsensitive) == 0) {
            object.insert(key, redactedHeaderLines(value.toString()));
            continue;
        }
        object.insert(key, settingJson(value));
    }
    return object;
}

QJsonObject providerForBundle(const ProviderSettings &provider)
{
    QJsonObject headers;
    for (const auto &[name, value] : provider.extraHeaders) {
        headers.insert(latin1(name),
                       isCredentialHeader(name) ? QString::fromLatin1(redactedMarker)
                                                : latin1(value));
    }
    return {{u"base_url"_s, shownBaseUrl(provider.baseUrl)},
            {u"model"_s, provider.model},
            {u"auth"_s, authStyleName(provider.auth)},
            {u"key_set"_s, !provider.apiKey.isEmpty()},
            {u"extra_headers"_s, headers},
            {u"provider_id"_s, provider.providerId},
            {u"profile"_s, provider.profileName},
            {u"stream"_s, provider.stream},
            {u"stream_usage"_s, provider.streamUsage},
            {u"max_tokens"_s, provider.maxTokens},
            {u"request_timeout_ms"_s, qint64(provider.requestTimeout.count())},
            {u"max_response_bytes"_s, provider.maxResponseBytes},
            {u"max_answer_time_ms"_s, qint64(provider.maxAnswerTime.count())},
            {u"max_retries"_s, provider.retry.maxRetries}};
}

QList<ZipEntry> bugBundleEntries(const BugBundleContents &contents)
{
    const QStringList secrets = normalisedSecrets(contents.secrets);
    QList<ZipEntry> files;
    const auto add = [&](const QString &name, const QByteArray &data) {
        files.append({name,
                      withoutSecrets(isEventStream(name) ? redactedEventStream(data, secrets) : data,
                                     secrets)});
    };
    add(u"conversation/messages.json"_s, exportMessagesJson(contents.history));
    if (!contents.compactions.isEmpty()) {
        QJsonArray compactions;
        for (const Compaction &compaction : contents.compactions)
            compactions.append(compaction.toJson());
        add(u"conversation/compactions.json"_s, indented(compactions));
    }
    add(u"tool-runs.json"_s, indented(toolRunsJson(contents.history)));
    if (!contents.audit.isEmpty())
        add(u"audit.jsonl"_s, exportAuditJsonLines(contents.audit));
    QSet<QString> stems;
    for (const BundleExchange &bundled : contents.exchanges) {
        const Exchange &exchange = bundled.exchange;
        const QString stem = exchangeStem(bundled, &stems);
        add(u"requests/"_s + stem + u"-request.json"_s, exchange.requestBody);
        add(u"requests/"_s + stem + u"-headers.json"_s, indented(exchangeHeadersJson(bundled)));
        if (!exchange.responseBody.isEmpty() || exchange.httpStatus != 0)
            add(u"responses/"_s + stem + u"-response"_s + responseExtension(exchange),
                exchange.responseBody);
        if (exchange.streamed && !exchange.assembledMessage.isEmpty())
            add(u"responses/"_s + stem + u"-assembled.json"_s, exchange.assembledMessage);
    }
    add(u"settings.json"_s, indented(contents.settings));

    QJsonArray list;
    for (const ZipEntry &file : std::as_const(files))
        list.append(QJsonObject{{u"name"_s, file.name}, {u"bytes"_s, qint64(file.data.size())}});
    QJsonObject conversation;
    if (!contents.conversation.id.isEmpty()) {
        conversation = {{u"id"_s, contents.conversation.id},
                        {u"title"_s, contents.conversation.title},
                        {u"created"_s, contents.conversation.created.toUTC().toString(Qt::ISODate)},
                        {u"model"_s, contents.conversation.model}};
    }
    conversation.insert(u"messages"_s, qint64(contents.history.size()));
    conversation.insert(u"compactions"_s, qint64(contents.compactions.size()));
    conversation.insert(u"audit_lines"_s, qint64(contents.audit.size()));
    conversation.insert(u"exchanges"_s, qint64(contents.exchanges.size()));
    const QJsonObject manifest{
            {u"agentloop"_s, u"bug-bundle"_s},
            {u"version"_s, 1},
            {u"created"_s, contents.created.toUTC().toString(Qt::ISODateWithMs)},
            {u"application"_s,
             QJsonObject{{u"name"_s, contents.application},
                         {u"version"_s, QStringLiteral(AGENTLOOP_VERSION)}}},
            {u"qt"_s,
             QJsonObject{{u"runtime"_s, QString::fromLatin1(qVersion())},
                         {u"build"_s, QStringLiteral(QT_VERSION_STR)}}},
            {u"os"_s, osJson()},
            {u"provider"_s,
             QJsonObject{{u"base_url"_s, shownBaseUrl(contents.baseUrl)},
                         {u"model"_s, contents.model}}},
            {u"conversation"_s, conversation},
            {u"secrets_removed"_s,
             u"The API key and every other key known were removed from every file: as they are, "
             "URL-encoded, JSON-escaped, base64 (both alphabets, every alignment), hex and UTF-16; "
             "credential headers are redacted. The finished archive was scanned for them before "
             "it was kept."_s},
            {u"files"_s, list},
    };
    files.prepend({u"manifest.json"_s, withoutSecrets(indented(manifest), secrets)});
    return files;
}

QStringList entriesHoldingSecrets(const QList<ZipEntry> &entries, const QStringList &secrets)
{
    const QStringList normalised = normalisedSecrets(secrets);
    QStringList found;
    for (const ZipEntry &entry : entries) {
        // A raw stream is also scanned with its pieces of text joined.
        const bool holds = isEventStream(entry.name)
                                   ? eventStreamHoldsSecret(entry.data, normalised)
                                   : holdsSecret(entry.data, normalised);
        if (holds || holdsSecret(entry.name.toUtf8(), normalised))
            found.append(entry.name);
    }
    return found;
}

Result<void> writeBugBundle(const QString &path,
                            const QList<ZipEntry> &entries,
                            const QStringList &secrets,
                            const QDateTime &created)
{
    const QString shownPath = QDir::toNativeSeparators(path);
    const Result<QByteArray> archive = zipArchive(entries, created);
    if (!archive)
        return archive.error();
    // The archive as it will be on disk, read back entry by entry: what a reader of the file
    // would find, whatever the writer did.
    const Result<QList<ZipEntry>> readBack = readZipArchive(*archive);
    if (!readBack)
        return Error(Error::Io,
                     BundleText::tr("The bug bundle was not saved: %1")
                             .arg(readBack.error().message));
    QStringList found = entriesHoldingSecrets(*readBack, secrets);
    if (found.isEmpty() && holdsSecret(*archive, normalisedSecrets(secrets)))
        found.append(BundleText::tr("the archive's headers"));
    if (!found.isEmpty()) {
        return Error(Error::Io,
                     BundleText::tr("The bug bundle was not saved: a key was still found in %1 "
                                    "after it had been removed.")
                             .arg(found.join(u", "_s)),
                     BundleText::tr("Please report this: the bundle would have held your key."));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error(Error::Io,
                     BundleText::tr("Cannot write the bug bundle %1: %2")
                             .arg(shownPath, file.errorString()));
    if (file.write(*archive) != archive->size() || !file.commit())
        return Error(Error::Io,
                     BundleText::tr("Cannot write the bug bundle %1: %2")
                             .arg(shownPath, file.errorString()));
    return {};
}

} // namespace AgentLoop
