#include "storage/providerprofiles.h"

#include "protocol/providerpresets.h"

#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

const QString profilesGroup = u"profiles"_s;
const QString currentKey = u"profiles/current"_s;

void writeFields(QSettings &file, const ProviderProfile &profile)
{
    file.setValue(u"preset"_s, profile.presetId);
    file.setValue(u"auth"_s, authStyleName(profile.auth));
    file.setValue(u"extraHeaders"_s, extraHeadersText(profile.extraHeaders));
    file.setValue(u"streamUsage"_s, profile.streamUsage);
    file.setValue(u"maxTokens"_s, profile.maxTokens);
    file.setValue(u"maxTokensField"_s, maxTokensFieldName(profile.maxTokensField));
}

void readFields(const QSettings &file, ProviderProfile &profile)
{
    profile.presetId = file.value(u"preset"_s).toString();
    profile.auth = authStyleFromName(file.value(u"auth"_s).toString());
    profile.extraHeaders = parseExtraHeaders(file.value(u"extraHeaders"_s).toString());
    profile.streamUsage = file.value(u"streamUsage"_s, true).toBool();
    profile.maxTokens = std::clamp(file.value(u"maxTokens"_s, 0).toInt(), 0, 10'000'000);
    profile.maxTokensField = maxTokensFieldFromName(file.value(u"maxTokensField"_s).toString())
                                     .value_or(defaultMaxTokensField(profile.presetId));
}

} // namespace

std::unique_ptr<QSettings> openSettingsFile()
{
    // INI everywhere (not the Windows registry): a file the user can read, back up and search.
    return std::make_unique<QSettings>(QSettings::IniFormat,
                                       QSettings::UserScope,
                                       u"AgentLoop"_s,
                                       u"Agent Loop"_s);
}

ProviderSettings ProviderProfile::settings(const QString &apiKey,
                                           const ProviderSettings &shared) const
{
    ProviderSettings settings = shared;
    settings.baseUrl = QUrl(baseUrl.trimmed());
    settings.apiKey = auth == AuthStyle::None ? QString() : apiKey.trimmed();
    settings.model = model.trimmed();
    settings.auth = auth;
    settings.extraHeaders = extraHeaders;
    settings.providerId = presetId;
    settings.profileName = name;
    settings.maxTokens = maxTokens;
    settings.maxTokensField = maxTokensField;
    settings.stream = stream;
    settings.streamUsage = streamUsage;
    return settings;
}

ExtraHeaders parseExtraHeaders(const QString &text)
{
    static const QRegularExpression token(u"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"_s);
    ExtraHeaders headers;
    for (const QString &line : text.split(u'\n')) {
        const qsizetype colon = line.indexOf(u':');
        if (colon <= 0)
            continue;
        const QString name = line.left(colon).trimmed();
        const QString value = line.mid(colon + 1).trimmed();
        if (!token.match(name).hasMatch() || value.contains(u'\r'))
            continue;
        headers.append({name.toLatin1(), value.toUtf8()});
    }
    return headers;
}

QString extraHeadersText(const ExtraHeaders &headers)
{
    QStringList lines;
    for (const auto &[name, value] : headers)
        lines << QString::fromLatin1(name) + u": "_s + QString::fromUtf8(value);
    return lines.join(u'\n');
}

QString authStyleName(AuthStyle auth)
{
    switch (auth) {
    case AuthStyle::Bearer:
        return u"bearer"_s;
    case AuthStyle::ApiKeyHeader:
        return u"api-key"_s;
    case AuthStyle::None:
        return u"none"_s;
    }
    return u"bearer"_s;
}

AuthStyle authStyleFromName(const QString &name)
{
    if (name == u"api-key")
        return AuthStyle::ApiKeyHeader;
    if (name == u"none")
        return AuthStyle::None;
    return AuthStyle::Bearer;
}

QList<ProviderProfile> loadProfiles(QSettings &file)
{
    QList<ProviderProfile> profiles;
    const QStringList order = file.value(u"profiles/order"_s).toStringList();
    for (const QString &id : order) {
        if (id.isEmpty() || id == QLatin1String(ProviderProfile::defaultId)
            || findProfile(profiles, id))
            continue;
        file.beginGroup(profilesGroup + u'/' + id);
        ProviderProfile profile;
        profile.id = id;
        profile.name = file.value(u"name"_s, id).toString();
        profile.baseUrl = file.value(u"baseUrl"_s).toString();
        profile.model = file.value(u"model"_s).toString();
        profile.stream = file.value(u"stream"_s, true).toBool();
        readFields(file, profile);
        file.endGroup();
        profiles.append(profile);
    }
    return profiles;
}

ProviderProfile readDefaultProfile(QSettings &file, const QString &defaultName)
{
    ProviderProfile profile;
    profile.id = QString::fromLatin1(ProviderProfile::defaultId);
    profile.name = defaultName;
    profile.baseUrl = file.value(u"provider/baseUrl"_s).toString();
    profile.model = file.value(u"provider/model"_s).toString();
    profile.stream = file.value(u"provider/stream"_s, true).toBool();
    readDefaultProfileExtras(file, profile);
    return profile;
}

void saveProfile(QSettings &file, const ProviderProfile &profile)
{
    if (profile.isDefault()) {
        file.setValue(u"provider/baseUrl"_s, profile.baseUrl.trimmed());
        file.setValue(u"provider/model"_s, profile.model.trimmed());
        file.setValue(u"provider/stream"_s, profile.stream);
        writeDefaultProfileExtras(file, profile);
        return;
    }
    QStringList order = file.value(u"profiles/order"_s).toStringList();
    if (!order.contains(profile.id))
        file.setValue(u"profiles/order"_s, order << profile.id);
    file.beginGroup(profilesGroup + u'/' + profile.id);
    file.setValue(u"name"_s, profile.name);
    file.setValue(u"baseUrl"_s, profile.baseUrl.trimmed());
    file.setValue(u"model"_s, profile.model.trimmed());
    file.setValue(u"stream"_s, profile.stream);
    writeFields(file, profile);
    file.endGroup();
}

void saveProfileSwitches(QSettings &file, const QString &profileId, bool stream, bool streamUsage)
{
    std::optional<ProviderProfile> profile;
    if (profileId.isEmpty() || profileId == QLatin1String(ProviderProfile::defaultId))
        profile = readDefaultProfile(file, {});
    else
        profile = findProfile(loadProfiles(file), profileId);
    if (!profile || (!profile->isDefault() && profile->id != profileId))
        return; // a name is not an id
    profile->stream = stream;
    profile->streamUsage = streamUsage;
    saveProfile(file, *profile);
}

bool keysInPlainText(QSettings &file)
{
    return file.value(u"provider/storeKeyInPlainText"_s, false).toBool();
}

QString plainTextKeyName(const QString &profileId)
{
    if (profileId.isEmpty() || profileId == QLatin1String(ProviderProfile::defaultId))
        return u"provider/apiKey"_s;
    return profilesGroup + u'/' + profileId + u"/apiKey"_s;
}

void saveProfiles(QSettings &file, const QList<ProviderProfile> &profiles)
{
    // Profiles that are gone leave no trace behind, a key kept in plain text included (one in
    // the credential store is the caller's to delete).
    file.beginGroup(profilesGroup);
    for (const QString &group : file.childGroups()) {
        if (!findProfile(profiles, group))
            file.remove(group);
    }
    file.endGroup();
    file.remove(u"profiles/order"_s);
    for (const ProviderProfile &profile : profiles) {
        if (!profile.isDefault())
            saveProfile(file, profile);
    }
}

QString loadCurrentProfileId(QSettings &file)
{
    const QString id = file.value(currentKey).toString();
    return id == QLatin1String(ProviderProfile::defaultId) ? QString() : id;
}

void saveCurrentProfileId(QSettings &file, const QString &id)
{
    file.setValue(currentKey, id);
}

void readDefaultProfileExtras(QSettings &file, ProviderProfile &profile)
{
    file.beginGroup(u"provider"_s);
    readFields(file, profile);
    file.endGroup();
}

void writeDefaultProfileExtras(QSettings &file, const ProviderProfile &profile)
{
    file.beginGroup(u"provider"_s);
    writeFields(file, profile);
    file.endGroup();
}

std::optional<ProviderProfile> findProfile(const QList<ProviderProfile> &profiles,
                                           const QString &nameOrId)
{
    for (const ProviderProfile &profile : profiles) {
        if (profile.id == nameOrId)
            return profile;
    }
    for (const ProviderProfile &profile : profiles) {
        if (profile.name.compare(nameOrId.trimmed(), Qt::CaseInsensitive) == 0)
            return profile;
    }
    return std::nullopt;
}

QString newProfileId(const QList<ProviderProfile> &profiles)
{
    for (;;) {
        const QString id = u"p%1"_s.arg(qulonglong(QRandomGenerator::global()->generate()),
                                        8,
                                        16,
                                        QChar(u'0'));
        if (!findProfile(profiles, id))
            return id;
    }
}

QString uniqueProfileName(const QList<ProviderProfile> &profiles, const QString &name)
{
    const auto taken = [&](const QString &candidate) {
        for (const ProviderProfile &profile : profiles) {
            if (profile.name.compare(candidate, Qt::CaseInsensitive) == 0)
                return true;
        }
        return false;
    };
    if (!taken(name))
        return name;
    for (int number = 2;; ++number) {
        const QString candidate = u"%1 %2"_s.arg(name).arg(number);
        if (!taken(candidate))
            return candidate;
    }
}

} // namespace AgentLoop
