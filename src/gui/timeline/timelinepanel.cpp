#include "timeline/timelinepanel.h"

#include "agent/runtimeline.h"
#include "timeline/timelineview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

QString seconds(qint64 ms)
{
    return TimelinePanel::tr("%1 s").arg(QLocale().toString(double(ms) / 1000.0, 'f', 1));
}

QToolButton *toolButton(const QString &text, const QString &toolTip, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(toolTip);
    button->setAccessibleName(toolTip);
    button->setAutoRaise(true);
    return button;
}

} // namespace

TimelinePanel::TimelinePanel(QWidget *parent)
    : QWidget(parent)
    , m_view(new TimelineView(this))
    , m_summary(new QLabel(this))
    , m_zoomOut(toolButton(u"−"_s, tr("Zoom out (Ctrl+wheel, -)"), this))
    , m_zoomIn(toolButton(u"+"_s, tr("Zoom in (Ctrl+wheel, +)"), this))
    , m_fit(toolButton(tr("Fit"), tr("Show the whole conversation (0)"), this))
{
    setObjectName(u"timelinePanel"_s);
    m_summary->setObjectName(u"timelineSummary"_s);
    m_summary->setAccessibleName(tr("Timeline summary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_summary->setText(summaryText({}));
    auto *top = new QHBoxLayout;
    top->setContentsMargins(6, 2, 2, 0);
    top->addWidget(m_summary, 1);
    top->addWidget(m_zoomOut);
    top->addWidget(m_zoomIn);
    top->addWidget(m_fit);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    connect(m_zoomOut, &QToolButton::clicked, m_view, &TimelineView::zoomOut);
    connect(m_zoomIn, &QToolButton::clicked, m_view, &TimelineView::zoomIn);
    connect(m_fit, &QToolButton::clicked, m_view, &TimelineView::zoomToFit);
    connect(m_view, &TimelineView::turnActivated, this, &TimelinePanel::turnActivated);
    setFocusProxy(m_view);
}

void TimelinePanel::setTimeline(AgentLoop::RunTimeline *timeline)
{
    m_view->setTimeline(timeline);
    if (!timeline)
        return;
    // Once per change burst, with the view's repaint; a running request's wait grows with it.
    auto *throttle = new QTimer(this);
    throttle->setSingleShot(true);
    throttle->setInterval(100);
    connect(throttle, &QTimer::timeout, this, [this, throttle, timeline] {
        updateSummary();
        if (timeline->isActive())
            throttle->start(250);
    });
    connect(timeline, &AgentLoop::RunTimeline::changed, throttle, [throttle] {
        if (!throttle->isActive())
            throttle->start(100);
    });
    updateSummary();
}

void TimelinePanel::updateSummary()
{
    if (const AgentLoop::RunTimeline *timeline = m_view->timeline())
        m_summary->setText(summaryText(timeline->summary()));
}

QString TimelinePanel::summaryText(const AgentLoop::TimelineSummary &summary)
{
    const QLocale locale;
    // Two sources rather than %n: English has no catalogue to pick a plural form from.
    const QString requests = summary.requests == 1
                                     ? tr("1 request")
                                     : tr("%1 requests").arg(locale.toString(summary.requests));
    const QString retries = summary.retries == 1
                                    ? tr("1 retry")
                                    : tr("%1 retries").arg(locale.toString(summary.retries));
    return tr("Model %1 · Approvals %2 · Tools %3 · Tokens %4 in, %5 out · %6, %7")
            .arg(seconds(summary.modelWaitMs),
                 seconds(summary.approvalWaitMs),
                 seconds(summary.toolMs),
                 locale.toString(summary.tokensIn),
                 locale.toString(summary.tokensOut),
                 requests,
                 retries);
}

} // namespace Gui
