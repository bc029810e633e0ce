#include "conversations/conversationpanel.h"

#include "conversations/conversationlistmodel.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

constexpr int margin = 6;

// Two lines per conversation: the title, and below it the date in a quieter colour; the open
// conversation is marked with a bar in the highlight colour.
class ConversationDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override
    {
        const QFontMetrics metrics(option.font);
        return {option.rect.width() > 0 ? option.rect.width() : 200,
                2 * metrics.height() + 2 * margin + 2};
    }

    void paint(QPainter *painter,
               const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QWidget *widget = opt.widget;
        QStyle *style = widget ? widget->style() : QApplication::style();
        // The background only: selection and hover as the style draws them.
        opt.text.clear();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

        const bool current = index.data(ConversationListModel::CurrentRole).toBool();
        const bool selected = opt.state & QStyle::State_Selected;
        const QPalette::ColorGroup group = opt.state & QStyle::State_Active ? QPalette::Active
                                                                            : QPalette::Inactive;
        painter->save();
        if (current) {
            painter->fillRect(QRect(opt.rect.left(), opt.rect.top() + 2, 3, opt.rect.height() - 4),
                              opt.palette.color(group, QPalette::Highlight));
        }
        const QRect text = opt.rect.adjusted(margin + 4, margin, -margin, -margin);
        QFont titleFont = opt.font;
        titleFont.setBold(current);
        const QFontMetrics titleMetrics(titleFont);
        painter->setFont(titleFont);
        painter->setPen(
                opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
        const QString title = index.data(ConversationListModel::TitleRole).toString();
        painter->drawText(QRect(text.left(), text.top(), text.width(), titleMetrics.height()),
                          Qt::AlignLeft | Qt::AlignVCenter,
                          titleMetrics.elidedText(title, Qt::ElideRight, text.width()));

        QColor dateColour = opt.palette.color(group,
                                              selected ? QPalette::HighlightedText
                                                       : QPalette::PlaceholderText);
        if (selected)
            dateColour.setAlphaF(0.75f);
        painter->setFont(opt.font);
        painter->setPen(dateColour);
        const QString date = ConversationListModel::displayDate(
                index.data(ConversationListModel::UpdatedRole).toDateTime(),
                QDateTime::currentDateTime());
        const QFontMetrics metrics(opt.font);
        painter->drawText(QRect(text.left(),
                                text.top() + titleMetrics.height() + 2,
                                text.width(),
                                metrics.height()),
                          Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(date, Qt::ElideRight, text.width()));
        painter->restore();
    }

    void updateEditorGeometry(QWidget *editor,
                              const QStyleOptionViewItem &option,
                              const QModelIndex &) const override
    {
        // The title line only, where the title is.
        const QFontMetrics metrics(option.font);
        const int height = qMax(editor->sizeHint().height(), metrics.height() + 6);
        editor->setGeometry(option.rect.left() + margin,
                            option.rect.top() + margin / 2,
                            option.rect.width() - 2 * margin,
                            height);
    }
};

} // namespace

ConversationPanel::ConversationPanel(ConversationListModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new QSortFilterProxyModel(this))
    , m_search(new QLineEdit(this))
    , m_list(new QListView(this))
    , m_open(new QAction(this))
    , m_rename(new QAction(this))
    , m_delete(new QAction(this))
{
    setObjectName(u"conversationPanel"_s);
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterRole(ConversationListModel::TitleRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortRole(ConversationListModel::UpdatedRole);
    m_proxy->setDynamicSortFilter(true);
    m_proxy->sort(0, Qt::DescendingOrder);

    m_search->setObjectName(u"conversationSearch"_s);
    m_search->setClearButtonEnabled(true);
    connect(m_search,
            &QLineEdit::textChanged,
            m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);

    m_list->setObjectName(u"conversationList"_s);
    m_list->setModel(m_proxy);
    m_list->setItemDelegate(new ConversationDelegate(m_list));
    m_list->setEditTriggers(QAbstractItemView::EditKeyPressed);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setUniformItemSizes(true);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setTextElideMode(Qt::ElideRight);
    m_list->installEventFilter(this);
    connect(m_list, &QListView::activated, this, &ConversationPanel::activate);

    m_open->setShortcutContext(Qt::WidgetShortcut);
    m_rename->setShortcut(QKeySequence(Qt::Key_F2));
    m_rename->setShortcutContext(Qt::WidgetShortcut);
    m_delete->setShortcut(QKeySequence::Delete);
    m_delete->setShortcutContext(Qt::WidgetShortcut);
    m_list->addAction(m_rename);
    m_list->addAction(m_delete);
    connect(m_open, &QAction::triggered, this, [this] { activate(m_list->currentIndex()); });
    connect(m_rename, &QAction::triggered, this, [this] {
        if (m_list->currentIndex().isValid())
            m_list->edit(m_list->currentIndex());
    });
    connect(m_delete, &QAction::triggered, this, [this] {
        const QModelIndex index = m_list->currentIndex();
        if (index.isValid())
            emit deleteRequested(index.data(ConversationListModel::IdRole).toString(),
                                 index.data(ConversationListModel::TitleRole).toString());
    });
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_list, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_list->indexAt(pos);
        if (!index.isValid())
            return;
        m_list->setCurrentIndex(index);
        auto *menu = new QMenu(this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addAction(m_open);
        menu->setDefaultAction(m_open);
        menu->addAction(m_rename);
        menu->addSeparator();
        menu->addAction(m_delete);
        menu->popup(m_list->viewport()->mapToGlobal(pos));
    });
    connect(m_list->selectionModel(),
            &QItemSelectionModel::currentChanged,
            this,
            &ConversationPanel::updateActions);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &ConversationPanel::updateActions);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &ConversationPanel::updateActions);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    layout->addWidget(m_search);
    layout->addWidget(m_list, 1);
    setFocusProxy(m_list);

    retranslate();
    updateActions();
}

void ConversationPanel::retranslate()
{
    m_search->setPlaceholderText(tr("Search conversations"));
    m_search->setAccessibleName(tr("Search conversations"));
    m_list->setAccessibleName(tr("Conversations"));
    m_open->setText(tr("&Open"));
    m_rename->setText(tr("&Rename"));
    m_delete->setText(tr("&Delete…"));
}

void ConversationPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
}

bool ConversationPanel::eventFilter(QObject *watched, QEvent *event)
{
    // Del asks to delete the current conversation (while a title is edited, the editor has the key).
    if (watched == m_list && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->matches(QKeySequence::Delete)
        && m_delete->isEnabled()) {
        m_delete->trigger();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void ConversationPanel::setOpenEnabled(bool enabled)
{
    m_openEnabled = enabled;
    updateActions();
}

QString ConversationPanel::currentId() const
{
    return m_list->currentIndex().data(ConversationListModel::IdRole).toString();
}

void ConversationPanel::selectConversation(const QString &id)
{
    const int row = m_model->rowOf(id);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row));
    if (index.isValid())
        m_list->setCurrentIndex(index);
}

void ConversationPanel::updateActions()
{
    const bool has = m_list->currentIndex().isValid();
    m_open->setEnabled(has && m_openEnabled);
    m_rename->setEnabled(has);
    m_delete->setEnabled(has);
}

void ConversationPanel::activate(const QModelIndex &index)
{
    if (!index.isValid() || !m_openEnabled)
        return;
    emit openRequested(index.data(ConversationListModel::IdRole).toString());
}

} // namespace Gui
