#include "keystore.h"

#include <QTimer>

#ifdef AGENTLOOP_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
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
#ifndef AGENTLOOP_HAVE_KEYCHAIN
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
#ifdef AGENTLOOP_HAVE_KEYCHAIN
    if (m_availability != Availability::Unavailable) {
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

#ifdef AGENTLOOP_HAVE_KEYCHAIN
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
