#include "showntext.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QTextDocument>

using namespace Qt::StringLiterals;

namespace Gui {

ShownText shownText(const QString &input,
                    qsizetype maxLength,
                    const AgentLoop::DisplayOptions &options)
{
    const QString text = options.keepLineFeeds ? withLineFeeds(input) : input;
    maxLength = qMax<qsizetype>(0, maxLength);
    AgentLoop::DisplayOptions bounded = options;
    bounded.maxLength = maxLength;
    AgentLoop::DisplayText shown = AgentLoop::displayText(text, bounded);
    // A run of one character is one escape ("⟨U+200B ×65536⟩"): more of the input may fit. Twice
    // as much each time, so that all the passes together read the input at most twice.
    while (shown.cutCharacters > 0 && shown.text.size() < maxLength) {
        bounded.maxLength = qMin(text.size(), 2 * bounded.maxLength);
        shown = AgentLoop::displayText(text, bounded);
    }
    qsizetype consumed = text.size() - shown.cutCharacters;
    if (shown.text.size() > maxLength) {
        // Escapes made it longer than the input it shows: cut it as shown, before the first
        // escape that does not fit, and count back how much input that is.
        qsizetype end = maxLength;
        if (end > 0 && end < shown.text.size() && shown.text.at(end - 1).isHighSurrogate())
            --end;
        qsizetype longer = 0; // how much longer than their input the escapes before end are
        for (const AgentLoop::DisplayMark &mark : std::as_const(shown.marks)) {
            if (mark.position >= end)
                break;
            if (mark.position + mark.length > end) {
                end = mark.position;
                break;
            }
            const qsizetype units = mark.codePoint > 0xFFFF ? 2 : 1;
            longer += mark.length
                      - (mark.kind == AgentLoop::DisplayMark::Escaped ? mark.count * units
                                                                      : mark.length);
        }
        consumed = end - longer;
        shown.text.truncate(end);
    }
    return {std::move(shown.text), utf8Length(QStringView(text).sliced(consumed))};
}

QString withLineFeeds(QString text)
{
    if (text.contains(u'\r'))
        text.replace(u"\r\n"_s, u"\n"_s);
    return text;
}

qint64 utf8Length(QStringView text)
{
    qint64 bytes = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (c < 0x80) {
            bytes += 1;
        } else if (c < 0x800) {
            bytes += 2;
        } else if (QChar::isHighSurrogate(c) && i + 1 < text.size()
                   && QChar::isLowSurrogate(text.at(i + 1).unicode())) {
            bytes += 4;
            ++i;
        } else {
            bytes += 3;
        }
    }
    return bytes;
}

QString plainToolTip(const QString &text)
{
    if (!Qt::mightBeRichText(text))
        return text;
    return Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal);
}

void showWarning(QWidget *parent, const QString &text)
{
    AgentLoop::DisplayOptions shown;
    shown.maxLength = 4000;
    auto *box = new QMessageBox(QMessageBox::Warning,
                                QCoreApplication::translate("Gui::MainWindow", "Agent Loop"),
                                AgentLoop::displayed(text, shown),
                                QMessageBox::Ok,
                                parent);
    box->setTextFormat(Qt::PlainText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

QPlainTextEdit *newBodyView(const QString &objectName,
                            const QString &accessibleName,
                            QWidget *parent,
                            bool wrapLines)
{
    auto *view = new QPlainTextEdit(parent);
    view->setObjectName(objectName);
    view->setAccessibleName(accessibleName);
    view->setReadOnly(true);
    view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    view->setLineWrapMode(wrapLines ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    view->setTabChangesFocus(true);
    return view;
}

// The box's grid is rearranged by looking up where its own widgets are, not by assuming a fixed
// layout.
void insertAboveButtons(QMessageBox *box, QWidget *widget)
{
    auto *grid = qobject_cast<QGridLayout *>(box->layout());
    auto *buttons = box->findChild<QDialogButtonBox *>();
    auto *label = box->findChild<QLabel *>(u"qt_msgbox_label"_s);
    if (!grid || !buttons || grid->indexOf(buttons) < 0) {
        box->layout()->addWidget(widget);
        return;
    }
    int buttonRow = 0, buttonColumn = 0, buttonRowSpan = 1, buttonColumnSpan = 1;
    grid->getItemPosition(grid->indexOf(buttons),
                          &buttonRow,
                          &buttonColumn,
                          &buttonRowSpan,
                          &buttonColumnSpan);
    int textColumn = buttonColumn;
    if (label && grid->indexOf(label) >= 0) {
        int row = 0, rowSpan = 1, columnSpan = 1;
        grid->getItemPosition(grid->indexOf(label), &row, &textColumn, &rowSpan, &columnSpan);
    }
    grid->removeWidget(buttons);
    grid->addWidget(widget, buttonRow, textColumn, 1, grid->columnCount() - textColumn);
    grid->addWidget(buttons, buttonRow + 1, buttonColumn, buttonRowSpan, buttonColumnSpan);
}

QLabel *newNoteLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, palette.color(QPalette::PlaceholderText));
    label->setPalette(palette);
    return label;
}

} // namespace Gui
