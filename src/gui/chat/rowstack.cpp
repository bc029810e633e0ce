#include "chat/rowstack.h"

#include <algorithm>

namespace Gui {

void RowStack::reset(int count)
{
    m_heights.assign(size_t(std::max(0, count)), -1);
    m_tops.assign(m_heights.size() + 1, 0);
    m_unknownFirst = INT_MAX;
    m_unknownLast = -1;
    m_positionsFrom = INT_MAX;
    m_changedFrom = INT_MAX;
    markUnknown(0, this->count() - 1);
}

void RowStack::insert(int row, int count)
{
    if (count <= 0 || row < 0 || row > this->count())
        return;
    m_heights.insert(m_heights.begin() + row, size_t(count), -1);
    // tops[row] stays: the rows above did not move.
    m_tops.insert(m_tops.begin() + row + 1, size_t(count), 0);
    if (m_unknownLast >= 0) {
        if (m_unknownFirst >= row)
            m_unknownFirst += count;
        if (m_unknownLast >= row)
            m_unknownLast += count;
    }
    markUnknown(row, row + count - 1);
}

void RowStack::remove(int row, int count)
{
    count = std::min(count, this->count() - row);
    if (count <= 0 || row < 0)
        return;
    m_heights.erase(m_heights.begin() + row, m_heights.begin() + row + count);
    m_tops.erase(m_tops.begin() + row + 1, m_tops.begin() + row + 1 + count);
    if (m_unknownLast >= 0) {
        const int end = row + count;
        m_unknownFirst = m_unknownFirst >= end ? m_unknownFirst - count
                                               : std::min(m_unknownFirst, row);
        m_unknownLast = m_unknownLast >= end ? m_unknownLast - count
                                             : std::min(m_unknownLast, row - 1);
        if (m_unknownFirst > m_unknownLast) {
            m_unknownFirst = INT_MAX;
            m_unknownLast = -1;
        }
    }
    markMoved(row);
}

void RowStack::forget(int row)
{
    if (row < 0 || row >= count())
        return;
    m_heights[size_t(row)] = -1;
    markUnknown(row, row);
}

void RowStack::forgetAll()
{
    std::fill(m_heights.begin(), m_heights.end(), -1);
    markUnknown(0, count() - 1);
}

void RowStack::markUnknown(int first, int last)
{
    if (first > last)
        return;
    m_unknownFirst = std::min(m_unknownFirst, first);
    m_unknownLast = std::max(m_unknownLast, last);
    markMoved(first);
}

void RowStack::markMoved(int first)
{
    m_positionsFrom = std::min(m_positionsFrom, first);
    m_changedFrom = std::min(m_changedFrom, first);
}

void RowStack::update(const std::function<int(int row)> &heightOf)
{
    const int last = std::min(m_unknownLast, count() - 1);
    for (int row = m_unknownFirst; row <= last; ++row) {
        int &height = m_heights[size_t(row)];
        if (height < 0)
            height = std::max(0, heightOf(row));
    }
    m_unknownFirst = INT_MAX;
    m_unknownLast = -1;
    for (int row = m_positionsFrom; row < count(); ++row)
        m_tops[size_t(row) + 1] = m_tops[size_t(row)] + m_heights[size_t(row)];
    m_positionsFrom = INT_MAX;
}

int RowStack::takeChangedFrom()
{
    const int row = m_changedFrom;
    m_changedFrom = INT_MAX;
    return row < count() ? row : -1;
}

int RowStack::rowAt(int y) const
{
    if (y < 0 || y >= totalHeight())
        return -1;
    // The last row that starts at or above y: rows of no height are passed over.
    return int(std::upper_bound(m_tops.begin(), m_tops.end(), y) - m_tops.begin()) - 1;
}

} // namespace Gui
