#include "timeline/timelineview.h"

#include "chat/chatstyle.h"
#include "showntext.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;
using AgentLoop::TimelineGeometry;
using AgentLoop::TimelineSpan;

namespace Gui {

namespace {

constexpr double zoomStep = 1.5;
constexpr int rightMargin = 24; // past the last box
// A span's label, as shown in a box and a tooltip (a notice or a model name the provider sent).
constexpr qsizetype labelLength = 200;

QString durationText(qint64 ms)
{
    const QLocale locale;
    if (ms < 1000)
        return TimelineView::tr("%1 ms").arg(locale.toString(ms));
    if (ms < 60'000)
        return TimelineView::tr("%1 s").arg(locale.toString(double(ms) / 1000.0, 'f', 1));
    return TimelineView::tr("%1 min %2 s")
            .arg(locale.toString(ms / 60'000))
            .arg(locale.toString((ms % 60'000) / 1000));
}

// The fill of a kind's boxes: hues apart, light on a light palette, deep on a dark one.
QColor fillFor(TimelineSpan::Kind kind, bool dark)
{
    int hue = 0;
    switch (kind) {
    case TimelineSpan::Request:
        hue = 210;
        break;
    case TimelineSpan::Approval:
        hue = 40;
        break;
    case TimelineSpan::ToolRun:
        hue = 130;
        break;
    case TimelineSpan::Retry:
        hue = 0;
        break;
    case TimelineSpan::Compaction:
        hue = 280;
        break;
    }
    return dark ? QColor::fromHsl(hue, 110, 70) : QColor::fromHsl(hue, 150, 200);
}

// A time step for the scale's ticks about every 100 px.
qint64 tickStep(double pixelsPerMs)
{
    static constexpr qint64 steps[] = {1,       2,       5,       10,        20,
                                       50,      100,     200,     500,       1000,
                                       2000,    5000,    10'000,  30'000,    60'000,
                                       120'000, 300'000, 600'000, 1'800'000, 3'600'000};
    for (const qint64 step : steps) {
        if (double(step) * pixelsPerMs >= 100)
            return step;
    }
    return steps[std::size(steps) - 1];
}

} // namespace

TimelineView::TimelineView(QWidget *parent)
    : QAbstractScrollArea(parent)
{
    setObjectName(u"timelineView"_s);
    setAccessibleName(tr("Timeline"));
    setAccessibleDescription(tr("Requests, approvals and tool runs of the conversation over time"));
    setFocusPolicy(Qt::StrongFocus);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    horizontalScrollBar()->setSingleStep(20);
    viewport()->setMouseTracking(false);
    m_repaint.setSingleShot(true);
    m_repaint.setInterval(50);
    connect(&m_repaint, &QTimer::timeout, this, [this] {
        updateScrollBar();
        viewport()->update();
    });
    m_live.setInterval(100);
    connect(&m_live, &QTimer::timeout, this, [this] {
        if (!m_timeline || !m_timeline->isActive()) {
            m_live.stop();
            return;
        }
        if (!m_repaint.isActive())
            m_repaint.start();
    });
}

QSize TimelineView::sizeHint() const
{
    return {600,
            int(TimelineGeometry().height()) + axisHeight + 2 * frameWidth()
                    + horizontalScrollBar()->sizeHint().height() + 4};
}

QSize TimelineView::minimumSizeHint() const
{
    return {200, sizeHint().height()};
}

void TimelineView::setTimeline(AgentLoop::RunTimeline *timeline)
{
    if (m_timeline)
        m_timeline->disconnect(this);
    m_timeline = timeline;
    m_selected = -1;
    if (m_timeline)
        connect(m_timeline,
                &AgentLoop::RunTimeline::changed,
                this,
                &TimelineView::onTimelineChanged);
    updateScrollBar();
    viewport()->update();
}

void TimelineView::onTimelineChanged()
{
    if (!m_timeline)
        return;
    if (m_selected >= m_timeline->spans().size())
        m_selected = -1;
    if (m_timeline->spans().isEmpty()) {
        // Cleared: a new conversation starts at the left.
        m_followEnd = true;
        m_repaint.stop();
        updateScrollBar();
        viewport()->update();
        return;
    }
    if (m_timeline->isActive() && !m_live.isActive())
        m_live.start();
    if (!m_repaint.isActive())
        m_repaint.start();
}

TimelineGeometry TimelineView::timelineGeometry() const
{
    TimelineGeometry geometry;
    geometry.pixelsPerMs = m_pixelsPerMs;
    geometry.originX = gutterWidth + 8 - horizontalScrollBar()->value();
    geometry.top = axisHeight;
    if (m_timeline) {
        for (int lane = 0; lane < TimelineSpan::laneCount; ++lane)
            geometry.laneRows[lane] = std::min(4, m_timeline->slotCount(TimelineSpan::Lane(lane)));
    }
    // The lanes share the height the view has.
    const double rows = std::max(TimelineGeometry().height(),
                                 double(viewport()->height() - axisHeight - 2));
    geometry.laneHeight = rows / TimelineSpan::laneCount - geometry.laneSpacing;
    return geometry;
}

void TimelineView::updateScrollBar()
{
    const qint64 extent = m_timeline ? m_timeline->extent() : 0;
    const int content = int(std::min(double(std::numeric_limits<int>::max() / 2),
                                     std::ceil(double(extent) * m_pixelsPerMs)))
                        + gutterWidth + 8 + rightMargin;
    QScrollBar *bar = horizontalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum();
    bar->setPageStep(std::max(1, viewport()->width()));
    bar->setRange(0, std::max(0, content - viewport()->width()));
    if (m_followEnd && atEnd)
        bar->setValue(bar->maximum());
}

void TimelineView::scrollContentsBy(int, int)
{
    // Reading earlier spans stops the view following the newest; back at the end it follows again.
    QScrollBar *bar = horizontalScrollBar();
    m_followEnd = bar->value() >= bar->maximum();
    viewport()->update();
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBar();
}

void TimelineView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        viewport()->update();
}

void TimelineView::setPixelsPerMs(double pixelsPerMs, double anchorX)
{
    pixelsPerMs = std::clamp(pixelsPerMs, minPixelsPerMs, maxPixelsPerMs);
    if (pixelsPerMs == m_pixelsPerMs)
        return;
    if (anchorX < 0)
        anchorX = gutterWidth + (viewport()->width() - gutterWidth) / 2.0;
    const TimelineGeometry before = timelineGeometry();
    const double anchorMs = (anchorX - before.originX) / before.pixelsPerMs;
    m_pixelsPerMs = pixelsPerMs;
    const bool follow = m_followEnd;
    m_followEnd = false;
    updateScrollBar();
    // The time that was under the anchor stays there.
    const double origin = gutterWidth + 8;
    horizontalScrollBar()->setValue(int(std::lround(origin + anchorMs * pixelsPerMs - anchorX)));
    m_followEnd = follow && horizontalScrollBar()->value() >= horizontalScrollBar()->maximum();
    viewport()->update();
    emit zoomChanged(m_pixelsPerMs);
}

void TimelineView::zoomIn()
{
    setPixelsPerMs(m_pixelsPerMs * zoomStep);
}

void TimelineView::zoomOut()
{
    setPixelsPerMs(m_pixelsPerMs / zoomStep);
}

void TimelineView::zoomToFit()
{
    const qint64 extent = m_timeline ? std::max<qint64>(1, m_timeline->extent()) : 1;
    const double width = std::max(20, viewport()->width() - gutterWidth - 8 - rightMargin);
    setPixelsPerMs(width / double(extent), 0);
    horizontalScrollBar()->setValue(0);
    m_followEnd = true;
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        if (delta.y() != 0)
            setPixelsPerMs(m_pixelsPerMs * std::pow(zoomStep, delta.y() / 120.0),
                           event->position().x());
        event->accept();
        return;
    }
    // A vertical wheel scrolls along time: the view has nothing to scroll up or down.
    const int steps = delta.x() != 0 ? delta.x() : delta.y();
    QScrollBar *bar = horizontalScrollBar();
    bar->setValue(bar->value() - steps * bar->singleStep() / 40);
    event->accept();
}

void TimelineView::selectSpan(int index)
{
    if (!m_timeline || index < -1 || index >= m_timeline->spans().size())
        return;
    m_selected = index;
    if (index >= 0) {
        // Brought into sight.
        const TimelineGeometry g = timelineGeometry();
        const QRectF box = g.spanRect(m_timeline->spans().at(index), m_timeline->now());
        QScrollBar *bar = horizontalScrollBar();
        if (box.left() < gutterWidth || box.left() > viewport()->width() - 20)
            bar->setValue(bar->value() + int(box.left()) - gutterWidth - 40);
    }
    viewport()->update();
}

void TimelineView::activate(int index)
{
    if (!m_timeline || index < 0 || index >= m_timeline->spans().size())
        return;
    selectSpan(index);
    if (const int turn = m_timeline->spans().at(index).turn; turn > 0)
        emit turnActivated(turn);
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_timeline) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    setFocus(Qt::MouseFocusReason);
    const int index = event->position().x() > gutterWidth
                              ? m_timeline->spanAt(timelineGeometry(), event->position())
                              : -1;
    if (index >= 0)
        activate(index);
    event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const qsizetype count = m_timeline ? m_timeline->spans().size() : 0;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
        zoomToFit();
        return;
    case Qt::Key_Right:
        if (count > 0)
            selectSpan(int(std::min<qsizetype>(count - 1, m_selected + 1)));
        return;
    case Qt::Key_Left:
        if (count > 0)
            selectSpan(std::max(0, m_selected - 1));
        return;
    case Qt::Key_Home:
        if (count > 0)
            selectSpan(0);
        return;
    case Qt::Key_End:
        if (count > 0)
            selectSpan(int(count - 1));
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space:
        activate(m_selected);
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

QString TimelineView::kindName(TimelineSpan::Kind kind, AgentLoop::ExchangePurpose purpose)
{
    switch (kind) {
    case TimelineSpan::Request:
        switch (purpose) {
        case AgentLoop::ExchangePurpose::Turn:
            return tr("Request");
        case AgentLoop::ExchangePurpose::Compaction:
            return tr("Summary request");
        case AgentLoop::ExchangePurpose::Continuation:
            return tr("Continuation request");
        }
        break;
    case TimelineSpan::Approval:
        return tr("Approval wait");
    case TimelineSpan::ToolRun:
        return tr("Tool run");
    case TimelineSpan::Retry:
        return tr("Retry wait");
    case TimelineSpan::Compaction:
        return tr("Compaction");
    }
    return {};
}

QString TimelineView::toolTipFor(const TimelineSpan &span) const
{
    const QLocale locale;
    const qint64 now = m_timeline ? m_timeline->now() : span.endAt(0);
    QStringList lines;
    QString title = kindName(span.kind, span.purpose);
    if (!span.label.isEmpty())
        title = tr("%1: %2").arg(title, shownText(span.label, labelLength).text);
    lines << title;
    if (span.turn > 0)
        lines << tr("Request %1").arg(locale.toString(span.turn));
    if (span.kind == TimelineSpan::Request && span.attempt > 1)
        lines << tr("Attempt %1").arg(locale.toString(span.attempt));
    const QString duration = durationText(span.endAt(now) - span.startMs);
    lines << (span.isRunning() ? tr("Running for %1").arg(duration) : tr("Took %1").arg(duration));
    if (span.kind == TimelineSpan::Request) {
        lines << (span.firstByteMs >= 0
                          ? tr("First byte after %1")
                                    .arg(durationText(span.firstByteMs - span.startMs))
                          : tr("No answer yet"));
        if (span.promptTokens >= 0)
            lines << tr("Tokens: %1 in, %2 out")
                             .arg(locale.toString(span.promptTokens),
                                  locale.toString(span.completionTokens));
    }
    if (!span.isRunning() && !span.ok) {
        switch (span.kind) {
        case TimelineSpan::Request:
            lines << tr("Failed");
            break;
        case TimelineSpan::Approval:
            lines << tr("Denied");
            break;
        case TimelineSpan::ToolRun:
            lines << tr("Ended with an error");
            break;
        default:
            break;
        }
    }
    return lines.join(u'\n');
}

bool TimelineView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_timeline) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int index = help->pos().x() > gutterWidth
                                  ? m_timeline->spanAt(timelineGeometry(), help->pos())
                                  : -1;
        if (index >= 0)
            QToolTip::showText(help->globalPos(),
                               plainToolTip(toolTipFor(m_timeline->spans().at(index))),
                               viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::paintAxis(QPainter &painter,
                             const TimelineGeometry &geometry,
                             qint64 fromMs,
                             qint64 toMs) const
{
    const qint64 step = tickStep(m_pixelsPerMs);
    const QColor line = palette().color(QPalette::Mid);
    painter.setPen(palette().color(QPalette::WindowText));
    const QFontMetrics metrics = painter.fontMetrics();
    for (qint64 t = std::max<qint64>(0, fromMs / step * step); t <= toMs; t += step) {
        const double x = geometry.xAt(t);
        if (x < gutterWidth)
            continue;
        painter.setPen(line);
        painter.drawLine(QPointF(x, axisHeight - 4), QPointF(x, geometry.top + geometry.height()));
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QPointF(x + 3, metrics.ascent() + 1), durationText(t));
    }
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    const QPalette &pal = palette();
    const bool dark = ChatColors::isDark(pal);
    const QRect area = viewport()->rect();
    painter.fillRect(area, pal.color(QPalette::Base));
    const TimelineGeometry g = timelineGeometry();
    for (int lane = 0; lane < TimelineSpan::laneCount; ++lane) {
        if (lane % 2 == 1)
            painter.fillRect(g.laneRect(TimelineSpan::Lane(lane), area.width()),
                             pal.color(QPalette::AlternateBase));
    }
    if (m_timeline) {
        const qint64 now = m_timeline->now();
        const qint64 fromMs = g.msAt(gutterWidth) - 1;
        const qint64 toMs = g.msAt(area.width()) + 1;
        paintAxis(painter, g, fromMs, toMs);
        const QList<TimelineSpan> &spans = m_timeline->spans();
        const auto [first, last] = m_timeline->visibleRange(fromMs, toMs);
        painter.setClipRect(QRect(gutterWidth, 0, area.width() - gutterWidth, area.height()));
        const QColor text = dark ? QColor(235, 235, 235) : QColor(20, 20, 20);
        const QFontMetrics metrics = painter.fontMetrics();
        // Boxes narrower than a pixel: one line per pixel column is all that can show.
        double lastThinX[TimelineSpan::laneCount] = {-1, -1, -1};
        for (int i = first; i < last; ++i) {
            const TimelineSpan &span = spans.at(i);
            const QRectF box = g.spanRect(span, now);
            if (box.right() < gutterWidth || box.left() > area.width())
                continue;
            const QColor fill = fillFor(span.kind, dark);
            if (box.width() <= g.minBoxWidth + 0.5 && i != m_selected) {
                if (std::floor(box.left()) == lastThinX[span.lane])
                    continue;
                lastThinX[span.lane] = std::floor(box.left());
                painter.fillRect(box, fill.darker(dark ? 70 : 130));
                continue;
            }
            painter.setPen(QPen(i == m_selected ? pal.color(QPalette::Highlight)
                                                : fill.darker(dark ? 60 : 150),
                                i == m_selected ? 2 : 1));
            painter.setBrush(fill);
            painter.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
            const double firstByte = g.firstByteX(span);
            if (firstByte >= box.left() && firstByte <= box.right()) {
                // The streamed answer: from its first byte to its end.
                const QRectF streamed(QPointF(firstByte, box.top()), box.bottomRight());
                painter.fillRect(streamed.adjusted(0, 1, -1, -1), fill.darker(dark ? 70 : 125));
                painter.setPen(QPen(text, 1.5));
                painter.drawLine(QPointF(firstByte, box.top()), QPointF(firstByte, box.bottom()));
            }
            if (!span.isRunning() && !span.ok) {
                painter.setPen(QPen(dark ? QColor(255, 110, 110) : QColor(190, 0, 0), 2));
                painter.drawLine(box.bottomLeft() + QPointF(1, -1),
                                 box.bottomRight() - QPointF(1, 1));
            }
            if (box.width() > 30 && box.height() >= metrics.height()) {
                QString label;
                if (span.kind == TimelineSpan::Request)
                    label = tr("#%1").arg(span.turn);
                else if (span.label.isEmpty())
                    label = kindName(span.kind);
                else if (span.kind == TimelineSpan::Approval)
                    label = tr("%1: %2").arg(kindName(span.kind),
                                             shownText(span.label, labelLength).text);
                else
                    label = shownText(span.label, labelLength).text;
                painter.setPen(text);
                painter.drawText(box.adjusted(4, 0, -2, 0),
                                 Qt::AlignVCenter | Qt::AlignLeft,
                                 metrics.elidedText(label, Qt::ElideRight, int(box.width()) - 6));
            }
        }
        // The tool results going back: from a tool's end to the start of the request that
        // carried it. Arrows are in the order of their requests.
        const QList<AgentLoop::TimelineArrow> &arrows = m_timeline->arrows();
        const auto arrow = std::lower_bound(arrows.cbegin(),
                                            arrows.cend(),
                                            first,
                                            [](const AgentLoop::TimelineArrow &a, int index) {
                                                return a.toSpan < index;
                                            });
        painter.setRenderHint(QPainter::Antialiasing);
        const QColor arrowColour = pal.color(QPalette::WindowText);
        for (auto it = arrow; it != arrows.cend() && it->fromSpan < last; ++it) {
            const QRectF from = g.spanRect(spans.at(it->fromSpan), now);
            const QRectF to = g.spanRect(spans.at(it->toSpan), now);
            const QPointF start(from.right(), from.top());
            const QPointF end(to.left(), to.bottom());
            if (std::max(start.x(), end.x()) < gutterWidth
                || std::min(start.x(), end.x()) > area.width())
                continue;
            painter.setPen(QPen(arrowColour, 1));
            painter.drawLine(start, end);
            // The head, pointing up at the request.
            const QPointF dir = end - start;
            const double length = std::hypot(dir.x(), dir.y());
            if (length < 1)
                continue;
            const QPointF unit = dir / length;
            const QPointF normal(-unit.y(), unit.x());
            QPainterPath head;
            head.moveTo(end);
            head.lineTo(end - unit * 6 + normal * 3);
            head.lineTo(end - unit * 6 - normal * 3);
            head.closeSubpath();
            painter.fillPath(head, arrowColour);
        }
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setClipping(false);
    }
    // The lanes' names, over whatever scrolled under them.
    painter.fillRect(QRect(0, 0, gutterWidth, area.height()), pal.color(QPalette::Window));
    painter.setPen(pal.color(QPalette::WindowText));
    const QString names[] = {tr("App"), tr("Model"), tr("Tools")};
    for (int lane = 0; lane < TimelineSpan::laneCount; ++lane) {
        const QRectF row = g.laneRect(TimelineSpan::Lane(lane), gutterWidth);
        painter.drawText(row.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, names[lane]);
    }
    if (hasFocus()) {
        painter.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DotLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(area.adjusted(0, 0, -1, -1));
    }
}

} // namespace Gui
