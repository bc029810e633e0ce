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

// The built-in table of common models (OpenAI, DeepSeek, Qwen, Kimi, GLM, ...), by model id; a
// dated or suffixed id (gpt-4o-2024-08-06, qwen-plus-latest) finds its family.
std::optional<qint64> builtInContextWindow(const QString &model);

// The windows a /models response reports, by model id: `context_length` (OpenRouter, Together,
// ...), `max_model_len` (vLLM), `context_window` (Groq, ...). Models without one are left out.
QHash<QString, qint64> contextWindowsFromModelList(const QByteArray &body);

// The user's setting (0: none), else what the provider reported, else the table, else
// fallbackContextWindow.
ContextWindow resolveContextWindow(const QString &model,
                                   qint64 setting,
                                   std::optional<qint64> reported = std::nullopt);

// 950, 31.2k, 128k, 1.05M: the short form the status bar and the CLI use.
QString formatTokenCount(qint64 tokens);

} // namespace AgentLoop
