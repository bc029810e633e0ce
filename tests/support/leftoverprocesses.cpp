// Linked into every test executable (see agentloop_add_test): a test that starts processes must
// not leave any running, or CTest waits for whatever still holds the test's output until its
// timeout. What is left when main() returns is killed and named here.
#include "processreaper.h"

#include <cstdio>
#include <cstdlib>

namespace {

struct LeftoverCheck
{
    AgentLoop::ProcessReaper reaper;

    ~LeftoverCheck()
    {
        const QStringList left = reaper.reapLeftovers();
        if (left.isEmpty())
            return;
        const QByteArray names = left.join(QStringLiteral("; ")).toLocal8Bit();
        std::fprintf(stderr,
                     "Processes still running when the test ended, killed: %s\n",
                     names.constData());
        std::fflush(stderr);
        for (const QString &line : left) {
            if (line.endsWith(QStringLiteral("not killed")))
                std::_Exit(EXIT_FAILURE); // the test's own result no longer says everything
        }
    }
};

LeftoverCheck &leftoverCheck()
{
    static LeftoverCheck check;
    return check;
}

// Made before main(), so that every process the test starts is tracked.
[[maybe_unused]] const bool installed = (leftoverCheck(), true);

} // namespace

AgentLoop::ProcessReaper &AgentLoop::testProcessReaper()
{
    return leftoverCheck().reaper;
}
