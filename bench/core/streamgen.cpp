#include "streamgen.h"

#include <QString>

#include <array>
#include <random>
#include <string_view>

namespace AgentLoop::Bench {

namespace {

// Tokens as a model writes them: words, punctuation, newlines, quotes, code and non-ASCII text.
constexpr std::array<std::string_view, 24>
        contentTokens{" the",          " a",      " function", " returns",   " value",
                      "ing",           "ed",      ".",         ",",          "\n",
                      " `std::",       "vector`", " \"x\"",    " caf\u00e9", " na\u00efve",
                      " \u6d4b\u8bd5", " \u2192", "\t",        " 42",        " model",
                      " request",      " Qt",     "'s",        " \\path"};

// Fragments of a shell call's arguments text, itself JSON: {"command":"..."}.
constexpr std::array<std::string_view, 16> argumentFragments{"grep",
                                                             " -rn",
                                                             " \\\"TODO\\\"",
                                                             " src/",
                                                             "core",
                                                             "/chat",
                                                             "client",
                                                             ".cpp",
                                                             " |",
                                                             " head",
                                                             " -n",
                                                             " 20",
                                                             " &&",
                                                             " echo",
                                                             " done",
                                                             "\\n"};

constexpr std::string_view eventPrefix
        = "data: {\"id\":\"chatcmpl-AgentLoopBench00000000000001\",\"object\":\"chat.completion."
          "chunk\",\"created\":1764460800,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":"
          "\"fp_b3nch00000\",\"choices\":[";

void appendJsonString(QByteArray &out, std::string_view text)
{
    out.append('"');
    for (const char c : text) {
        switch (c) {
        case '"':
            out.append("\\\"");
            break;
        case '\\':
            out.append("\\\\");
            break;
        case '\n':
            out.append("\\n");
            break;
        case '\t':
            out.append("\\t");
            break;
        default:
            out.append(c);
        }
    }
    out.append('"');
}

void appendChoiceEvent(QByteArray &out, const QByteArray &choice)
{
    out.append(eventPrefix.data(), qsizetype(eventPrefix.size()));
    out.append(choice);
    out.append("]}\n\n");
}

qsizetype utf16Length(std::string_view utf8)
{
    return QString::fromUtf8(utf8.data(), qsizetype(utf8.size())).size();
}

} // namespace

QByteArray generateStream(qsizetype minBytes, StreamSummary *summary)
{
    constexpr int toolCallCount = 8;
    StreamSummary stats;
    QByteArray out;
    out.reserve(minBytes + 64 * 1024);
    std::mt19937 random(20261130); // fixed: every run and every peer get the same bytes
    std::uniform_int_distribution<std::size_t> pickToken(0, contentTokens.size() - 1);
    std::uniform_int_distribution<std::size_t> pickFragment(0, argumentFragments.size() - 1);

    appendChoiceEvent(out,
                      "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\","
                      "\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}");
    ++stats.events;

    // Half of the bytes are text deltas, the other half tool-call argument fragments.
    QByteArray choice;
    while (out.size() < minBytes / 2) {
        const std::string_view token = contentTokens[pickToken(random)];
        choice = "{\"index\":0,\"delta\":{\"content\":";
        appendJsonString(choice, token);
        choice.append("},\"logprobs\":null,\"finish_reason\":null}");
        appendChoiceEvent(out, choice);
        stats.contentChars += utf16Length(token);
        ++stats.events;
    }
    for (int call = 0; call < toolCallCount; ++call) {
        const QByteArray index = QByteArray::number(call);
        appendChoiceEvent(out,
                          "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + index
                                  + ",\"id\":\"call_b3nch" + index
                                  + "\",\"type\":\"function\",\"function\":{\"name\":\"shell\","
                                    "\"arguments\":\"\"}}]},\"logprobs\":null,"
                                    "\"finish_reason\":null}");
        ++stats.events;
        ++stats.toolCalls;
        const qsizetype callEnd = minBytes / 2 + (minBytes / 2) * (call + 1) / toolCallCount;
        std::string_view fragment = "{\"command\":\"";
        bool last = false;
        while (true) {
            choice = "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + index
                     + ",\"function\":{\"arguments\":";
            appendJsonString(choice, fragment);
            choice.append("}}]},\"logprobs\":null,\"finish_reason\":null}");
            appendChoiceEvent(out, choice);
            stats.argumentsChars += utf16Length(fragment);
            ++stats.events;
            if (last)
                break;
            if (out.size() >= callEnd) {
                fragment = "\"}";
                last = true;
            } else {
                fragment = argumentFragments[pickFragment(random)];
            }
        }
    }
    appendChoiceEvent(
            out, "{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}");
    ++stats.events;
    out.append(eventPrefix.data(), qsizetype(eventPrefix.size()));
    out.append("],\"usage\":{\"prompt_tokens\":1200,\"completion_tokens\":"
               + QByteArray::number(stats.events)
               + ",\"total_tokens\":" + QByteArray::number(stats.events + 1200) + "}}\n\n");
    ++stats.events;
    out.append("data: [DONE]\n\n");
    ++stats.events;
    if (summary)
        *summary = stats;
    return out;
}

} // namespace AgentLoop::Bench
