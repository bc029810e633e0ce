// Provider profiles as the settings file keeps them, the presets a profile starts from, and what
// the app recognises from a base URL alone.

#include "protocol/history.h"
#include "protocol/providerpresets.h"
#include "protocol/requestbody.h"
#include "storage/config.h"
#include "storage/keystore.h"
#include "storage/providerprofiles.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QLocale>
#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

ProviderProfile named(const QString &id, const QString &name)
{
    ProviderProfile profile;
    profile.id = id;
    profile.name = name;
    return profile;
}

} // namespace

class tst_ProviderProfiles : public QObject
{
    Q_OBJECT

private slots:
    void profilesSurviveARestart();
    void removedProfileLeavesNothingBehind();
    void defaultProfileIsTheOriginalSettings();
    void namesAndIds();
    void extraHeaders();
    void eachProfileHasItsOwnKeyEntry();

    void presetsAreComplete();
    void chineseProvidersComeFirstInChinese();
    void providerFromBaseUrl_data();
    void providerFromBaseUrl();
    void azureFromTheEnvironmentAlone();
    void localServerNeedsNoKey();
    void hintsNameTheProvider();

    void requestBodyFollowsTheSettings();
    void optionalFieldsComeOffAgain();

private:
    QTemporaryDir m_dir;
    QString settingsPath() const { return m_dir.filePath(u"Agent Loop.ini"_s); }
};

void tst_ProviderProfiles::profilesSurviveARestart()
{
    ProviderProfile kimi;
    kimi.id = u"p00000001"_s;
    kimi.name = u"Kimi"_s;
    kimi.presetId = u"kimi"_s;
    kimi.baseUrl = u"https://api.moonshot.cn/v1"_s;
    kimi.model = u"kimi-k2-0905-preview"_s;
    ProviderProfile azure;
    azure.id = u"p00000002"_s;
    azure.name = u"Azure (work)"_s;
    azure.presetId = u"azure"_s;
    azure.baseUrl
            = u"https://contoso.openai.azure.com/openai/deployments/gpt41?api-version=2024-10-21"_s;
    azure.model = u"gpt41"_s;
    azure.auth = AuthStyle::ApiKeyHeader;
    azure.extraHeaders = {{"X-Team", "agents"}};
    azure.stream = false;
    azure.streamUsage = false;
    azure.maxTokens = 4096;
    {
        QSettings file(settingsPath(), QSettings::IniFormat);
        saveProfiles(file, {kimi, azure});
        saveCurrentProfileId(file, azure.id);
    }
    // A new QSettings on the same file: what the next start reads.
    QSettings file(settingsPath(), QSettings::IniFormat);
    const QList<ProviderProfile> loaded = loadProfiles(file);
    QCOMPARE(loaded.size(), 2);
    QCOMPARE(loaded.at(0), kimi);
    QCOMPARE(loaded.at(1), azure);
    QCOMPARE(loadCurrentProfileId(file), azure.id);

    const ProviderSettings settings = loaded.at(1).settings(u" key-1 "_s);
    QCOMPARE(settings.apiKey, u"key-1"_s);
    QCOMPARE(settings.auth, AuthStyle::ApiKeyHeader);
    QCOMPARE(settings.providerId, u"azure"_s);
    QCOMPARE(settings.profileName, u"Azure (work)"_s);
    QCOMPARE(settings.maxTokens, 4096);
    QCOMPARE(settings.stream, false);
    QCOMPARE(settings.baseUrl.query(), u"api-version=2024-10-21"_s);
}

void tst_ProviderProfiles::removedProfileLeavesNothingBehind()
{
    const ProviderProfile a = named(u"p0000000a"_s, u"A"_s);
    const ProviderProfile b = named(u"p0000000b"_s, u"B"_s);
    QSettings file(settingsPath(), QSettings::IniFormat);
    file.clear();
    saveProfiles(file, {a, b});
    file.setValue(plainTextKeyName(b.id), u"sk-b"_s);
    file.setValue(plainTextKeyName(a.id), u"sk-a"_s);
    saveProfiles(file, {a});
    QCOMPARE(loadProfiles(file), QList<ProviderProfile>{a});
    // B's key kept in plain text went with it; A's stays.
    QVERIFY(!file.contains(plainTextKeyName(b.id)));
    QCOMPARE(file.value(plainTextKeyName(a.id)).toString(), u"sk-a"_s);
    file.beginGroup(u"profiles"_s);
    QCOMPARE(file.childGroups(), QStringList{a.id});
    file.endGroup();
}

void tst_ProviderProfiles::defaultProfileIsTheOriginalSettings()
{
    QSettings file(settingsPath(), QSettings::IniFormat);
    file.clear();
    // As a settings file written before profiles existed has them.
    file.setValue(u"provider/baseUrl"_s, u"https://api.deepseek.com/v1"_s);
    file.setValue(u"provider/model"_s, u"deepseek-chat"_s);
    file.setValue(u"provider/stream"_s, false);
    ProviderProfile profile = readDefaultProfile(file, u"Default"_s);
    QVERIFY(profile.isDefault());
    QCOMPARE(profile.baseUrl, u"https://api.deepseek.com/v1"_s);
    QCOMPARE(profile.model, u"deepseek-chat"_s);
    QCOMPARE(profile.stream, false);
    QCOMPARE(profile.auth, AuthStyle::Bearer);
    QCOMPARE(profile.streamUsage, true);

    profile.streamUsage = false;
    profile.model = u"deepseek-reasoner"_s;
    saveProfile(file, profile);
    QCOMPARE(file.value(u"provider/model"_s).toString(), u"deepseek-reasoner"_s);
    QCOMPARE(file.value(u"provider/streamUsage"_s).toBool(), false);
    QVERIFY(loadProfiles(file).isEmpty()); // the default profile is not one of the others
    QCOMPARE(plainTextKeyName(profile.id), u"provider/apiKey"_s);
}

void tst_ProviderProfiles::namesAndIds()
{
    const QList<ProviderProfile> profiles{named(u"p1"_s, u"DeepSeek"_s),
                                          named(u"p2"_s, u"DeepSeek 2"_s)};
    QCOMPARE(uniqueProfileName(profiles, u"Kimi"_s), u"Kimi"_s);
    QCOMPARE(uniqueProfileName(profiles, u"deepseek"_s), u"deepseek 3"_s);
    QCOMPARE(findProfile(profiles, u"deepseek 2"_s)->id, u"p2"_s);
    QCOMPARE(findProfile(profiles, u"p1"_s)->name, u"DeepSeek"_s);
    QVERIFY(!findProfile(profiles, u"Kimi"_s));
    QSet<QString> ids;
    for (int i = 0; i < 200; ++i) {
        const QString id = newProfileId(profiles);
        QVERIFY2(id.size() == 9 && id.startsWith(u'p'), qPrintable(id));
        ids.insert(id);
    }
    QVERIFY(ids.size() > 190);
}

void tst_ProviderProfiles::extraHeaders()
{
    const ExtraHeaders headers = parseExtraHeaders(
            u"X-Tenant: team 7\nnot a header\n: no name\nBad Name: x\nX-Empty:\n"
            u"HTTP-Referer:  https://example.com \r"_s);
    const ExtraHeaders expected{{"X-Tenant", "team 7"},
                                {"X-Empty", ""},
                                {"HTTP-Referer", "https://example.com"}};
    QCOMPARE(headers, expected);
    QCOMPARE(extraHeadersText(expected),
             u"X-Tenant: team 7\nX-Empty: \nHTTP-Referer: https://example.com"_s);
    QCOMPARE(parseExtraHeaders(extraHeadersText(expected)), expected);
}

void tst_ProviderProfiles::eachProfileHasItsOwnKeyEntry()
{
    // A key stored before profiles existed is the default profile's.
    QCOMPARE(KeyStore::entryForProfile(u"default"_s), QString::fromLatin1(KeyStore::keyName));
    QCOMPARE(KeyStore::entryForProfile(u"p1234abcd"_s), u"OPENAI_API_KEY (profile p1234abcd)"_s);
    KeyStore first(KeyStore::Backend::SessionOnly,
                   u"Agent Loop test"_s,
                   KeyStore::entryForProfile(u"p1"_s));
    QCOMPARE(first.entry(), u"OPENAI_API_KEY (profile p1)"_s);
}

void tst_ProviderProfiles::presetsAreComplete()
{
    const QList<ProviderPreset> presets = providerPresets();
    const QStringList expected{u"openai"_s,
                               u"azure"_s,
                               u"deepseek"_s,
                               u"qwen"_s,
                               u"kimi"_s,
                               u"glm"_s,
                               u"siliconflow"_s,
                               u"volcengine"_s,
                               u"openrouter"_s,
                               u"groq"_s,
                               u"together"_s,
                               u"mistral"_s,
                               u"gemini"_s,
                               u"anthropic"_s,
                               u"ollama"_s,
                               u"lmstudio"_s,
                               u"llamacpp"_s,
                               u"vllm"_s,
                               u"litellm"_s};
    QStringList ids;
    for (const ProviderPreset &preset : presets) {
        ids << preset.id;
        QVERIFY2(!preset.name.isEmpty() && !preset.model.isEmpty(), qPrintable(preset.id));
        // Every base URL is one the app takes (after the user fills Azure's placeholders).
        QString url = preset.baseUrl;
        url.replace(u"<resource>"_s, u"contoso"_s).replace(u"<deployment>"_s, u"gpt41"_s);
        QVERIFY2(baseUrlError(url).isEmpty(), qPrintable(preset.id + u": "_s + baseUrlError(url)));
        QVERIFY2(baseUrlWarning(url).isEmpty() || preset.local,
                 qPrintable(preset.id + u": "_s + baseUrlWarning(url)));
        // Hosted providers link their key page; local servers need no key.
        QCOMPARE(preset.keyPage.isEmpty(), preset.local);
        QCOMPARE(preset.auth == AuthStyle::None, preset.local && preset.id != u"litellm");
        if (!preset.local && preset.id != u"azure")
            QCOMPARE(providerIdForBaseUrl(QUrl(url)), preset.id);
        QCOMPARE(providerPreset(preset.id).baseUrl, preset.baseUrl);
    }
    QCOMPARE(QSet<QString>(ids.begin(), ids.end()), QSet<QString>(expected.begin(), expected.end()));
    QCOMPARE(ids.size(), expected.size());
    QVERIFY(providerPreset(u"azure"_s).needsEditing());
    QCOMPARE(providerPreset(u"azure"_s).auth, AuthStyle::ApiKeyHeader);
    QCOMPARE(providerPreset(u"mistral"_s).streamUsage, false);
    QVERIFY(providerPreset(u"nonesuch"_s).id.isEmpty());
}

void tst_ProviderProfiles::chineseProvidersComeFirstInChinese()
{
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::Chinese, QLocale::China));
    const QList<ProviderPreset> chinese = providerPresets();
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    const QList<ProviderPreset> english = providerPresets();
    QLocale::setDefault(before);

    QStringList first;
    for (const ProviderPreset &preset : chinese.first(6))
        first << preset.id;
    QCOMPARE(first,
             (QStringList{u"deepseek"_s,
                          u"qwen"_s,
                          u"kimi"_s,
                          u"glm"_s,
                          u"siliconflow"_s,
                          u"volcengine"_s}));
    QCOMPARE(english.first().id, u"openai"_s);
    QCOMPARE(chinese.size(), english.size());
}

void tst_ProviderProfiles::providerFromBaseUrl_data()
{
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<QString>("provider");
    QTest::newRow("azure host") << u"https://contoso.openai.azure.com/openai/v1"_s << u"azure"_s;
    QTest::newRow("azure ai services host")
            << u"https://contoso.cognitiveservices.azure.com/openai/deployments/x"_s << u"azure"_s;
    QTest::newRow("azure deployment path behind a proxy")
            << u"https://gateway.example.com/openai/deployments/gpt41"_s << u"azure"_s;
    QTest::newRow("azure api-version query")
            << u"https://llm.example.com/v1?api-version=2024-10-21"_s << u"azure"_s;
    QTest::newRow("deepseek") << u"https://api.deepseek.com"_s << u"deepseek"_s;
    QTest::newRow("qwen intl") << u"https://dashscope-intl.aliyuncs.com/compatible-mode/v1"_s
                               << u"qwen"_s;
    QTest::newRow("kimi global") << u"https://api.moonshot.ai/v1"_s << u"kimi"_s;
    QTest::newRow("glm z.ai") << u"https://api.z.ai/api/paas/v4"_s << u"glm"_s;
    QTest::newRow("ark") << u"https://ark.cn-beijing.volces.com/api/v3"_s << u"volcengine"_s;
    QTest::newRow("ollama") << u"http://localhost:11434/v1"_s << u"ollama"_s;
    QTest::newRow("lm studio") << u"http://127.0.0.1:1234/v1"_s << u"lmstudio"_s;
    QTest::newRow("a look-alike host")
            << u"https://api.deepseek.com.evil.example/v1"_s << QString();
    QTest::newRow("a suffix that is not a subdomain") << u"https://notopenai.com/v1"_s << QString();
    QTest::newRow("unknown") << u"https://llm.internal.example/v1"_s << QString();
    QTest::newRow("another local port") << u"http://localhost:8080/v1"_s << QString();
}

void tst_ProviderProfiles::providerFromBaseUrl()
{
    QFETCH(QString, baseUrl);
    QFETCH(QString, provider);
    QCOMPARE(providerIdForBaseUrl(QUrl(baseUrl)), provider);
}

void tst_ProviderProfiles::azureFromTheEnvironmentAlone()
{
    QProcessEnvironment environment;
    environment.insert(u"OPENAI_BASE_URL"_s,
                       u"https://contoso.openai.azure.com/openai/deployments/gpt41"
                       u"?api-version=2024-10-21"_s);
    environment.insert(u"OPENAI_API_KEY"_s, u"azure-key"_s);
    environment.insert(u"OPENAI_MODEL"_s, u"gpt41"_s);
    const Result<LoadedConfig> config = loadConfig(environment, m_dir.path());
    QVERIFY(config);
    QCOMPARE(config->provider.providerId, u"azure"_s);
    QCOMPARE(config->provider.auth, AuthStyle::ApiKeyHeader);
    // Azure's path is its own: no "does not end with /v1" warning.
    QVERIFY2(config->warnings.isEmpty(), qPrintable(config->warnings.join(u'\n')));
}

void tst_ProviderProfiles::localServerNeedsNoKey()
{
    QProcessEnvironment environment;
    environment.insert(u"OPENAI_BASE_URL"_s, u"http://localhost:11434/v1"_s);
    environment.insert(u"OPENAI_MODEL"_s, u"qwen3"_s);
    const Result<LoadedConfig> config = loadConfig(environment, m_dir.path());
    QVERIFY2(config, config ? "" : qPrintable(config.error().message));
    QCOMPARE(config->provider.auth, AuthStyle::None);
    // A hosted provider still needs one.
    environment.insert(u"OPENAI_BASE_URL"_s, u"https://api.deepseek.com/v1"_s);
    const Result<LoadedConfig> hosted = loadConfig(environment, m_dir.path());
    QVERIFY(!hosted);
    QCOMPARE(hosted.error().message, u"Missing required settings: OPENAI_API_KEY"_s);
}

void tst_ProviderProfiles::hintsNameTheProvider()
{
    ProviderSettings azure;
    azure.providerId = u"azure"_s;
    QVERIFY(providerHintForStatus(azure, 401)
                    .startsWith(u"Azure uses the api-key header; check the deployment's key"_s));
    QVERIFY(providerHintForStatus(azure, 404).contains(u"deployment"_s));
    ProviderSettings deepseek;
    deepseek.providerId = u"deepseek"_s;
    QCOMPARE(providerHintForStatus(deepseek, 401),
             u"DeepSeek did not accept the key: check it, or make a new one at "
             u"https://platform.deepseek.com/api_keys."_s);
    ProviderSettings ollama;
    ollama.providerId = u"ollama"_s;
    QVERIFY(providerHintForStatus(ollama, 401).startsWith(u"Ollama asks for a key"_s));
    // Nothing more specific than the generic hint to say.
    QVERIFY(providerHintForStatus(deepseek, 429).isEmpty());
    QVERIFY(providerHintForStatus(ProviderSettings{}, 401).isEmpty());
}

void tst_ProviderProfiles::requestBodyFollowsTheSettings()
{
    History history;
    history.append(Message::user(u"hi"_s));
    ProviderSettings settings;
    settings.model = u"m"_s;
    const auto json = [&] {
        return QJsonDocument::fromJson(chatRequestBody(settings, history, {})).object();
    };
    QCOMPARE(json().value(u"stream_options"_s).toObject().value(u"include_usage"_s).toBool(), true);
    QVERIFY(!json().contains(u"max_tokens"_s));
    settings.streamUsage = false;
    settings.maxTokens = 2048;
    QVERIFY(!json().contains(u"stream_options"_s));
    QCOMPARE(json().value(u"stream"_s).toBool(), true);
    QCOMPARE(json().value(u"max_tokens"_s).toInt(), 2048);
    settings.stream = false;
    QVERIFY(!json().contains(u"stream"_s));
}

void tst_ProviderProfiles::optionalFieldsComeOffAgain()
{
    History history;
    history.append(Message::user(u"\"stream_options\" in the text stays"_s));
    ProviderSettings settings;
    settings.model = u"m"_s;
    const QByteArray body = chatRequestBody(settings, history, {});
    const QJsonObject withoutOptions = QJsonDocument::fromJson(withoutStreamOptions(body)).object();
    QVERIFY(!withoutOptions.isEmpty());
    QVERIFY(!withoutOptions.contains(u"stream_options"_s));
    QCOMPARE(withoutOptions.value(u"stream"_s).toBool(), true);
    QCOMPARE(withoutOptions.value(u"messages"_s), QJsonDocument::fromJson(body)[u"messages"_s]);
    const QJsonObject whole = QJsonDocument::fromJson(withoutStreaming(body)).object();
    QVERIFY(!whole.contains(u"stream"_s));
    QVERIFY(!whole.contains(u"stream_options"_s));
    QCOMPARE(whole.value(u"messages"_s), QJsonDocument::fromJson(body)[u"messages"_s]);
    // A body without the fields is left as it is.
    settings.stream = false;
    const QByteArray plain = chatRequestBody(settings, history, {});
    QCOMPARE(withoutStreamOptions(plain), plain);
    QCOMPARE(withoutStreaming(plain), plain);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ProviderProfiles)
#include "tst_providerprofiles.moc"
