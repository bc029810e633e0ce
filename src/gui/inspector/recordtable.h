#pragma once

class QTableView;

namespace Gui {

// The inspector's tables of records (requests, audit entries): whole rows selected one at a time,
// read-only, one line per row, no grid, no row numbers.
void setUpRecordTable(QTableView *table);

// Makes row the current, selected and visible row of table; nothing for a row it does not have.
void selectTableRow(QTableView *table, int row);

} // namespace Gui
