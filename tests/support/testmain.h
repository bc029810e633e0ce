#pragma once

// The tests of one folder (tests/core, tests/cli, tests/gui) are one executable: each test file
// registers its entry point under its own name, tst_<unit>, and CTest runs
// `<executable> tst_<unit> [Qt Test options]`. One executable per folder instead of one per unit
// links and runs moc a few times instead of a hundred; each test still runs in its own process.
// Helpers of a test file live in its anonymous namespace: the folder's tests share one program.

#include <QString>
#include <QTest>

namespace AgentLoop::Testing {

// How long a test waits for what must happen before it calls it a hang. Only a guard, so long:
// under Wine on a loaded machine a server's start or a streamed answer took over 20 s.
inline constexpr int hangGuardMs = 60000;

using TestEntry = int (*)(int argc, char *argv[]);

// Adds the test of sourceFile (its name without folder and ".cpp") to this executable's tests.
// Returns true, so that a constant at namespace scope can hold the registration.
bool registerTest(const char *sourceFile, TestEntry entry);

// The running test's name, tst_<unit>: the first argument of its executable, for a test that
// starts itself again in a child process.
QString runningTestName();

// What QTEST_MAIN and QTEST_GUILESS_MAIN do, without defining main().
template<typename Application, typename TestObject>
int runTestObject(int argc, char *argv[])
{
    Application application(argc, argv);
    application.setAttribute(Qt::AA_Use96Dpi, true);
    TestObject test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace AgentLoop::Testing

// In place of QTEST_MAIN(TestObject): the test runs in an Application (QCoreApplication or
// QApplication).
#define AGENTLOOP_TEST_MAIN(Application, TestObject) \
    AGENTLOOP_TEST_ENTRY(&AgentLoop::Testing::runTestObject<Application, TestObject>)

// In place of a main() of the test's own: the entry (a function like main()) is called as main()
// would be, with the test's name taken out of the arguments.
#define AGENTLOOP_TEST_ENTRY(...) \
    namespace { \
    [[maybe_unused]] const bool testRegistered = AgentLoop::Testing::registerTest(__FILE__, \
                                                                                  __VA_ARGS__); \
    }
