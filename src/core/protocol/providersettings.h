#pragma once

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

// Where and how to reach the provider.
struct ProviderSettings
{
    QUrl baseUrl; // e.g. https://api.openai.com/v1; /chat/completions is appended
    QString apiKey;
    QString model;
    // How long the provider may stay silent before the request is given up.
    std::chrono::milliseconds requestTimeout{std::chrono::seconds(120)};
    // The most bytes one answer (the response body of one attempt) may bring; past it the answer
    // is given up at once, so that a provider cannot exhaust memory. Never retried.
    qint64 maxResponseBytes = 64 * 1024 * 1024;
    // How long one answer may take, from the request to its last byte, however steadily it
    // arrives (requestTimeout counts only silence). Per attempt; never retried.
    std::chrono::milliseconds maxAnswerTime{std::chrono::minutes(10)};
    // Ask for Server-Sent Events (`stream: true`); off for providers that reject it.
    bool stream = true;
    RetryLimits retry;
};

} // namespace AgentLoop
