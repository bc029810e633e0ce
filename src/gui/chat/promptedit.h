#pragma once

#include <QPlainTextEdit>

namespace Gui {

// The prompt box: Enter sends, Shift+Enter starts a new line. It grows with its text up to a
// few lines, then scrolls.
class PromptEdit final : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit PromptEdit(QWidget *parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void submitted();

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    int heightForLines(int lines) const;
};

} // namespace Gui
