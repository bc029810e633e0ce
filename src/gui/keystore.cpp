#include "keystore.h"

#include <QCoreApplication>
#include <QTimer>

#if defined(Q_OS_WIN)
#include <qt_windows.h>
#include <wincred.h>
#elif defined(AGENTLOOP_HAVE_KEYCHAIN)
#include <qt6keychain/keychain.h>
#define AGENTLOOP_KEYCHAIN_JOBS
#endif

#include <memory>

using namespace Qt::StringLiterals;

namespace Gui {

KeyStore::KeyStore(QObject *parent)
    : KeyStore(Backend::System, QString::fromLatin1(defaultService), parent)
{}

KeyStore::KeyStore(Backend backend, const QString &service, QObject *parent)
    : QObject(parent)
    , m_backend(backend)
    , m_service(service)
{
#if !defined(AGENTLOOP_HAVE_KEYCHAIN) && !defined(Q_OS_WIN)
    if (m_backend == Backend::System) {
        m_backend = Backend::SessionOnly;
        m_availability = Availability::Unavailable;
        m_unavailableReason = tr("This build of Agent Loop has no credential store support.");
        return;
    }
#endif
    if (m_backend == Backend::SessionOnly) {
        m_availability = Availability::Unavailable;
        m_unavailableReason = tr("The credential store is turned off.");
    }
}

KeyStore::~KeyStore() = default;

void KeyStore::readKey()
{
    start(Operation::Read, {});
}

void KeyStore::writeKey(const QString &key)
{
    start(Operation::Write, key);
}

void KeyStore::deleteKey()
{
    start(Operation::Delete, {});
}

void KeyStore::checkAvailability()
{
    if (m_availability != Availability::Unknown || m_pending > 0)
        return;
    start(Operation::Probe, {});
}

void KeyStore::start(Operation operation, const QString &key)
{
    if (operation == Operation::Write)
        m_sessionKey = key;
    else if (operation == Operation::Delete)
        m_sessionKey.clear();
    ++m_pending;
#if defined(AGENTLOOP_HAVE_KEYCHAIN) || defined(Q_OS_WIN)
    if (m_backend == Backend::System && m_availability != Availability::Unavailable) {
        startJob(operation, key);
        return;
    }
#endif
    QTimer::singleShot(0, this, [this, operation] { finishInMemory(operation); });
}

void KeyStore::finishInMemory(Operation operation)
{
    finish(operation, false, m_sessionKey);
}

void KeyStore::finish(Operation operation, bool stored, const QString &key)
{
    --m_pending;
    switch (operation) {
    case Operation::Read:
        m_sessionKey = key;
        emit keyRead(key);
        break;
    case Operation::Write:
        emit keyWritten(stored);
        break;
    case Operation::Delete:
        emit keyDeleted();
        break;
    case Operation::Probe:
        break;
    }
}

void KeyStore::setAvailability(Availability availability, const QString &reason)
{
    m_unavailableReason = reason;
    if (m_availability == availability)
        return;
    m_availability = availability;
    emit availabilityChanged(availability);
}

#if defined(Q_OS_WIN)
namespace {

// "Agent Loop/OPENAI_API_KEY": a generic credential, listed under Windows Credentials.
QString credentialTarget(const QString &service)
{
    return service + u'/' + QString::fromLatin1(KeyStore::keyName);
}

QString windowsErrorText(DWORD code)
{
    return QCoreApplication::translate("Gui::KeyStore", "Credential Manager error %1: %2")
            .arg(code)
            .arg(qt_error_string(int(code)));
}

} // namespace

// Credential Manager answers at once (no unlock prompt, no service to wait for), so the call is
// made here and only its answer is delivered later, as the class promises.
void KeyStore::startJob(Operation operation, const QString &key)
{
    const QString target = credentialTarget(m_service);
    const auto targetName = reinterpret_cast<LPCWSTR>(target.utf16());
    DWORD error = ERROR_SUCCESS;
    QString stored = m_sessionKey;
    if (operation == Operation::Read || operation == Operation::Probe) {
        PCREDENTIALW credential = nullptr;
        if (CredReadW(targetName, CRED_TYPE_GENERIC, 0, &credential)) {
            stored = QString::fromUtf8(reinterpret_cast<const char *>(credential->CredentialBlob),
                                       qsizetype(credential->CredentialBlobSize));
            CredFree(credential);
        } else {
            error = GetLastError();
            stored.clear();
        }
    } else if (operation == Operation::Write && !key.isEmpty()) {
        QByteArray secret = key.toUtf8();
        CREDENTIALW credential{};
        credential.Type = CRED_TYPE_GENERIC;
        credential.TargetName = const_cast<LPWSTR>(targetName);
        credential.CredentialBlobSize = DWORD(secret.size());
        credential.CredentialBlob = reinterpret_cast<LPBYTE>(secret.data());
        credential.Persist = CRED_PERSIST_LOCAL_MACHINE;
        const QString userName = QString::fromLatin1(keyName);
        credential.UserName = const_cast<LPWSTR>(reinterpret_cast<LPCWSTR>(userName.utf16()));
        if (!CredWriteW(&credential, 0))
            error = GetLastError();
        secret.fill('\0');
    } else if (!CredDeleteW(targetName, CRED_TYPE_GENERIC, 0)) {
        error = GetLastError();
    }

    if (error != ERROR_SUCCESS && error != ERROR_NOT_FOUND) {
        setAvailability(Availability::Unavailable, windowsErrorText(error));
        QTimer::singleShot(0, this, [this, operation] { finishInMemory(operation); });
        return;
    }
    setAvailability(Availability::Available);
    QTimer::singleShot(0, this, [this, operation, stored] { finish(operation, true, stored); });
}
#endif

#ifdef AGENTLOOP_KEYCHAIN_JOBS
void KeyStore::startJob(Operation operation, const QString &key)
{
    QKeychain::Job *job = nullptr;
    switch (operation) {
    case Operation::Read:
    case Operation::Probe:
        job = new QKeychain::ReadPasswordJob(m_service);
        break;
    case Operation::Write:
        if (key.isEmpty()) {
            job = new QKeychain::DeletePasswordJob(m_service);
        } else {
            auto *write = new QKeychain::WritePasswordJob(m_service);
            write->setTextData(key);
            job = write;
        }
        break;
    case Operation::Delete:
        job = new QKeychain::DeletePasswordJob(m_service);
        break;
    }
    job->setKey(QString::fromLatin1(keyName));
    // QtKeychain's fallback writes the secret into a QSettings file: exactly what this class
    // exists to prevent.
    job->setInsecureFallback(false);
    // A running job must not be deleted (the store's callbacks hold on to it), so it has no
    // parent and deletes itself once finished, even if this object is gone by then.
    job->setAutoDelete(true);

    // The timeout and the job's answer race; the first one decides.
    auto done = std::make_shared<bool>(false);
    auto *timeout = new QTimer(this);
    timeout->setSingleShot(true);
    connect(timeout, &QTimer::timeout, this, [this, operation, done, timeout] {
        timeout->deleteLater();
        if (*done)
            return;
        *done = true;
        setAvailability(Availability::Unavailable,
                        tr("The credential store did not answer within %1 s.")
                                .arg(m_timeoutMs / 1000));
        finishInMemory(operation);
    });
    connect(job,
            &QKeychain::Job::finished,
            this,
            [this, operation, done, timeout](QKeychain::Job *finished) {
                timeout->stop();
                timeout->deleteLater();
                if (*done)
                    return;
                *done = true;
                switch (finished->error()) {
                case QKeychain::NoError:
                case QKeychain::EntryNotFound: {
                    setAvailability(Availability::Available);
                    QString stored = m_sessionKey;
                    if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(finished))
                        stored = read->textData();
                    finish(operation, true, stored);
                    break;
                }
                default:
                    setAvailability(Availability::Unavailable, finished->errorString());
                    finishInMemory(operation);
                    break;
                }
            });
    timeout->start(m_timeoutMs);
    job->start();
}
#endif

} // namespace Gui
