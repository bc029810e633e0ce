#pragma once

#include <QString>
#include <QStringList>

namespace AgentLoop {

// A line diff between two versions of a file in the unified format (`@@ -a,b +c,d @@`, lines
// starting with ' ', '-', '+'), computed with dtl. Line endings are not part of the lines, so a
// change of CRLF to LF alone shows no line; the caller says so.
struct UnifiedDiff
{
    QString text; // the hunks, without the ---/+++ header; empty when nothing changed
    int addedLines = 0;
    int removedLines = 0;
    bool truncated = false; // text stops after maxLines lines of diff (the counts are whole)
};

// context: unchanged lines around each change. Large inputs stay fast: the common head and tail
// are cut off first, and a middle too big for an edit script (its two sides' line counts
// multiplied above 25 000 000, both above 5 000 say) is shown as removed, then added.
UnifiedDiff unifiedDiff(const QStringList &before,
                        const QStringList &after,
                        int context = 3,
                        int maxLines = 2000);

// The lines of a text, without their line breaks ("\r\n" or "\n"); a final line break does not
// start another line.
QStringList splitLines(QStringView text);

} // namespace AgentLoop
