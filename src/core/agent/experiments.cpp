#include "agent/experiments.h"

#include "provider/demoprovider.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct ExperimentText
{
    Q_DECLARE_TR_FUNCTIONS(Experiment)
};

// Two calls of harmless commands, and the result of the first only: the course's broken history.
History missingResultHistory(const QString &prompt)
{
    History history;
    history.append(Message::user(prompt));
    history.append(
            Message::assistant(std::nullopt,
                               {ToolCall{u"call_1"_s, u"shell"_s, uR"({"command":"echo one"})"_s},
                                ToolCall{u"call_2"_s, u"shell"_s, uR"({"command":"echo two"})"_s}}));
    history.append(Message::tool(u"call_1"_s, u"one"_s));
    return history;
}

Experiment make(Experiment::Id id, Experiment::Kind kind, DemoScript script)
{
    Experiment experiment;
    experiment.id = id;
    experiment.kind = kind;
    experiment.provider = demoProviderSettings(script);
    return experiment;
}

} // namespace

QList<Experiment> courseExperiments()
{
    QList<Experiment> all;

    Experiment maxTurns = make(Experiment::MaxTurns, Experiment::CourseExperiment, DemoScript::Tour);
    maxTurns.title = ExperimentText::tr("1 · A turn limit of one");
    maxTurns.lookAt = ExperimentText::tr(
            "Allow the command: it runs, but the loop has no second request left, so the run "
            "ends with “Agent exceeded maxTurns=1” instead of an answer.");
    maxTurns.prompt = ExperimentText::tr("Run a harmless command and tell me what it printed.");
    maxTurns.maxTurns = 1;
    maxTurns.expected = u"Agent exceeded maxTurns=1"_s;
    maxTurns.expectsFailure = true;
    all.append(maxTurns);

    Experiment missing = make(Experiment::MissingResult,
                              Experiment::CourseExperiment,
                              DemoScript::Tour);
    missing.title = ExperimentText::tr("2 · A missing tool result");
    missing.lookAt = ExperimentText::tr(
            "The history has two tool calls but one tool message, so the pairing check stops the "
            "run before anything is sent: the error names call_2 and the inspector's row says "
            "“not sent”. This conversation is not saved.");
    missing.prompt = ExperimentText::tr("Go on.");
    missing.seed = missingResultHistory(
            ExperimentText::tr("Run two commands: echo one, echo two."));
    missing.expected = u"missing tool results for ids: [\"call_2\"]"_s;
    missing.expectsFailure = true;
    all.append(missing);

    Experiment failing = make(Experiment::FailingCommand,
                              Experiment::CourseExperiment,
                              DemoScript::FailingCommand);
    failing.title = ExperimentText::tr("3 · A command that exits 1");
    failing.lookAt = ExperimentText::tr(
            "Allow the command: it exits with code 1, yet the loop goes on; the tool message in "
            "the history starts with shell_failed and the model answers after reading it.");
    failing.prompt = ExperimentText::tr("Run a command that fails, then tell me what happened.");
    failing.expected = u"shell_failed"_s;
    all.append(failing);

    Experiment plain = make(Experiment::PlainText, Experiment::SelfTest, DemoScript::PlainText);
    plain.title = ExperimentText::tr("Q1 · content “好的”, no tool calls");
    plain.question = ExperimentText::tr("The model returns content: \"好的\" and tool_calls: []. "
                                        "Should the loop go on or end?");
    plain.lookAt = ExperimentText::tr(
            "It ends after one request with “好的” as the answer: the loop stops because the "
            "model called no tool, not because it said it was done.");
    plain.prompt = ExperimentText::tr("Please get started.");
    plain.expected = u"好的"_s;
    all.append(plain);

    Experiment null = make(Experiment::NullContent, Experiment::SelfTest, DemoScript::NullContent);
    null.title = ExperimentText::tr("Q2 · content null, no tool calls");
    null.question = ExperimentText::tr(
            "The model returns content: null and tool_calls: []. What should the code do, and "
            "why can it not simply return?");
    null.lookAt = ExperimentText::tr(
            "The run fails with “The model returned neither text nor a tool call”: an empty "
            "answer is never taken for success, and the inspector shows the response it came "
            "in.");
    null.prompt = ExperimentText::tr("Please get started.");
    null.expected = u"The model returned neither text nor a tool call"_s;
    null.expectsFailure = true;
    all.append(null);

    Experiment three = make(Experiment::OneOfThree,
                            Experiment::SelfTest,
                            DemoScript::ThreeCallsOneFails);
    three.title = ExperimentText::tr("Q3 · three calls, one fails");
    three.question = ExperimentText::tr(
            "The model asks for three tools in one turn and one of them fails. How many tool "
            "messages go into the history?");
    three.lookAt = ExperimentText::tr(
            "Three: the next request in the inspector carries one tool message per call id, the "
            "failed read (file_not_found) included.");
    three.prompt = ExperimentText::tr("Look around the workspace.");
    three.expected = u"file_not_found"_s;
    all.append(three);

    Experiment snapshot = make(Experiment::Snapshot, Experiment::SelfTest, DemoScript::UnknownTool);
    snapshot.title = ExperimentText::tr("Q4 · what the snapshot protects");
    snapshot.question = ExperimentText::tr("What problem does snapshot() actually prevent?");
    snapshot.lookAt = ExperimentText::tr(
            "The model calls deploy, which the request's frozen tool list never offered: the call "
            "is looked up in that snapshot, answered unknown_tool and runs nothing, so a turn's "
            "calls are always judged against the tools the model was shown.");
    snapshot.prompt = ExperimentText::tr("Deploy the project.");
    snapshot.expected = u"unknown_tool"_s;
    all.append(snapshot);

    Experiment turns = make(Experiment::TurnCount, Experiment::SelfTest, DemoScript::ThreeReads);
    turns.title = ExperimentText::tr("Q5 · what maxTurns counts");
    turns.question = ExperimentText::tr(
            "Why does maxTurns=20 mean 20 model requests rather than 20 tool calls?");
    turns.lookAt = ExperimentText::tr(
            "With maxTurns = 2 the model makes three tool calls in its first request and still "
            "answers in its second: the inspector lists two requests, because a turn is one "
            "request, whatever number of calls it asks for.");
    turns.prompt = ExperimentText::tr("Look around the workspace.");
    turns.maxTurns = 2;
    turns.expected = u"I asked for 3 tool calls"_s;
    all.append(turns);

    return all;
}

Experiment courseExperiment(Experiment::Id id)
{
    const QList<Experiment> all = courseExperiments();
    for (const Experiment &experiment : all) {
        if (experiment.id == id)
            return experiment;
    }
    return all.first();
}

} // namespace AgentLoop
