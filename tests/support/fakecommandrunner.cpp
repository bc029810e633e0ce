#include "fakecommandrunner.h"

#include <QQueue>
#include <QTimer>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct Step
{
    enum Kind { Finishes, Prints, NeverFinishes };

    Kind kind = Finishes;
    CommandOutcome outcome; // Finishes
    int exitCode = 0;       // Prints
    QString standardOutput; // Prints, NeverFinishes
    QString standardError;  // Prints
};

CapturedText capture(const QString &text, qsizetype outputLimit)
{
    const qsizetype headLimit = std::max<qsizetype>(outputLimit, 0) / 2;
    const qsizetype tailLimit = std::max<qsizetype>(outputLimit, 0) - headLimit;
    CapturedText captured;
    captured.totalChars = text.size();
    if (text.size() <= headLimit + tailLimit) {
        captured.head = text;
    } else {
        captured.head = text.first(headLimit);
        captured.tail = text.last(tailLimit);
    }
    return captured;
}

class FakeCommandRun final : public CommandRun
{
public:
    FakeCommandRun(const Step &step, const CommandRequest &request, QObject *parent)
        : CommandRun(parent)
        , m_step(step)
        , m_request(request)
    {
        if (m_step.kind != Step::NeverFinishes) {
            QTimer::singleShot(0, this, [this] {
                if (!m_completed) {
                    m_completed = true;
                    emit finished(scriptedOutcome());
                }
            });
        } else if (m_request.timeout.count() > 0) {
            m_timeout.setSingleShot(true);
            m_timeout.setInterval(m_request.timeout);
            connect(&m_timeout, &QTimer::timeout, this, [this] {
                stop(CommandOutcome::TimedOut,
                     u"The command ran longer than %1 ms; it and every process it started were "
                     "killed."_s.arg(m_request.timeout.count()));
            });
            m_timeout.start();
        }
    }

    void cancel() override
    {
        stop(CommandOutcome::Cancelled,
             u"The command was cancelled; it and every process it started were killed."_s);
    }

    qint64 processId() const override { return 0; }

private:
    CommandOutcome scriptedOutcome() const
    {
        if (m_step.kind == Step::Finishes)
            return m_step.outcome;
        CommandOutcome outcome;
        outcome.status = CommandOutcome::Exited;
        outcome.exitCode = m_step.exitCode;
        outcome.standardOutput = capture(m_step.standardOutput, m_request.outputLimit);
        outcome.standardError = capture(m_step.standardError, m_request.outputLimit);
        return outcome;
    }

    void stop(CommandOutcome::Status status, const QString &why)
    {
        if (m_completed)
            return;
        m_completed = true;
        m_timeout.stop();
        CommandOutcome outcome;
        outcome.status = status;
        outcome.standardOutput = capture(m_step.standardOutput, m_request.outputLimit);
        outcome.standardError = capture(m_step.standardError, m_request.outputLimit);
        outcome.errorString = why;
        // Never from inside cancel(), as the contract says.
        QTimer::singleShot(0, this, [this, outcome] { emit finished(outcome); });
    }

    const Step m_step;
    const CommandRequest m_request;
    QTimer m_timeout;
    bool m_completed = false;
};

} // namespace

struct FakeCommandRunner::Script
{
    ShellInfo shell;
    QQueue<Step> steps;
    QList<CommandRequest> requests;
};

FakeCommandRunner::FakeCommandRunner(ShellInfo shell)
    : m_script(std::make_shared<Script>())
{
    m_script->shell = std::move(shell);
}

ShellInfo FakeCommandRunner::shell() const
{
    return m_script->shell;
}

CommandRun *FakeCommandRunner::start(const CommandRequest &request, QObject *parent)
{
    m_script->requests.append(request);
    const Step step = m_script->steps.isEmpty() ? Step{Step::Prints, {}, 0, {}, {}}
                                                : m_script->steps.dequeue();
    return new FakeCommandRun(step, request, parent);
}

void FakeCommandRunner::enqueue(const CommandOutcome &outcome)
{
    m_script->steps.enqueue(Step{Step::Finishes, outcome, 0, {}, {}});
}

void FakeCommandRunner::enqueue(int exitCode,
                                const QString &standardOutput,
                                const QString &standardError)
{
    m_script->steps.enqueue(Step{Step::Prints, {}, exitCode, standardOutput, standardError});
}

void FakeCommandRunner::enqueueNeverFinishing(const QString &standardOutput)
{
    m_script->steps.enqueue(Step{Step::NeverFinishes, {}, 0, standardOutput, {}});
}

QList<CommandRequest> FakeCommandRunner::requests() const
{
    return m_script->requests;
}

qsizetype FakeCommandRunner::pendingOutcomes() const
{
    return m_script->steps.size();
}

} // namespace AgentLoop
