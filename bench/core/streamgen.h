#pragma once

#include <QByteArray>

namespace AgentLoop::Bench {

// What a client should have assembled from generateStream()'s bytes.
struct StreamSummary
{
    qsizetype contentChars = 0;   // UTF-16 code units of the assistant's text
    int toolCalls = 0;            // tool calls of the message
    qsizetype argumentsChars = 0; // UTF-16 code units of all their arguments together
    int events = 0;               // data: events, [DONE] included
};

// A deterministic Chat Completions SSE stream of at least minBytes: a role chunk, text deltas
// (with escapes and non-ASCII text), several tool calls whose arguments arrive in fragments,
// a finish chunk, a usage chunk and [DONE] - the shapes the OpenAI API sends.
QByteArray generateStream(qsizetype minBytes, StreamSummary *summary = nullptr);

} // namespace AgentLoop::Bench
