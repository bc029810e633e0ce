#pragma once

#include "fakechatserver.h"

namespace AgentLoop {

// What a request costs as the context room estimates it (context/tokenestimate.h): its messages
// and its tool definitions, the way TokenLedger counts the request it is about to send.
qint64 estimatedRequestTokens(const RecordedRequest &request);

// response with usage.prompt_tokens set to estimatedRequestTokens(request): a provider whose
// tokenizer the estimate matches, so that the ledger's calibration stays at 1.
FakeResponse withEstimatedUsage(FakeResponse response, const RecordedRequest &request);

} // namespace AgentLoop
