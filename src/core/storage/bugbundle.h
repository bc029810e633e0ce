#pragma once

#include "base/result.h"
#include "base/ziparchive.h"
#include "context/compaction.h"
#include "protocol/exchange.h"
#include "protocol/history.h"
#include "protocol/providersettings.h"
#include "storage/conversationstore.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

class QSettings;

namespace AgentLoop {

// One exchange with the provider for a bug bundle, under the request number the conversation
// gives it (the inspector's; several attempts of one request share it).
struct BundleExchange
{
    int number = 0;
    Exchange exchange;
};

// Everything a bug bundle is made of, as the front end has it; bugBundleEntries() turns it into
// files with every secret removed.
struct BugBundleContents
{
    QString application; // the front end that made it: "agentloop" or "agentloop-cli"
    QUrl baseUrl;        // the provider's, never with credentials (they are cut off)
    QString model;
    ConversationHeader conversation; // an empty id: the conversation was not saved
    History history;
    QList<Compaction> compactions;
    QList<QJsonObject> audit; // agent/audittrail.h's lines
    QList<BundleExchange> exchanges;
    QJsonObject settings; // settings.json (see settingsFileForBundle(), providerForBundle())
    // The key in use and every other key known (other profiles' kept in the settings file): each
    // is removed wherever it appears, in every encoding redacted() knows.
    QStringList secrets;
    QDateTime created = QDateTime::currentDateTimeUtc();
};

// Whether a header carries a credential, so that its value never goes into a bundle:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, and any name with "api-key",
// "apikey", "token", "secret", "password", "auth" or "session" in it (case-insensitive).
bool isCredentialHeader(QByteArrayView name);

// The settings file (the app's, openSettingsFile()) as one JSON object of its keys and values,
// for settings.json: a key kept in it (provider/apiKey, profiles/<id>/apiKey, or any entry named
// like one) is left out and its value added to secrets, and the credential headers of a
// profile's extra headers are redacted.
QJsonObject settingsFileForBundle(const QSettings &file, QStringList *secrets);
// The provider a run uses, without its key and with its credential headers redacted.
QJsonObject providerForBundle(const ProviderSettings &provider);

// The bundle's files, every secret removed from each, the manifest first:
//   manifest.json                  what is in it: versions (app, Qt at run time and at build
//                                  time, the OS), the provider's base URL and model, the time
//   conversation/messages.json     the history, as the next request would send it
//   conversation/compactions.json  the compactions in force, when there are any
//   tool-runs.json                 every tool call with its arguments and the result it got
//   audit.jsonl                    the audit trail's lines, when there are any
//   requests/<n>-request.json      the exact request bodies sent
//   requests/<n>-headers.json      method, URL, status, headers both ways, timings, errors
//   responses/<n>-response.json    the exact body received (.sse: the raw events as received)
//   responses/<n>-assembled.json   for a stream, the assistant message assembled from it
//   settings.json                  the settings, without any key
QList<ZipEntry> bugBundleEntries(const BugBundleContents &contents);

// The names of the entries in which a secret still appears in any encoding redacted() knows
// (an entry's name counts as part of it); empty when none does.
QStringList entriesHoldingSecrets(const QList<ZipEntry> &entries, const QStringList &secrets);

// Writes entries as one zip at path, through a temporary file that replaces path only once the
// finished archive has been read back and no secret was found in any entry's stored bytes, nor
// anywhere in the archive. Otherwise nothing is kept, and the error says so. Blocking: run it off
// the GUI thread.
Result<void> writeBugBundle(const QString &path,
                            const QList<ZipEntry> &entries,
                            const QStringList &secrets,
                            const QDateTime &created = QDateTime::currentDateTimeUtc());

} // namespace AgentLoop
