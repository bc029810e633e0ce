#include "context/compaction.h"

#include "context/tokenestimate.h"

#include <QCoreApplication>
#include <QDir>
#include <QHash>
#include <QJsonArray>
#include <QSet>
#include <QUuid>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct CompactionText
{
    Q_DECLARE_TR_FUNCTIONS(Compaction)
};

constexpr qsizetype maxStubLineChars = 200;
// A message of the summary request's transcript keeps its head and tail beyond this.
constexpr qsizetype maxTranscriptMessageChars = 4000;

bool isPinned(const Message &message)
{
    return message.role() == Role::System || message.role() == Role::User;
}

// An exchange is a user message with the answer to it, or an assistant message with its tool
// messages: only tool messages and an assistant message right after a user message never start
// one.
bool startsExchange(const QList<Message> &messages, qsizetype index)
{
    const Role role = messages.at(index).role();
    if (role == Role::User)
        return true;
    return role == Role::Assistant && (index == 0 || messages.at(index - 1).role() != Role::User);
}

// The first message of the last `keep` exchanges (the size when keep is 0).
qsizetype recentStart(const QList<Message> &messages, int keep)
{
    qsizetype start = messages.size();
    int found = 0;
    for (qsizetype i = messages.size() - 1; i >= 0 && found < keep; --i) {
        if (startsExchange(messages, i)) {
            start = i;
            ++found;
        }
    }
    return start;
}

QString cutLine(QString line)
{
    if (line.size() > maxStubLineChars)
        line = line.left(maxStubLineChars) + u'…';
    return line;
}

// The first and the last line with text; a long output is not split whole for them.
QString firstLine(const QString &text)
{
    qsizetype start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf(u'\n', start);
        if (end < 0)
            end = text.size();
        const QStringView line = QStringView(text).mid(start, end - start).trimmed();
        if (!line.isEmpty())
            return cutLine(line.toString());
        start = end + 1;
    }
    return {};
}

QString lastLine(const QString &text)
{
    qsizetype end = text.size();
    while (end > 0) {
        const qsizetype start = text.lastIndexOf(u'\n', end - 1) + 1;
        const QStringView line = QStringView(text).mid(start, end - start).trimmed();
        if (!line.isEmpty())
            return cutLine(line.toString());
        end = start - 1;
    }
    return {};
}

// What the request carries instead of a long output (English: the model reads it).
QString stubText(const Message &tool, const QString &path, const QString &readToolName)
{
    const QString content = tool.content();
    const QString note = u"[output of %1: %2 characters, saved to %3; read it again%4 if you need "
                         u"it]"_s.arg(tool.toolCallId(),
                                      QString::number(content.size()),
                                      QDir::toNativeSeparators(path),
                                      readToolName.isEmpty() ? QString()
                                                             : u" with "_s + readToolName);
    QStringList parts;
    const QString first = firstLine(content);
    const QString last = lastLine(content);
    if (!first.isEmpty())
        parts << first;
    parts << note;
    if (!last.isEmpty() && last != first)
        parts << last;
    return parts.join(u'\n');
}

qint64 stubTokens(const OutputStub &stub)
{
    return estimateMessageTokens(Message::tool(stub.toolCallId, stub.content));
}

qint64 summaryTokens(const QString &summary)
{
    return summary.isEmpty() ? 0
                             : estimateMessageTokens(Message::user(summaryMessageText(summary)));
}

// Head and tail of a long text, for the summary request.
QString shortened(const QString &text)
{
    if (text.size() <= maxTranscriptMessageChars)
        return text;
    const qsizetype head = maxTranscriptMessageChars * 2 / 3;
    const qsizetype tail = maxTranscriptMessageChars - head;
    return text.left(head) + u"\n[… %1 characters left out …]\n"_s.arg(text.size() - head - tail)
           + text.right(tail);
}

// One message of the conversation as the summary request shows it.
QString transcriptEntry(const Message &message, const OutputStub *stub)
{
    switch (message.role()) {
    case Role::System:
        return {};
    case Role::User:
        return u"[user]\n"_s + shortened(message.content());
    case Role::Assistant: {
        QString entry = u"[assistant]"_s;
        if (message.hasText())
            entry += u'\n' + shortened(message.content());
        for (const ToolCall &call : message.toolCalls())
            entry += u"\n[tool call %1: %2] %3"_s.arg(call.id, call.name, shortened(call.arguments));
        return entry;
    }
    case Role::Tool:
        return u"[tool result %1]\n"_s.arg(message.toolCallId())
               + (stub ? stub->content : shortened(message.content()));
    }
    return {};
}

const char summarySystemPrompt[]
        = "You compact the conversation of a coding agent so that it fits the model's context "
          "window. Write the summary that replaces the earlier turns shown to you: the agent "
          "continues from your summary alone, together with the user's messages, which it keeps "
          "word for word. Use these headings: Task (what the user asked for, and every later "
          "instruction); Decisions (what was decided, and why); Files touched (the paths read, "
          "created or changed, and how); Saved outputs (the files named in the tool results "
          "that are worth reading again, with their paths); What remains to do; Permissions in "
          "force (the rules and approvals listed to you, exactly as listed: approvals the user "
          "gave for this conversation still apply, and nothing else may be assumed approved). "
          "Be concise and factual, invent nothing, keep exact names, paths, commands and error "
          "messages, and write in the language of the user's request. Answer with the summary "
          "only.";

} // namespace

QJsonObject Compaction::toJson() const
{
    QJsonArray stubArray;
    for (const OutputStub &stub : stubs) {
        stubArray.append(QJsonObject{{u"index"_s, qint64(stub.messageIndex)},
                                     {u"toolCallId"_s, stub.toolCallId},
                                     {u"originalChars"_s, qint64(stub.originalChars)},
                                     {u"savedPath"_s, stub.savedPath},
                                     {u"content"_s, stub.content}});
    }
    return QJsonObject{{u"agentloop"_s, u"compaction"_s},
                       {u"id"_s, id},
                       {u"created"_s, createdAt.toUTC().toString(Qt::ISODateWithMs)},
                       {u"trigger"_s, trigger},
                       {u"messageCount"_s, qint64(messageCount)},
                       {u"summarizedEnd"_s, qint64(summarizedEnd)},
                       {u"summarizedMessages"_s, qint64(summarizedMessages)},
                       {u"summary"_s, summary},
                       {u"stubs"_s, stubArray},
                       {u"tokensBefore"_s, tokensBefore},
                       {u"tokensAfter"_s, tokensAfter},
                       {u"model"_s, model}};
}

Result<Compaction> Compaction::fromJson(const QJsonObject &line)
{
    const auto malformed = [](const QString &what) {
        return Error{Error::Io,
                     CompactionText::tr("A compaction record is malformed: %1").arg(what)};
    };
    if (line.value(u"agentloop"_s).toString() != u"compaction")
        return malformed(CompactionText::tr("it is not a compaction"));
    const auto count = [&](const QString &key) {
        return line.value(key).toInteger(-1);
    };
    Compaction compaction;
    compaction.id = line.value(u"id"_s).toString();
    compaction.createdAt = QDateTime::fromString(line.value(u"created"_s).toString(),
                                                 Qt::ISODateWithMs);
    compaction.trigger = line.value(u"trigger"_s).toString();
    compaction.messageCount = count(u"messageCount"_s);
    compaction.summarizedEnd = count(u"summarizedEnd"_s);
    compaction.summarizedMessages = count(u"summarizedMessages"_s);
    compaction.summary = line.value(u"summary"_s).toString();
    compaction.tokensBefore = line.value(u"tokensBefore"_s).toInteger();
    compaction.tokensAfter = line.value(u"tokensAfter"_s).toInteger();
    compaction.model = line.value(u"model"_s).toString();
    if (compaction.id.isEmpty())
        return malformed(CompactionText::tr("it has no id"));
    if (compaction.messageCount < 0 || compaction.summarizedEnd < 0
        || compaction.summarizedMessages < 0 || compaction.summarizedEnd > compaction.messageCount)
        return malformed(CompactionText::tr("its message counts are invalid"));
    const QJsonArray stubArray = line.value(u"stubs"_s).toArray();
    for (const QJsonValue &value : stubArray) {
        const QJsonObject object = value.toObject();
        OutputStub stub;
        stub.messageIndex = object.value(u"index"_s).toInteger(-1);
        stub.toolCallId = object.value(u"toolCallId"_s).toString();
        stub.originalChars = object.value(u"originalChars"_s).toInteger();
        stub.savedPath = object.value(u"savedPath"_s).toString();
        stub.content = object.value(u"content"_s).toString();
        if (stub.messageIndex < compaction.summarizedEnd
            || stub.messageIndex >= compaction.messageCount || stub.toolCallId.isEmpty()
            || stub.content.isEmpty())
            return malformed(CompactionText::tr("a stub is invalid"));
        compaction.stubs.append(stub);
    }
    return compaction;
}

CompactionPlan planCompaction(const History &full,
                              const TokenLedger &fullTokens,
                              const Compaction *previous,
                              const CompactionParameters &parameters)
{
    const QList<Message> &messages = full.messages();
    const qsizetype size = messages.size();
    Q_ASSERT(fullTokens.messageCount() == size);
    const ContextOptions &options = parameters.options;
    const auto tokensOf = [&](qsizetype index) {
        return fullTokens.tokensOf(index, index + 1);
    };

    CompactionPlan plan;
    Compaction &compaction = plan.compaction;
    if (previous)
        compaction = *previous;
    compaction.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    compaction.createdAt = QDateTime::currentDateTimeUtc();
    compaction.trigger = parameters.trigger;
    compaction.messageCount = size;
    QSet<qsizetype> stubbed;
    for (const OutputStub &stub : std::as_const(compaction.stubs))
        stubbed.insert(stub.messageIndex);

    // Raw (uncalibrated) tokens of the request the compaction makes, from the ledger's sums.
    qint64 summaryEstimate = summaryTokens(compaction.summary);
    const auto requestTokens = [&] {
        qint64 total = fullTokens.tokensOf(0, size) + summaryEstimate;
        for (qsizetype i = 0; i < compaction.summarizedEnd; ++i) {
            if (!isPinned(messages.at(i)))
                total -= tokensOf(i);
        }
        for (const OutputStub &stub : std::as_const(compaction.stubs))
            total += stubTokens(stub) - tokensOf(stub.messageIndex);
        return total;
    };
    const auto calibrated = [&](qint64 raw) {
        return qint64(std::llround(double(raw) * parameters.calibration))
               + parameters.toolDefinitionTokens;
    };
    const qint64 target = parameters.targetTokens;
    qint64 total = requestTokens();
    const qint64 before = calibrated(total);
    const auto over = [&] {
        return calibrated(total) > target;
    };

    const auto makeStub = [&](qsizetype index) -> std::optional<OutputStub> {
        const Message &message = messages.at(index);
        const OutputLocation location = parameters.locateOutput ? parameters.locateOutput(message)
                                                                : OutputLocation{};
        if (location.path.isEmpty())
            return std::nullopt;
        if (!location.exists)
            plan.outputsToSave.append(OutputToSave{location.path, message.content()});
        return OutputStub{index,
                          message.toolCallId(),
                          message.content().size(),
                          location.path,
                          stubText(message, location.path, parameters.readToolName)};
    };
    const auto isLongOutput = [&](qsizetype index) {
        const Message &message = messages.at(index);
        return message.role() == Role::Tool && message.content().size() > options.stubAboveChars;
    };
    const auto stubOldestFirst = [&](qsizetype from, qsizetype to, qsizetype spared) {
        for (qsizetype i = from; i < to && over(); ++i) {
            if (i == spared || !isLongOutput(i) || stubbed.contains(i))
                continue;
            if (const std::optional<OutputStub> stub = makeStub(i)) {
                compaction.stubs.append(*stub);
                stubbed.insert(i);
                total += stubTokens(*stub) - tokensOf(i);
            }
        }
    };

    // Stage 1: long outputs before the recent exchanges.
    const qsizetype recent = std::max(recentStart(messages, options.keepRecentExchanges),
                                      compaction.summarizedEnd);
    stubOldestFirst(compaction.summarizedEnd, recent, -1);

    // Stage 2: a summary of everything before the recent exchanges.
    qsizetype newlyCovered = 0;
    for (qsizetype i = compaction.summarizedEnd; i < recent; ++i)
        newlyCovered += isPinned(messages.at(i)) ? 0 : 1;
    if (over() && newlyCovered > 0) {
        plan.needsSummary = true;
        plan.summaryFrom = compaction.summarizedEnd;
        QHash<qsizetype, const OutputStub *> existing;
        for (const OutputStub &stub : std::as_const(compaction.stubs))
            existing.insert(stub.messageIndex, &stub);
        for (qsizetype i = plan.summaryFrom; i < recent; ++i) {
            if (!isLongOutput(i))
                continue;
            if (const OutputStub *stub = existing.value(i))
                plan.summaryStubs.append(*stub);
            else if (const std::optional<OutputStub> made = makeStub(i))
                plan.summaryStubs.append(*made);
        }
        compaction.stubs.removeIf(
                [recent](const OutputStub &stub) { return stub.messageIndex < recent; });
        compaction.summarizedEnd = recent;
        compaction.summarizedMessages += newlyCovered;
        summaryEstimate = estimatedSummaryTokens;
        total = requestTokens();
    }
    // The recent exchanges alone are too long: their outputs too, never the newest one.
    qsizetype newest = -1;
    for (qsizetype i = size - 1; i >= 0 && newest < 0; --i)
        newest = messages.at(i).role() == Role::Tool ? i : -1;
    stubOldestFirst(recent, size, newest);

    std::sort(compaction.stubs.begin(),
              compaction.stubs.end(),
              [](const OutputStub &a, const OutputStub &b) {
                  return a.messageIndex < b.messageIndex;
              });
    compaction.tokensBefore = before;
    compaction.tokensAfter = calibrated(total);
    plan.preview.trigger = parameters.trigger;
    plan.preview.summarizedMessages = plan.needsSummary ? newlyCovered : 0;
    plan.preview.stubbedOutputs = std::count_if(compaction.stubs.cbegin(),
                                                compaction.stubs.cend(),
                                                [previous](const OutputStub &stub) {
                                                    return !previous
                                                           || !previous->stubs.contains(stub);
                                                });
    plan.preview.tokensBefore = compaction.tokensBefore;
    plan.preview.tokensAfter = compaction.tokensAfter;
    return plan;
}

QString summaryMessageText(const QString &summary)
{
    return u"[Summary of earlier turns, written by compaction]\nThe assistant's messages and the "
           u"tool results before this point were replaced by this summary so that the "
           u"conversation fits the model's context window; the user's messages above are word "
           u"for word, and whole tool outputs are in the files named here.\n\n"_s
           + summary;
}

History compactedHistory(const History &full, const Compaction &compaction)
{
    const QList<Message> &messages = full.messages();
    History history;
    const qsizetype end = std::min(compaction.summarizedEnd, messages.size());
    for (qsizetype i = 0; i < end; ++i) {
        if (isPinned(messages.at(i)))
            history.appendFrom(full, i);
    }
    if (!compaction.summary.isEmpty())
        history.append(Message::user(summaryMessageText(compaction.summary)));
    auto stub = compaction.stubs.cbegin();
    for (qsizetype i = end; i < messages.size(); ++i) {
        while (stub != compaction.stubs.cend() && stub->messageIndex < i)
            ++stub;
        if (stub != compaction.stubs.cend() && stub->messageIndex == i)
            history.append(Message::tool(stub->toolCallId, stub->content));
        else
            history.appendFrom(full, i);
    }
    return history;
}

History summaryRequestHistory(const History &full,
                              const CompactionPlan &plan,
                              const QStringList &rulesInForce,
                              qint64 budgetTokens)
{
    const QList<Message> &messages = full.messages();
    QString head = u"Permission rules and approvals in force in this conversation:\n"_s;
    head += rulesInForce.isEmpty() ? u"- none besides the defaults (reading is allowed, anything "
                                     u"else is asked)\n"_s
                                   : u"- "_s + rulesInForce.join(u"\n- "_s) + u'\n';
    if (!plan.compaction.summary.isEmpty())
        head += u"\nThe summary of the turns before those below:\n"_s + plan.compaction.summary
                + u'\n';
    head += u"\nThe turns to summarise:\n"_s;

    // Newest first while the budget lasts: the oldest turns are the ones an earlier summary (or
    // the user's own messages) most likely covers.
    qint64 budget = budgetTokens - estimateTextTokens(head);
    QStringList entries;
    qsizetype leftOut = 0;
    auto stub = plan.summaryStubs.crbegin();
    for (qsizetype i = plan.compaction.summarizedEnd - 1; i >= plan.summaryFrom; --i) {
        while (stub != plan.summaryStubs.crend() && stub->messageIndex > i)
            ++stub;
        const bool stubbed = stub != plan.summaryStubs.crend() && stub->messageIndex == i;
        const QString entry = transcriptEntry(messages.at(i), stubbed ? &*stub : nullptr);
        if (entry.isEmpty())
            continue;
        const qint64 tokens = estimateTextTokens(entry);
        if (tokens > budget) {
            leftOut = i - plan.summaryFrom + 1;
            break;
        }
        budget -= tokens;
        entries.append(entry);
    }
    std::reverse(entries.begin(), entries.end());
    if (leftOut > 0)
        entries.prepend(
                u"[%1 earlier messages left out: too long for one summary request]"_s.arg(leftOut));

    History history;
    history.append(Message::system(QString::fromLatin1(summarySystemPrompt)));
    history.append(Message::user(head + entries.join(u"\n\n"_s)));
    return history;
}

Result<void> checkCompaction(const Compaction &compaction, const History &full)
{
    const auto invalid = [&](const QString &why) {
        return Error{Error::Io,
                     CompactionText::tr("The compaction %1 does not fit the conversation: %2")
                             .arg(compaction.id, why)};
    };
    if (compaction.messageCount > full.size())
        return invalid(CompactionText::tr("it covers messages the conversation does not have"));
    if (compaction.summarizedEnd > 0
        && (compaction.summary.isEmpty()
            || (compaction.summarizedEnd < full.size()
                && full.at(compaction.summarizedEnd).role() == Role::Tool)))
        return invalid(CompactionText::tr("its summary does not end between exchanges"));
    for (const OutputStub &stub : compaction.stubs) {
        if (stub.messageIndex < compaction.summarizedEnd || stub.messageIndex >= full.size()
            || full.at(stub.messageIndex).role() != Role::Tool
            || full.at(stub.messageIndex).toolCallId() != stub.toolCallId)
            return invalid(CompactionText::tr("a stub replaces no tool result of its call"));
    }
    return {};
}

bool isContextLengthError(const Error &error)
{
    if (error.kind != Error::Http && error.kind != Error::Protocol)
        return false;
    if (error.httpStatus >= 500)
        return false;
    if (error.providerCode == u"context_length_exceeded")
        return true;
    static const QStringList wordings{u"maximum context length"_s,
                                      u"context_length_exceeded"_s,
                                      u"too many tokens"_s,
                                      u"prompt is too long"_s,
                                      u"context length"_s,
                                      u"上下文长度"_s};
    const QString text = error.providerMessage.isEmpty() ? error.message : error.providerMessage;
    return std::any_of(wordings.cbegin(), wordings.cend(), [&](const QString &wording) {
        return text.contains(wording, Qt::CaseInsensitive);
    });
}

} // namespace AgentLoop
