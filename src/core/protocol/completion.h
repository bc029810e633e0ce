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
};

// The `usage` object of a response or of a stream's last chunk; nothing when it is absent.
std::optional<Usage> usageFromJson(const QJsonValue &usage);

// The part of a chat.completion response the loop acts on.
struct Completion
{
    Message message = Message::assistant(std::nullopt);
    QString finishReason; // empty when the provider sent none
    std::optional<Usage> usage;
    QString id;
    QString model;
};

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

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::Completion)
