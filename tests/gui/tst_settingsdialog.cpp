#include "fakechatserver.h"
#include "fakecredentialmanager.h"
#include "mainwindow.h"
#include "protocol/completion.h"
#include "protocol/providerpresets.h"
#include "provider/capabilitycheck.h"
#include "settings/appsettings.h"
#include "settings/settingsdialog.h"
#include "storage/config.h"
#include "storage/keystore.h"
#include "temporarysettings.h"
#include "testmain.h"
#include "testpaths.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <algorithm>

#include <memory>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Gui;
using AgentLoop::KeyStore;

namespace {

constexpr int testTimeoutMs = 15000;
const QString distinctiveKey = u"sk-agentloop-DISTINCTIVE-7f3a9c41e2"_s;

QProcessEnvironment emptyEnvironment()
{
    return QProcessEnvironment();
}

// The widget that takes the focus after this one on Tab.
QWidget *nextTabStop(QWidget *widget)
{
    QWidget *next = widget->nextInFocusChain();
    while (widget->isAncestorOf(next)) // a spin box's own line edit
        next = next->nextInFocusChain();
    return next;
}

// A number in the settings file, as a test row names it: its declaration and the field it sets.
using NumberSetting = const SettingSpec<int> *;
using NumberField = int AppSettings::*;

} // namespace

Q_DECLARE_METATYPE(NumberSetting)
Q_DECLARE_METATYPE(NumberField)

class tst_SettingsDialog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void invalidBaseUrlShowsTheCoreError_data();
    void invalidBaseUrlShowsTheCoreError();
    void missingV1IsOnlyAWarning();
    void missingSettingsAreNamedLikeTheCore();
    void workspaceMustExist();
    void demoNeedsNothing();
    void firstStartUsesTheDemo();
    void showKeyActionToggles();
    void testConnectionFillsTheModelList();
    void testConnectionWithAWrongKeyShowsTheKeyHint();
    void keyIsNotWrittenToTheSettingsFile();
    void plainTextOptInWritesTheKeyAndOnlyThen();
    void systemStoreKeepsTheKeyOutOfTheSettingsFile();
    void keyTooLargeForTheStoreIsSaidBeforeOk();
    void environmentValuesAreNotedAndNeverCopied();
    void streamAndRetriesArePersisted();
    // The bounds on one answer: "Maximum answer size" and "Maximum answer time", next to the
    // request timeout and the retries, kept in the settings file and given to the client.
    void answerLimitsAreOfferedAndPersisted();
    void outOfRangeAnswerLimitsInTheFileAreClamped();
    void testConnectionKeepsToTheSizeLimit();
    void modelIdsAndProviderErrorsAreShownEscaped();
    // Each number is declared once (appsettings.h), with the key, default and range it always had.
    void declaredNumbersAreWhatTheDialogOffers_data();
    void declaredNumbersAreWhatTheDialogOffers();
    void outOfRangeNumbersInTheFileAreClamped_data();
    void outOfRangeNumbersInTheFileAreClamped();
    void settingsFileKeepsItsKeys();
    // Provider profiles.
    void newProfileFromPresetFillsItIn();
    void maxTokensFieldFollowsThePresetAndIsSaved();
    void presetPlaceholdersAreAnError();
    void localPresetNeedsNoKey();
    void profileKeysAreReadWhenSelected();
    void removingAProfileAsksAndDeletesItsKey();
    void duplicateAndRenameKeepNamesUnique();
    void capabilityFindingsAreListedAndSuggestionsApplied();
    void switchesLearnedWhileOpenAreKept();
    void savedWindowLayoutComesBack();
    void windowReopensWithItsLayout();

private:
    SettingsDialog *openDialog(const AppSettings &settings, KeyStore *store);
    AppSettings configured(const QString &baseUrl) const;
    void clickOk();

    template<typename T>
    T *child(const char *name) const
    {
        T *widget = m_dialog->findChild<T *>(QString::fromLatin1(name));
        if (!widget)
            qFatal("no child %s", name);
        return widget;
    }

    AgentLoop::TemporarySettings m_settings;
    QTemporaryDir m_workDir;
    std::unique_ptr<SettingsDialog> m_dialog;
};

void tst_SettingsDialog::initTestCase()
{
    QVERIFY(AppSettings::settingsFilePath().startsWith(m_settings.path()));
    // Only what a test sets may configure the app.
    for (const char *variable :
         {AgentLoop::baseUrlVariable, AgentLoop::apiKeyVariable, AgentLoop::modelVariable})
        qunsetenv(variable);
    QVERIFY(QDir::setCurrent(m_workDir.path()));
}

void tst_SettingsDialog::init()
{
    QSettings(QSettings::IniFormat, QSettings::UserScope, u"AgentLoop"_s, u"Agent Loop"_s).clear();
    QFile::remove(AppSettings::settingsFilePath());
}

void tst_SettingsDialog::cleanup()
{
    m_dialog.reset();
}

SettingsDialog *tst_SettingsDialog::openDialog(const AppSettings &settings, KeyStore *store)
{
    m_dialog = std::make_unique<SettingsDialog>(settings, store);
    m_dialog->open();
    if (!QTest::qWaitForWindowExposed(m_dialog.get()))
        qWarning("the settings dialog was not exposed");
    return m_dialog.get();
}

AppSettings tst_SettingsDialog::configured(const QString &baseUrl) const
{
    AppSettings settings = AppSettings::load(emptyEnvironment(), m_workDir.path());
    settings.demoMode = false;
    settings.baseUrl = baseUrl;
    settings.apiKey = u"sk-test"_s;
    settings.model = u"gpt-4.1"_s;
    settings.workspace = m_workDir.path();
    return settings;
}

void tst_SettingsDialog::clickOk()
{
    child<QDialogButtonBox>("buttonBox")->button(QDialogButtonBox::Ok)->click();
}

void tst_SettingsDialog::invalidBaseUrlShowsTheCoreError_data()
{
    QTest::addColumn<QString>("baseUrl");
    QTest::newRow("ftp") << u"ftp://example.com/v1"_s;
    QTest::newRow("chat completions") << u"https://api.openai.com/v1/chat/completions"_s;
    QTest::newRow("no scheme") << u"api.openai.com/v1"_s;
}

void tst_SettingsDialog::invalidBaseUrlShowsTheCoreError()
{
    QFETCH(QString, baseUrl);
    openDialog(configured(u"https://api.openai.com/v1"_s), nullptr);
    QVERIFY(m_dialog->isValid());

    auto *edit = child<QLineEdit>("baseUrlEdit");
    edit->clear();
    QTest::keyClicks(edit, baseUrl);

    auto *message = child<QLabel>("baseUrlMessage");
    QVERIFY(message->isVisible());
    QCOMPARE(message->text(), AgentLoop::baseUrlError(baseUrl));
    QVERIFY(!m_dialog->isValid());
    QVERIFY(!child<QDialogButtonBox>("buttonBox")->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(!child<QPushButton>("testButton")->isEnabled());
}

void tst_SettingsDialog::missingV1IsOnlyAWarning()
{
    const QString baseUrl = u"http://127.0.0.1:8080"_s;
    openDialog(configured(baseUrl), nullptr);

    auto *message = child<QLabel>("baseUrlMessage");
    QVERIFY(message->isVisible());
    QCOMPARE(message->text(), AgentLoop::baseUrlWarning(baseUrl));
    // Amber, not the error red.
    const QColor color = message->palette().color(QPalette::WindowText);
    QVERIFY2(color.red() > color.blue() && color.green() > color.blue(), qPrintable(color.name()));
    QVERIFY(m_dialog->isValid());
    QVERIFY(child<QDialogButtonBox>("buttonBox")->button(QDialogButtonBox::Ok)->isEnabled());
}

void tst_SettingsDialog::missingSettingsAreNamedLikeTheCore()
{
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.apiKey.clear();
    settings.model.clear();
    openDialog(settings, nullptr);

    QProcessEnvironment environment;
    environment.insert(QString::fromLatin1(AgentLoop::baseUrlVariable), settings.baseUrl);
    const auto core = AgentLoop::loadConfig(environment, m_workDir.path());
    QVERIFY(!core.hasValue());

    auto *summary = child<QLabel>("summaryLabel");
    QVERIFY(summary->isVisible());
    QCOMPARE(summary->text(), core.error().message);
    QVERIFY(!m_dialog->isValid());

    child<QLineEdit>("apiKeyEdit")->setText(u"sk-test"_s);
    child<QComboBox>("modelCombo")->setEditText(u"gpt-4.1"_s);
    QVERIFY(!summary->isVisible());
    QVERIFY(m_dialog->isValid());
}

void tst_SettingsDialog::workspaceMustExist()
{
    openDialog(configured(u"https://api.openai.com/v1"_s), nullptr);
    const QString missing = m_workDir.filePath(u"no-such-folder"_s);

    child<QLineEdit>("workspaceEdit")->setText(missing);

    auto *message = child<QLabel>("workspaceMessage");
    QVERIFY(message->isVisible());
    QVERIFY(message->text().contains(QDir::toNativeSeparators(missing)));
    QVERIFY(!m_dialog->isValid());

    child<QLineEdit>("workspaceEdit")->setText(m_workDir.path());
    QVERIFY(!message->isVisible());
    QVERIFY(m_dialog->isValid());
}

void tst_SettingsDialog::demoNeedsNothing()
{
    AppSettings settings = configured(u"ftp://nonsense"_s);
    settings.apiKey.clear();
    settings.model.clear();
    openDialog(settings, nullptr);
    QVERIFY(!m_dialog->isValid());

    child<QCheckBox>("demoCheck")->setChecked(true);

    QVERIFY(m_dialog->isValid());
    QVERIFY(child<QDialogButtonBox>("buttonBox")->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(!child<QGroupBox>("providerGroup")->isEnabled());
    QVERIFY(!child<QLabel>("summaryLabel")->isVisible());
}

void tst_SettingsDialog::firstStartUsesTheDemo()
{
    const AppSettings settings = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QVERIFY(settings.demoMode);
    QVERIFY(!settings.isConfigured());
    QCOMPARE(settings.workspace, QDir::homePath());
    QCOMPARE(settings.provider().baseUrl.scheme(), u"demo"_s);

    openDialog(settings, nullptr);
    QVERIFY(child<QCheckBox>("demoCheck")->isChecked());
    QVERIFY(m_dialog->isValid());
}

void tst_SettingsDialog::showKeyActionToggles()
{
    openDialog(configured(u"https://api.openai.com/v1"_s), nullptr);
    auto *key = child<QLineEdit>("apiKeyEdit");
    auto *toggle = child<QToolButton>("showKeyButton");
    QCOMPARE(key->echoMode(), QLineEdit::Password);
    QVERIFY(!toggle->icon().isNull());
    QVERIFY(!toggle->accessibleName().isEmpty());

    toggle->click();
    QCOMPARE(key->echoMode(), QLineEdit::Normal);
    toggle->click();
    QCOMPARE(key->echoMode(), QLineEdit::Password);
}

void tst_SettingsDialog::testConnectionFillsTheModelList()
{
    AgentLoop::FakeChatServer server;
    server.setModels({u"alpha-1"_s, u"beta-2"_s});
    // The check's test request: the model calls the one tool it is offered.
    server.script({AgentLoop::FakeResponse::toolCall(u"call_1"_s,
                                                     u"report_ready"_s,
                                                     u"{\"ready\":true}"_s)});
    AppSettings settings = configured(server.baseUrl().toString());
    settings.model = u"my-own-model"_s;
    openDialog(settings, nullptr);
    QSignalSpy tested(m_dialog.get(), &SettingsDialog::connectionTested);
    auto *button = child<QPushButton>("testButton");
    QVERIFY(button->isEnabled());

    button->click();

    QVERIFY(m_dialog->isTestingConnection());
    QVERIFY(!button->isEnabled());
    QVERIFY(child<QProgressBar>("testProgress")->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 1, testTimeoutMs);
    QCOMPARE(tested.first().at(0).toBool(), true);
    // One line per finding, then the models: "✓ ..." for what works.
    auto *result = child<QLabel>("testResult");
    QVERIFY2(result->text().startsWith(u"✓ "_s), qPrintable(result->text()));
    QVERIFY2(result->text().contains(u"✗ Model exists: no — my-own-model is not among the 2 "
                                     u"models listed"_s),
             qPrintable(result->text()));
    QVERIFY2(result->text().contains(u"✓ Tool calling: yes"_s), qPrintable(result->text()));
    auto *combo = child<QComboBox>("modelCombo");
    QCOMPARE(combo->count(), 2);
    QCOMPARE(combo->itemText(0), u"alpha-1"_s);
    QCOMPARE(combo->itemText(1), u"beta-2"_s);
    QCOMPARE(combo->currentText(), u"my-own-model"_s);
    QVERIFY(button->isEnabled());
    QVERIFY(!child<QProgressBar>("testProgress")->isVisible());
    QVERIFY(!server.allRequests().isEmpty());
    QCOMPARE(server.allRequests().first().method, QByteArray("GET"));
    QCOMPARE(server.allRequests().first().header("Authorization"), QByteArray("Bearer sk-test"));
}

void tst_SettingsDialog::testConnectionWithAWrongKeyShowsTheKeyHint()
{
    AgentLoop::FakeChatServer server;
    server.setRequiredApiKey("sk-the-right-key");
    AppSettings settings = configured(server.baseUrl().toString());
    settings.apiKey = u"sk-a-wrong-key-0042"_s;
    openDialog(settings, nullptr);
    QSignalSpy tested(m_dialog.get(), &SettingsDialog::connectionTested);

    child<QPushButton>("testButton")->click();

    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 1, testTimeoutMs);
    QCOMPARE(tested.first().at(0).toBool(), false);
    const QString shown = child<QLabel>("testResult")->text();
    // A "✗" line, with the provider's words and the hint under it.
    QVERIFY2(shown.contains(u"\n✗ "_s) || shown.startsWith(u"✗ "_s), qPrintable(shown));
    QVERIFY2(shown.contains(u"HTTP 401: Incorrect API key provided"_s), qPrintable(shown));
    QVERIFY2(shown.contains(AgentLoop::httpError(401, {}).hint), qPrintable(shown));
    QVERIFY(!shown.contains(settings.apiKey));
    QCOMPARE(child<QComboBox>("modelCombo")->currentText(), settings.model);
}

void tst_SettingsDialog::keyIsNotWrittenToTheSettingsFile()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"AgentLoop-test"_s);
    QSignalSpy written(&store, &KeyStore::keyWritten);
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.apiKey = distinctiveKey;
    openDialog(settings, &store);
    QSignalSpy applied(m_dialog.get(), &SettingsDialog::settingsApplied);
    QVERIFY(!child<QCheckBox>("plainTextCheck")->isChecked());
    QVERIFY(child<QLabel>("keyLocationLabel")->text().contains(u"This session only"_s));

    clickOk();

    QCOMPARE(applied.size(), 1);
    QTRY_COMPARE(written.size(), 1);
    QCOMPARE(written.first().at(0).toBool(), false);
    const QByteArray bytes = AgentLoop::readFile(AppSettings::settingsFilePath());
    QVERIFY(bytes.contains("api.openai.com"));
    QVERIFY(!bytes.contains(distinctiveKey.toUtf8()));

    const AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QVERIFY(reloaded.apiKey.isEmpty());
    QVERIFY(reloaded.keyIsInStore());
    QVERIFY(!reloaded.isConfigured());
    QSignalSpy read(&store, &KeyStore::keyRead);
    store.readKey();
    QVERIFY(read.isEmpty()); // always asynchronous
    QTRY_COMPARE(read.size(), 1);
    QCOMPARE(read.first().at(0).toString(), distinctiveKey);
}

void tst_SettingsDialog::plainTextOptInWritesTheKeyAndOnlyThen()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"AgentLoop-test"_s);
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.apiKey = distinctiveKey;
    openDialog(settings, &store);
    auto *plainText = child<QCheckBox>("plainTextCheck");
    QVERIFY(plainText->isEnabled());
    auto *warning = child<QLabel>("plainTextWarning");
    QVERIFY(warning->isVisible());
    QVERIFY(warning->text().contains(QDir::toNativeSeparators(AppSettings::settingsFilePath())));

    plainText->setChecked(true);
    QVERIFY(child<QLabel>("keyLocationLabel")->text().contains(u"Settings file (plain text)"_s));
    clickOk();

    QVERIFY(AgentLoop::readFile(AppSettings::settingsFilePath()).contains(distinctiveKey.toUtf8()));
    AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.apiKey, distinctiveKey);
    QVERIFY(reloaded.storeKeyInPlainText);
    QVERIFY(!reloaded.keyIsInStore());
    QVERIFY(reloaded.isConfigured());

    openDialog(reloaded, &store);
    child<QCheckBox>("plainTextCheck")->setChecked(false);
    clickOk();

    QVERIFY(!AgentLoop::readFile(AppSettings::settingsFilePath()).contains(distinctiveKey.toUtf8()));
    reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QVERIFY(reloaded.apiKey.isEmpty());
    QVERIFY(reloaded.keyIsInStore());
}

// Windows Credential Manager keeps 2560 bytes a key: a larger one would be kept for this session
// only, which the dialog says while the key is entered, offering the settings file instead.
void tst_SettingsDialog::keyTooLargeForTheStoreIsSaidBeforeOk()
{
    KeyStore store(std::make_unique<AgentLoop::FakeCredentialManager>(
                           std::make_shared<AgentLoop::FakeCredentialManager::Entries>()),
                   u"AgentLoop-test"_s);
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.apiKey = u"sk-"_s + QString(2600, u'x');
    openDialog(settings, &store);
    auto *location = child<QLabel>("keyLocationLabel");
    QTRY_COMPARE(location->text(),
                 u"Key storage: The key is 2603 bytes; Windows Credential Manager stores at most "
                 "2560 bytes. It is kept for this session only."_s);
    QVERIFY(location->isVisible());
    QVERIFY(child<QCheckBox>("plainTextCheck")->isEnabled());

    // A key that fits goes to the store, and the settings file is not offered.
    child<QLineEdit>("apiKeyEdit")->setText(u"sk-fits"_s);
    QTRY_COMPARE(location->text(), u"Key storage: System credential store"_s);
    QVERIFY(!child<QCheckBox>("plainTextCheck")->isEnabled());
}

void tst_SettingsDialog::systemStoreKeepsTheKeyOutOfTheSettingsFile()
{
    // A service name of its own, so that a developer's real credential store is not touched
    // beyond this one entry, which is removed again.
    const QString service = u"AgentLoop-test-%1"_s.arg(QRandomGenerator::global()->generate());
    KeyStore store(KeyStore::Backend::System, service);
    store.setTimeout(10000);
    QSignalSpy written(&store, &KeyStore::keyWritten);
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.apiKey = distinctiveKey;

    settings.save(store);

    QTRY_COMPARE_WITH_TIMEOUT(written.size(), 1, AgentLoop::Testing::hangGuardMs);
    QVERIFY(!AgentLoop::readFile(AppSettings::settingsFilePath()).contains(distinctiveKey.toUtf8()));
    const bool stored = written.first().at(0).toBool();
    if (stored) {
        QCOMPARE(store.availability(), KeyStore::Availability::Available);
    } else {
        QCOMPARE(store.availability(), KeyStore::Availability::Unavailable);
        QVERIFY(!store.unavailableReason().isEmpty());
    }
    QSignalSpy read(&store, &KeyStore::keyRead);
    store.readKey();
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, AgentLoop::Testing::hangGuardMs);
    QCOMPARE(read.first().at(0).toString(), distinctiveKey);

    if (stored) {
        QSignalSpy deleted(&store, &KeyStore::keyDeleted);
        store.deleteKey();
        QTRY_COMPARE_WITH_TIMEOUT(deleted.size(), 1, AgentLoop::Testing::hangGuardMs);
    }
}

void tst_SettingsDialog::environmentValuesAreNotedAndNeverCopied()
{
    QTemporaryDir project;
    {
        QFile dotEnv(project.filePath(u".env"_s));
        QVERIFY(dotEnv.open(QIODevice::WriteOnly));
        dotEnv.write("OPENAI_BASE_URL=http://127.0.0.1:9/v1\n");
    }
    QProcessEnvironment environment;
    environment.insert(u"OPENAI_MODEL"_s, u"env-model-xyz"_s);
    environment.insert(u"OPENAI_API_KEY"_s, u"sk-env-SECRET-999"_s);
    const AppSettings settings = AppSettings::load(environment, project.path());
    QCOMPARE(settings.environmentOverrides.size(), 3);
    QVERIFY(!settings.demoMode); // a configured shell starts a configured app
    QCOMPARE(settings.baseUrl, u"http://127.0.0.1:9/v1"_s);
    QVERIFY(!settings.keyIsInStore());
    QVERIFY(settings.isConfigured());

    KeyStore store(KeyStore::Backend::SessionOnly, u"AgentLoop-test"_s);
    QSignalSpy written(&store, &KeyStore::keyWritten);
    QSignalSpy deleted(&store, &KeyStore::keyDeleted);
    openDialog(settings, &store);
    QCOMPARE(child<QLabel>("modelNote")->text(), u"Set by OPENAI_MODEL in the environment"_s);
    QCOMPARE(child<QLabel>("apiKeyNote")->text(), u"Set by OPENAI_API_KEY in the environment"_s);
    QCOMPARE(child<QLabel>("baseUrlNote")->text(),
             u"Set by OPENAI_BASE_URL in %1"_s.arg(
                     QDir::toNativeSeparators(project.filePath(u".env"_s))));
    QVERIFY(child<QLabel>("keyLocationLabel")->text().contains(u"not stored"_s));

    // Even with plain text ticked, an inherited key is stored nowhere.
    child<QCheckBox>("plainTextCheck")->setChecked(true);
    clickOk();
    QTest::qWait(50);

    const QByteArray bytes = AgentLoop::readFile(AppSettings::settingsFilePath());
    QVERIFY(!bytes.isEmpty());
    QVERIFY(!bytes.contains("sk-env-SECRET-999"));
    QVERIFY(!bytes.contains("env-model-xyz"));
    QVERIFY(!bytes.contains("127.0.0.1:9"));
    QCOMPARE(written.size(), 0);
    QCOMPARE(deleted.size(), 0);
}

void tst_SettingsDialog::streamAndRetriesArePersisted()
{
    AppSettings defaults = configured(u"https://api.openai.com/v1"_s);
    QVERIFY(defaults.stream);
    QCOMPARE(defaults.maxRetries, 3);
    openDialog(defaults, nullptr);
    auto *stream = child<QCheckBox>("streamCheck");
    auto *retries = child<QSpinBox>("retriesSpin");
    QVERIFY(stream->isChecked());
    QCOMPARE(retries->value(), 3);
    QCOMPARE(retries->minimum(), SettingsFile::maxRetries.minimum);
    QCOMPARE(retries->maximum(), SettingsFile::maxRetries.maximum);
    QCOMPARE(child<QLabel>("retriesLabel")->buddy(), retries);
    // Streaming is the profile's, in the provider's Advanced section, closed at first.
    QVERIFY(!stream->isVisible());
    child<QToolButton>("advancedToggle")->click();
    QVERIFY(stream->isVisible());
    QVERIFY(child<QLabel>("streamNote")->isVisible()); // why one would untick it
    QVERIFY(!stream->accessibleName().isEmpty());
    QVERIFY(!retries->accessibleName().isEmpty());
    // In the tab order as they sit in their forms.
    QCOMPARE(nextTabStop(child<QSpinBox>("timeoutSpin")), retries);
    QCOMPARE(nextTabStop(stream), child<QCheckBox>("streamUsageCheck"));
    // The retries stay usable in demo mode.
    child<QCheckBox>("demoCheck")->setChecked(true);
    QVERIFY(retries->isEnabled());
    child<QCheckBox>("demoCheck")->setChecked(false);

    stream->setChecked(false);
    retries->setValue(7);
    QSignalSpy applied(m_dialog.get(), &SettingsDialog::settingsApplied);
    clickOk();
    QCOMPARE(applied.size(), 1);
    const auto chosen = applied.first().at(0).value<AppSettings>();
    QCOMPARE(chosen.stream, false);
    QCOMPARE(chosen.maxRetries, 7);

    const AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.stream, false);
    QCOMPARE(reloaded.maxRetries, 7);
    const AgentLoop::ProviderSettings provider = reloaded.provider();
    QCOMPARE(provider.stream, false);
    QCOMPARE(provider.retry.maxRetries, 7);

    // Out-of-range values in the file are clamped.
    QSettings(AppSettings::settingsFilePath(), QSettings::IniFormat)
            .setValue(u"provider/maxRetries"_s, 99);
    QCOMPARE(AppSettings::load(emptyEnvironment(), m_workDir.path()).maxRetries,
             SettingsFile::maxRetries.maximum);
}

void tst_SettingsDialog::answerLimitsAreOfferedAndPersisted()
{
    const AppSettings defaults = configured(u"https://api.openai.com/v1"_s);
    QCOMPARE(defaults.maxResponseMegabytes, 64);
    QCOMPARE(defaults.maxAnswerMinutes, 10);
    QCOMPARE(defaults.provider().maxResponseBytes, AgentLoop::ProviderSettings().maxResponseBytes);
    QCOMPARE(defaults.provider().maxAnswerTime, AgentLoop::ProviderSettings().maxAnswerTime);
    openDialog(defaults, nullptr);

    auto *size = child<QSpinBox>("maxResponseSpin");
    auto *time = child<QSpinBox>("maxAnswerTimeSpin");
    QCOMPARE(size->value(), 64);
    QCOMPARE(size->minimum(), SettingsFile::maxResponseMegabytes.minimum);
    QCOMPARE(size->maximum(), SettingsFile::maxResponseMegabytes.maximum);
    QCOMPARE(size->suffix(), u" MB"_s);
    QCOMPARE(time->value(), 10);
    QCOMPARE(time->minimum(), SettingsFile::maxAnswerMinutes.minimum);
    QCOMPARE(time->maximum(), SettingsFile::maxAnswerMinutes.maximum);
    QCOMPARE(time->suffix(), u" min"_s);
    QCOMPARE(child<QLabel>("maxResponseLabel")->buddy(), size);
    QCOMPARE(child<QLabel>("maxAnswerTimeLabel")->buddy(), time);
    QVERIFY(!size->accessibleName().isEmpty() && !time->accessibleName().isEmpty());
    QVERIFY(!size->toolTip().isEmpty() && !time->toolTip().isEmpty());
    // In the form with the timeout and the retries, and in the tab order as they sit there.
    QCOMPARE(size->parentWidget(), child<QSpinBox>("timeoutSpin")->parentWidget());
    QCOMPARE(nextTabStop(child<QSpinBox>("retriesSpin")), size);
    QCOMPARE(nextTabStop(size), time);

    size->setValue(200);
    time->setValue(45);
    QSignalSpy applied(m_dialog.get(), &SettingsDialog::settingsApplied);
    clickOk();
    QCOMPARE(applied.size(), 1);
    const auto chosen = applied.first().at(0).value<AppSettings>();
    QCOMPARE(chosen.maxResponseMegabytes, 200);
    QCOMPARE(chosen.maxAnswerMinutes, 45);

    const AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.maxResponseMegabytes, 200);
    QCOMPARE(reloaded.maxAnswerMinutes, 45);
    const AgentLoop::ProviderSettings provider = reloaded.provider();
    QCOMPARE(provider.maxResponseBytes, qint64(200) * 1024 * 1024);
    QCOMPARE(provider.maxAnswerTime, std::chrono::milliseconds(45min));
}

void tst_SettingsDialog::outOfRangeAnswerLimitsInTheFileAreClamped()
{
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"provider/maxResponseMegabytes"_s, 0);
        file.setValue(u"provider/maxAnswerMinutes"_s, 999999);
    }
    AppSettings settings = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(settings.maxResponseMegabytes, SettingsFile::maxResponseMegabytes.minimum);
    QCOMPARE(settings.maxAnswerMinutes, SettingsFile::maxAnswerMinutes.maximum);
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"provider/maxResponseMegabytes"_s, 999999);
        file.setValue(u"provider/maxAnswerMinutes"_s, -3);
    }
    settings = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(settings.maxResponseMegabytes, SettingsFile::maxResponseMegabytes.maximum);
    QCOMPARE(settings.maxAnswerMinutes, SettingsFile::maxAnswerMinutes.minimum);
}

// "Test connection" asks with the limits entered: a provider whose model list is larger than
// them is reported as such, not read whole.
void tst_SettingsDialog::testConnectionKeepsToTheSizeLimit()
{
    AgentLoop::FakeChatServer server;
    QStringList ids;
    for (int i = 0; i < 30000; ++i)
        ids.append(u"model-%1"_s.arg(i, 6, 10, QChar(u'0')));
    server.setModels(ids);
    openDialog(configured(server.baseUrl().toString()), nullptr);
    child<QSpinBox>("maxResponseSpin")->setValue(1);
    QSignalSpy tested(m_dialog.get(), &SettingsDialog::connectionTested);

    child<QPushButton>("testButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 1, testTimeoutMs);
    QCOMPARE(tested.first().at(0).toBool(), false);
    const QString shown = child<QLabel>("testResult")->text();
    QVERIFY2(shown.contains(u"The answer passed the 1 MB limit; it was given up."_s),
             qPrintable(shown));
}

void tst_SettingsDialog::modelIdsAndProviderErrorsAreShownEscaped()
{
    AgentLoop::FakeChatServer server;
    // "gpt-4\u202Eini-m" reads "gpt-4m-ini" once laid out.
    const QString spoofed = u"gpt-4\u202Eini-m"_s;
    server.setModels({u"alpha-1"_s, spoofed});
    AppSettings settings = configured(server.baseUrl().toString());
    settings.model = u"gpt-\u2066x"_s;
    openDialog(settings, nullptr);
    QSignalSpy tested(m_dialog.get(), &SettingsDialog::connectionTested);
    child<QPushButton>("testButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 1, testTimeoutMs);

    auto *combo = child<QComboBox>("modelCombo");
    QCOMPARE(combo->count(), 2);
    QCOMPARE(combo->itemText(1), u"gpt-4⟨U+202E⟩ini-m"_s);
    auto *result = child<QLabel>("testResult");
    // The check's words for the model, the typed id escaped in them.
    QVERIFY2(result->text().contains(
                     u"✗ Model exists: no — gpt-⟨U+2066⟩x is not among the 2 models listed"_s),
             qPrintable(result->text()));
    QVERIFY2(result->text().contains(u"Listed: alpha-1, gpt-4⟨U+202E⟩ini-m"_s),
             qPrintable(result->text()));
    QVERIFY(!result->text().contains(QChar(u'\x2066')));
    // Picked, it is the provider's id that is asked for, not what the list shows.
    combo->setCurrentIndex(1);
    QCOMPARE(combo->currentText(), u"gpt-4⟨U+202E⟩ini-m"_s);
    QCOMPARE(m_dialog->settings().model, spoofed);

    // A provider's error is its characters, not markup.
    server.setHandler([](const AgentLoop::RecordedRequest &) {
        return AgentLoop::FakeResponse::httpError(400, u"<b>No</b> \u202Eyek"_s);
    });
    child<QPushButton>("testButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 2, testTimeoutMs);
    QCOMPARE(result->textFormat(), Qt::PlainText);
    QVERIFY2(result->text().contains(u"HTTP 400: <b>No</b> ⟨U+202E⟩yek"_s),
             qPrintable(result->text()));
    QVERIFY(!result->text().contains(QChar(u'\x202E')));
}

void tst_SettingsDialog::declaredNumbersAreWhatTheDialogOffers_data()
{
    QTest::addColumn<NumberSetting>("setting");
    QTest::addColumn<NumberField>("field");
    QTest::addColumn<QString>("spinName");
    // As settings files already hold them.
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("defaultValue");
    QTest::addColumn<int>("minimum");
    QTest::addColumn<int>("maximum");
    QTest::newRow("max turns") << &SettingsFile::maxTurns << &AppSettings::maxTurns
                               << u"maxTurnsSpin"_s << u"agent/maxTurns"_s << 20 << 1 << 200;
    QTest::newRow("request timeout")
            << &SettingsFile::requestTimeoutSeconds << &AppSettings::requestTimeoutSeconds
            << u"timeoutSpin"_s << u"provider/requestTimeoutSeconds"_s << 120 << 5 << 3600;
    QTest::newRow("retries") << &SettingsFile::maxRetries << &AppSettings::maxRetries
                             << u"retriesSpin"_s << u"provider/maxRetries"_s << 3 << 0 << 10;
    QTest::newRow("answer size") << &SettingsFile::maxResponseMegabytes
                                 << &AppSettings::maxResponseMegabytes << u"maxResponseSpin"_s
                                 << u"provider/maxResponseMegabytes"_s << 64 << 1 << 1024;
    QTest::newRow("answer time") << &SettingsFile::maxAnswerMinutes
                                 << &AppSettings::maxAnswerMinutes << u"maxAnswerTimeSpin"_s
                                 << u"provider/maxAnswerMinutes"_s << 10 << 1 << 1440;
}

void tst_SettingsDialog::declaredNumbersAreWhatTheDialogOffers()
{
    QFETCH(NumberSetting, setting);
    QFETCH(NumberField, field);
    QFETCH(QString, spinName);
    QFETCH(QString, key);
    QFETCH(int, defaultValue);
    QFETCH(int, minimum);
    QFETCH(int, maximum);
    QCOMPARE(QString::fromLatin1(setting->key), key);
    QCOMPARE(setting->defaultValue, defaultValue);
    QCOMPARE(setting->minimum, minimum);
    QCOMPARE(setting->maximum, maximum);
    QCOMPARE(AppSettings().*field, defaultValue);

    // A first start, nothing in the file: the dialog shows the default and offers the range.
    const AppSettings firstStart = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(firstStart.*field, defaultValue);
    openDialog(firstStart, nullptr);
    auto *spin = m_dialog->findChild<QSpinBox *>(spinName);
    QVERIFY(spin);
    QCOMPARE(spin->value(), defaultValue);
    QCOMPARE(spin->minimum(), minimum);
    QCOMPARE(spin->maximum(), maximum);

    // Either end of the range is kept under the key, and comes back.
    for (const int chosen : {minimum, maximum}) {
        openDialog(AppSettings::load(emptyEnvironment(), m_workDir.path()), nullptr);
        m_dialog->findChild<QSpinBox *>(spinName)->setValue(chosen);
        clickOk();
        QCOMPARE(QSettings(AppSettings::settingsFilePath(), QSettings::IniFormat).value(key).toInt(),
                 chosen);
        QCOMPARE(AppSettings::load(emptyEnvironment(), m_workDir.path()).*field, chosen);
    }
}

void tst_SettingsDialog::outOfRangeNumbersInTheFileAreClamped_data()
{
    declaredNumbersAreWhatTheDialogOffers_data();
}

void tst_SettingsDialog::outOfRangeNumbersInTheFileAreClamped()
{
    QFETCH(NumberField, field);
    QFETCH(QString, spinName);
    QFETCH(QString, key);
    QFETCH(int, minimum);
    QFETCH(int, maximum);
    const auto loadedFrom = [&](int stored) {
        QSettings(AppSettings::settingsFilePath(), QSettings::IniFormat).setValue(key, stored);
        return AppSettings::load(emptyEnvironment(), m_workDir.path());
    };

    QCOMPARE(loadedFrom(minimum - 1).*field, minimum);
    QCOMPARE(loadedFrom(-1000000).*field, minimum);
    QCOMPARE(loadedFrom(maximum + 1).*field, maximum);
    const AppSettings tooLarge = loadedFrom(1000000);
    QCOMPARE(tooLarge.*field, maximum);
    openDialog(tooLarge, nullptr);
    QCOMPARE(m_dialog->findChild<QSpinBox *>(spinName)->value(), maximum);
}

void tst_SettingsDialog::settingsFileKeepsItsKeys()
{
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.storeKeyInPlainText = true;
    settings.save();
    AppSettings::saveWindowLayout({QByteArray("geometry"), QByteArray("state")});

    QStringList keys = QSettings(AppSettings::settingsFilePath(), QSettings::IniFormat).allKeys();
    keys.sort();
    const QStringList expected{u"agent/demoMode"_s,
                               u"agent/maxTurns"_s,
                               u"agent/workspace"_s,
                               u"context/autoCompact"_s,
                               u"context/compactAtPercent"_s,
                               u"context/confirmCompaction"_s,
                               u"context/keepRecentExchanges"_s,
                               u"context/maxContinuations"_s,
                               u"context/projectInstructions"_s,
                               u"context/stubAboveChars"_s,
                               u"permissions/readOnlyCommands"_s,
                               u"profiles/current"_s, // no other profile: no profiles/order
                               u"provider/apiKey"_s,
                               u"provider/auth"_s,
                               u"provider/baseUrl"_s,
                               u"provider/extraHeaders"_s,
                               u"provider/maxAnswerMinutes"_s,
                               u"provider/maxResponseMegabytes"_s,
                               u"provider/maxRetries"_s,
                               u"provider/maxTokens"_s,
                               u"provider/maxTokensField"_s,
                               u"provider/model"_s,
                               u"provider/preset"_s,
                               u"provider/requestTimeoutSeconds"_s,
                               u"provider/storeKeyInPlainText"_s,
                               u"provider/stream"_s,
                               u"provider/streamUsage"_s,
                               u"window/geometry"_s,
                               u"window/state"_s};
    QCOMPARE(keys, expected);
}

void tst_SettingsDialog::savedWindowLayoutComesBack()
{
    QVERIFY(AppSettings::loadWindowLayout().geometry.isEmpty());
    QVERIFY(AppSettings::loadWindowLayout().state.isEmpty());

    const AppSettings::WindowLayout saved{QByteArray("\x01\xd9\xd0\xcb\x00\x03", 6),
                                          QByteArray("\x00\x00\x00\xff\x00", 5)};
    AppSettings::saveWindowLayout(saved);
    QCOMPARE(AppSettings::loadWindowLayout().geometry, saved.geometry);
    QCOMPARE(AppSettings::loadWindowLayout().state, saved.state);
    // Saving the settings leaves the layout alone.
    configured(u"https://api.openai.com/v1"_s).save();
    QCOMPARE(AppSettings::loadWindowLayout().geometry, saved.geometry);
    QCOMPARE(AppSettings::loadWindowLayout().state, saved.state);

    // A layout an earlier version saved is found where it put it.
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"window/geometry"_s, QByteArray("earlier geometry"));
        file.setValue(u"window/state"_s, QByteArray("earlier state"));
    }
    QCOMPARE(AppSettings::loadWindowLayout().geometry, QByteArray("earlier geometry"));
    QCOMPARE(AppSettings::loadWindowLayout().state, QByteArray("earlier state"));
}

void tst_SettingsDialog::windowReopensWithItsLayout()
{
    const AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    settings.save(); // not a first start: no settings dialog over the window
    KeyStore store(KeyStore::Backend::SessionOnly, u"AgentLoop-test"_s);
    MainWindow::Options options;
    options.keyStore = &store;
    options.persist = true;
    options.conversationDirectory = m_workDir.filePath(u"conversations"_s);
    options.outputDirectory = m_workDir.filePath(u"outputs"_s);
    // A height both screens here allow; the width a restored window gets depends on the docks
    // it has when its geometry is restored, and on the platform.
    const int height = 500;
    {
        MainWindow window(settings, options);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.start();
        QVERIFY(window.inspectorDock()->isVisible());
        window.inspectorDock()->close();
        window.resize(window.width(), height);
        QTRY_COMPARE(window.height(), height);
        QVERIFY(window.close());
    }

    MainWindow window(settings, options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.start();
    QTRY_COMPARE(window.height(), height);
    QVERIFY(!window.inspectorDock()->isVisible());
    QVERIFY(window.conversationsDock()->isVisible());
    // The window's file is the settings file: the settings in it are as they were.
    QCOMPARE(AppSettings::load(emptyEnvironment(), m_workDir.path()).baseUrl, settings.baseUrl);
}

// The preset's entry in the "New from preset…" menu, as a user picks it.
static QAction *presetAction(QMenu *menu, const QString &presetId)
{
    const QList<QAction *> actions = menu->actions();
    const auto found = std::find_if(actions.begin(), actions.end(), [&](QAction *action) {
        return action->data().toString() == presetId;
    });
    return found == actions.end() ? nullptr : *found;
}

void tst_SettingsDialog::maxTokensFieldFollowsThePresetAndIsSaved()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"agentloop-tests"_s);
    openDialog(configured(u"https://api.deepseek.com/v1"_s), &store);
    auto *field = child<QComboBox>("maxTokensFieldCombo");
    QCOMPARE(field->count(), 2);
    QCOMPARE(field->currentText(), u"max_tokens"_s);

    // A profile made from OpenAI's preset sends max_completion_tokens; DeepSeek's max_tokens.
    presetAction(m_dialog->presetMenu(), u"openai"_s)->trigger();
    QCOMPARE(field->currentText(), u"max_completion_tokens"_s);
    QTest::keyClicks(child<QLineEdit>("apiKeyEdit"), u"sk-openai-1111"_s);
    child<QSpinBox>("maxTokensSpin")->setValue(4096);
    presetAction(m_dialog->presetMenu(), u"deepseek"_s)->trigger();
    QCOMPARE(field->currentText(), u"max_tokens"_s);
    QTest::keyClicks(child<QLineEdit>("apiKeyEdit"), u"sk-deepseek-2222"_s);
    // The user's choice for the default profile.
    child<QComboBox>("profileCombo")->setCurrentIndex(0);
    field->setCurrentIndex(field->findText(u"max_completion_tokens"_s));
    QVERIFY(m_dialog->isValid());
    clickOk();

    const AppSettings saved = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(saved.maxTokensField, AgentLoop::MaxTokensField::MaxCompletionTokens);
    QCOMPARE(saved.profiles.size(), 2);
    QCOMPARE(saved.profiles.at(0).maxTokensField, AgentLoop::MaxTokensField::MaxCompletionTokens);
    QCOMPARE(saved.profiles.at(0).maxTokens, 4096);
    QCOMPARE(saved.profiles.at(1).maxTokensField, AgentLoop::MaxTokensField::MaxTokens);
    QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
    QCOMPARE(file.value(u"provider/maxTokensField"_s).toString(), u"max_completion_tokens"_s);
}

void tst_SettingsDialog::newProfileFromPresetFillsItIn()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"agentloop-tests"_s);
    openDialog(configured(u"https://api.openai.com/v1"_s), &store);
    auto *profiles = child<QComboBox>("profileCombo");
    QCOMPARE(profiles->count(), 1);
    QCOMPARE(profiles->currentText(), u"Default"_s);
    QVERIFY(!child<QToolButton>("removeProfileButton")->isEnabled()); // not the default one
    QVERIFY(!child<QLabel>("keyPageLabel")->isVisible());

    QMenu *menu = m_dialog->presetMenu();
    QCOMPARE(child<QToolButton>("newProfileButton")->menu(), menu);
    QAction *deepseek = presetAction(menu, u"deepseek"_s);
    QVERIFY(deepseek);
    QCOMPARE(deepseek->text(), u"DeepSeek — https://api.deepseek.com/v1"_s);
    QVERIFY(presetAction(menu, u"ollama"_s)->text().endsWith(u"(local, no key)"_s));
    QCOMPARE(menu->actions().size(), AgentLoop::providerPresets().size());
    deepseek->trigger();

    QCOMPARE(profiles->count(), 2);
    QCOMPARE(profiles->currentText(), u"DeepSeek"_s);
    QCOMPARE(child<QLineEdit>("baseUrlEdit")->text(), u"https://api.deepseek.com/v1"_s);
    QCOMPARE(child<QComboBox>("modelCombo")->currentText(), u"deepseek-chat"_s);
    QVERIFY(child<QLineEdit>("apiKeyEdit")->text().isEmpty());
    QVERIFY(child<QToolButton>("removeProfileButton")->isEnabled());
    auto *keyPage = child<QLabel>("keyPageLabel");
    QVERIFY(keyPage->isVisible());
    QVERIFY2(keyPage->text().startsWith(
                     u"Get a key at <a href=\"https://platform.deepseek.com/api_keys\">"_s),
             qPrintable(keyPage->text()));
    QVERIFY(keyPage->textInteractionFlags() & Qt::LinksAccessibleByMouse);
    // It needs its own key before OK.
    QVERIFY(child<QLabel>("summaryLabel")->text().contains(u"OPENAI_API_KEY"_s));
    QVERIFY(!child<QDialogButtonBox>("buttonBox")->button(QDialogButtonBox::Ok)->isEnabled());
    QTest::keyClicks(child<QLineEdit>("apiKeyEdit"), u"sk-deepseek-7777"_s);
    QVERIFY(m_dialog->isValid());

    // The default profile keeps its own fields and key.
    profiles->setCurrentIndex(0);
    QCOMPARE(child<QLineEdit>("baseUrlEdit")->text(), u"https://api.openai.com/v1"_s);
    QCOMPARE(child<QLineEdit>("apiKeyEdit")->text(), u"sk-test"_s);
    QVERIFY(!keyPage->isVisible());
    profiles->setCurrentIndex(1);
    QCOMPARE(child<QLineEdit>("apiKeyEdit")->text(), u"sk-deepseek-7777"_s);

    QSignalSpy applied(m_dialog.get(), &SettingsDialog::settingsApplied);
    clickOk();
    QCOMPARE(applied.size(), 1);
    const auto chosen = applied.first().at(0).value<AppSettings>();
    QCOMPARE(chosen.currentProfile().name, u"DeepSeek"_s);
    QCOMPARE(chosen.provider().baseUrl, QUrl(u"https://api.deepseek.com/v1"_s));
    QCOMPARE(chosen.provider().apiKey, u"sk-deepseek-7777"_s);

    const AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.profiles.size(), 1);
    QCOMPARE(reloaded.profiles.first().presetId, u"deepseek"_s);
    QCOMPARE(reloaded.currentProfileId, reloaded.profiles.first().id);
    QCOMPARE(reloaded.baseUrl, u"https://api.openai.com/v1"_s);
    KeyStore &deepseekStore = AppSettings::keyStoreFor(store, reloaded.currentProfileId);
    QSignalSpy read(&deepseekStore, &KeyStore::keyRead);
    deepseekStore.readKey();
    QTRY_COMPARE(read.size(), 1);
    QCOMPARE(read.first().at(0).toString(), u"sk-deepseek-7777"_s);
    QVERIFY(!AgentLoop::readFile(AppSettings::settingsFilePath()).contains("sk-deepseek-7777"));
}

void tst_SettingsDialog::presetPlaceholdersAreAnError()
{
    openDialog(configured(u"https://api.openai.com/v1"_s), nullptr);
    m_dialog->addProfileFromPreset(u"azure"_s);
    QTest::keyClicks(child<QLineEdit>("apiKeyEdit"), u"azure-key"_s);
    auto *message = child<QLabel>("baseUrlMessage");
    QVERIFY2(message->text().contains(u"<angle brackets>"_s), qPrintable(message->text()));
    QVERIFY(!m_dialog->isValid());
    QVERIFY(!child<QPushButton>("testButton")->isEnabled());
    QCOMPARE(child<QComboBox>("authCombo")->currentData().toInt(),
             int(AgentLoop::AuthStyle::ApiKeyHeader));

    child<QLineEdit>("baseUrlEdit")
            ->setText(
                    u"https://acme.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21"_s);
    child<QComboBox>("modelCombo")->setEditText(u"gpt-4o"_s);
    QVERIFY(!message->text().contains(u"<angle brackets>"_s));
    QVERIFY(m_dialog->isValid());
}

void tst_SettingsDialog::localPresetNeedsNoKey()
{
    openDialog(configured(u"https://api.openai.com/v1"_s), nullptr);
    m_dialog->addProfileFromPreset(u"ollama"_s);
    QVERIFY(m_dialog->isValid());
    QVERIFY(!child<QLineEdit>("apiKeyEdit")->isEnabled());
    QVERIFY(child<QLabel>("summaryLabel")->text().isEmpty());
    QVERIFY(!child<QLabel>("keyPageLabel")->isVisible()); // nothing to get
    QVERIFY(m_dialog->settings().isConfigured());
}

void tst_SettingsDialog::profileKeysAreReadWhenSelected()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"agentloop-tests"_s);
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    AgentLoop::ProviderProfile other;
    other.id = u"p12345678"_s;
    other.name = u"Other"_s;
    other.baseUrl = u"https://other.example/v1"_s;
    other.model = u"m"_s;
    settings.profiles = {other};
    AppSettings::keyStoreFor(store, other.id).writeKey(u"sk-other-stored"_s);
    openDialog(settings, &store); // knows no key of Other yet

    m_dialog->selectProfile(other.id);
    QCOMPARE(child<QLineEdit>("baseUrlEdit")->text(), other.baseUrl);
    QTRY_COMPARE(child<QLineEdit>("apiKeyEdit")->text(), u"sk-other-stored"_s);
    QVERIFY(child<QLabel>("baseUrlNote")->text().isEmpty());
    QCOMPARE(m_dialog->settings().keyOf(other.id), u"sk-other-stored"_s);
}

void tst_SettingsDialog::removingAProfileAsksAndDeletesItsKey()
{
    KeyStore store(KeyStore::Backend::SessionOnly, u"agentloop-tests"_s);
    AppSettings settings = configured(u"https://api.openai.com/v1"_s);
    AgentLoop::ProviderProfile other;
    other.id = u"p87654321"_s;
    other.name = u"Doomed"_s;
    other.baseUrl = u"https://doomed.example/v1"_s;
    other.model = u"m"_s;
    settings.profiles = {other};
    settings.profileKeys = {{other.id, u"sk-doomed"_s}};
    settings.currentProfileId = other.id;
    settings.save(store);
    openDialog(settings, &store);
    QCOMPARE(m_dialog->selectedProfileId(), other.id);

    child<QToolButton>("removeProfileButton")->click();
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = m_dialog->findChild<QMessageBox *>()) && box->isVisible());
    QVERIFY(box->text().contains(u"Doomed"_s));
    QCOMPARE(m_dialog->profiles().size(), 2); // not yet
    box->button(QMessageBox::Yes)->click();
    QCOMPARE(m_dialog->profiles().size(), 1);
    QCOMPARE(child<QComboBox>("profileCombo")->currentText(), u"Default"_s);
    QCOMPARE(child<QLineEdit>("baseUrlEdit")->text(), u"https://api.openai.com/v1"_s);

    clickOk();
    const AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QVERIFY(reloaded.profiles.isEmpty());
    QVERIFY(reloaded.currentProfileId.isEmpty());
    KeyStore &doomed = AppSettings::keyStoreFor(store, other.id);
    QSignalSpy read(&doomed, &KeyStore::keyRead);
    doomed.readKey();
    QTRY_COMPARE(read.size(), 1);
    QCOMPARE(read.first().at(0).toString(), QString());
}

void tst_SettingsDialog::duplicateAndRenameKeepNamesUnique()
{
    openDialog(configured(u"https://api.openai.com/v1"_s), nullptr);
    QVERIFY(!child<QToolButton>("renameProfileButton")->isEnabled()); // "Default" stays
    child<QToolButton>("duplicateProfileButton")->click();
    auto *profiles = child<QComboBox>("profileCombo");
    QCOMPARE(profiles->count(), 2);
    QCOMPARE(profiles->currentText(), u"Default (copy)"_s);
    QCOMPARE(child<QLineEdit>("baseUrlEdit")->text(), u"https://api.openai.com/v1"_s);
    QCOMPARE(child<QLineEdit>("apiKeyEdit")->text(), u"sk-test"_s);
    QVERIFY(child<QToolButton>("renameProfileButton")->isEnabled());

    m_dialog->renameProfile(u"  Work  "_s);
    QCOMPARE(profiles->currentText(), u"Work"_s);
    m_dialog->renameProfile(u"default"_s); // taken, whatever the case
    QCOMPARE(profiles->currentText(), u"default 2"_s);
    child<QLineEdit>("baseUrlEdit")->setText(u"https://work.example/v1"_s);
    clickOk();
    const AppSettings reloaded = AppSettings::load(emptyEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.profiles.size(), 1);
    QCOMPARE(reloaded.currentProfile().name, u"default 2"_s);
    QCOMPARE(reloaded.currentProfile().baseUrl, u"https://work.example/v1"_s);
    QCOMPARE(reloaded.baseUrl, u"https://api.openai.com/v1"_s);
}

// A run finds out, while the dialog is open, that the provider refuses stream_options: OK keeps
// that, for the profile shown and for one that is not.
void tst_SettingsDialog::switchesLearnedWhileOpenAreKept()
{
    AppSettings settings = configured(u"https://api.mistral.ai/v1"_s);
    AgentLoop::ProviderProfile other;
    other.id = u"p0000000e"_s;
    other.name = u"Other"_s;
    other.baseUrl = u"https://llm.example.com/v1"_s;
    other.model = u"m"_s;
    other.auth = AgentLoop::AuthStyle::None;
    settings.profiles = {other};
    openDialog(settings, nullptr);
    QSignalSpy applied(m_dialog.get(), &SettingsDialog::settingsApplied);
    QVERIFY(child<QCheckBox>("streamUsageCheck")->isChecked());

    AgentLoop::ProviderProfile learned = m_dialog->profiles().first(); // the default, shown
    learned.streamUsage = false;
    m_dialog->takeSwitches(learned);
    QVERIFY(!child<QCheckBox>("streamUsageCheck")->isChecked());
    QVERIFY(child<QCheckBox>("streamCheck")->isChecked());
    AgentLoop::ProviderProfile otherLearned = other;
    otherLearned.stream = false;
    m_dialog->takeSwitches(otherLearned);

    clickOk();
    QCOMPARE(applied.size(), 1);
    const AppSettings chosen = applied.first().first().value<AppSettings>();
    QCOMPARE(chosen.provider().streamUsage, false);
    QCOMPARE(chosen.provider().stream, true);
    QCOMPARE(chosen.profiles.size(), 1);
    QCOMPARE(chosen.profiles.first().stream, false);
    QCOMPARE(chosen.profiles.first().streamUsage, true);
}

void tst_SettingsDialog::capabilityFindingsAreListedAndSuggestionsApplied()
{
    using AgentLoop::CapabilityFinding;
    openDialog(configured(u"https://api.mistral.ai/v1"_s), nullptr);
    auto *apply = child<QPushButton>("applySuggestionsButton");
    QVERIFY(!apply->isVisible());
    QVERIFY(child<QCheckBox>("streamUsageCheck")->isChecked());

    AgentLoop::CapabilityReport report;
    report.findings = {{CapabilityFinding::Reachable, CapabilityFinding::Yes, u"Reachable"_s, {}},
                       {CapabilityFinding::ModelExists,
                        CapabilityFinding::Unknown,
                        u"Model: not listed"_s,
                        {}},
                       {CapabilityFinding::UsageReporting,
                        CapabilityFinding::No,
                        u"Usage: refused stream_options"_s,
                        u"HTTP 422: <i>extra</i>\u202Eforbidden sk-test"_s}};
    report.models = {u"mistral-large-latest"_s, u"mistral-small\u2066"_s};
    report.suggestedStreamUsage = false;
    m_dialog->showCapabilityReport(report);

    const QString shown = child<QLabel>("testResult")->text();
    QCOMPARE(child<QLabel>("testResult")->textFormat(), Qt::PlainText);
    const QStringList lines = shown.split(u'\n');
    QCOMPARE(lines.value(0), u"✓ Reachable"_s);
    QCOMPARE(lines.value(1), u"? Model: not listed"_s);
    QCOMPARE(lines.value(2), u"✗ Usage: refused stream_options"_s);
    // The provider's words under it: escaped, and without the key.
    QVERIFY2(lines.value(3).startsWith(u"    HTTP 422: <i>extra</i>⟨U+202E⟩forbidden"_s),
             qPrintable(lines.value(3)));
    QVERIFY(!shown.contains(u"sk-test"_s));
    QCOMPARE(lines.value(4), u"2 models listed"_s);
    auto *models = child<QComboBox>("modelCombo");
    QCOMPARE(models->count(), 2);
    QCOMPARE(models->itemText(1), u"mistral-small⟨U+2066⟩"_s);

    QVERIFY(apply->isVisible());
    apply->click();
    QVERIFY(!child<QCheckBox>("streamUsageCheck")->isChecked());
    QVERIFY(child<QCheckBox>("streamUsageCheck")->isVisible()); // the Advanced section opened
    QVERIFY(child<QCheckBox>("streamCheck")->isChecked());      // not suggested: unchanged
    QVERIFY(!apply->isVisible());
    clickOk();
    QCOMPARE(AppSettings::load(emptyEnvironment(), m_workDir.path()).streamUsage, false);
}

AGENTLOOP_TEST_MAIN(QApplication, tst_SettingsDialog)
#include "tst_settingsdialog.moc"
