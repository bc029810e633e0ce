#pragma once

#include <QCache>
#include <QHash>
#include <QStyledItemDelegate>

#include <memory>

class QTextDocument;

namespace Gui {

class MarkdownBody;

// Paints the items of a ChatModel as cards: user prompts as accent bubbles on the right,
// assistant text as rendered Markdown, tool calls and results in monospace, denials and errors
// in their own colours. Text layout is the expensive part, so the height of every item is
// cached per view width and the laid-out documents of recently painted items are kept: adding
// an item lays out that item only, and an answer that grows lays out only its new Markdown
// sections (MarkdownBody).
class ChatDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
public:
    enum class Hit { Nothing, Toggle, Link, OpenOutputFile, ShowOutputFolder };

    explicit ChatDelegate(QObject *parent = nullptr);
    ~ChatDelegate() override;

    void paint(QPainter *painter,
               const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    QWidget *createEditor(QWidget *parent,
                          const QStyleOptionViewItem &option,
                          const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor,
                      QAbstractItemModel *model,
                      const QModelIndex &index) const override;
    void updateEditorGeometry(QWidget *editor,
                              const QStyleOptionViewItem &option,
                              const QModelIndex &index) const override;

    // What is under pos (view coordinates) in the item painted at option.rect; for links, href
    // receives the target, for the output file's links its path.
    Hit hitTest(const QStyleOptionViewItem &option,
                const QModelIndex &index,
                const QPoint &pos,
                QString *href = nullptr) const;

    // Forget every cached layout: the width, the palette or the font changed.
    void invalidateAll();
    // Forget the layout of one item: its data changed.
    void invalidate(const QModelIndex &index);

    // How many item layouts were computed so far; what appending really costs.
    int layoutCount() const { return m_layoutCount; }

protected:
    bool editorEvent(QEvent *event,
                     QAbstractItemModel *model,
                     const QStyleOptionViewItem &option,
                     const QModelIndex &index) override;

private:
    struct Layout;
    struct CachedSize
    {
        QSize size;
        bool collapsed = true;
    };

    const Layout &layoutFor(const QStyleOptionViewItem &option, const QModelIndex &index) const;
    std::unique_ptr<Layout> makeLayout(const QStyleOptionViewItem &option,
                                       const QModelIndex &index,
                                       int width,
                                       std::unique_ptr<MarkdownBody> markdown) const;

    mutable QCache<quint64, Layout> m_layouts;
    mutable QHash<quint64, CachedSize> m_sizes;
    mutable int m_sizesWidth = -1;
    mutable int m_layoutCount = 0;
};

// A tool result's saved output, opened by the system's viewer for .log files, or its folder.
void openOutputFile(const QString &path);
void showOutputFolder(const QString &path);

} // namespace Gui
