#include "settings/appsettings.h"

#include "base/environmentscrub.h"
#include "protocol/providerpresets.h"
#include "provider/chatclient.h"
#include "provider/demoprovider.h"
#include "settings/mcpsettings.h"
#include "storage/config.h"
#include "storage/keystore.h"
#include "storage/providerprofiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMainWindow>
#include <QSettings>
#include <QUrl>

#include <cmath>
#include <memory>

using namespace Qt::StringLiterals;
using AgentLoop::KeyStore;

namespace Gui {

namespace {

struct AppSettingsText
{
    Q_DECLARE_TR_FUNCTIONS(Gui::AppSettings)
};

std::unique_ptr<QSettings> settingsFile()
{
    return AgentLoop::openSettingsFile();
}

QString read(const QSettings &file, const SettingSpec<QString> &setting)
{
    return file.value(QLatin1String(setting.key), setting.defaultValue).toString();
}

QByteArray read(const QSettings &file, const SettingSpec<QByteArray> &setting)
{
    return file.value(QLatin1String(setting.key), setting.defaultValue).toByteArray();
}

bool read(const QSettings &file, const SettingSpec<bool> &setting)
{
    return file.value(QLatin1String(setting.key), setting.defaultValue).toBool();
}

int read(const QSettings &file, const SettingSpec<int> &setting)
{
    return setting.bounded(file.value(QLatin1String(setting.key), setting.defaultValue).toInt());
}

template<typename T>
void write(QSettings &file, const SettingSpec<T> &setting, const T &value)
{
    file.setValue(QLatin1String(setting.key), value);
}

void readContext(QSettings &file, AppSettings &settings)
{
    AgentLoop::ContextOptions &context = settings.context;
    context.autoCompact = read(file, SettingsFile::autoCompact);
    context.compactAt = read(file, SettingsFile::compactAtPercent) / 100.0;
    context.stubAboveChars = read(file, SettingsFile::stubAboveChars);
    context.keepRecentExchanges = read(file, SettingsFile::keepRecentExchanges);
    context.projectInstructions = read(file, SettingsFile::projectInstructions);
    context.maxContinuations = read(file, SettingsFile::maxContinuations);
    settings.confirmCompaction = read(file, SettingsFile::confirmCompaction);
    const int count = file.beginReadArray(QLatin1String(SettingsFile::fallbackModels));
    for (int i = 0; i < count; ++i) {
        file.setArrayIndex(i);
        const FallbackModel fallback{file.value(u"model"_s).toString().trimmed(),
                                     file.value(u"profile"_s).toString()};
        if (!fallback.model.isEmpty())
            settings.fallbackModels.append(fallback);
    }
    file.endArray();
    const QString group = QLatin1String(SettingsFile::contextWindow.key) + u'/';
    for (const QString &key : file.allKeys()) {
        if (!key.startsWith(group))
            continue;
        const QString model = QUrl::fromPercentEncoding(key.sliced(group.size()).toUtf8());
        const int tokens = SettingsFile::contextWindow.bounded(file.value(key).toInt());
        if (!model.isEmpty() && tokens > 0)
            settings.contextWindows.insert(model, tokens);
    }
    file.beginGroup(QLatin1String(SettingsFile::modelPrices));
    for (const QString &key : file.childGroups()) {
        const QString model = QUrl::fromPercentEncoding(key.toUtf8());
        // A price is a figure from a price list: negative, NaN or absurd values are not one.
        const auto price = [&](const QString &name) {
            const double value = file.value(key + u'/' + name).toDouble();
            return std::isfinite(value) && value > 0 && value < 1e6 ? value : 0.0;
        };
        const AgentLoop::ModelPrice entry{price(u"input"_s),
                                          price(u"output"_s),
                                          file.value(key + u"/currency"_s).toString().left(8)};
        if (!model.isEmpty() && entry.isSet())
            settings.modelPrices.insert(model, entry);
    }
    file.endGroup();
}

void writeContext(QSettings &file, const AppSettings &settings)
{
    const AgentLoop::ContextOptions &context = settings.context;
    write(file, SettingsFile::autoCompact, context.autoCompact);
    write(file, SettingsFile::compactAtPercent, int(std::lround(context.compactAt * 100)));
    write(file, SettingsFile::stubAboveChars, context.stubAboveChars);
    write(file, SettingsFile::keepRecentExchanges, context.keepRecentExchanges);
    write(file, SettingsFile::projectInstructions, context.projectInstructions);
    write(file, SettingsFile::maxContinuations, context.maxContinuations);
    write(file, SettingsFile::confirmCompaction, settings.confirmCompaction);
    file.remove(QLatin1String(SettingsFile::fallbackModels));
    if (!settings.fallbackModels.isEmpty()) {
        file.beginWriteArray(QLatin1String(SettingsFile::fallbackModels),
                             int(settings.fallbackModels.size()));
        for (int i = 0; i < settings.fallbackModels.size(); ++i) {
            file.setArrayIndex(i);
            file.setValue(u"model"_s, settings.fallbackModels.at(i).model.trimmed());
            file.setValue(u"profile"_s, settings.fallbackModels.at(i).profileId);
        }
        file.endArray();
    }
    const QString group = QLatin1String(SettingsFile::contextWindow.key);
    file.remove(group);
    for (auto it = settings.contextWindows.cbegin(); it != settings.contextWindows.cend(); ++it) {
        // A model id may hold "/" (a gateway's "vendor/model"), which QSettings reads as a group.
        const QString key = QString::fromLatin1(QUrl::toPercentEncoding(it.key()));
        if (!it.key().isEmpty() && it.value() > 0)
            file.setValue(group + u'/' + key, SettingsFile::contextWindow.bounded(int(it.value())));
    }
    const QString prices = QLatin1String(SettingsFile::modelPrices);
    file.remove(prices);
    for (auto it = settings.modelPrices.cbegin(); it != settings.modelPrices.cend(); ++it) {
        if (it.key().isEmpty() || !it.value().isSet())
            continue;
        const QString key = prices + u'/' + QString::fromLatin1(QUrl::toPercentEncoding(it.key()));
        file.setValue(key + u"/input"_s, it.value().inputPerMillion);
        file.setValue(key + u"/output"_s, it.value().outputPerMillion);
        file.setValue(key + u"/currency"_s, it.value().currency);
    }
}

// By id only (findProfile() also takes a name).
bool hasProfile(const QList<AgentLoop::ProviderProfile> &profiles, const QString &id)
{
    return std::any_of(profiles.cbegin(),
                       profiles.cend(),
                       [&](const AgentLoop::ProviderProfile &p) { return p.id == id; });
}

} // namespace

AppSettings AppSettings::load()
{
    AppSettings settings = load(QProcessEnvironment::systemEnvironment(), QDir::currentPath());
    // settings has its own copy of the key (apiKey, environmentValues), and nothing reads it
    // from the environment again: out of it, so that a command cannot read it back from
    // /proc/<this process>/environ.
    AgentLoop::removeFromOwnEnvironment(AgentLoop::apiKeyVariable);
    return settings;
}

AppSettings AppSettings::load(const QProcessEnvironment &environment, const QString &directory)
{
    const std::unique_ptr<QSettings> file = settingsFile();
    AppSettings settings;
    settings.baseUrl = read(*file, SettingsFile::baseUrl);
    settings.model = read(*file, SettingsFile::model);
    settings.storeKeyInPlainText = read(*file, SettingsFile::storeKeyInPlainText);
    if (settings.storeKeyInPlainText)
        settings.apiKey = read(*file, SettingsFile::apiKey);
    settings.requestTimeoutSeconds = read(*file, SettingsFile::requestTimeoutSeconds);
    settings.stream = read(*file, SettingsFile::stream);
    settings.maxRetries = read(*file, SettingsFile::maxRetries);
    settings.maxResponseMegabytes = read(*file, SettingsFile::maxResponseMegabytes);
    settings.maxAnswerMinutes = read(*file, SettingsFile::maxAnswerMinutes);
    settings.maxTurns = read(*file, SettingsFile::maxTurns);
    settings.workspace = read(*file, SettingsFile::workspace);
    settings.readOnlyCommands = read(*file, SettingsFile::readOnlyCommands);
    readContext(*file, settings);
    if (settings.workspace.isEmpty())
        settings.workspace = QDir::homePath();
    AgentLoop::ProviderProfile extras;
    AgentLoop::readDefaultProfileExtras(*file, extras);
    settings.presetId = extras.presetId;
    settings.auth = extras.auth;
    settings.extraHeaders = extras.extraHeaders;
    settings.streamUsage = extras.streamUsage;
    settings.maxTokens = extras.maxTokens;
    settings.maxTokensField = extras.maxTokensField;
    settings.profiles = AgentLoop::loadProfiles(*file);
    for (const AgentLoop::ProviderProfile &profile : std::as_const(settings.profiles)) {
        if (settings.storeKeyInPlainText)
            settings.profileKeys
                    .insert(profile.id,
                            file->value(AgentLoop::plainTextKeyName(profile.id)).toString());
    }
    settings.currentProfileId = AgentLoop::loadCurrentProfileId(*file);
    if (!hasProfile(settings.profiles, settings.currentProfileId))
        settings.currentProfileId.clear();

    const QString dotEnvPath = QDir(directory).absoluteFilePath(u".env"_s);
    QMap<QString, QString> dotEnv;
    if (const auto read = AgentLoop::readDotEnv(dotEnvPath); read)
        dotEnv = *read;
    else
        settings.loadWarning = read.error().toString();

    const auto inherit = [&](const char *variable, QString &field) {
        const QString name = QString::fromLatin1(variable);
        QString value = environment.value(name).trimmed();
        bool fromDotEnv = false;
        if (value.isEmpty()) {
            value = dotEnv.value(name).trimmed();
            fromDotEnv = !value.isEmpty();
        }
        if (value.isEmpty())
            return;
        field = value;
        settings.environmentOverrides.append(name);
        settings.environmentValues.insert(name, value);
        if (fromDotEnv) {
            settings.dotEnvOverrides.append(name);
            settings.dotEnvPath = dotEnvPath;
        }
    };
    inherit(AgentLoop::baseUrlVariable, settings.baseUrl);
    inherit(AgentLoop::apiKeyVariable, settings.apiKey);
    inherit(AgentLoop::modelVariable, settings.model);

    // A shell that sets all three means "use this provider", whatever was chosen before.
    const bool environmentComplete = settings.environmentOverrides.size() == 3;
    settings.demoMode = environmentComplete ? false : read(*file, SettingsFile::demoMode);
    // And it is the default profile that the environment sets.
    if (environmentComplete)
        settings.currentProfileId.clear();
    return settings;
}

void AppSettings::save() const
{
    const std::unique_ptr<QSettings> file = settingsFile();
    if (!isInherited(AgentLoop::baseUrlVariable, baseUrl))
        write(*file, SettingsFile::baseUrl, baseUrl.trimmed());
    if (!isInherited(AgentLoop::modelVariable, model))
        write(*file, SettingsFile::model, model.trimmed());
    write(*file, SettingsFile::storeKeyInPlainText, storeKeyInPlainText);
    if (!storeKeyInPlainText)
        file->remove(QLatin1String(SettingsFile::apiKey.key));
    else if (!isInherited(AgentLoop::apiKeyVariable, apiKey))
        write(*file, SettingsFile::apiKey, apiKey.trimmed());
    write(*file, SettingsFile::requestTimeoutSeconds, requestTimeoutSeconds);
    write(*file, SettingsFile::stream, stream);
    write(*file, SettingsFile::maxRetries, maxRetries);
    write(*file, SettingsFile::maxResponseMegabytes, maxResponseMegabytes);
    write(*file, SettingsFile::maxAnswerMinutes, maxAnswerMinutes);
    write(*file, SettingsFile::maxTurns, maxTurns);
    write(*file, SettingsFile::workspace, workspace);
    write(*file, SettingsFile::demoMode, demoMode);
    write(*file, SettingsFile::readOnlyCommands, readOnlyCommands);
    writeContext(*file, *this);
    AgentLoop::writeDefaultProfileExtras(*file, defaultProfile());
    AgentLoop::saveProfiles(*file, profiles);
    for (const AgentLoop::ProviderProfile &profile : profiles) {
        if (storeKeyInPlainText)
            file->setValue(AgentLoop::plainTextKeyName(profile.id), keyOf(profile.id).trimmed());
        else
            file->remove(AgentLoop::plainTextKeyName(profile.id));
    }
    AgentLoop::saveCurrentProfileId(*file, currentProfileId);
    file->sync();
    // Owner-only on Unix: the file may hold a key the user chose to keep there.
    QFile::setPermissions(file->fileName(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void AppSettings::save(AgentLoop::KeyStore &keyStore) const
{
    QList<AgentLoop::ProviderProfile> saved;
    {
        const std::unique_ptr<QSettings> file = settingsFile();
        saved = AgentLoop::loadProfiles(*file);
    }
    save();
    // A profile that is gone takes its key with it.
    for (const AgentLoop::ProviderProfile &profile : std::as_const(saved)) {
        if (!hasProfile(profiles, profile.id))
            keyStoreFor(keyStore, profile.id).deleteKey();
    }
    for (const AgentLoop::ProviderProfile &profile : profiles) {
        KeyStore &store = keyStoreFor(keyStore, profile.id);
        if (storeKeyInPlainText)
            store.deleteKey();
        else if (profileKeys.contains(profile.id)) // a key never read is left as it is
            store.writeKey(profileKeys.value(profile.id).trimmed());
    }
    if (isInherited(AgentLoop::apiKeyVariable, apiKey))
        return;
    if (storeKeyInPlainText)
        keyStore.deleteKey();
    else
        keyStore.writeKey(apiKey.trimmed());
}

AgentLoop::ProviderProfile AppSettings::defaultProfile() const
{
    AgentLoop::ProviderProfile profile;
    profile.id = QString::fromLatin1(AgentLoop::ProviderProfile::defaultId);
    profile.name = AppSettingsText::tr("Default");
    profile.presetId = presetId;
    profile.baseUrl = baseUrl;
    profile.model = model;
    profile.auth = auth;
    profile.extraHeaders = extraHeaders;
    profile.stream = stream;
    profile.streamUsage = streamUsage;
    profile.maxTokens = maxTokens;
    profile.maxTokensField = maxTokensField;
    return profile;
}

QList<AgentLoop::ProviderProfile> AppSettings::allProfiles() const
{
    return QList<AgentLoop::ProviderProfile>{defaultProfile()} + profiles;
}

AgentLoop::ProviderProfile AppSettings::currentProfile() const
{
    if (!currentProfileId.isEmpty()) {
        for (const AgentLoop::ProviderProfile &profile : profiles) {
            if (profile.id == currentProfileId)
                return profile;
        }
    }
    return defaultProfile();
}

bool AppSettings::updateProfile(const AgentLoop::ProviderProfile &profile)
{
    if (profile.isDefault()) {
        presetId = profile.presetId;
        baseUrl = profile.baseUrl;
        model = profile.model;
        auth = profile.auth;
        extraHeaders = profile.extraHeaders;
        stream = profile.stream;
        streamUsage = profile.streamUsage;
        maxTokens = profile.maxTokens;
        maxTokensField = profile.maxTokensField;
        return true;
    }
    for (AgentLoop::ProviderProfile &existing : profiles) {
        if (existing.id == profile.id) {
            existing = profile;
            return true;
        }
    }
    return false;
}

QString AppSettings::keyOf(const QString &profileId) const
{
    if (profileId.isEmpty() || profileId == QLatin1String(AgentLoop::ProviderProfile::defaultId))
        return apiKey;
    return profileKeys.value(profileId);
}

void AppSettings::setKeyOf(const QString &profileId, const QString &key)
{
    if (profileId.isEmpty() || profileId == QLatin1String(AgentLoop::ProviderProfile::defaultId))
        apiKey = key;
    else
        profileKeys.insert(profileId, key);
}

AppSettings AppSettings::withCurrentKey(const QString &key) const
{
    AppSettings settings = *this;
    settings.setKeyOf(currentProfileId, key);
    return settings;
}

KeyStore &AppSettings::keyStoreFor(KeyStore &base, const QString &profileId)
{
    if (profileId.isEmpty() || profileId == QLatin1String(AgentLoop::ProviderProfile::defaultId))
        return base;
    const QString entry = KeyStore::entryForProfile(profileId);
    if (auto *store = base.findChild<KeyStore *>(entry, Qt::FindDirectChildrenOnly))
        return *store;
    auto *store = new KeyStore(base.backend(), base.service(), entry, &base);
    store->setObjectName(entry);
    return *store;
}

bool AppSettings::isConfigured() const
{
    const AgentLoop::ProviderProfile profile = currentProfile();
    return AgentLoop::baseUrlError(profile.baseUrl).isEmpty() && !profile.model.trimmed().isEmpty()
           && (profile.auth == AgentLoop::AuthStyle::None || !keyOf(profile.id).trimmed().isEmpty());
}

AgentLoop::SessionConfiguration AppSettings::sessionConfiguration() const
{
    AgentLoop::SessionConfiguration configuration;
    configuration.provider = provider();
    configuration.maxTurns = maxTurns;
    configuration.workspace = workspace;
    configuration.demoMode = demoMode;
    configuration.rules = appRules();
    // Read here, as the rules are: the files as they are now, the workspace's only if trusted.
    configuration.mcpServers = mcpServersToRun(workspace);
    configuration.permissionOptions.readOnlyCommands = readOnlyCommands;
    configuration.context = context;
    configuration.context.contextWindow = contextWindows.value(configuration.provider.model, 0);
    // Every profile's key known so far: no tool shows one, whichever profile is in use.
    for (const AgentLoop::ProviderProfile &profile : allProfiles())
        configuration.otherSecrets.append(keyOf(profile.id));
    if (!demoMode) {
        for (const FallbackModel &fallback : fallbackModels)
            configuration.fallbacks.append(fallbackProvider(fallback));
    }
    return configuration;
}

AgentLoop::ProviderSettings AppSettings::fallbackProvider(const FallbackModel &fallback) const
{
    AppSettings other = *this;
    other.demoMode = false;
    if (!fallback.profileId.isEmpty())
        other.currentProfileId = fallback.profileId
                                                 == QLatin1String(
                                                         AgentLoop::ProviderProfile::defaultId)
                                         ? QString()
                                         : fallback.profileId;
    AgentLoop::ProviderSettings provider = other.provider();
    if (!fallback.model.trimmed().isEmpty())
        provider.model = fallback.model.trimmed();
    return provider;
}

QList<AgentLoop::PermissionRule> AppSettings::appRules()
{
    const auto rules = AgentLoop::readRuleFile(AgentLoop::appRuleFilePath(),
                                               AgentLoop::RuleOrigin::App);
    if (rules)
        return *rules;
    // Untranslated: it is a rule's text, which the audit trail records as the deciding rule.
    const QString text = u"(unreadable rules file %1)"_s.arg(
            QDir::toNativeSeparators(AgentLoop::appRuleFilePath()));
    return {AgentLoop::PermissionRule{text,
                                      AgentLoop::RuleEffect::Deny,
                                      AgentLoop::RuleOrigin::App}};
}

AgentLoop::ProviderSettings AppSettings::provider() const
{
    AgentLoop::ProviderSettings shared;
    shared.requestTimeout = std::chrono::seconds(requestTimeoutSeconds);
    shared.retry.maxRetries = maxRetries;
    shared.maxResponseBytes = qint64(maxResponseMegabytes) * 1024 * 1024;
    shared.maxAnswerTime = std::chrono::minutes(maxAnswerMinutes);
    const AgentLoop::ProviderProfile profile = currentProfile();
    if (demoMode) {
        AgentLoop::ProviderSettings provider = AgentLoop::demoProviderSettings();
        provider.requestTimeout = shared.requestTimeout;
        provider.retry.maxRetries = shared.retry.maxRetries;
        provider.maxResponseBytes = shared.maxResponseBytes;
        provider.maxAnswerTime = shared.maxAnswerTime;
        // The demo too: it answers with plain JSON whatever it is asked, which the client reads
        // as well as a stream.
        provider.stream = profile.stream;
        return provider;
    }
    AgentLoop::ProviderSettings provider = profile.settings(keyOf(profile.id), shared);
    // The default profile may come from the environment alone: its base URL says which provider.
    if (profile.isDefault() && profile.presetId.isEmpty()
        && profile.auth == AgentLoop::AuthStyle::Bearer)
        AgentLoop::recogniseProvider(provider);
    return provider;
}

void AppSettings::readStoredKey(AgentLoop::KeyStore &keyStore,
                                QObject *receiver,
                                std::function<void(const QString &key)> done) const
{
    if (!keyIsInStore() || !keyOf(currentProfileId).isEmpty()) {
        done({});
        return;
    }
    KeyStore &store = keyStoreFor(keyStore, currentProfileId);
    QObject::connect(&store, &AgentLoop::KeyStore::keyRead, receiver, done, Qt::SingleShotConnection);
    store.readKey();
}

bool AppSettings::keyIsInStore() const
{
    if (storeKeyInPlainText)
        return false;
    return !currentProfile().isDefault() || !isOverridden(AgentLoop::apiKeyVariable);
}

bool AppSettings::isOverridden(const char *variable) const
{
    return environmentOverrides.contains(QString::fromLatin1(variable));
}

bool AppSettings::isInherited(const char *variable, const QString &value) const
{
    const QString name = QString::fromLatin1(variable);
    return environmentValues.contains(name) && environmentValues.value(name) == value.trimmed();
}

QString AppSettings::overrideNote(const char *variable) const
{
    const QString name = QString::fromLatin1(variable);
    if (!environmentOverrides.contains(name))
        return {};
    if (dotEnvOverrides.contains(name)) {
        //: %1 is a variable name such as OPENAI_MODEL, %2 the path of the .env file
        return AppSettingsText::tr("Set by %1 in %2").arg(name, QDir::toNativeSeparators(dotEnvPath));
    }
    return AppSettingsText::tr("Set by %1 in the environment").arg(name);
}

QString AppSettings::settingsFilePath()
{
    return settingsFile()->fileName();
}

std::optional<AppSettings> AppSettings::withProfile(const QString &profileId) const
{
    const bool isDefault = profileId == QLatin1String(AgentLoop::ProviderProfile::defaultId);
    if (!isDefault && !hasProfile(profiles, profileId))
        return std::nullopt;
    AppSettings settings = *this;
    settings.currentProfileId = isDefault ? QString() : profileId;
    settings.demoMode = false; // choosing a provider means using it
    return settings;
}

AgentLoop::ProviderProfile AppSettings::keepAdjustment(
        const AgentLoop::ProviderAdjustment &adjustment)
{
    AgentLoop::ProviderProfile profile = currentProfile();
    if (adjustment.change == AgentLoop::ProviderAdjustment::StreamingOff)
        profile.stream = false;
    else
        profile.streamUsage = false;
    updateProfile(profile);
    saveProfileSwitches(profile);
    return profile;
}

void AppSettings::saveProfileSwitches(const AgentLoop::ProviderProfile &profile)
{
    const std::unique_ptr<QSettings> file = settingsFile();
    AgentLoop::saveProfileSwitches(*file, profile.id, profile.stream, profile.streamUsage);
}

AppSettings::WindowLayout AppSettings::WindowLayout::of(const QMainWindow &window)
{
    return {window.saveGeometry(), window.saveState(stateVersion)};
}

void AppSettings::WindowLayout::restore(QMainWindow &window) const
{
    window.restoreGeometry(geometry);
    window.restoreState(state, stateVersion);
}

AppSettings::WindowLayout AppSettings::loadWindowLayout()
{
    const std::unique_ptr<QSettings> file = settingsFile();
    // This user's own layout, never one from a system-wide file.
    file->setFallbacksEnabled(false);
    return {read(*file, SettingsFile::windowGeometry), read(*file, SettingsFile::windowState)};
}

void AppSettings::saveWindowLayout(const WindowLayout &layout)
{
    const std::unique_ptr<QSettings> file = settingsFile();
    write(*file, SettingsFile::windowGeometry, layout.geometry);
    write(*file, SettingsFile::windowState, layout.state);
}

void AppSettings::saveConfirmCompaction(bool confirm)
{
    const std::unique_ptr<QSettings> file = settingsFile();
    write(*file, SettingsFile::confirmCompaction, confirm);
}

} // namespace Gui
