#pragma once

#include "testshell.h"
#include "tools/commandrunner.h"

#include <QList>
#include <QString>

#include <memory>

namespace AgentLoop {

// A CommandRunner that runs nothing: each start() is answered with the next scripted outcome, a
// turn of the event loop later, as a real run would be, and every request is recorded for the
// test to assert on. With nothing scripted, a command exits 0 and prints nothing.
//
// Copies share one script and one record, so a test can hand a copy to the code under test and
// still script and inspect it through its own.
class FakeCommandRunner final : public CommandRunner
{
public:
    explicit FakeCommandRunner(ShellInfo shell = posixShell());

    ShellInfo shell() const override;
    CommandRun *start(const CommandRequest &request, QObject *parent) override;

    // The next command finishes with exactly this outcome.
    void enqueue(const CommandOutcome &outcome);
    // The next command exits with exitCode after printing these; the request's outputLimit cuts
    // them as ProcessCommandRunner would (head and tail halves, total counted).
    void enqueue(int exitCode, const QString &standardOutput, const QString &standardError = {});
    // The next command never finishes on its own: cancel() ends it with status Cancelled, and a
    // positive request timeout with TimedOut. What it printed so far is in the outcome.
    void enqueueNeverFinishing(const QString &standardOutput = {});

    // Every request start() was given, oldest first.
    QList<CommandRequest> requests() const;
    // Scripted outcomes not used yet.
    qsizetype pendingOutcomes() const;

private:
    struct Script;
    std::shared_ptr<Script> m_script;
};

} // namespace AgentLoop
