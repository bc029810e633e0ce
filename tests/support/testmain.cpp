// main() of every test executable: runs the test its first argument names (see testmain.h).
#include "testmain.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {

std::map<std::string, AgentLoop::Testing::TestEntry> &registeredTests()
{
    static std::map<std::string, AgentLoop::Testing::TestEntry> tests;
    return tests;
}

std::string &testNameGiven()
{
    static std::string name;
    return name;
}

} // namespace

bool AgentLoop::Testing::registerTest(const char *sourceFile, TestEntry entry)
{
    // The file's name without its folder (either separator: __FILE__ as the compiler saw it)
    // and without ".cpp".
    std::string name = sourceFile;
    name.erase(0, name.find_last_of("/\\") + 1);
    name.erase(name.find_last_of('.'));
    const bool added = registeredTests().emplace(name, entry).second;
    if (!added) {
        std::fprintf(stderr, "Two tests are named %s in one executable\n", name.c_str());
        std::abort();
    }
    return true;
}

QString AgentLoop::Testing::runningTestName()
{
    return QString::fromStdString(testNameGiven());
}

int main(int argc, char *argv[])
{
    const auto &tests = registeredTests();
    const auto test = argc >= 2 ? tests.find(argv[1]) : tests.end();
    if (test == tests.end()) {
        std::fprintf(stderr, "usage: %s <test> [Qt Test options]\nits tests:", argv[0]);
        for (const auto &[name, entry] : tests)
            std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    }
    testNameGiven() = test->first;
    // The test sees the program's path, then its own arguments, as its main() would.
    argv[1] = argv[0];
    return test->second(argc - 1, argv + 1);
}
