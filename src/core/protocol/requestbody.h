#pragma once

#include "protocol/history.h"

#include <QByteArray>
#include <QJsonArray>
#include <QString>

namespace AgentLoop {

// The body of one Chat Completions request: the model, the history's messages, the tool
// definitions (left out when there are none: some providers reject an empty array) and, when
// streaming, `stream` with `stream_options.include_usage`.
QByteArray chatRequestBody(const QString &model,
                           const History &history,
                           const QJsonArray &toolDefinitions,
                           bool stream);

} // namespace AgentLoop
