#include "protocol/chunkscanner.h"

#include "base/hexdigit.h"

#include <QChar>

#include <algorithm>
#include <bit>
#include <cstring>

namespace AgentLoop {

namespace {

// Deeper nesting is left to QJsonDocument (its own limit is 1024); this bounds the recursion.
constexpr int maxDepth = 64;
// Numbers that are only skipped must still be ones QJsonDocument accepts, and it rejects those
// that overflow or underflow a double: these bounds keep every number well inside the range.
constexpr qsizetype maxMantissaDigits = 40;
constexpr qsizetype maxExponentDigits = 2;
// Integers that are read (indexes, token counts) fit a qint64 with room to spare.
constexpr qsizetype maxIntegerDigits = 18;

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isContinuationByte(uchar b)
{
    return (b & 0xC0) == 0x80;
}

// Plain ASCII, as most of a chunk is: no quote, backslash or byte of a UTF-8 sequence.
bool isPlainAscii(uchar byte)
{
    return byte < 0x80 && byte != '"' && byte != '\\';
}

// Where the run of plain ASCII bytes starting at `at` ends, eight bytes at a time.
const char *endOfPlainAscii(const char *at, const char *end)
{
    constexpr quint64 ones = 0x0101010101010101;
    constexpr quint64 highBits = 0x8080808080808080;
    constexpr quint64 quotes = ones * '"';
    constexpr quint64 backslashes = ones * '\\';
    if constexpr (std::endian::native == std::endian::little) {
        for (; end - at >= 8; at += 8) {
            quint64 word = 0;
            std::memcpy(&word, at, sizeof word);
            // A byte equal to c is a zero byte of word ^ c, and (x - ones) & ~x flags zero bytes
            // (and may flag bytes above a real one, never below: the lowest flag is right).
            const quint64 quote = word ^ quotes;
            const quint64 backslash = word ^ backslashes;
            const quint64 stops = (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash)
                                   | word)
                                  & highBits;
            if (stops)
                return at + std::countr_zero(stops) / 8;
        }
    }
    while (at < end && isPlainAscii(uchar(*at)))
        ++at;
    return at;
}

template<qsizetype Size>
bool isKey(QByteArrayView key, const char (&name)[Size])
{
    return key.size() == Size - 1 && std::memcmp(key.data(), name, Size - 1) == 0;
}

// A key read twice in one object is left to QJsonDocument, which keeps the last value.
bool firstTime(unsigned &seen, unsigned key)
{
    const bool first = (seen & key) == 0;
    seen |= key;
    return first;
}

} // namespace

bool ChunkScanner::scan(QByteArrayView payload, Wanted wanted, ChunkDelta &delta)
{
    // (QJsonDocument also skips a byte order mark and reads arrays: its own error for those.)
    if (payload.isEmpty() || payload.front() != '{')
        return false;
    m_at = payload.data();
    m_end = m_at + payload.size();
    m_depth = 0;
    if (m_text.size() < size_t(payload.size()))
        m_text.resize(size_t(payload.size()));
    m_out = m_text.data();

    enum : unsigned { ChoicesKey = 1, IdKey = 2, ModelKey = 4, UsageKey = 8, ErrorKey = 16 };
    unsigned seen = 0;
    const char *choicesKey = nullptr;
    unsigned seenBeforeChoices = 0;
    const auto onMember = [&](const Key &key) {
        if (isKey(key.name, "choices")) {
            choicesKey = key.name.data() - 1;
            seenBeforeChoices = seen;
            return firstTime(seen, ChoicesKey) && readChoices(delta);
        }
        if (isKey(key.name, "id"))
            return firstTime(seen, IdKey)
                   && (wanted.id ? readStringOrNull(delta.id) : skipStringOrNull());
        if (isKey(key.name, "model"))
            return firstTime(seen, ModelKey)
                   && (wanted.model ? readStringOrNull(delta.model) : skipStringOrNull());
        if (isKey(key.name, "usage"))
            return firstTime(seen, UsageKey) && readUsage(delta.usage);
        if (isKey(key.name, "error")) // anything but null is the provider's error: slow path
            return firstTime(seen, ErrorKey) && readNull();
        return skipUnknown(key);
    };
    // Every chunk of a stream starts with the same id, object, created, model and fingerprint:
    // when these bytes are those of a chunk read before, up to its "choices", reading them again
    // would give the same (nothing, as id and model are not wanted any more).
    const bool resumed = !wanted.id && !wanted.model && !m_envelope.isEmpty()
                         && payload.startsWith(m_envelope);
    bool read = false;
    if (resumed) {
        m_at += m_envelope.size();
        m_depth = 1;
        seen = m_envelopeSeen;
        read = scanMembers(onMember);
    } else {
        read = scanObject(onMember);
    }
    skipSpace();
    if (!read || m_at != m_end)
        return false;
    if (!resumed && choicesKey && (seenBeforeChoices & UsageKey) == 0) {
        const qsizetype size = choicesKey - payload.data();
        m_envelope.resize(size);
        std::memcpy(m_envelope.data(), payload.data(), size_t(size));
        m_envelopeSeen = seenBeforeChoices;
    }
    return true;
}

bool ChunkScanner::readChoices(ChunkDelta &delta)
{
    return readNull() || scanArray([&] { return readChoice(delta); });
}

bool ChunkScanner::readChoice(ChunkDelta &delta)
{
    ChoiceDelta &choice = delta.choices.emplace_back();
    std::optional<qint64> index;
    unsigned seen = 0;
    const bool read = scanObject([&](const Key &key) {
        if (isKey(key.name, "delta"))
            return firstTime(seen, 1) && readDelta(choice);
        if (isKey(key.name, "index"))
            return firstTime(seen, 2) && readIntegerOrNull(index);
        if (isKey(key.name, "finish_reason"))
            return firstTime(seen, 4) && readStringOrNull(choice.finishReason);
        return skipUnknown(key);
    });
    if (index.value_or(0) != 0) // only choice 0 is used (n > 1 sends the others)
        delta.choices.removeLast();
    return read;
}

bool ChunkScanner::readDelta(ChoiceDelta &choice)
{
    if (readNull())
        return true;
    std::optional<QStringView> reasoningContent;
    QStringView reasoning;
    unsigned seen = 0;
    const bool read = scanObject([&](const Key &key) {
        if (isKey(key.name, "content"))
            return firstTime(seen, 1) && readStringOrNull(choice.content);
        if (isKey(key.name, "tool_calls"))
            return firstTime(seen, 2) && readToolCalls(choice);
        if (isKey(key.name, "refusal"))
            return firstTime(seen, 4) && readStringOrNull(choice.refusal);
        if (isKey(key.name, "reasoning_content"))
            return firstTime(seen, 8) && readStringOrNull(reasoningContent);
        if (isKey(key.name, "reasoning"))
            return firstTime(seen, 16) && readStringOrNull(reasoning);
        return skipUnknown(key);
    });
    choice.reasoning = reasoningContent.value_or(reasoning);
    choice.reasoningField = reasoningContent ? ReasoningField::ReasoningContent
                                             : ReasoningField::Reasoning;
    return read;
}

bool ChunkScanner::readToolCalls(ChoiceDelta &choice)
{
    return readNull() || scanArray([&] { return readToolCall(choice); });
}

bool ChunkScanner::readToolCall(ChoiceDelta &choice)
{
    ToolCallDelta &call = choice.toolCalls.emplace_back();
    unsigned seen = 0;
    return scanObject([&](const Key &key) {
        if (isKey(key.name, "index"))
            return firstTime(seen, 1) && readIntegerOrNull(call.index);
        if (isKey(key.name, "function"))
            return firstTime(seen, 2) && readFunction(call);
        if (isKey(key.name, "id"))
            return firstTime(seen, 4) && readStringOrNull(call.id);
        if (isKey(key.name, "type"))
            return skipUnknown(key);
        // Any other member is sent back verbatim: QJsonDocument keeps it (unless it is null). An
        // escaped key may spell a known one, as in skipUnknown().
        return !key.escaped && readNull();
    });
}

bool ChunkScanner::readFunction(ToolCallDelta &call)
{
    if (readNull())
        return true;
    unsigned seen = 0;
    return scanObject([&](const Key &key) {
        if (isKey(key.name,
                  "arguments")) // an object here is sent whole: the slow path re-serialises it
            return firstTime(seen, 1) && readStringOrNull(call.arguments);
        if (isKey(key.name, "name"))
            return firstTime(seen, 2) && readStringOrNull(call.name);
        return skipUnknown(key);
    });
}

bool ChunkScanner::readUsage(std::optional<Usage> &usage)
{
    if (readNull())
        return true;
    std::optional<qint64> prompt;
    std::optional<qint64> completion;
    std::optional<qint64> total;
    std::optional<qint64> reasoning;
    unsigned seen = 0;
    const bool read = scanObject([&](const Key &key) {
        if (isKey(key.name, "prompt_tokens"))
            return firstTime(seen, 1) && readIntegerOrNull(prompt);
        if (isKey(key.name, "completion_tokens"))
            return firstTime(seen, 2) && readIntegerOrNull(completion);
        if (isKey(key.name, "total_tokens"))
            return firstTime(seen, 4) && readIntegerOrNull(total);
        if (isKey(key.name, "completion_tokens_details"))
            return firstTime(seen, 8) && readCompletionDetails(reasoning);
        return skipUnknown(key);
    });
    usage = Usage{prompt.value_or(0),
                  completion.value_or(0),
                  total.value_or(0),
                  reasoning.value_or(0)};
    return read;
}

bool ChunkScanner::readCompletionDetails(std::optional<qint64> &reasoning)
{
    if (readNull())
        return true;
    unsigned seen = 0;
    return scanObject([&](const Key &key) {
        if (isKey(key.name, "reasoning_tokens"))
            return firstTime(seen, 1) && readIntegerOrNull(reasoning);
        return skipUnknown(key);
    });
}

template<typename OnMember>
bool ChunkScanner::scanObject(OnMember &&onMember)
{
    if (!eat('{') || ++m_depth > maxDepth)
        return false;
    if (eat('}')) {
        --m_depth;
        return true;
    }
    return scanMembers(onMember);
}

// The members of an object from the next key on, up to and past its closing brace.
template<typename OnMember>
bool ChunkScanner::scanMembers(OnMember &onMember)
{
    do {
        skipSpace();
        Key key;
        if (!readKey(key) || !eat(':'))
            return false;
        skipSpace();
        if (!onMember(key))
            return false;
    } while (eat(','));
    if (!eat('}'))
        return false;
    --m_depth;
    return true;
}

template<typename OnElement>
bool ChunkScanner::scanArray(OnElement &&onElement)
{
    if (!eat('[') || ++m_depth > maxDepth)
        return false;
    if (!eat(']')) {
        do {
            skipSpace();
            if (!onElement())
                return false;
        } while (eat(','));
        if (!eat(']'))
            return false;
    }
    --m_depth;
    return true;
}

// An escaped key might spell one the scanner reads ("cont\u0065nt"), so it is not skipped.
bool ChunkScanner::skipUnknown(const Key &key)
{
    return !key.escaped && skipValue();
}

bool ChunkScanner::skipValue()
{
    if (m_at == m_end)
        return false;
    switch (*m_at) {
    case '"': {
        ++m_at;
        bool escaped = false;
        return scanString<false>(escaped);
    }
    case '{':
        return scanObject([this](const Key &) { return skipValue(); });
    case '[':
        return scanArray([this] { return skipValue(); });
    case 't':
        return readLiteral("true");
    case 'f':
        return readLiteral("false");
    case 'n':
        return readNull();
    default:
        return skipNumber();
    }
}

bool ChunkScanner::skipNumber()
{
    const char *at = m_at;
    if (at < m_end && *at == '-')
        ++at;
    const char *const integer = at;
    while (at < m_end && isDigit(*at))
        ++at;
    qsizetype mantissaDigits = at - integer;
    if (mantissaDigits == 0 || (mantissaDigits > 1 && *integer == '0'))
        return false;
    if (at < m_end && *at == '.') {
        const char *const fraction = ++at;
        while (at < m_end && isDigit(*at))
            ++at;
        if (at == fraction)
            return false;
        mantissaDigits += at - fraction;
    }
    if (mantissaDigits > maxMantissaDigits)
        return false;
    if (at < m_end && (*at == 'e' || *at == 'E')) {
        ++at;
        if (at < m_end && (*at == '+' || *at == '-'))
            ++at;
        const char *const exponent = at;
        while (at < m_end && isDigit(*at))
            ++at;
        if (at == exponent || at - exponent > maxExponentDigits)
            return false;
    }
    m_at = at;
    return true;
}

bool ChunkScanner::readKey(Key &key)
{
    if (m_at == m_end || *m_at != '"')
        return false;
    const char *const start = ++m_at;
    if (!scanString<false>(key.escaped))
        return false;
    key.name = QByteArrayView(start, m_at - 1 - start);
    return true;
}

bool ChunkScanner::readString(QStringView &text)
{
    if (m_at == m_end || *m_at != '"')
        return false;
    ++m_at;
    char16_t *const start = m_out;
    bool escaped = false;
    if (!scanString<true>(escaped))
        return false;
    text = QStringView(start, m_out - start);
    return true;
}

bool ChunkScanner::readStringOrNull(QStringView &text)
{
    if (readNull()) {
        text = {};
        return true;
    }
    return readString(text);
}

bool ChunkScanner::readStringOrNull(std::optional<QStringView> &text)
{
    if (readNull()) {
        text.reset();
        return true;
    }
    return readString(text.emplace());
}

bool ChunkScanner::skipStringOrNull()
{
    return readNull() || (m_at < m_end && *m_at == '"' && skipValue());
}

bool ChunkScanner::readIntegerOrNull(std::optional<qint64> &value)
{
    if (readNull()) {
        value.reset();
        return true;
    }
    const char *at = m_at;
    const bool negative = at < m_end && *at == '-';
    if (negative)
        ++at;
    const char *const digits = at;
    qint64 number = 0;
    for (; at < m_end && isDigit(*at); ++at) {
        if (at - digits == maxIntegerDigits)
            return false;
        number = number * 10 + (*at - '0');
    }
    if (at == digits || (at - digits > 1 && *digits == '0'))
        return false;
    // A fraction or an exponent: QJsonDocument's integer conversion decides.
    if (at < m_end && (*at == '.' || *at == 'e' || *at == 'E'))
        return false;
    m_at = at;
    value = negative ? -number : number;
    return true;
}

bool ChunkScanner::readNull()
{
    return m_at < m_end && *m_at == 'n' && readLiteral("null");
}

bool ChunkScanner::readLiteral(QByteArrayView literal)
{
    if (m_end - m_at < literal.size() || std::memcmp(m_at, literal.data(), literal.size()) != 0)
        return false;
    m_at += literal.size();
    return true;
}

// Reads a string whose opening quote has been read, up to and past its closing quote, accepting
// exactly what QJsonDocument accepts: strict UTF-8 (no overlong forms, surrogates or code points
// past U+10FFFF; noncharacters are fine), raw control characters, and the JSON escapes, where
// \uXXXX gives that UTF-16 unit as it is (a pair makes one character, a lone surrogate stays).
// With Decode, it is appended at m_out as UTF-16.
template<bool Decode>
bool ChunkScanner::scanString(bool &escaped)
{
    escaped = false;
    // Most strings are plain ASCII up to the closing quote: no call, no loop but this one.
    const char *const plainEnd = endOfPlainAscii(m_at, m_end);
    if (plainEnd < m_end && *plainEnd == '"') {
        if constexpr (Decode)
            m_out = std::copy(reinterpret_cast<const uchar *>(m_at),
                              reinterpret_cast<const uchar *>(plainEnd),
                              m_out);
        m_at = plainEnd + 1;
        return true;
    }
    return scanAnyString<Decode>(escaped);
}

template<bool Decode>
bool ChunkScanner::scanAnyString(bool &escaped)
{
    while (m_at < m_end) {
        const char *const plainEnd = endOfPlainAscii(m_at, m_end);
        if constexpr (Decode) {
            for (; m_at < plainEnd; ++m_at)
                *m_out++ = uchar(*m_at);
        }
        m_at = plainEnd;
        if (m_at == m_end)
            break;
        const auto byte = uchar(*m_at);
        if (byte == '"') {
            ++m_at;
            return true;
        }
        if (byte == '\\') {
            escaped = true;
            if (m_end - m_at < 2)
                return false;
            char16_t unit = 0;
            switch (m_at[1]) {
            case '"':
            case '\\':
            case '/':
                unit = char16_t(m_at[1]);
                break;
            case 'b':
                unit = u'\b';
                break;
            case 'f':
                unit = u'\f';
                break;
            case 'n':
                unit = u'\n';
                break;
            case 'r':
                unit = u'\r';
                break;
            case 't':
                unit = u'\t';
                break;
            case 'u':
                if (m_end - m_at < 6)
                    return false;
                for (int i = 2; i < 6; ++i) {
                    const int digit = hexDigitValue(uchar(m_at[i]));
                    if (digit < 0)
                        return false;
                    unit = char16_t(unit << 4 | digit);
                }
                m_at += 4;
                break;
            default: // QJsonDocument reads `\x` as x: rare enough to leave to it
                return false;
            }
            m_at += 2;
            if constexpr (Decode)
                *m_out++ = unit;
            continue;
        }
        qsizetype length = 0;
        char32_t code = 0;
        char32_t smallest = 0;
        if (byte >= 0xC2 && byte <= 0xDF) {
            length = 2;
            code = byte & 0x1F;
            smallest = 0x80;
        } else if (byte >= 0xE0 && byte <= 0xEF) {
            length = 3;
            code = byte & 0x0F;
            smallest = 0x800;
        } else if (byte >= 0xF0 && byte <= 0xF4) {
            length = 4;
            code = byte & 0x07;
            smallest = 0x10000;
        } else {
            return false;
        }
        if (m_end - m_at < length)
            return false;
        for (qsizetype i = 1; i < length; ++i) {
            const auto next = uchar(m_at[i]);
            if (!isContinuationByte(next))
                return false;
            code = code << 6 | (next & 0x3F);
        }
        if (code < smallest || QChar::isSurrogate(code) || code > QChar::LastValidCodePoint)
            return false;
        m_at += length;
        if constexpr (Decode) {
            if (QChar::requiresSurrogates(code)) {
                *m_out++ = QChar::highSurrogate(code);
                *m_out++ = QChar::lowSurrogate(code);
            } else {
                *m_out++ = char16_t(code);
            }
        }
    }
    return false; // unterminated
}

void ChunkScanner::skipSpaceSlowly()
{
    while (m_at < m_end && (*m_at == ' ' || *m_at == '\n' || *m_at == '\r' || *m_at == '\t'))
        ++m_at;
}

} // namespace AgentLoop
