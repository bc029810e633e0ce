#include "agent/runtimeline.h"

#include <algorithm>
#include <cmath>

namespace AgentLoop {

namespace {

constexpr qint64 stillRunning = std::numeric_limits<qint64>::max();

} // namespace

qint64 TimelineGeometry::msAt(double x) const
{
    return pixelsPerMs > 0 ? qint64(std::floor((x - originX) / pixelsPerMs)) : 0;
}

QRectF TimelineGeometry::spanRect(const TimelineSpan &span, qint64 now) const
{
    const double left = xAt(span.startMs);
    const double width = std::max(minBoxWidth, xAt(span.endAt(now)) - left);
    const int rows = std::max(1, laneRows[span.lane]);
    const double inner = laneHeight - 2 * boxPadding;
    const double rowHeight = inner / rows;
    const double y = laneTop(span.lane) + boxPadding + std::min(span.slot, rows - 1) * rowHeight;
    // Rows of the same lane keep a pixel between them.
    return {left, y, width, rows > 1 ? rowHeight - 1 : rowHeight};
}

double TimelineGeometry::firstByteX(const TimelineSpan &span) const
{
    return span.firstByteMs < 0 ? -1 : xAt(span.firstByteMs);
}

RunTimeline::RunTimeline(QObject *parent)
    : QObject(parent)
{
    m_clock.start();
}

RunTimeline::RunTimeline(const AgentController &controller, QObject *parent)
    : RunTimeline(parent)
{
    using Controller = AgentController;
    connect(&controller, &Controller::stateChanged, this, [this](Controller::State state) {
        setActive(state != Controller::State::Idle);
        if (state == Controller::State::Idle)
            closeAll();
    });
    connect(&controller, &Controller::requestSent, this, [this](const Exchange &exchange) {
        // The wait before this attempt is over.
        if (m_retry >= 0)
            close(std::exchange(m_retry, -1), now());
        if (m_request >= 0)
            close(std::exchange(m_request, -1), now());
        TimelineSpan span;
        span.lane = TimelineSpan::Model;
        span.kind = TimelineSpan::Request;
        span.startMs = now();
        span.purpose = exchange.purpose;
        span.attempt = exchange.attempt;
        span.label = exchange.model;
        // Numbered as the inspector's TurnModel numbers its rows.
        if (exchange.attempt <= 1 || m_lastRequestNumber == 0)
            ++m_lastRequestNumber;
        span.turn = m_lastRequestNumber;
        m_request = open(span);
        if (exchange.purpose == ExchangePurpose::Turn) {
            for (const int tool : std::as_const(m_resultsToCarry))
                m_arrows.append({tool, m_request});
            m_resultsToCarry.clear();
        }
        emit changed();
    });
    connect(&controller, &Controller::responseReceived, this, [this](const Exchange &exchange) {
        if (m_request < 0)
            return;
        TimelineSpan &span = m_spans[m_request];
        // The exchange's own figures: its duration and first byte from when it went out.
        if (exchange.firstByteMs >= 0)
            span.firstByteMs = span.startMs + exchange.firstByteMs;
        span.ok = exchange.retryNotice.isEmpty() && exchange.errorString.isEmpty()
                  && exchange.httpStatus >= 200 && exchange.httpStatus < 300;
        close(std::exchange(m_request, -1),
              std::min(now(), span.startMs + std::max<qint64>(0, exchange.durationMs)));
        emit changed();
    });
    connect(&controller,
            &Controller::completionReceived,
            this,
            [this](int, const Completion &completion) {
                if (!completion.usage)
                    return;
                // The request it answers is the latest one.
                for (qsizetype i = m_spans.size() - 1; i >= 0; --i) {
                    if (m_spans.at(i).kind == TimelineSpan::Request) {
                        m_spans[i].promptTokens = completion.usage->promptTokens;
                        m_spans[i].completionTokens = completion.usage->completionTokens;
                        emit changed();
                        return;
                    }
                }
            });
    connect(&controller, &Controller::retryScheduled, this, [this](const QString &notice) {
        if (m_retry >= 0)
            close(m_retry, now());
        TimelineSpan span;
        span.lane = TimelineSpan::App;
        span.kind = TimelineSpan::Retry;
        span.startMs = now();
        span.turn = m_lastRequestNumber;
        span.label = notice;
        m_retry = open(span);
        emit changed();
    });
    connect(&controller,
            &Controller::approvalRequested,
            this,
            [this](const ApprovalRequest &request) {
                TimelineSpan span;
                span.lane = TimelineSpan::App;
                span.kind = TimelineSpan::Approval;
                span.startMs = now();
                span.turn = m_lastRequestNumber;
                span.toolCallId = request.toolCallId;
                span.label = request.toolName;
                m_approvals.insert(request.toolCallId, open(span));
                emit changed();
            });
    connect(&controller, &Controller::toolStarted, this, [this](const ToolCall &call) {
        closeCall(m_approvals, call.id, true);
        TimelineSpan span;
        span.lane = TimelineSpan::Tools;
        span.kind = TimelineSpan::ToolRun;
        span.startMs = now();
        span.turn = m_lastRequestNumber;
        span.toolCallId = call.id;
        span.label = call.name;
        m_tools.insert(call.id, open(span));
        emit changed();
    });
    connect(&controller,
            &Controller::toolFinished,
            this,
            [this](const ToolCall &call, const ToolResult &result) {
                // A denied call never started: its approval ends here.
                closeCall(m_approvals, call.id, result.errorCode != u"denied");
                if (const int index = m_tools.value(call.id, -1); index >= 0)
                    m_resultsToCarry.append(index);
                closeCall(m_tools, call.id, result.ok);
                emit changed();
            });
    connect(&controller, &Controller::compactionStarted, this, [this] {
        if (m_compaction >= 0)
            close(m_compaction, now());
        TimelineSpan span;
        span.lane = TimelineSpan::App;
        span.kind = TimelineSpan::Compaction;
        span.startMs = now();
        span.turn = m_lastRequestNumber;
        m_compaction = open(span);
        emit changed();
    });
    connect(&controller, &Controller::compacted, this, [this] {
        if (m_compaction >= 0) {
            close(std::exchange(m_compaction, -1), now());
            emit changed();
        }
    });
    connect(&controller, &Controller::failed, this, [this](const Error &) {
        closeAll();
        emit changed();
    });
    connect(&controller, &Controller::finished, this, [this] {
        closeAll();
        emit changed();
    });
}

qint64 RunTimeline::now() const
{
    if (m_fixedNow)
        return *m_fixedNow;
    const qint64 elapsed = m_clock.elapsed();
    // While idle the time stops idleGapMs after the run ended (before the first run, at 0).
    const qint64 shown = m_active ? elapsed : std::min(elapsed, m_idleSince + m_idleGapMs);
    return shown - m_skippedMs;
}

qint64 RunTimeline::extent() const
{
    if (m_spans.isEmpty())
        return 0;
    const qint64 last = m_maxEnds.last();
    return last == stillRunning ? now() : last;
}

void RunTimeline::setActive(bool active)
{
    if (active == m_active)
        return;
    const qint64 elapsed = m_clock.elapsed();
    if (active) {
        m_skippedMs += std::max<qint64>(0, elapsed - m_idleSince - m_idleGapMs);
    } else {
        m_idleSince = elapsed;
        m_idleGapMs = idleGapMs; // between runs; the first one starts at 0
    }
    m_active = active;
}

void RunTimeline::setNow(qint64 ms)
{
    m_fixedNow = ms;
}

int RunTimeline::open(TimelineSpan span)
{
    // The lowest row of the lane that no running span holds.
    QList<int> running(m_tools.cbegin(), m_tools.cend());
    running += QList<int>(m_approvals.cbegin(), m_approvals.cend());
    for (const int index : {m_request, m_retry, m_compaction}) {
        if (index >= 0)
            running << index;
    }
    const auto taken = [&](int slot) {
        return std::any_of(running.cbegin(), running.cend(), [&](int index) {
            return m_spans.at(index).lane == span.lane && m_spans.at(index).slot == slot;
        });
    };
    int slot = 0;
    while (taken(slot))
        ++slot;
    span.slot = slot;
    span.endMs = TimelineSpan::running;
    return append(span);
}

int RunTimeline::addSpan(const TimelineSpan &span)
{
    const int index = append(span);
    emit changed();
    return index;
}

int RunTimeline::append(const TimelineSpan &span)
{
    m_spans.append(span);
    m_slotCounts[span.lane] = std::max(m_slotCounts[span.lane], span.slot + 1);
    const qint64 end = span.isRunning() ? stillRunning : span.endMs;
    m_maxEnds.append(std::max(m_maxEnds.isEmpty() ? end : m_maxEnds.last(), end));
    return int(m_spans.size() - 1);
}

void RunTimeline::addArrow(const TimelineArrow &arrow)
{
    m_arrows.append(arrow);
    emit changed();
}

void RunTimeline::close(int index, qint64 endMs)
{
    TimelineSpan &span = m_spans[index];
    if (!span.isRunning())
        return;
    span.endMs = std::max(span.startMs, endMs);
    updateMaxEnds(index);
}

void RunTimeline::updateMaxEnds(int from)
{
    // Only the spans from this one on change, and the open ones are the last few.
    for (qsizetype i = from; i < m_spans.size(); ++i) {
        const TimelineSpan &span = m_spans.at(i);
        const qint64 end = span.isRunning() ? stillRunning : span.endMs;
        m_maxEnds[i] = i == 0 ? end : std::max(m_maxEnds.at(i - 1), end);
    }
}

void RunTimeline::closeCall(QHash<QString, int> &spans, const QString &toolCallId, bool ok)
{
    const auto found = spans.constFind(toolCallId);
    if (found == spans.constEnd())
        return;
    const int index = *found;
    spans.erase(found);
    m_spans[index].ok = ok;
    close(index, now());
}

void RunTimeline::closeAll()
{
    const qint64 end = now();
    for (const int index : {m_request, m_retry, m_compaction}) {
        if (index >= 0)
            close(index, end);
    }
    m_request = m_retry = m_compaction = -1;
    for (const int index : std::as_const(m_approvals))
        close(index, end);
    for (const int index : std::as_const(m_tools))
        close(index, end);
    m_approvals.clear();
    m_tools.clear();
}

void RunTimeline::clear()
{
    m_spans.clear();
    m_arrows.clear();
    m_maxEnds.clear();
    m_resultsToCarry.clear();
    m_approvals.clear();
    m_tools.clear();
    m_request = m_retry = m_compaction = -1;
    m_lastRequestNumber = 0;
    std::fill(std::begin(m_slotCounts), std::end(m_slotCounts), 1);
    m_clock.restart();
    m_skippedMs = 0;
    m_idleSince = 0;
    m_idleGapMs = 0;
    emit changed();
}

TimelineSummary RunTimeline::summary() const
{
    TimelineSummary summary;
    const qint64 at = now();
    qint64 toolBusyUntil = std::numeric_limits<qint64>::min();
    for (const TimelineSpan &span : m_spans) {
        const qint64 duration = span.endAt(at) - span.startMs;
        switch (span.kind) {
        case TimelineSpan::Request:
            summary.modelWaitMs += duration;
            if (span.attempt > 1)
                ++summary.retries;
            else
                ++summary.requests;
            summary.tokensIn += std::max<qint64>(0, span.promptTokens);
            summary.tokensOut += std::max<qint64>(0, span.completionTokens);
            break;
        case TimelineSpan::Approval:
            summary.approvalWaitMs += duration;
            break;
        case TimelineSpan::ToolRun: {
            // Parallel reads: the time with any tool running, counted once.
            const qint64 end = span.endAt(at);
            const qint64 from = std::max(span.startMs, toolBusyUntil);
            summary.toolMs += std::max<qint64>(0, end - from);
            toolBusyUntil = std::max(toolBusyUntil, end);
            break;
        }
        case TimelineSpan::Retry:
        case TimelineSpan::Compaction:
            break;
        }
    }
    return summary;
}

std::pair<int, int> RunTimeline::visibleRange(qint64 fromMs, qint64 toMs) const
{
    // The first span whose end (or that of one before it) reaches fromMs...
    const auto first = std::lower_bound(m_maxEnds.cbegin(), m_maxEnds.cend(), fromMs);
    // ...to the last that starts by toMs.
    const auto last = std::upper_bound(m_spans.cbegin(),
                                       m_spans.cend(),
                                       toMs,
                                       [](qint64 ms, const TimelineSpan &span) {
                                           return ms < span.startMs;
                                       });
    const int from = int(first - m_maxEnds.cbegin());
    return {from, std::max(from, int(last - m_spans.cbegin()))};
}

int RunTimeline::spanAt(const TimelineGeometry &geometry, QPointF point) const
{
    const qint64 at = now();
    // A box is at least minBoxWidth wide: look a little around the time under the point.
    const qint64 slack = qint64(
            std::ceil(geometry.minBoxWidth / std::max(geometry.pixelsPerMs, 1e-9)));
    const qint64 ms = geometry.msAt(point.x());
    const auto [first, last] = visibleRange(ms - slack, ms + slack);
    for (int i = last - 1; i >= first; --i) {
        if (geometry.spanRect(m_spans.at(i), at).contains(point))
            return i;
    }
    return -1;
}

} // namespace AgentLoop
