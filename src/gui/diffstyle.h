#pragma once

#include <QColor>
#include <QStringView>
#include <QTextFormat>

class QPalette;
class QTextBlockFormat;
class QTextCharFormat;
class QTextDocument;

namespace Gui {

// What a line of a unified diff is, by its first character.
enum class DiffLine { Context, Added, Removed, Hunk, Other };

DiffLine diffLineKind(QStringView line);

// The colours of a diff on a palette's base colour, light or dark: added lines on green, removed
// lines on red, hunk headers in blue; the marks of escapes keep their own amber on top.
struct DiffColors final
{
    explicit DiffColors(const QPalette &palette);

    QColor addedBackground;
    QColor removedBackground;
    QColor hunkBackground;
    QColor hunkText;
    QColor otherText;    // "\ No newline at end of file"
    QColor addedCount;   // "+3"
    QColor removedCount; // "−1"
};

// The line's kind is kept in its block format and its text's (diffLineProperty), so that a view
// can colour them again when the palette changes.
inline constexpr int diffLineProperty = QTextFormat::UserProperty + 0x0d1f;
QTextBlockFormat diffBlockFormat(DiffLine kind, const DiffColors &colors);
// The background of a line of this kind; invalid for lines on the view's own.
QColor diffLineBackground(DiffLine kind, const DiffColors &colors);
// The text of the line: hunk headers in blue, notes ("\\ No newline at end of file") dimmed,
// the rest as it is.
QTextCharFormat diffCharFormat(DiffLine kind, const DiffColors &colors);

// Colours the lines of a document once more, from their diffLineProperty.
void recolorDiff(QTextDocument &document, const DiffColors &colors);

} // namespace Gui
