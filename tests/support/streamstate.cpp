#include "streamstate.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

QString flag(bool value)
{
    return value ? u"yes"_s : u"no"_s;
}

QString fieldName(ReasoningField field)
{
    return field == ReasoningField::ReasoningContent ? u"reasoning_content"_s : u"reasoning"_s;
}

void appendToolCalls(QStringList &state, const QList<ToolCall> &calls)
{
    for (const ToolCall &call : calls)
        state << u"call id="_s + call.id << u"call name="_s + call.name
              << u"call arguments="_s + call.arguments
              << u"call extra="_s + QString::fromUtf8(QJsonDocument(call.extra).toJson());
}

QString firstDifference(const QStringList &scanned, const QStringList &parsed, const QString &where)
{
    if (scanned == parsed)
        return {};
    for (qsizetype i = 0; i < std::max(scanned.size(), parsed.size()); ++i) {
        if (scanned.value(i) != parsed.value(i))
            return u"%1: scanner \"%2\", QJsonDocument \"%3\""_s.arg(where,
                                                                     scanned.value(i),
                                                                     parsed.value(i));
    }
    return where;
}

} // namespace

QStringList observableState(StreamAssembler &assembler)
{
    QStringList state{u"text delta="_s + assembler.takeTextDelta(),
                      u"reasoning delta="_s + assembler.takeReasoningDelta(),
                      u"content="_s + assembler.content(),
                      u"refusal="_s + assembler.refusal(),
                      u"reasoning="_s + assembler.reasoningContent(),
                      u"reasoning field="_s + fieldName(assembler.reasoningField()),
                      u"finish reason="_s + assembler.finishReason(),
                      u"done="_s + flag(assembler.isDone()),
                      u"error="_s + flag(assembler.hasError()),
                      u"output="_s + flag(assembler.hasOutput())};
    appendToolCalls(state, assembler.toolCalls());
    return state;
}

QStringList observableState(const Result<Completion> &completion)
{
    if (!completion)
        return {u"error="_s + completion.error().message, u"hint="_s + completion.error().hint};
    const Message &message = completion->message;
    QStringList state{u"has content="_s + flag(message.hasContent()),
                      u"content="_s + message.content(),
                      u"reasoning="_s + message.reasoningContent(),
                      u"reasoning sent back="_s + flag(message.sendsReasoningBack()),
                      u"finish reason="_s + completion->finishReason,
                      u"provider finish reason="_s + completion->providerFinishReason,
                      u"id="_s + completion->id,
                      u"model="_s + completion->model,
                      u"usage="_s + flag(completion->usage.has_value())};
    if (const std::optional<Usage> &usage = completion->usage) {
        state << u"tokens=%1 %2 %3"_s.arg(usage->promptTokens)
                         .arg(usage->completionTokens)
                         .arg(usage->totalTokens);
    }
    appendToolCalls(state, message.toolCalls());
    return state;
}

QString compareChunkReadings(const QList<QByteArray> &payloads, qsizetype *jsonDocumentChunks)
{
    StreamAssembler scanned(StreamAssembler::ChunkReading::Scanner);
    StreamAssembler parsed(StreamAssembler::ChunkReading::JsonDocumentOnly);
    for (qsizetype i = 0; i < payloads.size(); ++i) {
        const Result<void> scannedAdd = scanned.addPayload(payloads[i]);
        const Result<void> parsedAdd = parsed.addPayload(payloads[i]);
        QStringList scannedState = observableState(scanned);
        QStringList parsedState = observableState(parsed);
        scannedState << (scannedAdd ? QString() : scannedAdd.error().message);
        parsedState << (parsedAdd ? QString() : parsedAdd.error().message);
        const QString where = u"after payload %1"_s.arg(i);
        if (const QString difference = firstDifference(scannedState, parsedState, where);
            !difference.isEmpty())
            return difference;
    }
    if (jsonDocumentChunks)
        *jsonDocumentChunks = scanned.jsonDocumentChunks();
    return firstDifference(observableState(scanned.result()),
                           observableState(parsed.result()),
                           u"result"_s);
}

} // namespace AgentLoop
