#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

#include <optional>

namespace AgentLoop {

// The window when nothing says otherwise.
inline constexpr qint64 fallbackContextWindow = 128'000;

// How many tokens the model reads in one request, and who said so.
struct ContextWindow
{
    enum class Source {
        Setting,  // the user's setting for this model (or --context-window)
        Provider, // the provider's /models metadata
        BuiltIn,  // the built-in table of common models (builtInContextWindow)
        Fallback, // fallbackContextWindow
    };
    qint64 tokens = fallbackContextWindow;
    Source source = Source::Fallback;
    friend bool operator==(const ContextWindow &, const ContextWindow &) = default;
};

// The model id as the built-in table knows it: lower case, without a gateway's "vendor/" prefix
// ("openai/gpt-4o" -> "gpt-4o").
QString normalizedModelId(const QString &model);

// The built-in table of common models (OpenAI, DeepSeek, Qwen, Kimi/Moonshot, GLM, Claude, Gemini,
// Llama, Mistral; sources in contextwindow.cpp), by model id: the longest matching prefix of the
// normalised id, so that a dated or suffixed id (gpt-4o-2024-08-06, qwen-plus-latest) or one
// with a gateway's prefix (deepseek/deepseek-chat) finds its family. Nothing for an unknown model.
std::optional<qint64> builtInContextWindow(const QString &model);

// The windows a /models response reports, by model id: `context_length` (OpenRouter, Together,
// ...), `max_model_len` (vLLM), `context_window` (Groq, ...), `max_context_length` (LM Studio).
// Models without one, or with a figure no model has (under 1 024 or over 100 million), are left
// out.
QHash<QString, qint64> contextWindowsFromModelList(const QByteArray &body);

// The user's setting (0: none), else what the provider reported, else the table, else
// fallbackContextWindow.
ContextWindow resolveContextWindow(const QString &model,
                                   qint64 setting,
                                   std::optional<qint64> reported = std::nullopt);

// 950, 31.2k, 128k, 1.05M: the short form the status bar and the CLI use (C locale, so that the
// figure reads the same in every language).
QString formatTokenCount(qint64 tokens);

} // namespace AgentLoop
