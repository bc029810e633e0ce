#pragma once

#include <QList>
#include <QString>

namespace AgentLoop {

// How much of its text a screen may take as it is.
struct DisplayOptions
{
    // '\n' stays a line break (a multi-line view); otherwise it is shown as an escape too.
    bool keepLineFeeds = true;
    // '\t' stays a tab; otherwise it is shown as an escape.
    bool keepTabs = true;
    // Marks letters from other scripts that look like ASCII ones (Cyrillic "с" in "сurl") when
    // the text is otherwise Latin: for what will run, not for prose.
    bool markLookAlikes = false;
    // At most this many characters of the input are shown (never splitting a character); the
    // rest is counted in DisplayText::cutCharacters. Negative: no limit.
    qsizetype maxLength = -1;
};

// One place in the displayed text that is not what it seems: an escape standing for characters
// that would have been invisible or interpreted, or a letter that looks like an ASCII one.
struct DisplayMark
{
    enum Kind { Escaped, LookAlike };

    Kind kind = Escaped;
    qsizetype position = 0; // in DisplayText::text, in UTF-16 code units
    qsizetype length = 0;   // in DisplayText::text
    char32_t codePoint = 0; // the character (for Escaped: the first of a run)
    qsizetype count = 1;    // Escaped: how many equal characters in a row the escape stands for
    char lookalikeOf = 0;   // LookAlike: the ASCII letter it resembles
};

// Text that is safe to put on a screen, a terminal or a text layout, and what was changed.
struct DisplayText
{
    QString text;
    QList<DisplayMark> marks;
    qsizetype escapedCharacters = 0; // controls, bidi, invisible, separators, unusual spaces
    qsizetype lookAlikes = 0;
    qsizetype cutCharacters = 0; // input characters left out by maxLength

    bool isFaithful() const { return escapedCharacters == 0 && lookAlikes == 0; }
};

// The one function that turns text a model or a provider controls into something a screen may
// show. Every such text goes through it before any widget, layout or terminal sees it.
//
// Shown as an escape "⟨U+XXXX⟩" (a run of one character as "⟨U+XXXX ×N⟩"), never interpreted:
// C0 controls but '\n' and '\t' (when kept), DEL, C1 controls, bidirectional controls and marks,
// zero-width and other invisible format characters (Unicode category Cf, tags included), line and
// paragraph separators, invisible fillers, variation selectors that do not follow an emoji, lone
// surrogates, and spaces other than the plain one (no-break, en, em, thin, ...). Everything else,
// Chinese text and emoji included, is kept as it is.
DisplayText displayText(const QString &text, const DisplayOptions &options = {});

// displayText(text, options).text
QString displayed(const QString &text, const DisplayOptions &options = {});
// One line for a terminal or a label: line breaks and tabs are escaped too.
QString displayedLine(const QString &text, qsizetype maxLength = -1);

// True when displayText() would escape this character wherever it stands (a variation selector
// counts as escaped here: whether it is depends on the character before it).
bool isEscapedForDisplay(char32_t codePoint);
// The same for a character right after `previous`: a variation selector after a shown character
// outside ASCII (an emoji, a Chinese character) picks its glyph and is kept.
bool isEscapedForDisplay(char32_t codePoint, char32_t previous);

} // namespace AgentLoop
