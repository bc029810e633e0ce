#pragma once

#include <QCache>
#include <QStringList>
#include <QStyledItemDelegate>

#include <memory>

class QTextDocument;

namespace Gui {

class MarkdownBody;

// Paints the items of a ChatModel as cards: user prompts as accent bubbles on the right,
// assistant text as rendered Markdown, tool calls and results in monospace, denials and errors
// in their own colours. Text layout is the expensive part, so the laid-out documents of recently
// painted items are kept (the view keeps every item's height, ChatView): adding an item lays out
// that item only, and an answer that grows lays out only its new Markdown sections
// (MarkdownBody).
class ChatDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
public:
    enum class Hit {
        Nothing,
        Toggle,
        Link,
        OpenOutputFile,
        ShowOutputFolder,
        OpenChangedFile,
        ShowChangedFolder,
    };

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
    // receives the target, for the output file's and the changed file's links its path.
    Hit hitTest(const QStyleOptionViewItem &option,
                const QModelIndex &index,
                const QPoint &pos,
                QString *href = nullptr) const;

    // The texts painted around the item's body, in reading order: the header and what stands
    // beside it, the fold or "Show all", and the links.
    QStringList labels(const QStyleOptionViewItem &option, const QModelIndex &index) const;

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

    const Layout &layoutFor(const QStyleOptionViewItem &option, const QModelIndex &index) const;
    std::unique_ptr<Layout> makeLayout(const QStyleOptionViewItem &option,
                                       const QModelIndex &index,
                                       int width,
                                       std::unique_ptr<MarkdownBody> markdown) const;

    mutable QCache<quint64, Layout> m_layouts;
    mutable int m_layoutCount = 0;
};

// A local file opened by the desktop's program for it, or the folder it is in: a tool result's
// saved output, a file a tool changed. Both go through QDesktopServices::openUrl() with a file:
// URL, so that a test sees the URL with QDesktopServices::setUrlHandler("file", ...) and nothing
// is launched.
void openLocalFile(const QString &path);
void showInFolder(const QString &path);
// Whether "Open file" may hand a file a tool wrote to the desktop: not when the desktop would run
// it rather than show it (a program, a script, a shortcut, an installer), by its name.
bool opensAsDocument(const QString &path);

} // namespace Gui
