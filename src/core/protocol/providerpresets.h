#pragma once

#include "protocol/providersettings.h"

#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace AgentLoop {

// A known provider: what a new profile for it starts with, and what the app knows about it. The
// table (providerpresets.cpp) is the one place to add a provider; README lists it.
struct ProviderPreset
{
    QString id;      // stable, stored in profiles: "deepseek", "azure", ...
    QString name;    // the provider's own name, as its users know it (translated)
    QString baseUrl; // what the profile starts with; <placeholders> are for the user to fill
    QString model;   // a model that calls tools, to start with
    QUrl keyPage;    // where a key is made; empty for local servers
    AuthStyle auth = AuthStyle::Bearer;
    bool stream = true;
    bool streamUsage = true; // the provider accepts stream_options
    bool local = false;      // runs on this machine; needs no key
    bool fromChina = false;  // listed first in the zh_CN interface
    MaxTokensField maxTokensField = MaxTokensField::MaxTokens; // the name its API documents
    // Set when baseUrl holds <placeholders> the user has to replace.
    bool needsEditing() const { return baseUrl.contains(u'<'); }
};

// Every preset, in the order the interface lists them for this language (the Chinese providers
// first in zh_CN).
QList<ProviderPreset> providerPresets();
// The preset with this id; one with an empty id when there is none.
ProviderPreset providerPreset(const QString &id);

// The provider a base URL belongs to, from its host, port and path (an Azure deployment path, an
// api-version query, *.openai.azure.com), so that OPENAI_BASE_URL alone is enough; empty when it
// is not recognised.
QString providerIdForBaseUrl(const QUrl &baseUrl);

// providerIdForBaseUrl()'s answer applied to settings that came without a profile (the
// environment, a .env file): the provider id and, for Azure, the api-key header.
void recogniseProvider(ProviderSettings &settings);

// The hint for an HTTP error status from this provider, naming it ("Azure uses the api-key
// header; check the deployment's key."); empty when there is nothing more specific to say than
// the generic hint.
QString providerHintForStatus(const ProviderSettings &settings, int status);

// The output limit's field a provider expects: max_completion_tokens for OpenAI, max_tokens for
// everyone else and for an unknown provider.
MaxTokensField defaultMaxTokensField(const QString &providerId);
// "max_tokens", "max_completion_tokens": as sent, stored and given on the command line.
QString maxTokensFieldName(MaxTokensField field);
// The field of that name; nothing for any other text.
std::optional<MaxTokensField> maxTokensFieldFromName(const QString &name);

// The localised name of a provider id ("DeepSeek", "智谱 GLM"), or the id itself.
QString providerName(const QString &id);

} // namespace AgentLoop
