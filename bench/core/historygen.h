#pragma once

#include "protocol/history.h"
#include "protocol/message.h"

namespace AgentLoop::Bench {

// A conversation of exactly messageCount messages: a system prompt, then user / assistant (one
// shell call) / tool triples, ending with an assistant message whose call is still open. The
// tool messages hold toolOutputBytes of command output in total (source listings with quotes,
// tabs, backslashes and some non-ASCII text, so serialising has escaping to do).
History makeHistory(int messageCount, qsizetype toolOutputBytes);

// The tool message that answers the last call of makeHistory(): outputBytes of command output.
Message nextToolMessage(const History &history, qsizetype outputBytes);

} // namespace AgentLoop::Bench
