#pragma once

#include "base/result.h"
#include "protocol/providersettings.h"

#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace AgentLoop {

// KEY=VALUE lines of a .env file: `#` comments, an optional `export `, optional single or double
// quotes around the value. A file that does not exist is an empty map.
Result<QMap<QString, QString>> readDotEnv(const QString &path);

// The base URL rules, shared by the CLI and the settings dialog: an error that stops the run, or
// an empty string.
QString baseUrlError(const QString &baseUrl);
// A warning that does not stop the run (no /v1 at the end), or an empty string.
QString baseUrlWarning(const QString &baseUrl);

struct LoadedConfig
{
    ProviderSettings provider;
    QStringList warnings;
};

// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL from the environment, then from the .env file
// in directory (the environment wins). A value of only spaces counts as missing.
// Errors: `Missing required settings: OPENAI_BASE_URL, OPENAI_MODEL`, or the base URL's error.
Result<LoadedConfig> loadConfig(const QProcessEnvironment &environment, const QString &directory);

} // namespace AgentLoop
