#pragma once

#include "context/compaction.h"
#include "context/contextoptions.h"
#include "context/tokenledger.h"
#include "permissions/permissionrules.h"
#include "protocol/history.h"
#include "protocol/protocolcheck.h"
#include "provider/chatclient.h"
#include "tools/tool.h"

#include <QDateTime>
#include <QFuture>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>

#include <memory>

namespace AgentLoop {

struct AgentOptions
{
    int maxTurns = 20;    // model requests per run, not tool calls
    QString systemPrompt; // first message of a new conversation; none when empty
    ContextOptions context;
    // The model's window, resolved by the session (context/contextwindow.h).
    ContextWindow contextWindow;
    // Tried in order when the model fails with 404 "model not found", or with 429 or a 5xx
    // after the retries (fallback helper).
    QList<ProviderSettings> fallbacks;
    // Masked in every tool result with the provider's key: the other keys the front end knows,
    // the values MCP servers take from variables.
    QStringList maskedSecrets;
};

// Everything the user needs to decide on one call: which tool, why it asks, the exact arguments.
struct ApprovalRequest
{
    quint64 id = 0;
    int turn = 0;
    QString toolCallId;
    QString toolName;
    QString reason;
    QString arguments; // the arguments text exactly as the model sent it
    QJsonObject argumentsObject;
    // What will run, decoded: what every front end shows (through displayText()).
    CallPreview preview;
    // Why it is asked: the rules' verdict (Ask), its explanation and details.
    PermissionCheck check;
    // What "Always allow…" offers to save (PermissionPolicy::suggestedRules); empty when no rule
    // could allow this call.
    QStringList suggestedRules;
    RuleCall ruleCall; // the call as rules see it, to test an edited rule against
    // SHA-256 (hex) of the tool call exactly as the model sent it (callFingerprint()): what runs
    // after an approval is this call, byte for byte.
    QString callSha256;
};

// The user's answer to one approval request.
struct ApprovalAnswer
{
    // An int underneath: a front end's answer may hold any value, and anything but an allow
    // denies.
    enum Choice : int {
        AllowOnce,
        // This tool with these exact arguments, for the rest of this conversation; with rules,
        // those rules for the rest of this conversation (never saved).
        AllowForConversation,
        Deny,
    };
    Choice choice = Deny;
    QString reason; // Deny: typed by the user; the model reads it with the denial
    // The rules the user accepted with this answer ("Always allow…" saved them in a rules file;
    // AllowForConversation keeps them for the conversation): recorded in the audit trail.
    QStringList rules;

    static ApprovalAnswer allowOnce() { return {AllowOnce, {}, {}}; }
    static ApprovalAnswer deny(const QString &reason = {}) { return {Deny, reason, {}}; }
    bool operator==(const ApprovalAnswer &other) const = default;
};

// How one call was decided, as the audit trail records it.
struct CallDecision
{
    enum Kind {
        None,                 // never reached a decision: unknown tool, invalid arguments, stopped
        Allow,                // by a rule, the defaults, or the user once
        AllowForConversation, // by the user, for the rest of the conversation
        Deny,                 // by a rule or the user (fail closed: no answer, no front end)
    };
    Kind kind = None;
    bool asked = false; // the rules said ask, and the user was asked
    QString decidedBy;  // the rule as written, "user", or "default"
    QString reason;     // the user's, with a denial
    QStringList addedRules;
};

// Everything the audit trail keeps of one finished call.
struct CallRecord
{
    QDateTime decidedAt;
    int turn = 0;
    ToolCall call; // arguments as the model sent them (the key is redacted when written)
    QString callSha256;
    CallDecision decision;
    ToolResult result; // exit code, error code, duration
};

// SHA-256 (hex) of the call as the assistant message carries it and the provider receives it
// back: {"id","type":"function","function":{"name","arguments"}} as compact JSON, the arguments
// string verbatim.
QString callFingerprint(const ToolCall &call);

// The agent loop (the seed's contract):
//   1. the user's prompt joins the history;
//   2. the history and a frozen snapshot of the tools are sent to the model;
//   3. the assistant message is appended verbatim; the loop goes on if and only if it has tool
//      calls;
//   4. each call, in order: look up, parse, validate, check the permission rules (deny: answered
//      at once; allow: run; ask: the user decides), run. Consecutive read calls the rules allow
//      run at the same time (at most maxParallelReads); any other call runs alone, and approvals
//      come one at a time, in order;
//   5. exactly one tool message per call (failures, denials, cancellations too), in the order of
//      the calls whatever finishes first, then back to 2.
// The controller opens no UI: it emits approvalRequested() and waits for resolveApproval().
// What the user allows "for this conversation" ends with the conversation (setHistory(),
// newConversation()) and is never saved.
class AgentController final : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, WaitingForModel, AwaitingApproval, RunningTool, Compacting };
    Q_ENUM(State)

    // Read calls of one message that need no approval run at the same time, this many at most.
    static constexpr int maxParallelReads = 8;

    explicit AgentController(QObject *parent = nullptr);

    // The tools of the next request; a change never affects a request already sent.
    const ToolRegistry &tools() const { return m_tools; }
    // Replaces a tool of the same name.
    void addTool(std::shared_ptr<const Tool> tool) { m_tools.add(std::move(tool)); }
    // From the next request on; a request already sent keeps its snapshot (and its calls run).
    void removeTool(const QString &name) { m_tools.remove(name); }
    // The provider of the next run (a fallback the run before went to is forgotten).
    void setProvider(const ProviderSettings &settings)
    {
        m_client->setSettings(settings);
        m_primaryProvider.reset();
        m_fallbacksUsed = 0;
    }
    const ProviderSettings &provider() const { return m_client->settings(); }
    // Replaces the transport (the offline demo answers from a QNetworkAccessManager of its own).
    // Takes ownership.
    void setNetworkAccessManager(QNetworkAccessManager *manager);
    // A request is out, or waits to be sent again.
    bool isRequestPending() const { return m_client->isBusy(); }
    void setOptions(const AgentOptions &options)
    {
        m_options = options;
        emitBudget();
    }
    const AgentOptions &options() const { return m_options; }

    State state() const { return m_state; }
    bool isRunning() const { return m_state != State::Idle; }
    int turn() const { return m_turn; }
    const History &history() const { return m_history; }

    // A history made ready to be continued: its compactions checked (those that do not fit it
    // left out) and applied, and every message's tokens estimated. For a long conversation that
    // is the part that takes time, so prepareHistory() may run on any thread.
    struct PreparedHistory
    {
        History history;
        QList<Compaction> compactions;
        std::optional<History> compactedHistory; // what the next request sends, if compacted
        TokenLedger fullTokens;                  // of history
        TokenLedger requestTokens;               // of what the next request sends, uncalibrated
    };
    static PreparedHistory prepareHistory(const History &history,
                                          const QList<Compaction> &compactions = {});
    // Continue from a saved conversation, with its compactions not undone; only while idle. The
    // tools forget the one before.
    void setHistory(PreparedHistory prepared);
    void setHistory(const History &history, const QList<Compaction> &compactions = {})
    {
        setHistory(prepareHistory(history, compactions));
    }
    // Forget the conversation; only while idle.
    void newConversation();
    // Messages of the history the app added itself (a reopened conversation's interrupted calls
    // answered): the next protocolChecked() report shows them as a diff. setHistory() forgets
    // those of the conversation before.
    void addRepairs(const QList<HistoryRepair> &repairs) { m_repairs.append(repairs); }

    // Appends the prompt and runs the loop until the model answers without a tool call. Ignored
    // (returns false) while a run is in progress.
    bool run(const QString &prompt);
    // Stops the run wherever it is: aborts the request, or kills the running command, and
    // answers every call still open with a "cancelled" tool message so the history stays valid.
    void cancel();
    // The answer to approvalRequested().
    void resolveApproval(quint64 requestId, const AgentLoop::ApprovalAnswer &answer);

    // The rules every call is checked against before anything is asked; without any, the
    // defaults (read tools allowed, the rest asked).
    void setPermissions(std::shared_ptr<const PermissionPolicy> policy);
    // The session's rules with this conversation's added (what decides the next call).
    std::shared_ptr<const PermissionPolicy> permissions() const { return m_effectivePolicy; }

    // The exact request body the next turn would send for this history and tool snapshot.
    QByteArray requestBody(const ToolSnapshot &tools) const;

    // Tokens of the next request against the model's window (budgetChanged() follows every
    // change).
    ContextBudget budget() const;
    const TokenLedger &ledger() const { return m_ledger; }

    // Compaction (course chapter 8; context/compaction.h). The history itself never loses a
    // message: a compaction changes what the next request sends (requestHistory()).
    const History &requestHistory() const;
    // The compactions of this conversation not undone, oldest first; the last one decides the
    // request (setHistory() takes those of a reopened conversation).
    const QList<Compaction> &compactions() const { return m_compactions; }
    // What compacting now would do, planned on another thread (it reads the whole history);
    // zeros when there is nothing to compact or a run goes on.
    QFuture<CompactionPreview> previewCompaction() const;
    // Compacts now, while idle ("Compact now"): stubs, then a summary request when stubs are
    // not enough. False when busy or when there is nothing to compact.
    bool compactNow();
    // Undoes the latest compaction: the next request sends what the one before it said, or the
    // whole history. False when there is none, or while a run goes on.
    bool undoCompaction();
    // The app asks the user before an automatic compaction (compactionProposed); without it
    // (the CLI, tests) they run at once.
    void setConfirmsCompaction(bool confirms) { m_confirmsCompaction = confirms; }
    // The answer to compactionProposed(): compact, or send the request as it is.
    void resolveCompaction(quint64 proposalId, bool accept);
    // The folder for the whole tool outputs that stubs point to (the conversation's outputs
    // folder), asked at each compaction; unset or empty: only outputs already in a file (a long
    // command's) are stubbed.
    void setCompactionOutputDirectory(std::function<QString()> directory);

signals:
    void stateChanged(AgentLoop::AgentController::State state);
    void turnStarted(int turn, int maxTurns);
    void messageAppended(const AgentLoop::Message &message);
    // Before each model request of a turn (not a compaction's summary, nor a continuation): the
    // protocol's rules checked on the exact history and tool snapshot it sends, and the repairs
    // the app made since the request before. sent is false when a rule failed: failed() follows
    // and nothing goes out. Otherwise requestSent() follows.
    void protocolChecked(const AgentLoop::ProtocolReport &report);
    void requestSent(const AgentLoop::Exchange &exchange);
    void responseReceived(const AgentLoop::Exchange &exchange);
    void completionReceived(int turn, const AgentLoop::Completion &completion);
    // A streamed answer as it arrives; the assistant message follows in messageAppended.
    void assistantTextDelta(const QString &text);
    void assistantReasoningDelta(const QString &text);
    // The request failed in a way worth another try; it is sent again after delayMs.
    void retryScheduled(const QString &notice, qint64 delayMs, int nextAttempt, int maxAttempts);
    // The provider refused a part of the request by name; it was sent again without it, and
    // provider() leaves it out from now on (a front end may keep that in the profile).
    void providerAdjusted(const AgentLoop::ProviderAdjustment &adjustment);
    void approvalRequested(const AgentLoop::ApprovalRequest &request);
    void toolStarted(const AgentLoop::ToolCall &call);
    // How far a started call has come, when its tool says (an MCP server's progress).
    void toolProgressed(const AgentLoop::ToolCall &call, const AgentLoop::ToolProgress &progress);
    void toolFinished(const AgentLoop::ToolCall &call, const AgentLoop::ToolResult &result);
    // After toolFinished: the call's decision and outcome, for the audit trail.
    void callRecorded(const AgentLoop::CallRecord &record);
    // The figure for the next request changed (a message joined, a usage was reported, the
    // window or the request history changed).
    void budgetChanged(const AgentLoop::ContextBudget &budget);
    // The next request would pass the threshold; nothing is sent until resolveCompaction().
    void compactionProposed(quint64 proposalId, const AgentLoop::CompactionPreview &preview);
    // A compaction began: its outputs are saved, then, when it needs one, the summary request goes
    // out (it shows in requestSent with ExchangePurpose::Compaction; cancel() stops it).
    void compactionStarted(const AgentLoop::CompactionPreview &preview);
    // A compaction took effect; the session records it in the conversation file.
    void compacted(const AgentLoop::Compaction &compaction);
    void compactionUndone(const QString &compactionId);
    // What the loop did on its own that the user should know of, ready to show: a compaction
    // after the provider's context-length error, a continuation, a switch to a fallback model.
    void notice(const QString &text);
    // The answer was cut off (finish_reason "length"); part `part` of at most `maxParts` is
    // asked for.
    void continuationRequested(int part, int maxParts);
    // The turn goes to the next fallback model (AgentOptions::fallbacks).
    void fallbackActivated(const QString &notice, const AgentLoop::ProviderSettings &settings);
    // The run ended with the model's final answer.
    void finished(const QString &answer);
    // The run ended without an answer (kind Cancelled when the user stopped it).
    void failed(const AgentLoop::Error &error);

private:
    // A call allowed to run, and how; its result once it has one.
    struct RunningCall
    {
        PreparedCall prepared;
        CallDecision decision;
        QPointer<ToolRun> run;
        bool started = false;
        std::optional<ToolResult> result;
    };

    void setState(State state);
    void append(const Message &message);
    void sendNextRequest();
    void reportProtocol(const History &history, const QJsonArray &tools, bool sent);
    void onCompleted(const Completion &completion);
    void onFailed(const Error &error);
    void processNextCall();
    void askFor(const PreparedCall &prepared,
                const std::shared_ptr<const Tool> &tool,
                const PermissionCheck &check);
    void reviewCall(const PreparedCall &prepared,
                    const std::shared_ptr<const Tool> &tool,
                    const PermissionCheck &check);
    void requestApproval(const PreparedCall &prepared,
                         const Tool &tool,
                         const CallPreview &preview,
                         const PermissionCheck &check);
    void run(QList<RunningCall> calls);
    void startWaitingRuns();
    void onRunFinished(ToolRun *run, const ToolResult &result);
    void finishCall(const ToolCall &call, const ToolResult &result, const CallDecision &decision);
    void answerRemainingCalls(const ToolResult &result);
    void fail(const Error &error);
    void updateEffectivePolicy();
    static QString allowanceKey(const PreparedCall &prepared);
    static CallDecision allowedForConversation();

    void emitBudget();

    // Compaction (controllercompaction.cpp).
    struct CompactionJob
    {
        CompactionPlan plan;
        bool thenSend = false; // a run waits for it: the request goes out after it
    };
    void rebuildRequestHistory();
    QStringList rulesInForce() const;
    CompactionPlan planCompactionFor(const QString &trigger, qint64 targetTokens) const;
    std::function<CompactionPlan()> compactionPlanner(const QString &trigger,
                                                      qint64 targetTokens) const;
    qint64 compactionTarget() const;
    bool compactsBeforeRequest();
    bool compactsAfterContextError(const Error &error);
    void startCompaction(CompactionPlan plan, bool thenSend);
    void continueCompaction();
    void onSummaryCompleted(const Completion &completion);
    void onSummaryFailed(const Error &error);
    void finishCompaction(Compaction compaction);
    void resetCompactionRun();

    // Cut-off answers and fallback models (controllerrecovery.cpp).
    Completion joinedWithPartialAnswer(const Completion &completion);
    bool continuesCutOffAnswer(const Message &message);
    QByteArray continuationBody() const;
    void answerCutOffCalls(const Message &message);
    Error cutOffError() const;
    bool fallsBackAfter(const Error &error);
    Error withModelsTried(const Error &error) const;
    void resetRecoveryRun();

    ChatClient *m_client; // a child: tests that play the client find it there
    ToolRegistry m_tools;
    AgentOptions m_options;
    History m_history;
    TokenLedger m_ledger; // of the history the next request sends
    QList<Compaction> m_compactions;
    bool m_confirmsCompaction = false;
    // requestHistory() under the latest compaction: built once from it, then appended to.
    std::optional<History> m_compactedHistory;
    TokenLedger m_fullTokens; // of the whole history, uncalibrated, for planning
    std::function<QString()> m_compactionOutputDirectory;
    std::optional<CompactionJob> m_compaction; // under way
    std::optional<CompactionPlan> m_proposedCompaction;
    quint64 m_compactionProposalId = 0;
    quint64 m_compactionSerial = 0;
    bool m_compactedForRequest = false; // the request about to go out was compacted, or declined
    bool m_contextRetried = false;      // this request went again after a context-length error
    qsizetype m_sentMessages = 0;       // messages the request in flight carries

    // The answer so far while its continuation is asked for (finish_reason "length"), the
    // continuations asked for this answer, and the usage of its parts (their completions summed).
    std::optional<Message> m_partialAnswer;
    int m_continuations = 0;
    std::optional<Usage> m_partialUsage;
    // The provider the run began with, once it went to a fallback (restored at the next run), and
    // how many of AgentOptions::fallbacks the run used.
    std::optional<ProviderSettings> m_primaryProvider;
    int m_fallbacksUsed = 0;

    State m_state = State::Idle;
    int m_turn = 0;
    ToolSnapshot m_snapshot;        // the tools of the request in flight and of its calls
    QList<ToolCall> m_pendingCalls; // calls of the current assistant message still to process
    QList<HistoryRepair> m_repairs; // since the last request sent
    std::optional<PreparedCall> m_awaitingApproval;
    PermissionCheck m_awaitingCheck; // why m_awaitingApproval is asked
    QString m_awaitingFingerprint;   // callFingerprint() of the call the user is shown
    quint64 m_approvalId = 0;
    bool m_reviewing = false; // the preview of m_awaitingApproval is being computed
    // The calls running now, in the order of the message: reads that need no approval run
    // together (at most maxParallelReads at once); anything else runs alone.
    QList<RunningCall> m_running;
    bool m_cancelRequested = false;
    std::shared_ptr<const PermissionPolicy> m_policy;          // the session's rules
    std::shared_ptr<const PermissionPolicy> m_effectivePolicy; // with this conversation's
    // What the user allowed for this conversation: exact calls (tool and arguments) and rules.
    // Calls the user allowed for the conversation (allowanceKey()), each with the state of the file
    // it writes as the user left it: its content hash after the allowed call wrote it (empty for a
    // call that writes no file). Someone else's change of that file ends the allowance.
    QHash<QString, QByteArray> m_conversationAllowances;
    QList<PermissionRule> m_conversationRules;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ApprovalRequest)
Q_DECLARE_METATYPE(AgentLoop::ApprovalAnswer)
Q_DECLARE_METATYPE(AgentLoop::CallRecord)
