#include "fakecredentialmanager.h"

using namespace Qt::StringLiterals;

namespace AgentLoop {

FakeCredentialManager::FakeCredentialManager(std::shared_ptr<Entries> entries)
    : m_entries(std::move(entries))
{}

std::optional<KeyStoreBackend::SizeLimit> FakeCredentialManager::sizeLimit() const
{
    return credentialManagerSizeLimit();
}

void FakeCredentialManager::start(Operation operation,
                                  const QString &service,
                                  const QString &entry,
                                  const QString &key,
                                  QObject * /*context*/,
                                  AnswerHandler answered)
{
    const QString target = service + u'/' + entry;
    Answer answer;
    answer.reached = true;
    switch (operation) {
    case Operation::Read:
        answer.key = m_entries->value(target);
        break;
    case Operation::Write:
        if (storedSize(key) > credentialManagerMaximumBytes) {
            answer.reached = false;
            answer.error = u"Credential Manager error 87: The parameter is incorrect."_s;
        } else {
            m_entries->insert(target, key);
        }
        break;
    case Operation::Delete:
        m_entries->remove(target);
        break;
    }
    answered(answer);
}

} // namespace AgentLoop
