#pragma once

namespace AgentLoop {

// Takes the variable `name` out of this process's own environment, so that nothing can read it
// back from there: a command the model runs does not inherit it anyway, but could read its
// parent's /proc/<pid>/environ (Linux) or environment block (Windows). Afterwards qgetenv(name)
// is empty, and so is what processes started later inherit.
//
// Call it once the value has been copied out (a QString made from qgetenv() or
// QProcessEnvironment is a copy), and read the variable from the environment nowhere after it.
//
// Linux: /proc/<pid>/environ shows the bytes the kernel wrote at exec, whatever setenv() and
// unsetenv() do to `environ` later. The entries for name found there ("NAME=value") are
// overwritten with '_' (the '=' stays, so the block still parses), then unsetenv() drops them.
// Windows: the value is overwritten in the process environment block, then removed from it
// (SetEnvironmentVariableW) and from the C runtime's copies (_wputenv_s, qunsetenv).
// Elsewhere: unsetenv() only.
void removeFromOwnEnvironment(const char *name);

} // namespace AgentLoop
