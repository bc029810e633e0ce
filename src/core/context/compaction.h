#pragma once

// OWNED BY THE COMPACTION HELPER: the interface below is the contract the other parts build on
// (storage keeps Compaction::toJson() lines; the GUI shows CompactionPreview); its
// implementation is compaction.cpp.

#include "base/error.h"
#include "base/result.h"
#include "context/contextoptions.h"
#include "context/tokenledger.h"
#include "protocol/history.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <functional>

namespace AgentLoop {

// A tool output replaced in the request by a short stub; the whole output stays on disk.
struct OutputStub
{
    qsizetype messageIndex = -1; // in the full history
    QString toolCallId;
    qsizetype originalChars = 0;
    QString savedPath; // where the whole output is
    QString content;   // the stub as the request carries it
    friend bool operator==(const OutputStub &, const OutputStub &) = default;
};

// One compaction, as the conversation file records it on its own line
// ({"agentloop":"compaction",...}). The full history is never changed: a compaction says how
// the request shows it. Each compaction is complete in itself (it repeats the stubs of the one
// before), so the latest one not undone decides the request.
struct Compaction
{
    QString id;
    QDateTime createdAt;
    QString trigger;             // "threshold", "manual" or "context-error"
    qsizetype messageCount = 0;  // the full history's size when made; later messages go verbatim
    qsizetype summarizedEnd = 0; // messages before it other than system and user ones: summary
    qsizetype summarizedMessages = 0;
    QString summary; // empty: stage 1 only
    QList<OutputStub> stubs;
    qint64 tokensBefore = 0;
    qint64 tokensAfter = 0;
    QString model; // that wrote the summary

    QJsonObject toJson() const; // the line, with "agentloop":"compaction"
    static Result<Compaction> fromJson(const QJsonObject &line);
    friend bool operator==(const Compaction &, const Compaction &) = default;
};

// What a compaction will do, for the user to confirm before it happens.
struct CompactionPreview
{
    qsizetype summarizedMessages = 0; // 0: no summary request
    qsizetype stubbedOutputs = 0;
    qint64 tokensBefore = 0;
    qint64 tokensAfter = 0; // estimated; a summary's own length is estimated too
    QString trigger;
};

// Where the whole of a stubbed tool output is kept.
struct OutputLocation
{
    QString path;        // empty: nowhere to keep it, so the output is not stubbed
    bool exists = false; // the tool wrote it already (a long command's spill file)
};

// What planning needs besides the history.
struct CompactionParameters
{
    ContextOptions options;
    qint64 targetTokens = 0;         // the request after it should be no longer (0: compact all)
    double calibration = 1.0;        // TokenLedger::calibration() of the conversation
    qint64 toolDefinitionTokens = 0; // calibrated, as every request carries them
    QString trigger;                 // "threshold", "manual" or "context-error"
    // The stub tells the model to read the file again with this tool; empty: with any means.
    QString readToolName;
    // Where the whole output of a tool message goes once it is stubbed.
    std::function<OutputLocation(const Message &toolMessage)> locateOutput;
};

// A whole tool output to write before the compaction takes effect.
struct OutputToSave
{
    QString path;
    QString content;
};

// A compaction decided, before its files are written and its summary is written by the model.
struct CompactionPlan
{
    Compaction compaction; // its summary is the previous one's until the summary request answers
    bool needsSummary = false;
    // The messages the summary request covers anew: [summaryFrom, compaction.summarizedEnd).
    qsizetype summaryFrom = 0;
    // Every long tool output of the messages the summary request covers, stubbed for it.
    QList<OutputStub> summaryStubs;
    QList<OutputToSave> outputsToSave;
    CompactionPreview preview;
    // Nothing would change: no new stub, no new summary.
    bool isEmpty() const { return !needsSummary && preview.stubbedOutputs == 0; }
};

// The summary's estimated length until the model writes it.
inline constexpr qint64 estimatedSummaryTokens = 1500;

// Decides a compaction of the full history (fullTokens: its uncalibrated ledger) that brings the
// next request under targetTokens (the controller's is options.compactTo of the window); previous: the compaction in force, whose
// stubs and summary the new one repeats. Stage 1 stubs long tool outputs before the recent
// exchanges, oldest first; stage 2, when that is not enough, summarises everything before them.
// If the recent exchanges alone are still too long, their outputs are stubbed too, oldest first,
// never the newest one.
// System and user messages always stay verbatim; an assistant message and its tool messages are
// never parted.
CompactionPlan planCompaction(const History &full,
                              const TokenLedger &fullTokens,
                              const Compaction *previous,
                              const CompactionParameters &parameters);

// The history the next request sends under compaction: the system and user messages before
// summarizedEnd, the summary as a user message framed as such (summaryMessageText), then every
// message from summarizedEnd on, stubbed outputs replaced by their stubs.
History compactedHistory(const History &full, const Compaction &compaction);

// The user message that carries a summary in the request. A user message, placed after the
// pinned user messages it follows: providers accept consecutive user messages, where an
// assistant message before the recent exchanges could put two assistant messages in a row.
QString summaryMessageText(const QString &summary);

// The request that asks the model for the summary (no tools): its own system prompt, then one
// user message with the permission rules in force (rulesInForce, one per line), the earlier
// summary and the messages newly covered, long tool outputs stubbed, cut to about budgetTokens.
History summaryRequestHistory(const History &full,
                              const CompactionPlan &plan,
                              const QStringList &rulesInForce,
                              qint64 budgetTokens);

// The compaction can apply to this history: its messages exist, its stubs replace tool messages
// of the same call, its summary ends at an exchange boundary.
Result<void> checkCompaction(const Compaction &compaction, const History &full);

// The provider refused the request as too long for the model: HTTP 400 with error.code
// context_length_exceeded, or the usual wordings ("maximum context length", "prompt is too long",
// "上下文长度", ...).
bool isContextLengthError(const Error &error);

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::Compaction)
Q_DECLARE_METATYPE(AgentLoop::CompactionPreview)
