#pragma once

#include <QColor>
#include <QFont>
#include <QString>

#include <memory>
#include <vector>

class QPainter;
class QPalette;
class QPointF;
class QRectF;
class QTextDocument;

namespace Gui {

// A document as the chat lays it out: no margin, no undo, wrapping at word boundaries or anywhere.
std::unique_ptr<QTextDocument> newTextDocument(const QFont &font);
// The system's fixed-pitch font at the size of base.
QFont monospaceFont(const QFont &base);

// The Markdown of an assistant's answer, parsed and laid out as a stack of sections, each its own
// QTextDocument: runs of top-level blocks that a blank line ends. Text that grows (a streamed
// answer, then its final message) parses and lays out only what follows the last finished
// section, so an update costs the size of the newest paragraphs, not of the whole answer; and
// only the sections in view are drawn. A section ends only where one parse of the whole text
// would end a block too: at a blank line outside a code fence that is followed by a line neither
// indented nor starting a list item. Text that defines link references (which reach across
// blocks) stays one section.
class MarkdownBody final
{
public:
    MarkdownBody(const QFont &font, const QColor &codeBackground);
    ~MarkdownBody();
    MarkdownBody(const MarkdownBody &) = delete;
    MarkdownBody &operator=(const MarkdownBody &) = delete;

    void setText(const QString &text);
    const QString &text() const { return m_text; }
    void setTextWidth(qreal width);
    qreal height() const;
    int sectionCount() const { return int(m_sections.size()); }

    // Draws the sections that meet clip (body coordinates) with the painter's origin at the
    // body's top left.
    void draw(QPainter *painter, const QPalette &palette, const QRectF &clip) const;
    QString anchorAt(const QPointF &position) const;
    // The whole text as one document, for selecting and copying across sections.
    std::unique_ptr<QTextDocument> wholeDocument() const;

private:
    struct Section
    {
        std::unique_ptr<QTextDocument> document;
        qreal top = 0;
    };

    std::unique_ptr<QTextDocument> parse(const QString &markdown) const;
    void appendSection(qsizetype from, qsizetype to);
    // Lays out the sections from index first on and stacks them under the ones before.
    void place(size_t first);

    QFont m_font;
    QColor m_codeBackground;
    QString m_text;
    qreal m_width = -1;
    // The finished sections, then, unless the text ends with one, the open one: the rest of the
    // text, parsed again whenever the text grows.
    std::vector<Section> m_sections;
    size_t m_finishedCount = 0;
    qsizetype m_finishedEnd = 0; // where the open section starts in m_text
};

} // namespace Gui
