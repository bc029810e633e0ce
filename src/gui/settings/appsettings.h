#pragma once

#include "agent/agentsession.h"
#include "context/modelprice.h"
#include "storage/providerprofiles.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <functional>

class QMainWindow;
#include <optional>

namespace AgentLoop {
class KeyStore;
struct ProviderAdjustment;
} // namespace AgentLoop

namespace Gui {

// One entry of the settings file: the key it is stored under and the value it has when the file
// has none.
template<typename T>
struct SettingSpec
{
    const char *key;
    T defaultValue;
};

// A whole number chosen from a range: the dialog offers exactly this range, and load() clamps a
// value outside it (a hand-edited file) into it.
template<>
struct SettingSpec<int>
{
    const char *key;
    int defaultValue;
    int minimum;
    int maximum;

    constexpr int bounded(int value) const { return std::clamp(value, minimum, maximum); }
};

// Every entry of the settings file, declared once and named after AppSettings' fields:
// AppSettings' defaults, load(), save() and the settings dialog all read them, so they cannot
// drift apart.
namespace SettingsFile {
const SettingSpec<QString> baseUrl{"provider/baseUrl", {}};
const SettingSpec<QString> model{"provider/model", {}};
const SettingSpec<QString> apiKey{"provider/apiKey", {}};
constexpr SettingSpec<bool> storeKeyInPlainText{"provider/storeKeyInPlainText", false};
constexpr SettingSpec<int> requestTimeoutSeconds{"provider/requestTimeoutSeconds", 120, 5, 3600};
constexpr SettingSpec<bool> stream{"provider/stream", true};
constexpr SettingSpec<int> maxRetries{"provider/maxRetries", 3, 0, 10};
constexpr SettingSpec<int> maxResponseMegabytes{"provider/maxResponseMegabytes", 64, 1, 1024};
constexpr SettingSpec<int> maxAnswerMinutes{"provider/maxAnswerMinutes", 10, 1, 1440};
constexpr SettingSpec<int> maxTurns{"agent/maxTurns", 20, 1, 200};
const SettingSpec<QString> workspace{"agent/workspace", {}}; // empty: the home folder
// Nothing stored yet: a first start, which shows the demo.
constexpr SettingSpec<bool> demoMode{"agent/demoMode", true};
// The built-in read-only commands (PermissionPolicy::readOnlyCommandRules()) run without asking.
constexpr SettingSpec<bool> readOnlyCommands{"permissions/readOnlyCommands", false};
// Settings › Context (AgentLoop::ContextOptions, confirmCompaction, contextWindows).
constexpr SettingSpec<bool> autoCompact{"context/autoCompact", true};
constexpr SettingSpec<int> compactAtPercent{"context/compactAtPercent", 80, 50, 95};
constexpr SettingSpec<bool> confirmCompaction{"context/confirmCompaction", true};
constexpr SettingSpec<int> stubAboveChars{"context/stubAboveChars", 2000, 200, 1'000'000};
constexpr SettingSpec<int> keepRecentExchanges{"context/keepRecentExchanges", 4, 1, 50};
constexpr SettingSpec<bool> projectInstructions{"context/projectInstructions", true};
constexpr SettingSpec<int> maxContinuations{"context/maxContinuations", 3, 0, 10};
// One entry per model under this group, its id percent-encoded ("openai%2Fgpt-4o"); 0 or none:
// automatic.
constexpr SettingSpec<int> contextWindow{"context/windows", 0, 0, 100'000'000};
// One group per model under this one, its id percent-encoded, holding "input" and "output" (per
// million tokens) and "currency" (Settings › Context; the inspector turns tokens into money).
constexpr char modelPrices[] = "context/prices";
// Settings › Context's fallback models, in order: an array of (model, profile) entries.
constexpr char fallbackModels[] = "context/fallbackModels";
const SettingSpec<QByteArray> windowGeometry{"window/geometry", {}};
const SettingSpec<QByteArray> windowState{"window/state", {}};
} // namespace SettingsFile

// A model the session turns to when the current one fails (AgentOptions::fallbacks): the model,
// and the profile that reaches it (empty: the profile in use).
struct FallbackModel
{
    QString model;
    QString profileId;
    friend bool operator==(const FallbackModel &, const FallbackModel &) = default;
};

// The desktop app's settings, kept with QSettings in an INI file (organization "AgentLoop",
// application "Agent Loop"; settingsFilePath() says where) on every platform, so that what is on
// disk can be read and searched.
//
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL from the environment, then from the .env file
// in the working directory, override the stored values when set (a configured shell starts a
// configured app); environmentOverrides records which did, and save() never copies an inherited
// value into the file or the credential store.
//
// Provider profiles: the fields above (baseUrl, apiKey, model, stream and the default profile's
// extras) are the default profile, named "Default", which the environment overrides as before;
// profiles holds the others (under profiles/<id>/ in the file, each key in its own entry of the
// credential store, or under profiles/<id>/apiKey with storeKeyInPlainText), and
// currentProfileId the one in use (empty: the default profile). provider() and isConfigured()
// speak of the current profile.
//
// The API key is not in the file unless storeKeyInPlainText is set. Otherwise it lives in the
// credential store, which answers asynchronously: load() leaves apiKey empty when the key is in
// the store (keyIsInStore()), and the caller fills it in when KeyStore::keyRead() arrives (see
// storage/keystore.h). Until then isConfigured() is false.
struct AppSettings
{
    QString baseUrl;
    QString apiKey;
    QString model;
    int maxTurns = SettingsFile::maxTurns.defaultValue;
    QString workspace;
    int requestTimeoutSeconds = SettingsFile::requestTimeoutSeconds.defaultValue;
    // Ask for the answer as Server-Sent Events and show it as it is written; off for providers
    // that reject `stream: true`.
    bool stream = SettingsFile::stream.defaultValue;
    // How often a request that met a rate limit, a server error or a refused connection is sent
    // again (so at most maxRetries + 1 attempts).
    int maxRetries = SettingsFile::maxRetries.defaultValue;
    // The most one answer may bring, and take (however steadily it arrives), before it is given
    // up: a provider cannot exhaust memory or keep a turn going for ever.
    int maxResponseMegabytes = SettingsFile::maxResponseMegabytes.defaultValue;
    int maxAnswerMinutes = SettingsFile::maxAnswerMinutes.defaultValue;
    // The built-in scripted model (see demoprovider.h). On first start, with nothing stored and
    // no complete provider in the environment, load() turns it on (SettingsFile::demoMode);
    // settings made in code are not the demo unless they say so.
    bool demoMode = false;
    // PermissionOptions::readOnlyCommands: off, so that even `echo 42` asks until the user says.
    bool readOnlyCommands = SettingsFile::readOnlyCommands.defaultValue;
    // The context budget, compaction and continuation (context/contextoptions.h), from the
    // context/ entries of SettingsFile; contextWindow there is left 0: sessionConfiguration()
    // puts the current model's entry of contextWindows in.
    AgentLoop::ContextOptions context;
    // The user's window per model id (Settings › Context); a model without one uses the
    // provider's metadata, the built-in table or 128 000.
    QHash<QString, qint64> contextWindows;
    // The user's price per model id (Settings › Context); a model without one shows no cost.
    AgentLoop::ModelPrices modelPrices;
    // Tried in order when the model is not found, or stays rate-limited or failing after the
    // retries (Settings › Context).
    QList<FallbackModel> fallbackModels;
    // Ask before an automatic compaction (the preview); "Compact now" never asks.
    bool confirmCompaction = SettingsFile::confirmCompaction.defaultValue;
    // Only when the user ticks it: the key goes into the settings file in plain text.
    bool storeKeyInPlainText = SettingsFile::storeKeyInPlainText.defaultValue;

    // The default profile's fields beyond baseUrl, model and stream (kept under provider/).
    QString presetId;
    AgentLoop::AuthStyle auth = AgentLoop::AuthStyle::Bearer;
    AgentLoop::ExtraHeaders extraHeaders;
    bool streamUsage = true;
    int maxTokens = 0;
    AgentLoop::MaxTokensField maxTokensField = AgentLoop::MaxTokensField::MaxTokens;
    // The profiles other than the default one, in the order they were made.
    QList<AgentLoop::ProviderProfile> profiles;
    // The keys of those profiles known so far, by profile id (the default profile's is apiKey).
    QHash<QString, QString> profileKeys;
    // The profile in use; empty: the default profile.
    QString currentProfileId;

    // Names of the OPENAI_* variables that set a value, from the environment or the .env file.
    QStringList environmentOverrides;
    // Those of them that came from the .env file, and its path.
    QStringList dotEnvOverrides;
    QString dotEnvPath;
    // What the environment set, by variable name: a field still equal to it is inherited, not
    // the user's.
    QMap<QString, QString> environmentValues;
    // Why the .env file could not be read, when it could not; the app starts anyway.
    QString loadWarning;

    // The stored settings, then the process environment and the .env in the working directory.
    // Synchronous; the key arrives later when keyIsInStore(). load() reads this process's
    // environment and then removes OPENAI_API_KEY from it (see environmentscrub.h): call it once.
    static AppSettings load();
    static AppSettings load(const QProcessEnvironment &environment, const QString &directory);

    // Writes every field but the key to the settings file; the key only when storeKeyInPlainText
    // (and otherwise removes it from the file).
    void save() const;
    // save(), and the key to the credential store (or out of it, when it is now kept in the
    // file). Asynchronous for the key: keyStore reports with keyWritten() / keyDeleted().
    void save(AgentLoop::KeyStore &keyStore) const;

    // The default profile (its name translated: "Default"), and every profile, default first.
    AgentLoop::ProviderProfile defaultProfile() const;
    QList<AgentLoop::ProviderProfile> allProfiles() const;
    // The profile in use: the one currentProfileId names, else the default profile.
    AgentLoop::ProviderProfile currentProfile() const;
    // Replaces the profile with profile.id (the default one: its fields above); false when no
    // profile has that id.
    bool updateProfile(const AgentLoop::ProviderProfile &profile);
    // A profile's key as far as known (apiKey for the default one), and setting it.
    QString keyOf(const QString &profileId) const;
    void setKeyOf(const QString &profileId, const QString &key);
    // These settings with key as the current profile's.
    AppSettings withCurrentKey(const QString &key) const;
    // The key store of a profile: base itself for the default profile, else a store of the same
    // backend and service for the profile's own entry, kept as base's child.
    static AgentLoop::KeyStore &keyStoreFor(AgentLoop::KeyStore &base, const QString &profileId);

    // A real provider can be used with the current profile: a valid base URL, a model and a key
    // (no key when the profile sends none).
    bool isConfigured() const;
    // What ChatClient needs: the demo's settings in demo mode, else the entered ones.
    AgentLoop::ProviderSettings provider() const;
    // What ChatClient needs for a fallback: its profile's settings (the current profile's when it
    // names none, or one that is gone) with its model.
    AgentLoop::ProviderSettings fallbackProvider(const FallbackModel &fallback) const;
    // What the agent session runs with: the provider, the turn limit, the workspace, demo mode,
    // the permission options, and the rules of the app's rules file as it is now (read here, so
    // that rules saved from an approval since are not lost on the next change of settings); the
    // MCP servers of the app's mcp.json and of the workspace's when the user trusted it
    // (mcpServersToRun()).
    AgentLoop::SessionConfiguration sessionConfiguration() const;
    // The rules of the app's rules file (appRuleFilePath()). One that cannot be read gives a rule
    // that names no tool, which denies every call until the file is fixed: a broken file must not
    // loosen anything.
    static QList<AgentLoop::PermissionRule> appRules();

    // The current profile's key belongs in the credential store: not set by the environment, not
    // kept in the file.
    bool keyIsInStore() const;
    // Calls done with the current profile's key read from its store (keyStoreFor(keyStore)) when
    // keyIsInStore() and no key is known yet (later, from the store's answer; empty when it has
    // none), else at once with an empty one.
    void readStoredKey(AgentLoop::KeyStore &keyStore,
                       QObject *receiver,
                       std::function<void(const QString &key)> done) const;
    bool isOverridden(const char *variable) const;
    bool isInherited(const char *variable, const QString &value) const;
    // "Set by OPENAI_MODEL in the environment" / "Set by OPENAI_MODEL in /path/.env", or empty.
    QString overrideNote(const char *variable) const;

    static QString settingsFilePath();
    // These settings with another current profile, and not the demo (the main window's quick
    // switch); nullopt when there is no such profile.
    std::optional<AppSettings> withProfile(const QString &profileId) const;
    // The current profile with what the client learned from a provider that refused a field
    // (stream_options, or streaming with tools) turned off, here and in the settings file (only
    // that profile's stream and streamUsage switches are written); the profile as it is now.
    AgentLoop::ProviderProfile keepAdjustment(const AgentLoop::ProviderAdjustment &adjustment);
    static void saveProfileSwitches(const AgentLoop::ProviderProfile &profile);

    // The main window's size, position and docks, kept in the same file (under window/).
    struct WindowLayout
    {
        QByteArray geometry; // QWidget::saveGeometry()
        QByteArray state;    // QMainWindow::saveState(stateVersion)

        // Given to saveState() and restoreState(): a state saved with another version is not
        // restored (raise it when the docks change).
        static constexpr int stateVersion = 1;

        static WindowLayout of(const QMainWindow &window);
        void restore(QMainWindow &window) const;
    };
    // Empty when nothing is saved.
    static WindowLayout loadWindowLayout();
    static void saveWindowLayout(const WindowLayout &layout);
    // The compaction box's "Don't ask again": that one entry, the rest of the file as it is.
    static void saveConfirmCompaction(bool confirm);
};

} // namespace Gui

Q_DECLARE_METATYPE(Gui::AppSettings)
