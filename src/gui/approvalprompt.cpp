#include "approvalprompt.h"

#include "diffstyle.h"
#include "mcp/mcptool.h"
#include "showntext.h"

#include <QAbstractTextDocumentLayout>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QEvent>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QFormLayout>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QStyle>
#include <QTextBlock>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// Work on the GUI thread (checking a long text, filling the view) is done in slices of about this
// many milliseconds, a piece of this many characters at a time, so that the box keeps answering.
constexpr qint64 sliceMilliseconds = 15;
constexpr qsizetype pieceLength = 16 * 1024;
// The view's minimum width, in characters.
constexpr int viewColumns = 72;

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

// Escapes and look-alikes: black on amber, which reads on a light and on a dark view alike.
QTextCharFormat markFormat()
{
    QTextCharFormat format;
    format.setBackground(QColor(0xff, 0xc8, 0x3d));
    format.setForeground(QColor(Qt::black));
    return format;
}

// The marker at the end of a line that Show all broke.
QTextCharFormat continuationFormat()
{
    QTextCharFormat format;
    format.setForeground(QColor(0x80, 0x80, 0x80));
    return format;
}

constexpr char16_t continuationMarker = u'\x21A9'; // ↩

QString formattedSize(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes,
                                       bytes >= 1024 * 1024 ? 1 : 0,
                                       QLocale::DataSizeTraditionalFormat);
}

qsizetype codePointCount(QStringView text)
{
    qsizetype count = text.size();
    const char16_t *units = text.utf16();
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (QChar::isHighSurrogate(units[i]) && QChar::isLowSurrogate(units[i + 1])) {
            --count;
            ++i;
        }
    }
    return count;
}

bool isPrintableAscii(QStringView text)
{
    const char16_t *units = text.utf16();
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (units[i] < 0x20 || units[i] >= 0x7F)
            return false;
    }
    return true;
}

// The longest run of characters without a space, tab or line feed.
qsizetype longestWord(QStringView text)
{
    qsizetype longest = 0;
    qsizetype run = 0;
    const char16_t *units = text.utf16();
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = units[i];
        run = c == u' ' || c == u'\t' || c == u'\n' ? 0 : run + 1;
        longest = std::max(longest, run);
    }
    return longest;
}

int pluralCount(qsizetype n)
{
    return int(std::min<qsizetype>(n, std::numeric_limits<int>::max()));
}

} // namespace

// What one AgentLoop::displayText() call over the whole text gives, made a piece at a time so
// that a long text does not stop the GUI thread. Pieces end after a line feed or an ASCII
// separator where one is near, so that no escape run or word is split between two calls; and
// each piece starts with a Latin word when the whole text has one, since look-alikes are only
// marked in text that has Latin letters.
class ApprovalPrompt::Sanitiser
{
public:
    Sanitiser(const QString &source, const AgentLoop::DisplayOptions &options)
        : m_source(source)
        , m_options(options)
    {
        m_latinContext = options.markLookAlikes
                         && std::any_of(source.cbegin(), source.cend(), [](QChar c) {
                                return c.unicode() < 0x80 && c.isLetter();
                            });
    }

    bool isComplete() const { return m_consumed == m_source.size(); }
    qsizetype consumed() const { return m_consumed; }
    const QString &text() const { return m_text; }
    const QList<AgentLoop::DisplayMark> &marks() const { return m_marks; }
    qsizetype escapedCharacters() const { return m_escaped; }
    qsizetype lookAlikes() const { return m_lookAlikes; }

    // Sanitises the next piece, of at most about maxInput characters of the source.
    void step(qsizetype maxInput)
    {
        if (isComplete())
            return;
        const qsizetype end = pieceEnd(maxInput);
        static const QString context = u"a "_s;
        QString piece = m_source.mid(m_consumed, end - m_consumed);
        if (m_latinContext)
            piece.prepend(context);
        const AgentLoop::DisplayText shown = AgentLoop::displayText(piece, m_options);
        const qsizetype skip = m_latinContext ? context.size() : 0;
        const qsizetype offset = m_text.size() - skip;
        m_text += QStringView(shown.text).sliced(skip);
        for (AgentLoop::DisplayMark mark : shown.marks) {
            mark.position += offset;
            m_marks.append(mark);
        }
        m_escaped += shown.escapedCharacters;
        m_lookAlikes += shown.lookAlikes;
        m_consumed = end;
    }

private:
    qsizetype pieceEnd(qsizetype maxInput) const
    {
        const qsizetype size = m_source.size();
        qsizetype end = std::min(size, m_consumed + std::max<qsizetype>(maxInput, 2));
        if (end == size)
            return end;
        constexpr qsizetype reach = 4096;
        const qsizetype floor = std::max(m_consumed + 1, end - reach);
        const qsizetype lineFeed = m_source.lastIndexOf(u'\n', end - 1);
        if (lineFeed >= 0 && lineFeed + 1 >= floor)
            return lineFeed + 1;
        for (qsizetype i = end - 1; i + 1 >= floor; --i) {
            const char16_t c = m_source.at(i).unicode();
            const bool separator = c == u' ' || c == u'\t'
                                   || (c > 0x20 && c < 0x7F && !QChar::isLetterOrNumber(c));
            if (separator)
                return i + 1;
        }
        if (QChar::isHighSurrogate(m_source.at(end - 1).unicode()))
            --end;
        return end;
    }

    QString m_source;
    AgentLoop::DisplayOptions m_options;
    bool m_latinContext = false;
    qsizetype m_consumed = 0;
    QString m_text;
    QList<AgentLoop::DisplayMark> m_marks;
    qsizetype m_escaped = 0;
    qsizetype m_lookAlikes = 0;
};

// The read-only view, with what the box needs to know about its lines as they are laid out.
class ApprovalPrompt::View final : public QPlainTextEdit
{
public:
    using QPlainTextEdit::QPlainTextEdit;

    struct Lines
    {
        qsizetype first = 0; // from 1; 0 when no line is wholly in sight
        qsizetype last = 0;
        qsizetype total = 0;
    };

    // Wrapped lines are known once their block is laid out: lay out every block (a wrapping view
    // holds at most previewLength characters), but for a line of printable ASCII that the width
    // holds, which is one line in a monospace font without laying it out. Without wrapping a
    // block is one line.
    void layOutLines() const
    {
        if (lineWrapMode() == NoWrap)
            return;
        auto *layout = qobject_cast<QPlainTextDocumentLayout *>(document()->documentLayout());
        if (!layout)
            return;
        // QPlainTextEdit lays its text out at the viewport's width.
        const qreal width = viewport()->width() - 2 * document()->documentMargin() - 1;
        const qreal advance = QFontMetricsF(font()).horizontalAdvance(u'0');
        const qsizetype oneLine = width > 0 && advance > 0 ? qsizetype(width / advance) : 0;
        for (QTextBlock block = document()->firstBlock(); block.isValid(); block = block.next()) {
            if (block.layout()->lineCount() > 0)
                continue;
            if (block.length() - 1 <= oneLine && isPrintableAscii(block.text()))
                continue;
            layout->ensureBlockLayout(block);
        }
    }

    // The lines wholly in the viewport, and how many lines there are.
    Lines visibleLines() const
    {
        layOutLines();
        Lines lines;
        lines.total = document()->lineCount();
        const qreal bottom = viewport()->height();
        QTextBlock block = firstVisibleBlock();
        qreal top = blockBoundingGeometry(block).translated(contentOffset()).top();
        while (block.isValid() && top < bottom) {
            const qreal height = blockBoundingRect(block).height(); // lays the block out
            const QTextLayout *layout = block.layout();
            for (int i = 0; i < layout->lineCount(); ++i) {
                const QTextLine line = layout->lineAt(i);
                const qreal lineTop = top + line.y();
                if (lineTop >= -0.5 && lineTop + line.height() <= bottom + 0.5) {
                    const qsizetype number = block.firstLineNumber() + i + 1;
                    if (lines.first == 0)
                        lines.first = number;
                    lines.last = number;
                }
            }
            top += height;
            block = block.next();
        }
        return lines;
    }

    // The height that shows the first maxLines lines whole, or every line when there are fewer
    // (what QPlainTextEdit needs then not to scroll: a document margin above and below, and one
    // pixel).
    int heightFor(int maxLines) const
    {
        layOutLines();
        auto *layout = qobject_cast<QPlainTextDocumentLayout *>(document()->documentLayout());
        const qreal margin = document()->documentMargin();
        qreal top = margin;
        qreal bottom = margin;
        int counted = 0;
        for (QTextBlock block = document()->firstBlock(); block.isValid() && counted < maxLines;
             block = block.next()) {
            const qreal height = layout->blockBoundingRect(block).height();
            const QTextLayout *textLayout = block.layout();
            for (int i = 0; i < textLayout->lineCount() && counted < maxLines; ++i, ++counted) {
                const QTextLine line = textLayout->lineAt(i);
                bottom = top + line.y() + line.height();
            }
            top += height;
        }
        const bool everyLine = counted >= document()->lineCount();
        int height = int(std::ceil(bottom + (everyLine ? margin : 0))) + 1 + 2 * frameWidth();
        if (horizontalScrollBarPolicy() == Qt::ScrollBarAlwaysOn)
            height += horizontalScrollBar()->sizeHint().height();
        return height;
    }
};

std::optional<McpCallDetails> McpCallDetails::of(const AgentLoop::Tool *tool)
{
    const auto *mcp = dynamic_cast<const AgentLoop::McpTool *>(tool);
    if (!mcp)
        return std::nullopt;
    McpCallDetails details;
    details.server = mcp->serverName();
    details.tool = mcp->info().name;
    details.title = mcp->info().title;
    details.description = mcp->info().description;
    details.readOnlyHint = mcp->info().readOnlyHint;
    details.destructiveHint = mcp->info().destructiveHint;
    details.unsupportedKeywords = mcp->unsupportedKeywords();
    return details;
}

ApprovalPrompt *ApprovalPrompt::ask(const AgentLoop::ApprovalRequest &request,
                                    QWidget *parent,
                                    RuleSaving saving,
                                    std::optional<McpCallDetails> mcp)
{
    auto *box = new QMessageBox(parent);
    auto *prompt = new ApprovalPrompt(request, std::move(saving), std::move(mcp), box);
    box->open();
    // Now that the view has its width, its lines are those the user sees.
    prompt->fitView();
    return prompt;
}

ApprovalPrompt::ApprovalPrompt(const AgentLoop::ApprovalRequest &request,
                               RuleSaving saving,
                               std::optional<McpCallDetails> mcp,
                               QMessageBox *box)
    : QObject(box)
    , m_requestId(request.id)
    , m_saving(std::move(saving))
    , m_mcp(std::move(mcp))
    , m_box(box)
    , m_boxObject(box)
{
    m_request.id = request.id;
    m_request.check = request.check;
    m_request.suggestedRules = request.suggestedRules;
    m_request.ruleCall = request.ruleCall;
    m_preview = previewOf(request);
    m_kind = m_preview.kind;
    if (m_kind == AgentLoop::CallPreview::FileEdit) {
        m_arguments = argumentsText(request);
        // The last line feed would start an empty line coloured as the line before it.
        while (m_preview.text.endsWith(u'\n'))
            m_preview.text.chop(1);
    }
    const QString tool = AgentLoop::displayedLine(request.toolName, 200);
    box->setWindowTitle(tr("Approve tool call?"));
    box->setAccessibleName(tr("Approve tool call"));
    box->setIcon(QMessageBox::Warning);
    box->setTextFormat(Qt::RichText);
    // The reason may quote a server's words (an MCP tool's description): shown as characters.
    const QString reason = AgentLoop::displayed(request.reason,
                                                {true, true, false, maximumReasonShown});
    if (m_mcp) {
        // The server, the tool and its description have a panel of their own below.
        const QString server = AgentLoop::displayedLine(m_mcp->server, 200);
        box->setText(tr("<p>The model asks to run the tool <b>%1</b> of the MCP server "
                        "<b>%2</b>.</p>")
                             .arg(AgentLoop::displayedLine(m_mcp->tool, 200).toHtmlEscaped(),
                                  server.toHtmlEscaped()));
    } else {
        box->setText(tr("<p>The model asks to run the tool <b>%1</b>.</p><p>%2</p>")
                             .arg(tool.toHtmlEscaped(),
                                  reason.toHtmlEscaped().replace(u'\n', u"<br>"_s)));
    }
    box->setInformativeText(tr("Nothing runs unless you allow it. Deny, Esc or closing this box "
                               "declines, and the model is told."));
    box->setAccessibleDescription(tr("The model asks to run the tool %1. %2").arg(tool, reason));

    addButtons(request);

    m_delayTimer.setSingleShot(true);
    m_delayTimer.setTimerType(Qt::PreciseTimer);
    m_delayTimer.setInterval(inputDelay);
    connect(&m_delayTimer, &QTimer::timeout, this, [this] {
        m_delayOver = true;
        updateAllow();
    });
    m_fitTimer.setSingleShot(true);
    m_fitTimer.setInterval(0);
    connect(&m_fitTimer, &QTimer::timeout, this, &ApprovalPrompt::fitView);
    m_scanTimer.setInterval(0);
    connect(&m_scanTimer, &QTimer::timeout, this, &ApprovalPrompt::scanSlice);
    m_fillTimer.setInterval(0);
    connect(&m_fillTimer, &QTimer::timeout, this, &ApprovalPrompt::fillSlice);

    insertAboveButtons(box, createPanel());
    box->installEventFilter(this);
    m_view->viewport()->installEventFilter(this);

    connect(box, &QMessageBox::finished, this, [this] {
        decide(m_answer.value_or(AgentLoop::ApprovalAnswer::deny()));
        if (m_box)
            m_box->deleteLater();
    });
}

void ApprovalPrompt::addButtons(const AgentLoop::ApprovalRequest &request)
{
    // Each keeps its mnemonic for Alt+letter; the event filter keeps QMessageBox from pressing
    // one on the letter alone.
    const auto add = [this](const QString &text, QMessageBox::ButtonRole role, const QString &name) {
        QPushButton *button = m_box->addButton(text, role);
        button->setObjectName(name);
        return button;
    };
    m_allow = add(tr("&Allow once"), QMessageBox::AcceptRole, u"approvalAllow"_s);
    m_allowForConversation = add(tr("Allow for this &conversation"),
                                 QMessageBox::AcceptRole,
                                 u"approvalAllowForConversation"_s);
    m_alwaysAllow = add(tr("Al&ways allow…"), QMessageBox::AcceptRole, u"approvalAlwaysAllow"_s);
    m_denyWithReason = add(tr("Deny with a &reason…"),
                           QMessageBox::RejectRole,
                           u"approvalDenyWithReason"_s);
    m_deny = add(tr("&Deny"), QMessageBox::RejectRole, u"approvalDeny"_s);
    m_box->setDefaultButton(m_deny);
    m_box->setEscapeButton(m_deny);
    for (QPushButton *allow : {m_allow.data(), m_allowForConversation.data(), m_alwaysAllow.data()})
        allow->setEnabled(false);
    if (request.suggestedRules.isEmpty()) {
        const QString why = AgentLoop::displayedLine(request.check.explanation, 500);
        m_alwaysAllow->setToolTip(plainToolTip(
                why.isEmpty() ? tr("No rule can allow this call: it cannot be taken apart with "
                                   "certainty.")
                              : tr("No rule can allow this call. %1").arg(why)));
    } else {
        m_alwaysAllow->setToolTip(tr("Add a rule that allows calls like this one."));
    }

    // QMessageBox closes on any of its buttons; Always allow… and Deny with a reason… open a
    // dialog over it instead, so the box routes the clicks itself.
    auto *buttons = m_box->findChild<QDialogButtonBox *>();
    disconnect(buttons, &QDialogButtonBox::clicked, m_box, nullptr);
    connect(buttons, &QDialogButtonBox::clicked, this, &ApprovalPrompt::onButtonClicked);
}

void ApprovalPrompt::onButtonClicked(QAbstractButton *button)
{
    if (!button->isEnabled())
        return;
    if (button == m_allow)
        answer(AgentLoop::ApprovalAnswer::allowOnce());
    else if (button == m_allowForConversation)
        answer({AgentLoop::ApprovalAnswer::AllowForConversation, {}, {}});
    else if (button == m_alwaysAllow)
        openRuleDialog();
    else if (button == m_denyWithReason)
        openReasonDialog();
    else
        answer(AgentLoop::ApprovalAnswer::deny());
}

void ApprovalPrompt::answer(const AgentLoop::ApprovalAnswer &answer)
{
    if (m_decided || !m_box)
        return;
    m_answer = answer;
    m_box->done(answer.choice == AgentLoop::ApprovalAnswer::Deny ? QDialog::Rejected
                                                                 : QDialog::Accepted);
}

void ApprovalPrompt::openRuleDialog()
{
    auto *dialog = new RuleDialog(m_request, m_saving, m_box);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RuleDialog::answered, this, &ApprovalPrompt::answer);
    connect(dialog, &QDialog::rejected, this, &ApprovalPrompt::restartDelay);
    m_ruleDialog = dialog;
    dialog->open();
}

void ApprovalPrompt::openReasonDialog()
{
    auto *dialog = new QInputDialog(m_box);
    dialog->setObjectName(u"approvalReasonDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setWindowTitle(tr("Deny with a reason"));
    dialog->setOption(QInputDialog::UsePlainTextEditForTextInput);
    dialog->setLabelText(tr("The model reads this with the denial (at most %1 characters):")
                                 .arg(QLocale().toString(maximumReasonLength)));
    dialog->setOkButtonText(tr("&Deny"));
    // Bounded as it is typed: the model reads every character of it.
    connect(dialog, &QInputDialog::textValueChanged, dialog, [dialog](const QString &text) {
        if (text.size() > maximumReasonLength)
            dialog->setTextValue(text.left(maximumReasonLength));
    });
    connect(dialog, &QInputDialog::textValueSelected, this, [this](const QString &text) {
        answer(AgentLoop::ApprovalAnswer::deny(text.trimmed().left(maximumReasonLength)));
    });
    connect(dialog, &QDialog::rejected, this, &ApprovalPrompt::restartDelay);
    m_reasonDialog = dialog;
    dialog->open();
}

void ApprovalPrompt::restartDelay()
{
    if (m_decided)
        return;
    m_delayOver = false;
    m_delayTimer.start();
    updateAllow();
}

QWidget *ApprovalPrompt::createPanel()
{
    auto *panel = new QWidget(m_box);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);

    if (!m_request.check.explanation.isEmpty() || !m_request.check.details.isEmpty()) {
        QWidget *why = createWhyAsked(m_request.check, panel);
        layout->addWidget(why);
        layout->addSpacing(why->fontMetrics().height() / 2);
    }

    if (m_mcp) {
        QWidget *details = createMcpDetails(panel);
        layout->addWidget(details);
        layout->addSpacing(details->fontMetrics().height() / 2);
    }

    if (m_kind == AgentLoop::CallPreview::Command) {
        auto *note = new QLabel(tr("Commands are not confined to the workspace: a command can read "
                                   "and change anything your account can."),
                                panel);
        note->setObjectName(u"approvalSandboxNote"_s);
        note->setTextFormat(Qt::PlainText);
        note->setWordWrap(true);
        layout->addWidget(note);
        layout->addSpacing(note->fontMetrics().height() / 2);
    }

    // What is not what it seems, above the text it is in.
    auto *warnings = new QFrame(panel);
    warnings->setObjectName(u"approvalWarnings"_s);
    warnings->setAccessibleName(tr("Warning"));
    warnings->setAutoFillBackground(true);
    auto *warningsLayout = new QHBoxLayout(warnings);
    warningsLayout->setContentsMargins(8, 6, 8, 6);
    auto *icon = new QLabel(warnings);
    const int iconSize = m_box->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, m_box);
    icon->setPixmap(m_box->style()
                            ->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, m_box)
                            .pixmap(iconSize));
    warningsLayout->addWidget(icon, 0, Qt::AlignTop);
    auto *warningTexts = new QVBoxLayout;
    warningTexts->setSpacing(2);
    for (QPointer<QLabel> *label : {&m_escapedWarning, &m_lookAlikeWarning}) {
        auto *warning = new QLabel(warnings);
        warning->setTextFormat(Qt::PlainText);
        warning->setWordWrap(true);
        warningTexts->addWidget(warning);
        *label = warning;
    }
    m_escapedWarning->setObjectName(u"approvalEscapedWarning"_s);
    m_lookAlikeWarning->setObjectName(u"approvalLookAlikeWarning"_s);
    warningsLayout->addLayout(warningTexts, 1);
    layout->addWidget(warnings);
    m_warnings = warnings;

    auto *view = new View(panel);
    view->setObjectName(u"approvalArguments"_s);
    view->setReadOnly(true);
    view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    view->setTabChangesFocus(true);
    view->setFont(monospaceFont());
    view->document()->setUndoRedoEnabled(false);
    const QFontMetricsF metrics(view->font());
    view->setTabStopDistance(metrics.horizontalAdvance(u' ') * 8);
    // QMessageBox gives its contents their minimum width: make that a readable line, but never
    // wider than a small screen allows.
    const QRect screen = m_box->screen()->availableGeometry();
    view->setMinimumWidth(
            std::min(int(std::ceil(metrics.horizontalAdvance(u'0') * (viewColumns + 2))),
                     screen.width() * 2 / 3));

    if (m_kind == AgentLoop::CallPreview::FileEdit) {
        // The file as the user knows it: where it is, and how it is and stays stored.
        const AgentLoop::FileChange &change = m_preview.fileChange;
        const QString path = AgentLoop::displayedLine(change.path, 1000);
        const QString encoding = AgentLoop::displayedLine(change.encoding, 200);
        QString title;
        if (encoding.isEmpty())
            title = change.newFile ? tr("Create %1").arg(path) : tr("Edit %1").arg(path);
        else
            title = change.newFile ? tr("Create %1 (%2)").arg(path, encoding)
                                   : tr("Edit %1 (%2)").arg(path, encoding);
        m_fileLabel = new QLabel(panel);
        m_fileLabel->setObjectName(u"approvalFile"_s);
        m_fileLabel->setTextFormat(Qt::PlainText);
        QFont bold = m_fileLabel->font();
        bold.setBold(true);
        m_fileLabel->setFont(bold);
        // A path has no spaces to wrap at: a long one is shortened in its middle, and is whole in
        // the tooltip and the arguments.
        m_fileLabel->setText(
                QFontMetrics(bold).elidedText(title, Qt::ElideMiddle, view->minimumWidth()));
        m_fileLabel->setAccessibleName(title);
        if (m_fileLabel->text() != title)
            m_fileLabel->setToolTip(plainToolTip(title));
        layout->addWidget(m_fileLabel);
    }

    m_caption = new QLabel(panel);
    m_caption->setObjectName(u"approvalCaption"_s);
    m_caption->setTextFormat(Qt::PlainText);
    m_caption->setWordWrap(true);
    m_caption->setBuddy(view);
    layout->addWidget(m_caption);

    layout->addWidget(view);
    m_view = view;
    connect(view->verticalScrollBar(),
            &QScrollBar::valueChanged,
            this,
            &ApprovalPrompt::updateRangeLabel);
    connect(view->verticalScrollBar(),
            &QScrollBar::rangeChanged,
            this,
            &ApprovalPrompt::updateRangeLabel);

    m_rangeLabel = new QLabel(panel);
    m_rangeLabel->setObjectName(u"approvalLines"_s);
    m_rangeLabel->setTextFormat(Qt::PlainText);
    m_rangeLabel->setWordWrap(true);
    m_rangeLabel->hide();
    layout->addWidget(m_rangeLabel);

    auto *previewRow = new QHBoxLayout;
    m_previewLabel = new QLabel(panel);
    m_previewLabel->setObjectName(u"approvalPreview"_s);
    m_previewLabel->setTextFormat(Qt::PlainText);
    m_previewLabel->setWordWrap(true);
    previewRow->addWidget(m_previewLabel, 1);
    m_showAll = new QPushButton(tr("Show all"), panel);
    m_showAll->setObjectName(u"approvalShowAll"_s);
    connect(m_showAll, &QPushButton::clicked, this, &ApprovalPrompt::showAll);
    previewRow->addWidget(m_showAll, 0, Qt::AlignTop);
    if (m_kind == AgentLoop::CallPreview::FileEdit) {
        m_argumentsToggle = new QPushButton(tr("Show arguments"), panel);
        m_argumentsToggle->setObjectName(u"approvalArgumentsToggle"_s);
        connect(m_argumentsToggle, &QPushButton::clicked, this, &ApprovalPrompt::toggleArguments);
        previewRow->addWidget(m_argumentsToggle, 0, Qt::AlignRight | Qt::AlignTop);
    }
    layout->addLayout(previewRow);

    // Kept in the layout when hidden, so that nothing moves under the pointer when Allow wakes.
    m_delayLabel = new QLabel(tr("Allow is available in a moment."), panel);
    m_delayLabel->setObjectName(u"approvalDelay"_s);
    m_delayLabel->setTextFormat(Qt::PlainText);
    m_delayLabel->setWordWrap(true);
    QSizePolicy policy = m_delayLabel->sizePolicy();
    policy.setRetainSizeWhenHidden(true);
    m_delayLabel->setSizePolicy(policy);
    layout->addWidget(m_delayLabel);

    applyWarningColours();
    showText(m_preview.text);
    return panel;
}

// The rules' verdict in the user's terms: the explanation, then one line per part of the call.
QWidget *ApprovalPrompt::createWhyAsked(const AgentLoop::PermissionCheck &check, QWidget *parent)
{
    auto *why = new QWidget(parent);
    why->setObjectName(u"approvalWhy"_s);
    auto *layout = new QVBoxLayout(why);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    const auto addLabel = [&](const QString &text, const QString &name) {
        auto *label = new QLabel(text, why);
        label->setObjectName(name);
        label->setTextFormat(Qt::PlainText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(label);
        return label;
    };
    if (!check.explanation.isEmpty()) {
        QLabel *explanation = addLabel(AgentLoop::displayedLine(check.explanation, 1000),
                                       u"approvalExplanation"_s);
        QFont bold = explanation->font();
        bold.setBold(true);
        explanation->setFont(bold);
    }
    if (!check.details.isEmpty()) {
        QStringList lines;
        const qsizetype shown = std::min<qsizetype>(check.details.size(), maximumDetailLines);
        for (qsizetype i = 0; i < shown; ++i)
            lines << u"• "_s + AgentLoop::displayedLine(check.details.at(i), 300);
        if (check.details.size() > shown)
            lines << tr("… and %Ln more", nullptr, pluralCount(check.details.size() - shown));
        addLabel(lines.join(u'\n'), u"approvalDetails"_s);
    }
    return why;
}

// The server, the tool and its description, as the server gave them, and whether the arguments
// were checked.
QWidget *ApprovalPrompt::createMcpDetails(QWidget *parent)
{
    auto *details = new QWidget(parent);
    details->setObjectName(u"approvalMcp"_s);
    auto *form = new QFormLayout(details);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const auto addLine = [&](const QString &label, const QString &text, const QString &name) {
        auto *value = new QLabel(text, details);
        value->setObjectName(name);
        value->setTextFormat(Qt::PlainText);
        value->setWordWrap(true);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(label, value);
        return value;
    };
    addLine(tr("Server:"), AgentLoop::displayedLine(m_mcp->server, 200), u"approvalMcpServer"_s);
    QString tool = AgentLoop::displayedLine(m_mcp->tool, 200);
    if (!m_mcp->title.isEmpty() && m_mcp->title != m_mcp->tool)
        tool = tr("%1 (%2)").arg(tool, AgentLoop::displayedLine(m_mcp->title, 200));
    if (m_mcp->destructiveHint)
        tool += u" — "_s + tr("the server marks it destructive");
    else if (m_mcp->readOnlyHint)
        tool += u" — "_s + tr("the server marks it read-only");
    addLine(tr("Tool:"), tool, u"approvalMcpTool"_s);
    // As much of the description as the model reads, in a view that scrolls when it is long.
    auto *description = new QPlainTextEdit(details);
    description->setObjectName(u"approvalMcpDescription"_s);
    description->setAccessibleName(tr("Description of the tool"));
    description->setReadOnly(true);
    description->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    description->setTabChangesFocus(true);
    description->setFrameShape(QFrame::NoFrame);
    description->document()->setDocumentMargin(0); // its text lines up with the labels' above
    description->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    description->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    QPalette palette = description->palette();
    palette.setColor(QPalette::Base, palette.color(QPalette::Window));
    description->setPalette(palette);
    const QString text
            = m_mcp->description.trimmed().isEmpty()
                      ? tr("(none)")
                      : AgentLoop::displayed(m_mcp->description,
                                             {true, true, false, AgentLoop::mcpDescriptionLimit});
    description->setPlainText(text);
    const int lines = int(
            std::clamp<qsizetype>(text.count(u'\n') + 1 + text.size() / viewColumns, 1, 4));
    description->setFixedHeight(description->fontMetrics().lineSpacing() * lines + 4);
    form->addRow(tr("Description:"), description);
    if (!m_mcp->unsupportedKeywords.isEmpty()) {
        QLabel *skipped = addLine(
                QString(),
                tr("The arguments were not checked against the tool's input schema: it uses %1, "
                   "which Agent Loop cannot check. Read them below.")
                        .arg(AgentLoop::displayedLine(m_mcp->unsupportedKeywords.join(u", "_s),
                                                      300)),
                u"approvalMcpValidationSkipped"_s);
        QPalette amber = skipped->palette();
        amber.setColor(QPalette::WindowText,
                       amber.color(QPalette::Window).lightness() < 128 ? QColor(0xff, 0xcc, 0x66)
                                                                       : QColor(0x8a, 0x52, 0x00));
        skipped->setPalette(amber);
    }
    return details;
}

void ApprovalPrompt::showText(const QString &source)
{
    View *view = m_view;
    const AgentLoop::CallPreview::Kind kind = shownKind();
    m_scanTimer.stop();
    m_fillTimer.stop();
    view->clear();
    view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    view->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    view->setAccessibleName(kind == AgentLoop::CallPreview::Command    ? tr("Command that will run")
                            : kind == AgentLoop::CallPreview::FileEdit ? tr("Changes to the file")
                                                                       : tr("Arguments of the tool "
                                                                            "call"));
    m_showingAll = false;
    m_brokeLinesAt = 0;
    m_filled = 0;
    m_nextMark = 0;
    m_column = 0;
    m_lineStart = true;
    m_lineFormat = {};

    // The text, sanitised: all of it when short, else its beginning now and the rest in slices.
    AgentLoop::DisplayOptions options;
    options.markLookAlikes = kind != AgentLoop::CallPreview::Arguments;
    m_shown = std::make_unique<Sanitiser>(source, options);
    m_large = source.size() > previewLength;
    m_shown->step(previewLength);
    m_previewEnd = m_shown->text().size();
    m_sourceBytes = QStringView(source).toUtf8().size();
    m_previewSourceBytes = m_large ? QStringView(source).first(m_shown->consumed()).toUtf8().size()
                                   : m_sourceBytes;
    // Qt breaks a word into lines in a time that grows with the square of its length: wrap
    // anywhere when there is a long one (a word longer than a line is broken anywhere anyway).
    if (longestWord(QStringView(m_shown->text()).first(m_previewEnd)) > 1000)
        view->setWordWrapMode(QTextOption::WrapAnywhere);
    {
        QTextCursor cursor(view->document());
        cursor.beginEditBlock();
        appendToView(cursor, m_previewEnd, previewLineBreak);
        cursor.endEditBlock();
    }
    if (!m_shown->isComplete())
        m_scanTimer.start();

    updateCaption();
    updateWarnings();
    updatePreviewLabel();
    updateAllow();
    // About the height it will have once it has its width (fitView() counts the lines then), so
    // that the box opens at about its size.
    qsizetype estimatedLines = 0;
    for (const QStringView line : QStringView(m_shown->text()).first(m_previewEnd).split(u'\n')) {
        estimatedLines += std::max<qsizetype>(1, (line.size() + viewColumns - 1) / viewColumns);
        if (estimatedLines > maximumVisibleLines)
            break;
    }
    const int screenHeight = m_box->screen()->availableGeometry().height();
    const int estimate = QFontMetrics(view->font()).lineSpacing()
                                 * int(std::min<qsizetype>(estimatedLines, maximumVisibleLines))
                         + 2 * int(view->document()->documentMargin()) + 2 * view->frameWidth() + 1;
    view->setFixedHeight(std::min(estimate, screenHeight / 3));
    // A text that will scroll gets its scroll bar now, not after a first layout (which the width
    // it takes would undo).
    if (estimatedLines > maximumVisibleLines)
        view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    fitView();
}

void ApprovalPrompt::toggleArguments()
{
    if (m_kind != AgentLoop::CallPreview::FileEdit || !m_view)
        return;
    m_showingArguments = !m_showingArguments;
    m_argumentsToggle->setText(m_showingArguments ? tr("Show changes") : tr("Show arguments"));
    // The box changes its size, and what was near the pointer moves: Allow sleeps again, so that
    // the second click of a double-click on this button cannot land on it.
    m_delayOver = false;
    m_delayTimer.start();
    showText(m_showingArguments ? m_arguments : m_preview.text);
}

AgentLoop::CallPreview::Kind ApprovalPrompt::shownKind() const
{
    return m_showingArguments ? AgentLoop::CallPreview::Arguments : m_kind;
}

void ApprovalPrompt::updateCaption()
{
    const QLocale locale;
    const AgentLoop::CallPreview::Kind kind = shownKind();
    const QString &source = m_showingArguments ? m_arguments : m_preview.text;
    if (kind == AgentLoop::CallPreview::FileEdit) {
        const AgentLoop::FileChange &change = m_preview.fileChange;
        m_caption->setText(source.isEmpty() ? tr("Changes (none):")
                                            : tr("Changes (+%1 −%2 lines):")
                                                      .arg(locale.toString(change.addedLines),
                                                           locale.toString(change.removedLines)));
        return;
    }
    const bool command = kind == AgentLoop::CallPreview::Command;
    const qsizetype lines = source.isEmpty() ? 0 : source.count(u'\n') + 1;
    const QString size = tr("%Ln line(s)", nullptr, pluralCount(lines)) + u", "_s
                         + tr("%Ln character(s)", nullptr, pluralCount(codePointCount(source)));
    if (source.isEmpty())
        m_caption->setText(command ? tr("Command (empty):") : tr("Arguments (empty):"));
    else
        m_caption->setText(command ? tr("Command (%1):").arg(size)
                                   : tr("Arguments (%1):").arg(size));
}

ApprovalPrompt::~ApprovalPrompt()
{
    // The box (or its parent) is being destroyed while the question is open: fail closed.
    decide(AgentLoop::ApprovalAnswer::deny());
}

QPlainTextEdit *ApprovalPrompt::argumentsView() const
{
    return m_view.data();
}

bool ApprovalPrompt::eventFilter(QObject *watched, QEvent *event)
{
    // Compared as a QObject: the filter also sees the box's last events while it is destroyed,
    // when it is no QMessageBox any more (QPointer<QMessageBox>'s cast would be undefined).
    if (watched == m_boxObject) {
        switch (event->type()) {
        case QEvent::Show:
            if (!m_delayOver && !m_delayTimer.isActive())
                m_delayTimer.start();
            break;
        case QEvent::KeyPress: {
            // QMessageBox::keyPressEvent presses any button whose shortcut's key comes without
            // Alt, Ctrl or Meta: "maybe" typed into the prompt as the box appears must not allow.
            const auto *key = static_cast<QKeyEvent *>(event);
            const Qt::KeyboardModifiers chords = Qt::AltModifier | Qt::ControlModifier
                                                 | Qt::MetaModifier;
            if (key->modifiers() & chords)
                break;
            for (QPushButton *button : {m_allow.data(),
                                        m_allowForConversation.data(),
                                        m_alwaysAllow.data(),
                                        m_deny.data(),
                                        m_denyWithReason.data()}) {
                const QKeySequence shortcut = button ? button->shortcut() : QKeySequence();
                if (!shortcut.isEmpty() && Qt::Key(key->key()) == shortcut[0].key())
                    return true;
            }
            break;
        }
        case QEvent::PaletteChange:
            applyWarningColours();
            if (m_view && shownKind() == AgentLoop::CallPreview::FileEdit)
                recolorDiff(*m_view->document(), DiffColors(m_box->palette()));
            break;
        default:
            break;
        }
    } else if (m_view && watched == m_view->viewport() && event->type() == QEvent::Resize) {
        // QPlainTextEdit lays its text out again after this: count the lines after it.
        m_fitTimer.start();
    }
    return QObject::eventFilter(watched, event);
}

void ApprovalPrompt::decide(const AgentLoop::ApprovalAnswer &answer)
{
    if (m_decided)
        return;
    m_decided = true;
    m_delayTimer.stop();
    m_scanTimer.stop();
    m_fillTimer.stop();
    m_fitTimer.stop();
    emit decided(m_requestId, answer);
}

// Appends the sanitised text up to `to` (or to the end of the mark it falls in) at the cursor, its
// marks highlighted, lines broken at lineBreak with a marker.
void ApprovalPrompt::appendToView(QTextCursor &cursor, qsizetype to, qsizetype lineBreak)
{
    const QString &text = m_shown->text();
    const QList<AgentLoop::DisplayMark> &marks = m_shown->marks();
    const bool diff = shownKind() == AgentLoop::CallPreview::FileEdit;
    const DiffColors colors(m_box->palette());
    const QTextCharFormat marked = markFormat();
    QString run; // plain text not inserted yet
    const auto flush = [&] {
        if (!run.isEmpty()) {
            cursor.insertText(run, m_lineFormat);
            run.clear();
        }
    };
    // A line of a diff begins at position: its block and its text get the colours of its kind.
    // The lines a long one is broken into are its own (the new block keeps the format).
    const auto startLine = [&](qsizetype position) {
        flush();
        const DiffLine kind = diffLineKind(QStringView(text).sliced(position));
        cursor.setBlockFormat(diffBlockFormat(kind, colors));
        m_lineFormat = diffCharFormat(kind, colors);
        m_lineStart = false;
    };
    const auto breakLine = [&] {
        flush();
        cursor.insertText(QString(QChar(continuationMarker)), continuationFormat());
        run += u'\n';
        m_column = 0;
        m_brokeLinesAt = lineBreak;
    };
    const auto appendPlain = [&](QStringView part) {
        while (!part.isEmpty()) {
            if (diff && m_lineStart)
                startLine(part.data() - text.constData());
            const qsizetype lineFeed = part.indexOf(u'\n');
            const qsizetype lineLength = lineFeed < 0 ? part.size() : lineFeed;
            if (m_column + lineLength > lineBreak) {
                qsizetype take = std::max<qsizetype>(0, lineBreak - m_column);
                if (take > 0 && take < part.size() && QChar::isLowSurrogate(part[take].unicode()))
                    ++take;
                run += part.first(take);
                part = part.sliced(take);
                breakLine();
                continue;
            }
            const qsizetype take = lineFeed < 0 ? part.size() : lineFeed + 1;
            run += part.first(take);
            m_column = lineFeed < 0 ? m_column + take : 0;
            m_lineStart = lineFeed >= 0;
            part = part.sliced(take);
        }
    };

    qsizetype position = m_filled;
    while (position < to) {
        const qsizetype markStart = m_nextMark < marks.size() ? marks.at(m_nextMark).position
                                                              : text.size();
        if (position < markStart) {
            const qsizetype end = std::min(to, markStart);
            appendPlain(QStringView(text).sliced(position, end - position));
            position = end;
            continue;
        }
        const AgentLoop::DisplayMark &mark = marks.at(m_nextMark);
        if (diff && m_lineStart)
            startLine(mark.position);
        if (m_column > 0 && m_column + mark.length > lineBreak)
            breakLine();
        flush();
        cursor.insertText(text.mid(mark.position, mark.length), marked);
        m_column += mark.length;
        position = mark.position + mark.length;
        ++m_nextMark;
    }
    flush();
    m_filled = position;
}

void ApprovalPrompt::scanSlice()
{
    QElapsedTimer clock;
    clock.start();
    do {
        m_shown->step(pieceLength);
    } while (!m_shown->isComplete() && clock.elapsed() < sliceMilliseconds);
    updateWarnings();
    if (m_shown->isComplete()) {
        m_scanTimer.stop();
        updatePreviewLabel();
        updateAllow();
        // An MCP call's arguments are never shown in part: all of them go into the view.
        if (m_mcp && m_large)
            showAll();
    }
}

void ApprovalPrompt::showAll()
{
    if (m_showingAll || !m_shown->isComplete() || !m_view)
        return;
    // The button goes away: the focus must not move on to Allow, where Enter would allow.
    if (m_showAll->hasFocus())
        m_deny->setFocus();
    m_showAll->hide();
    m_showingAll = true;
    // Every line as one line, long ones broken, filled in slices: no single layout is long.
    m_view->clear();
    m_view->document()->setUndoRedoEnabled(false);
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_filled = 0;
    m_nextMark = 0;
    m_column = 0;
    m_brokeLinesAt = 0;
    m_lineStart = true;
    m_lineFormat = {};
    m_fillTimer.start();
    updatePreviewLabel();
    fitView();
}

void ApprovalPrompt::fillSlice()
{
    const qsizetype size = m_shown->text().size();
    QElapsedTimer clock;
    clock.start();
    // One edit block a slice: the view lays out and repaints once for it.
    QTextCursor cursor(m_view->document());
    cursor.movePosition(QTextCursor::End);
    cursor.beginEditBlock();
    do {
        appendToView(cursor, std::min(size, m_filled + pieceLength / 4), showAllLineBreak);
    } while (m_filled < size && clock.elapsed() < sliceMilliseconds);
    cursor.endEditBlock();
    if (m_filled >= size) {
        m_fillTimer.stop();
        fitView();
        updateAllow();
    }
    updatePreviewLabel();
    updateRangeLabel();
}

void ApprovalPrompt::fitView()
{
    if (!m_view || !m_view->isVisible())
        return;
    const int screenHeight = m_view->screen()->availableGeometry().height();
    const int height = std::max(m_view->heightFor(1),
                                std::min(m_view->heightFor(maximumVisibleLines), screenHeight / 3));
    if (m_view->minimumHeight() != height || m_view->maximumHeight() != height)
        m_view->setFixedHeight(height);
    updateRangeLabel();
}

void ApprovalPrompt::updateRangeLabel()
{
    // Before the box is shown the view has no width to lay its lines out at.
    if (!m_view || !m_rangeLabel || !m_view->isVisible())
        return;
    const View::Lines lines = m_view->visibleLines();
    const bool more = lines.first != 1 || lines.last < lines.total;
    if (!more) {
        m_rangeLabel->hide();
        return;
    }
    const QLocale locale;
    const qsizetype first = lines.first > 0 ? lines.first
                                            : m_view->verticalScrollBar()->value() + 1;
    const qsizetype last = std::max(first, lines.last);
    const QString text = last < lines.total ? tr("Showing lines %1–%2 of %3 — scroll for the rest")
                                            : tr("Showing lines %1–%2 of %3");
    m_rangeLabel->setText(
            text.arg(locale.toString(first), locale.toString(last), locale.toString(lines.total)));
    m_rangeLabel->show();
}

void ApprovalPrompt::updatePreviewLabel()
{
    const qsizetype shown = m_shown->text().size();
    QStringList text;
    if (m_large && !m_showingAll) {
        text << tr("Showing the first %1 of %2.")
                        .arg(formattedSize(m_previewSourceBytes), formattedSize(m_sourceBytes));
    } else if (m_large && m_filled < shown) {
        const qsizetype percent = shown > 0 ? m_filled * 100 / shown : 100;
        text << tr("Loading the whole text… %1%").arg(QLocale().toString(percent));
    } else if (m_large) {
        text << tr("Showing all %1.").arg(formattedSize(m_sourceBytes));
    }
    if (m_brokeLinesAt > 0 && (!m_showingAll || m_filled >= shown))
        text << tr("Lines longer than %1 characters continue on the next line after ↩.")
                        .arg(QLocale().toString(m_brokeLinesAt));
    if (shownKind() == AgentLoop::CallPreview::FileEdit && m_preview.fileChange.diffTruncated)
        text << tr("Only the beginning of the change is shown here; Show arguments has all of it.");
    m_previewLabel->setText(text.join(u' '));
    m_previewLabel->setAccessibleName(m_previewLabel->text());
    m_previewLabel->setVisible(!text.isEmpty());
    // Show all waits for the whole text to be checked.
    m_showAll->setVisible(m_large && !m_showingAll);
    m_showAll->setEnabled(m_shown->isComplete());
}

void ApprovalPrompt::updateWarnings()
{
    const AgentLoop::CallPreview::Kind kind = shownKind();
    const qsizetype escaped = m_shown->escapedCharacters();
    const qsizetype lookAlikes = m_shown->lookAlikes();
    switch (kind) {
    case AgentLoop::CallPreview::Command:
        m_escapedWarning->setText(tr("This command contains %Ln invisible or control character(s), "
                                     "shown as ⟨U+…⟩.",
                                     nullptr,
                                     pluralCount(escaped)));
        m_lookAlikeWarning->setText(tr("This command contains %Ln letter(s) from another script "
                                       "that look like Latin ones (marked).",
                                       nullptr,
                                       pluralCount(lookAlikes)));
        break;
    case AgentLoop::CallPreview::FileEdit:
        m_escapedWarning->setText(tr("This change contains %Ln invisible or control character(s), "
                                     "shown as ⟨U+…⟩.",
                                     nullptr,
                                     pluralCount(escaped)));
        m_lookAlikeWarning->setText(tr("This change contains %Ln letter(s) from another script "
                                       "that look like Latin ones (marked).",
                                       nullptr,
                                       pluralCount(lookAlikes)));
        break;
    case AgentLoop::CallPreview::Arguments:
        m_escapedWarning->setText(tr("These arguments contain %Ln invisible or control "
                                     "character(s), shown as ⟨U+…⟩.",
                                     nullptr,
                                     pluralCount(escaped)));
        m_lookAlikeWarning->clear(); // not marked in arguments
        break;
    }
    m_escapedWarning->setAccessibleName(m_escapedWarning->text());
    m_lookAlikeWarning->setAccessibleName(m_lookAlikeWarning->text());
    m_escapedWarning->setVisible(escaped > 0);
    m_lookAlikeWarning->setVisible(lookAlikes > 0);
    m_warnings->setVisible(escaped > 0 || lookAlikes > 0);

    QStringList description;
    if (m_fileLabel)
        description << m_fileLabel->accessibleName();
    description << m_caption->text();
    if (escaped > 0)
        description << m_escapedWarning->text();
    if (lookAlikes > 0)
        description << m_lookAlikeWarning->text();
    m_view->setAccessibleDescription(description.join(u' '));
}

bool ApprovalPrompt::isWholeTextShown() const
{
    return !m_large || (m_showingAll && m_filled >= m_shown->text().size());
}

void ApprovalPrompt::updateAllow()
{
    const bool ready = m_delayOver && m_shown->isComplete() && (!m_mcp || isWholeTextShown());
    m_allow->setEnabled(ready);
    m_allowForConversation->setEnabled(ready);
    m_alwaysAllow->setEnabled(ready && !m_request.suggestedRules.isEmpty());
    m_delayLabel->setVisible(!ready);
}

void ApprovalPrompt::applyWarningColours()
{
    if (m_box.isNull() || !m_warnings)
        return;
    // A pale amber band on a light window, a dark one on a dark window; text that reads on it.
    const bool dark = m_box->palette().color(QPalette::Window).lightness() < 128;
    QPalette palette = m_warnings->palette();
    palette.setColor(QPalette::Window, dark ? QColor(0x4a, 0x3a, 0x05) : QColor(0xff, 0xf3, 0xcd));
    palette.setColor(QPalette::WindowText,
                     dark ? QColor(0xff, 0xe0, 0x8a) : QColor(0x5c, 0x40, 0x00));
    m_warnings->setPalette(palette);
}

AgentLoop::CallPreview ApprovalPrompt::previewOf(const AgentLoop::ApprovalRequest &request)
{
    const AgentLoop::CallPreview &preview = request.preview;
    if (preview.kind == AgentLoop::CallPreview::Command || !preview.text.isEmpty()
        || (preview.kind == AgentLoop::CallPreview::FileEdit && !preview.fileChange.isEmpty()))
        return preview;
    AgentLoop::CallPreview arguments;
    arguments.kind = AgentLoop::CallPreview::Arguments;
    arguments.text = argumentsText(request);
    return arguments;
}

QString ApprovalPrompt::argumentsText(const AgentLoop::ApprovalRequest &request)
{
    if (request.argumentsObject.isEmpty() && !request.arguments.isEmpty())
        return request.arguments; // not an object: as it came (sanitised when shown)
    QString text = QString::fromUtf8(
            QJsonDocument(request.argumentsObject).toJson(QJsonDocument::Indented));
    while (text.endsWith(u'\n'))
        text.chop(1);
    return text;
}

} // namespace Gui
