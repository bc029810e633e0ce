#include "agentstatusbar.h"

#include "agent/agentsession.h"
#include "base/displaytext.h"
#include "showntext.h"

#include <QEvent>
#include <QLabel>
#include <QLocale>

using namespace Qt::StringLiterals;
using AgentLoop::AgentController;

namespace Gui {

AgentStatusBar::AgentStatusBar(QWidget *parent)
    : QStatusBar(parent)
    , m_statusLabel(new QLabel(this))
    , m_turnLabel(new QLabel(this))
    , m_budgetLabel(new QLabel(this))
    , m_providerLabel(new QLabel(this))
    , m_demoLabel(new QLabel(tr("Demo mode"), this))
{
    m_statusLabel->setObjectName(u"statusText"_s);
    m_statusLabel->setAccessibleName(tr("Agent status"));
    m_statusLabel->setTextFormat(Qt::PlainText);
    // A long error message is cut at the window's edge (the tooltip has all of it) instead of
    // making the window wider.
    m_statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_statusLabel->setMinimumWidth(1);
    m_turnLabel->setObjectName(u"turnText"_s);
    m_turnLabel->setAccessibleName(tr("Turn"));
    m_budgetLabel->setObjectName(u"budgetText"_s);
    m_budgetLabel->setTextFormat(Qt::PlainText);
    m_budgetLabel->setAccessibleName(tr("Context budget"));
    m_providerLabel->setObjectName(u"providerText"_s);
    m_providerLabel->setTextFormat(Qt::PlainText);
    m_providerLabel->setAccessibleName(tr("Provider"));
    m_demoLabel->setObjectName(u"demoLabel"_s);
    m_demoLabel->setAccessibleName(tr("Demo mode"));
    m_demoLabel->setToolTip(tr("Answers come from a built-in scripted model: nothing is sent over "
                               "the network. Open File › Settings to connect a real provider."));
    m_demoLabel->setAutoFillBackground(true);
    m_demoLabel->setContentsMargins(8, 1, 8, 1);
    updateDemoColours();
    QFont demoFont = m_demoLabel->font();
    demoFont.setBold(true);
    m_demoLabel->setFont(demoFont);
    m_demoLabel->hide();

    addWidget(m_statusLabel, 1);
    addPermanentWidget(m_turnLabel);
    addPermanentWidget(m_budgetLabel);
    addPermanentWidget(m_providerLabel);
    addPermanentWidget(m_demoLabel);

    m_tick.setInterval(1000);
    m_tick.setTimerType(Qt::PreciseTimer); // a coarse one may skip a second of a countdown
    connect(&m_tick, &QTimer::timeout, this, &AgentStatusBar::update);
}

void AgentStatusBar::follow(const AgentController &controller)
{
    connect(&controller, &AgentController::stateChanged, this, &AgentStatusBar::setState);
    connect(&controller, &AgentController::turnStarted, this, &AgentStatusBar::startTurn);
    connect(&controller, &AgentController::requestSent, this, &AgentStatusBar::requestSent);
    connect(&controller,
            &AgentController::retryScheduled,
            this,
            [this](const QString &, qint64 delayMs, int nextAttempt, int maxAttempts) {
                retryScheduled(delayMs, nextAttempt, maxAttempts);
            });
    connect(&controller,
            &AgentController::toolStarted,
            this,
            [this](const AgentLoop::ToolCall &call) { toolStarted(call.name); });
    connect(&controller,
            &AgentController::toolProgressed,
            this,
            [this](const AgentLoop::ToolCall &call, const AgentLoop::ToolProgress &progress) {
                toolProgressed(call.name, progress);
            });
    connect(&controller, &AgentController::budgetChanged, this, &AgentStatusBar::setBudget);
    connect(&controller, &AgentController::notice, this, &AgentStatusBar::showNotice);
    setBudget(controller.budget());
    connect(&controller, &AgentController::finished, this, [this] { setIdleText(tr("Finished")); });
    connect(&controller, &AgentController::failed, this, [this](const AgentLoop::Error &error) {
        setIdleText(error.kind == AgentLoop::Error::Cancelled
                            ? tr("Stopped")
                            : tr("Failed: %1").arg(error.message));
    });
}

void AgentStatusBar::showConfiguration(const AgentLoop::SessionConfiguration &configuration)
{
    const AgentLoop::ProviderSettings &provider = configuration.provider;
    if (configuration.demoMode) {
        m_providerLabel->clear();
        m_providerLabel->hide();
    } else {
        //: The status bar's provider: "<model> at <host:port>"
        QString text = tr("%1 at %2").arg(provider.model, provider.baseUrl.authority());
        if (!provider.profileName.isEmpty()) {
            //: The status bar's provider with its profile: "<profile> · <model> at <host:port>"
            text = tr("%1 · %2").arg(provider.profileName, text);
        }
        m_providerLabel->setText(AgentLoop::displayedLine(text, 200)); // a model id from /models
        m_providerLabel->setToolTip(provider.baseUrl.toString());
        m_providerLabel->show();
    }
    m_demoLabel->setVisible(configuration.demoMode);
}

void AgentStatusBar::setProfileSwitcher(QWidget *switcher)
{
    const bool providerShown = !m_providerLabel->isHidden();
    const bool demoShown = !m_demoLabel->isHidden();
    removeWidget(m_providerLabel);
    removeWidget(m_demoLabel);
    addPermanentWidget(switcher);
    addPermanentWidget(m_providerLabel);
    addPermanentWidget(m_demoLabel);
    switcher->show();
    m_providerLabel->setVisible(providerShown);
    m_demoLabel->setVisible(demoShown);
}

void AgentStatusBar::setIdleText(const QString &text)
{
    m_idleText = text;
    update();
}

void AgentStatusBar::showNotice(const QString &text)
{
    showMessage(AgentLoop::displayedLine(text, 1000), noticeDurationMs);
}

void AgentStatusBar::clearTurn()
{
    m_turn = 0;
    update();
}

QString AgentStatusBar::statusText() const
{
    return m_statusLabel->text();
}

QString AgentStatusBar::turnText() const
{
    return m_turnLabel->text();
}

void AgentStatusBar::setState(AgentController::State state)
{
    m_state = state;
    const bool counting = state == AgentController::State::WaitingForModel
                          || state == AgentController::State::RunningTool;
    if (state != AgentController::State::WaitingForModel) {
        m_retryAt.reset();
        m_tick.setInterval(1000);
    }
    if (counting) {
        m_phaseClock.start();
        if (!m_tick.isActive())
            m_tick.start();
    } else {
        m_tick.stop();
    }
    update();
}

void AgentStatusBar::startTurn(int turn, int maxTurns)
{
    m_turn = turn;
    m_maxTurns = maxTurns;
    update();
}

void AgentStatusBar::requestSent()
{
    if (std::exchange(m_retryAt, std::nullopt)) {
        m_phaseClock.start();
        m_tick.start(1000); // the seconds count from this attempt
    }
    update();
}

void AgentStatusBar::retryScheduled(qint64 delayMs, int nextAttempt, int maxAttempts)
{
    m_retryAt = QDeadlineTimer(delayMs, Qt::PreciseTimer);
    m_retryAttempt = nextAttempt;
    m_retryAttempts = maxAttempts;
    // A countdown shown to the second needs a finer tick than the elapsed seconds.
    m_tick.start(250);
    update();
}

void AgentStatusBar::toolStarted(const QString &toolName)
{
    m_runningTool = toolName;
    m_toolProgress.reset();
    m_phaseClock.start();
    update();
}

void AgentStatusBar::toolProgressed(const QString &toolName, const AgentLoop::ToolProgress &progress)
{
    m_runningTool = toolName;
    m_toolProgress = progress;
    update();
}

void AgentStatusBar::update()
{
    const qint64 seconds = m_phaseClock.isValid() ? m_phaseClock.elapsed() / 1000 : 0;
    QString text;
    switch (m_state) {
    case AgentController::State::Idle:
        text = m_idleText;
        break;
    case AgentController::State::WaitingForModel:
        if (m_retryAt) {
            // Rounded up: "1 s" until the very moment of the retry, never "0 s" while waiting.
            const qint64 remaining = (m_retryAt->remainingTime() + 999) / 1000;
            text = tr("Retrying in %1 s (attempt %2 of %3)")
                           .arg(qMax<qint64>(remaining, 1))
                           .arg(m_retryAttempt)
                           .arg(m_retryAttempts);
        } else {
            text = tr("Waiting for the model… %1 s").arg(seconds);
        }
        break;
    case AgentController::State::AwaitingApproval:
        text = tr("Awaiting your approval");
        break;
    case AgentController::State::RunningTool:
        text = tr("Running %1… %2 s").arg(m_runningTool, QString::number(seconds));
        if (m_toolProgress) {
            text = tr("%1 · %2").arg(text, m_toolProgress->text());
        }
        break;
    case AgentController::State::Compacting:
        text = tr("Compacting the conversation… %1 s").arg(seconds);
        break;
    }
    // A tool's name, an error that quotes the provider, a conversation's title: one line, escaped.
    text = AgentLoop::displayedLine(text, 1000);
    m_statusLabel->setText(text);
    m_statusLabel->setToolTip(plainToolTip(text));
    m_turnLabel->setText(m_turn > 0 ? tr("Turn %1 of %2").arg(m_turn).arg(m_maxTurns) : QString());
}

void AgentStatusBar::setBudget(const AgentLoop::ContextBudget &budget)
{
    using Source = AgentLoop::ContextWindow::Source;
    const double fraction = budget.fraction();
    m_budgetLevel = fraction >= 1.0   ? BudgetLevel::Over
                    : fraction >= 0.8 ? BudgetLevel::Near
                                      : BudgetLevel::Normal;
    m_budgetLabel->setText(budget.text());

    const QLocale locale;
    QStringList lines;
    //: The status bar's context budget, in its tooltip: tokens of the next request, the model's
    //: window, the share of it
    lines.append(tr("The next request sends %1 tokens of the model's context window of %2 (%3 %).")
                         .arg(locale.toString(budget.used),
                              locale.toString(budget.window.tokens),
                              locale.toString(qRound(fraction * 100))));
    lines.append(budget.estimated ? tr("Estimated (≈): the provider has not counted all of it yet; "
                                       "once it reports usage, the estimate follows its count.")
                                  : tr("As the provider counted it."));
    switch (budget.window.source) {
    case Source::Setting:
        lines.append(tr("The window is your setting for this model (Settings › Context)."));
        break;
    case Source::Provider:
        lines.append(tr("The window is what the provider's model list says of this model."));
        break;
    case Source::BuiltIn:
        lines.append(tr("The window comes from the built-in table of common models."));
        break;
    case Source::Fallback:
        lines.append(tr("The model's window is not known, so 128 000 tokens is assumed: set it "
                        "in Settings › Context."));
        break;
    }
    if (m_budgetLevel == BudgetLevel::Over)
        lines.append(tr("The request does not fit the window: the provider will likely refuse "
                        "it unless the conversation is compacted."));
    else if (m_budgetLevel == BudgetLevel::Near)
        lines.append(tr("The request is close to the window's limit."));
    m_budgetLabel->setToolTip(lines.join(u'\n'));
    updateBudgetColour();
}

QString AgentStatusBar::budgetText() const
{
    return m_budgetLabel->text();
}

QString AgentStatusBar::budgetToolTip() const
{
    return m_budgetLabel->toolTip();
}

QColor AgentStatusBar::budgetColor(BudgetLevel level, const QPalette &palette)
{
    // Dark amber and red on a light window, light ones on a dark window: readable on both.
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    switch (level) {
    case BudgetLevel::Normal:
        break;
    case BudgetLevel::Near:
        return dark ? QColor(0xff, 0xcc, 0x66) : QColor(0x8a, 0x52, 0x00);
    case BudgetLevel::Over:
        return dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
    }
    return palette.color(QPalette::WindowText);
}

void AgentStatusBar::updateBudgetColour()
{
    QPalette budgetPalette = palette();
    budgetPalette.setColor(QPalette::WindowText, budgetColor(m_budgetLevel, palette()));
    m_budgetLabel->setPalette(budgetPalette);
    QFont font = m_budgetLabel->font();
    font.setBold(m_budgetLevel != BudgetLevel::Normal); // not by colour alone
    m_budgetLabel->setFont(font);
}

void AgentStatusBar::changeEvent(QEvent *event)
{
    QStatusBar::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        updateDemoColours();
        updateBudgetColour();
    }
}

void AgentStatusBar::updateDemoColours()
{
    QPalette demoPalette = palette();
    demoPalette.setColor(QPalette::Window, palette().color(QPalette::Highlight));
    demoPalette.setColor(QPalette::WindowText, palette().color(QPalette::HighlightedText));
    m_demoLabel->setPalette(demoPalette);
}

} // namespace Gui
