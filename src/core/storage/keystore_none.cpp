// A build without a credential store: KeyStore keeps the key for the session only.

#include "storage/keystorebackend.h"

namespace AgentLoop {

std::unique_ptr<KeyStoreBackend> createSystemKeyStoreBackend()
{
    return nullptr;
}

} // namespace AgentLoop
