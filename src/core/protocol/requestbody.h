#pragma once

#include "protocol/history.h"
#include "protocol/providersettings.h"

#include <QByteArray>
#include <QJsonArray>
#include <QString>

namespace AgentLoop {

// The body of one Chat Completions request, for the provider's settings: the model, the
// history's messages, the tool definitions (left out when there are none: some providers reject
// an empty array), the output limit (`max_tokens` or `max_completion_tokens`, as the settings
// say) when the settings set one and, when streaming, `stream` with
// `stream_options.include_usage` (unless the settings leave it out).
QByteArray chatRequestBody(const ProviderSettings &provider,
                           const History &history,
                           const QJsonArray &toolDefinitions);

// The optional request fields some providers refuse by name (Mistral answers 422 extra_forbidden
// for `stream_options`), as chatRequestBody() writes them.
inline constexpr char streamOptionsField[] = "stream_options";

// body without `stream_options`, for a second attempt after a provider refused it; body itself
// when it has none. Only for bodies chatRequestBody() wrote.
QByteArray withoutStreamOptions(const QByteArray &body);
// body asking for one JSON answer instead of a stream (`stream` and `stream_options` removed),
// for a provider that cannot stream with tools (llama.cpp). Only for bodies chatRequestBody()
// wrote.
QByteArray withoutStreaming(const QByteArray &body);

} // namespace AgentLoop
