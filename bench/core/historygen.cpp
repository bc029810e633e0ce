#include "historygen.h"

#include <QString>

using namespace Qt::StringLiterals;

namespace AgentLoop::Bench {

namespace {

// About bytes of grep-like output; `seed` varies the lines.
QString commandOutput(qsizetype bytes, int seed)
{
    QString out;
    out.reserve(bytes + 128);
    for (int line = 0; out.size() < bytes; ++line) {
        out += u"src/core/module%1/file%2.cpp:%3:\tif (value == \"caf\u00e9\\n\") return "
               u"m_items[%4]; // TODO(bench) \u2192 check\n"_s.arg(seed % 97)
                       .arg(line % 31)
                       .arg(line + 1)
                       .arg(seed + line);
    }
    out.truncate(bytes);
    return out;
}

QString callId(int index)
{
    return u"call_bench%1"_s.arg(index, 6, 10, QLatin1Char('0'));
}

} // namespace

History makeHistory(int messageCount, qsizetype toolOutputBytes)
{
    // system, r extra user messages, k triples, then user + assistant with the open call.
    const int fillers = (messageCount - 3) % 3;
    const int triples = (messageCount - 3 - fillers) / 3;
    const qsizetype perTool = triples > 0 ? toolOutputBytes / triples : 0;

    History history;
    history.append(
            Message::system(u"You are a coding agent working in the workspace /work/bench. "
                            u"Use the shell tool (/bin/sh) when you need to look at files."_s));
    for (int i = 0; i < fillers; ++i)
        history.append(Message::user(u"Some context before the task (%1)."_s.arg(i)));
    int call = 0;
    const auto appendCall = [&history, &call] {
        const ToolCall toolCall{callId(call),
                                u"shell"_s,
                                u"{\"command\":\"grep -rn \\\"TODO\\\" src/module%1 | head -n 400\"}"_s
                                        .arg(call)};
        history.append(Message::assistant(u"Let me look at module %1."_s.arg(call), {toolCall}));
    };
    for (int t = 0; t < triples; ++t) {
        history.append(
                Message::user(u"Now check module %1 for leftover TODOs and fix them."_s.arg(t)));
        appendCall();
        history.append(Message::tool(callId(call), commandOutput(perTool, t)));
        ++call;
    }
    history.append(Message::user(u"Finally, check the last module."_s));
    appendCall();
    return history;
}

Message nextToolMessage(const History &history, qsizetype outputBytes)
{
    const QString id = history.last().toolCalls().constFirst().id;
    return Message::tool(id, commandOutput(outputBytes, 424242));
}

} // namespace AgentLoop::Bench
