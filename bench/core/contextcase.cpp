#include "contextcase.h"

#include "context/compaction.h"
#include "historygen.h"
#include "output.h"

#include <QElapsedTimer>

using namespace Qt::StringLiterals;

namespace AgentLoop::Bench {

int contextCase(int runs)
{
    constexpr int messages = 5000;
    constexpr qsizetype toolOutput = 20 * 1000 * 1000;
    constexpr qint64 window = 128'000;
    const History history = makeHistory(messages, toolOutput);
    const Message next = nextToolMessage(history, 4 * 1024);
    TokenLedger ledger;
    ledger.rebuild(history.messages());
    note(u"context: %1 messages, ≈%2 tokens"_s.arg(history.size()).arg(ledger.nextRequestTokens()));

    CompactionParameters parameters;
    parameters.targetTokens = qint64(0.6 * double(window));
    parameters.trigger = u"threshold"_s;
    parameters.readToolName = u"read_file"_s;
    parameters.locateOutput = [](const Message &tool) {
        return OutputLocation{u"/tmp/outputs/"_s + tool.toolCallId() + u"-result.txt"_s, false};
    };
    for (int run = 0; run < runs; ++run) {
        QElapsedTimer clock;
        clock.start();
        CompactionPlan plan = planCompaction(history, ledger, nullptr, parameters);
        if (plan.needsSummary) // the model's summary is not part of the figure
            plan.compaction.summary = u"The summary the model wrote."_s;
        const History request = compactedHistory(history, plan.compaction);
        const double ms = double(clock.nsecsElapsed()) / 1e6;
        printSample(u"9-context"_s, u"plan+build-5000"_s, u"ms"_s, ms, false, u"agentloop"_s);
        if (run == 0)
            note(u"context: %1 stubs, %2 messages summarised, request of %3 messages, %4 → %5 "
                 u"tokens"_s.arg(plan.compaction.stubs.size())
                         .arg(plan.compaction.summarizedMessages)
                         .arg(request.size())
                         .arg(plan.compaction.tokensBefore)
                         .arg(plan.compaction.tokensAfter));

        TokenLedger turn = ledger; // the ledger as the turn before left it
        clock.restart();
        turn.append(next);
        const qint64 tokens = turn.nextRequestTokens();
        const double accountingMs = double(clock.nsecsElapsed()) / 1e6;
        printSample(u"9-context"_s,
                    u"accounting-5000"_s,
                    u"ms"_s,
                    accountingMs,
                    false,
                    u"agentloop"_s);
        if (tokens <= 0)
            return 1;
    }
    return 0;
}

} // namespace AgentLoop::Bench
