#include "files/unifieddiff.h"

#include <dtl/dtl.hpp>

#include <QStringView>

#include <algorithm>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// dtl's O(NP) edit script costs up to (M + N) * min(M, N) steps on two middles with nothing in
// common: past this many lines on each side multiplied, the middle is shown removed, then added.
constexpr qsizetype editScriptLimit = qsizetype(5000) * 5000;

// Lines [oldStart, oldStart + oldCount) of before replaced by [newStart, newStart + newCount) of
// after; between two blocks the lines are the same in both.
struct Block
{
    qsizetype oldStart = 0;
    qsizetype oldCount = 0;
    qsizetype newStart = 0;
    qsizetype newCount = 0;

    qsizetype oldEnd() const { return oldStart + oldCount; }
    qsizetype newEnd() const { return newStart + newCount; }
};

std::vector<Block> changedBlocks(const QStringList &before, const QStringList &after)
{
    // The common head and tail first: a one-line edit of a long file leaves dtl one line.
    const qsizetype shorter = std::min(before.size(), after.size());
    qsizetype head = 0;
    while (head < shorter && before.at(head) == after.at(head))
        ++head;
    qsizetype tail = 0;
    while (tail < shorter - head
           && before.at(before.size() - 1 - tail) == after.at(after.size() - 1 - tail))
        ++tail;
    const qsizetype oldMiddle = before.size() - head - tail;
    const qsizetype newMiddle = after.size() - head - tail;
    if (oldMiddle == 0 && newMiddle == 0)
        return {};
    if (oldMiddle == 0 || newMiddle == 0 || oldMiddle * newMiddle > editScriptLimit)
        return {{head, oldMiddle, head, newMiddle}};

    using Lines = std::vector<QStringView>;
    Lines oldLines(before.begin() + head, before.end() - tail);
    Lines newLines(after.begin() + head, after.end() - tail);
    dtl::Diff<QStringView, Lines> diff(oldLines, newLines);
    diff.compose();

    std::vector<Block> blocks;
    std::optional<Block> open;
    qsizetype oldLine = head;
    qsizetype newLine = head;
    for (const auto &element : diff.getSes().getSequence()) {
        const dtl::edit_t type = element.second.type;
        if (type == dtl::SES_COMMON) {
            if (open)
                blocks.push_back(*open);
            open.reset();
            ++oldLine;
            ++newLine;
            continue;
        }
        if (!open)
            open = Block{oldLine, 0, newLine, 0};
        if (type == dtl::SES_DELETE) {
            ++open->oldCount;
            ++oldLine;
        } else {
            ++open->newCount;
            ++newLine;
        }
    }
    if (open)
        blocks.push_back(*open);
    return blocks;
}

// A hunk header's range as GNU diff writes it: "start,count", "start" for one line, and for no
// line the line before it ("0,0" at the top).
QString range(qsizetype start, qsizetype count)
{
    if (count == 1)
        return QString::number(start + 1);
    if (count == 0)
        return u"%1,0"_s.arg(start);
    return u"%1,%2"_s.arg(start + 1).arg(count);
}

} // namespace

UnifiedDiff unifiedDiff(const QStringList &before,
                        const QStringList &after,
                        int context,
                        int maxLines)
{
    UnifiedDiff diff;
    const std::vector<Block> blocks = changedBlocks(before, after);
    for (const Block &block : blocks) {
        diff.removedLines += int(block.oldCount);
        diff.addedLines += int(block.newCount);
    }

    const qsizetype around = std::max(context, 0);
    qsizetype lines = 0;
    // False once the text is full.
    const auto append = [&](QStringView prefix, QStringView line) {
        if (lines >= maxLines) {
            diff.truncated = true;
            return false;
        }
        ++lines;
        diff.text.append(prefix);
        diff.text.append(line);
        diff.text.append(u'\n');
        return true;
    };
    const auto emitLines =
            [&](QChar prefix, const QStringList &from, qsizetype start, qsizetype end) {
                for (qsizetype i = start; i < end; ++i) {
                    if (!append(QStringView(&prefix, 1), from.at(i)))
                        return false;
                }
                return true;
            };

    // A hunk holds the blocks that fewer than 2 * context + 1 same lines part, as in GNU diff.
    for (size_t first = 0; first < blocks.size();) {
        size_t last = first;
        while (last + 1 < blocks.size()
               && blocks[last + 1].oldStart - blocks[last].oldEnd() <= 2 * around)
            ++last;
        const Block &begin = blocks[first];
        const Block &end = blocks[last];
        const qsizetype leading = std::min(around, begin.oldStart);
        const qsizetype trailing = std::min(around, before.size() - end.oldEnd());
        const qsizetype oldFrom = begin.oldStart - leading;
        const qsizetype newFrom = begin.newStart - leading;
        const QString header = u"@@ -%1 +%2 @@"_s.arg(range(oldFrom,
                                                            end.oldEnd() + trailing - oldFrom),
                                                      range(newFrom,
                                                            end.newEnd() + trailing - newFrom));
        if (!append(header, {}) || !emitLines(u' ', before, oldFrom, begin.oldStart))
            return diff;
        for (size_t i = first; i <= last; ++i) {
            const Block &block = blocks[i];
            const qsizetype sameUntil = i < last ? blocks[i + 1].oldStart
                                                 : block.oldEnd() + trailing;
            if (!emitLines(u'-', before, block.oldStart, block.oldEnd())
                || !emitLines(u'+', after, block.newStart, block.newEnd())
                || !emitLines(u' ', before, block.oldEnd(), sameUntil))
                return diff;
        }
        first = last + 1;
    }
    return diff;
}

QStringList splitLines(QStringView text)
{
    QStringList lines;
    qsizetype start = 0;
    while (start < text.size()) {
        const qsizetype newline = text.indexOf(u'\n', start);
        if (newline < 0) {
            lines.append(text.sliced(start).toString());
            break;
        }
        const qsizetype end = newline > start && text.at(newline - 1) == u'\r' ? newline - 1
                                                                               : newline;
        lines.append(text.sliced(start, end - start).toString());
        start = newline + 1;
    }
    return lines;
}

} // namespace AgentLoop
