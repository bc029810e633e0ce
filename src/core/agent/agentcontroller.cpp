#include "agent/agentcontroller.h"

#include "base/background.h"
#include "base/redaction.h"
#include "protocol/requestbody.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QJsonDocument>
#include <QMetaMethod>
#include <QSet>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// What the model reads for calls that did not run. English on purpose: it is protocol data.
ToolResult deniedResult(const QString &reason)
{
    if (reason.isEmpty())
        return ToolResult::failure(u"denied"_s,
                                   u"the user declined this call, so it was not run. Do not repeat "
                                   u"it unchanged; choose another approach or ask the user."_s);
    return ToolResult::failure(u"denied"_s,
                               u"the user declined this call, so it was not run. The user's "
                               u"reason: %1"_s.arg(reason));
}

ToolResult deniedByRuleResult(const PermissionCheck &check)
{
    return ToolResult::failure(u"denied"_s,
                               u"the permission rule %1 forbids this call, so it was not run. Do "
                               u"not try to get around the rule; choose another approach or ask "
                               u"the user."_s.arg(check.decidedBy));
}

CallDecision decisionBy(const PermissionCheck &check)
{
    CallDecision decision;
    decision.kind = check.origin == RuleOrigin::Conversation && check.decidedBy != u"default"_s
                            ? CallDecision::AllowForConversation
                            : CallDecision::Allow;
    if (check.verdict == Verdict::Deny)
        decision.kind = CallDecision::Deny;
    decision.decidedBy = check.decidedBy;
    return decision;
}

ToolResult notRunResult()
{
    return ToolResult::failure(u"cancelled"_s,
                               u"the user stopped the run before this call ran; it was not run."_s);
}

// Calls no tool message can answer validly: too many, or ids that repeat. Nothing of such a
// message runs.
std::optional<Error> refusedCalls(const Message &message)
{
    // The client refuses such a message already; this is the last guard before anything runs.
    if (message.toolCalls().size() > maxToolCallsPerMessage)
        return tooManyToolCallsError();
    QSet<QString> ids;
    for (const ToolCall &call : message.toolCalls()) {
        if (ids.contains(call.id)) {
            return Error{Error::Protocol,
                         QCoreApplication::translate("AgentLoop::AgentController",
                                                     "The model sent several tool calls with the "
                                                     "same id %1, so none of its calls was run.")
                                 .arg(call.id),
                         QCoreApplication::translate("AgentLoop::AgentController",
                                                     "This is a provider bug. Try again, or try "
                                                     "another model.")};
        }
        ids.insert(call.id);
    }
    return std::nullopt;
}

} // namespace

QString callFingerprint(const ToolCall &call)
{
    const QJsonObject object{
            {u"id"_s, call.id},
            {u"type"_s, u"function"_s},
            {u"function"_s, QJsonObject{{u"name"_s, call.name}, {u"arguments"_s, call.arguments}}},
    };
    return QString::fromLatin1(
            QCryptographicHash::hash(QJsonDocument(object).toJson(QJsonDocument::Compact),
                                     QCryptographicHash::Sha256)
                    .toHex());
}

AgentController::AgentController(QObject *parent)
    : QObject(parent)
    , m_client(new ChatClient(this))
{
    connect(m_client, &ChatClient::requestSent, this, &AgentController::requestSent);
    connect(m_client, &ChatClient::responseReceived, this, &AgentController::responseReceived);
    // A summary request's answer is no assistant message: it is not shown as one.
    connect(m_client, &ChatClient::textDelta, this, [this](const QString &text) {
        if (m_state != State::Compacting)
            emit assistantTextDelta(text);
    });
    connect(m_client, &ChatClient::reasoningDelta, this, [this](const QString &text) {
        if (m_state != State::Compacting)
            emit assistantReasoningDelta(text);
    });
    connect(m_client, &ChatClient::retryScheduled, this, &AgentController::retryScheduled);
    connect(m_client, &ChatClient::providerAdjusted, this, &AgentController::providerAdjusted);
    connect(m_client, &ChatClient::completed, this, &AgentController::onCompleted);
    connect(m_client, &ChatClient::failed, this, &AgentController::onFailed);
    updateEffectivePolicy();
}

void AgentController::setHistory(PreparedHistory prepared)
{
    if (isRunning())
        return;
    m_history = std::move(prepared.history);
    m_fullTokens = std::move(prepared.fullTokens);
    m_compactions = std::move(prepared.compactions);
    m_compactedHistory = std::move(prepared.compactedHistory);
    m_ledger.rebuild(prepared.requestTokens); // the calibration stays: it is the model's
    m_ledger.setToolDefinitions(
            QJsonDocument(m_tools.snapshot().definitions()).toJson(QJsonDocument::Compact));
    // What the user allowed "for this conversation" ends with it.
    m_conversationAllowances.clear();
    m_conversationRules.clear();
    m_repairs.clear();
    updateEffectivePolicy();
    const ToolSnapshot tools = m_tools.snapshot();
    for (const auto &tool : tools.tools())
        tool->forgetConversation();
    emitBudget();
}

void AgentController::newConversation()
{
    setHistory(History());
}

bool AgentController::run(const QString &prompt)
{
    if (isRunning() || prompt.trimmed().isEmpty())
        return false;
    m_turn = 0;
    m_cancelRequested = false;
    resetCompactionRun();
    resetRecoveryRun();
    if (m_history.isEmpty() && !m_options.systemPrompt.isEmpty())
        append(Message::system(m_options.systemPrompt));
    append(Message::user(prompt));
    sendNextRequest();
    return true;
}

// Stops the run wherever it is; every call still open is answered, so the history stays valid.
void AgentController::cancel()
{
    switch (m_state) {
    case State::Idle:
        return;
    case State::WaitingForModel:
    case State::Compacting: // the summary request; the history is as it was before it
        m_client->abort();
        break;
    case State::AwaitingApproval:
        ++m_approvalId; // a review still computing is answered no more
        m_reviewing = false;
        if (m_awaitingApproval)
            finishCall(std::exchange(m_awaitingApproval, std::nullopt)->call, notRunResult(), {});
        answerRemainingCalls(notRunResult());
        break;
    case State::RunningTool:
        // Each run answers its own call with a "cancelled" result; the rest follows there.
        m_cancelRequested = true;
        for (const RunningCall &running : std::as_const(m_running)) {
            if (running.run)
                running.run->cancel();
        }
        return;
    }
    fail(Error{Error::Cancelled, tr("Stopped by the user.")});
}

QByteArray AgentController::requestBody(const ToolSnapshot &tools) const
{
    return chatRequestBody(m_client->settings(), requestHistory(), tools.definitions());
}

ContextBudget AgentController::budget() const
{
    return ContextBudget{m_ledger.nextRequestTokens(), m_options.contextWindow, !m_ledger.isExact()};
}

void AgentController::emitBudget()
{
    emit budgetChanged(budget());
}

void AgentController::setNetworkAccessManager(QNetworkAccessManager *manager)
{
    m_client->setNetworkAccessManager(manager);
}

// Step 2: send the history with a frozen tool snapshot.
void AgentController::sendNextRequest()
{
    if (const Result<void> pairing = requestHistory().checkPairing(); !pairing) {
        reportProtocol(requestHistory(), m_tools.snapshot().definitions(), false);
        fail(pairing.error());
        return;
    }
    if (m_turn >= m_options.maxTurns) {
        fail(Error{Error::Agent,
                   tr("Agent exceeded maxTurns=%1").arg(m_options.maxTurns),
                   tr("The model kept calling tools without reaching an answer. Give a more "
                      "specific prompt, or check the setup with a simple command first.")});
        return;
    }
    if (compactsBeforeRequest())
        return;
    m_snapshot = m_tools.snapshot();
    ++m_turn;
    emit turnStarted(m_turn, m_options.maxTurns);
    setState(State::WaitingForModel);
    m_ledger.setToolDefinitions(
            QJsonDocument(m_snapshot.definitions()).toJson(QJsonDocument::Compact));
    m_sentMessages = requestHistory().size();
    m_continuations = 0;
    m_partialUsage.reset();
    reportProtocol(requestHistory(), m_snapshot.definitions(), true);
    m_client->postChatCompletion(m_turn, requestBody(m_snapshot));
}

void AgentController::reportProtocol(const History &history, const QJsonArray &tools, bool sent)
{
    // Nobody listening (the CLI): not even the walk.
    if (!isSignalConnected(QMetaMethod::fromSignal(&AgentController::protocolChecked))) {
        if (sent)
            m_repairs.clear();
        return;
    }
    ProtocolReport report;
    report.checks = checkProtocol(history, tools);
    report.repairs = m_repairs;
    report.repairDiff = repairDiff(m_history, m_repairs);
    report.sent = sent;
    if (sent)
        m_repairs.clear();
    emit protocolChecked(report);
}

// Step 3: keep the assistant message; continue if and only if it has tool calls.
void AgentController::onCompleted(const Completion &received)
{
    if (m_state == State::Compacting) {
        onSummaryCompleted(received);
        return;
    }
    m_contextRetried = false;
    emit completionReceived(m_turn, received);
    // The answer with the parts before it, when it continues one that was cut off.
    const Completion completion = joinedWithPartialAnswer(received);
    if (completion.usage) {
        m_ledger.recordUsage(m_sentMessages, *completion.usage);
        emitBudget();
    }
    const Message &message = completion.message;
    const QString &reason = completion.finishReason;

    // A truncated or filtered answer is kept when it is plain text (the user may want to read
    // it); tool calls from it are not run, their arguments may be cut off.
    const auto keepTextAndFail = [&](const Error &error) {
        if (!message.hasToolCalls() && message.hasText())
            append(message);
        fail(error);
    };
    if (reason == u"length" && message.hasToolCalls()) {
        if (const std::optional<Error> refused = refusedCalls(message)) {
            fail(*refused);
            return;
        }
        answerCutOffCalls(message);
        return;
    }
    if (reason == u"length") {
        if (!continuesCutOffAnswer(message))
            keepTextAndFail(cutOffError());
        return;
    }
    if (reason == u"content_filter") {
        keepTextAndFail(Error{Error::Agent,
                              tr("The provider's content filter stopped the answer "
                                 "(finish_reason=content_filter)"),
                              tr("Rephrase the task; the provider will not produce this output.")});
        return;
    }
    // OpenRouter ends a stream this way when the model's provider failed mid-answer: whatever
    // came is a fragment, never the answer.
    if (reason == u"error") {
        fail(Error{Error::Protocol,
                   tr("The provider reported an error in the middle of its answer "
                      "(finish_reason=%1); the partial answer was not kept.")
                           .arg(completion.providerFinishReason),
                   tr("Try again; if it keeps happening, try another model or provider.")});
        return;
    }
    // No finish_reason at all is accepted: the decision below rests on the message itself.
    if (!reason.isEmpty() && reason != u"stop" && reason != u"tool_calls") {
        fail(Error{Error::Agent,
                   tr("Unsupported finish_reason: %1").arg(reason),
                   tr("The endpoint is not fully compatible with Chat Completions. Try another "
                      "provider or model.")});
        return;
    }

    if (message.hasToolCalls()) {
        if (const std::optional<Error> refused = refusedCalls(message)) {
            fail(*refused);
            return;
        }
        append(message);
        m_pendingCalls = message.toolCalls();
        processNextCall();
        return;
    }
    if (message.hasText()) {
        append(message);
        setState(State::Idle);
        emit finished(message.content());
        return;
    }
    fail(Error{
            Error::Agent,
            tr("The model returned neither text nor a tool call"),
            tr("An empty answer is never treated as success. Try again, or try another model.")});
}

void AgentController::onFailed(const Error &error)
{
    if (m_state == State::Compacting) {
        onSummaryFailed(error);
        return;
    }
    if (compactsAfterContextError(error) || fallsBackAfter(error))
        return;
    fail(withModelsTried(error));
}

// Step 4: each call in order; a call that cannot be prepared, or that a rule denies, is answered
// at once. Consecutive reads that need no approval run together; any other call runs alone,
// after an approval when the rules ask for one.
void AgentController::processNextCall()
{
    QList<RunningCall> reads;
    while (!m_pendingCalls.isEmpty()) {
        const Preparation preparation = m_snapshot.prepare(m_pendingCalls.first());
        const auto *prepared = std::get_if<PreparedCall>(&preparation);
        const auto tool = prepared ? m_snapshot.find(prepared->call.name) : nullptr;
        const PermissionCheck check = prepared
                                              ? m_effectivePolicy->check(*tool, prepared->arguments)
                                              : PermissionCheck();
        if (prepared && tool->sideEffect() == SideEffect::Read && check.verdict == Verdict::Allow) {
            m_pendingCalls.removeFirst();
            reads.append(RunningCall{*prepared, decisionBy(check), {}, false, {}});
            continue;
        }
        if (!reads.isEmpty())
            break; // the reads before this call finish first: it may depend on them
        const ToolCall call = m_pendingCalls.takeFirst();
        if (!prepared) {
            finishCall(call, std::get<ToolResult>(preparation), {});
            continue;
        }
        if (check.verdict == Verdict::Deny) {
            finishCall(call, deniedByRuleResult(check), decisionBy(check));
            continue;
        }
        if (check.verdict == Verdict::Allow) {
            run({RunningCall{*prepared, decisionBy(check), {}, false, {}}});
            return;
        }
        askFor(*prepared, tool, check);
        return;
    }
    if (!reads.isEmpty()) {
        run(reads);
        return;
    }
    sendNextRequest();
}

// The rules ask: unless the user allowed this very call for the conversation, the user is asked.
void AgentController::askFor(const PreparedCall &prepared,
                             const std::shared_ptr<const Tool> &tool,
                             const PermissionCheck &check)
{
    // A call that writes no file runs again as allowed; one that writes a file is reviewed first,
    // to see whether the file is still as the allowed call left it.
    const auto allowance = m_conversationAllowances.constFind(allowanceKey(prepared));
    if (allowance != m_conversationAllowances.cend() && allowance->isEmpty()) {
        run({RunningCall{prepared, allowedForConversation(), {}, false, {}}});
        return;
    }
    reviewCall(prepared, tool, check);
}

CallDecision AgentController::allowedForConversation()
{
    CallDecision decision;
    decision.kind = CallDecision::AllowForConversation;
    decision.decidedBy = u"user"_s;
    return decision;
}

// Before asking: what the approval shows, computed off this thread when the tool reads files (a
// diff). A call that cannot succeed as it stands is answered with that result, without asking.
void AgentController::reviewCall(const PreparedCall &prepared,
                                 const std::shared_ptr<const Tool> &tool,
                                 const PermissionCheck &check)
{
    m_awaitingApproval = prepared;
    m_reviewing = true;
    setState(State::AwaitingApproval);
    const quint64 reviewId = ++m_approvalId;
    const auto reviewed = [this, reviewId, tool, check](const Review &review) {
        if (reviewId != m_approvalId || !m_reviewing || !m_awaitingApproval)
            return; // stopped meanwhile
        m_reviewing = false;
        if (const auto *result = std::get_if<ToolResult>(&review)) {
            finishCall(std::exchange(m_awaitingApproval, std::nullopt)->call, *result, {});
            processNextCall();
            return;
        }
        const CallPreview &preview = std::get<CallPreview>(review);
        const auto allowance = m_conversationAllowances.constFind(allowanceKey(*m_awaitingApproval));
        if (allowance != m_conversationAllowances.cend()) {
            if (*allowance == preview.basis) {
                PreparedCall allowed = *std::exchange(m_awaitingApproval, std::nullopt);
                allowed.approvedBasis = preview.basis;
                run({RunningCall{allowed, allowedForConversation(), {}, false, {}}});
                return;
            }
            // The file changed since the allowed call wrote it (the user edited it, say): what
            // the user allowed was a change of that file as it was, so the user is asked again.
            m_conversationAllowances.remove(allowance.key());
        }
        requestApproval(*m_awaitingApproval, *tool, preview, check);
    };
    const QFuture<Review> future = tool->review(prepared);
    if (future.isFinished()) {
        reviewed(future.result());
        return;
    }
    whenFinished(future, this, reviewed);
}

void AgentController::requestApproval(const PreparedCall &prepared,
                                      const Tool &tool,
                                      const CallPreview &preview,
                                      const PermissionCheck &check)
{
    m_awaitingApproval = prepared;
    m_awaitingApproval->approvedBasis = preview.basis;
    m_awaitingCheck = check;
    m_awaitingFingerprint = callFingerprint(prepared.call);

    ApprovalRequest request;
    request.id = m_approvalId;
    request.turn = m_turn;
    request.toolCallId = prepared.call.id;
    request.toolName = tool.name();
    request.reason = tool.approvalReason();
    request.arguments = prepared.call.arguments;
    request.argumentsObject = prepared.arguments;
    request.preview = preview;
    request.check = check;
    request.ruleCall = RuleCall{tool.name(),
                                tool.sideEffect(),
                                tool.ruleSubject(prepared.arguments)};
    request.suggestedRules = m_effectivePolicy->suggestedRules(request.ruleCall);
    request.callSha256 = m_awaitingFingerprint;

    // Fail closed: with nobody to ask, the answer is no.
    if (!isSignalConnected(QMetaMethod::fromSignal(&AgentController::approvalRequested))) {
        const PreparedCall denied = *std::exchange(m_awaitingApproval, std::nullopt);
        CallDecision decision;
        decision.kind = CallDecision::Deny;
        decision.asked = true;
        decision.decidedBy = u"default"_s;
        finishCall(denied.call, deniedResult({}), decision);
        processNextCall();
        return;
    }
    // The receiver may answer synchronously, which continues the loop from inside this emit;
    // nothing may follow it.
    emit approvalRequested(request);
}

void AgentController::setPermissions(std::shared_ptr<const PermissionPolicy> policy)
{
    m_policy = std::move(policy);
    updateEffectivePolicy();
}

void AgentController::updateEffectivePolicy()
{
    const PermissionPolicy session = m_policy ? *m_policy : PermissionPolicy();
    if (m_conversationRules.isEmpty()) {
        m_effectivePolicy = std::make_shared<const PermissionPolicy>(session);
        return;
    }
    m_effectivePolicy = std::make_shared<const PermissionPolicy>(
            session.withRules(session.rules() + m_conversationRules));
}

QString AgentController::allowanceKey(const PreparedCall &prepared)
{
    // QJsonObject keeps its keys sorted: the same arguments give the same text.
    return prepared.call.name + u'\n'
           + QString::fromUtf8(QJsonDocument(prepared.arguments).toJson(QJsonDocument::Compact));
}

void AgentController::resolveApproval(quint64 requestId, const ApprovalAnswer &answer)
{
    if (m_state != State::AwaitingApproval || requestId != m_approvalId || !m_awaitingApproval
        || m_reviewing)
        return;
    const PreparedCall prepared = *std::exchange(m_awaitingApproval, std::nullopt);
    CallDecision decision;
    decision.asked = true;
    decision.decidedBy = u"user"_s;
    decision.addedRules = answer.rules;
    // What runs is the call the user was shown, byte for byte.
    const bool allowed = (answer.choice == ApprovalAnswer::AllowOnce
                          || answer.choice == ApprovalAnswer::AllowForConversation)
                         && callFingerprint(prepared.call) == m_awaitingFingerprint;
    if (!allowed) {
        decision.kind = CallDecision::Deny;
        decision.reason = answer.reason;
        finishCall(prepared.call, deniedResult(answer.reason), decision);
        processNextCall();
        return;
    }
    decision.kind = CallDecision::Allow;
    if (answer.choice == ApprovalAnswer::AllowForConversation) {
        decision.kind = CallDecision::AllowForConversation;
        if (answer.rules.isEmpty())
            m_conversationAllowances.insert(allowanceKey(prepared), prepared.approvedBasis);
        for (const QString &rule : answer.rules)
            m_conversationRules.append(
                    PermissionRule{rule, RuleEffect::Allow, RuleOrigin::Conversation});
        updateEffectivePolicy();
    }
    run({RunningCall{prepared, decision, {}, false, {}}});
}

// Runs calls that were allowed: reads together (at most maxParallelReads at once), anything else
// alone. Their tool messages follow the order of the calls, whatever finishes first.
void AgentController::run(QList<RunningCall> calls)
{
    m_running = std::move(calls);
    setState(State::RunningTool);
    startWaitingRuns();
}

void AgentController::startWaitingRuns()
{
    qsizetype active = 0;
    for (const RunningCall &running : std::as_const(m_running))
        active += running.started && !running.result ? 1 : 0;
    for (RunningCall &running : m_running) {
        if (active >= maxParallelReads)
            break;
        if (running.started)
            continue;
        running.started = true;
        ++active;
        const auto tool = m_snapshot.find(running.prepared.call.name);
        emit toolStarted(running.prepared.call);
        ToolRun *toolRun = tool->invoke(running.prepared, this);
        running.run = toolRun;
        connect(toolRun, &ToolRun::finished, this, [this, toolRun](const ToolResult &result) {
            onRunFinished(toolRun, result);
        });
        connect(toolRun,
                &ToolRun::progressed,
                this,
                [this, call = running.prepared.call](const ToolProgress &progress) {
                    emit toolProgressed(call, progress);
                });
    }
}

void AgentController::onRunFinished(ToolRun *toolRun, const ToolResult &result)
{
    toolRun->deleteLater();
    for (RunningCall &running : m_running) {
        if (running.run == toolRun)
            running.result = result;
    }
    for (;;) {
        // The calls in order, as far as they have results.
        while (!m_running.isEmpty() && m_running.first().result) {
            const RunningCall done = m_running.takeFirst();
            // An allowance for a file write holds for the file as this call left it.
            if (done.decision.kind == CallDecision::AllowForConversation
                && !done.result->writtenBasis.isEmpty()) {
                const auto allowance = m_conversationAllowances.find(allowanceKey(done.prepared));
                if (allowance != m_conversationAllowances.end())
                    *allowance = done.result->writtenBasis;
            }
            finishCall(done.prepared.call, *done.result, done.decision);
        }
        if (!m_cancelRequested)
            break;
        // Stopped: what has not started never will.
        bool answered = false;
        for (RunningCall &running : m_running) {
            if (!running.started) {
                running.started = true;
                running.result = notRunResult();
                answered = true;
            }
        }
        if (!answered)
            break;
    }
    if (!m_running.isEmpty()) {
        startWaitingRuns();
        return;
    }
    if (m_cancelRequested) {
        answerRemainingCalls(notRunResult());
        fail(Error{Error::Cancelled, tr("Stopped by the user.")});
        return;
    }
    processNextCall();
}

// Step 5: exactly one tool message per call.
void AgentController::finishCall(const ToolCall &call,
                                 const ToolResult &toolResult,
                                 const CallDecision &decision)
{
    // A command may print the key (`env`, a config file): it is blanked out before the history,
    // and with it the chat, the conversation file and the exports, ever hold it.
    ToolResult result = toolResult;
    result.content = redacted(result.content,
                              m_options.maskedSecrets + QStringList{provider().apiKey});
    append(Message::tool(call.id, result.content));
    if (result.errorCode == u"cancelled") {
        m_repairs.append(HistoryRepair{
                m_history.size() - 1,
                m_history.last(),
                tr("The run was stopped before this call finished; the app answered it so that "
                   "every call keeps its result.")});
    }
    emit toolFinished(call, result);
    CallRecord record;
    record.decidedAt = QDateTime::currentDateTimeUtc();
    record.turn = m_turn;
    record.call = call;
    record.callSha256 = callFingerprint(call);
    record.decision = decision;
    record.result = result;
    emit callRecorded(record);
}

void AgentController::answerRemainingCalls(const ToolResult &result)
{
    while (!m_pendingCalls.isEmpty())
        finishCall(m_pendingCalls.takeFirst(), result, {});
}

void AgentController::append(const Message &message)
{
    m_history.append(message);
    m_fullTokens.append(message);
    if (m_compactedHistory)
        m_compactedHistory->append(message);
    m_ledger.append(message);
    emit messageAppended(message);
    emitBudget();
}

void AgentController::fail(const Error &error)
{
    m_pendingCalls.clear();
    m_running.clear();
    m_awaitingApproval.reset();
    m_reviewing = false;
    m_partialAnswer.reset();
    resetCompactionRun();
    setState(State::Idle);
    emit failed(error);
}

void AgentController::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

} // namespace AgentLoop
