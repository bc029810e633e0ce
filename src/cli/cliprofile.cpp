#include "cliprofile.h"

#include "storage/config.h"
#include "storage/keystore.h"

#include <QCoreApplication>
#include <QDir>
#include <QSettings>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

namespace {

struct ProfileText
{
    Q_DECLARE_TR_FUNCTIONS(Cli)
};

Error profileError(const QString &message, const QString &hint = {})
{
    return Error{Error::Configuration, message, hint};
}

} // namespace

ProfileLoader::ProfileLoader(QObject *parent)
    : QObject(parent)
{}

QList<ProviderProfile> ProfileLoader::profiles()
{
    const std::unique_ptr<QSettings> file = openSettingsFile();
    //: The name of the profile made of the original provider settings
    QList<ProviderProfile> all{readDefaultProfile(*file, ProfileText::tr("Default"))};
    all += loadProfiles(*file);
    return all;
}

void ProfileLoader::saveSwitches(const QString &nameOrId, const ProviderSettings &provider)
{
    const std::optional<ProviderProfile> profile = findProfile(profiles(), nameOrId);
    if (!profile)
        return;
    const std::unique_ptr<QSettings> file = openSettingsFile();
    AgentLoop::saveProfileSwitches(*file, profile->id, provider.stream, provider.streamUsage);
}

void ProfileLoader::start(const QString &nameOrId)
{
    const QList<ProviderProfile> all = profiles();
    const std::optional<ProviderProfile> profile = findProfile(all, nameOrId);
    if (!profile) {
        QStringList names;
        for (const ProviderProfile &known : all)
            names << known.name;
        const QString settingsPath = QDir::toNativeSeparators(openSettingsFile()->fileName());
        const Error error
                = profileError(ProfileText::tr("There is no profile called \"%1\".").arg(nameOrId),
                               ProfileText::tr(
                                       "Profiles in %1: %2. Make profiles in the app's settings.")
                                       .arg(settingsPath, names.join(u", "_s)));
        QTimer::singleShot(0, this, [this, error] { emit failed(error); });
        return;
    }
    if (profile->auth == AuthStyle::None) {
        QTimer::singleShot(0, this, [this, profile] { finish(*profile, {}); });
        return;
    }
    const std::unique_ptr<QSettings> file = openSettingsFile();
    if (keysInPlainText(*file)) {
        const QString key = file->value(plainTextKeyName(profile->id)).toString();
        QTimer::singleShot(0, this, [this, profile, key] { finish(*profile, key); });
        return;
    }
    m_keyStore = new KeyStore(KeyStore::Backend::System,
                              QString::fromLatin1(KeyStore::defaultService),
                              KeyStore::entryForProfile(profile->id),
                              this);
    connect(
            m_keyStore,
            &KeyStore::keyRead,
            this,
            [this, profile](const QString &key) { finish(*profile, key); },
            Qt::SingleShotConnection);
    m_keyStore->readKey();
}

void ProfileLoader::finish(const ProviderProfile &profile, const QString &key)
{
    if (const QString problem = baseUrlError(profile.baseUrl); !problem.isEmpty()) {
        emit failed(profileError(ProfileText::tr("The profile %1: %2").arg(profile.name, problem)));
        return;
    }
    if (profile.model.trimmed().isEmpty()) {
        emit failed(profileError(ProfileText::tr("The profile %1 names no model.").arg(profile.name),
                                 ProfileText::tr("Choose a model for it in the app's settings.")));
        return;
    }
    if (profile.auth != AuthStyle::None && key.trimmed().isEmpty()) {
        const QString reason = m_keyStore ? m_keyStore->unavailableReason() : QString();
        emit failed(
                profileError(ProfileText::tr("No API key is stored for the profile %1.")
                                     .arg(profile.name),
                             reason.isEmpty()
                                     ? ProfileText::tr("Enter its key in the app's settings.")
                                     : ProfileText::tr("Enter its key in the app's settings (the "
                                                       "credential store said: %1).")
                                               .arg(reason)));
        return;
    }
    emit loaded(profile.settings(key));
}

} // namespace Cli
