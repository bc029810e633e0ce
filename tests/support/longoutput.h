#pragma once

#include <QString>

namespace AgentLoop {

// A shell command, run in workspace, that prints exactly what `seq 1 lines` prints ("1\n2\n…",
// 588 895 bytes for 100 000 lines). POSIX shells run seq itself; on Windows, where cmd.exe has no
// quick way to count (a for /l loop of 100 000 lines takes minutes under Wine), the same bytes
// are written to a file in workspace first and the command types it.
QString countingCommand(const QString &workspace, int lines);

} // namespace AgentLoop
