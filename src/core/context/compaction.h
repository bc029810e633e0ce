#pragma once

// OWNED BY THE COMPACTION HELPER: the interface below is the contract the other parts build on
// (storage keeps Compaction::toJson() lines; the GUI shows CompactionPreview); its
// implementation is compaction.cpp.

#include "base/result.h"
#include "context/contextoptions.h"
#include "protocol/history.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

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

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::Compaction)
Q_DECLARE_METATYPE(AgentLoop::CompactionPreview)
