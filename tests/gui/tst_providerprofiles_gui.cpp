// Provider profiles in the desktop app: kept in the settings file across a restart, each key in
// its own store entry, switched from the main window (for the next run, never the one going on),
// and what the client learned from a provider kept in the profile.

#include "agentstatusbar.h"
#include "chat/chatmodel.h"
#include "fakechatserver.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "profileswitcher.h"
#include "settings/appsettings.h"
#include "storage/keystore.h"
#include "temporarysettings.h"
#include "testjson.h"
#include "testmain.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::AppSettings;

namespace {

ProviderProfile profile(const QString &id, const QString &name, const QString &baseUrl)
{
    ProviderProfile p;
    p.id = id;
    p.name = name;
    p.baseUrl = baseUrl;
    p.model = u"model-of-"_s + id;
    return p;
}

// The key a store holds for a profile, as read back from it.
QString storedKey(KeyStore &base, const QString &profileId)
{
    KeyStore &store = AppSettings::keyStoreFor(base, profileId);
    QSignalSpy read(&store, &KeyStore::keyRead);
    store.readKey();
    if (!read.wait(5000))
        return u"<no answer>"_s;
    return read.first().at(0).toString();
}

QByteArray settingsFileBytes()
{
    QFile file(AppSettings::settingsFilePath());
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class tst_ProviderProfilesGui : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void profilesSurviveARestart();
    void oldSettingsFilesAreTheDefaultProfile();
    void eachProfileKeepsItsOwnKey();
    void plainTextKeysArePerProfile();
    void profileWithoutAuthNeedsNoKey();
    void switchingAppliesToTheNextRun();
    void refusedStreamOptionsAreKeptInTheProfile();

private:
    TemporarySettings m_settings;
    QTemporaryDir m_workDir;
};

void tst_ProviderProfilesGui::init()
{
    for (const char *variable : {baseUrlVariable, apiKeyVariable, modelVariable})
        qunsetenv(variable);
    QFile::remove(AppSettings::settingsFilePath());
    rejectVisibleMessageBoxes();
}

void tst_ProviderProfilesGui::profilesSurviveARestart()
{
    AppSettings settings;
    settings.baseUrl = u"https://api.openai.com/v1"_s;
    settings.model = u"gpt-4.1"_s;
    settings.workspace = m_workDir.path();
    ProviderProfile azure = profile(u"p00000001"_s,
                                    u"Work Azure"_s,
                                    u"https://acme.openai.azure.com/openai/deployments/gpt"_s);
    azure.presetId = u"azure"_s;
    azure.auth = AuthStyle::ApiKeyHeader;
    azure.extraHeaders = {{"X-Tenant", "acme"}, {"X-Route", "eu west"}};
    azure.streamUsage = false;
    azure.maxTokens = 2048;
    azure.maxTokensField = MaxTokensField::MaxCompletionTokens;
    ProviderProfile local = profile(u"p00000002"_s, u"Ollama"_s, u"http://localhost:11434/v1"_s);
    local.auth = AuthStyle::None;
    local.stream = false;
    settings.profiles = {azure, local};
    settings.currentProfileId = azure.id;
    settings.save();

    const AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.profiles, settings.profiles);
    QCOMPARE(reloaded.currentProfileId, azure.id);
    QCOMPARE(reloaded.currentProfile().name, u"Work Azure"_s);
    QCOMPARE(reloaded.allProfiles().size(), 3);
    QCOMPARE(reloaded.allProfiles().first().name, u"Default"_s);
    QCOMPARE(reloaded.baseUrl, u"https://api.openai.com/v1"_s);

    // What the provider is asked with: the current profile's fields.
    const ProviderSettings provider = reloaded.withCurrentKey(u"azure-key"_s).provider();
    QCOMPARE(provider.baseUrl, QUrl(azure.baseUrl));
    QCOMPARE(provider.auth, AuthStyle::ApiKeyHeader);
    QCOMPARE(provider.apiKey, u"azure-key"_s);
    QCOMPARE(provider.extraHeaders, azure.extraHeaders);
    QCOMPARE(provider.streamUsage, false);
    QCOMPARE(provider.maxTokens, 2048);
    QCOMPARE(provider.maxTokensField, MaxTokensField::MaxCompletionTokens);
    QCOMPARE(provider.profileName, u"Work Azure"_s);
    QCOMPARE(provider.providerId, u"azure"_s);
}

void tst_ProviderProfilesGui::oldSettingsFilesAreTheDefaultProfile()
{
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"provider/baseUrl"_s, u"https://api.deepseek.com/v1"_s);
        file.setValue(u"provider/model"_s, u"deepseek-chat"_s);
        file.setValue(u"provider/stream"_s, false);
        file.setValue(u"agent/demoMode"_s, false);
    }
    const AppSettings loaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QVERIFY(loaded.profiles.isEmpty());
    QVERIFY(loaded.currentProfileId.isEmpty());
    QVERIFY(loaded.currentProfile().isDefault());
    const ProviderSettings provider = loaded.withCurrentKey(u"sk-old"_s).provider();
    QCOMPARE(provider.baseUrl, QUrl(u"https://api.deepseek.com/v1"_s));
    QCOMPARE(provider.model, u"deepseek-chat"_s);
    QCOMPARE(provider.stream, false);
    QCOMPARE(provider.apiKey, u"sk-old"_s);
    QCOMPARE(provider.auth, AuthStyle::Bearer);

    // The environment still overrides the default profile, and only it.
    QProcessEnvironment environment;
    environment.insert(QString::fromLatin1(baseUrlVariable), u"http://127.0.0.1:9/v1"_s);
    const AppSettings overridden = AppSettings::load(environment, m_workDir.path());
    QCOMPARE(overridden.provider().baseUrl, QUrl(u"http://127.0.0.1:9/v1"_s));
}

void tst_ProviderProfilesGui::eachProfileKeepsItsOwnKey()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"agentloop-tests"_s);
    AppSettings settings;
    settings.baseUrl = u"https://api.openai.com/v1"_s;
    settings.model = u"gpt-4.1"_s;
    settings.workspace = m_workDir.path();
    settings.apiKey = u"sk-default-key-1111"_s;
    settings.profiles = {profile(u"p0000000a"_s, u"One"_s, u"https://one.example/v1"_s),
                         profile(u"p0000000b"_s, u"Two"_s, u"https://two.example/v1"_s)};
    settings.profileKeys = {{u"p0000000a"_s, u"sk-one-key-2222"_s},
                            {u"p0000000b"_s, u"sk-two-key-3333"_s}};
    settings.save(store);

    QCOMPARE(storedKey(store, u"default"_s), u"sk-default-key-1111"_s);
    QCOMPARE(storedKey(store, u"p0000000a"_s), u"sk-one-key-2222"_s);
    QCOMPARE(storedKey(store, u"p0000000b"_s), u"sk-two-key-3333"_s);
    const QByteArray file = settingsFileBytes();
    QVERIFY(!file.isEmpty());
    QVERIFY(!file.contains("sk-one-key") && !file.contains("sk-two-key")
            && !file.contains("sk-default"));

    // The window reads the current profile's key from its own entry.
    AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    reloaded.currentProfileId = u"p0000000b"_s;
    QVERIFY(reloaded.keyIsInStore());
    QVERIFY(!reloaded.isConfigured());
    QString read;
    bool done = false;
    reloaded.readStoredKey(store, this, [&](const QString &key) {
        read = key;
        done = true;
    });
    QTRY_VERIFY(done);
    QCOMPARE(read, u"sk-two-key-3333"_s);
    QVERIFY(reloaded.withCurrentKey(read).isConfigured());

    // Removing a profile removes its key, and leaves the others'.
    settings.profiles.removeFirst();
    settings.profileKeys.remove(u"p0000000a"_s);
    settings.save(store);
    QCOMPARE(storedKey(store, u"p0000000a"_s), QString());
    QCOMPARE(storedKey(store, u"p0000000b"_s), u"sk-two-key-3333"_s);
    QCOMPARE(storedKey(store, u"default"_s), u"sk-default-key-1111"_s);
}

void tst_ProviderProfilesGui::plainTextKeysArePerProfile()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"agentloop-tests"_s);
    AppSettings settings;
    settings.workspace = m_workDir.path();
    settings.storeKeyInPlainText = true;
    settings.apiKey = u"sk-default-plain"_s;
    settings.profiles = {profile(u"p0000000c"_s, u"Three"_s, u"https://three.example/v1"_s)};
    settings.profileKeys = {{u"p0000000c"_s, u"sk-three-plain"_s}};
    settings.save(store);

    QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
    QCOMPARE(file.value(u"provider/apiKey"_s).toString(), u"sk-default-plain"_s);
    QCOMPARE(file.value(u"profiles/p0000000c/apiKey"_s).toString(), u"sk-three-plain"_s);
    const AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.keyOf(u"p0000000c"_s), u"sk-three-plain"_s);

    // Back to the credential store: out of the file.
    settings.storeKeyInPlainText = false;
    settings.save(store);
    file.sync();
    QVERIFY(!file.contains(u"profiles/p0000000c/apiKey"_s));
    QVERIFY(!settingsFileBytes().contains("sk-three-plain"));
    QCOMPARE(storedKey(store, u"p0000000c"_s), u"sk-three-plain"_s);
}

void tst_ProviderProfilesGui::profileWithoutAuthNeedsNoKey()
{
    AppSettings settings;
    settings.workspace = m_workDir.path();
    ProviderProfile local = profile(u"p0000000d"_s, u"Local"_s, u"http://localhost:11434/v1"_s);
    local.auth = AuthStyle::None;
    settings.profiles = {local};
    QVERIFY(!settings.isConfigured()); // the default profile has nothing
    settings.currentProfileId = local.id;
    QVERIFY(settings.isConfigured());
    QVERIFY(settings.withCurrentKey(u"ignored"_s).provider().apiKey.isEmpty());
}

void tst_ProviderProfilesGui::switchingAppliesToTheNextRun()
{
    MainWindowFixture f;
    FakeChatServer second;
    second.setRequiredApiKey("sk-second-profile-key");
    ProviderProfile other = profile(u"p000000aa"_s, u"Second"_s, second.baseUrl().toString());
    f.settings.profiles = {other};
    f.settings.profileKeys = {{other.id, u"sk-second-profile-key"_s}};
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    Gui::ProfileSwitcher *switcher = f.window->profileSwitcher();
    QCOMPARE(switcher->button()->text(), u"Default"_s);
    auto *providerLabel = f.window->findChild<QLabel *>(u"providerText"_s);
    QVERIFY(providerLabel->text().startsWith(u"Default · gpt-test at 127.0.0.1:"_s));
    // Reachable from the keyboard and the menu bar.
    QCOMPARE(switcher->popupAction()->shortcut(), QKeySequence(u"Ctrl+Shift+P"_s));
    QVERIFY(f.window->menuBar()->actions().contains(switcher->menu()->menuAction()));
    QTest::keyClick(f.window.get(), Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY(switcher->menu()->isVisible());
    QCOMPARE(switcher->menu()->activeAction(), switcher->actionFor(u"default"_s));
    QTest::keyClick(switcher->menu(), Qt::Key_Escape);
    QTRY_VERIFY(!switcher->menu()->isVisible());

    // A run that waits for an approval while the profile is switched.
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(u"echo hi"_s)),
                     FakeResponse::answer(u"Done on the first provider."_s)});
    second.script({FakeResponse::answer(u"Hello from the second provider."_s)});
    f.type(u"Say hi"_s);
    QVERIFY(f.waitForApproval());
    QAction *choice = switcher->actionFor(other.id);
    QVERIFY(choice);
    choice->trigger();
    // Saved at once, so that the next start uses it too.
    QTRY_COMPARE(QSettings(AppSettings::settingsFilePath(), QSettings::IniFormat)
                         .value(u"profiles/current"_s)
                         .toString(),
                 other.id);
    QVERIFY(f.allowPendingCall());
    QVERIFY(f.waitUntilFinished());
    // The run kept its provider to the end.
    QCOMPARE(f.server.requests().size(), 2);
    QCOMPARE(second.requests().size(), 0);

    // The next run goes to the new profile, with its key.
    QTRY_COMPARE(switcher->button()->text(), u"Second"_s);
    QVERIFY(providerLabel->text().startsWith(u"Second · model-of-p000000aa at 127.0.0.1:"_s));
    QVERIFY(switcher->actionFor(other.id)->isChecked());
    f.type(u"And now?"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(second.requests().size(), 1);
    QCOMPARE(second.requests().first().header("Authorization"),
             QByteArray("Bearer sk-second-profile-key"));
    QCOMPARE(second.requests().first().json().value(u"model"_s).toString(), other.model);
    QCOMPARE(f.server.requests().size(), 2);
    QCOMPARE(f.items(Gui::ChatItem::AssistantText).last().text,
             u"Hello from the second provider."_s);
    QCOMPARE(AppSettings::load(QProcessEnvironment(), m_workDir.path()).currentProfileId, other.id);
}

void tst_ProviderProfilesGui::refusedStreamOptionsAreKeptInTheProfile()
{
    MainWindowFixture f;
    ProviderProfile strict = profile(u"p000000bb"_s, u"Strict"_s, f.server.baseUrl().toString());
    strict.model = u"gpt-test"_s;
    f.settings.profiles = {strict};
    f.settings.profileKeys = {{strict.id, f.apiKey}};
    f.settings.currentProfileId = strict.id;
    f.settings.save(); // the profile is in the file, as one made in the dialog is
    f.openWindow();
    QVERIFY(f.waitForWindowActive());
    f.server.script({FakeResponse::httpError(422,
                                             u"Extra inputs are not permitted: stream_options"_s,
                                             u"extra_forbidden"_s),
                     FakeResponse::answer(u"Fine without it."_s)});
    f.type(u"Hello"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 2);
    QVERIFY(f.server.requests().at(0).json().contains(u"stream_options"_s));
    QVERIFY(!f.server.requests().at(1).json().contains(u"stream_options"_s));

    // Said in the chat, and kept in the profile: in the window and in the file.
    bool noticeShown = false;
    for (const Gui::ChatItem &item : f.items(Gui::ChatItem::Notice))
        noticeShown = noticeShown
                      || (item.text.contains(u"stream_options"_s)
                          && item.text.contains(u"Strict"_s));
    QVERIFY(noticeShown);
    QTRY_VERIFY(!f.window->settings().currentProfile().streamUsage);
    const AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.currentProfile().id, strict.id);
    QCOMPARE(reloaded.currentProfile().streamUsage, false);
    QCOMPARE(reloaded.currentProfile().stream, true);
    QCOMPARE(reloaded.defaultProfile().streamUsage, true);

    // The next run asks without it from the start.
    f.server.script({FakeResponse::answer(u"Still fine."_s)});
    f.type(u"Again"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 3);
    QVERIFY(!f.server.requests().at(2).json().contains(u"stream_options"_s));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_ProviderProfilesGui)
#include "tst_providerprofiles_gui.moc"
