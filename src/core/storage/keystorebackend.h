#pragma once

#include <QString>

#include <functional>
#include <memory>
#include <optional>

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

    // How large a key the store keeps, where that is known to be small.
    struct SizeLimit
    {
        QString storeName; // as the user knows it: "Windows Credential Manager"
        qsizetype maximumBytes = 0;
    };

    virtual ~KeyStoreBackend() = default;

    // The store's limit on one key as it is stored (storedSize()); none by default: Secret
    // Service and the macOS Keychain take far more than any API key.
    virtual std::optional<SizeLimit> sizeLimit() const { return std::nullopt; }
    // A key's size as the store keeps it. Every store here is given UTF-8: keystore_wincred.cpp
    // writes key.toUtf8() as the credential blob, and so do QtKeychain's backends
    // (WritePasswordJob::setTextData()).
    static qsizetype storedSize(const QString &key) { return key.toUtf8().size(); }

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

// Windows Credential Manager's limit on one credential, CRED_MAX_CREDENTIAL_BLOB_SIZE in the
// Windows SDK: CredWrite fails with error 87 (ERROR_INVALID_PARAMETER) on a larger one. Not the
// macro: mingw-w64's wincred.h still has 512, the limit before Windows 7.
inline constexpr qsizetype credentialManagerMaximumBytes = 5 * 512;
// That limit as the Windows backend reports it; here, not in keystore_wincred.cpp, so that the
// tests on every platform check what a Windows user is told.
KeyStoreBackend::SizeLimit credentialManagerSizeLimit();

} // namespace AgentLoop
