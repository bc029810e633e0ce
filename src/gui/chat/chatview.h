#pragma once

#include "chat/rowstack.h"

#include <QKeySequence>
#include <QListView>
#include <QMenu>
#include <QPointer>
#include <QTimer>

namespace Gui {

class ChatDelegate;
class ChatModel;

// The conversation: a list view over a ChatModel painted by a ChatDelegate. It follows the
// newest message while the user is at the bottom, relayouts when its width changes, and offers
// copying: Ctrl+C and the context menu's "Copy" copy the selected messages, "Copy message" the
// one under the mouse; a double-click opens a read-only text view for selecting part of one.
class ChatView final : public QListView
{
    Q_OBJECT
public:
    explicit ChatView(QWidget *parent = nullptr);

    void setModel(QAbstractItemModel *model) override;
    void setChatModel(ChatModel *model);
    ChatModel *chatModel() const { return m_model; }
    ChatDelegate *chatDelegate() const { return m_delegate; }

    // Shown in the middle of the view while the conversation is empty.
    void setPlaceholderText(const QString &text);
    // The empty view's invitation: the offline demo's, or the real agent's.
    void setDemoMode(bool demo);
    QString placeholderText() const { return m_placeholder; }

    // Put at the end of the context menu, after a separator (the window's "Compact now").
    void addContextActions(const QList<QAction *> &actions) { m_extraActions += actions; }
    // The context menu while it is open, or null.
    QMenu *contextMenu() const { return m_contextMenu; }

    // "Show raw output…" of the current tool result (the wiring is RawOutputs').
    static QKeySequence rawOutputShortcut()
    {
        return QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R);
    }

    // The text "Copy" puts on the clipboard for the selected items.
    QString selectedText() const;
    void copySelection() const;
    // Makes the first item of this request (the inspector's number) current and scrolls it to the
    // top of the view; false when no item belongs to it.
    bool scrollToTurn(int turn);

    // The geometry is the view's own (RowStack), not QListView's: QListView lays out every row
    // again whenever one is added or changes, which made the 10 000th message cost twice the
    // 10th. Here a new row or a grown last row measures that row only.
    QRect visualRect(const QModelIndex &index) const override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    QModelIndex indexAt(const QPoint &point) const override;
    void doItemsLayout() override;
    void reset() override;

signals:
    // The current item was produced by this request (the inspector's row number, from 1).
    void turnActivated(int turn);
    // The user asked to see that request in the inspector.
    void inspectRequested(int turn);
    // The user asked for the launch and the raw bytes of the command behind this tool result.
    void rawOutputRequested(const QModelIndex &index);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void currentChanged(const QModelIndex &current, const QModelIndex &previous) override;
    void dataChanged(const QModelIndex &topLeft,
                     const QModelIndex &bottomRight,
                     const QList<int> &roles = {}) override;
    void rowsInserted(const QModelIndex &parent, int start, int end) override;
    void updateGeometries() override;
    void scrollContentsBy(int dx, int dy) override;
    int horizontalOffset() const override;
    int verticalOffset() const override;
    QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;
    void setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection &selection) const override;

private:
    bool isAtBottom() const;
    void followBottom();
    void relayout();
    // The rows of the model as the view shows them: index(row) is valid for 0 <= row < count.
    bool isShownRow(const QModelIndex &index) const;
    // Measures the rows whose height is unknown (new or changed ones) and places the rows.
    void placeRows() const;
    void paintItems(QPaintEvent *event);
    void keepTopRowAcross(int start, int count);
    void forgetRemovedRows(const QModelIndex &parent, int start, int end);
    // Rows were moved, or all replaced: every height is measured again.
    void forgetAllRows();

    ChatModel *m_model = nullptr;
    ChatDelegate *m_delegate = nullptr;
    QList<QMetaObject::Connection> m_modelConnections;
    // Measured lazily, from const functions too (visualRect() of a row that just changed).
    mutable RowStack m_rows;
    QString m_placeholder;
    QList<QAction *> m_extraActions;
    QPointer<QMenu> m_contextMenu;
    int m_layoutWidth = -1;
    QTimer m_widthSettled;
    bool m_followAfterResize = false;
    bool m_followPending = false;
    // The row at the top of the view while rows are inserted above it, and how far into it
    // the view starts; -1: none.
    int m_anchorRow = -1;
    int m_anchorOffset = 0;
};

} // namespace Gui
