#pragma once

#include "agent/runtimeline.h"

#include <QAbstractScrollArea>
#include <QPointer>
#include <QTimer>

namespace Gui {

// The conversation as the course's diagram draws it: a lane each for the app, the model and the
// tools, every request, approval wait, tool run, retry and compaction a box as wide as it lasted,
// the first byte of each answer marked (the streamed part after it drawn stronger), and arrows
// from each tool result to the request that carried it back. Only what is on screen is painted:
// RunTimeline::visibleRange() finds it with a binary search, whatever the conversation's length.
// Ctrl+wheel or +/- zoom around the pointer, the wheel scrolls; Left/Right choose the box before
// or after, Home/End the first or last; a click, or Enter on the chosen box, activates its turn.
class TimelineView final : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget *parent = nullptr);

    // Not owned; none shows nothing.
    void setTimeline(AgentLoop::RunTimeline *timeline);
    AgentLoop::RunTimeline *timeline() const { return m_timeline; }

    double pixelsPerMs() const { return m_pixelsPerMs; }
    // Zooms keeping the time at x (viewport coordinates) where it is.
    void setPixelsPerMs(double pixelsPerMs, double anchorX = -1);
    void zoomIn();
    void zoomOut();
    // The whole conversation in the width of the view.
    void zoomToFit();
    static constexpr double minPixelsPerMs = 1e-5;
    static constexpr double maxPixelsPerMs = 4;

    // Where the spans are drawn now, in viewport coordinates.
    AgentLoop::TimelineGeometry timelineGeometry() const;
    // The span selected with a click or the keys, or -1.
    int selectedSpan() const { return m_selected; }
    void selectSpan(int index);
    // The tooltip of a span: kind, duration, first byte, tokens.
    QString toolTipFor(const AgentLoop::TimelineSpan &span) const;
    static QString kindName(AgentLoop::TimelineSpan::Kind kind,
                            AgentLoop::ExchangePurpose purpose = AgentLoop::ExchangePurpose::Turn);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    // A box was clicked (or Enter pressed on it): its turn, the inspector's request number.
    void turnActivated(int turn);
    // The scale changed.
    void zoomChanged(double pixelsPerMs);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent *event) override;

private:
    static constexpr int gutterWidth = 64; // the lanes' names
    static constexpr int axisHeight = 18;  // the time scale above the lanes

    void onTimelineChanged();
    void updateScrollBar();
    void activate(int index);
    void paintAxis(QPainter &painter,
                   const AgentLoop::TimelineGeometry &geometry,
                   qint64 fromMs,
                   qint64 toMs) const;

    QPointer<AgentLoop::RunTimeline> m_timeline;
    double m_pixelsPerMs = 0.05; // 1 s is 50 px
    int m_selected = -1;
    bool m_followEnd = true; // the view keeps the newest span in sight while it was at the end
    QTimer m_repaint;        // coalesces changes: at most one paint per interval
    QTimer m_live;           // grows the running boxes while a run goes on
};

} // namespace Gui
