// The credential store through QtKeychain: the macOS Keychain, Secret Service on Linux.

#include "storage/keystore.h"
#include "storage/keystorebackend.h"

#include <QObject>

#include <qt6keychain/keychain.h>

namespace AgentLoop {

namespace {

class QtKeychainBackend final : public KeyStoreBackend
{
public:
    void start(Operation operation,
               const QString &service,
               const QString &entry,
               const QString &key,
               QObject *context,
               AnswerHandler answered) override
    {
        QKeychain::Job *job = nullptr;
        switch (operation) {
        case Operation::Read:
            job = new QKeychain::ReadPasswordJob(service);
            break;
        case Operation::Write: {
            auto *write = new QKeychain::WritePasswordJob(service);
            write->setTextData(key);
            job = write;
            break;
        }
        case Operation::Delete:
            job = new QKeychain::DeletePasswordJob(service);
            break;
        }
        job->setKey(entry);
        // QtKeychain's fallback writes the secret into a QSettings file: exactly what KeyStore
        // exists to prevent.
        job->setInsecureFallback(false);
        // A running job must not be deleted (the store's callbacks hold on to it), so it has no
        // parent and deletes itself once finished, even if context is gone by then.
        job->setAutoDelete(true);
        QObject::connect(job,
                         &QKeychain::Job::finished,
                         context,
                         [answered = std::move(answered)](QKeychain::Job *finished) {
                             Answer answer;
                             switch (finished->error()) {
                             case QKeychain::NoError:
                             case QKeychain::EntryNotFound:
                                 answer.reached = true;
                                 if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(
                                             finished))
                                     answer.key = read->textData();
                                 break;
                             default:
                                 answer.error = finished->errorString();
                                 break;
                             }
                             answered(answer);
                         });
        job->start();
    }
};

} // namespace

std::unique_ptr<KeyStoreBackend> createSystemKeyStoreBackend()
{
    return std::make_unique<QtKeychainBackend>();
}

} // namespace AgentLoop
