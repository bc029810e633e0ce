#include "chat/markdownbody.h"

#include "base/displaytext.h"

#include <QAbstractTextDocumentLayout>
#include <QFontDatabase>
#include <QList>
#include <QPainter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFragment>

#include <algorithm>

namespace Gui {

namespace {

bool isBlank(QStringView line)
{
    return std::all_of(line.begin(), line.end(), [](QChar c) { return c.isSpace(); });
}

// "- ", "* ", "+ ", "1. ", "12) ": a list item, which may continue the list above the blank line.
bool startsListItem(QStringView line)
{
    const auto endsMarker = [line](qsizetype at) {
        return at == line.size() || line.at(at) == u' ' || line.at(at) == u'\t'
               || line.at(at) == u'\r';
    };
    if (line.startsWith(u'-') || line.startsWith(u'*') || line.startsWith(u'+'))
        return endsMarker(1);
    qsizetype digits = 0;
    while (digits < line.size() && digits < 10 && line.at(digits).isDigit())
        ++digits;
    return digits > 0 && digits < 10 && digits < line.size()
           && (line.at(digits) == u'.' || line.at(digits) == u')') && endsMarker(digits + 1);
}

// "[name]: target": a link reference definition, which links anywhere in the text can use.
bool definesReference(QStringView line)
{
    const QStringView trimmed = line.trimmed();
    return trimmed.startsWith(u'[') && trimmed.indexOf(u"]:") > 1;
}

// The fence character and length when line opens or closes a code fence ("```", "~~~~"), else 0.
qsizetype fenceOf(QStringView line, QChar *fenceChar)
{
    qsizetype indent = 0;
    while (indent < line.size() && indent < 4 && line.at(indent) == u' ')
        ++indent;
    if (indent > 3 || indent == line.size() || (line.at(indent) != u'`' && line.at(indent) != u'~'))
        return 0;
    const QChar c = line.at(indent);
    qsizetype length = 0;
    while (indent + length < line.size() && line.at(indent + length) == c)
        ++length;
    if (length < 3)
        return 0;
    *fenceChar = c;
    return length;
}

// Where, after from, the text can be cut into sections that parse as the whole would: the start
// of each complete line that follows blank lines outside a code fence and is neither indented
// (code, or the continuation of a list item) nor a list item (the list above may go on).
QList<qsizetype> sectionStarts(QStringView text, qsizetype from)
{
    QList<qsizetype> starts;
    QChar fenceChar;
    qsizetype fenceLength = 0; // of the open fence; 0 outside one
    bool afterBlank = false;
    for (qsizetype lineStart = from;;) {
        const qsizetype newline = text.indexOf(u'\n', lineStart);
        if (newline < 0)
            break; // the last line may still grow
        const QStringView line = text.sliced(lineStart, newline - lineStart);
        QChar c;
        if (fenceLength > 0) {
            const qsizetype length = fenceOf(line, &c);
            if (length >= fenceLength && c == fenceChar && isBlank(line.trimmed().sliced(length)))
                fenceLength = 0;
        } else if (isBlank(line)) {
            afterBlank = true;
        } else {
            if (afterBlank && lineStart > from && !line.front().isSpace() && !startsListItem(line))
                starts.append(lineStart);
            afterBlank = false;
            if (const qsizetype length = fenceOf(line, &c); length > 0) {
                fenceChar = c;
                fenceLength = length;
            }
        }
        lineStart = newline + 1;
    }
    return starts;
}

bool anyLineDefinesReference(QStringView text)
{
    for (const QStringView line : text.tokenize(u'\n')) {
        if (definesReference(line))
            return true;
    }
    return false;
}

// Code blocks and inline code get a tinted background; fenced code wraps instead of running
// past the card's edge.
void styleMarkdownCode(QTextDocument &document, const QFont &mono, const QColor &background)
{
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        QTextBlockFormat blockFormat = block.blockFormat();
        const bool codeBlock = blockFormat.hasProperty(QTextFormat::BlockCodeLanguage)
                               || blockFormat.hasProperty(QTextFormat::BlockCodeFence);
        QTextCursor cursor(block);
        if (codeBlock) {
            blockFormat.setNonBreakableLines(false);
            blockFormat.setBackground(background);
            cursor.setBlockFormat(blockFormat);
        }
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            QTextCharFormat format = fragment.charFormat();
            if (!codeBlock && !format.fontFixedPitch())
                continue;
            format.setFontFamilies(QStringList{mono.family()});
            format.setFontFixedPitch(true);
            if (!codeBlock)
                format.setBackground(background);
            QTextCursor fragmentCursor(&document);
            fragmentCursor.setPosition(fragment.position());
            fragmentCursor.setPosition(fragment.position() + fragment.length(),
                                       QTextCursor::KeepAnchor);
            fragmentCursor.setCharFormat(format);
        }
    }
}

bool mayNeedEscapes(QStringView text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) {
        return c.unicode() >= 0x7F || (c.unicode() < 0x20 && c != u'\t');
    });
}

// The Markdown was sanitised, but its parse makes characters of entities ("&#x202E;", "&rlm;",
// "&nbsp;"): they are escaped as the source's own would have been. Line separators stay, as
// hard line breaks are made of them.
void escapeParsedText(QTextDocument &document)
{
    struct Replacement
    {
        int position;
        int length;
        QTextCharFormat format;
        QString text;
    };
    std::vector<Replacement> replacements;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QString text = fragment.text();
            if (fragment.charFormat().isImageFormat() || !mayNeedEscapes(text))
                continue;
            QString shown;
            qsizetype escaped = 0;
            for (qsizetype start = 0;;) {
                const qsizetype end = text.indexOf(QChar::LineSeparator, start);
                const AgentLoop::DisplayText part = AgentLoop::displayText(
                        text.sliced(start, (end < 0 ? text.size() : end) - start));
                shown += part.text;
                escaped += part.escapedCharacters;
                if (end < 0)
                    break;
                shown += QChar::LineSeparator;
                start = end + 1;
            }
            if (escaped > 0)
                replacements.push_back(
                        {fragment.position(), fragment.length(), fragment.charFormat(), shown});
        }
    }
    // From the end: a replacement moves what follows it.
    for (auto it = replacements.rbegin(); it != replacements.rend(); ++it) {
        QTextCursor cursor(&document);
        cursor.setPosition(it->position);
        cursor.setPosition(it->position + it->length, QTextCursor::KeepAnchor);
        cursor.insertText(it->text, it->format);
    }
}

} // namespace

std::unique_ptr<QTextDocument> newTextDocument(const QFont &font)
{
    auto document = std::make_unique<QTextDocument>();
    document->setDefaultFont(font);
    document->setDocumentMargin(0);
    document->setUndoRedoEnabled(false);
    QTextOption textOption = document->defaultTextOption();
    textOption.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    document->setDefaultTextOption(textOption);
    return document;
}

QFont monospaceFont(const QFont &base)
{
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (base.pointSizeF() > 0)
        mono.setPointSizeF(base.pointSizeF());
    else if (base.pixelSize() > 0)
        mono.setPixelSize(base.pixelSize());
    return mono;
}

MarkdownBody::MarkdownBody(const QFont &font, const QColor &codeBackground)
    : m_font(font)
    , m_codeBackground(codeBackground)
{}

MarkdownBody::~MarkdownBody() = default;

std::unique_ptr<QTextDocument> MarkdownBody::parse(const QString &markdown) const
{
    auto document = newTextDocument(m_font);
    // HTML in an answer is shown as the text it is: rendered, it could hide words or colour them
    // like the app's own.
    document->setMarkdown(markdown,
                          QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub)
                                  | QTextDocument::MarkdownNoHTML);
    escapeParsedText(*document);
    styleMarkdownCode(*document, monospaceFont(m_font), m_codeBackground);
    return document;
}

void MarkdownBody::appendSection(qsizetype from, qsizetype to)
{
    m_sections.push_back(Section{parse(m_text.sliced(from, to - from)), 0});
}

void MarkdownBody::setText(const QString &text)
{
    if (text.size() == m_text.size() && text == m_text)
        return;
    const bool grows = text.startsWith(QStringView(m_text).first(m_finishedEnd));
    // A link reference definition in the new text may be used by any section: one section then.
    const bool whole = anyLineDefinesReference(QStringView(text).sliced(grows ? m_finishedEnd : 0));
    if (!grows || (whole && m_finishedCount > 0)) {
        m_sections.clear();
        m_finishedCount = 0;
        m_finishedEnd = 0;
    }
    m_sections.resize(m_finishedCount); // the open section is parsed again
    const size_t firstNew = m_finishedCount;
    m_text = text;
    if (!whole) {
        for (const qsizetype start : sectionStarts(m_text, m_finishedEnd)) {
            appendSection(m_finishedEnd, start);
            m_finishedEnd = start;
            ++m_finishedCount;
        }
    }
    if (m_finishedEnd < m_text.size())
        appendSection(m_finishedEnd, m_text.size());
    place(firstNew);
}

void MarkdownBody::setTextWidth(qreal width)
{
    if (width == m_width)
        return;
    m_width = width;
    place(0);
}

void MarkdownBody::place(size_t first)
{
    if (m_width < 0)
        return;
    for (size_t i = first; i < m_sections.size(); ++i) {
        QTextDocument &document = *m_sections[i].document;
        document.setTextWidth(m_width);
        if (i == 0) {
            m_sections[i].top = 0;
            continue;
        }
        // One document leaves out the top margin of its first block and the bottom margin of
        // its last; between blocks the larger of the two margins counts. So do sections.
        const QTextDocument &above = *m_sections[i - 1].document;
        const qreal gap = qMax(above.lastBlock().blockFormat().bottomMargin(),
                               document.firstBlock().blockFormat().topMargin());
        m_sections[i].top = m_sections[i - 1].top + above.size().height() + gap;
    }
}

qreal MarkdownBody::height() const
{
    if (m_sections.empty())
        return 0;
    return m_sections.back().top + m_sections.back().document->size().height();
}

void MarkdownBody::draw(QPainter *painter, const QPalette &palette, const QRectF &clip) const
{
    // The first section that reaches into clip; the sections are stacked top to bottom.
    auto section = std::partition_point(m_sections.begin(),
                                        m_sections.end(),
                                        [&clip](const Section &s) {
                                            return s.top + s.document->size().height() < clip.top();
                                        });
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette = palette;
    for (; section != m_sections.end() && section->top <= clip.bottom(); ++section) {
        painter->save();
        painter->translate(0, section->top);
        context.clip = clip.translated(0, -section->top);
        section->document->documentLayout()->draw(painter, context);
        painter->restore();
    }
}

QString MarkdownBody::anchorAt(const QPointF &position) const
{
    for (const Section &section : m_sections) {
        if (position.y() >= section.top
            && position.y() < section.top + section.document->size().height())
            return section.document->documentLayout()->anchorAt(position - QPointF(0, section.top));
    }
    return {};
}

std::unique_ptr<QTextDocument> MarkdownBody::wholeDocument() const
{
    std::unique_ptr<QTextDocument> document = parse(m_text);
    document->setTextWidth(m_width);
    return document;
}

} // namespace Gui
