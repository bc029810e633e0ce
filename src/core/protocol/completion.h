#pragma once

#include "base/error.h"
#include "base/result.h"
#include "protocol/message.h"

#include <QByteArray>
#include <QJsonObject>

#include <optional>

namespace AgentLoop {

// The most tool calls one assistant message may carry. A message with more is refused whole,
// before any of them runs: a bound on the work (and the approvals) one answer can ask for.
inline constexpr int maxToolCallsPerMessage = 128;

// The error for a message over maxToolCallsPerMessage; the same wherever it is caught.
Error tooManyToolCallsError();

struct Usage
{
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 totalTokens = 0;
    // Of completionTokens, those the model spent reasoning (completion_tokens_details): hidden
    // for OpenAI's reasoning models, so not part of the answer the next request sends back.
    qint64 reasoningTokens = 0;
};

// The `usage` object of a response or of a stream's last chunk; nothing when it is absent.
std::optional<Usage> usageFromJson(const QJsonValue &usage);

// The part of a chat.completion response the loop acts on.
struct Completion
{
    Message message = Message::assistant(std::nullopt);
    // One of stop, tool_calls, length, content_filter or error (see finishReasonFromProvider),
    // the provider's own value when it is none of these, or empty when the provider sent none.
    QString finishReason;
    QString providerFinishReason; // exactly as it came on the wire
    std::optional<Usage> usage;
    QString id;
    QString model;
};

// The provider's finish_reason in the protocol's terms. The synonyms providers document are
// mapped: eos (Together), end_turn (LiteLLM, Anthropic-style gateways) and stop_sequence are stop;
// function_call (OpenAI's deprecated value) is tool_calls; max_tokens is length; GLM's sensitive
// is content_filter; OpenRouter's error (the provider failed mid-answer) is error. Anything else
// is returned as it is, for the loop to refuse by name.
QString finishReasonFromProvider(const QString &providerValue);

// Gives every call in an assistant message's `tool_calls` that has no id (absent, null or "",
// as Gemini, vLLM and llama.cpp may send) one of its own, unique within the message: call_ and
// hex digits derived from the response id, the call's position, name and arguments, so that the
// same answer always gets the same ids.
void assignMissingToolCallIds(QJsonArray &toolCalls, const QString &responseId);

// Mistral's reasoning models send `content` as parts: [{"type":"thinking","thinking":[{"type":
// "text","text":...}]},{"type":"text","text":...}]. The text parts, joined, are the content; the
// thinking parts, joined, the reasoning (shown, not sent back). Nothing when value is not an
// array of such parts.
struct ContentParts
{
    QString text;
    QString thinking;
};
std::optional<ContentParts> contentParts(const QJsonValue &value);

// Parses a non-streamed response body. Lenient in what it accepts (content "" / null / absent,
// a missing tool-call type, arguments sent as an object, several choices: index 0 is used), and
// explicit about what it cannot use: not JSON, an HTML page, an `error` object, no choices, more
// than maxToolCallsPerMessage tool calls.
Result<Completion> parseCompletion(const QByteArray &body);

// The error for an HTTP error status, with the provider's error.message and a hint that says what
// to fix (401/403: the key; 404: the base URL, most often a missing /v1; ...).
Error httpError(int status, const QByteArray &body);

// The provider's `error.message` from an error body, or an empty string.
QString providerErrorMessage(const QByteArray &body);
// error.code of an error body ("context_length_exceeded"), or empty.
QString providerErrorCode(const QByteArray &body);

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::Completion)
