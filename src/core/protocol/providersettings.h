#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrl>

#include <chrono>

namespace AgentLoop {

// The three settings every front end needs, by their environment names.
inline constexpr char baseUrlVariable[] = "OPENAI_BASE_URL";
inline constexpr char apiKeyVariable[] = "OPENAI_API_KEY";
inline constexpr char modelVariable[] = "OPENAI_MODEL";

inline constexpr std::chrono::milliseconds DefaultMaxRetryAfter{std::chrono::seconds(60)};

// How often and how patiently a failed request is sent again (RetryPolicy in provider/ decides
// when and how long to wait from these).
struct RetryLimits
{
    int maxRetries = 3; // so at most maxRetries + 1 requests
    std::chrono::milliseconds baseDelay{std::chrono::seconds(1)};
    std::chrono::milliseconds maxDelay{std::chrono::seconds(30)};
    std::chrono::milliseconds maxRetryAfter = DefaultMaxRetryAfter;
};

// How the key is sent.
enum class AuthStyle {
    Bearer,       // Authorization: Bearer <key> (OpenAI and almost everyone else)
    ApiKeyHeader, // api-key: <key> (Azure OpenAI)
    None,         // no key at all (a local server: Ollama, LM Studio, llama.cpp, vLLM)
};

// Under which name the output limit goes: OpenAI deprecated `max_tokens` for
// `max_completion_tokens` (its reasoning models refuse the old name); DeepSeek, Qwen, Kimi, GLM
// and most OpenAI-compatible servers know only `max_tokens`.
enum class MaxTokensField {
    MaxTokens,           // "max_tokens"
    MaxCompletionTokens, // "max_completion_tokens"
};

// Request headers a profile adds to every request (a gateway's routing or tenant header).
using ExtraHeaders = QList<QPair<QByteArray, QByteArray>>;

// Where and how to reach the provider.
struct ProviderSettings
{
    QUrl baseUrl; // e.g. https://api.openai.com/v1; /chat/completions is appended
    QString apiKey;
    QString model;
    AuthStyle auth = AuthStyle::Bearer;
    ExtraHeaders extraHeaders;
    // Which provider this is (a preset id from providerpresets.h, such as "azure" or "kimi"),
    // when a profile says so or the base URL shows it; empty when unknown. Error hints name it.
    QString providerId;
    // The profile's name, for messages ("the profile DeepSeek now leaves stream_options out").
    QString profileName;
    // The output limit of every request; 0: not sent (the provider's default).
    int maxTokens = 0;
    MaxTokensField maxTokensField = MaxTokensField::MaxTokens;
    // How long the provider may stay silent before the request is given up.
    std::chrono::milliseconds requestTimeout{std::chrono::seconds(120)};
    // The most bytes one answer (the response body of one attempt) may bring; past it the answer
    // is given up at once, so that a provider cannot exhaust memory. Never retried.
    qint64 maxResponseBytes = 64 * 1024 * 1024;
    // How long one answer may take, from the request to its last byte, however steadily it
    // arrives (requestTimeout counts only silence). Per attempt; never retried.
    std::chrono::milliseconds maxAnswerTime{std::chrono::minutes(10)};
    // Ask for Server-Sent Events (`stream: true`); off for providers that reject it (llama.cpp
    // with tools, some gateways).
    bool stream = true;
    // With streaming, ask for usage in the last chunk (`stream_options.include_usage`); off for
    // providers that reject the field (Mistral answers 422 extra_forbidden).
    bool streamUsage = true;
    RetryLimits retry;
};

} // namespace AgentLoop
