// AgentStatusBar: what the status bar says through a run, and a retry countdown that counts
// down to the second and never shows "0 s" while it still waits.

#include "agent/agentsession.h"
#include "agentstatusbar.h"

#include <QLabel>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using State = AgentController::State;

class tst_AgentStatusBar : public QObject
{
    Q_OBJECT

private slots:
    void retryCountdown();
    void phasesAndTheirSeconds();
    void turnLabel();
    void hostileToolNameIsShownEscaped();
    void providerAndDemoLabels();
};

void tst_AgentStatusBar::retryCountdown()
{
    Gui::AgentStatusBar bar;
    bar.setIdleText(u"Ready"_s);
    bar.setState(State::WaitingForModel);
    QCOMPARE(bar.statusText(), u"Waiting for the model… 0 s"_s);

    // Every text the bar shows until the retry is due, and a little after.
    bar.retryScheduled(2500, 2, 4);
    QStringList shown{bar.statusText()};
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 2900) {
        QTest::qWait(20);
        if (shown.last() != bar.statusText())
            shown.append(bar.statusText());
    }
    QCOMPARE(shown,
             (QStringList{u"Retrying in 3 s (attempt 2 of 4)"_s,
                          u"Retrying in 2 s (attempt 2 of 4)"_s,
                          u"Retrying in 1 s (attempt 2 of 4)"_s}));

    // The retry goes out: the seconds count from this attempt.
    bar.requestSent();
    QCOMPARE(bar.statusText(), u"Waiting for the model… 0 s"_s);
    QTRY_COMPARE_WITH_TIMEOUT(bar.statusText(), u"Waiting for the model… 1 s"_s, 2500);
}

void tst_AgentStatusBar::phasesAndTheirSeconds()
{
    Gui::AgentStatusBar bar;
    bar.setIdleText(u"Ready"_s);
    QCOMPARE(bar.statusText(), u"Ready"_s);
    bar.setState(State::RunningTool);
    bar.toolStarted(u"shell"_s);
    QCOMPARE(bar.statusText(), u"Running shell… 0 s"_s);
    QTRY_COMPARE_WITH_TIMEOUT(bar.statusText(), u"Running shell… 1 s"_s, 2500);
    bar.setState(State::AwaitingApproval);
    QCOMPARE(bar.statusText(), u"Awaiting your approval"_s);
    bar.setIdleText(u"Finished"_s);
    bar.setState(State::Idle);
    QCOMPARE(bar.statusText(), u"Finished"_s);
    // Idle: nothing ticks any more.
    QTest::qWait(1200);
    QCOMPARE(bar.statusText(), u"Finished"_s);
}

void tst_AgentStatusBar::turnLabel()
{
    Gui::AgentStatusBar bar;
    QCOMPARE(bar.turnText(), QString());
    bar.startTurn(2, 20);
    QCOMPARE(bar.turnText(), u"Turn 2 of 20"_s);
    bar.clearTurn();
    QCOMPARE(bar.turnText(), QString());
}

void tst_AgentStatusBar::hostileToolNameIsShownEscaped()
{
    Gui::AgentStatusBar bar;
    bar.setState(State::RunningTool);
    bar.toolStarted(u"shell\u202Egnp.exe\nnext"_s);
    const QString text = bar.statusText();
    QVERIFY2(!text.contains(QChar(0x202E)) && !text.contains(u'\n'), qPrintable(text));
    QVERIFY2(text.contains(u"⟨U+202E⟩"_s), qPrintable(text));
}

void tst_AgentStatusBar::providerAndDemoLabels()
{
    Gui::AgentStatusBar bar;
    bar.show();
    auto *provider = bar.findChild<QLabel *>(u"providerText"_s);
    auto *demo = bar.findChild<QLabel *>(u"demoLabel"_s);
    QVERIFY(provider && demo);

    SessionConfiguration configuration;
    configuration.provider.baseUrl = QUrl(u"https://api.deepseek.com/v1"_s);
    configuration.provider.model = u"deepseek-chat"_s;
    bar.showConfiguration(configuration);
    QCOMPARE(provider->text(), u"deepseek-chat at api.deepseek.com"_s);
    QVERIFY(provider->isVisible());
    QVERIFY(!demo->isVisible());

    configuration.demoMode = true;
    bar.showConfiguration(configuration);
    QVERIFY(!provider->isVisible());
    QVERIFY(demo->isVisible());
    QCOMPARE(demo->text(), u"Demo mode"_s);
}

QTEST_MAIN(tst_AgentStatusBar)
#include "tst_agentstatusbar.moc"
