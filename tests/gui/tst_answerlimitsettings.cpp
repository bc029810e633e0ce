#include "appsettings.h"
#include "config.h"
#include "fakechatserver.h"
#include "settingsdialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Gui;

// The settings dialog's bounds on one answer: "Maximum answer size" and "Maximum answer time",
// next to the request timeout and the retries, kept in the settings file and given to the client.
class tst_AnswerLimitSettings : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void limitsAreOfferedAndPersisted();
    void outOfRangeValuesInTheFileAreClamped();
    void testConnectionKeepsToTheSizeLimit();

private:
    void openDialog(const AppSettings &settings);
    AppSettings configured(const QString &baseUrl) const;

    template<typename T>
    T *child(const char *name) const
    {
        T *widget = m_dialog->findChild<T *>(QString::fromLatin1(name));
        if (!widget)
            qFatal("no child %s", name);
        return widget;
    }

    QTemporaryDir m_configDir;
    QTemporaryDir m_workDir;
    std::unique_ptr<SettingsDialog> m_dialog;
};

void tst_AnswerLimitSettings::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_configDir.path());
    QVERIFY(AppSettings::settingsFilePath().startsWith(m_configDir.path()));
    for (const char *variable :
         {AgentLoop::baseUrlVariable, AgentLoop::apiKeyVariable, AgentLoop::modelVariable})
        qunsetenv(variable);
    QVERIFY(QDir::setCurrent(m_workDir.path()));
}

void tst_AnswerLimitSettings::init()
{
    QSettings(QSettings::IniFormat, QSettings::UserScope, u"AgentLoop"_s, u"Agent Loop"_s).clear();
    QFile::remove(AppSettings::settingsFilePath());
}

void tst_AnswerLimitSettings::cleanup()
{
    m_dialog.reset();
}

void tst_AnswerLimitSettings::openDialog(const AppSettings &settings)
{
    m_dialog = std::make_unique<SettingsDialog>(settings, nullptr);
    m_dialog->open();
    if (!QTest::qWaitForWindowExposed(m_dialog.get()))
        qWarning("the settings dialog was not exposed");
}

AppSettings tst_AnswerLimitSettings::configured(const QString &baseUrl) const
{
    AppSettings settings = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    settings.demoMode = false;
    settings.baseUrl = baseUrl;
    settings.apiKey = u"sk-test"_s;
    settings.model = u"gpt-4.1"_s;
    settings.workspace = m_workDir.path();
    return settings;
}

void tst_AnswerLimitSettings::limitsAreOfferedAndPersisted()
{
    const AppSettings defaults = configured(u"https://api.openai.com/v1"_s);
    QCOMPARE(defaults.maxResponseMegabytes, 64);
    QCOMPARE(defaults.maxAnswerMinutes, 10);
    QCOMPARE(defaults.provider().maxResponseBytes, AgentLoop::ProviderSettings().maxResponseBytes);
    QCOMPARE(defaults.provider().maxAnswerTime, AgentLoop::ProviderSettings().maxAnswerTime);
    openDialog(defaults);

    auto *size = child<QSpinBox>("maxResponseSpin");
    auto *time = child<QSpinBox>("maxAnswerTimeSpin");
    QCOMPARE(size->value(), 64);
    QCOMPARE(size->minimum(), AppSettings::minimumMaxResponseMegabytes);
    QCOMPARE(size->maximum(), AppSettings::maximumMaxResponseMegabytes);
    QCOMPARE(size->suffix(), u" MB"_s);
    QCOMPARE(time->value(), 10);
    QCOMPARE(time->minimum(), AppSettings::minimumMaxAnswerMinutes);
    QCOMPARE(time->maximum(), AppSettings::maximumMaxAnswerMinutes);
    QCOMPARE(time->suffix(), u" min"_s);
    QCOMPARE(child<QLabel>("maxResponseLabel")->buddy(), size);
    QCOMPARE(child<QLabel>("maxAnswerTimeLabel")->buddy(), time);
    QVERIFY(!size->accessibleName().isEmpty() && !time->accessibleName().isEmpty());
    QVERIFY(!size->toolTip().isEmpty() && !time->toolTip().isEmpty());
    // In the form with the timeout and the retries, and in the tab order as they sit there.
    QCOMPARE(size->parentWidget(), child<QSpinBox>("timeoutSpin")->parentWidget());
    const auto nextTabStop = [](QWidget *widget) {
        QWidget *next = widget->nextInFocusChain();
        while (widget->isAncestorOf(next)) // a spin box's own line edit
            next = next->nextInFocusChain();
        return next;
    };
    QCOMPARE(nextTabStop(child<QCheckBox>("streamCheck")), size);
    QCOMPARE(nextTabStop(size), time);

    size->setValue(200);
    time->setValue(45);
    QSignalSpy applied(m_dialog.get(), &SettingsDialog::settingsApplied);
    child<QDialogButtonBox>("buttonBox")->button(QDialogButtonBox::Ok)->click();
    QCOMPARE(applied.size(), 1);
    const auto chosen = applied.first().at(0).value<AppSettings>();
    QCOMPARE(chosen.maxResponseMegabytes, 200);
    QCOMPARE(chosen.maxAnswerMinutes, 45);

    const AppSettings reloaded = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(reloaded.maxResponseMegabytes, 200);
    QCOMPARE(reloaded.maxAnswerMinutes, 45);
    const AgentLoop::ProviderSettings provider = reloaded.provider();
    QCOMPARE(provider.maxResponseBytes, qint64(200) * 1024 * 1024);
    QCOMPARE(provider.maxAnswerTime, std::chrono::milliseconds(45min));
}

void tst_AnswerLimitSettings::outOfRangeValuesInTheFileAreClamped()
{
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"provider/maxResponseMegabytes"_s, 0);
        file.setValue(u"provider/maxAnswerMinutes"_s, 999999);
    }
    AppSettings settings = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(settings.maxResponseMegabytes, AppSettings::minimumMaxResponseMegabytes);
    QCOMPARE(settings.maxAnswerMinutes, AppSettings::maximumMaxAnswerMinutes);
    {
        QSettings file(AppSettings::settingsFilePath(), QSettings::IniFormat);
        file.setValue(u"provider/maxResponseMegabytes"_s, 999999);
        file.setValue(u"provider/maxAnswerMinutes"_s, -3);
    }
    settings = AppSettings::load(QProcessEnvironment(), m_workDir.path());
    QCOMPARE(settings.maxResponseMegabytes, AppSettings::maximumMaxResponseMegabytes);
    QCOMPARE(settings.maxAnswerMinutes, AppSettings::minimumMaxAnswerMinutes);
}

// "Test connection" asks with the limits entered: a provider whose model list is larger than
// them is reported as such, not read whole.
void tst_AnswerLimitSettings::testConnectionKeepsToTheSizeLimit()
{
    AgentLoop::FakeChatServer server;
    QStringList ids;
    for (int i = 0; i < 30000; ++i)
        ids.append(u"model-%1"_s.arg(i, 6, 10, QChar(u'0')));
    server.setModels(ids);
    openDialog(configured(server.baseUrl().toString()));
    child<QSpinBox>("maxResponseSpin")->setValue(1);
    QSignalSpy tested(m_dialog.get(), &SettingsDialog::connectionTested);

    child<QPushButton>("testButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 1, 15000);
    QCOMPARE(tested.first().at(0).toBool(), false);
    const QString shown = child<QLabel>("testResult")->text();
    QVERIFY2(shown.startsWith(u"The answer passed the 1 MB limit; it was given up."_s),
             qPrintable(shown));
}

QTEST_MAIN(tst_AnswerLimitSettings)
#include "tst_answerlimitsettings.moc"
