#include "storage/keystore.h"

#include "storage/keystorebackend.h"

#include <QTimer>

namespace AgentLoop {

KeyStore::KeyStore(QObject *parent)
    : KeyStore(Backend::System, QString::fromLatin1(defaultService), parent)
{}

KeyStore::KeyStore(Backend backend, const QString &service, QObject *parent)
    : KeyStore(backend, service, QString::fromLatin1(keyName), parent)
{}

KeyStore::KeyStore(Backend backend, const QString &service, const QString &entry, QObject *parent)
    : QObject(parent)
    , m_backend(backend)
    , m_service(service)
    , m_entry(entry)
{
    if (m_backend == Backend::System) {
        m_store = createSystemKeyStoreBackend();
        if (!m_store) {
            m_backend = Backend::SessionOnly;
            m_availability = Availability::Unavailable;
            m_unavailableReason = tr("This build of Agent Loop has no credential store support.");
        }
        return;
    }
    m_availability = Availability::Unavailable;
    m_unavailableReason = tr("The credential store is turned off.");
}

KeyStore::KeyStore(std::unique_ptr<KeyStoreBackend> store, const QString &service, QObject *parent)
    : QObject(parent)
    , m_service(service)
    , m_entry(QString::fromLatin1(keyName))
    , m_store(std::move(store))
{}

KeyStore::~KeyStore() = default;

QString KeyStore::refusalOf(const QString &key) const
{
    const std::optional<KeyStoreBackend::SizeLimit> limit = m_store ? m_store->sizeLimit()
                                                                    : std::nullopt;
    const qsizetype size = KeyStoreBackend::storedSize(key);
    if (!limit || size <= limit->maximumBytes)
        return {};
    return tr("The key is %1 bytes; %2 stores at most %3 bytes. It is kept for this session "
              "only.")
            .arg(size)
            .arg(limit->storeName)
            .arg(limit->maximumBytes);
}

KeyStoreBackend::SizeLimit credentialManagerSizeLimit()
{
    return {KeyStore::tr("Windows Credential Manager"), credentialManagerMaximumBytes};
}

QString KeyStore::entryForProfile(const QString &profileId)
{
    if (profileId.isEmpty() || profileId == u"default")
        return QString::fromLatin1(keyName);
    return QStringLiteral("%1 (profile %2)").arg(QString::fromLatin1(keyName), profileId);
}

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
    if (operation == Operation::Write) {
        m_sessionKey = key;
        // Asked anyway, the store fails (Credential Manager: error 87), and would count as
        // unavailable for every other key too.
        m_refusal = refusalOf(key);
    } else if (operation == Operation::Delete) {
        m_sessionKey.clear();
        m_refusal.clear();
    }
    ++m_pending;
    if (m_store && m_availability != Availability::Unavailable && m_refusal.isEmpty()) {
        askStore(operation, key);
        return;
    }
    QTimer::singleShot(0, this, [this, operation] { finishInMemory(operation); });
}

void KeyStore::askStore(Operation operation, const QString &key)
{
    using StoreOperation = KeyStoreBackend::Operation;
    // Writing no key removes the entry; a probe is a read whose result goes unreported.
    StoreOperation storeOperation = StoreOperation::Read;
    if (operation == Operation::Delete || (operation == Operation::Write && key.isEmpty()))
        storeOperation = StoreOperation::Delete;
    else if (operation == Operation::Write)
        storeOperation = StoreOperation::Write;

    // The timeout and the store's answer race; the first one decides.
    struct Race
    {
        bool decided = false;
        bool withinTheCall = true;
        QTimer *timeout = nullptr;
    };
    const auto race = std::make_shared<Race>();
    m_store->start(storeOperation,
                   m_service,
                   m_entry,
                   key,
                   this,
                   [this, operation, race](const KeyStoreBackend::Answer &answer) {
                       if (race->decided)
                           return;
                       race->decided = true;
                       if (race->timeout) {
                           race->timeout->stop();
                           race->timeout->deleteLater();
                       }
                       if (answer.reached)
                           setAvailability(Availability::Available);
                       else
                           setAvailability(Availability::Unavailable, answer.error);
                       const auto deliver = [this, operation, answer] {
                           if (answer.reached)
                               finish(operation, true, answer.key);
                           else
                               finishInMemory(operation);
                       };
                       // A store that answers at once (Credential Manager) is still answered
                       // later, as the class promises.
                       if (race->withinTheCall)
                           QTimer::singleShot(0, this, deliver);
                       else
                           deliver();
                   });
    race->withinTheCall = false;
    if (race->decided)
        return;

    race->timeout = new QTimer(this);
    race->timeout->setSingleShot(true);
    connect(race->timeout, &QTimer::timeout, this, [this, operation, race] {
        race->timeout->deleteLater();
        if (race->decided)
            return;
        race->decided = true;
        setAvailability(Availability::Unavailable,
                        tr("The credential store did not answer within %1 s.")
                                .arg(m_timeoutMs / 1000));
        finishInMemory(operation);
    });
    race->timeout->start(m_timeoutMs);
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

} // namespace AgentLoop
