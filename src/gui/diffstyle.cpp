#include "diffstyle.h"

#include "chat/chatstyle.h"

#include <QList>
#include <QPalette>
#include <QTextBlock>
#include <QTextBlockFormat>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextDocument>

namespace Gui {

DiffLine diffLineKind(QStringView line)
{
    if (line.isEmpty())
        return DiffLine::Context; // an empty context line whose space was lost
    switch (line.front().unicode()) {
    case u'+':
        return DiffLine::Added;
    case u'-':
        return DiffLine::Removed;
    case u' ':
        return DiffLine::Context;
    case u'@':
        return line.startsWith(u"@@") ? DiffLine::Hunk : DiffLine::Other;
    default:
        return DiffLine::Other;
    }
}

DiffColors::DiffColors(const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    const bool dark = ChatColors::isDark(palette);
    addedBackground = ChatColors::blend(base,
                                        dark ? QColor(0x2e, 0xa0, 0x43) : QColor(0x1a, 0x7f, 0x37),
                                        dark ? 0.28 : 0.15);
    removedBackground = ChatColors::blend(base,
                                          dark ? QColor(0xf8, 0x51, 0x49) : QColor(0xcf, 0x22, 0x2e),
                                          dark ? 0.24 : 0.13);
    hunkBackground = ChatColors::blend(base,
                                       dark ? QColor(0x38, 0x8b, 0xfd) : QColor(0x09, 0x69, 0xda),
                                       dark ? 0.16 : 0.08);
    hunkText = dark ? QColor(0x79, 0xc0, 0xff) : QColor(0x05, 0x50, 0xae);
    otherText = ChatColors::blend(text, base, 0.4);
    addedCount = dark ? QColor(0x7b, 0xd8, 0x8f) : QColor(0x1b, 0x7f, 0x37);
    removedCount = dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28);
}

QColor diffLineBackground(DiffLine kind, const DiffColors &colors)
{
    switch (kind) {
    case DiffLine::Added:
        return colors.addedBackground;
    case DiffLine::Removed:
        return colors.removedBackground;
    case DiffLine::Hunk:
        return colors.hunkBackground;
    case DiffLine::Context:
    case DiffLine::Other:
        break;
    }
    return {};
}

QTextBlockFormat diffBlockFormat(DiffLine kind, const DiffColors &colors)
{
    QTextBlockFormat format;
    format.setProperty(diffLineProperty, int(kind));
    if (const QColor background = diffLineBackground(kind, colors); background.isValid())
        format.setBackground(background);
    return format;
}

QTextCharFormat diffCharFormat(DiffLine kind, const DiffColors &colors)
{
    QTextCharFormat format;
    format.setProperty(diffLineProperty, int(kind));
    switch (kind) {
    case DiffLine::Hunk:
        format.setForeground(colors.hunkText);
        break;
    case DiffLine::Other:
        format.setForeground(colors.otherText);
        break;
    case DiffLine::Context:
    case DiffLine::Added:
    case DiffLine::Removed:
        break;
    }
    return format;
}

void recolorDiff(QTextDocument &document, const DiffColors &colors)
{
    struct Range
    {
        int position = 0;
        int length = 0;
        DiffLine kind = DiffLine::Context;
    };
    // Collected first: setting a format merges and splits the fragments being walked.
    QList<Range> blocks;
    QList<Range> texts; // the lines' text, not the marks of escapes (they keep their colours)
    for (QTextBlock block = document.firstBlock(); block.isValid(); block = block.next()) {
        if (const QVariant kind = block.blockFormat().property(diffLineProperty); kind.isValid())
            blocks.append({block.position(), 0, DiffLine(kind.toInt())});
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (const QVariant kind = fragment.charFormat().property(diffLineProperty);
                kind.isValid())
                texts.append({fragment.position(), fragment.length(), DiffLine(kind.toInt())});
        }
    }
    QTextCursor cursor(&document);
    cursor.beginEditBlock();
    for (const Range &block : std::as_const(blocks)) {
        cursor.setPosition(block.position);
        cursor.setBlockFormat(diffBlockFormat(block.kind, colors));
    }
    for (const Range &text : std::as_const(texts)) {
        cursor.setPosition(text.position);
        cursor.setPosition(text.position + text.length, QTextCursor::KeepAnchor);
        cursor.setCharFormat(diffCharFormat(text.kind, colors));
    }
    cursor.endEditBlock();
}

} // namespace Gui
