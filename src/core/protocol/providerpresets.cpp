#include "protocol/providerpresets.h"

#include <QCoreApplication>
#include <QLocale>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct PresetText
{
    Q_DECLARE_TR_FUNCTIONS(ProviderPreset)
};

// Sources for each row: the provider's OpenAI-compatibility page (base URL, auth) and its key
// page. The quirks each needs are handled in the core for everyone; a switch here is set only
// where the provider refuses a field outright.
QList<ProviderPreset> presetTable()
{
    using P = ProviderPreset;
    const auto key = [](const char *url) {
        return QUrl(QString::fromLatin1(url));
    };
    QList<ProviderPreset> presets;
    // platform.openai.com/docs/api-reference/chat
    // max_tokens is deprecated there, and refused by the o-series models.
    P openai{u"openai"_s,
             u"OpenAI"_s,
             u"https://api.openai.com/v1"_s,
             u"gpt-4.1"_s,
             key("https://platform.openai.com/api-keys")};
    openai.maxTokensField = MaxTokensField::MaxCompletionTokens;
    presets << openai;
    // learn.microsoft.com/azure/ai-foundry/openai/reference: api-key header, api-version query
    P azure{u"azure"_s,
            PresetText::tr("Azure OpenAI"),
            u"https://<resource>.openai.azure.com/openai/deployments/<deployment>"
            u"?api-version=2024-10-21"_s,
            u"<deployment>"_s,
            key("https://portal.azure.com/")};
    azure.auth = AuthStyle::ApiKeyHeader;
    presets << azure;
    // api-docs.deepseek.com
    P deepseek{u"deepseek"_s,
               PresetText::tr("DeepSeek"),
               u"https://api.deepseek.com/v1"_s,
               u"deepseek-chat"_s,
               key("https://platform.deepseek.com/api_keys")};
    deepseek.fromChina = true;
    presets << deepseek;
    // help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope
    P qwen{u"qwen"_s,
           PresetText::tr("Alibaba Qwen (DashScope)"),
           u"https://dashscope.aliyuncs.com/compatible-mode/v1"_s,
           u"qwen-plus"_s,
           key("https://bailian.console.aliyun.com/?apiKey=1")};
    qwen.fromChina = true;
    presets << qwen;
    // platform.moonshot.cn/docs/api/chat
    P kimi{u"kimi"_s,
           PresetText::tr("Moonshot Kimi"),
           u"https://api.moonshot.cn/v1"_s,
           u"kimi-k2-0905-preview"_s,
           key("https://platform.moonshot.cn/console/api-keys")};
    kimi.fromChina = true;
    presets << kimi;
    // docs.bigmodel.cn/cn/guide/develop/openai/introduction
    P glm{u"glm"_s,
          PresetText::tr("Zhipu GLM"),
          u"https://open.bigmodel.cn/api/paas/v4"_s,
          u"glm-4.6"_s,
          key("https://open.bigmodel.cn/usercenter/apikeys")};
    glm.fromChina = true;
    presets << glm;
    // docs.siliconflow.cn/cn/api-reference/chat-completions/chat-completions
    P siliconflow{u"siliconflow"_s,
                  PresetText::tr("SiliconFlow"),
                  u"https://api.siliconflow.cn/v1"_s,
                  u"deepseek-ai/DeepSeek-V3"_s,
                  key("https://cloud.siliconflow.cn/account/ak")};
    siliconflow.fromChina = true;
    presets << siliconflow;
    // volcengine.com/docs/82379/1330626 (the model is a model or an endpoint id, ep-...)
    P ark{u"volcengine"_s,
          PresetText::tr("Volcengine Ark (Doubao)"),
          u"https://ark.cn-beijing.volces.com/api/v3"_s,
          u"doubao-seed-1-6-250615"_s,
          key("https://console.volcengine.com/ark/region:ark+cn-beijing/apiKey")};
    ark.fromChina = true;
    presets << ark;
    // openrouter.ai/docs/api-reference/overview
    presets << P{u"openrouter"_s,
                 u"OpenRouter"_s,
                 u"https://openrouter.ai/api/v1"_s,
                 u"openai/gpt-4.1-mini"_s,
                 key("https://openrouter.ai/settings/keys")};
    // console.groq.com/docs/openai
    presets << P{u"groq"_s,
                 u"Groq"_s,
                 u"https://api.groq.com/openai/v1"_s,
                 u"llama-3.3-70b-versatile"_s,
                 key("https://console.groq.com/keys")};
    // docs.together.ai/docs/openai-api-compatibility
    presets << P{u"together"_s,
                 u"Together AI"_s,
                 u"https://api.together.xyz/v1"_s,
                 u"meta-llama/Llama-3.3-70B-Instruct-Turbo"_s,
                 key("https://api.together.ai/settings/api-keys")};
    // docs.mistral.ai/api: the request schema forbids unknown fields (422 extra_forbidden)
    P mistral{u"mistral"_s,
              u"Mistral"_s,
              u"https://api.mistral.ai/v1"_s,
              u"mistral-large-latest"_s,
              key("https://console.mistral.ai/api-keys")};
    mistral.streamUsage = false;
    presets << mistral;
    // ai.google.dev/gemini-api/docs/openai
    presets << P{u"gemini"_s,
                 PresetText::tr("Google Gemini"),
                 u"https://generativelanguage.googleapis.com/v1beta/openai"_s,
                 u"gemini-2.5-flash"_s,
                 key("https://aistudio.google.com/apikey")};
    // docs.anthropic.com/en/api/openai-sdk
    presets << P{u"anthropic"_s,
                 u"Anthropic"_s,
                 u"https://api.anthropic.com/v1"_s,
                 u"claude-sonnet-4-5"_s,
                 key("https://console.anthropic.com/settings/keys")};
    // github.com/ollama/ollama/blob/main/docs/openai.md
    P ollama{u"ollama"_s, u"Ollama"_s, u"http://localhost:11434/v1"_s, u"qwen3"_s, {}};
    ollama.auth = AuthStyle::None;
    ollama.local = true;
    presets << ollama;
    // lmstudio.ai/docs/app/api/endpoints/openai
    P lmstudio{u"lmstudio"_s, u"LM Studio"_s, u"http://localhost:1234/v1"_s, u"qwen3-8b"_s, {}};
    lmstudio.auth = AuthStyle::None;
    lmstudio.local = true;
    presets << lmstudio;
    // github.com/ggml-org/llama.cpp/tree/master/tools/server (needs --jinja for tools)
    P llamacpp{u"llamacpp"_s,
               PresetText::tr("llama.cpp server"),
               u"http://localhost:8080/v1"_s,
               u"default"_s,
               {}};
    llamacpp.auth = AuthStyle::None;
    llamacpp.local = true;
    presets << llamacpp;
    // docs.vllm.ai/en/latest/serving/openai_compatible_server.html (--api-key is optional)
    P vllm{u"vllm"_s, u"vLLM"_s, u"http://localhost:8000/v1"_s, u"Qwen/Qwen3-8B"_s, {}};
    vllm.auth = AuthStyle::None;
    vllm.local = true;
    presets << vllm;
    // docs.litellm.ai/docs/proxy/user_keys (the proxy's master or virtual key)
    P litellm{u"litellm"_s,
              PresetText::tr("LiteLLM proxy"),
              u"http://localhost:4000/v1"_s,
              u"gpt-4.1"_s,
              {}};
    litellm.local = true;
    presets << litellm;
    return presets;
}

bool hostIs(const QString &host, QStringView domain)
{
    return host.compare(domain, Qt::CaseInsensitive) == 0
           || host.endsWith(u'.' + domain.toString(), Qt::CaseInsensitive);
}

bool isLocalHost(const QString &host)
{
    return host == u"localhost" || host == u"127.0.0.1" || host == u"::1";
}

} // namespace

QList<ProviderPreset> providerPresets()
{
    QList<ProviderPreset> presets = presetTable();
    if (QLocale().language() == QLocale::Chinese) {
        std::stable_partition(presets.begin(), presets.end(), [](const ProviderPreset &preset) {
            return preset.fromChina;
        });
    }
    return presets;
}

ProviderPreset providerPreset(const QString &id)
{
    const QList<ProviderPreset> presets = presetTable();
    const auto found = std::find_if(presets.begin(), presets.end(), [&](const ProviderPreset &p) {
        return p.id == id;
    });
    return found == presets.end() ? ProviderPreset{} : *found;
}

QString providerName(const QString &id)
{
    const ProviderPreset preset = providerPreset(id);
    return preset.id.isEmpty() ? id : preset.name;
}

QString providerIdForBaseUrl(const QUrl &baseUrl)
{
    const QString host = baseUrl.host();
    const QString path = baseUrl.path();
    if (hostIs(host, u"openai.azure.com") || hostIs(host, u"cognitiveservices.azure.com")
        || path.contains(u"/openai/deployments/"_s)
        || QUrlQuery(baseUrl).hasQueryItem(u"api-version"_s))
        return u"azure"_s;
    struct Host
    {
        QStringView domain;
        QStringView id;
    };
    static constexpr Host hosts[] = {
            {u"api.openai.com", u"openai"},
            {u"api.deepseek.com", u"deepseek"},
            {u"dashscope.aliyuncs.com", u"qwen"},
            {u"dashscope-intl.aliyuncs.com", u"qwen"},
            {u"api.moonshot.cn", u"kimi"},
            {u"api.moonshot.ai", u"kimi"},
            {u"bigmodel.cn", u"glm"},
            {u"api.z.ai", u"glm"},
            {u"siliconflow.cn", u"siliconflow"},
            {u"siliconflow.com", u"siliconflow"},
            {u"volces.com", u"volcengine"},
            {u"openrouter.ai", u"openrouter"},
            {u"api.groq.com", u"groq"},
            {u"api.together.xyz", u"together"},
            {u"api.together.ai", u"together"},
            {u"api.mistral.ai", u"mistral"},
            {u"generativelanguage.googleapis.com", u"gemini"},
            {u"api.anthropic.com", u"anthropic"},
    };
    for (const Host &known : hosts) {
        if (hostIs(host, known.domain))
            return known.id.toString();
    }
    // Only the ports that are the server's own default and nobody else's.
    if (isLocalHost(host) && baseUrl.port() == 11434)
        return u"ollama"_s;
    if (isLocalHost(host) && baseUrl.port() == 1234)
        return u"lmstudio"_s;
    return {};
}

void recogniseProvider(ProviderSettings &settings)
{
    if (settings.providerId.isEmpty())
        settings.providerId = providerIdForBaseUrl(settings.baseUrl);
    if (settings.providerId == u"azure")
        settings.auth = AuthStyle::ApiKeyHeader;
    if (!settings.providerId.isEmpty() && !providerPreset(settings.providerId).streamUsage)
        settings.streamUsage = false;
}

MaxTokensField defaultMaxTokensField(const QString &providerId)
{
    if (providerId.isEmpty())
        return MaxTokensField::MaxTokens;
    return providerPreset(providerId).maxTokensField;
}

QString maxTokensFieldName(MaxTokensField field)
{
    return field == MaxTokensField::MaxCompletionTokens ? u"max_completion_tokens"_s
                                                        : u"max_tokens"_s;
}

std::optional<MaxTokensField> maxTokensFieldFromName(const QString &name)
{
    if (name == u"max_tokens")
        return MaxTokensField::MaxTokens;
    if (name == u"max_completion_tokens")
        return MaxTokensField::MaxCompletionTokens;
    return std::nullopt;
}

QString providerHintForStatus(const ProviderSettings &settings, int status)
{
    const QString &id = settings.providerId;
    if (id.isEmpty())
        return {};
    const ProviderPreset preset = providerPreset(id);
    if (id == u"azure") {
        if (status == 401 || status == 403)
            return PresetText::tr("Azure uses the api-key header; check the deployment's key "
                                  "(Keys and Endpoint of the resource in the Azure portal).");
        if (status == 404)
            return PresetText::tr("Azure answers 404 for a deployment name or api-version it "
                                  "does not know: the base URL must be https://<resource>.openai."
                                  "azure.com/openai/deployments/<deployment>?api-version=<date>.");
        return {};
    }
    if (status == 401 || status == 403) {
        if (preset.local)
            return PresetText::tr("%1 asks for a key: set the key the server was started with, "
                                  "or start it without one.")
                    .arg(preset.name);
        if (!preset.keyPage.isEmpty())
            return PresetText::tr("%1 did not accept the key: check it, or make a new one at %2.")
                    .arg(preset.name, preset.keyPage.toString());
    }
    if (status == 404 && preset.needsEditing() == false && !preset.baseUrl.isEmpty())
        return PresetText::tr("%1's base URL is %2; a model name this key cannot use also gives "
                              "404.")
                .arg(preset.name, preset.baseUrl);
    return {};
}

} // namespace AgentLoop
