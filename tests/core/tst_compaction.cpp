#include "context/compaction.h"
#include "context/tokenestimate.h"
#include "protocol/completion.h"
#include "testmain.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_Compaction : public QObject
{
    Q_OBJECT

private slots:
    void stageOneStubsOldestOutputsFirst();
    void stubKeepsFirstAndLastLinesAndSaysWhere();
    void aSpillFileIsNotWrittenAgain();
    void stageTwoSummarisesBeforeTheRecentExchanges();
    void systemAndUserMessagesStayVerbatim();
    void recentOutputsAreStubbedButNeverTheNewest();
    void aLaterCompactionRepeatsTheEarlierStubs();
    void pairingHoldsForEveryTarget();
    void nothingToCompact();
    void summaryRequestCarriesRulesEarlierSummaryAndStubs();
    void jsonRoundTrip();
    void malformedRecordsAreRefused();
    void checkCompactionRefusesWhatDoesNotFit();
    void contextLengthErrors_data();
    void contextLengthErrors();
};

namespace {

const QString outputs = u"/tmp/agentloop-outputs/conv"_s;

// A long output of numbered lines: "<id> line 1" ... so first and last lines are known.
QString longOutput(const QString &id, qsizetype chars)
{
    QString text;
    int line = 0;
    while (text.size() < chars)
        text += u"%1 line %2 of a long build log\n"_s.arg(id).arg(++line);
    return text.left(chars);
}

// system, the task, then `steps` assistant messages with one call each and its output; a user
// instruction every `instructionEvery` steps (0: none).
History session(int steps, qsizetype outputChars, int instructionEvery = 0)
{
    History history;
    history.append(Message::system(u"You are a coding agent."_s));
    history.append(Message::user(u"Fix the build."_s));
    for (int step = 1; step <= steps; ++step) {
        if (instructionEvery > 0 && step % instructionEvery == 0)
            history.append(Message::user(u"Instruction %1: keep going."_s.arg(step)));
        const QString id = u"call_%1"_s.arg(step);
        history.append(Message::assistant(u"Step %1."_s.arg(step),
                                          {ToolCall{id, u"shell"_s, u"{\"command\":\"make\"}"_s}}));
        history.append(Message::tool(id, longOutput(id, outputChars)));
    }
    return history;
}

TokenLedger ledgerOf(const History &history)
{
    TokenLedger ledger;
    ledger.rebuild(history.messages());
    return ledger;
}

CompactionParameters parameters(qint64 target)
{
    CompactionParameters parameters;
    parameters.targetTokens = target;
    parameters.trigger = u"threshold"_s;
    parameters.readToolName = u"read_file"_s;
    parameters.locateOutput = [](const Message &tool) {
        return OutputLocation{outputs + u'/' + tool.toolCallId() + u"-result.txt"_s, false};
    };
    return parameters;
}

qint64 estimate(const History &history)
{
    return ledgerOf(history).nextRequestTokens();
}

// The plan's request history with a summary standing in for the model's.
History compacted(const History &full, CompactionPlan plan)
{
    if (plan.needsSummary)
        plan.compaction.summary = u"The build was fixed up to step 20."_s;
    return compactedHistory(full, plan.compaction);
}

QList<qsizetype> stubIndexes(const Compaction &compaction)
{
    QList<qsizetype> indexes;
    for (const OutputStub &stub : compaction.stubs)
        indexes.append(stub.messageIndex);
    return indexes;
}

QList<QByteArray> pinnedJson(const History &history)
{
    QList<QByteArray> pinned;
    for (const Message &message : history.messages()) {
        if ((message.role() == Role::System || message.role() == Role::User)
            && !message.content().startsWith(u"[Summary of earlier turns"_s))
            pinned.append(message.toJsonBytes());
    }
    return pinned;
}

} // namespace

void tst_Compaction::stageOneStubsOldestOutputsFirst()
{
    const History full = session(12, 6000);
    const qint64 before = estimate(full);
    // Two stubs are not enough, three are.
    const qint64 target = before - 5 * estimateTextTokens(longOutput(u"call_1"_s, 6000)) / 2;
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(target));

    QVERIFY(!plan.needsSummary);
    QCOMPARE(plan.compaction.summarizedEnd, 0);
    // The tool messages of steps 1, 2, 3 (indexes 3, 5, 7), nothing newer.
    QCOMPARE(stubIndexes(plan.compaction), (QList<qsizetype>{3, 5, 7}));
    QCOMPARE(plan.preview.stubbedOutputs, 3);
    QCOMPARE(plan.preview.summarizedMessages, 0);
    const History request = compacted(full, plan);
    QVERIFY(request.checkPairing());
    QCOMPARE(request.size(), full.size());
    QVERIFY(estimate(request) <= target);
    QCOMPARE(plan.compaction.tokensBefore, before);
    QCOMPARE(plan.compaction.tokensAfter, estimate(request));
}

void tst_Compaction::stubKeepsFirstAndLastLinesAndSaysWhere()
{
    const History full = session(8, 48213);
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    // Everything is summarised but the recent exchanges: the oldest output is stubbed for the
    // summary request.
    QVERIFY(!plan.summaryStubs.isEmpty());
    const OutputStub &stub = plan.summaryStubs.first();
    QCOMPARE(stub.toolCallId, u"call_1"_s);
    QCOMPARE(stub.originalChars, 48213);
    const QString path = outputs + u"/call_1-result.txt"_s;
    QCOMPARE(stub.savedPath, path);
    const QString whole = full.at(stub.messageIndex).content();
    const QStringList lines = stub.content.split(u'\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], u"call_1 line 1 of a long build log"_s);
    QCOMPARE(lines[1],
             u"[output of call_1: 48213 characters, saved to %1; read it again with read_file if "
             u"you need it]"_s.arg(QDir::toNativeSeparators(path)));
    QCOMPARE(lines[2], whole.trimmed().section(u'\n', -1));
    // The whole output is written where the stub says, before the stub is used.
    const auto saved = std::find_if(plan.outputsToSave.cbegin(),
                                    plan.outputsToSave.cend(),
                                    [&](const OutputToSave &output) { return output.path == path; });
    QVERIFY(saved != plan.outputsToSave.cend());
    QCOMPARE(saved->content, whole);
}

void tst_Compaction::aSpillFileIsNotWrittenAgain()
{
    const History full = session(8, 6000);
    CompactionParameters spilled = parameters(1);
    spilled.locateOutput = [](const Message &tool) {
        return OutputLocation{u"/tmp/spill/"_s + tool.toolCallId() + u".log"_s, true};
    };
    spilled.readToolName.clear();
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, spilled);
    QVERIFY(!plan.summaryStubs.isEmpty());
    QVERIFY(plan.outputsToSave.isEmpty());
    QCOMPARE(plan.summaryStubs.first().savedPath, u"/tmp/spill/call_1.log"_s);
    QVERIFY(plan.summaryStubs.first().content.contains(u"; read it again if you need it]"_s));
}

void tst_Compaction::stageTwoSummarisesBeforeTheRecentExchanges()
{
    const History full = session(20, 3000);
    const qint64 target = estimate(full) / 10;
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(target));
    QVERIFY(plan.needsSummary);
    QCOMPARE(plan.summaryFrom, 0);
    // The last four exchanges are steps 17..20: from the assistant message of step 17 on.
    const qsizetype recent = 2 + 16 * 2;
    QCOMPARE(plan.compaction.summarizedEnd, recent);
    QCOMPARE(full.at(recent).role(), Role::Assistant);
    // Steps 1..16 (32 messages) are summarised; the task and system prompt are not.
    QCOMPARE(plan.compaction.summarizedMessages, 32);
    QCOMPARE(plan.preview.summarizedMessages, 32);
    // Stubs apply to what is still sent; each summarised long output is stubbed for the summary.
    for (const OutputStub &stub : plan.compaction.stubs)
        QVERIFY(stub.messageIndex >= recent);
    QCOMPARE(plan.summaryStubs.size(), 16);

    const History request = compacted(full, plan);
    QVERIFY(request.checkPairing());
    QCOMPARE(request.at(0).content(), full.at(0).content());
    QCOMPARE(request.at(1).content(), full.at(1).content());
    QCOMPARE(request.at(2).role(), Role::User);
    QVERIFY(request.at(2).content().startsWith(
            u"[Summary of earlier turns, written by compaction]"_s));
    QVERIFY(request.at(2).content().endsWith(u"The build was fixed up to step 20."_s));
    // The recent exchanges follow verbatim but for stubbed outputs.
    QCOMPARE(request.size(), 3 + (full.size() - recent));
    for (qsizetype i = recent; i < full.size(); ++i) {
        const Message &sent = request.at(3 + i - recent);
        QCOMPARE(sent.role(), full.at(i).role());
        if (!stubIndexes(plan.compaction).contains(i))
            QCOMPARE(sent.toJsonBytes(), full.at(i).toJsonBytes());
    }
    QVERIFY(estimate(request) <= target + estimatedSummaryTokens);
}

void tst_Compaction::systemAndUserMessagesStayVerbatim()
{
    const History full = session(30, 2500, 3);
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    QVERIFY(plan.needsSummary);
    const History request = compacted(full, plan);
    QVERIFY(request.checkPairing());
    QCOMPARE(pinnedJson(request), pinnedJson(full));
}

void tst_Compaction::recentOutputsAreStubbedButNeverTheNewest()
{
    // Three exchanges only, each with a huge output: nothing to summarise, only the recent part.
    History full = session(3, 40000);
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    QVERIFY(!plan.needsSummary); // nothing before the recent exchanges
    const qsizetype newest = full.size() - 1;
    QCOMPARE(full.at(newest).role(), Role::Tool);
    QCOMPARE(stubIndexes(plan.compaction), (QList<qsizetype>{3, 5}));
    QVERIFY(compacted(full, plan).checkPairing());

    // With older exchanges to summarise, the recent part's outputs are stubbed after the summary.
    full = session(10, 40000);
    const CompactionPlan second = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    QVERIFY(second.needsSummary);
    const qsizetype last = full.size() - 1;
    QCOMPARE(stubIndexes(second.compaction), (QList<qsizetype>{last - 6, last - 4, last - 2}));
    QVERIFY(compacted(full, second).checkPairing());
}

void tst_Compaction::aLaterCompactionRepeatsTheEarlierStubs()
{
    History full = session(12, 6000);
    const qint64 target = estimate(full) - 2 * estimateTextTokens(longOutput(u"x"_s, 6000));
    const CompactionPlan first = planCompaction(full, ledgerOf(full), nullptr, parameters(target));
    QCOMPARE(stubIndexes(first.compaction), (QList<qsizetype>{3, 5, 7}));

    for (int step = 13; step <= 16; ++step) {
        const QString id = u"call_%1"_s.arg(step);
        full.append(Message::assistant(u"More."_s, {ToolCall{id, u"shell"_s, u"{}"_s}}));
        full.append(Message::tool(id, longOutput(id, 6000)));
    }
    const CompactionPlan second = planCompaction(full,
                                                 ledgerOf(full),
                                                 &first.compaction,
                                                 parameters(target));
    QVERIFY(!second.needsSummary);
    const QList<qsizetype> indexes = stubIndexes(second.compaction);
    for (const OutputStub &stub : first.compaction.stubs)
        QVERIFY(second.compaction.stubs.contains(stub));
    QVERIFY(indexes.size() > 3);
    QCOMPARE(second.preview.stubbedOutputs, indexes.size() - 3);
    // The earlier stubs' files are not written again.
    for (const OutputToSave &output : second.outputsToSave) {
        for (const OutputStub &stub : first.compaction.stubs)
            QVERIFY(output.path != stub.savedPath);
    }
    QVERIFY(estimate(compactedHistory(full, second.compaction)) <= target);
}

void tst_Compaction::pairingHoldsForEveryTarget()
{
    // Parallel calls, text-only answers and instructions mixed.
    History full;
    full.append(Message::system(u"system"_s));
    for (int round = 1; round <= 12; ++round) {
        full.append(Message::user(u"Request %1"_s.arg(round)));
        QList<ToolCall> calls;
        for (int c = 1; c <= round % 3 + 1; ++c)
            calls.append(ToolCall{u"call_%1_%2"_s.arg(round).arg(c), u"shell"_s, u"{}"_s});
        full.append(Message::assistant(std::nullopt, calls));
        for (const ToolCall &call : calls)
            full.append(Message::tool(call.id, longOutput(call.id, 1000 + 900 * (round % 5))));
        full.append(Message::assistant(u"Done with %1."_s.arg(round)));
    }
    const TokenLedger ledger = ledgerOf(full);
    const qint64 whole = estimate(full);
    std::optional<Compaction> previous;
    for (qint64 target = whole; target >= 0; target -= whole / 17 + 1) {
        CompactionParameters p = parameters(target);
        p.options.keepRecentExchanges = int(target % 5);
        CompactionPlan plan = planCompaction(full, ledger, previous ? &*previous : nullptr, p);
        if (plan.needsSummary)
            plan.compaction.summary = u"summary %1"_s.arg(target);
        const History request = compactedHistory(full, plan.compaction);
        QVERIFY2(request.checkPairing(), qPrintable(u"target %1"_s.arg(target)));
        QCOMPARE(pinnedJson(request), pinnedJson(full));
        if (plan.compaction.summarizedEnd < full.size())
            QVERIFY(full.at(plan.compaction.summarizedEnd).role() != Role::Tool);
        QVERIFY(checkCompaction(plan.compaction, full));
        previous = plan.compaction;
    }
}

void tst_Compaction::nothingToCompact()
{
    const History full = session(2, 100);
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(0));
    QVERIFY(plan.isEmpty());
    QCOMPARE(compactedHistory(full, plan.compaction).toJson(), full.toJson());
}

void tst_Compaction::summaryRequestCarriesRulesEarlierSummaryAndStubs()
{
    const History full = session(20, 9000);
    CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    QVERIFY(plan.needsSummary);
    plan.compaction.summary = u"EARLIER-SUMMARY"_s; // as if a compaction before had written it
    const QStringList rules{u"allow shell(git *) (the user approved it for this conversation)"_s};
    const History request = summaryRequestHistory(full, plan, rules, 100000);
    QCOMPARE(request.size(), 2);
    QVERIFY(request.checkPairing());
    QCOMPARE(request.at(0).role(), Role::System);
    QVERIFY(request.at(0).content().contains(u"What remains to do"_s));
    QVERIFY(request.at(0).content().contains(u"Permissions in force"_s));
    const QString text = request.at(1).content();
    QVERIFY(text.contains(rules.first()));
    QVERIFY(text.contains(u"EARLIER-SUMMARY"_s));
    QVERIFY(text.contains(u"[tool call call_1: shell] {\"command\":\"make\"}"_s));
    QVERIFY(text.contains(u"[output of call_1: 9000 characters, saved to"_s));
    QVERIFY(!text.contains(full.at(3).content())); // the whole output is not repeated
    QVERIFY(text.contains(u"Fix the build."_s));

    // A small budget keeps the newest turns and says what was left out.
    const History small = summaryRequestHistory(full, plan, rules, 600);
    const QString cut = small.at(1).content();
    QVERIFY(cut.contains(u"earlier messages left out"_s));
    QVERIFY(cut.contains(u"Step 16."_s));
    QVERIFY(!cut.contains(u"Step 1."_s));
    QVERIFY(estimateTextTokens(cut) < 1200);
}

void tst_Compaction::jsonRoundTrip()
{
    const History full = session(20, 3000);
    CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    plan.compaction.summary = u"总结: the task, \"quotes\"\nand lines"_s;
    plan.compaction.model = u"gpt-4.1"_s;
    QVERIFY(!plan.compaction.stubs.isEmpty());
    const QJsonObject line = plan.compaction.toJson();
    QCOMPARE(line.value(u"agentloop"_s).toString(), u"compaction"_s);
    // Through the text a conversation file holds.
    const QJsonObject reread
            = QJsonDocument::fromJson(QJsonDocument(line).toJson(QJsonDocument::Compact)).object();
    const Result<Compaction> back = Compaction::fromJson(reread);
    QVERIFY(back);
    QCOMPARE(*back, plan.compaction);
}

void tst_Compaction::malformedRecordsAreRefused()
{
    const History full = session(20, 3000);
    const CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    const QJsonObject good = plan.compaction.toJson();
    QJsonObject noId = good;
    noId.remove(u"id"_s);
    QVERIFY(!Compaction::fromJson(noId));
    QJsonObject wrongKind = good;
    wrongKind[u"agentloop"_s] = u"rename"_s;
    QVERIFY(!Compaction::fromJson(wrongKind));
    QJsonObject backwards = good;
    backwards[u"summarizedEnd"_s] = good.value(u"messageCount"_s).toInteger() + 1;
    QVERIFY(!Compaction::fromJson(backwards));
    QJsonObject badStub = good;
    QJsonArray stubs = good.value(u"stubs"_s).toArray();
    QJsonObject stub = stubs.first().toObject();
    stub[u"index"_s] = 0; // inside the summary
    stubs[0] = stub;
    badStub[u"stubs"_s] = stubs;
    QVERIFY(!Compaction::fromJson(badStub));
}

void tst_Compaction::checkCompactionRefusesWhatDoesNotFit()
{
    const History full = session(12, 6000);
    CompactionPlan plan = planCompaction(full, ledgerOf(full), nullptr, parameters(1));
    plan.compaction.summary = u"s"_s;
    QVERIFY(checkCompaction(plan.compaction, full));
    // A shorter history (lines lost): it covers messages that are not there.
    History shorter;
    for (qsizetype i = 0; i < 6; ++i)
        shorter.append(full.at(i));
    QVERIFY(!checkCompaction(plan.compaction, shorter));
    // A stub whose call is another one.
    Compaction wrongCall = plan.compaction;
    wrongCall.stubs.first().toolCallId = u"call_other"_s;
    QVERIFY(!checkCompaction(wrongCall, full));
    // A summary that would part a call from its result.
    Compaction split = plan.compaction;
    split.stubs.clear();
    split.summarizedEnd = 3;
    QVERIFY(!checkCompaction(split, full));
}

void tst_Compaction::contextLengthErrors_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("code");
    QTest::addColumn<bool>("contextLength");

    QTest::newRow("OpenAI code") << 400 << u"Bad request"_s << u"context_length_exceeded"_s << true;
    QTest::newRow("OpenAI wording")
            << 400
            << u"This model's maximum context length is 128000 tokens. However, your messages "
               u"resulted in 130412 tokens."_s
            << QString() << true;
    QTest::newRow("Anthropic") << 400 << u"prompt is too long: 210000 tokens > 200000 maximum"_s
                               << QString() << true;
    QTest::newRow("too many tokens")
            << 400 << u"Too many tokens in the request"_s << QString() << true;
    QTest::newRow("vLLM") << 400
                          << u"This model's context length is 32768 tokens, but you requested"_s
                          << QString() << true;
    QTest::newRow("Chinese") << 400 << u"输入超过了模型的上下文长度限制"_s << QString() << true;
    QTest::newRow("other 400") << 400 << u"Invalid value for 'temperature'"_s << QString() << false;
    QTest::newRow("rate limit") << 429 << u"Too many requests"_s << QString() << false;
    QTest::newRow("server error") << 500 << u"context length exceeded"_s << QString() << false;
}

void tst_Compaction::contextLengthErrors()
{
    QFETCH(int, status);
    QFETCH(QString, message);
    QFETCH(QString, code);
    QFETCH(bool, contextLength);
    QJsonObject error{{u"message"_s, message}, {u"type"_s, u"invalid_request_error"_s}};
    error.insert(u"code"_s, code.isEmpty() ? QJsonValue() : QJsonValue(code));
    const QByteArray body = QJsonDocument(QJsonObject{{u"error"_s, error}}).toJson();
    const Error parsed = httpError(status, body);
    QCOMPARE(parsed.providerCode, code);
    QCOMPARE(isContextLengthError(parsed), contextLength);
    QVERIFY(!isContextLengthError(Error{Error::Network, message}));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Compaction)
#include "tst_compaction.moc"
