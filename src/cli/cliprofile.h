#pragma once

#include "base/error.h"
#include "protocol/providersettings.h"
#include "storage/providerprofiles.h"

#include <QObject>
#include <QString>

namespace AgentLoop {
class KeyStore;
}

namespace Cli {

// --profile NAME: the desktop app's profile of that name (or id) from its settings file, with
// its key from the credential store (or the settings file, when the user keeps keys there).
// Asynchronous, as the credential store is: exactly one of loaded() or failed() follows start().
class ProfileLoader final : public QObject
{
    Q_OBJECT
public:
    explicit ProfileLoader(QObject *parent = nullptr);

    void start(const QString &nameOrId);

    // Every profile the settings file has, the default one first.
    static QList<AgentLoop::ProviderProfile> profiles();
    // Keeps a change the client made (providerAdjusted) in the profile, for the next run.
    static void saveSwitches(const QString &nameOrId, const AgentLoop::ProviderSettings &provider);

signals:
    void loaded(const AgentLoop::ProviderSettings &provider);
    void failed(const AgentLoop::Error &error);

private:
    void finish(const AgentLoop::ProviderProfile &profile, const QString &key);

    AgentLoop::KeyStore *m_keyStore = nullptr;
};

} // namespace Cli
