#pragma once

#include "protocol/history.h"
#include "protocol/providersettings.h"
#include "storage/conversationstore.h"

namespace AgentLoop {

// "Fork from here": a new conversation file in store whose messages are exactly history's (a
// request's messages, as the inspector recorded them), titled title, for model and endpoint of
// provider. Nothing else is read or written: the conversation it came from stays as it was.
// File work: call it off the GUI thread. The history must keep the pairing rule.
Result<ConversationHeader> forkConversation(const ConversationStore &store,
                                            const History &history,
                                            const QString &title,
                                            const ProviderSettings &provider);

} // namespace AgentLoop
