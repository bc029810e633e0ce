#pragma once

namespace AgentLoop::Bench {

// Case 9: deciding a compaction of a 5 000-message history and building the request it leaves
// (planCompaction + compactedHistory), and the token accounting each turn adds at 5 000 messages
// (TokenLedger::append + nextRequestTokens).
int contextCase(int runs);

} // namespace AgentLoop::Bench
