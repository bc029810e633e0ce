#include "context/tokenestimate.h"

#include <QChar>

namespace AgentLoop {

namespace {

enum class CharClass { Space, Newline, Word, Digit, Wide, Other, Punctuation };

// A Chinese, Japanese or Korean character: o200k_base counts about 0.65 tokens for each,
// cl100k_base about 0.95; this sits between the two.
constexpr double wideCharacterTokens = 0.75;

bool isWide(char32_t c)
{
    return (c >= 0x2E80 && c <= 0x9FFF)       // CJK radicals, kana, CJK unified ideographs
           || (c >= 0xAC00 && c <= 0xD7AF)    // Hangul syllables
           || (c >= 0xF900 && c <= 0xFAFF)    // CJK compatibility ideographs
           || (c >= 0xFF00 && c <= 0xFFEF)    // full-width forms
           || (c >= 0x20000 && c <= 0x3FFFF); // CJK extensions B and beyond
}

CharClass classOf(char32_t c)
{
    if (c == '\n' || c == '\r')
        return CharClass::Newline;
    if (c == ' ' || c == '\t')
        return CharClass::Space;
    if (c < 0x80) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
            return CharClass::Word;
        if (c >= '0' && c <= '9')
            return CharClass::Digit;
        return CharClass::Punctuation;
    }
    if (isWide(c))
        return CharClass::Wide;
    if (QChar::isLetterOrNumber(c))
        return CharClass::Other;
    return CharClass::Punctuation;
}

} // namespace

qint64 estimateTextTokens(QStringView text)
{
    // Runs of one class, as the tokenizer's pre-splitting cuts them: a word is one token up to a
    // common length and one more per few letters after it (identifiers split at their parts);
    // digits go in threes; wide characters are a token or most of one each (o200k joins common
    // pairs, cl100k rarely does); other letters (Cyrillic, accented Latin) about two to a token;
    // a run of punctuation ("\":\"", "());") is mostly one token, and one character of it
    // joins the word it touches ("(path", ".cpp"); a space joins the next word; a line break
    // joins the punctuation before it.
    double tokens = 0;
    qsizetype run = 0;
    CharClass runClass = CharClass::Space;
    CharClass previousClass = CharClass::Space;
    const auto endRun = [&] {
        switch (runClass) {
        case CharClass::Word:
            tokens += run <= 6 ? 1.0 : 1.0 + (run - 6) / 4.0;
            if (previousClass == CharClass::Punctuation)
                tokens -= 0.5;
            break;
        case CharClass::Digit:
            tokens += (run + 2) / 3;
            if (previousClass == CharClass::Space)
                tokens += 1; // a number does not take the space before it
            break;
        case CharClass::Other:
            tokens += (run + 1) / 2;
            break;
        case CharClass::Wide:
            tokens += run * wideCharacterTokens;
            break;
        case CharClass::Punctuation:
            tokens += (run + 3) / 4;
            break;
        case CharClass::Newline:
            tokens += previousClass == CharClass::Punctuation ? 0.5 : 1.0;
            break;
        case CharClass::Space:
            tokens += run > 1 ? 1 : 0;
            break;
        }
        if (run > 0)
            previousClass = runClass;
        run = 0;
    };
    for (char32_t c : text.toUcs4()) {
        const CharClass cls = classOf(c);
        if (cls != runClass)
            endRun();
        runClass = cls;
        ++run;
    }
    endRun();
    return qint64(tokens + 0.5);
}

qint64 estimateMessageTokens(const Message &message)
{
    constexpr qint64 framing = messageFramingTokens;
    qint64 tokens = framing + estimateTextTokens(message.content());
    if (message.sendsReasoningBack())
        tokens += estimateTextTokens(message.reasoningContent());
    for (const ToolCall &call : message.toolCalls())
        tokens += framing + estimateTextTokens(call.id) + estimateTextTokens(call.name)
                  + estimateTextTokens(call.arguments);
    if (message.role() == Role::Tool)
        tokens += estimateTextTokens(message.toolCallId());
    return tokens;
}

} // namespace AgentLoop
