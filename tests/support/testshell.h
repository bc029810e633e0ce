#pragma once

#include "tools/commandrunner.h"

#include <QString>

#include <optional>

namespace AgentLoop {

// The shells the tests run commands in.

ShellInfo posixShell(); // /bin/sh
ShellInfo cmdShell();   // %ComSpec%, else cmd.exe

// The shell the real-process tests run: cmd.exe on Windows (always there; under Wine the only
// one), /bin/sh elsewhere. PowerShell runs only in rows of its own, where detectShell() finds it.
ShellInfo testShell();

// The shell a data row is written for: "sh" and "cmd" are testShell(); "PowerShell" is what
// detectShell() finds, if it finds PowerShell.
std::optional<ShellInfo> shellForRow(const QString &name);

// Why a PowerShell row is skipped.
QString powerShellMissing();

} // namespace AgentLoop
