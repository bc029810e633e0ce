#pragma once

#include "storage/keystorebackend.h"

#include <QHash>
#include <QString>

#include <memory>

namespace AgentLoop {

// A credential store with Windows Credential Manager's limit, answering as it does, at once: a
// key larger than it keeps fails with error 87, the others are kept in entries()
// ("<service>/<entry>" to key). Stores made on the same entries share them, as two starts of
// the app share the real one.
class FakeCredentialManager final : public KeyStoreBackend
{
public:
    using Entries = QHash<QString, QString>;

    explicit FakeCredentialManager(std::shared_ptr<Entries> entries);

    std::optional<SizeLimit> sizeLimit() const override;
    void start(Operation operation,
               const QString &service,
               const QString &entry,
               const QString &key,
               QObject *context,
               AnswerHandler answered) override;

private:
    std::shared_ptr<Entries> m_entries;
};

} // namespace AgentLoop
