#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "agent/runtimeline.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "testmain.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class tst_RunTimeline : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    // Spans from a real run: a retried request, an approval, a command, the answer.
    void recordsTheRunAsItWent();
    // Reads that run together take rows of their own, and count once in the tool time.
    void parallelReadsTakeRowsOfTheirOwn();
    // "Compact now": a box on the app's lane around the summary request on the model's.
    void compactionIsABoxAroundItsSummaryRequest();
    void clearStartsOver();
    // Idle time between runs shows as at most idleGapMs.
    void idleTimeBetweenRunsIsShort();

    // Geometry against known timestamps.
    void geometryFollowsTheRecordedTimes();
    void visibleRangeHoldsEverySpanOnScreen();
    void spanAtFindsTheBoxUnderThePoint();
};

namespace {

constexpr int endTimeoutMs = 10000;

// A read tool that needs no approval and takes "ms" milliseconds.
class SlowReadTool final : public Tool
{
public:
    SlowReadTool()
        : Tool(u"slow_read"_s,
               u"Read something slowly."_s,
               JsonSchema(
                       QJsonObject{{u"type"_s, u"object"_s},
                                   {u"properties"_s,
                                    QJsonObject{{u"ms"_s, QJsonObject{{u"type"_s, u"integer"_s}}}}},
                                   {u"required"_s, QJsonArray{u"ms"_s}}}),
               SideEffect::Read)
    {}

    QString approvalReason() const override { return {}; }

    ToolRun *invoke(const PreparedCall &call, QObject *parent) const override
    {
        class Run final : public ToolRun
        {
        public:
            Run(int ms, QObject *owner)
                : ToolRun(owner)
            {
                QTimer::singleShot(ms, this, [this] {
                    emit finished(ToolResult::success(u"read"_s));
                });
            }
            void cancel() override {}
        };
        return new Run(call.arguments.value(u"ms"_s).toInt(), parent);
    }
};

// The agent as the app builds it, against a scripted model on 127.0.0.1, with the real shell tool
// in front of a fake command runner, and the timeline following it.
class Harness
{
public:
    Harness()
    {
        ProviderSettings settings;
        settings.baseUrl = server.baseUrl();
        settings.apiKey = u"sk-test-timeline"_s;
        settings.model = u"gpt-4.1"_s;
        settings.retry.maxRetries = 2;
        settings.retry.baseDelay = 30ms;
        settings.retry.maxDelay = 30ms;
        agent.setProvider(settings);
        ShellToolOptions options;
        options.workspace = u"/tmp/agentloop-workspace"_s;
        installStandardTools(agent, std::make_shared<FakeCommandRunner>(runner), options);
        agent.addTool(std::make_shared<SlowReadTool>());
    }

    bool ended() const { return !finished.isEmpty() || !failed.isEmpty(); }

    FakeChatServer server;
    FakeCommandRunner runner;
    AgentController agent;
    RunTimeline timeline{agent};
    QSignalSpy finished{&agent, &AgentController::finished};
    QSignalSpy failed{&agent, &AgentController::failed};
    QSignalSpy received{&agent, &AgentController::responseReceived};
    QSignalSpy retries{&agent, &AgentController::retryScheduled};
};

QList<TimelineSpan::Kind> kindsOf(const QList<TimelineSpan> &spans)
{
    QList<TimelineSpan::Kind> kinds;
    for (const TimelineSpan &span : spans)
        kinds << span.kind;
    return kinds;
}

TimelineSpan makeSpan(TimelineSpan::Lane lane,
                      TimelineSpan::Kind kind,
                      qint64 start,
                      qint64 end,
                      int turn = 1,
                      qint64 firstByte = -1)
{
    TimelineSpan span;
    span.lane = lane;
    span.kind = kind;
    span.startMs = start;
    span.endMs = end;
    span.turn = turn;
    span.firstByteMs = firstByte;
    return span;
}

} // namespace

#define WAIT_FOR_END(h) QTRY_VERIFY_WITH_TIMEOUT((h).ended(), endTimeoutMs)

void tst_RunTimeline::initTestCase()
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<Exchange>();
}

void tst_RunTimeline::recordsTheRunAsItWent()
{
    Harness h;
    h.server.script({FakeResponse::httpError(503, u"overloaded"_s, u"server_error"_s),
                     FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"make"})"_s)
                             .withDelay(60),
                     FakeResponse::answer(u"Built."_s).withDelay(40)});
    h.runner.enqueue(0, u"ok\n"_s);
    constexpr int approvalMs = 120;
    QObject::connect(&h.agent,
                     &AgentController::approvalRequested,
                     &h.agent,
                     [&h](const ApprovalRequest &request) {
                         QTimer::singleShot(approvalMs, &h.agent, [&h, id = request.id] {
                             h.agent.resolveApproval(id, ApprovalAnswer::allowOnce());
                         });
                     });
    // The timeline starts with the first run, not when it was made: until then its time stands.
    QTest::qWait(100);
    QCOMPARE(h.timeline.now(), 0);
    QElapsedTimer sinceTheRun;
    qint64 firstSentAt = -1; // on sinceTheRun
    QObject::connect(&h.agent, &AgentController::requestSent, &h.agent, [&] {
        if (firstSentAt < 0)
            firstSentAt = sinceTheRun.elapsed();
    });
    sinceTheRun.start();
    QVERIFY(h.agent.run(u"Build it"_s));
    WAIT_FOR_END(h);
    QVERIFY(h.failed.isEmpty());

    const QList<TimelineSpan> &spans = h.timeline.spans();
    QCOMPARE(kindsOf(spans),
             (QList<TimelineSpan::Kind>{TimelineSpan::Request,
                                        TimelineSpan::Retry,
                                        TimelineSpan::Request,
                                        TimelineSpan::Approval,
                                        TimelineSpan::ToolRun,
                                        TimelineSpan::Request}));
    const TimelineSpan &failedAttempt = spans[0];
    const TimelineSpan &retry = spans[1];
    const TimelineSpan &first = spans[2];
    const TimelineSpan &approval = spans[3];
    const TimelineSpan &tool = spans[4];
    const TimelineSpan &second = spans[5];
    for (const TimelineSpan &s : spans)
        QVERIFY2(!s.isRunning(), qPrintable(QString::number(s.kind)));

    // Lanes, and the inspector's request numbers: the retry is request 1 again.
    QCOMPARE(failedAttempt.lane, TimelineSpan::Model);
    QCOMPARE(retry.lane, TimelineSpan::App);
    QCOMPARE(approval.lane, TimelineSpan::App);
    QCOMPARE(tool.lane, TimelineSpan::Tools);
    QCOMPARE(failedAttempt.turn, 1);
    QCOMPARE(first.turn, 1);
    QCOMPARE(first.attempt, 2);
    QCOMPARE(approval.turn, 1);
    QCOMPARE(tool.turn, 1);
    QCOMPARE(second.turn, 2);
    QVERIFY(!failedAttempt.ok);
    QVERIFY(first.ok && second.ok && approval.ok && tool.ok);
    QCOMPARE(tool.label, u"shell"_s);
    QCOMPARE(approval.toolCallId, u"call_1"_s);
    QCOMPARE(tool.toolCallId, u"call_1"_s);

    // Both clocks count whole milliseconds: hence the 1.
    QVERIFY2(failedAttempt.startMs <= firstSentAt + 1,
             qPrintable(u"%1 vs %2"_s.arg(failedAttempt.startMs).arg(firstSentAt)));
    // One after the other, as the loop went.
    for (qsizetype i = 1; i < spans.size(); ++i)
        QVERIFY2(spans[i].startMs >= spans[i - 1].endMs,
                 qPrintable(u"span %1 starts at %2, before %3"_s.arg(i)
                                    .arg(spans[i].startMs)
                                    .arg(spans[i - 1].endMs)));
    // The wait before the retry is the retry's delay, the approval the user's time.
    QCOMPARE(h.retries.size(), 1);
    const qint64 delayMs = h.retries[0].at(1).toLongLong();
    QVERIFY2(retry.endMs - retry.startMs >= delayMs - 1,
             qPrintable(u"%1 vs %2"_s.arg(retry.endMs - retry.startMs).arg(delayMs)));
    QVERIFY2(approval.endMs - approval.startMs >= approvalMs - 5,
             qPrintable(QString::number(approval.endMs - approval.startMs)));

    // Each request's box is its exchange: the first byte it recorded, and never longer than its
    // duration (the client's clock starts a moment before the signal that opens the box, which
    // never ends after the answer arrived).
    QCOMPARE(h.received.size(), 3);
    const QList<const TimelineSpan *> requests{&failedAttempt, &first, &second};
    for (int i = 0; i < 3; ++i) {
        const auto exchange = h.received[i].first().value<Exchange>();
        const TimelineSpan &request = *requests[i];
        QVERIFY2(request.endMs - request.startMs <= exchange.durationMs,
                 qPrintable(u"%1 vs %2"_s.arg(request.endMs - request.startMs)
                                    .arg(exchange.durationMs)));
        QVERIFY(exchange.firstByteMs >= 0);
        QCOMPARE(request.firstByteMs - request.startMs, exchange.firstByteMs);
    }
    QVERIFY2(first.firstByteMs - first.startMs >= 55,
             qPrintable(QString::number(first.firstByteMs)));
    QVERIFY(second.firstByteMs - second.startMs >= 35);

    // The tool's result goes back with the second request.
    QCOMPARE(h.timeline.arrows().size(), 1);
    QCOMPARE(h.timeline.arrows()[0].fromSpan, 4);
    QCOMPARE(h.timeline.arrows()[0].toSpan, 5);

    // The fake reports 20 prompt and 10 completion tokens per answer.
    QCOMPARE(first.promptTokens, 20);
    QCOMPARE(second.completionTokens, 10);
    const TimelineSummary summary = h.timeline.summary();
    QCOMPARE(summary.requests, 2);
    QCOMPARE(summary.retries, 1);
    QCOMPARE(summary.tokensIn, 40);
    QCOMPARE(summary.tokensOut, 20);
    QCOMPARE(summary.approvalWaitMs, approval.endMs - approval.startMs);
    QCOMPARE(summary.toolMs, tool.endMs - tool.startMs);
    QCOMPARE(summary.modelWaitMs,
             (failedAttempt.endMs - failedAttempt.startMs) + (first.endMs - first.startMs)
                     + (second.endMs - second.startMs));
    QCOMPARE(h.timeline.extent(), second.endMs);
}

void tst_RunTimeline::parallelReadsTakeRowsOfTheirOwn()
{
    Harness h;
    h.server.script({FakeResponse::toolCalls({{u"read_1"_s, u"slow_read"_s, uR"({"ms":150})"_s},
                                              {u"read_2"_s, u"slow_read"_s, uR"({"ms":150})"_s}}),
                     FakeResponse::answer(u"Read both."_s)});
    QVERIFY(h.agent.run(u"Read"_s));
    WAIT_FOR_END(h);
    QVERIFY(h.failed.isEmpty());
    const QList<TimelineSpan> &spans = h.timeline.spans();
    QCOMPARE(kindsOf(spans),
             (QList<TimelineSpan::Kind>{TimelineSpan::Request,
                                        TimelineSpan::ToolRun,
                                        TimelineSpan::ToolRun,
                                        TimelineSpan::Request}));
    QCOMPARE(spans[1].slot, 0);
    QCOMPARE(spans[2].slot, 1);
    QCOMPARE(h.timeline.slotCount(TimelineSpan::Tools), 2);
    QCOMPARE(h.timeline.slotCount(TimelineSpan::Model), 1);
    // They ran together: the tool time is the time either ran, not the sum.
    QVERIFY(spans[2].startMs < spans[1].endMs);
    const qint64 both = std::max(spans[1].endMs, spans[2].endMs) - spans[1].startMs;
    QCOMPARE(h.timeline.summary().toolMs, both);
    QVERIFY(both < (spans[1].endMs - spans[1].startMs) + (spans[2].endMs - spans[2].startMs));
    // Both results go back with the next request.
    QCOMPARE(h.timeline.arrows().size(), 2);
    for (const TimelineArrow &arrow : h.timeline.arrows())
        QCOMPARE(arrow.toSpan, 3);

    // Two rows in the lane: each box in its own.
    TimelineGeometry geometry;
    for (int lane = 0; lane < TimelineSpan::laneCount; ++lane)
        geometry.laneRows[lane] = h.timeline.slotCount(TimelineSpan::Lane(lane));
    const QRectF upper = geometry.spanRect(spans[1], h.timeline.now());
    const QRectF lower = geometry.spanRect(spans[2], h.timeline.now());
    QVERIFY(upper.bottom() <= lower.top());
    QVERIFY(lower.bottom() <= geometry.laneTop(TimelineSpan::Tools) + geometry.laneHeight);
}

void tst_RunTimeline::compactionIsABoxAroundItsSummaryRequest()
{
    Harness h;
    History history;
    history.append(Message::system(u"You are a coding agent."_s));
    for (int i = 0; i < 12; ++i) {
        history.append(Message::user(u"Step %1: %2"_s.arg(i).arg(QString(400, u'x'))));
        history.append(Message::assistant(u"Done %1: %2"_s.arg(i).arg(QString(400, u'y'))));
    }
    h.agent.setHistory(history);
    h.server.script({FakeResponse::answer(u"SUMMARY of the steps."_s).withDelay(80)});
    QSignalSpy compacted(&h.agent, &AgentController::compacted);
    QVERIFY(h.agent.compactNow());
    QTRY_COMPARE_WITH_TIMEOUT(compacted.size(), 1, endTimeoutMs);
    QTRY_COMPARE(h.agent.state(), AgentController::State::Idle);

    const QList<TimelineSpan> &spans = h.timeline.spans();
    QCOMPARE(kindsOf(spans),
             (QList<TimelineSpan::Kind>{TimelineSpan::Compaction, TimelineSpan::Request}));
    const TimelineSpan &compaction = spans[0];
    const TimelineSpan &summary = spans[1];
    QCOMPARE(compaction.lane, TimelineSpan::App);
    QCOMPARE(summary.lane, TimelineSpan::Model);
    QCOMPARE(summary.purpose, ExchangePurpose::Compaction);
    QVERIFY(!compaction.isRunning() && !summary.isRunning());
    QVERIFY(compaction.startMs <= summary.startMs);
    QVERIFY(compaction.endMs >= summary.endMs);
    QVERIFY(summary.endMs - summary.startMs >= 75);
    // The inspector lists the summary request as request 1 too.
    QCOMPARE(summary.turn, 1);
    QCOMPARE(h.timeline.summary().requests, 1);
    QVERIFY(h.timeline.arrows().isEmpty());
}

void tst_RunTimeline::clearStartsOver()
{
    Harness h;
    h.server.script({FakeResponse::answer(u"One."_s), FakeResponse::answer(u"Two."_s)});
    QSignalSpy changed(&h.timeline, &RunTimeline::changed);
    QVERIFY(h.agent.run(u"First"_s));
    WAIT_FOR_END(h);
    QCOMPARE(h.timeline.spans().size(), 1);
    QVERIFY(!changed.isEmpty());
    h.timeline.clear();
    QVERIFY(h.timeline.spans().isEmpty());
    QCOMPARE(h.timeline.extent(), 0);
    QCOMPARE(h.timeline.summary().requests, 0);
    h.finished.clear();
    QVERIFY(h.agent.run(u"Second"_s));
    WAIT_FOR_END(h);
    // Numbered from 1 again, as the inspector's cleared TurnModel numbers it.
    QCOMPARE(h.timeline.spans().size(), 1);
    QCOMPARE(h.timeline.spans()[0].turn, 1);
}

void tst_RunTimeline::idleTimeBetweenRunsIsShort()
{
    Harness h;
    h.server.script({FakeResponse::answer(u"One."_s), FakeResponse::answer(u"Two."_s)});
    QVERIFY(h.agent.run(u"First"_s));
    WAIT_FOR_END(h);
    const qint64 firstEnd = h.timeline.spans()[0].endMs;
    // The user reads for a while.
    QTest::qWait(int(RunTimeline::idleGapMs) + 400);
    QVERIFY(h.timeline.now() <= firstEnd + RunTimeline::idleGapMs + 200);
    h.finished.clear();
    QVERIFY(h.agent.run(u"Second"_s));
    WAIT_FOR_END(h);
    const qint64 gap = h.timeline.spans()[1].startMs - firstEnd;
    QVERIFY2(gap >= RunTimeline::idleGapMs && gap <= RunTimeline::idleGapMs + 250,
             qPrintable(QString::number(gap)));
}

void tst_RunTimeline::geometryFollowsTheRecordedTimes()
{
    RunTimeline timeline;
    timeline.addSpan(makeSpan(TimelineSpan::Model, TimelineSpan::Request, 0, 1200, 1, 350));
    timeline.addSpan(makeSpan(TimelineSpan::App, TimelineSpan::Approval, 1200, 4200));
    timeline.addSpan(makeSpan(TimelineSpan::Tools, TimelineSpan::ToolRun, 4200, 4201));
    TimelineSpan running = makeSpan(TimelineSpan::Model,
                                    TimelineSpan::Request,
                                    4300,
                                    TimelineSpan::running,
                                    2);
    timeline.addSpan(running);
    timeline.setNow(5300);

    TimelineGeometry g;
    g.pixelsPerMs = 0.1;
    g.originX = 70;
    g.top = 18;
    g.laneHeight = 40;
    g.laneSpacing = 4;
    g.boxPadding = 4;
    g.minBoxWidth = 2;
    const QList<TimelineSpan> &spans = timeline.spans();
    const qint64 now = timeline.now();

    // x is the start on the scale, the width the duration.
    const QRectF request = g.spanRect(spans[0], now);
    QCOMPARE(request.left(), 70.0);
    QCOMPARE(request.width(), 120.0);
    // The lanes are rows below the scale: the app's, the model's, the tools'.
    QCOMPARE(g.laneTop(TimelineSpan::App), 18.0);
    QCOMPARE(g.laneTop(TimelineSpan::Model), 18.0 + 44);
    QCOMPARE(g.laneTop(TimelineSpan::Tools), 18.0 + 88);
    QCOMPARE(request.top(), 18.0 + 44 + 4);
    QCOMPARE(request.height(), 40.0 - 8);
    QCOMPARE(g.firstByteX(spans[0]), 70.0 + 35);
    QCOMPARE(g.firstByteX(spans[1]), -1.0);

    const QRectF approval = g.spanRect(spans[1], now);
    QCOMPARE(approval.left(), 70.0 + 120);
    QCOMPARE(approval.width(), 300.0);
    QCOMPARE(approval.top(), g.laneTop(TimelineSpan::App) + 4);

    // A box shorter than a pixel is still a box.
    const QRectF tool = g.spanRect(spans[2], now);
    QCOMPARE(tool.left(), 70.0 + 420);
    QCOMPARE(tool.width(), 2.0);
    QCOMPARE(tool.top(), g.laneTop(TimelineSpan::Tools) + 4);

    // A running box ends now, and grows with the clock.
    QCOMPARE(g.spanRect(spans[3], now).width(), 100.0);
    timeline.setNow(5800);
    QCOMPARE(g.spanRect(spans[3], timeline.now()).width(), 150.0);
    QCOMPARE(timeline.extent(), 5800);

    // Zoom doubles every x about time 0.
    g.pixelsPerMs = 0.2;
    QCOMPARE(g.spanRect(spans[1], now).left(), 70.0 + 240);
    QCOMPARE(g.spanRect(spans[1], now).width(), 600.0);
    QCOMPARE(g.msAt(g.xAt(4200)), 4200);
}

void tst_RunTimeline::visibleRangeHoldsEverySpanOnScreen()
{
    RunTimeline timeline;
    // 1 000 turns: a request, an approval now and then, a tool run; one long compaction early.
    qint64 t = 0;
    timeline.addSpan(makeSpan(TimelineSpan::App, TimelineSpan::Compaction, 0, 500'000));
    for (int turn = 1; turn <= 1000; ++turn) {
        timeline.addSpan(
                makeSpan(TimelineSpan::Model, TimelineSpan::Request, t, t + 800, turn, t + 200));
        t += 800;
        if (turn % 7 == 0) {
            timeline.addSpan(makeSpan(TimelineSpan::App, TimelineSpan::Approval, t, t + 3000, turn));
            t += 3000;
        }
        timeline.addSpan(
                makeSpan(TimelineSpan::Tools, TimelineSpan::ToolRun, t, t + 50 + turn % 300, turn));
        t += 50 + turn % 300;
    }
    const QList<TimelineSpan> &spans = timeline.spans();
    for (const auto &[from, to] : QList<std::pair<qint64, qint64>>{{0, 1000},
                                                                   {250'000, 260'000},
                                                                   {499'990, 500'010},
                                                                   {600'000, 601'000},
                                                                   {t - 10, t + 10}}) {
        const auto [first, last] = timeline.visibleRange(from, to);
        for (int i = 0; i < spans.size(); ++i) {
            const bool overlaps = spans[i].startMs <= to && spans[i].endMs >= from;
            if (overlaps)
                QVERIFY2(i >= first && i < last,
                         qPrintable(u"span %1 missing from [%2, %3) for %4-%5"_s.arg(i)
                                            .arg(first)
                                            .arg(last)
                                            .arg(from)
                                            .arg(to)));
        }
        // Not the whole list: after the long compaction, a narrow window holds a few spans.
        if (from >= 600'000)
            QVERIFY2(last - first < 10, qPrintable(u"%1 spans"_s.arg(last - first)));
    }
}

void tst_RunTimeline::spanAtFindsTheBoxUnderThePoint()
{
    RunTimeline timeline;
    timeline.addSpan(makeSpan(TimelineSpan::Model, TimelineSpan::Request, 0, 1000, 1));
    timeline.addSpan(makeSpan(TimelineSpan::Tools, TimelineSpan::ToolRun, 1000, 1001, 1));
    timeline.addSpan(makeSpan(TimelineSpan::Model, TimelineSpan::Request, 1001, 2000, 2));
    TimelineGeometry g;
    g.pixelsPerMs = 0.1;
    const qint64 now = timeline.now();
    QCOMPARE(timeline.spanAt(g, g.spanRect(timeline.spans()[0], now).center()), 0);
    QCOMPARE(timeline.spanAt(g, g.spanRect(timeline.spans()[1], now).center()), 1);
    QCOMPARE(timeline.spanAt(g, g.spanRect(timeline.spans()[2], now).center()), 2);
    // The App lane is empty there; past the end nothing.
    QCOMPARE(timeline.spanAt(g, {50, g.laneTop(TimelineSpan::App) + 10}), -1);
    QCOMPARE(timeline.spanAt(g, {500, g.laneTop(TimelineSpan::Model) + 10}), -1);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_RunTimeline)
#include "tst_runtimeline.moc"
