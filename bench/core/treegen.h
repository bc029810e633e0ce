#pragma once

#include "base/result.h"

#include <QString>

namespace AgentLoop::Bench {

// What case 7 searches for: a literal-ish regular expression that PCRE2 (the grep tool), POSIX
// ERE (grep -E) and Rust's regex (ripgrep) read alike. Near misses (`frobnicate_x(`,
// `frobnicate_12 (`) are in the tree too, so a literal prefilter alone would find too many.
inline constexpr char grepPattern[] = "frobnicate_[0-9]+\\(";

// What generateTree() wrote.
struct TreeSummary
{
    int files = 0;                // every file: sources, the ignored folder's and the binary ones
    qint64 bytes = 0;             // of all of them
    int matchingLines = 0;        // outside the ignored folder: what every subject must find
    int matchingFiles = 0;        // outside the ignored folder
    int ignoredMatchingLines = 0; // in the ignored folder (found only if .gitignore is not read)
    int gb18030Files = 0;         // sources stored as GB18030 (the others are UTF-8)
    int binaryFiles = 0;
};

// The folder, relative to the tree's root, that its .gitignore ignores.
inline constexpr char ignoredFolder[] = "build";

// A deterministic source tree under root (which must exist and be empty): about `bytes` bytes in
// `files` files - C++-like sources of 2-18 KB in src/mNN/sN/ (UTF-8 with some non-ASCII comments,
// one in 97 in GB18030), a .gitignore ignoring build/ and a small build/ folder of sources with
// matches, a few binary files (NUL bytes, no matches) in assets/, and an empty .git/ so that
// ripgrep reads the .gitignore. The same arguments always write the same bytes.
Result<TreeSummary> generateTree(const QString &root, int files, qint64 bytes);

// One text file of exactly `bytes` bytes of the same C++-like lines (UTF-8, LF, some non-ASCII),
// written in pieces so that generating it does not show in the process's peak memory.
Result<void> generateTextFile(const QString &path, qint64 bytes);

} // namespace AgentLoop::Bench
