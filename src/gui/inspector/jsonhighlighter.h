#pragma once

#include <QPalette>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace Gui {

// Colours JSON text: keys, strings, numbers, and true/false/null, in colours chosen for the
// palette (light or dark). Works line by line, which suits the inspector's pretty-printed JSON
// (a JSON string never spans lines). In ServerSentEvents mode it reads a raw event stream:
// the field names ("data:", "event:", ...) are dimmed, `:` comment lines are greyed out, and the
// JSON after "data:" is coloured as above.
class JsonHighlighter final : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    enum class Mode { Json, ServerSentEvents };

    explicit JsonHighlighter(QTextDocument *document);

    // Picks colours for this palette and highlights again.
    void setPalette(const QPalette &palette);
    // Takes effect at the next highlighting (setDocument() or rehighlight()).
    void setMode(Mode mode) { m_mode = mode; }
    Mode mode() const { return m_mode; }

protected:
    void highlightBlock(const QString &text) override;

private:
    void highlightJson(const QString &text, qsizetype from);

    Mode m_mode = Mode::Json;
    QTextCharFormat m_field;
    QTextCharFormat m_comment;
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_keyword;
    QTextCharFormat m_punctuation;
};

} // namespace Gui
