#pragma once

#include <climits>
#include <functional>
#include <vector>

namespace Gui {

// The heights of a list's rows, stacked top to bottom: where each row starts, which row is at a
// given height. Made for a list that grows at its end: adding a row, or a new height for the
// last one, costs the same at 10 000 rows as at 10; only the rows whose height is unknown are
// measured, and only the positions from the first change on are added up again (integers, no
// layout).
class RowStack final
{
public:
    int count() const { return int(m_heights.size()); }
    // count rows, none measured.
    void reset(int count);
    // count unmeasured rows before row (row == count(): at the end).
    void insert(int row, int count);
    void remove(int row, int count);
    // The row's height must be measured again (its content changed).
    void forget(int row);
    // Every height must be measured again (the width or the font changed).
    void forgetAll();

    bool isUpToDate() const { return m_unknownLast < 0 && m_positionsFrom >= count(); }
    // Measures the rows whose height is unknown with heightOf(row) and places the rows from the
    // first change on.
    void update(const std::function<int(int row)> &heightOf);
    // The first row drawn elsewhere or differently since the last call, or -1: from there down,
    // the view must be painted again.
    int takeChangedFrom();

    // Valid once updated.
    int top(int row) const { return m_tops[size_t(row)]; }
    int height(int row) const { return m_heights[size_t(row)]; }
    int bottom(int row) const { return top(row) + height(row); }
    int totalHeight() const { return m_tops.empty() ? 0 : m_tops.back(); }
    // The row that covers y, or -1 when no row does.
    int rowAt(int y) const;

private:
    // Rows first to last (inclusive) are unmeasured; the rows from first on move.
    void markUnknown(int first, int last);
    void markMoved(int first);

    std::vector<int> m_heights{}; // -1: to be measured
    std::vector<int> m_tops{0};   // count() + 1 entries: the last one is the total height
    // Every unmeasured row is in [m_unknownFirst, m_unknownLast] (none when m_unknownLast < 0).
    int m_unknownFirst = INT_MAX;
    int m_unknownLast = -1;
    int m_positionsFrom = INT_MAX; // the tops from this row on are out of date
    int m_changedFrom = INT_MAX;
};

} // namespace Gui
