#pragma once

#include "protocol/providersettings.h"

#include <QList>
#include <QString>

#include <memory>
#include <optional>

class QSettings;

namespace AgentLoop {

// The desktop app's settings file (an INI file on every platform: organization "AgentLoop",
// application "Agent Loop"), which the CLI reads too for --profile.
std::unique_ptr<QSettings> openSettingsFile();

// A named way to reach a provider: what ProviderSettings needs, minus the key (kept in the
// credential store, one entry per profile: KeyStore::entryForProfile(id)) and the limits every
// profile shares (timeouts, retries, answer size).
//
// The default profile (id "default") is the app's original provider/* settings, which
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL override; the others live under profiles/<id>/.
struct ProviderProfile
{
    static constexpr char defaultId[] = "default";

    QString id;       // stable: the settings group and the key's entry
    QString name;     // what the user calls it; unique among profiles (case-insensitive)
    QString presetId; // the preset it was made from (providerpresets.h); empty: custom
    QString baseUrl;
    QString model;
    AuthStyle auth = AuthStyle::Bearer;
    ExtraHeaders extraHeaders;
    bool stream = true;
    bool streamUsage = true;
    int maxTokens = 0; // 0: not sent
    // Under which name maxTokens goes; a profile saved without it takes its preset's.
    MaxTokensField maxTokensField = MaxTokensField::MaxTokens;

    bool isDefault() const { return id == QLatin1String(defaultId); }
    // The settings for this profile with this key, on top of shared (timeouts, retries, limits).
    ProviderSettings settings(const QString &apiKey, const ProviderSettings &shared = {}) const;

    friend bool operator==(const ProviderProfile &, const ProviderProfile &) = default;
};

// "Name: value" lines, one header each, as the settings dialog edits them; lines without a name
// are skipped. Header names are checked as HTTP tokens; values may not hold line breaks.
ExtraHeaders parseExtraHeaders(const QString &text);
QString extraHeadersText(const ExtraHeaders &headers);

QString authStyleName(AuthStyle auth); // "bearer", "api-key", "none": as stored
AuthStyle authStyleFromName(const QString &name);

// Profiles other than the default one, in the order they were made; and the one in use (empty:
// the default profile).
QList<ProviderProfile> loadProfiles(QSettings &file);
void saveProfiles(QSettings &file, const QList<ProviderProfile> &profiles);
QString loadCurrentProfileId(QSettings &file);
void saveCurrentProfileId(QSettings &file, const QString &id);

// The default profile's own fields (not the key), kept under provider/ as before profiles.
void readDefaultProfileExtras(QSettings &file, ProviderProfile &profile);
void writeDefaultProfileExtras(QSettings &file, const ProviderProfile &profile);
// The default profile as the settings file has it (provider/*, without the environment's
// overrides), named defaultName.
ProviderProfile readDefaultProfile(QSettings &file, const QString &defaultName);
// Writes one profile's fields where they belong (provider/* for the default profile), leaving
// the others as they are.
void saveProfile(QSettings &file, const ProviderProfile &profile);

// Keeps a profile's streaming switches (what the client learned: ProviderAdjustment), leaving
// everything else of it as the file has it; nothing when there is no such profile.
void saveProfileSwitches(QSettings &file, const QString &profileId, bool stream, bool streamUsage);

// Where a profile's key is when it is not in the credential store: the settings file, in plain
// text, when the user chose that (provider/storeKeyInPlainText).
bool keysInPlainText(QSettings &file);
QString plainTextKeyName(const QString &profileId); // "provider/apiKey", "profiles/<id>/apiKey"

// The profile called name (case-insensitive) or with that id, among profiles.
std::optional<ProviderProfile> findProfile(const QList<ProviderProfile> &profiles,
                                           const QString &nameOrId);
// A new id no profile has: "p" and 8 hex digits.
QString newProfileId(const QList<ProviderProfile> &profiles);
// name, or "name 2", "name 3"... when a profile is called that already.
QString uniqueProfileName(const QList<ProviderProfile> &profiles, const QString &name);

} // namespace AgentLoop
