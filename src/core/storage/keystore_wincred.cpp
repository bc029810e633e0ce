// The credential store on Windows: Credential Manager, through advapi32.

#include "storage/keystore.h"
#include "storage/keystorebackend.h"

#include <QCoreApplication>

#include <qt_windows.h>
#include <wincred.h>

namespace AgentLoop {

namespace {

// "Agent Loop/OPENAI_API_KEY": a generic credential, listed under Windows Credentials.
QString credentialTarget(const QString &service, const QString &entry)
{
    return service + u'/' + entry;
}

QString windowsErrorText(DWORD code)
{
    return QCoreApplication::translate("AgentLoop::KeyStore", "Credential Manager error %1: %2")
            .arg(code)
            .arg(qt_error_string(int(code)));
}

// Credential Manager answers at once (no unlock prompt, no service to wait for), so every
// operation is answered from inside the call.
class CredentialManagerBackend final : public KeyStoreBackend
{
public:
    std::optional<SizeLimit> sizeLimit() const override { return credentialManagerSizeLimit(); }

    void start(Operation operation,
               const QString &service,
               const QString &entry,
               const QString &key,
               QObject * /*context*/,
               AnswerHandler answered) override
    {
        const QString target = credentialTarget(service, entry);
        const auto targetName = reinterpret_cast<LPCWSTR>(target.utf16());
        DWORD error = ERROR_SUCCESS;
        Answer answer;
        switch (operation) {
        case Operation::Read: {
            PCREDENTIALW credential = nullptr;
            if (CredReadW(targetName, CRED_TYPE_GENERIC, 0, &credential)) {
                answer.key = QString::fromUtf8(reinterpret_cast<const char *>(
                                                       credential->CredentialBlob),
                                               qsizetype(credential->CredentialBlobSize));
                CredFree(credential);
            } else {
                error = GetLastError();
            }
            break;
        }
        case Operation::Write: {
            QByteArray secret = key.toUtf8();
            CREDENTIALW credential{};
            credential.Type = CRED_TYPE_GENERIC;
            credential.TargetName = const_cast<LPWSTR>(targetName);
            credential.CredentialBlobSize = DWORD(secret.size());
            credential.CredentialBlob = reinterpret_cast<LPBYTE>(secret.data());
            credential.Persist = CRED_PERSIST_LOCAL_MACHINE;
            const QString &userName = entry;
            credential.UserName = const_cast<LPWSTR>(reinterpret_cast<LPCWSTR>(userName.utf16()));
            if (!CredWriteW(&credential, 0))
                error = GetLastError();
            secret.fill('\0');
            break;
        }
        case Operation::Delete:
            if (!CredDeleteW(targetName, CRED_TYPE_GENERIC, 0))
                error = GetLastError();
            break;
        }

        answer.reached = error == ERROR_SUCCESS || error == ERROR_NOT_FOUND;
        if (!answer.reached)
            answer.error = windowsErrorText(error);
        answered(answer);
    }
};

} // namespace

std::unique_ptr<KeyStoreBackend> createSystemKeyStoreBackend()
{
    return std::make_unique<CredentialManagerBackend>();
}

} // namespace AgentLoop
