#pragma once

#include <QString>

#include <functional>
#include <memory>

class QObject;

namespace AgentLoop {

// One credential store, as KeyStore uses it: an entry (KeyStore::keyName, or a profile's entry)
// under a service.
// Each build compiles exactly one implementation, chosen in src/core/CMakeLists.txt:
// keystore_wincred.cpp (Windows), keystore_qtkeychain.cpp (QtKeychain) or keystore_none.cpp.
// KeyStore keeps the rest: the session's copy, the timeout, availability and the promise that
// every answer arrives later.
class KeyStoreBackend
{
public:
    enum class Operation { Read, Write, Delete };

    struct Answer
    {
        // The store did what was asked; an entry that is not there counts as done.
        bool reached = false;
        // A read's result: the stored key, empty when there is none.
        QString key;
        // When not reached: why, in the store's own words.
        QString error;
    };
    using AnswerHandler = std::function<void(const Answer &answer)>;

    virtual ~KeyStoreBackend() = default;

    // Reads, writes (key is never empty) or deletes the entry of service. answered is called
    // exactly once, from inside this call or later, unless context is destroyed first; a store
    // that never answers is KeyStore's timeout to deal with.
    virtual void start(Operation operation,
                       const QString &service,
                       const QString &entry,
                       const QString &key,
                       QObject *context,
                       AnswerHandler answered)
            = 0;
};

// The credential store of this build; null when it was built without one.
std::unique_ptr<KeyStoreBackend> createSystemKeyStoreBackend();

} // namespace AgentLoop
