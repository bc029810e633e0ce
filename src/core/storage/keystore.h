#pragma once

#include <QObject>
#include <QString>

#include <memory>

namespace AgentLoop {

class KeyStoreBackend;

// Keeps the API key in the operating system's credential store: Windows Credential Manager
// through its own API, the macOS Keychain or Secret Service on Linux through QtKeychain. Never in
// a file. Which store a build talks to is chosen in src/core/CMakeLists.txt (one keystore_*.cpp).
//
// The store is asynchronous (it may even ask the user to unlock it), so every call returns at
// once and is answered by exactly one signal, always later (never from inside the call):
//   readKey()   -> keyRead(key)        the stored key; empty when there is none
//   writeKey()  -> keyWritten(stored)  stored == false: kept for this session only
//   deleteKey() -> keyDeleted()
// A key larger than the store keeps (Windows Credential Manager: 2560 bytes) is not written at
// all: that one write keeps it for the session, refusal() says why, and the store stays
// available for the next.
// When no credential store is reachable (a Linux box without Secret Service, CI, a build without
// QtKeychain) the first operation that finds out sets availability() to Unavailable and
// availabilityChanged() says so; from then on the key lives in this object's memory for the
// session: writeKey() keeps it there, readKey() returns it. Nothing is ever written to disk, and
// QtKeychain's own insecure fallback (a plain-text QSettings file) stays off.
//
// Startup, together with the desktop app's AppSettings:
//   settings = AppSettings::load();                 // every field but a stored key
//   if (settings.keyIsInStore()) {
//       connect(keyStore, &KeyStore::keyRead, this, [this](const QString &key) {
//           m_settings.apiKey = key;                 // now isConfigured() can be true
//       });
//       keyStore->readKey();
//   }
class KeyStore final : public QObject
{
    Q_OBJECT
public:
    enum class Backend {
        System,      // Credential Manager on Windows; QtKeychain elsewhere when the build
                     // has it, else SessionOnly
        SessionOnly, // never touches any store: memory for this session only
    };
    Q_ENUM(Backend)

    enum class Availability { Unknown, Available, Unavailable };
    Q_ENUM(Availability)

    // The entry the key is stored under, in the credential store's list of passwords.
    static constexpr char defaultService[] = "Agent Loop";
    static constexpr char keyName[] = "OPENAI_API_KEY";

    explicit KeyStore(QObject *parent = nullptr);
    // Tests use their own service name (or SessionOnly), so they never touch the user's entry.
    KeyStore(Backend backend, const QString &service, QObject *parent = nullptr);
    // The key of one provider profile: its own entry (entryForProfile()) under service.
    KeyStore(Backend backend,
             const QString &service,
             const QString &entry,
             QObject *parent = nullptr);
    // A System store that talks to the given store in place of this build's (a test's fake).
    KeyStore(std::unique_ptr<KeyStoreBackend> store,
             const QString &service,
             QObject *parent = nullptr);
    ~KeyStore() override;

    Backend backend() const { return m_backend; }
    QString service() const { return m_service; }
    QString entry() const { return m_entry; }
    // The entry a profile's key is kept under: keyName for the default profile (so a key stored
    // before profiles existed stays where it is), "OPENAI_API_KEY (profile <id>)" for the others.
    static QString entryForProfile(const QString &profileId);
    Availability availability() const { return m_availability; }
    // Why the store is unavailable, in the store's own words; empty otherwise.
    QString unavailableReason() const { return m_unavailableReason; }
    bool isBusy() const { return m_pending > 0; }
    // Why the store would not take this key (it is larger than the store keeps), in words for the
    // user; empty when it would.
    QString refusalOf(const QString &key) const;
    // Why the last writeKey() kept its key for this session only although the store is there;
    // empty when it was not refused.
    QString refusal() const { return m_refusal; }

    void readKey();
    void writeKey(const QString &key);
    void deleteKey();
    // Finds out whether the store is reachable (a read whose result is not reported) when that is
    // not known yet; availabilityChanged() follows if it changes.
    void checkAvailability();

    // How long one store operation may take before the store counts as unavailable for this
    // session (an unlock prompt nobody answers, a hung D-Bus service). Default 30 s.
    void setTimeout(int milliseconds) { m_timeoutMs = milliseconds; }

signals:
    void keyRead(const QString &key);
    void keyWritten(bool stored);
    void keyDeleted();
    void availabilityChanged(AgentLoop::KeyStore::Availability availability);

private:
    enum class Operation { Read, Write, Delete, Probe };

    void start(Operation operation, const QString &key);
    void askStore(Operation operation, const QString &key);
    void finishInMemory(Operation operation);
    void finish(Operation operation, bool ok, const QString &key);
    void setAvailability(Availability availability, const QString &reason = {});

    Backend m_backend = Backend::System;
    QString m_service;
    QString m_entry;
    // The credential store this build talks to; null for SessionOnly.
    std::unique_ptr<KeyStoreBackend> m_store;
    Availability m_availability = Availability::Unknown;
    QString m_unavailableReason;
    QString m_refusal;
    QString m_sessionKey;
    int m_pending = 0;
    int m_timeoutMs = 30000;
};

} // namespace AgentLoop
