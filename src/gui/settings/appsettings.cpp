#include "settings/appsettings.h"

#include "storage/config.h"
#include "provider/demoprovider.h"
#include "base/environmentscrub.h"
#include "storage/keystore.h"
#include "storage/providerprofiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>

#include <memory>

using namespace Qt::StringLiterals;

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
    if (settings.workspace.isEmpty())
        settings.workspace = QDir::homePath();

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
    file->sync();
    // Owner-only on Unix: the file may hold a key the user chose to keep there.
    QFile::setPermissions(file->fileName(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void AppSettings::save(AgentLoop::KeyStore &keyStore) const
{
    save();
    if (isInherited(AgentLoop::apiKeyVariable, apiKey))
        return;
    if (storeKeyInPlainText)
        keyStore.deleteKey();
    else
        keyStore.writeKey(apiKey.trimmed());
}

bool AppSettings::isConfigured() const
{
    return AgentLoop::baseUrlError(baseUrl).isEmpty() && !model.trimmed().isEmpty()
           && !apiKey.trimmed().isEmpty();
}

AgentLoop::SessionConfiguration AppSettings::sessionConfiguration() const
{
    AgentLoop::SessionConfiguration configuration;
    configuration.provider = provider();
    configuration.maxTurns = maxTurns;
    configuration.workspace = workspace;
    configuration.demoMode = demoMode;
    return configuration;
}

AgentLoop::ProviderSettings AppSettings::provider() const
{
    AgentLoop::ProviderSettings provider;
    if (demoMode) {
        provider = AgentLoop::demoProviderSettings();
    } else {
        provider.baseUrl = QUrl(baseUrl.trimmed());
        provider.apiKey = apiKey.trimmed();
        provider.model = model.trimmed();
    }
    provider.requestTimeout = std::chrono::seconds(requestTimeoutSeconds);
    // The demo too: it answers with plain JSON whatever it is asked, which the client reads as
    // well as a stream.
    provider.stream = stream;
    provider.retry.maxRetries = maxRetries;
    provider.maxResponseBytes = qint64(maxResponseMegabytes) * 1024 * 1024;
    provider.maxAnswerTime = std::chrono::minutes(maxAnswerMinutes);
    return provider;
}

void AppSettings::readStoredKey(AgentLoop::KeyStore &keyStore,
                                QObject *context,
                                std::function<void(const QString &key)> done) const
{
    if (!keyIsInStore() || !apiKey.isEmpty()) {
        done({});
        return;
    }
    QObject::connect(&keyStore, &AgentLoop::KeyStore::keyRead, context, done, Qt::SingleShotConnection);
    keyStore.readKey();
}

bool AppSettings::keyIsInStore() const
{
    return !storeKeyInPlainText && !isOverridden(AgentLoop::apiKeyVariable);
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

} // namespace Gui
