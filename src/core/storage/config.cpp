#include "storage/config.h"

#include "protocol/providerpresets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct ConfigText
{
    Q_DECLARE_TR_FUNCTIONS(Config)
};

QString unquoted(QString value)
{
    value = value.trimmed();
    if (value.size() >= 2
        && ((value.startsWith(u'"') && value.endsWith(u'"'))
            || (value.startsWith(u'\'') && value.endsWith(u'\'')))) {
        return value.mid(1, value.size() - 2);
    }
    // An unquoted value ends at a " #" comment.
    if (const qsizetype comment = value.indexOf(u" #"_s); comment >= 0)
        value.truncate(comment);
    return value.trimmed();
}

} // namespace

Result<QMap<QString, QString>> readDotEnv(const QString &path)
{
    QMap<QString, QString> values;
    QFile file(path);
    if (!file.exists())
        return values;
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        return Error{Error::Configuration,
                     ConfigText::tr("Cannot read %1: %2")
                             .arg(QDir::toNativeSeparators(path), file.errorString()),
                     {}};
    }
    const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n');
    for (QString line : lines) {
        line = line.trimmed();
        if (line.startsWith(u'\uFEFF'))
            line.remove(0, 1);
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        if (line.startsWith(u"export "_s))
            line = line.mid(7).trimmed();
        const qsizetype equals = line.indexOf(u'=');
        if (equals <= 0)
            continue;
        values.insert(line.left(equals).trimmed(), unquoted(line.mid(equals + 1)));
    }
    return values;
}

QString baseUrlError(const QString &baseUrl)
{
    const QString trimmed = baseUrl.trimmed();
    const QUrl url(trimmed, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https")
        || url.host().isEmpty()) {
        return ConfigText::tr("OPENAI_BASE_URL must be an http:// or https:// URL, for example "
                              "https://api.openai.com/v1 (got \"%1\").")
                .arg(trimmed);
    }
    QString path = url.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    if (path.endsWith(u"/chat/completions"_s)) {
        return ConfigText::tr("OPENAI_BASE_URL must not end with /chat/completions: the client "
                              "appends /chat/completions itself, so the request would go to "
                              ".../chat/completions/chat/completions. Use the part before it, for "
                              "example https://api.openai.com/v1.");
    }
    return {};
}

QString baseUrlWarning(const QString &baseUrl)
{
    const QUrl url(baseUrl.trimmed());
    QString path = url.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    if (path.endsWith(u"/v1"_s))
        return {};
    // A provider this app knows may have a path of its own (GLM's /api/paas/v4, Gemini's
    // /v1beta/openai, Azure's deployments).
    const QString provider = providerIdForBaseUrl(url);
    if (provider == u"azure" && path.contains(u"/openai"_s))
        return {};
    QString presetPath = QUrl(providerPreset(provider).baseUrl).path();
    while (presetPath.endsWith(u'/'))
        presetPath.chop(1);
    if (!provider.isEmpty() && !presetPath.isEmpty() && path.endsWith(presetPath))
        return {};
    return ConfigText::tr("OPENAI_BASE_URL does not end with /v1; most providers expect it (for "
                          "example https://api.openai.com/v1). A 404 from the provider usually "
                          "means it is missing.");
}

Result<LoadedConfig> loadConfig(const QProcessEnvironment &environment, const QString &directory)
{
    const Result<QMap<QString, QString>> dotEnv = readDotEnv(QDir(directory).filePath(u".env"_s));
    if (!dotEnv)
        return dotEnv.error();

    const auto lookup = [&](const char *name) {
        const QString key = QString::fromLatin1(name);
        const QString value = environment.value(key).trimmed();
        return value.isEmpty() ? dotEnv->value(key).trimmed() : value;
    };
    const QString baseUrl = lookup(baseUrlVariable);
    const QString apiKey = lookup(apiKeyVariable);
    const QString model = lookup(modelVariable);

    ProviderSettings provider;
    provider.baseUrl = QUrl(baseUrl);
    recogniseProvider(provider);
    provider.maxTokensField = defaultMaxTokensField(provider.providerId);
    // A local server this app recognises (Ollama, LM Studio) needs no key.
    const bool keyNeeded = !providerPreset(provider.providerId).local;

    QStringList missing;
    if (baseUrl.isEmpty())
        missing << QString::fromLatin1(baseUrlVariable);
    if (apiKey.isEmpty() && keyNeeded)
        missing << QString::fromLatin1(apiKeyVariable);
    if (model.isEmpty())
        missing << QString::fromLatin1(modelVariable);
    if (!missing.isEmpty()) {
        return Error{Error::Configuration,
                     ConfigText::tr("Missing required settings: %1").arg(missing.join(u", "_s)),
                     ConfigText::tr("Set them in the environment or in a .env file in %1 "
                                    "(KEY=value, one per line; a value of only spaces counts as "
                                    "missing).")
                             .arg(QDir::toNativeSeparators(QDir(directory).absolutePath()))};
    }
    if (const QString error = baseUrlError(baseUrl); !error.isEmpty())
        return Error{Error::Configuration, error};

    LoadedConfig config;
    config.provider = provider;
    config.provider.apiKey = apiKey;
    if (apiKey.isEmpty())
        config.provider.auth = AuthStyle::None;
    config.provider.model = model;
    if (const QString warning = baseUrlWarning(baseUrl); !warning.isEmpty())
        config.warnings << warning;
    return config;
}

} // namespace AgentLoop
