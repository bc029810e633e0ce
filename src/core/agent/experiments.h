#pragma once

#include "protocol/history.h"
#include "protocol/providersettings.h"

#include <QList>
#include <QString>

namespace AgentLoop {

// The course's three experiments and the cases that answer its five self-test questions, each
// run on the built-in scripted model (provider/demoprovider.h) in a fresh conversation.
struct Experiment
{
    enum Kind { CourseExperiment, SelfTest };
    enum Id {
        MaxTurns,       // maxTurns = 1, the model asks for a tool at once
        MissingResult,  // two tool calls, one tool message: nothing is sent
        FailingCommand, // a command exits 1: the loop goes on
        PlainText,      // content "好的", no tool calls: the loop ends
        NullContent,    // content null, no tool calls: an error, not an answer
        OneOfThree,     // three calls, one fails: three tool messages
        Snapshot,       // a call of a tool the request did not offer
        TurnCount,      // maxTurns counts requests: three calls in one turn fit maxTurns = 2
    };
    Id id = MaxTurns;
    Kind kind = CourseExperiment;
    QString title;    // translated, short
    QString question; // a self-test's question, as the course asks it (translated); else empty
    QString lookAt;   // one sentence: what to look at in the chat and the inspector (translated)
    QString prompt;   // the prompt the run starts with (translated: the model answers in kind)
    int maxTurns = 20;
    ProviderSettings provider; // the scripted model that plays it
    History seed;              // the conversation before the prompt (MissingResult's broken one)
    // What the run must end with: the error's message when it fails (expectsFailure), else a text
    // the history holds (a tool message's error code, or the final answer).
    QString expected;
    bool expectsFailure = false;
};

// In the course's order: the three experiments, then the five self-test cases.
QList<Experiment> courseExperiments();
Experiment courseExperiment(Experiment::Id id);

} // namespace AgentLoop
