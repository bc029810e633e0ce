// The controller's compaction (course chapter 8; context/compaction.h): when it is decided, how
// its files are written and its summary asked for, and the request history it leaves.

#include "agent/agentcontroller.h"

#include "base/background.h"
#include "protocol/requestbody.h"
#include "tools/outputfile.h"
#include "tools/shelltool.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMetaMethod>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// The whole outputs the stubs point to; runs off the GUI thread.
Error saveOutputs(const QList<OutputToSave> &outputs)
{
    for (const OutputToSave &output : outputs) {
        QFile file(output.path);
        if (!QDir().mkpath(QFileInfo(output.path).absolutePath())
            || !file.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || file.write(output.content.toUtf8()) < 0 || !file.flush()) {
            return Error{Error::Io,
                         QCoreApplication::translate("AgentLoop::AgentController",
                                                     "The compaction could not save a tool "
                                                     "output to %1: %2")
                                 .arg(QDir::toNativeSeparators(output.path), file.errorString()),
                         QCoreApplication::translate("AgentLoop::AgentController",
                                                     "Check the free disk space and the outputs "
                                                     "folder's permissions.")};
        }
    }
    return Error();
}

constexpr qsizetype maxRulesInSummary = 60;
constexpr qsizetype maxAllowanceChars = 300;

} // namespace

const History &AgentController::requestHistory() const
{
    return m_compactedHistory ? *m_compactedHistory : m_history;
}

void AgentController::setCompactionOutputDirectory(std::function<QString()> directory)
{
    m_compactionOutputDirectory = std::move(directory);
}

AgentController::PreparedHistory AgentController::prepareHistory(
        const History &history, const QList<Compaction> &compactions)
{
    PreparedHistory prepared{history, {}, std::nullopt, {}, {}};
    for (const Compaction &compaction : compactions) {
        if (checkCompaction(compaction, history))
            prepared.compactions.append(compaction);
    }
    prepared.fullTokens.rebuild(history.messages());
    if (prepared.compactions.isEmpty()) {
        prepared.requestTokens = prepared.fullTokens;
    } else {
        prepared.compactedHistory = compactedHistory(history, prepared.compactions.last());
        prepared.requestTokens.rebuild(prepared.compactedHistory->messages());
    }
    return prepared;
}

// The request history of the latest compaction, or the whole history; the ledger follows it
// (the whole history's estimates are known already).
void AgentController::rebuildRequestHistory()
{
    if (m_compactions.isEmpty()) {
        m_compactedHistory.reset();
        m_ledger.rebuild(m_fullTokens);
    } else {
        m_compactedHistory = compactedHistory(m_history, m_compactions.last());
        m_ledger.rebuild(m_compactedHistory->messages());
    }
}

QStringList AgentController::rulesInForce() const
{
    QStringList rules;
    for (const PermissionRule &rule : m_conversationRules)
        rules << u"allow %1 (the user approved it for this conversation)"_s.arg(rule.text);
    for (auto allowance = m_conversationAllowances.cbegin();
         allowance != m_conversationAllowances.cend();
         ++allowance) {
        QString call = allowance.key();
        call.replace(u'\n', u' ');
        if (call.size() > maxAllowanceChars)
            call = call.left(maxAllowanceChars) + u'…';
        rules << u"allow exactly the call %1 (the user approved it for this conversation)"_s.arg(
                call);
    }
    if (m_policy) {
        for (const PermissionRule &rule : m_policy->rules()) {
            if (rules.size() >= maxRulesInSummary)
                break;
            rules << u"%1 %2 (a saved rule)"_s.arg(ruleEffectName(rule.effect), rule.text);
        }
    }
    return rules;
}

CompactionPlan AgentController::planCompactionFor(const QString &trigger, qint64 targetTokens) const
{
    return compactionPlanner(trigger, targetTokens)();
}

// Planning with copies of what it reads (the history and its estimates are shared, not copied),
// so that a preview can be planned on another thread while the loop goes on.
std::function<CompactionPlan()> AgentController::compactionPlanner(const QString &trigger,
                                                                   qint64 targetTokens) const
{
    CompactionParameters parameters;
    parameters.options = m_options.context;
    parameters.targetTokens = targetTokens;
    parameters.calibration = m_ledger.calibration();
    parameters.toolDefinitionTokens = m_ledger.toolDefinitionTokens();
    parameters.trigger = trigger;
    if (m_tools.snapshot().find(u"read_file"_s))
        parameters.readToolName = u"read_file"_s;
    const QString directory = m_compactionOutputDirectory ? m_compactionOutputDirectory()
                                                          : QString();
    parameters.locateOutput = [directory](const Message &tool) -> OutputLocation {
        if (directory.isEmpty())
            return {};
        // A long command's own file, when it is the one the shell tool wrote in this folder (a
        // command's output could name any file).
        const QString spilled = spilledOutputPath(tool.content());
        const QFileInfo spill(spilled);
        if (!spilled.isEmpty() && spill.isFile()
            && spill.absolutePath() == QDir(directory).absolutePath())
            return {spill.absoluteFilePath(), true};
        return {QDir(directory).filePath(OutputFileWriter::safeStem(tool.toolCallId())
                                         + u"-result.txt"_s),
                false};
    };
    std::optional<Compaction> previous;
    if (!m_compactions.isEmpty())
        previous = m_compactions.last();
    return [history = m_history,
            fullTokens = m_fullTokens,
            previous = std::move(previous),
            parameters = std::move(parameters),
            requestTokens = m_ledger.nextRequestTokens()] {
        CompactionPlan plan = planCompaction(history,
                                             fullTokens,
                                             previous ? &*previous : nullptr,
                                             parameters);
        // The figure the user sees: the ledger's, which the provider's usage corrected.
        const qint64 saved = plan.compaction.tokensBefore - plan.compaction.tokensAfter;
        plan.compaction.tokensBefore = requestTokens;
        plan.compaction.tokensAfter = std::max<qint64>(0, plan.compaction.tokensBefore - saved);
        plan.preview.tokensBefore = plan.compaction.tokensBefore;
        plan.preview.tokensAfter = plan.compaction.tokensAfter;
        return plan;
    };
}

qint64 AgentController::compactionTarget() const
{
    return qint64(m_options.context.compactTo * double(m_options.contextWindow.tokens));
}

QFuture<CompactionPreview> AgentController::previewCompaction() const
{
    if (isRunning()) {
        QPromise<CompactionPreview> none;
        none.start();
        none.addResult(CompactionPreview());
        none.finish();
        return none.future();
    }
    return runInBackground<CompactionPreview>(
            [plan = compactionPlanner(u"manual"_s, 0)](const QPromise<CompactionPreview> &) {
                const CompactionPlan planned = plan();
                return planned.isEmpty() ? CompactionPreview() : planned.preview;
            });
}

bool AgentController::compactNow()
{
    if (isRunning())
        return false;
    // The user asked: as far as it goes, not just under the target.
    CompactionPlan plan = planCompactionFor(u"manual"_s, 0);
    if (plan.isEmpty())
        return false;
    m_turn = 0;
    startCompaction(std::move(plan), false);
    return true;
}

bool AgentController::undoCompaction()
{
    if (isRunning() || m_compactions.isEmpty())
        return false;
    const QString id = m_compactions.takeLast().id;
    rebuildRequestHistory();
    emit compactionUndone(id);
    emitBudget();
    return true;
}

// Before a request: past the threshold, a compaction (or the question whether to make one) comes
// first. True when the request waits for it.
bool AgentController::compactsBeforeRequest()
{
    if (std::exchange(m_compactedForRequest, false))
        return false; // compacted, or the user said to send it as it is
    const ContextOptions &options = m_options.context;
    const qint64 window = m_options.contextWindow.tokens;
    if (!options.autoCompact || window <= 0
        || double(m_ledger.nextRequestTokens()) < options.compactAt * double(window))
        return false;
    CompactionPlan plan = planCompactionFor(u"threshold"_s, compactionTarget());
    if (plan.isEmpty())
        return false;
    if (m_confirmsCompaction
        && isSignalConnected(QMetaMethod::fromSignal(&AgentController::compactionProposed))) {
        const CompactionPreview preview = plan.preview;
        m_proposedCompaction = std::move(plan);
        const quint64 id = ++m_compactionProposalId;
        setState(State::AwaitingApproval);
        // The receiver may answer synchronously; nothing may follow the emit.
        emit compactionProposed(id, preview);
        return true;
    }
    startCompaction(std::move(plan), true);
    return true;
}

void AgentController::resolveCompaction(quint64 proposalId, bool accept)
{
    if (m_state != State::AwaitingApproval || proposalId != m_compactionProposalId
        || !m_proposedCompaction)
        return;
    CompactionPlan plan = *std::exchange(m_proposedCompaction, std::nullopt);
    if (!accept) {
        m_compactedForRequest = true;
        sendNextRequest();
        return;
    }
    startCompaction(std::move(plan), true);
}

// The provider said the request is too long: one compaction and one retry, whatever the settings.
bool AgentController::compactsAfterContextError(const Error &error)
{
    if (m_state != State::WaitingForModel || !isContextLengthError(error))
        return false;
    if (m_contextRetried) {
        const Compaction *compaction = m_compactions.isEmpty() ? nullptr : &m_compactions.last();
        Error stillTooLong = error;
        stillTooLong.kind = Error::Agent;
        stillTooLong.message
                = tr("The request is still too long for the model's context window after a "
                     "compaction (%1 → %2 tokens) and one retry: %3")
                          .arg(compaction ? compaction->tokensBefore : 0)
                          .arg(compaction ? compaction->tokensAfter : 0)
                          .arg(error.message);
        stillTooLong.hint = tr("Set a smaller context window for this model in the settings, or "
                               "start a new conversation.");
        fail(stillTooLong);
        return true;
    }
    m_contextRetried = true;
    // The estimate thought the request fitted: aim under what was sent, not just the window.
    const qint64 target = std::min(compactionTarget(),
                                   qint64(m_options.context.compactTo
                                          * double(m_ledger.nextRequestTokens())));
    CompactionPlan plan = planCompactionFor(u"context-error"_s, target);
    if (plan.isEmpty()) {
        Error nothingLeft = error;
        nothingLeft.kind = Error::Agent;
        nothingLeft.message = tr("The request is too long for the model's context window, and "
                                 "nothing is left to compact: %1")
                                      .arg(error.message);
        nothingLeft.hint = tr("The latest tool output or message alone is too long. Start a new "
                              "conversation, or use a model with a larger window.");
        fail(nothingLeft);
        return true;
    }
    emit notice(tr("The provider refused the request as too long for the model's context window; "
                   "the conversation is compacted and the request sent again."));
    --m_turn; // the retry is the same turn
    startCompaction(std::move(plan), true);
    return true;
}

// First the whole outputs the stubs point to (off this thread), then the summary when the plan
// needs one, then the compaction takes effect.
void AgentController::startCompaction(CompactionPlan plan, bool thenSend)
{
    const quint64 serial = ++m_compactionSerial;
    m_compaction = CompactionJob{std::move(plan), thenSend};
    setState(State::Compacting);
    emit compactionStarted(m_compaction->plan.preview);
    if (m_compaction->plan.outputsToSave.isEmpty()) {
        continueCompaction();
        return;
    }
    const QFuture<Error> future = runInBackground<Error>(
            [outputs = m_compaction->plan.outputsToSave](const QPromise<Error> &) {
                return saveOutputs(outputs);
            });
    whenFinished(future, this, [this, serial](const Error &error) {
        if (serial != m_compactionSerial || !m_compaction)
            return; // stopped meanwhile
        if (error.kind != Error::None) {
            m_compaction.reset();
            fail(error);
            return;
        }
        continueCompaction();
    });
}

void AgentController::continueCompaction()
{
    const CompactionPlan &plan = m_compaction->plan;
    if (!plan.needsSummary) {
        finishCompaction(plan.compaction);
        return;
    }
    // Room for the transcript: half the window, the rest is the prompt's and the answer's.
    const qint64 budget = qint64(double(m_options.contextWindow.tokens) / 2.0
                                 / std::max(0.1, m_ledger.calibration()));
    const History request = summaryRequestHistory(m_history, plan, rulesInForce(), budget);
    m_client->postChatCompletion(m_turn + 1,
                                 chatRequestBody(m_client->settings(), request, {}),
                                 ExchangePurpose::Compaction);
}

void AgentController::onSummaryCompleted(const Completion &completion)
{
    const QString summary = completion.message.content().trimmed();
    if (summary.isEmpty() || completion.message.hasToolCalls()) {
        onSummaryFailed(Error{Error::Agent,
                              tr("The model answered the summary request without a summary"),
                              tr("Try again, or try another model.")});
        return;
    }
    Compaction compaction = m_compaction->plan.compaction;
    compaction.summary = summary;
    compaction.model = m_client->settings().model;
    finishCompaction(compaction);
}

void AgentController::onSummaryFailed(const Error &error)
{
    m_compaction.reset();
    Error failed = error;
    failed.message = tr("The compaction's summary request failed: %1").arg(error.message);
    fail(failed);
}

void AgentController::finishCompaction(Compaction compaction)
{
    const bool thenSend = std::exchange(m_compaction, std::nullopt)->thenSend;
    m_compactions.append(compaction);
    rebuildRequestHistory();
    m_compactions.last().tokensAfter = m_ledger.nextRequestTokens();
    if (!thenSend)
        setState(State::Idle);
    emit compacted(m_compactions.last());
    emitBudget();
    if (thenSend) {
        m_compactedForRequest = true;
        sendNextRequest();
    }
}

void AgentController::resetCompactionRun()
{
    ++m_compactionSerial;
    m_compaction.reset();
    m_proposedCompaction.reset();
    m_compactedForRequest = false;
    m_contextRetried = false;
}

} // namespace AgentLoop
