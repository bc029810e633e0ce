// AgentStatusBar: what the status bar says through a run, and a retry countdown that counts
// down to the second and never shows "0 s" while it still waits.

#include "agent/agentsession.h"
#include "agentstatusbar.h"
#include "testmain.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QTest>

#include <functional>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using State = AgentController::State;

namespace {

// Starts a phase (startPhase()), checks it says "<phase>… 0 s", waits for the figure to move and
// checks it counted up, never past the real time. A loaded machine (Wine in CI) can stall the
// event loop for seconds, so the next figure seen need not be 1.
void expectSecondsCountUp(const Gui::AgentStatusBar &bar,
                          const QString &phase,
                          const std::function<void()> &startPhase)
{
    // Started before the bar's own clock, so that it is never behind it, however loaded the
    // machine: the bar can show no more seconds than it counts.
    QElapsedTimer beforeZero;
    beforeZero.start();
    startPhase();
    QCOMPARE(bar.statusText(), phase + u"… 0 s"_s);
    QTRY_VERIFY(bar.statusText() != phase + u"… 0 s"_s);
    const QString shown = bar.statusText();
    const qint64 elapsed = beforeZero.elapsed();
    const QRegularExpression counting(u"^"_s + QRegularExpression::escape(phase) + u"… (\\d+) s$"_s);
    const QRegularExpressionMatch match = counting.match(shown);
    QVERIFY2(match.hasMatch(), qPrintable(shown));
    const int seconds = match.captured(1).toInt();
    QVERIFY2(seconds >= 1 && seconds <= elapsed / 1000,
             qPrintable(u"%1 shown after %2 ms"_s.arg(shown).arg(elapsed)));
}

} // namespace

class tst_AgentStatusBar : public QObject
{
    Q_OBJECT

private slots:
    void retryCountdown();
    void phasesAndTheirSeconds();
    void turnLabel();
    void hostileToolNameIsShownEscaped();
    void toolProgressFollowsItsSeconds();
    void providerAndDemoLabels();
    void budgetUnderAndOverTheThreshold_data();
    void budgetUnderAndOverTheThreshold();
    void budgetColoursReadInLightAndDark();
    void budgetFollowsTheController();
};

void tst_AgentStatusBar::retryCountdown()
{
    Gui::AgentStatusBar bar;
    bar.setIdleText(u"Ready"_s);
    bar.setState(State::WaitingForModel);
    QCOMPARE(bar.statusText(), u"Waiting for the model… 0 s"_s);

    // Rounded up: a wait due now still says 1 s, never 0 s.
    bar.retryScheduled(0, 2, 4);
    QCOMPARE(bar.statusText(), u"Retrying in 1 s (attempt 2 of 4)"_s);

    // Every text the bar shows until it says 1 s, which it keeps until the retry goes out. A
    // loaded machine can stall the event loop past a second, so one may pass unseen; what is seen
    // still counts down, and never says 0 s.
    bar.retryScheduled(2500, 2, 4);
    const QStringList countdown{u"Retrying in 3 s (attempt 2 of 4)"_s,
                                u"Retrying in 2 s (attempt 2 of 4)"_s,
                                u"Retrying in 1 s (attempt 2 of 4)"_s};
    QStringList shown{bar.statusText()};
    QCOMPARE(shown.first(), countdown.first());
    QTRY_VERIFY([&] {
        if (shown.last() != bar.statusText())
            shown.append(bar.statusText());
        return shown.last() == countdown.last();
    }());
    qsizetype next = 0;
    for (const QString &text : std::as_const(shown)) {
        next = countdown.indexOf(text, next);
        QVERIFY2(next >= 0, qPrintable(shown.join(u" | "_s)));
    }

    // The retry goes out: the seconds count from this attempt.
    expectSecondsCountUp(bar, u"Waiting for the model"_s, [&] { bar.requestSent(); });
}

void tst_AgentStatusBar::phasesAndTheirSeconds()
{
    Gui::AgentStatusBar bar;
    bar.setIdleText(u"Ready"_s);
    QCOMPARE(bar.statusText(), u"Ready"_s);
    expectSecondsCountUp(bar, u"Running shell"_s, [&] {
        bar.setState(State::RunningTool);
        bar.toolStarted(u"shell"_s);
    });
    if (QTest::currentTestFailed())
        return;
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

// An MCP server's progress report follows the seconds, its message escaped and cut, until the
// next tool starts.
void tst_AgentStatusBar::toolProgressFollowsItsSeconds()
{
    Gui::AgentStatusBar bar;
    bar.setState(State::RunningTool);
    bar.toolStarted(u"mcp__everything__long"_s);
    bar.toolProgressed(u"mcp__everything__long"_s, {2, 5, u"step two"_s});
    QCOMPARE(bar.statusText(), u"Running mcp__everything__long… 0 s · 2 of 5 · step two"_s);
    bar.toolProgressed(u"mcp__everything__long"_s, {3, 0, QString()});
    QCOMPARE(bar.statusText(), u"Running mcp__everything__long… 0 s · 3"_s);

    bar.toolProgressed(u"mcp__everything__long"_s,
                       {4, 5, u"\u202Eexe.txt\n"_s + QString(5000, u'x')});
    const QString hostile = bar.statusText();
    QVERIFY2(hostile.startsWith(u"Running mcp__everything__long… 0 s · 4 of 5 · ⟨U+202E⟩exe.txt"_s),
             qPrintable(hostile));
    QVERIFY2(!hostile.contains(QChar(0x202E)) && !hostile.contains(u'\n'), qPrintable(hostile));
    QVERIFY2(hostile.size() < 400, qPrintable(hostile)); // the message is cut at 200 characters

    bar.toolStarted(u"shell"_s);
    QCOMPARE(bar.statusText(), u"Running shell… 0 s"_s);
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

using Level = Gui::AgentStatusBar::BudgetLevel;
using Source = ContextWindow::Source;

void tst_AgentStatusBar::budgetUnderAndOverTheThreshold_data()
{
    QTest::addColumn<qint64>("used");
    QTest::addColumn<bool>("estimated");
    QTest::addColumn<QString>("text");
    QTest::addColumn<Level>("level");
    QTest::newRow("79 %") << qint64(101'100) << true << u"≈101k / 128k"_s << Level::Normal;
    QTest::newRow("80 %") << qint64(102'400) << true << u"≈102k / 128k"_s << Level::Near;
    QTest::newRow("counted, 90 %") << qint64(115'200) << false << u"115k / 128k"_s << Level::Near;
    QTest::newRow("100 %") << qint64(128'000) << true << u"≈128k / 128k"_s << Level::Over;
    QTest::newRow("small") << qint64(31'200) << true << u"≈31.2k / 128k"_s << Level::Normal;
}

void tst_AgentStatusBar::budgetUnderAndOverTheThreshold()
{
    QFETCH(qint64, used);
    QFETCH(bool, estimated);
    QFETCH(QString, text);
    QFETCH(Level, level);

    Gui::AgentStatusBar bar;
    bar.show();
    auto *label = bar.findChild<QLabel *>(u"budgetText"_s);
    QVERIFY(label);
    bar.setBudget(ContextBudget{used, ContextWindow{128'000, Source::BuiltIn}, estimated});
    QCOMPARE(label->text(), text);
    QVERIFY(label->isVisible());
    QCOMPARE(bar.budgetLevel(), level);
    const QColor shown = label->palette().color(QPalette::WindowText);
    QCOMPARE(shown, Gui::AgentStatusBar::budgetColor(level, bar.palette()));
    if (level == Level::Normal)
        QCOMPARE(shown, bar.palette().color(QPalette::WindowText));
    else
        QVERIFY(shown != bar.palette().color(QPalette::WindowText));
    QCOMPARE(label->font().bold(), level != Level::Normal);

    // The tooltip says what the figure is and where the window comes from.
    const QString tip = label->toolTip();
    QVERIFY2(tip.contains(QLocale().toString(used)), qPrintable(tip));
    QVERIFY2(tip.contains(QLocale().toString(qint64(128'000))), qPrintable(tip));
    QVERIFY2(tip.contains(estimated ? u"Estimated"_s : u"As the provider counted it"_s),
             qPrintable(tip));
    QVERIFY2(tip.contains(u"built-in table"_s), qPrintable(tip));
}

void tst_AgentStatusBar::budgetColoursReadInLightAndDark()
{
    QPalette light;
    light.setColor(QPalette::Window, Qt::white);
    light.setColor(QPalette::WindowText, Qt::black);
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
    dark.setColor(QPalette::WindowText, Qt::white);
    for (const QPalette &palette : {light, dark}) {
        const QColor window = palette.color(QPalette::Window);
        for (const Level level : {Level::Near, Level::Over}) {
            const QColor text = Gui::AgentStatusBar::budgetColor(level, palette);
            // Far enough from the background to read: a lightness gap of at least 40 %.
            QVERIFY2(std::abs(text.lightness() - window.lightness()) >= 100,
                     qPrintable(text.name() + u" on "_s + window.name()));
        }
        QVERIFY(Gui::AgentStatusBar::budgetColor(Level::Near, palette)
                != Gui::AgentStatusBar::budgetColor(Level::Over, palette));
    }

    Gui::AgentStatusBar bar;
    bar.setBudget(ContextBudget{130'000, ContextWindow{128'000, Source::Setting}, true});
    bar.setPalette(dark);
    auto *label = bar.findChild<QLabel *>(u"budgetText"_s);
    QCOMPARE(label->palette().color(QPalette::WindowText),
             Gui::AgentStatusBar::budgetColor(Level::Over, dark));
    QVERIFY2(label->toolTip().contains(u"Settings › Context"_s), qPrintable(label->toolTip()));
}

void tst_AgentStatusBar::budgetFollowsTheController()
{
    AgentController controller;
    Gui::AgentStatusBar bar;
    bar.follow(controller);
    auto *label = bar.findChild<QLabel *>(u"budgetText"_s);
    QCOMPARE(label->text(), controller.budget().text());

    AgentOptions options = controller.options();
    options.contextWindow = ContextWindow{1'000, Source::Setting};
    controller.setOptions(options);
    QCOMPARE(label->text(), controller.budget().text());
    QVERIFY2(label->text().endsWith(u" / 1k"_s), qPrintable(label->text()));

    // A conversation that alone passes the window turns the figure red.
    History history;
    history.append(Message::user(QString(u"Summarise the build log below.\n"_s).repeated(200)));
    controller.setHistory(history);
    QCOMPARE(label->text(), controller.budget().text());
    QVERIFY(controller.budget().used > 1'000);
    QCOMPARE(bar.budgetLevel(), Level::Over);
}

AGENTLOOP_TEST_MAIN(QApplication, tst_AgentStatusBar)
#include "tst_agentstatusbar.moc"
