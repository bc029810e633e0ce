#pragma once

#include "base/result.h"
#include "protocol/completion.h"
#include "protocol/streamassembler.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

namespace AgentLoop {

// Everything a StreamAssembler shows its users, as text to compare exactly (UTF-16 unit for
// unit, lone surrogates included), for the tests and the fuzzer that check that the scanner reads
// every chunk as QJsonDocument does. Takes the pending text and reasoning deltas.
QStringList observableState(StreamAssembler &assembler);
QStringList observableState(const Result<Completion> &completion);

// Feeds the same payloads, one by one, to an assembler with the scanner and to one with
// QJsonDocument only, and returns the first difference in what they show ("" when none) and, in
// *jsonDocumentChunks, how many payloads the scanner left to QJsonDocument.
QString compareChunkReadings(const QList<QByteArray> &payloads,
                             qsizetype *jsonDocumentChunks = nullptr);

} // namespace AgentLoop
