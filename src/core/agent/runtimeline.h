#pragma once

#include "agent/agentcontroller.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QRectF>
#include <QString>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace AgentLoop {

// One box of the timeline: something the loop waited for or did, on the lane of whoever did it.
// Times are milliseconds of the conversation's timeline (RunTimeline::now()).
struct TimelineSpan
{
    enum Lane { App, Model, Tools };
    static constexpr int laneCount = 3;
    enum Kind {
        Request,    // a request to the model and its answer (Model lane)
        Approval,   // the user deciding on a call (App lane)
        ToolRun,    // a tool call running (Tools lane)
        Retry,      // the wait before a request is sent again (App lane)
        Compaction, // the loop compacting the history (App lane; its summary request is a Request)
    };
    static constexpr qint64 running = -1; // endMs of a span not over yet

    Lane lane = App;
    Kind kind = Request;
    qint64 startMs = 0;
    qint64 endMs = running;
    // A request's answer: when its first byte came (from the same clock as startMs); -1 when none
    // did (yet).
    qint64 firstByteMs = -1;
    int turn = 0; // the inspector's request number (TurnModel's) it belongs to; 0: none
    int slot = 0; // the row within the lane, for spans at the same time (parallel reads)
    ExchangePurpose purpose = ExchangePurpose::Turn; // Request
    int attempt = 1;                                 // Request
    QString toolCallId;                              // Approval, ToolRun
    QString label;  // tool name, model, or the retry's notice (provider text: shown through
                    // displayed())
    bool ok = true; // a Request that got an answer, a tool that succeeded, an allowed call
    qint64 promptTokens = -1; // Request: the usage reported, -1 when none
    qint64 completionTokens = -1;

    bool isRunning() const { return endMs == running; }
    // The end, or now while it runs.
    qint64 endAt(qint64 now) const { return isRunning() ? std::max(startMs, now) : endMs; }
};

// A tool result carried back to the model: from the tool's span to the request that sent it.
struct TimelineArrow
{
    int fromSpan = 0;
    int toSpan = 0;
};

// The summary line of a conversation.
struct TimelineSummary
{
    qint64 modelWaitMs = 0;    // requests out, to their answers' ends
    qint64 approvalWaitMs = 0; // the user deciding
    qint64 toolMs = 0;         // wall time with at least one tool running
    qint64 tokensIn = 0;       // prompt tokens the provider reported
    qint64 tokensOut = 0;      // completion tokens
    int requests = 0;          // model requests, a retried one counted once
    int retries = 0;           // attempts after the first
};

// Where a span is drawn, a pure function of the spans (what the timeline widget paints and the
// tests check against the recorded times): x from the time scale, y from the lane rows.
struct TimelineGeometry
{
    double pixelsPerMs = 0.1;
    double originX = 0;     // x of time 0
    double top = 0;         // y of the first lane
    double laneHeight = 40; // each lane's row
    double laneSpacing = 4; // between rows
    double boxPadding = 4;  // between a row's edge and its boxes
    double minBoxWidth = 2; // a box is never thinner, however short
    // Rows per lane for spans at the same time (RunTimeline::slotCount()).
    int laneRows[TimelineSpan::laneCount] = {1, 1, 1};

    double xAt(qint64 ms) const { return originX + double(ms) * pixelsPerMs; }
    // The time at x (the inverse of xAt), for hit tests and the visible range.
    qint64 msAt(double x) const;
    double laneTop(TimelineSpan::Lane lane) const
    {
        return top + int(lane) * (laneHeight + laneSpacing);
    }
    QRectF laneRect(TimelineSpan::Lane lane, double width) const
    {
        return {0, laneTop(lane), width, laneHeight};
    }
    double height() const { return TimelineSpan::laneCount * (laneHeight + laneSpacing); }
    // The box; a running span ends at now.
    QRectF spanRect(const TimelineSpan &span, qint64 now) const;
    // x of a request's first byte, or -1 when it has none.
    double firstByteX(const TimelineSpan &span) const;
};

// Records what a conversation's runs spend their time on, from the controller's signals, as spans
// on three lanes (the app, the model, the tools) and arrows, for the Timeline view. Cleared with
// the conversation (clear()): a saved conversation opened again has no timings, so its timeline
// starts empty. Idle time between runs (the user reading, typing) is kept short: the timeline
// shows at most idleGapMs of it.
class RunTimeline final : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 idleGapMs = 1000;

    explicit RunTimeline(const AgentController &controller, QObject *parent = nullptr);
    // A timeline of these spans, not following a controller (tests, benchmarks, screenshots).
    explicit RunTimeline(QObject *parent = nullptr);

    const QList<TimelineSpan> &spans() const { return m_spans; }
    const QList<TimelineArrow> &arrows() const { return m_arrows; }
    // The timeline's time now (it does not advance while idle, past idleGapMs).
    qint64 now() const;
    // The end of the latest span (or now, while something runs).
    qint64 extent() const;
    bool isActive() const { return m_active; }
    int slotCount(TimelineSpan::Lane lane) const { return m_slotCounts[lane]; }
    TimelineSummary summary() const;

    // The spans that may show between fromMs and toMs, as a range of indices [first, last):
    // spans are in the order they started, so this costs a binary search, not a walk.
    std::pair<int, int> visibleRange(qint64 fromMs, qint64 toMs) const;
    // The topmost span at the point (in geometry's coordinates), or -1.
    int spanAt(const TimelineGeometry &geometry, QPointF point) const;

    // Forgets every span (a new conversation, or another one opened).
    void clear();
    // Appends a span as it is (not following a controller), closing none; returns its index.
    // Spans go in the order they start.
    int addSpan(const TimelineSpan &span);
    // Arrows go in the order of the requests they point to.
    void addArrow(const TimelineArrow &arrow);
    // Fixes the clock of a timeline not following a controller at ms.
    void setNow(qint64 ms);

signals:
    // A span or arrow was added or closed, or the timeline cleared.
    void changed();

private:
    int open(TimelineSpan span);
    int append(const TimelineSpan &span);
    void close(int index, qint64 endMs);
    void closeAll();
    void closeCall(QHash<QString, int> &spans, const QString &toolCallId, bool ok);
    void setActive(bool active);
    void updateMaxEnds(int from);

    QElapsedTimer m_clock;
    qint64 m_skippedMs = 0; // idle time left out
    qint64 m_idleSince = 0; // on m_clock
    qint64 m_idleGapMs = 0; // of idle time shown: none before the first run
    std::optional<qint64> m_fixedNow;
    bool m_active = false;
    QList<TimelineSpan> m_spans;
    QList<TimelineArrow> m_arrows;
    // For each span, the latest end of it and every span before (running: the largest value):
    // what visibleRange() searches.
    QList<qint64> m_maxEnds;
    int m_slotCounts[TimelineSpan::laneCount] = {1, 1, 1};
    int m_request = -1;    // the span of the request in flight
    int m_retry = -1;      // the span of the wait before a retry
    int m_compaction = -1; // the span of a compaction under way
    int m_lastRequestNumber = 0;
    QHash<QString, int> m_approvals; // tool call id -> its Approval span, while open
    QHash<QString, int> m_tools;     // tool call id -> its ToolRun span, while open
    QList<int> m_resultsToCarry;     // ToolRun spans whose results the next request carries
};

} // namespace AgentLoop
