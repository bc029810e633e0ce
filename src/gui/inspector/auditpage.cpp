#include "inspector/auditpage.h"

#include "base/displaytext.h"
#include "inspector/auditmodel.h"
#include "inspector/jsonformat.h"
#include "inspector/jsonhighlighter.h"
#include "inspector/recordtable.h"

#include <QClipboard>
#include <QEvent>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

QByteArray entryJson(const QJsonObject &entry)
{
    return QJsonDocument(entry).toJson(QJsonDocument::Compact);
}

} // namespace

AuditPage::AuditPage(QWidget *parent)
    : QWidget(parent)
    , m_table(new QTableView(this))
    , m_entry(new QPlainTextEdit(this))
    , m_copy(new QPushButton(tr("&Copy entry"), this))
{
    setObjectName(u"auditPage"_s);
    m_table->setObjectName(u"auditTable"_s);
    m_table->setAccessibleName(tr("Audit trail"));
    setUpRecordTable(m_table);

    m_entry->setObjectName(u"auditEntryView"_s);
    m_entry->setAccessibleName(tr("Audit entry"));
    m_entry->setReadOnly(true);
    m_entry->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_entry->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_entry->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_entry->setTabChangesFocus(true);
    m_entry->setPlaceholderText(tr("Every call of this conversation is listed above once it has "
                                   "finished: select one to see its whole audit line."));
    m_highlighter = new JsonHighlighter(m_entry->document());

    m_copy->setObjectName(u"copyAuditEntryButton"_s);
    m_copy->setToolTip(tr("Copy the selected call's audit line as JSON"));
    connect(m_copy, &QPushButton::clicked, this, [this] {
        if (m_model && m_shownRow >= 0)
            QGuiApplication::clipboard()->setText(
                    QString::fromUtf8(entryJson(m_model->entry(m_shownRow))));
    });

    auto *details = new QWidget(this);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_entry, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_copy);
    buttons->addStretch();
    detailsLayout->addLayout(buttons);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_table);
    splitter->addWidget(details);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    showRow(-1);
}

void AuditPage::setModel(AuditModel *model)
{
    m_model = model;
    m_table->setModel(model);
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    // The selected entry's JSON shows the arguments whole.
    m_table->setColumnHidden(AuditModel::WhatRanColumn, true);
    connect(m_table->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            [this](const QModelIndex &current) { showRow(current.row()); });
    connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first) {
        followNewest(first);
    });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { showRow(-1); });
}

void AuditPage::followNewest(int first)
{
    // The newest call is followed unless the user is reading an older one.
    if (m_shownRow < 0 || m_shownRow == first - 1)
        selectRow(first);
}

void AuditPage::selectRow(int row)
{
    if (m_model)
        selectTableRow(m_table, row);
}

QString AuditPage::entryText() const
{
    return m_entry->toPlainText();
}

void AuditPage::showRow(int row)
{
    const bool valid = m_model && row >= 0 && row < m_model->rowCount();
    m_shownRow = valid ? row : -1;
    m_copy->setEnabled(valid);
    if (m_highlighter->document())
        m_highlighter->setDocument(nullptr);
    if (!valid) {
        m_entry->clear();
        return;
    }
    // The arguments and the reason are the model's and the user's: escaped, never interpreted.
    m_entry->setPlainText(AgentLoop::displayed(prettyJson(entryJson(m_model->entry(row)))));
    m_highlighter->setDocument(m_entry->document());
}

void AuditPage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        m_highlighter->setPalette(palette());
}

} // namespace Gui
