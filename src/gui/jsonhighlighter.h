#pragma once

#include <QPalette>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace Gui {

// Colours JSON text: keys, strings, numbers, and true/false/null, in colours chosen for the
// palette (light or dark). Works line by line, which suits the inspector's pretty-printed JSON
// (a JSON string never spans lines).
class JsonHighlighter final : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    explicit JsonHighlighter(QTextDocument *document);

    // Picks colours for this palette and highlights again.
    void setPalette(const QPalette &palette);

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_keyword;
    QTextCharFormat m_punctuation;
};

} // namespace Gui
