#include "approvalprompt.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QGridLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QTextOption>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// Puts widget into the box's layout between the text and the buttons. QMessageBox has no API for
// this (setDetailedText hides the text behind a button), so its grid is rearranged by looking up
// where its own widgets are, not by assuming a fixed layout.
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

// Measured, not QFontInfo::fixedPitch(): some monospace fonts (Noto Sans Mono) do not declare it.
bool isMonospace(const QFont &font)
{
    const QFontMetricsF metrics(font);
    return qFuzzyCompare(metrics.horizontalAdvance(u"iiii"_s), metrics.horizontalAdvance(u"MMMM"_s));
}

// Some platforms answer FixedFont with the proportional UI font; the arguments must line up, so
// insist on a monospace family then.
QFont monospaceFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (!isMonospace(font)) {
        font.setFamily(u"monospace"_s);
        font.setStyleHint(QFont::TypeWriter);
        font.setFixedPitch(true);
    }
    return font;
}

} // namespace

ApprovalPrompt *ApprovalPrompt::ask(const AgentLoop::ApprovalRequest &request, QWidget *parent)
{
    auto *box = new QMessageBox(parent);
    auto *prompt = new ApprovalPrompt(request, box);
    box->open();
    return prompt;
}

ApprovalPrompt::ApprovalPrompt(const AgentLoop::ApprovalRequest &request, QMessageBox *box)
    : QObject(box)
    , m_requestId(request.id)
    , m_box(box)
{
    box->setWindowTitle(tr("Approve tool call?"));
    box->setAccessibleName(tr("Approve tool call"));
    box->setIcon(QMessageBox::Warning);
    box->setTextFormat(Qt::RichText);
    box->setText(tr("<p>The model asks to run the tool <b>%1</b>.</p><p>%2</p>")
                         .arg(request.toolName.toHtmlEscaped(), request.reason.toHtmlEscaped()));
    box->setInformativeText(tr("Nothing runs unless you choose Yes. No, Esc or closing this box "
                               "declines, and the model is told."));
    box->setAccessibleDescription(
            tr("The model asks to run the tool %1. %2").arg(request.toolName, request.reason));
    box->setStandardButtons(QMessageBox::Yes | QMessageBox::No);
    box->setDefaultButton(QMessageBox::No);
    box->setEscapeButton(QMessageBox::No);
    m_yes = box->button(QMessageBox::Yes);

    auto *arguments = new QPlainTextEdit(box);
    arguments->setObjectName(u"approvalArguments"_s);
    arguments->setAccessibleName(tr("Arguments of the tool call"));
    arguments->setReadOnly(true);
    arguments->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    arguments->setTabChangesFocus(true);
    arguments->setFont(monospaceFont());
    arguments->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    arguments->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    arguments->setPlainText(prettyArguments(request));
    // QMessageBox gives its contents their minimum size: make that a readable area.
    constexpr qsizetype columns = 72;
    const QString shown = arguments->toPlainText();
    qsizetype wrappedLines = 0;
    for (const QStringView line : QStringView(shown).split(u'\n'))
        wrappedLines += std::max<qsizetype>(1, (line.size() + columns - 1) / columns);
    constexpr qsizetype maximumLines = 14;
    const QFontMetrics metrics(arguments->font());
    const int height = metrics.lineSpacing()
                               * int(std::clamp<qsizetype>(wrappedLines, 2, maximumLines))
                       + 2 * int(arguments->document()->documentMargin())
                       + 2 * arguments->frameWidth() + metrics.descent();
    // ...but never wider or taller than a small screen allows.
    const QRect screen = box->screen()->availableGeometry();
    arguments->setMinimumSize(std::min(metrics.horizontalAdvance(u'0') * int(columns + 2),
                                       screen.width() * 2 / 3),
                              std::min(height, screen.height() / 3));
    // Short arguments get a box their size; long ones scroll.
    if (wrappedLines <= maximumLines)
        arguments->setMaximumHeight(height);
    insertAboveButtons(box, arguments);
    m_arguments = arguments;

    connect(box, &QMessageBox::finished, this, [this] {
        decide(m_box && m_box->clickedButton() == m_yes ? AgentLoop::Decision::Allow
                                                        : AgentLoop::Decision::Deny);
        if (m_box)
            m_box->deleteLater();
    });
}

ApprovalPrompt::~ApprovalPrompt()
{
    // The box (or its parent) is being destroyed while the question is open: fail closed.
    decide(AgentLoop::Decision::Deny);
}

void ApprovalPrompt::decide(AgentLoop::Decision decision)
{
    if (m_decided)
        return;
    m_decided = true;
    emit decided(m_requestId, decision);
}

QString ApprovalPrompt::prettyArguments(const AgentLoop::ApprovalRequest &request)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(request.arguments.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || document.isNull())
        return request.arguments;
    QString text = QString::fromUtf8(document.toJson(QJsonDocument::Indented));
    while (text.endsWith(u'\n'))
        text.chop(1);
    return text;
}

} // namespace Gui
