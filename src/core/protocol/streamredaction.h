#pragma once

#include <QByteArray>
#include <QStringList>

namespace AgentLoop {

// A streamed answer's raw events (text/event-stream) with every secret removed, also where the
// provider sent one in pieces: the model's text arrives a few characters per event, so a key it
// repeats is split over several `data:` lines and no line holds it whole. Each delta text of a
// chat completion chunk (choices[].delta.content, .reasoning_content, .reasoning, and
// .tool_calls[].function.arguments) is joined across the events as the model wrote it; a piece
// that holds part of a secret is rewritten (the piece where the secret begins holds the marker,
// the others lose that part). Events that hold no part of one keep their bytes; the whole body
// then goes through redacted() for every secret as well.
QByteArray redactedEventStream(QByteArray body, const QStringList &secrets);

// Whether any secret is in the body as redacted() finds it, or in a delta text joined across
// events.
bool eventStreamHoldsSecret(const QByteArray &body, const QStringList &secrets);

} // namespace AgentLoop
