#pragma once

#include "provider/chatclient.h"

#include <QMap>
#include <QMetaType>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace AgentLoop {
class KeyStore;
}

namespace Gui {

// The desktop app's settings, kept with QSettings in an INI file (organization "AgentLoop",
// application "Agent Loop"; settingsFilePath() says where) on every platform, so that what is on
// disk can be read and searched.
//
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL from the environment, then from the .env file
// in the working directory, override the stored values when set (a configured shell starts a
// configured app); environmentOverrides records which did, and save() never copies an inherited
// value into the file or the credential store.
//
// The API key is not in the file unless storeKeyInPlainText is set. Otherwise it lives in the
// credential store, which answers asynchronously: load() leaves apiKey empty when the key is in
// the store (keyIsInStore()), and the caller fills it in when KeyStore::keyRead() arrives (see
// storage/keystore.h). Until then isConfigured() is false.
struct AppSettings
{
    QString baseUrl;
    QString apiKey;
    QString model;
    int maxTurns = 20;
    QString workspace;
    int requestTimeoutSeconds = 120;
    // Ask for the answer as Server-Sent Events and show it as it is written; off for providers
    // that reject `stream: true`.
    bool stream = true;
    // How often a request that met a rate limit, a server error or a refused connection is sent
    // again (so at most maxRetries + 1 attempts).
    int maxRetries = 3;
    // The most one answer may bring, and take (however steadily it arrives), before it is given
    // up: a provider cannot exhaust memory or keep a turn going for ever.
    int maxResponseMegabytes = 64;
    int maxAnswerMinutes = 10;
    // The built-in scripted model (see demoprovider.h). On first start, with nothing stored and
    // no complete provider in the environment, it is on.
    bool demoMode = false;
    // Only when the user ticks it: the key goes into the settings file in plain text.
    bool storeKeyInPlainText = false;

    // Names of the OPENAI_* variables that set a value, from the environment or the .env file.
    QStringList environmentOverrides;
    // Those of them that came from the .env file, and its path.
    QStringList dotEnvOverrides;
    QString dotEnvPath;
    // What the environment set, by variable name: a field still equal to it is inherited, not
    // the user's.
    QMap<QString, QString> environmentValues;
    // Why the .env file could not be read, when it could not; the app starts anyway.
    QString loadWarning;

    static constexpr int minimumMaxTurns = 1;
    static constexpr int maximumMaxTurns = 200;
    static constexpr int minimumTimeoutSeconds = 5;
    static constexpr int maximumTimeoutSeconds = 3600;
    static constexpr int minimumMaxRetries = 0;
    static constexpr int maximumMaxRetries = 10;
    static constexpr int minimumMaxResponseMegabytes = 1;
    static constexpr int maximumMaxResponseMegabytes = 1024;
    static constexpr int minimumMaxAnswerMinutes = 1;
    static constexpr int maximumMaxAnswerMinutes = 1440;

    // The stored settings, then the process environment and the .env in the working directory.
    // Synchronous; the key arrives later when keyIsInStore(). load() reads this process's
    // environment and then removes OPENAI_API_KEY from it (see environmentscrub.h): call it once.
    static AppSettings load();
    static AppSettings load(const QProcessEnvironment &environment, const QString &directory);

    // Writes every field but the key to the settings file; the key only when storeKeyInPlainText
    // (and otherwise removes it from the file).
    void save() const;
    // save(), and the key to the credential store (or out of it, when it is now kept in the
    // file). Asynchronous for the key: keyStore reports with keyWritten() / keyDeleted().
    void save(AgentLoop::KeyStore &keyStore) const;

    // A real provider can be used: a valid base URL, a model and a key.
    bool isConfigured() const;
    // What ChatClient needs: the demo's settings in demo mode, else the entered ones.
    AgentLoop::ProviderSettings provider() const;

    // The key belongs in the credential store: not set by the environment, not kept in the file.
    bool keyIsInStore() const;
    bool isOverridden(const char *variable) const;
    bool isInherited(const char *variable, const QString &value) const;
    // "Set by OPENAI_MODEL in the environment" / "Set by OPENAI_MODEL in /path/.env", or empty.
    QString overrideNote(const char *variable) const;

    static QString settingsFilePath();
};

} // namespace Gui

Q_DECLARE_METATYPE(Gui::AppSettings)
