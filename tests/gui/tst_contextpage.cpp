// Settings › Context: the page shows the settings file's context entries, the window of the
// model entered (and what "automatic" resolves to), and OK writes what was edited back.

#include "agent/agentsession.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "settings/appsettings.h"
#include "settings/contextpage.h"
#include "settings/settingsdialog.h"
#include "temporarysettings.h"
#include "testmain.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using Gui::AppSettings;
using Gui::ContextPage;
using Gui::FallbackModel;

class tst_ContextPage : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void defaults();
    void loadsAndSavesEveryField();
    void handEditedValuesAreClamped();
    void automaticSaysWhatItResolvesTo();
    void theProvidersWindowShowsAsAutomatic();
    void theDialogFollowsTheModelEntered();
    void sessionGetsTheCurrentModelsWindow();
    void fallbackModelsAreEditedInOrderAndSaved();
    void pricesAreEditedPerModelAndSaved();

private:
    AppSettings loaded() const;

    TemporarySettings m_settings;
    QTemporaryDir m_workDir;
};

void tst_ContextPage::init()
{
    QFile::remove(AppSettings::settingsFilePath());
}

AppSettings tst_ContextPage::loaded() const
{
    AppSettings settings = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    settings.demoMode = false;
    settings.baseUrl = u"https://api.deepseek.com/v1"_s;
    settings.apiKey = u"sk-test"_s;
    settings.model = u"deepseek-chat"_s;
    settings.workspace = m_workDir.path();
    return settings;
}

void tst_ContextPage::defaults()
{
    const AppSettings settings = loaded();
    QCOMPARE(settings.context, ContextOptions());
    QVERIFY(settings.confirmCompaction);
    QVERIFY(settings.contextWindows.isEmpty());

    ContextPage page(settings, nullptr);
    QCOMPARE(page.windowSpin()->value(), 0);
    QCOMPARE(page.windowSpin()->text(), u"Automatic"_s);
    QVERIFY(page.autoCompactCheck()->isChecked());
    QCOMPARE(page.compactAtSpin()->value(), 80);
    QCOMPARE(page.compactAtSpin()->minimum(), 50);
    QCOMPARE(page.compactAtSpin()->maximum(), 95);
    QVERIFY(page.confirmCheck()->isChecked());
    QCOMPARE(page.stubAboveSpin()->value(), 2000);
    QCOMPARE(page.keepRecentSpin()->value(), 4);
    QVERIFY(page.projectInstructionsCheck()->isChecked());
    QCOMPARE(page.continuationsSpin()->value(), 3);
    QCOMPARE(page.continuationsSpin()->minimum(), 0);
    QCOMPARE(page.continuationsSpin()->maximum(), 10);
}

void tst_ContextPage::loadsAndSavesEveryField()
{
    AppSettings settings = loaded();
    ContextPage page(settings, nullptr);
    page.windowSpin()->setValue(64'000);
    page.autoCompactCheck()->setChecked(false);
    QVERIFY(!page.compactAtSpin()->isEnabled()); // it says when automatic compaction runs
    QVERIFY(!page.confirmCheck()->isEnabled());
    page.autoCompactCheck()->setChecked(true);
    page.compactAtSpin()->setValue(90);
    page.confirmCheck()->setChecked(false);
    page.stubAboveSpin()->setValue(5000);
    page.keepRecentSpin()->setValue(2);
    page.projectInstructionsCheck()->setChecked(false);
    page.continuationsSpin()->setValue(0);
    // A gateway's id holds a slash, which QSettings would read as a group.
    page.setModel(u"openai/gpt-4o"_s);
    QCOMPARE(page.windowSpin()->value(), 0);
    page.windowSpin()->setValue(100'000);
    page.apply(settings);
    settings.save();

    const AppSettings reread = loaded();
    QCOMPARE(reread.contextWindows,
             (QHash<QString, qint64>{{u"deepseek-chat"_s, 64'000}, {u"openai/gpt-4o"_s, 100'000}}));
    QVERIFY(reread.context.autoCompact);
    QCOMPARE(reread.context.compactAt, 0.9);
    QVERIFY(!reread.confirmCompaction);
    QCOMPARE(reread.context.stubAboveChars, 5000);
    QCOMPARE(reread.context.keepRecentExchanges, 2);
    QVERIFY(!reread.context.projectInstructions);
    QCOMPARE(reread.context.maxContinuations, 0);

    // Back to automatic: the model's entry goes.
    ContextPage again(reread, nullptr);
    QCOMPARE(again.windowSpin()->value(), 64'000);
    again.windowSpin()->setValue(0);
    AppSettings changed = reread;
    again.apply(changed);
    changed.save();
    QCOMPARE(loaded().contextWindows, (QHash<QString, qint64>{{u"openai/gpt-4o"_s, 100'000}}));
}

void tst_ContextPage::handEditedValuesAreClamped()
{
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"context/compactAtPercent"_s, 120);
        file.setValue(u"context/maxContinuations"_s, -3);
        file.setValue(u"context/keepRecentExchanges"_s, 0);
        file.setValue(u"context/stubAboveChars"_s, 10);
        file.setValue(u"context/windows/gpt-4o"_s, -5);
        file.setValue(u"context/windows/deepseek-chat"_s, 999'999'999);
    }
    const AppSettings settings = loaded();
    QCOMPARE(settings.context.compactAt, 0.95);
    QCOMPARE(settings.context.maxContinuations, 0);
    QCOMPARE(settings.context.keepRecentExchanges, 1);
    QCOMPARE(settings.context.stubAboveChars, 200);
    QCOMPARE(settings.contextWindows, (QHash<QString, qint64>{{u"deepseek-chat"_s, 100'000'000}}));
}

void tst_ContextPage::automaticSaysWhatItResolvesTo()
{
    ContextPage page(loaded(), nullptr);
    const QString tokens = QLocale().toString(qint64(128'000));
    QCOMPARE(page.automaticText(),
             u"Automatic: %1 tokens, from the built-in table of common models."_s.arg(tokens));
    page.setModel(u"my-finetune"_s);
    QVERIFY2(page.automaticText().startsWith(u"Automatic: %1 tokens, the default"_s.arg(tokens)),
             qPrintable(page.automaticText()));
    page.windowSpin()->setValue(8'000);
    QVERIFY2(page.automaticText().startsWith(u"Your setting is used instead."_s),
             qPrintable(page.automaticText()));
}

void tst_ContextPage::theProvidersWindowShowsAsAutomatic()
{
    FakeChatServer server;
    server.setHandler([](const RecordedRequest &request) {
        if (request.path != "/v1/models")
            return FakeResponse::httpError(404, u"Not found"_s);
        return FakeResponse::json(
                QJsonObject{{u"data"_s,
                             QJsonArray{QJsonObject{{u"id"_s, u"deepseek-chat"_s},
                                                    {u"context_length"_s, 163'840}}}}});
    });
    AgentSession session(std::make_shared<FakeCommandRunner>(),
                         ConversationStore(m_workDir.filePath(u"conversations"_s)));
    SessionConfiguration configuration;
    configuration.provider.baseUrl = server.baseUrl();
    configuration.provider.apiKey = u"sk-test"_s;
    configuration.provider.model = u"deepseek-chat"_s;
    configuration.workspace = m_workDir.path();
    session.configure(configuration);
    session.discoverContextWindows(); // as the main window does once it is applied
    QTRY_VERIFY(session.reportedContextWindow(u"deepseek-chat"_s).has_value());

    ContextPage page(loaded(), &session);
    QCOMPARE(page.automaticText(),
             u"Automatic: %1 tokens, as the provider's model list says."_s.arg(
                     QLocale().toString(qint64(163'840))));
}

void tst_ContextPage::theDialogFollowsTheModelEntered()
{
    AppSettings settings = loaded();
    settings.contextWindows = {{u"deepseek-chat"_s, 64'000}, {u"glm-4.6"_s, 150'000}};
    Gui::SettingsDialog dialog(settings, nullptr);
    ContextPage *page = dialog.contextPage();
    QVERIFY(page);
    QCOMPARE(page->model(), u"deepseek-chat"_s);
    QCOMPARE(page->windowSpin()->value(), 64'000);

    auto *model = dialog.findChild<QComboBox *>(u"modelCombo"_s);
    QVERIFY(model);
    model->setEditText(u"glm-4.6"_s);
    QCOMPARE(page->model(), u"glm-4.6"_s);
    QCOMPARE(page->windowSpin()->value(), 150'000);
    page->windowSpin()->setValue(180'000);
    const AppSettings entered = dialog.settings();
    QCOMPARE(entered.model, u"glm-4.6"_s);
    QCOMPARE(entered.contextWindows.value(u"glm-4.6"_s), 180'000);
    QCOMPARE(entered.contextWindows.value(u"deepseek-chat"_s), 64'000);
    QCOMPARE(entered.sessionConfiguration().context.contextWindow, 180'000);
}

void tst_ContextPage::sessionGetsTheCurrentModelsWindow()
{
    AppSettings settings = loaded();
    settings.context.compactAt = 0.7;
    settings.context.maxContinuations = 5;
    settings.contextWindows = {{u"deepseek-chat"_s, 64'000}, {u"gpt-4o"_s, 32'000}};
    SessionConfiguration configuration = settings.sessionConfiguration();
    QCOMPARE(configuration.context.contextWindow, 64'000);
    QCOMPARE(configuration.context.compactAt, 0.7);
    QCOMPARE(configuration.context.maxContinuations, 5);
    settings.model = u"qwen-plus"_s;
    QCOMPARE(settings.sessionConfiguration().context.contextWindow, 0);
}

void tst_ContextPage::fallbackModelsAreEditedInOrderAndSaved()
{
    AppSettings settings = loaded();
    ProviderProfile other;
    other.id = u"p00000042"_s;
    other.name = u"Second provider"_s;
    other.baseUrl = u"https://api.example.test/v1"_s;
    other.model = u"other-large"_s;
    settings.profiles = {other};
    settings.setKeyOf(other.id, u"sk-other"_s);
    settings.fallbackModels = {{u"deepseek-reasoner"_s, QString()}};

    ContextPage page(settings, nullptr);
    QListWidget *list = page.fallbackList();
    QCOMPARE(list->count(), 1);
    QCOMPARE(list->item(0)->text(), u"deepseek-reasoner"_s);
    QVERIFY(!page.addFallbackButton()->isEnabled()); // nothing typed
    QVERIFY(!page.removeFallbackButton()->isEnabled());

    QTest::keyClicks(page.fallbackModelEdit(), u"other-small"_s);
    page.fallbackProfileCombo()->setCurrentIndex(page.fallbackProfileCombo()->findData(other.id));
    page.addFallbackButton()->click();
    QCOMPARE(list->count(), 2);
    QCOMPARE(list->item(1)->text(), u"other-small (Second provider)"_s);
    QVERIFY(page.fallbackModelEdit()->text().isEmpty());
    QCOMPARE(list->currentRow(), 1);
    QVERIFY(!page.fallbackDownButton()->isEnabled());
    page.fallbackUpButton()->click(); // the second provider first
    QCOMPARE(list->item(0)->text(), u"other-small (Second provider)"_s);
    QTest::keyClicks(page.fallbackModelEdit(), u"deepseek-chat-old"_s);
    page.addFallbackButton()->click();
    QCOMPARE(list->count(), 3);
    page.removeFallbackButton()->click(); // the one just added
    QCOMPARE(list->count(), 2);

    page.apply(settings);
    const QList<FallbackModel> expected{{u"other-small"_s, other.id},
                                        {u"deepseek-reasoner"_s, QString()}};
    QCOMPARE(settings.fallbackModels, expected);
    settings.save();
    const AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.fallbackModels, expected);

    // The session gets them as providers: the profile's, or the one in use, with the model.
    AppSettings withKeys = reloaded;
    withKeys.demoMode = false;
    withKeys.apiKey = u"sk-test"_s;
    withKeys.setKeyOf(other.id, u"sk-other"_s);
    const SessionConfiguration configuration = withKeys.sessionConfiguration();
    QCOMPARE(configuration.fallbacks.size(), 2);
    QCOMPARE(configuration.fallbacks.at(0).model, u"other-small"_s);
    QCOMPARE(configuration.fallbacks.at(0).baseUrl, QUrl(u"https://api.example.test/v1"_s));
    QCOMPARE(configuration.fallbacks.at(0).apiKey, u"sk-other"_s);
    QCOMPARE(configuration.fallbacks.at(0).profileName, u"Second provider"_s);
    QCOMPARE(configuration.fallbacks.at(1).model, u"deepseek-reasoner"_s);
    QCOMPARE(configuration.fallbacks.at(1).baseUrl, configuration.provider.baseUrl);
    QCOMPARE(configuration.fallbacks.at(1).apiKey, u"sk-test"_s);
    QCOMPARE(configuration.provider.model, reloaded.model);
}

void tst_ContextPage::pricesAreEditedPerModelAndSaved()
{
    AppSettings settings = loaded();
    settings.modelPrices = {{u"deepseek-chat"_s, AgentLoop::ModelPrice{0.27, 1.10, u"$"_s}}};
    Gui::SettingsDialog dialog(settings, nullptr);
    ContextPage *page = dialog.contextPage();
    QVERIFY(page);
    QCOMPARE(page->inputPriceSpin()->value(), 0.27);
    QCOMPARE(page->outputPriceSpin()->value(), 1.10);
    QCOMPARE(page->currencyCombo()->currentText(), u"$"_s);

    // Another model has its own price; the first one's is kept.
    auto *model = dialog.findChild<QComboBox *>(u"modelCombo"_s);
    QVERIFY(model);
    model->setEditText(u"qwen/qwen-plus"_s);
    QCOMPARE(page->inputPriceSpin()->value(), 0.0);
    QCOMPARE(page->inputPriceSpin()->text(), u"None"_s);
    page->currencyCombo()->setCurrentText(u"¥"_s);
    page->inputPriceSpin()->setValue(0.8);
    page->outputPriceSpin()->setValue(2);
    AppSettings entered = dialog.settings();
    QCOMPARE(entered.modelPrices.value(u"qwen/qwen-plus"_s),
             (AgentLoop::ModelPrice{0.8, 2.0, u"¥"_s}));
    QCOMPARE(entered.modelPrices.value(u"deepseek-chat"_s),
             (AgentLoop::ModelPrice{0.27, 1.10, u"$"_s}));

    // Saved and read back (a slash in the id is no QSettings group); hand-edited nonsense is no
    // price.
    entered.save();
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"context/prices/glm-4.6/input"_s, -3);
        file.setValue(u"context/prices/glm-4.6/output"_s, u"nan"_s);
    }
    const AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.modelPrices, entered.modelPrices);

    // Zero again: no price for that model.
    model->setEditText(u"qwen/qwen-plus"_s);
    page->inputPriceSpin()->setValue(0);
    page->outputPriceSpin()->setValue(0);
    QVERIFY(!dialog.settings().modelPrices.contains(u"qwen/qwen-plus"_s));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_ContextPage)
#include "tst_contextpage.moc"
