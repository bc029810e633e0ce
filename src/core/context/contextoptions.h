#pragma once

#include <QtGlobal>

namespace AgentLoop {

// How a session keeps its requests inside the model's window (course chapters 8 and 11).
struct ContextOptions
{
    // The user's window for the model; 0: the provider's metadata, the table, or 128 000
    // (context/contextwindow.h).
    qint64 contextWindow = 0;
    // Compact when the next request would pass this share of the window, down to compactTo.
    bool autoCompact = true;
    double compactAt = 0.8;
    double compactTo = 0.6;
    // Stage 1: tool outputs longer than this are replaced in the request by a stub.
    int stubAboveChars = 2000;
    // Stage 2 keeps this many of the latest exchanges verbatim.
    int keepRecentExchanges = 4;
    // AGENTS.md at the workspace root joins the system prompt.
    bool projectInstructions = true;
    // finish_reason "length" on a text answer: ask the model to go on, this many times.
    int maxContinuations = 3;
    friend bool operator==(const ContextOptions &, const ContextOptions &) = default;
};

} // namespace AgentLoop
