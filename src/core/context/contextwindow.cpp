#include "context/contextwindow.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// One row per model family: the id's start and the family's window in tokens (input and output
// together, as the providers state it). Where a provider gives "128K" the row says 128 000, where
// it gives the exact figure (131 072) the row does too. A model that has grown a larger window
// under the same id keeps the smaller figure until its provider says otherwise: the provider's
// /models metadata and the user's setting come first anyway (resolveContextWindow).
struct WindowRow
{
    QStringView prefix;
    qint64 tokens;
};

// clang-format off
constexpr WindowRow windowTable[] = {
    // OpenAI, platform.openai.com/docs/models (model pages, "Context window"), 2025-12.
    {u"gpt-3.5-turbo", 16'385},
    {u"gpt-4", 8'192},
    {u"gpt-4-32k", 32'768},
    {u"gpt-4-turbo", 128'000},
    {u"gpt-4o", 128'000},
    {u"gpt-4o-mini", 128'000},
    {u"chatgpt-4o", 128'000},
    {u"gpt-4.1", 1'047'576}, // gpt-4.1, -mini, -nano
    {u"gpt-4.5", 128'000},
    {u"gpt-5", 400'000},     // gpt-5, -mini, -nano, gpt-5.1, gpt-5-codex
    {u"gpt-5-chat", 128'000},
    {u"o1", 200'000},
    {u"o1-mini", 128'000},
    {u"o1-preview", 128'000},
    {u"o3", 200'000},        // o3, o3-mini, o3-pro
    {u"o4-mini", 200'000},
    // DeepSeek, api-docs.deepseek.com "Models & Pricing": 128K for deepseek-chat and
    // deepseek-reasoner since V3.1 (64K before); the open V3 and R1 models are 128K too.
    {u"deepseek", 128'000},
    // Qwen, Alibaba Cloud Model Studio "Models" (help.aliyun.com/zh/model-studio/models).
    {u"qwen-max", 32'768},
    {u"qwen-plus", 131'072},
    {u"qwen-turbo", 1'000'000},
    {u"qwen-long", 10'000'000},
    {u"qwen3", 131'072},     // the open Qwen3 models (qwen3-8b ... qwen3-235b-a22b)
    {u"qwen3-max", 262'144},
    {u"qwen3-next", 262'144},
    {u"qwen3-coder", 262'144}, // qwen3-coder-480b-a35b-instruct, qwen3-coder-30b-a3b-instruct
    {u"qwen3-coder-plus", 1'048'576},
    {u"qwen3-coder-flash", 1'048'576},
    // Kimi, platform.moonshot.cn/docs ("模型列表"): the v1 models by their names, K2 from 0905 on
    // 256K (the 0711 preview and kimi-latest 128K).
    {u"moonshot-v1-8k", 8'192},
    {u"moonshot-v1-32k", 32'768},
    {u"moonshot-v1-128k", 131'072},
    {u"moonshot-v1-auto", 131'072},
    {u"kimi-k2", 262'144},   // kimi-k2-0905-preview, -turbo-preview, -thinking, kimi-k2.5
    {u"kimi-k2-0711", 131'072},
    {u"kimi-latest", 131'072},
    // GLM, docs.bigmodel.cn / docs.z.ai model pages: GLM-4.5 128K, GLM-4.6 200K.
    {u"glm-4", 128'000},     // glm-4-plus, glm-4-air, glm-4-flash, glm-4-flashx
    {u"glm-4-long", 1'000'000},
    {u"glm-4.5", 128'000},   // glm-4.5, -air, -x, -flash
    {u"glm-4.5v", 64'000},
    {u"glm-4.6", 200'000},
    // Anthropic (through an OpenAI-compatible gateway), docs.anthropic.com "Models overview":
    // 200K for every Claude 3 and 4 model.
    {u"claude", 200'000},
    {u"claude-2", 100'000},
    // Gemini, ai.google.dev/gemini-api/docs/models ("Input token limit" plus output).
    {u"gemini-1.5-flash", 1'048'576},
    {u"gemini-1.5-pro", 2'097'152},
    {u"gemini-2", 1'048'576}, // gemini-2.0-flash, -flash-lite, gemini-2.5-pro, -flash
    // Llama, the model cards on huggingface.co/meta-llama: Llama 3 8K, 3.1 to 3.3 128K.
    {u"llama3", 8'192},      // Ollama's and Groq's spelling (llama3-70b-8192)
    {u"llama-3", 8'192},
    {u"meta-llama-3", 8'192},
    {u"llama3.1", 131'072},
    {u"llama3.2", 131'072},
    {u"llama3.3", 131'072},
    {u"llama-3.1", 131'072},
    {u"llama-3.2", 131'072},
    {u"llama-3.3", 131'072},
    {u"meta-llama-3.1", 131'072},
    {u"meta-llama-3.2", 131'072},
    {u"meta-llama-3.3", 131'072},
    // Mistral, docs.mistral.ai/getting-started/models ("Max tokens").
    {u"mistral-large", 131'072},
    {u"mistral-medium", 131'072},
    {u"mistral-small", 131'072},
    {u"mistral-nemo", 131'072},
    {u"open-mistral-nemo", 131'072},
    {u"ministral", 131'072},
    {u"codestral", 256'000},
    {u"devstral", 131'072},
    {u"pixtral", 131'072},
    {u"magistral", 40'000},
    {u"open-mistral-7b", 32'768},
    {u"open-mixtral-8x7b", 32'768},
    {u"open-mixtral-8x22b", 65'536},
};
// clang-format on

} // namespace

QString normalizedModelId(const QString &model)
{
    // OpenRouter and other gateways write "vendor/model" ("deepseek/deepseek-chat",
    // "meta-llama/Llama-3.3-70B-Instruct"); the family is in the last part, in any case.
    const qsizetype slash = model.lastIndexOf(u'/');
    return model.sliced(slash + 1).trimmed().toLower();
}

std::optional<qint64> builtInContextWindow(const QString &model)
{
    // Longest prefix wins, so "gpt-4o-mini" finds its own row before "gpt-4o", and "gpt-4.1" its
    // own before "gpt-4".
    const QString id = normalizedModelId(model);
    std::optional<qint64> found;
    qsizetype foundLength = 0;
    for (const WindowRow &row : windowTable) {
        if (id.startsWith(row.prefix) && row.prefix.size() > foundLength) {
            found = row.tokens;
            foundLength = row.prefix.size();
        }
    }
    return found;
}

// What a /models response may say and still be believed.
constexpr qint64 minimumReportedWindow = 1'024;
constexpr qint64 maximumReportedWindow = 100'000'000;

QHash<QString, qint64> contextWindowsFromModelList(const QByteArray &body)
{
    QHash<QString, qint64> windows;
    const QJsonArray models = QJsonDocument::fromJson(body).object().value(u"data"_s).toArray();
    for (const QJsonValue &value : models) {
        const QJsonObject model = value.toObject();
        const QString id = model.value(u"id"_s).toString();
        if (id.isEmpty())
            continue;
        for (const QString &field : {u"context_length"_s,
                                     u"max_model_len"_s,
                                     u"context_window"_s,
                                     u"max_context_length"_s}) {
            const qint64 tokens = model.value(field).toInteger();
            // A figure no model has is the provider's mistake, not a window to plan with.
            if (tokens >= minimumReportedWindow && tokens <= maximumReportedWindow) {
                windows.insert(id, tokens);
                break;
            }
        }
    }
    return windows;
}

ContextWindow resolveContextWindow(const QString &model,
                                   qint64 setting,
                                   std::optional<qint64> reported)
{
    if (setting > 0)
        return {setting, ContextWindow::Source::Setting};
    if (reported && *reported > 0)
        return {*reported, ContextWindow::Source::Provider};
    if (const std::optional<qint64> known = builtInContextWindow(model))
        return {*known, ContextWindow::Source::BuiltIn};
    return {};
}

QString formatTokenCount(qint64 tokens)
{
    const QLocale c = QLocale::c();
    const auto scaled = [&](double value, int decimals, QChar unit) {
        QString text = c.toString(value, 'f', decimals);
        if (text.contains(u'.')) {
            while (text.endsWith(u'0'))
                text.chop(1);
            if (text.endsWith(u'.'))
                text.chop(1);
        }
        return text + unit;
    };
    if (tokens < 1000)
        return c.toString(tokens);
    // 999 500 would round to "1000k": it is 1M.
    if (tokens < 999'500)
        return scaled(tokens / 1000.0, tokens < 99'950 ? 1 : 0, u'k');
    const double millions = tokens / 1'000'000.0;
    return scaled(millions, millions < 9.995 ? 2 : millions < 99.95 ? 1 : 0, u'M');
}

} // namespace AgentLoop
