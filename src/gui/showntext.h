#pragma once

#include "base/displaytext.h"

#include <QString>
#include <QStringView>

class QLabel;
class QMessageBox;
class QPlainTextEdit;
class QWidget;

namespace Gui {

// Text a model or a provider sent, as a screen of the GUI shows it: through
// AgentLoop::displayText(), the one sanitiser, and at most maxLength characters long as shown
// (an escape counts with all its characters, so that text made of escapes is bounded too, and is
// never cut inside one). Where line feeds are kept, a CRLF is one (withLineFeeds()).
struct ShownText
{
    QString text;
    qint64 cutBytes = 0; // the input left out, in UTF-8 bytes: what "12.3 kB more" speaks of
};

ShownText shownText(const QString &text,
                    qsizetype maxLength,
                    const AgentLoop::DisplayOptions &options = {});

// Text with each CRLF as LF: Windows' line end is one line end on a screen, where a CR alone is
// shown as the escape it is.
QString withLineFeeds(QString text);

// Bytes of text in UTF-8 (a lone surrogate counts as the replacement character it becomes).
qint64 utf8Length(QStringView text);

// A tooltip for shown text: Qt takes a tooltip that starts like HTML ("<b>", "&lt;") for rich
// text and renders it; this one is always shown as the characters it has.
QString plainToolTip(const QString &text);

// A warning box (opened, not exec'd) for an error that may quote a file or a provider: its
// text shown as the characters it has.
void showWarning(QWidget *parent, const QString &text);

// A read-only, selectable, monospace view for a body or a text the provider sent (set through
// shownText() or AgentLoop::displayed()); lines are not wrapped unless asked.
QPlainTextEdit *newBodyView(const QString &objectName,
                            const QString &accessibleName,
                            QWidget *parent,
                            bool wrapLines = false);

// Puts widget into a message box between its text and its buttons (QMessageBox has no API for
// this: setDetailedText hides the text behind a button). Call it after setting the box's text,
// informative text and icon, which rebuild its grid.
void insertAboveButtons(QMessageBox *box, QWidget *widget);

// A note under a field or a form: plain text, wrapped, in the palette's placeholder colour.
QLabel *newNoteLabel(const QString &text, QWidget *parent);

} // namespace Gui
