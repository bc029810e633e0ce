#include "inspector/recordtable.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QTableView>

namespace Gui {

void setUpRecordTable(QTableView *table)
{
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->setShowGrid(false);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->horizontalHeader()->setHighlightSections(false);
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

void selectTableRow(QTableView *table, int row)
{
    QAbstractItemModel *model = table->model();
    if (!model || row < 0 || row >= model->rowCount())
        return;
    const QModelIndex index = model->index(row, 0);
    table->selectionModel()->setCurrentIndex(index,
                                             QItemSelectionModel::ClearAndSelect
                                                     | QItemSelectionModel::Rows);
    table->scrollTo(index);
}

} // namespace Gui
