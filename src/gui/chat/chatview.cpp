#include "chat/chatview.h"

#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>

#include <utility>

using namespace Qt::StringLiterals;

namespace Gui {

ChatView::ChatView(QWidget *parent)
    : QListView(parent)
    , m_delegate(new ChatDelegate(this))
{
    setObjectName(u"chatView"_s);
    setAccessibleName(tr("Conversation"));
    setItemDelegate(m_delegate);
    setViewMode(ListMode);
    setFlow(TopToBottom);
    setWrapping(false);
    setSelectionMode(ExtendedSelection);
    setSelectionBehavior(SelectRows);
    setVerticalScrollMode(ScrollPerPixel);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Always on: a scroll bar that comes and goes changes the width, which changes every
    // item's height, which can make the scroll bar go again.
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setEditTriggers(DoubleClicked | EditKeyPressed);
    setMouseTracking(true);
    setFrameShape(QFrame::NoFrame);
    verticalScrollBar()->setSingleStep(QFontMetrics(font()).height() * 2);

    // While the width keeps changing (a splitter being dragged), only the visible items are laid
    // out again, as they are painted; the heights of all of them once it has settled.
    m_widthSettled.setSingleShot(true);
    m_widthSettled.setInterval(120);
    connect(&m_widthSettled, &QTimer::timeout, this, [this] {
        relayout();
        if (std::exchange(m_followAfterResize, false))
            QTimer::singleShot(0, this, [this] { scrollToBottom(); });
    });
}

void ChatView::setModel(QAbstractItemModel *model)
{
    for (const QMetaObject::Connection &connection : std::as_const(m_modelConnections))
        disconnect(connection);
    m_modelConnections.clear();
    if (model) {
        // Connected before QAbstractItemView's own handlers: when they ask where a row is after
        // rows went or moved, the view's rows are in their new places already.
        m_modelConnections << connect(model,
                                      &QAbstractItemModel::rowsRemoved,
                                      this,
                                      &ChatView::forgetRemovedRows)
                           << connect(model,
                                      &QAbstractItemModel::layoutChanged,
                                      this,
                                      &ChatView::forgetAllRows)
                           << connect(model,
                                      &QAbstractItemModel::rowsMoved,
                                      this,
                                      &ChatView::forgetAllRows);
    }
    QListView::setModel(model);
}

void ChatView::setChatModel(ChatModel *model)
{
    m_model = model;
    setModel(model);
}

void ChatView::setDemoMode(bool demo)
{
    setPlaceholderText(
            demo ? tr("This is the offline demo: a built-in scripted model answers, nothing goes "
                      "over the network. Ask it anything, for example “What files are in my "
                      "workspace?”, and watch one trip around the agent loop.")
                 : tr("Tell the agent what to do. It shows you every command before it runs and "
                      "runs it only after you say yes."));
}

void ChatView::setPlaceholderText(const QString &text)
{
    m_placeholder = text;
    viewport()->update();
}

void ChatView::paintEvent(QPaintEvent *event)
{
    paintItems(event);
    if (m_placeholder.isEmpty() || (model() && model()->rowCount() > 0))
        return;
    QPainter painter(viewport());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    const int margin = fontMetrics().height() * 2;
    const QRect area = viewport()->rect().adjusted(margin, margin, -margin, -margin);
    const int width = qMin(area.width(), fontMetrics().averageCharWidth() * 70);
    QRect text(0, 0, width, area.height());
    text.moveCenter(area.center());
    painter.drawText(text, Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
}

bool ChatView::isAtBottom() const
{
    const QScrollBar *bar = verticalScrollBar();
    return bar->value() >= bar->maximum() - 2;
}

void ChatView::relayout()
{
    m_delegate->invalidateAll();
    m_rows.forgetAll();
    scheduleDelayedItemsLayout();
}

void ChatView::resizeEvent(QResizeEvent *event)
{
    const bool follow = isAtBottom();
    // Not QListView's, which lays out every row again whenever the height changes: the rows'
    // heights only depend on the width, and the scroll range follows at once.
    QAbstractItemView::resizeEvent(event);
    if (viewport()->width() == m_layoutWidth)
        return;
    const bool first = m_layoutWidth < 0 || !model() || model()->rowCount() == 0;
    m_layoutWidth = viewport()->width();
    m_followAfterResize = m_followAfterResize || follow;
    if (first)
        m_widthSettled.start(0);
    else
        m_widthSettled.start();
}

void ChatView::changeEvent(QEvent *event)
{
    QListView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange
        || event->type() == QEvent::StyleChange)
        relayout();
}

void ChatView::dataChanged(const QModelIndex &topLeft,
                           const QModelIndex &bottomRight,
                           const QList<int> &roles)
{
    const bool follow = isAtBottom();
    // Only the changed items are laid out again; the others keep their cached layouts and
    // heights, so a streamed answer growing at the end costs one item's layout per update.
    if (topLeft.parent() == rootIndex()) {
        for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
            m_delegate->invalidate(model()->index(row, 0));
            m_rows.forget(row);
        }
    }
    // Measured and placed by the next doItemsLayout(), which paints from there down: the height
    // of the changed items may have changed (a result shown in full, an answer that grew).
    scheduleDelayedItemsLayout();
    // (QListView's would lay out every row again.)
    QAbstractItemView::dataChanged(topLeft, bottomRight, roles);
    // An answer growing at the bottom stays in view, as new messages do.
    if (follow && bottomRight.row() == model()->rowCount() - 1)
        followBottom();
}

void ChatView::rowsInserted(const QModelIndex &parent, int start, int end)
{
    const bool follow = isAtBottom() || m_followPending;
    if (parent == rootIndex()) {
        if (!follow)
            keepTopRowAcross(start, end - start + 1);
        const bool atTheEnd = start == m_rows.count();
        m_rows.insert(start, end - start + 1);
        // Rows above the end (a reopened conversation's earlier messages) are measured at once,
        // so that what inserting them costs is known to whoever inserts them; rows at the end
        // wait for the next layout, which measures a burst of them together.
        if (!atTheEnd)
            placeRows();
    }
    scheduleDelayedItemsLayout();
    // (QListView's would lay out every row again.)
    QAbstractItemView::rowsInserted(parent, start, end);
    if (follow)
        followBottom();
}

// Rows arriving above what the user reads (the earlier messages of a reopened conversation,
// while they scrolled up) must not push it down: the row at the top of the view stays where it
// is once the new rows are measured (updateGeometries()).
void ChatView::keepTopRowAcross(int start, int count)
{
    if (m_anchorRow < 0) {
        if (m_rows.count() == 0)
            return;
        placeRows();
        const int top = m_rows.rowAt(verticalOffset());
        if (top < 0)
            return;
        m_anchorRow = top;
        m_anchorOffset = verticalOffset() - m_rows.top(top);
    }
    if (start <= m_anchorRow)
        m_anchorRow += count;
}

void ChatView::forgetRemovedRows(const QModelIndex &parent, int start, int end)
{
    if (parent != rootIndex())
        return;
    m_anchorRow = -1;
    m_rows.remove(start, end - start + 1);
    scheduleDelayedItemsLayout();
}

void ChatView::forgetAllRows()
{
    m_anchorRow = -1;
    m_rows.reset(model() ? model()->rowCount(rootIndex()) : 0);
    scheduleDelayedItemsLayout();
}

void ChatView::reset()
{
    QListView::reset();
    forgetAllRows();
}

bool ChatView::isShownRow(const QModelIndex &index) const
{
    return index.isValid() && index.model() == model() && index.parent() == rootIndex()
           && index.column() == modelColumn() && index.row() < m_rows.count();
}

void ChatView::placeRows() const
{
    if (m_rows.isUpToDate() || !model())
        return;
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    option.rect = QRect(0, 0, viewport()->width(), 0);
    m_rows.update([&](int row) {
        const QModelIndex index = model()->index(row, modelColumn(), rootIndex());
        return itemDelegateForIndex(index)->sizeHint(option, index).height();
    });
}

void ChatView::doItemsLayout()
{
    placeRows();
    updateGeometries();
    // Only what moved or changed is painted again: a streamed answer growing at the bottom
    // repaints itself, not the screen above it.
    if (const int changed = m_rows.takeChangedFrom(); changed >= 0) {
        const int top = m_rows.top(changed) - verticalOffset();
        if (top < viewport()->height())
            viewport()->update(0, qMax(0, top), viewport()->width(), viewport()->height());
    }
}

void ChatView::updateGeometries()
{
    placeRows();
    QScrollBar *bar = verticalScrollBar();
    bar->setPageStep(viewport()->height());
    bar->setRange(0, qMax(0, m_rows.totalHeight() - viewport()->height()));
    if (m_anchorRow >= 0 && m_anchorRow < m_rows.count())
        bar->setValue(m_rows.top(m_anchorRow) + m_anchorOffset);
    m_anchorRow = -1;
    horizontalScrollBar()->setRange(0, 0);
    QAbstractItemView::updateGeometries();
}

void ChatView::scrollContentsBy(int dx, int dy)
{
    scrollDirtyRegion(dx, dy);
    viewport()->scroll(dx, dy);
}

int ChatView::horizontalOffset() const
{
    return 0; // the items are as wide as the view
}

int ChatView::verticalOffset() const
{
    return verticalScrollBar()->value();
}

QRect ChatView::visualRect(const QModelIndex &index) const
{
    if (!isShownRow(index))
        return {};
    placeRows();
    return QRect(0,
                 m_rows.top(index.row()) - verticalOffset(),
                 viewport()->width(),
                 m_rows.height(index.row()));
}

QModelIndex ChatView::indexAt(const QPoint &point) const
{
    if (!model() || point.x() < 0 || point.x() >= viewport()->width())
        return {};
    placeRows();
    const int row = m_rows.rowAt(point.y() + verticalOffset());
    return row < 0 ? QModelIndex() : model()->index(row, modelColumn(), rootIndex());
}

void ChatView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (!isShownRow(index))
        return;
    placeRows();
    const int top = m_rows.top(index.row());
    const int bottom = m_rows.bottom(index.row());
    const int height = viewport()->height();
    const int value = verticalOffset();
    int target = value;
    switch (hint) {
    case PositionAtTop:
        target = top;
        break;
    case PositionAtBottom:
        target = bottom - height;
        break;
    case PositionAtCenter:
        target = top - (height - (bottom - top)) / 2;
        break;
    case EnsureVisible:
        // As QListView does: an item taller than the view shows its top when it is above.
        if (top < value)
            target = top;
        else if (bottom > value + height)
            target = bottom - height;
        break;
    }
    verticalScrollBar()->setValue(target);
}

QModelIndex ChatView::moveCursor(CursorAction action, Qt::KeyboardModifiers)
{
    const int count = model() ? qMin(model()->rowCount(rootIndex()), m_rows.count()) : 0;
    if (count == 0)
        return {};
    placeRows();
    const QModelIndex current = currentIndex();
    if (!isShownRow(current)) {
        const QModelIndex top = indexAt(QPoint(0, 0));
        return top.isValid() ? top : model()->index(0, modelColumn(), rootIndex());
    }
    int row = current.row();
    switch (action) {
    case MoveUp:
    case MovePrevious:
        --row;
        break;
    case MoveDown:
    case MoveNext:
        ++row;
        break;
    case MoveHome:
        row = 0;
        break;
    case MoveEnd:
        row = count - 1;
        break;
    case MovePageUp:
        row = m_rows.rowAt(qMax(0, m_rows.top(row) - viewport()->height()));
        break;
    case MovePageDown:
        row = m_rows.rowAt(qMin(m_rows.totalHeight() - 1, m_rows.top(row) + viewport()->height()));
        break;
    case MoveLeft:
    case MoveRight:
        break;
    }
    return model()->index(qBound(0, row, count - 1), modelColumn(), rootIndex());
}

void ChatView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command)
{
    if (!model() || !selectionModel())
        return;
    placeRows();
    const QRect area = rect.normalized().translated(0, verticalOffset());
    QItemSelection selection;
    const int first = m_rows.rowAt(qMax(0, area.top()));
    const int last = m_rows.rowAt(qMin(m_rows.totalHeight() - 1, area.bottom()));
    if (first >= 0 && last >= first && area.bottom() >= 0 && area.top() < m_rows.totalHeight())
        selection.select(model()->index(first, modelColumn(), rootIndex()),
                         model()->index(last, modelColumn(), rootIndex()));
    selectionModel()->select(selection, command);
}

QRegion ChatView::visualRegionForSelection(const QItemSelection &selection) const
{
    placeRows();
    QRegion region;
    const QRect shown = viewport()->rect();
    for (const QItemSelectionRange &range : selection) {
        if (!range.isValid() || range.parent() != rootIndex() || range.top() >= m_rows.count())
            continue;
        const int bottom = qMin(range.bottom(), m_rows.count() - 1);
        const QRect rect(0,
                         m_rows.top(range.top()) - verticalOffset(),
                         shown.width(),
                         m_rows.bottom(bottom) - m_rows.top(range.top()));
        region += rect & shown;
    }
    return region;
}

void ChatView::paintItems(QPaintEvent *event)
{
    if (!model())
        return;
    placeRows();
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    QPainter painter(viewport());
    const QRect area = event->rect().translated(0, verticalOffset());
    const int first = m_rows.rowAt(qMax(0, area.top()));
    if (first < 0)
        return;
    const QModelIndex current = currentIndex();
    const QItemSelectionModel *selections = selectionModel();
    const bool focus = (hasFocus() || viewport()->hasFocus()) && current.isValid();
    const QStyle::State state = option.state;
    const bool enabled = state & QStyle::State_Enabled;
    const int count = qMin(m_rows.count(), model()->rowCount(rootIndex()));
    for (int row = first; row < count && m_rows.top(row) <= area.bottom(); ++row) {
        if (m_rows.height(row) == 0)
            continue;
        const QModelIndex index = model()->index(row, modelColumn(), rootIndex());
        option.rect = QRect(0,
                            m_rows.top(row) - verticalOffset(),
                            viewport()->width(),
                            m_rows.height(row));
        option.state = state;
        if (selections && selections->isSelected(index))
            option.state |= QStyle::State_Selected;
        if (enabled) {
            const bool itemEnabled = model()->flags(index) & Qt::ItemIsEnabled;
            option.state.setFlag(QStyle::State_Enabled, itemEnabled);
            option.palette.setCurrentColorGroup(itemEnabled ? QPalette::Normal : QPalette::Disabled);
        }
        if (focus && current == index) {
            option.state |= QStyle::State_HasFocus;
            if (this->state() == EditingState)
                option.state |= QStyle::State_Editing;
        }
        itemDelegateForIndex(index)->paint(&painter, option, index);
    }
}

void ChatView::followBottom()
{
    if (m_followPending)
        return;
    // One scroll per burst of changes: the layout then runs once, not once per message. Not
    // when the user scrolled up meanwhile: they are reading.
    m_followPending = true;
    QTimer::singleShot(0, this, [this, from = verticalScrollBar()->value()] {
        m_followPending = false;
        if (verticalScrollBar()->value() >= from)
            scrollToBottom();
    });
}

void ChatView::currentChanged(const QModelIndex &current, const QModelIndex &previous)
{
    QListView::currentChanged(current, previous);
    if (const int turn = current.data(ChatModel::TurnRole).toInt(); turn > 0)
        emit turnActivated(turn);
}

bool ChatView::scrollToTurn(int turn)
{
    if (!m_model || turn <= 0)
        return false;
    const int rows = m_model->rowCount();
    for (int row = 0; row < rows; ++row) {
        if (m_model->item(row).turn != turn)
            continue;
        const QModelIndex index = m_model->index(row, 0);
        setCurrentIndex(index);
        scrollTo(index, PositionAtTop);
        return true;
    }
    return false;
}

QString ChatView::selectedText() const
{
    if (!m_model)
        return {};
    QModelIndexList rows = selectionModel()->selectedRows();
    if (rows.isEmpty() && currentIndex().isValid())
        rows << currentIndex();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) {
        return a.row() < b.row();
    });
    QStringList parts;
    for (const QModelIndex &index : std::as_const(rows))
        parts << ChatModel::plainText(m_model->item(index.row()));
    return parts.join(u"\n\n"_s);
}

void ChatView::copySelection() const
{
    const QString text = selectedText();
    if (!text.isEmpty())
        QGuiApplication::clipboard()->setText(text);
}

void ChatView::keyPressEvent(QKeyEvent *event)
{
    if (event->matches(QKeySequence::Copy) && state() != EditingState) {
        copySelection();
        event->accept();
        return;
    }
    const QModelIndex current = currentIndex();
    if ((event->key() == Qt::Key_Space || event->key() == Qt::Key_Return
         || event->key() == Qt::Key_Enter)
        && event->modifiers() == Qt::NoModifier && current.isValid()
        && current.data(ChatModel::CollapsibleRole).toBool()) {
        m_model->toggleCollapsed(current);
        event->accept();
        return;
    }
    QListView::keyPressEvent(event);
}

void ChatView::mouseMoveEvent(QMouseEvent *event)
{
    QListView::mouseMoveEvent(event);
    const QModelIndex index = indexAt(event->position().toPoint());
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    option.rect = visualRect(index);
    const bool clickable = index.isValid()
                           && m_delegate->hitTest(option, index, event->position().toPoint())
                                      != ChatDelegate::Hit::Nothing;
    viewport()->setCursor(clickable ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void ChatView::contextMenuEvent(QContextMenuEvent *event)
{
    if (!m_model)
        return;
    const QModelIndex index = event->reason() == QContextMenuEvent::Mouse ? indexAt(event->pos())
                                                                          : currentIndex();
    if (index.isValid() && !selectionModel()->isSelected(index))
        setCurrentIndex(index);

    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    QAction *copy = menu->addAction(tr("&Copy"), this, &ChatView::copySelection);
    copy->setShortcut(QKeySequence::Copy);
    copy->setEnabled(index.isValid() || selectionModel()->hasSelection());
    if (index.isValid()) {
        // The menu lives on after this event; rows may be added (or all removed) meanwhile.
        const QPersistentModelIndex persistent(index);
        const ChatItem &item = m_model->item(index.row());
        menu->addAction(tr("Copy &message"), this, [text = ChatModel::plainText(item)] {
            QGuiApplication::clipboard()->setText(text);
        });
        if (item.kind == ChatItem::ToolCall) {
            const QString command = QJsonDocument::fromJson(item.arguments.toUtf8())
                                            .object()
                                            .value(u"command"_s)
                                            .toString();
            if (!command.isEmpty())
                menu->addAction(tr("Copy c&ommand"), this, [command] {
                    QGuiApplication::clipboard()->setText(command);
                });
        }
        if (index.data(ChatModel::CollapsibleRole).toBool()) {
            const bool collapsed = index.data(ChatModel::CollapsedRole).toBool();
            QString toggle = collapsed ? tr("Show a&ll") : tr("Show &less");
            if (item.kind == ChatItem::AssistantText) // the fold is the reasoning's
                toggle = collapsed ? tr("Show &reasoning") : tr("Hide &reasoning");
            if (item.kind == ChatItem::Compaction)
                toggle = collapsed ? tr("Show the &original messages")
                                   : tr("Hide the &original messages");
            menu->addAction(toggle, this, [this, persistent] {
                if (persistent.isValid())
                    m_model->toggleCollapsed(persistent);
            });
        }
        if (m_model->flags(index) & Qt::ItemIsEditable)
            menu->addAction(tr("Select &text…"), this, [this, persistent] {
                if (persistent.isValid())
                    edit(persistent);
            });
        if (!item.outputFile.path.isEmpty()) {
            menu->addAction(tr("&Open full output"), this, [path = item.outputFile.path] {
                openLocalFile(path);
            });
            menu->addAction(tr("Show full output in &folder"), this, [path = item.outputFile.path] {
                showInFolder(path);
            });
        }
        if (item.runRecord) {
            QAction *raw = menu->addAction(tr("Show &raw output…"), this, [this, persistent] {
                if (persistent.isValid())
                    emit rawOutputRequested(persistent);
            });
            raw->setShortcut(rawOutputShortcut());
        }
        if (item.kind == ChatItem::FileChange && !item.fileChange.absolutePath.isEmpty()) {
            const QString path = item.fileChange.absolutePath;
            if (opensAsDocument(path))
                menu->addAction(tr("Open &file"), this, [path] { openLocalFile(path); });
            menu->addAction(tr("Open fol&der"), this, [path] { showInFolder(path); });
        }
        if (item.turn > 0)
            menu->addAction(tr("Show in &inspector"), this, [this, turn = item.turn] {
                emit inspectRequested(turn);
            });
    }
    menu->addSeparator();
    QAction *selectAllAction = menu->addAction(tr("Select &all"), this, &ChatView::selectAll);
    selectAllAction->setShortcut(QKeySequence::SelectAll);
    selectAllAction->setEnabled(m_model->rowCount() > 0);
    if (!m_extraActions.isEmpty()) {
        menu->addSeparator();
        menu->addActions(m_extraActions);
    }
    m_contextMenu = menu;
    menu->popup(event->globalPos());
}

} // namespace Gui
