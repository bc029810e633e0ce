#pragma once

#include "protocol/message.h"

#include <QStringView>

namespace AgentLoop {

// Tokens of a text without the model's tokenizer, for when the provider reports no usage. BPE
// tokenizers do not cut text into four-character pieces everywhere: Chinese, Japanese and Korean
// characters are about one token each, an English word is one token or a few, punctuation and
// JSON syntax runs mostly one per run. The estimate counts by character class accordingly. It
// stays within ±25 % of o200k_base (gpt-4o and later) for English, Chinese, JSON, code and logs,
// and of cl100k_base (gpt-4, gpt-3.5) for all but Chinese, where cl100k spends 1.3-1.6 times the
// tokens o200k does (tests/core/tst_tokenestimate). The first usage a provider reports
// calibrates it for the conversation (TokenLedger).
qint64 estimateTextTokens(QStringView text);

// The tokens a chat template spends on one message besides its text (role, separators).
inline constexpr qint64 messageFramingTokens = 4;

// A message as the provider counts it: its text, its tool calls' names and arguments, its
// tool_call_id, and the few tokens of framing each message costs in a chat template.
qint64 estimateMessageTokens(const Message &message);

} // namespace AgentLoop
