#pragma once

#include "protocol/completion.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QStringView>
#include <QVarLengthArray>

#include <optional>
#include <vector>

namespace AgentLoop {

// The parts of one `chat.completion.chunk` that StreamAssembler uses, whichever way the chunk was
// read. Strings are views into the reader's buffers and live until it reads the next chunk. An
// empty view stands for an absent field, null and "" alike, except where an optional tells them
// apart, as the assembler needs there.
struct ToolCallDelta
{
    std::optional<qint64> index; // none when absent or not a number
    QStringView id;
    QStringView name;
    std::optional<QStringView> arguments; // set when `arguments` is a string, or an object...
    bool argumentsAreWhole = false;       // ...sent whole, as JSON text: it replaces, not appends
    // The call's other members (Gemini's extra_content), as toolCallExtra() reads them. Only
    // QJsonDocument fills it: the scanner leaves a fragment with such a member to it.
    QJsonObject extra;
};

struct ChoiceDelta
{
    std::optional<QStringView> content; // set when `content` is a string, even ""
    QStringView refusal;
    // `reasoning_content` when it is a string, else `reasoning` (or Mistral's thinking parts,
    // which only QJsonDocument reads); reasoningField says which.
    QStringView reasoning;
    ReasoningField reasoningField = ReasoningField::Reasoning;
    QVarLengthArray<ToolCallDelta, 2> toolCalls;
    QStringView finishReason;
};

struct ChunkDelta
{
    QStringView id;
    QStringView model;
    std::optional<Usage> usage;
    QVarLengthArray<ChoiceDelta, 1> choices; // the entries for choice 0 (index 0 or none), in order
};

// Reads the chunks providers stream by the thousand (text, reasoning and tool-call argument
// fragments, finish_reason, usage) straight from the payload bytes: no DOM, and no allocation once
// its buffer has grown to the largest chunk. It only answers when it is sure QJsonDocument would
// read the chunk the same way: for invalid JSON, an `error`, a key sent twice (QJsonDocument keeps
// the last), an escaped key, arguments sent as an object, content sent as parts, a tool call with
// a member besides index, id, type and function (it is kept, see ToolCallDelta::extra), a number
// other than a plain integer where a number is read, an unknown escape or nesting deeper than 64,
// scan() returns false and the caller reads that chunk with QJsonDocument instead.
class ChunkScanner final
{
public:
    // What to decode besides the choices: id and model repeat in every chunk, and the caller
    // keeps them from the first one.
    struct Wanted
    {
        bool id = true;
        bool model = true;
    };

    // Fills delta (which must be empty) from payload, a JSON text without surrounding whitespace.
    bool scan(QByteArrayView payload, Wanted wanted, ChunkDelta &delta);

private:
    struct Key
    {
        QByteArrayView name; // the raw bytes between the quotes
        bool escaped = false;
    };

    bool readChoices(ChunkDelta &delta);
    bool readChoice(ChunkDelta &delta);
    bool readDelta(ChoiceDelta &choice);
    bool readToolCalls(ChoiceDelta &choice);
    bool readToolCall(ChoiceDelta &choice);
    bool readFunction(ToolCallDelta &call);
    bool readUsage(std::optional<Usage> &usage);
    bool readCompletionDetails(std::optional<qint64> &reasoning);

    template<typename OnMember>
    bool scanObject(OnMember &&onMember);
    template<typename OnMember>
    bool scanMembers(OnMember &onMember);
    template<typename OnElement>
    bool scanArray(OnElement &&onElement);
    bool skipUnknown(const Key &key);
    bool skipValue();
    bool skipNumber();
    bool readKey(Key &key);
    bool readString(QStringView &text);
    bool readStringOrNull(QStringView &text);
    bool readStringOrNull(std::optional<QStringView> &text);
    bool skipStringOrNull();
    bool readIntegerOrNull(std::optional<qint64> &value);
    bool readNull();
    bool readLiteral(QByteArrayView literal);
    template<bool Decode>
    bool scanString(bool &escaped);
    template<bool Decode>
    bool scanAnyString(bool &escaped);
    // Providers send compact JSON: these look at one byte and only call out for whitespace.
    void skipSpace()
    {
        if (m_at < m_end && uchar(*m_at) <= ' ')
            skipSpaceSlowly();
    }
    bool eat(char c)
    {
        skipSpace();
        if (m_at == m_end || *m_at != c)
            return false;
        ++m_at;
        return true;
    }
    void skipSpaceSlowly();

    const char *m_at = nullptr;
    const char *m_end = nullptr;
    char16_t *m_out = nullptr; // where the next decoded string goes
    int m_depth = 0;
    // Every decoded string of the chunk: never more UTF-16 units than the payload has bytes, so
    // it is sized once per chunk and the views into it stay valid.
    std::vector<char16_t> m_text;
    // The start of the last chunk up to its "choices" key, and the keys seen in it.
    QByteArray m_envelope;
    unsigned m_envelopeSeen = 0;
};

} // namespace AgentLoop
