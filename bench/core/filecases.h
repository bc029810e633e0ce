#pragma once

#include <QString>

namespace AgentLoop::Bench {

struct FileCaseOptions
{
    int runs = 5;
    int files = 20000;          // case 7: files in the tree
    qint64 bytes = 200'000'000; // case 7: bytes in the tree; case 8: size of the file
    QString keepDir;            // generate into (and reuse from) this folder, not a temporary one
};

// Case 7: the grep tool over a generated tree, next to GNU grep and ripgrep on the same tree; the
// longest event-loop stall on this thread while the tool runs. Fails when the subjects do not
// find the same matching lines.
int grepCase(const FileCaseOptions &options);

// Case 8: read_file with its default arguments on one large generated file (its first 2 000
// lines), and the peak memory it takes.
int readFileCase(const FileCaseOptions &options);

} // namespace AgentLoop::Bench
