#include "chat/chatdelegate.h"

#include "chat/chatmodel.h"
#include "chat/chatstyle.h"
#include "chat/markdownbody.h"
#include "diffstyle.h"
#include "inspector/jsonformat.h"

#include <QAbstractItemView>
#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QDesktopServices>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSet>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// Spacing in units of a third of the font's line height, so that the cards scale with the font
// and the screen's DPI alike.
struct Metrics
{
    explicit Metrics(const QFont &font)
    {
        const QFontMetrics fm(font);
        line = fm.height();
        unit = qMax(3, line / 3);
        outerX = 3 * unit;
        outerY = unit;
        padX = 2 * unit + unit / 2;
        padY = 2 * unit;
        gap = unit + unit / 2;
        radius = qMax(4, unit + unit / 3);
    }

    int line = 0;
    int unit = 0;
    int outerX = 0;
    int outerY = 0;
    int padX = 0;
    int padY = 0;
    int gap = 0;
    int radius = 0;
};

ChatItem::Kind kindOf(const QModelIndex &index)
{
    return ChatItem::Kind(index.data(ChatModel::KindRole).toInt());
}

int viewWidth(const QStyleOptionViewItem &option)
{
    if (const auto *view = qobject_cast<const QAbstractItemView *>(option.widget))
        return view->viewport()->width();
    return option.rect.width();
}

QString durationText(qint64 ms)
{
    if (ms < 0)
        return {};
    if (ms < 1000)
        return ChatDelegate::tr("%1 ms").arg(ms);
    return ChatDelegate::tr("%1 s").arg(QLocale().toString(double(ms) / 1000.0, 'f', 1));
}

std::unique_ptr<QTextDocument> plainDocument(const QString &text, const QFont &font)
{
    auto document = newTextDocument(font);
    document->setPlainText(text);
    return document;
}

std::unique_ptr<QTextDocument> errorDocument(const QString &message,
                                             const QString &hint,
                                             const QFont &font)
{
    auto document = newTextDocument(font);
    QTextCursor cursor(document.get());
    QTextCharFormat bold;
    bold.setFontWeight(QFont::Bold);
    cursor.insertText(message, bold);
    if (!hint.isEmpty()) {
        QTextBlockFormat spaced;
        spaced.setTopMargin(QFontMetrics(font).height() / 3.0);
        cursor.insertBlock(spaced, QTextCharFormat());
        cursor.insertText(hint, QTextCharFormat());
    }
    return document;
}

// A diff as shown text, a block a line, each with its kind; paint() draws the lines' backgrounds
// across the whole code area, their text is coloured here.
std::unique_ptr<QTextDocument> diffDocument(const QString &text,
                                            const QFont &font,
                                            const DiffColors &colors)
{
    auto document = newTextDocument(font);
    QTextCursor cursor(document.get());
    bool first = true;
    for (const QStringView line : QStringView(text).split(u'\n')) {
        const DiffLine kind = diffLineKind(line);
        QTextBlockFormat format;
        format.setProperty(diffLineProperty, int(kind));
        if (first)
            cursor.setBlockFormat(format);
        else
            cursor.insertBlock(format);
        first = false;
        cursor.insertText(line.toString(), diffCharFormat(kind, colors));
    }
    return document;
}

// A diff's added and removed lines (and its hunk headers) as bands across the whole of area, the
// code background, under the document laid out at origin; only those that meet visible.
void drawDiffLines(QPainter *painter,
                   const QTextDocument &document,
                   const QPointF &origin,
                   const QPainterPath &area,
                   const QRectF &visible,
                   const DiffColors &colors)
{
    painter->save();
    painter->setClipPath(area);
    const QRectF bounds = area.boundingRect();
    const QAbstractTextDocumentLayout *layout = document.documentLayout();
    for (QTextBlock block = document.firstBlock(); block.isValid(); block = block.next()) {
        const QRectF rect = layout->blockBoundingRect(block).translated(origin);
        if (rect.top() > visible.bottom())
            break;
        if (rect.bottom() < visible.top())
            continue;
        const int kind = block.blockFormat().property(diffLineProperty).toInt();
        if (const QColor band = diffLineBackground(DiffLine(kind), colors); band.isValid())
            painter->fillRect(QRectF(bounds.left(), rect.top(), bounds.width(), rect.height()),
                              band);
    }
    painter->restore();
}

QString firstLines(const QString &text, int lines)
{
    qsizetype position = -1;
    for (int i = 0; i < lines; ++i) {
        position = text.indexOf(u'\n', position + 1);
        if (position < 0)
            return text;
    }
    return text.left(position);
}

} // namespace

struct ChatDelegate::Layout
{
    int width = 0;
    bool collapsed = true;
    QSize size;
    QRect card;  // relative to the item's top left
    QRect badge; // empty when the item has none
    QRect header;
    QString headerText;
    QRect body;
    // The body: an assistant's answer as Markdown sections, any other item as one document.
    std::unique_ptr<MarkdownBody> markdown;
    std::unique_ptr<QTextDocument> document;
    QRect toggle; // "Show all" / "Show less"; empty when the output is short
    QString toggleText;
    // AssistantText with reasoning: toggle is the "Reasoning" fold above the body, and, unfolded,
    // reasoningDocument is shown in reasoningRect.
    bool reasoningFold = false;
    std::unique_ptr<QTextDocument> reasoningDocument;
    QRect reasoningRect;
    // The item changed since: laid out again when next needed, reusing markdown.
    bool stale = false;
    // ToolResult whose whole output is in a file: "Full output: 200.0 MB", then its links.
    QString outputFilePath;
    QString outputFileText;
    QRect outputFileLabel;
    QRect openOutputLink;
    QRect outputFolderLink;
    // FileChange: the encoding and the counts at the right of the header; under the diff, the
    // links to the file (none to open a file the desktop would run) and its folder.
    QString encodingText;
    QRect encodingRect;
    QString addedText;
    QRect addedRect;
    QString removedText;
    QRect removedRect;
    QString changedFilePath;
    QRect openFileLink;
    QRect openFolderLink;
};

namespace {

QString openOutputText()
{
    return ChatDelegate::tr("Open");
}

QString showOutputFolderText()
{
    return ChatDelegate::tr("Show in folder");
}

QString openFileText()
{
    return ChatDelegate::tr("Open file");
}

QString openFolderText()
{
    return ChatDelegate::tr("Open folder");
}

void drawLink(QPainter *painter,
              const QStyleOptionViewItem &option,
              const QRect &rect,
              const QString &text)
{
    QFont linkFont = option.font;
    linkFont.setUnderline(true);
    painter->setFont(linkFont);
    painter->setPen(option.palette.color(QPalette::Link));
    painter->drawText(rect, Qt::AlignLeft | Qt::AlignVCenter, text);
}

} // namespace

void openLocalFile(const QString &path)
{
    QDesktopServices::openUrl(QUrl::fromLocalFile(path));
}

void showInFolder(const QString &path)
{
    // Opening the folder works everywhere; selecting the file in it would take a different
    // program per platform.
    QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).absolutePath()));
}

bool opensAsDocument(const QString &path)
{
    // What Windows runs when it is opened (its PATHEXT, the script hosts, shortcuts, installers,
    // control panel items, registry files, interpreted scripts), what Linux and macOS desktops
    // run (launchers, scripts), and packages and disk images that install or mount.
    static const QSet<QString>
            runs{u"exe"_s,         u"com"_s,    u"bat"_s,       u"cmd"_s,
                 u"ps1"_s,         u"psm1"_s,   u"psd1"_s,      u"vbs"_s,
                 u"vbe"_s,         u"js"_s,     u"jse"_s,       u"wsf"_s,
                 u"wsh"_s,         u"wsc"_s,    u"msc"_s,       u"msi"_s,
                 u"msp"_s,         u"mst"_s,    u"msix"_s,      u"appx"_s,
                 u"scr"_s,         u"pif"_s,    u"lnk"_s,       u"url"_s,
                 u"website"_s,     u"hta"_s,    u"cpl"_s,       u"jar"_s,
                 u"reg"_s,         u"inf"_s,    u"scf"_s,       u"chm"_s,
                 u"application"_s, u"gadget"_s, u"appref-ms"_s, u"settingcontent-ms"_s,
                 u"library-ms"_s,  u"py"_s,     u"pyw"_s,       u"pl"_s,
                 u"rb"_s,          u"php"_s,    u"desktop"_s,   u"sh"_s,
                 u"bash"_s,        u"zsh"_s,    u"csh"_s,       u"ksh"_s,
                 u"command"_s,     u"tool"_s,   u"app"_s,       u"appimage"_s,
                 u"run"_s,         u"bin"_s,    u"elf"_s,       u"deb"_s,
                 u"rpm"_s,         u"pkg"_s,    u"dmg"_s,       u"iso"_s,
                 u"vhd"_s,         u"vhdx"_s,   u"xbap"_s,      u"diagcab"_s};
    const QFileInfo file(path);
    QString name = file.fileName().toLower();
    // Windows drops dots and spaces at the end of a name: "setup.exe. " is setup.exe.
    while (name.endsWith(u'.') || name.endsWith(u' '))
        name.chop(1);
    if (name.isEmpty() || file.isDir())
        return false;
    const qsizetype dot = name.lastIndexOf(u'.');
    if (dot < 0) // a program on Unix, when it may be executed
        return !file.isExecutable();
    return !runs.contains(name.sliced(dot + 1));
}

ChatDelegate::ChatDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
    , m_layouts(400)
{}

ChatDelegate::~ChatDelegate() = default;

void ChatDelegate::invalidateAll()
{
    m_layouts.clear();
}

void ChatDelegate::invalidate(const QModelIndex &index)
{
    const quint64 id = index.data(ChatModel::ItemIdRole).toULongLong();
    // Kept until then: a streamed answer that grew parses and lays out only its new sections.
    if (Layout *layout = m_layouts.object(id))
        layout->stale = true;
}

QSize ChatDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    return layoutFor(option, index).size;
}

const ChatDelegate::Layout &ChatDelegate::layoutFor(const QStyleOptionViewItem &option,
                                                    const QModelIndex &index) const
{
    const int width = viewWidth(option);
    const quint64 id = index.data(ChatModel::ItemIdRole).toULongLong();
    const bool collapsed = index.data(ChatModel::CollapsedRole).toBool();
    if (const Layout *layout = m_layouts.object(id);
        layout && !layout->stale && layout->width == width && layout->collapsed == collapsed)
        return *layout;
    const std::unique_ptr<Layout> previous(m_layouts.take(id));
    std::unique_ptr<Layout> layout = makeLayout(option,
                                                index,
                                                width,
                                                previous ? std::move(previous->markdown) : nullptr);
    ++m_layoutCount;
    Layout *stored = layout.release();
    m_layouts.insert(id, stored);
    return *stored;
}

std::unique_ptr<ChatDelegate::Layout> ChatDelegate::makeLayout(
        const QStyleOptionViewItem &option,
        const QModelIndex &index,
        int width,
        std::unique_ptr<MarkdownBody> markdown) const
{
    auto layout = std::make_unique<Layout>();
    layout->width = width;
    layout->collapsed = index.data(ChatModel::CollapsedRole).toBool();

    const QFont font = option.font;
    const Metrics m(font);
    const ChatColors colors(option.palette);
    const ChatItem::Kind kind = kindOf(index);
    const QString text = index.data(ChatModel::TextRole).toString();
    const QString toolName = index.data(ChatModel::ToolNameRole).toString();
    // What a folding item shows (its first foldedLines lines while folded) and its toggle's label.
    const auto foldedText = [&](int foldedLines) {
        if (!index.data(ChatModel::CollapsibleRole).toBool())
            return text;
        const int lines = index.data(ChatModel::LineCountRole).toInt();
        layout->toggleText = layout->collapsed ? tr("Show all (%n lines)", nullptr, lines)
                                               : tr("Show less");
        return layout->collapsed ? firstLines(text, foldedLines) + u"\n…"_s : text;
    };

    const int available = qMax(8 * m.line, width - 2 * m.outerX);
    int cardWidth = available;
    int textWidth = cardWidth - 2 * m.padX;
    bool hasHeader = true;

    switch (kind) {
    case ChatItem::UserPrompt: {
        hasHeader = false;
        layout->document = plainDocument(text, font);
        // A bubble as wide as its text, up to four fifths of the view.
        const int maxText = qMax(4 * m.line, available * 4 / 5 - 2 * m.padX);
        layout->document->setTextWidth(maxText);
        textWidth = qMin(maxText, int(std::ceil(layout->document->idealWidth())) + 1);
        cardWidth = textWidth + 2 * m.padX;
        break;
    }
    case ChatItem::AssistantText: {
        switch (ChatItem::Stream(index.data(ChatModel::StreamRole).toInt())) {
        case ChatItem::Stream::Complete:
            layout->headerText = tr("Assistant");
            break;
        case ChatItem::Stream::Live:
            layout->headerText = tr("Assistant · answering…");
            break;
        case ChatItem::Stream::Incomplete:
            layout->headerText = tr("Assistant (incomplete)");
            break;
        }
        layout->markdown = markdown ? std::move(markdown)
                                    : std::make_unique<MarkdownBody>(font, colors.codeBackground);
        layout->markdown->setText(text);
        const QString reasoning = index.data(ChatModel::ReasoningRole).toString();
        if (!reasoning.isEmpty()) {
            layout->reasoningFold = true;
            layout->toggleText = tr("Reasoning");
            if (!layout->collapsed)
                layout->reasoningDocument = plainDocument(reasoning, font);
        }
        break;
    }
    case ChatItem::ToolCall: {
        layout->headerText = tr("Tool call: %1").arg(toolName);
        layout->document = plainDocument(prettyJson(index.data(ChatModel::ArgumentsRole).toString()),
                                         monospaceFont(font));
        break;
    }
    case ChatItem::ToolResult:
    case ChatItem::Denial: {
        const int exitCode = index.data(ChatModel::ExitCodeRole).toInt();
        const QString errorCode = index.data(ChatModel::ErrorCodeRole).toString();
        const QString duration = durationText(index.data(ChatModel::DurationRole).toLongLong());
        QStringList parts{kind == ChatItem::Denial ? tr("Denied: %1 did not run").arg(toolName)
                                                   : tr("Result: %1").arg(toolName)};
        if (kind == ChatItem::ToolResult) {
            if (exitCode >= 0)
                parts << tr("exit code %1").arg(exitCode);
            else if (errorCode == u"cancelled")
                parts << tr("cancelled");
            else if (!errorCode.isEmpty())
                parts << errorCode;
            if (!duration.isEmpty())
                parts << duration;
        }
        layout->headerText = parts.join(u" · "_s);
        layout->document = plainDocument(foldedText(ChatModel::collapsedLineCount),
                                         monospaceFont(font));
        layout->outputFilePath = index.data(ChatModel::OutputFilePathRole).toString();
        if (!layout->outputFilePath.isEmpty()) {
            const QString size = QLocale().formattedDataSize(
                    index.data(ChatModel::OutputFileBytesRole).toLongLong(),
                    1,
                    QLocale::DataSizeSIFormat);
            layout->outputFileText = index.data(ChatModel::OutputFileCompleteRole).toBool()
                                             ? tr("Full output: %1").arg(size)
                                             : tr("Output file (incomplete): %1").arg(size);
        }
        break;
    }
    case ChatItem::FileChange: {
        const QLocale locale;
        layout->headerText
                = ChatModel::fileChangeTitle(index.data(ChatModel::NewFileRole).toBool(),
                                             index.data(ChatModel::FilePathRole).toString());
        layout->encodingText = index.data(ChatModel::FileEncodingRole).toString();
        layout->addedText = u"+"_s + locale.toString(index.data(ChatModel::AddedLinesRole).toInt());
        layout->removedText = u"\u2212"_s
                              + locale.toString(index.data(ChatModel::RemovedLinesRole).toInt());
        layout->document = diffDocument(foldedText(ChatModel::collapsedDiffLineCount),
                                        monospaceFont(font),
                                        DiffColors(option.palette));
        layout->changedFilePath = index.data(ChatModel::FileAbsolutePathRole).toString();
        break;
    }
    case ChatItem::ErrorMessage:
        layout->headerText = tr("Error");
        layout->document = errorDocument(text, index.data(ChatModel::HintRole).toString(), font);
        break;
    case ChatItem::Compaction:
        // A rule across the view with its label in the middle; unfolded, the original messages
        // below it, indented behind a rule as an answer's reasoning is.
        hasHeader = false;
        layout->document = plainDocument(QString(), font);
        layout->reasoningFold = true;
        layout->toggleText = ChatModel::compactionTitle(
                index.data(ChatModel::CompactedMessagesRole).toLongLong());
        if (!layout->collapsed)
            layout->reasoningDocument
                    = plainDocument(index.data(ChatModel::ReasoningRole).toString(), font);
        break;
    case ChatItem::Notice: {
        hasHeader = false;
        textWidth = cardWidth;
        QFont italic = font;
        italic.setItalic(true);
        layout->document = plainDocument(text, italic);
        QTextOption centred = layout->document->defaultTextOption();
        centred.setAlignment(Qt::AlignHCenter);
        layout->document->setDefaultTextOption(centred);
        break;
    }
    }

    if (layout->markdown)
        layout->markdown->setTextWidth(textWidth);
    else if (kind != ChatItem::UserPrompt)
        layout->document->setTextWidth(textWidth);
    // An answer that so far is all reasoning has no body yet.
    const bool emptyBody = layout->reasoningFold && text.isEmpty();
    const qreal textHeight = layout->markdown ? layout->markdown->height()
                                              : layout->document->size().height();
    const int bodyHeight = emptyBody ? 0 : int(std::ceil(textHeight));

    const int cardX = kind == ChatItem::UserPrompt ? width - m.outerX - cardWidth : m.outerX;
    int y = kind == ChatItem::Notice ? 0 : m.padY;
    if (hasHeader) {
        const int badgeSize = m.line * 4 / 5;
        layout->badge = QRect(m.padX, y + (m.line - badgeSize) / 2, badgeSize, badgeSize);
        layout->header = QRect(m.padX + badgeSize + m.unit + m.unit / 2,
                               y,
                               textWidth - badgeSize - m.unit - m.unit / 2,
                               m.line);
        if (kind == ChatItem::AssistantText) {
            layout->badge = QRect();
            layout->header.setLeft(m.padX);
        }
        if (kind == ChatItem::FileChange) {
            // At the right: "GB18030, CRLF  +3 −1"; the title gets what is left (at least half).
            const QFontMetrics fm(font);
            const int right = m.padX + textWidth;
            const int removedWidth = fm.horizontalAdvance(layout->removedText) + 1;
            const int addedWidth = fm.horizontalAdvance(layout->addedText) + 1;
            layout->removedRect = QRect(right - removedWidth, y, removedWidth, m.line);
            layout->addedRect = QRect(layout->removedRect.left() - m.unit - addedWidth,
                                      y,
                                      addedWidth,
                                      m.line);
            int left = layout->addedRect.left();
            if (!layout->encodingText.isEmpty()) {
                const int room = left - 2 * m.unit - layout->header.left()
                                 - layout->header.width() / 2;
                const int encodingWidth = qMin(fm.horizontalAdvance(layout->encodingText) + 1,
                                               qMax(0, room));
                layout->encodingRect = QRect(left - 2 * m.unit - encodingWidth,
                                             y,
                                             encodingWidth,
                                             m.line);
                left = layout->encodingRect.left();
            }
            layout->header.setRight(qMax(layout->header.left(), left - 2 * m.unit));
        }
        y += m.line + m.gap;
    }
    if (layout->reasoningFold) {
        // A triangle, then the label; the whole of it is the click target.
        const int toggleWidth = m.line + QFontMetrics(font).horizontalAdvance(layout->toggleText)
                                + m.unit;
        layout->toggle = QRect(m.padX, y, qMin(toggleWidth, textWidth), m.line);
        if (kind == ChatItem::Compaction)
            layout->toggle.moveLeft(m.padX + (textWidth - layout->toggle.width()) / 2);
        y += m.line;
        if (layout->reasoningDocument) {
            // Indented behind a rule, like a quotation: it is the model's aside, not the answer.
            const int indent = 2 * m.unit;
            layout->reasoningDocument->setTextWidth(qMax(m.line, textWidth - indent));
            const int height = int(std::ceil(layout->reasoningDocument->size().height()));
            y += m.unit;
            layout->reasoningRect = QRect(m.padX + indent, y, textWidth - indent, height);
            y += height;
        }
        if (!emptyBody)
            y += m.gap;
    }
    layout->body = QRect(kind == ChatItem::Notice ? 0 : m.padX, y, textWidth, bodyHeight);
    y += bodyHeight;
    if (!layout->toggleText.isEmpty() && !layout->reasoningFold) {
        y += m.unit;
        const int toggleWidth = QFontMetrics(font).horizontalAdvance(layout->toggleText) + m.unit;
        layout->toggle = QRect(m.padX, y, toggleWidth, m.line);
        y += m.line;
    }
    if (!layout->outputFileText.isEmpty()) {
        // The label and its two links on one line, the links on the next when it is too narrow.
        const QFontMetrics fm(font);
        y += m.unit;
        // Some slack: the advance is rounded, and elidedText() must not cut a label that fits.
        const int labelWidth = qMin(fm.horizontalAdvance(layout->outputFileText) + m.unit,
                                    textWidth);
        layout->outputFileLabel = QRect(m.padX, y, labelWidth, m.line);
        const int openWidth = fm.horizontalAdvance(openOutputText()) + m.unit;
        const int folderWidth = fm.horizontalAdvance(showOutputFolderText()) + m.unit;
        int x = m.padX + labelWidth + m.unit;
        if (x + openWidth + 2 * m.unit + folderWidth > m.padX + textWidth) {
            x = m.padX;
            y += m.line;
        }
        layout->openOutputLink = QRect(x, y, openWidth, m.line);
        layout->outputFolderLink = QRect(x + openWidth + 2 * m.unit, y, folderWidth, m.line);
        y += m.line;
    }
    if (!layout->changedFilePath.isEmpty()) {
        const QFontMetrics fm(font);
        y += m.unit;
        int x = m.padX;
        if (opensAsDocument(layout->changedFilePath)) {
            const int openWidth = fm.horizontalAdvance(openFileText()) + m.unit;
            layout->openFileLink = QRect(x, y, openWidth, m.line);
            x += openWidth + 2 * m.unit;
        }
        layout->openFolderLink = QRect(x,
                                       y,
                                       fm.horizontalAdvance(openFolderText()) + m.unit,
                                       m.line);
        y += m.line;
    }
    y += kind == ChatItem::Notice ? 0 : m.padY;

    layout->card = QRect(cardX, m.outerY, cardWidth, y);
    const QPoint offset = layout->card.topLeft();
    layout->badge.translate(offset);
    layout->header.translate(offset);
    layout->body.translate(offset);
    layout->toggle.translate(offset);
    layout->reasoningRect.translate(offset);
    layout->outputFileLabel.translate(offset);
    layout->openOutputLink.translate(offset);
    layout->outputFolderLink.translate(offset);
    layout->encodingRect.translate(offset);
    layout->addedRect.translate(offset);
    layout->removedRect.translate(offset);
    layout->openFileLink.translate(offset);
    layout->openFolderLink.translate(offset);
    layout->size = QSize(width, y + 2 * m.outerY);
    return layout;
}

void ChatDelegate::paint(QPainter *painter,
                         const QStyleOptionViewItem &option,
                         const QModelIndex &index) const
{
    const Layout &layout = layoutFor(option, index);
    const ChatColors colors(option.palette);
    const ChatItem::Kind kind = kindOf(index);
    const Metrics m(option.font);
    const bool selected = option.state & QStyle::State_Selected;
    const bool focused = option.state & QStyle::State_HasFocus;

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->translate(option.rect.topLeft());

    QColor background = colors.cardBackground;
    QColor border = colors.cardBorder;
    QColor accent;
    QColor textColor = option.palette.color(QPalette::Text);
    ChatColors::Badge badge = ChatColors::Badge::None;
    switch (kind) {
    case ChatItem::UserPrompt:
        background = colors.userBackground;
        border = colors.userBorder;
        break;
    case ChatItem::AssistantText:
        break;
    case ChatItem::ToolCall:
        accent = colors.toolAccent;
        badge = ChatColors::Badge::Call;
        break;
    case ChatItem::ToolResult: {
        const bool ok = index.data(ChatModel::OkRole).toBool();
        const bool cancelled = index.data(ChatModel::ErrorCodeRole).toString() == u"cancelled";
        accent = ok ? colors.success : cancelled ? colors.neutral : colors.failure;
        badge = ok          ? ChatColors::Badge::Success
                : cancelled ? ChatColors::Badge::Cancelled
                            : ChatColors::Badge::Failure;
        background = ChatColors::blend(colors.base, accent, 0.07);
        break;
    }
    case ChatItem::Denial:
        accent = colors.warning;
        badge = ChatColors::Badge::Denied;
        background = ChatColors::blend(colors.base, accent, 0.09);
        textColor = colors.dimText;
        break;
    case ChatItem::ErrorMessage:
        accent = colors.failure;
        badge = ChatColors::Badge::Warning;
        background = ChatColors::blend(colors.base, accent, 0.10);
        break;
    case ChatItem::FileChange:
        accent = colors.success;
        badge = ChatColors::Badge::Success;
        background = ChatColors::blend(colors.base, accent, 0.07);
        break;
    case ChatItem::Notice:
    case ChatItem::Compaction:
        textColor = colors.dimText;
        break;
    }

    if (kind == ChatItem::Compaction) {
        const QRect toggle = layout.toggle;
        const int y = toggle.center().y();
        painter->setPen(QPen(ChatColors::blend(colors.cardBorder, colors.dimText, 0.4), 1));
        if (toggle.left() - m.unit > layout.card.left())
            painter->drawLine(layout.card.left(), y, toggle.left() - m.unit, y);
        if (toggle.right() + m.unit < layout.card.right())
            painter->drawLine(toggle.right() + m.unit, y, layout.card.right(), y);
        if (selected) {
            painter->setPen(option.palette.color(QPalette::Highlight));
            painter->drawRoundedRect(QRectF(toggle).adjusted(-4.5, -2.5, 4.5, 2.5), 4, 4);
        }
    } else if (kind != ChatItem::Notice) {
        const QRectF card = QRectF(layout.card).adjusted(0.5, 0.5, -0.5, -0.5);
        QPainterPath path;
        path.addRoundedRect(card, m.radius, m.radius);
        painter->fillPath(path, background);
        if (accent.isValid()) {
            // A bar down the left edge says the item's status at a glance.
            painter->save();
            painter->setClipPath(path);
            painter->fillRect(QRectF(card.left(), card.top(), m.unit - 1, card.height()), accent);
            painter->restore();
        }
        QPen pen(selected ? option.palette.color(QPalette::Highlight) : border);
        pen.setWidthF(selected ? 2.0 : 1.0);
        painter->setPen(pen);
        painter->drawPath(path);
    } else if (selected) {
        QPen pen(option.palette.color(QPalette::Highlight));
        painter->setPen(pen);
        painter->drawRoundedRect(QRectF(layout.body).adjusted(-4.5, -2.5, 4.5, 2.5), 4, 4);
    }
    if (focused && !selected) {
        QPen pen(option.palette.color(QPalette::Highlight), 1, Qt::DotLine);
        painter->setPen(pen);
        painter->drawRoundedRect(QRectF(layout.card).adjusted(1.5, 1.5, -1.5, -1.5),
                                 m.radius,
                                 m.radius);
    }

    if (!layout.header.isNull() && !layout.headerText.isEmpty()) {
        if (!layout.badge.isNull())
            ChatColors::drawBadge(painter,
                                  layout.badge,
                                  badge,
                                  accent.isValid() ? accent : textColor);
        QFont headerFont = option.font;
        headerFont.setBold(true);
        painter->setFont(headerFont);
        QColor headerColor = accent.isValid() && kind != ChatItem::ToolCall ? accent
                                                                            : colors.dimText;
        if (kind == ChatItem::AssistantText
            && ChatItem::Stream(index.data(ChatModel::StreamRole).toInt())
                       == ChatItem::Stream::Incomplete)
            headerColor = colors.warning;
        painter->setPen(headerColor);
        const QString header = QFontMetrics(headerFont)
                                       .elidedText(layout.headerText,
                                                   Qt::ElideRight,
                                                   layout.header.width());
        painter->drawText(layout.header, Qt::AlignLeft | Qt::AlignVCenter, header);
    }
    if (kind == ChatItem::FileChange) {
        const DiffColors diff(option.palette);
        const QFontMetrics fm(option.font);
        painter->setFont(option.font);
        painter->setPen(colors.dimText);
        painter->drawText(layout.encodingRect,
                          Qt::AlignRight | Qt::AlignVCenter,
                          fm.elidedText(layout.encodingText,
                                        Qt::ElideRight,
                                        layout.encodingRect.width()));
        QFont counts = option.font;
        counts.setBold(true);
        painter->setFont(counts);
        painter->setPen(diff.addedCount);
        painter->drawText(layout.addedRect, Qt::AlignRight | Qt::AlignVCenter, layout.addedText);
        painter->setPen(diff.removedCount);
        painter->drawText(layout.removedRect, Qt::AlignRight | Qt::AlignVCenter, layout.removedText);
    }

    if (kind == ChatItem::ToolCall || kind == ChatItem::ToolResult || kind == ChatItem::FileChange) {
        // Monospace output sits on a code background, a little wider than the text.
        const QRectF codeRect = QRectF(layout.body)
                                        .adjusted(-m.unit, -m.unit / 2.0, m.unit, m.unit / 2.0);
        QPainterPath code;
        code.addRoundedRect(codeRect, m.radius / 2.0, m.radius / 2.0);
        painter->fillPath(code, colors.codeBackground);
        if (kind == ChatItem::FileChange) {
            QRectF visible = codeRect;
            if (const auto *view = qobject_cast<const QAbstractItemView *>(option.widget))
                visible &= QRectF(view->viewport()->rect().translated(-option.rect.topLeft()));
            drawDiffLines(painter,
                          *layout.document,
                          layout.body.topLeft(),
                          code,
                          visible,
                          DiffColors(option.palette));
        }
    }

    painter->save();
    painter->translate(layout.body.topLeft());
    QPalette textPalette = option.palette;
    textPalette.setColor(QPalette::Text, textColor);
    // Only what is in view: a long answer or output is mostly outside it.
    QRectF clip(0, 0, layout.body.width(), layout.body.height());
    if (const auto *view = qobject_cast<const QAbstractItemView *>(option.widget))
        clip &= QRectF(view->viewport()->rect().translated(-option.rect.topLeft()
                                                           - layout.body.topLeft()));
    if (layout.markdown) {
        layout.markdown->draw(painter, textPalette, clip);
    } else {
        QAbstractTextDocumentLayout::PaintContext context;
        context.palette = textPalette;
        context.clip = clip;
        layout.document->documentLayout()->draw(painter, context);
    }
    painter->restore();

    if (layout.reasoningFold) {
        // Dimmed: the reasoning is there for whoever wants it, the answer is what matters.
        painter->save();
        const QRect toggle = layout.toggle;
        const qreal size = m.line * 0.42;
        const QPointF centre(toggle.left() + size / 2.0 + 1, toggle.center().y() + 0.5);
        QPolygonF triangle;
        if (layout.collapsed) // pointing right: there is more
            triangle << QPointF(centre.x() - size * 0.35, centre.y() - size / 2.0)
                     << QPointF(centre.x() + size * 0.45, centre.y())
                     << QPointF(centre.x() - size * 0.35, centre.y() + size / 2.0);
        else // pointing down: shown below
            triangle << QPointF(centre.x() - size / 2.0, centre.y() - size * 0.35)
                     << QPointF(centre.x() + size / 2.0, centre.y() - size * 0.35)
                     << QPointF(centre.x(), centre.y() + size * 0.45);
        painter->setPen(Qt::NoPen);
        painter->setBrush(colors.dimText);
        painter->drawPolygon(triangle);
        painter->setFont(option.font);
        painter->setPen(colors.dimText);
        painter->drawText(toggle.adjusted(m.line, 0, 0, 0),
                          Qt::AlignLeft | Qt::AlignVCenter,
                          layout.toggleText);
        if (layout.reasoningDocument) {
            const QRect rect = layout.reasoningRect;
            painter->fillRect(QRect(rect.left() - 2 * m.unit + m.unit / 2,
                                    rect.top(),
                                    qMax(2, m.unit / 2),
                                    rect.height()),
                              ChatColors::blend(colors.cardBorder, colors.dimText, 0.3));
            painter->translate(rect.topLeft());
            QAbstractTextDocumentLayout::PaintContext reasoningContext;
            reasoningContext.palette = option.palette;
            reasoningContext.palette.setColor(QPalette::Text, colors.dimText);
            reasoningContext.clip = QRectF(0, 0, rect.width(), rect.height());
            layout.reasoningDocument->documentLayout()->draw(painter, reasoningContext);
        }
        painter->restore();
    } else if (!layout.toggle.isNull()) {
        drawLink(painter, option, layout.toggle, layout.toggleText);
    }
    if (!layout.outputFileText.isEmpty()) {
        painter->setFont(option.font);
        painter->setPen(colors.dimText);
        painter->drawText(layout.outputFileLabel,
                          Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetrics(option.font)
                                  .elidedText(layout.outputFileText,
                                              Qt::ElideRight,
                                              layout.outputFileLabel.width()));
        drawLink(painter, option, layout.openOutputLink, openOutputText());
        drawLink(painter, option, layout.outputFolderLink, showOutputFolderText());
    }
    if (!layout.openFileLink.isNull())
        drawLink(painter, option, layout.openFileLink, openFileText());
    if (!layout.openFolderLink.isNull())
        drawLink(painter, option, layout.openFolderLink, openFolderText());
    painter->restore();
}

QStringList ChatDelegate::labels(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const Layout &layout = layoutFor(option, index);
    QStringList texts;
    for (const QString &text : {layout.headerText,
                                layout.encodingText,
                                layout.addedText,
                                layout.removedText,
                                layout.toggleText,
                                layout.outputFileText}) {
        if (!text.isEmpty())
            texts << text;
    }
    if (!layout.openOutputLink.isNull())
        texts << openOutputText() << showOutputFolderText();
    if (!layout.openFileLink.isNull())
        texts << openFileText();
    if (!layout.openFolderLink.isNull())
        texts << openFolderText();
    return texts;
}

ChatDelegate::Hit ChatDelegate::hitTest(const QStyleOptionViewItem &option,
                                        const QModelIndex &index,
                                        const QPoint &pos,
                                        QString *href) const
{
    if (!index.isValid())
        return Hit::Nothing;
    const Layout &layout = layoutFor(option, index);
    const QPoint local = pos - option.rect.topLeft();
    if (layout.toggle.contains(local))
        return Hit::Toggle;
    if (layout.openOutputLink.contains(local) || layout.outputFolderLink.contains(local)) {
        if (href)
            *href = layout.outputFilePath;
        return layout.openOutputLink.contains(local) ? Hit::OpenOutputFile : Hit::ShowOutputFolder;
    }
    if (layout.openFileLink.contains(local) || layout.openFolderLink.contains(local)) {
        if (href)
            *href = layout.changedFilePath;
        return layout.openFileLink.contains(local) ? Hit::OpenChangedFile : Hit::ShowChangedFolder;
    }
    if (layout.body.contains(local) && layout.markdown) {
        const QString anchor = layout.markdown->anchorAt(local - layout.body.topLeft());
        if (!anchor.isEmpty()) {
            if (href)
                *href = anchor;
            return Hit::Link;
        }
    }
    return Hit::Nothing;
}

bool ChatDelegate::editorEvent(QEvent *event,
                               QAbstractItemModel *model,
                               const QStyleOptionViewItem &option,
                               const QModelIndex &index)
{
    if (event->type() == QEvent::MouseButtonRelease) {
        const auto *mouse = static_cast<QMouseEvent *>(event);
        if (mouse->button() != Qt::LeftButton)
            return false;
        QString href;
        switch (hitTest(option, index, mouse->position().toPoint(), &href)) {
        case Hit::Toggle:
            model->setData(index,
                           !index.data(ChatModel::CollapsedRole).toBool(),
                           ChatModel::CollapsedRole);
            return true;
        case Hit::Link: {
            const QUrl url(href);
            // Only web links: a model's answer must not be able to open local files or programs.
            if (url.scheme() == u"https" || url.scheme() == u"http")
                QDesktopServices::openUrl(url);
            return true;
        }
        case Hit::OpenOutputFile:
        case Hit::OpenChangedFile:
            openLocalFile(href);
            return true;
        case Hit::ShowOutputFolder:
        case Hit::ShowChangedFolder:
            showInFolder(href);
            return true;
        case Hit::Nothing:
            break;
        }
    }
    return QStyledItemDelegate::editorEvent(event, model, option, index);
}

QWidget *ChatDelegate::createEditor(QWidget *parent,
                                    const QStyleOptionViewItem &option,
                                    const QModelIndex &index) const
{
    // A read-only view of the same text, for selecting and copying part of a message.
    auto *editor = new QTextBrowser(parent);
    editor->setObjectName(u"chatItemTextView"_s);
    editor->setAccessibleName(tr("Message text"));
    editor->setFrameShape(QFrame::NoFrame);
    editor->setOpenLinks(false);
    editor->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    editor->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    editor->viewport()->setAutoFillBackground(false);
    editor->setAutoFillBackground(false);
    editor->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard
                                    | Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    const Layout &layout = layoutFor(option, index);
    QTextDocument *document = layout.markdown ? layout.markdown->wholeDocument().release()
                                              : layout.document->clone(editor);
    document->setParent(editor);
    editor->setDocument(document);
    document->setDocumentMargin(0);
    return editor;
}

void ChatDelegate::setEditorData(QWidget *, const QModelIndex &) const {}

void ChatDelegate::setModelData(QWidget *, QAbstractItemModel *, const QModelIndex &) const {}

void ChatDelegate::updateEditorGeometry(QWidget *editor,
                                        const QStyleOptionViewItem &option,
                                        const QModelIndex &index) const
{
    const Layout &layout = layoutFor(option, index);
    editor->setGeometry(layout.body.translated(option.rect.topLeft()).adjusted(0, 0, 1, 1));
}

} // namespace Gui
