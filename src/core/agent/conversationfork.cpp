#include "agent/conversationfork.h"

#include <QCoreApplication>

namespace AgentLoop {

namespace {

struct ForkText
{
    Q_DECLARE_TR_FUNCTIONS(ConversationFork)
};

} // namespace

Result<ConversationHeader> forkConversation(const ConversationStore &store,
                                            const History &history,
                                            const QString &title,
                                            const ProviderSettings &provider)
{
    if (history.isEmpty())
        return Error{Error::Contract, ForkText::tr("The request has no messages to fork."), {}};
    if (Result<void> pairing = history.checkPairing(); !pairing)
        return pairing.error();
    ConversationWriter writer;
    Result<ConversationHeader> header = writer.create(store,
                                                      title,
                                                      provider.model,
                                                      provider.baseUrl);
    if (!header)
        return header.error();
    for (const Message &message : history.messages()) {
        if (Result<void> written = writer.append(message); !written)
            return written.error();
    }
    writer.close();
    ConversationHeader written = *header;
    written.messageCount = int(history.size());
    return written;
}

} // namespace AgentLoop
