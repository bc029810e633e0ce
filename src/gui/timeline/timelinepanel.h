#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace AgentLoop {
class RunTimeline;
struct TimelineSummary;
} // namespace AgentLoop

namespace Gui {

class TimelineView;

// The Timeline view with its summary line above the lanes (time spent waiting for the model, for
// approvals and in tools; tokens in and out; requests and retries) and its zoom buttons.
class TimelinePanel final : public QWidget
{
    Q_OBJECT
public:
    explicit TimelinePanel(QWidget *parent = nullptr);

    // Not owned.
    void setTimeline(AgentLoop::RunTimeline *timeline);
    TimelineView *view() const { return m_view; }
    QLabel *summaryLabel() const { return m_summary; }

    static QString summaryText(const AgentLoop::TimelineSummary &summary);

signals:
    // A box was activated: its turn (the inspector's request number).
    void turnActivated(int turn);

private:
    void updateSummary();

    TimelineView *m_view;
    QLabel *m_summary;
    QToolButton *m_zoomOut;
    QToolButton *m_zoomIn;
    QToolButton *m_fit;
};

} // namespace Gui
