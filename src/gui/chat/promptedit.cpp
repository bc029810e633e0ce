#include "chat/promptedit.h"

#include <QKeyEvent>
#include <QTextBlock>
#include <QTextDocument>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {
constexpr int minimumLines = 2;
constexpr int maximumLines = 8;
} // namespace

PromptEdit::PromptEdit(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setTabChangesFocus(true);
    setLineWrapMode(WidgetWidth);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    connect(this, &QPlainTextEdit::textChanged, this, [this] {
        if (sizeHint().height() != height())
            updateGeometry();
    });
}

int PromptEdit::heightForLines(int lines) const
{
    const QMargins margins = contentsMargins() + viewportMargins();
    return int(std::ceil(lines * fontMetrics().lineSpacing() + 2 * document()->documentMargin()))
           + margins.top() + margins.bottom() + 2 * frameWidth() + 2;
}

QSize PromptEdit::sizeHint() const
{
    int lines = 0;
    for (QTextBlock block = document()->begin(); block.isValid(); block = block.next())
        lines += qMax(1, block.layout() ? block.layout()->lineCount() : 1);
    lines = qBound(minimumLines, lines, maximumLines);
    return {QPlainTextEdit::sizeHint().width(), heightForLines(lines)};
}

QSize PromptEdit::minimumSizeHint() const
{
    return {QPlainTextEdit::minimumSizeHint().width(), heightForLines(minimumLines)};
}

void PromptEdit::keyPressEvent(QKeyEvent *event)
{
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && !(event->modifiers() & Qt::ShiftModifier)) {
        event->accept();
        emit submitted();
        return;
    }
    if (enter) {
        // QPlainTextEdit would insert U+2028 (a line separator) for Shift+Enter; the prompt
        // must carry a plain newline to the model.
        insertPlainText(u"\n"_s);
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

} // namespace Gui
