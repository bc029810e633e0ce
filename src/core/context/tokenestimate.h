#pragma once

#include "protocol/message.h"

#include <QStringView>

namespace AgentLoop {

// Tokens of a text without the model's tokenizer, for when the provider reports no usage. BPE
// tokenizers do not cut text into four-character pieces everywhere: Chinese, Japanese and Korean
// characters are about one token each, an English word is one token or a few, punctuation and
// JSON syntax mostly one each. The estimate counts by character class accordingly; it stays
// within ±25 % of cl100k/o200k for English, Chinese and JSON (tests/core/tst_tokenestimate).
qint64 estimateTextTokens(QStringView text);

// A message as the provider counts it: its text, its tool calls' names and arguments, its
// tool_call_id, and the few tokens of framing each message costs in a chat template.
qint64 estimateMessageTokens(const Message &message);

} // namespace AgentLoop
