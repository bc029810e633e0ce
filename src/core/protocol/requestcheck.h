#pragma once

#include "protocol/history.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace AgentLoop {

// One thing wrong with a Chat Completions request body a user wrote (the inspector's "Edit and
// resend").
struct RequestProblem
{
    enum Kind {
        Syntax,  // not JSON: nothing can be sent
        Schema,  // JSON, but not the shape of a Chat Completions request (chatRequestSchema())
        Pairing, // the messages break the pairing rule (History::checkPairing())
    };

    Kind kind = Syntax;
    QString message; // one sentence, ready to show
    int line = 0;    // Syntax: where the error is, from 1
    int column = 0;

    friend bool operator==(const RequestProblem &, const RequestProblem &) = default;
};

struct RequestCheck
{
    QList<RequestProblem> problems; // syntax first, then schema, then pairing
    // The messages of the body, when they could be read as a history (Message::fromJson()).
    std::optional<History> history;

    bool hasSyntaxError() const
    {
        return !problems.isEmpty() && problems.first().kind == RequestProblem::Syntax;
    }
    bool isValid() const { return problems.isEmpty(); }
};

// Checks a request body as the provider would get it: JSON syntax (with the line and column of
// the error), the request's schema, and the pairing rule of its messages, the loop's own check.
// Pure and thread-safe: a large body is checked on another thread.
RequestCheck checkRequestBody(const QByteArray &body);

// The body of a Chat Completions request as a draft-7 schema for JsonSchema: model and messages
// required; each message a role the protocol knows, with text (or parts) as content, tool calls
// of type function with string arguments, a tool message's tool_call_id; and the types of the
// optional fields the loop and common clients send (stream, stream_options, tools, tool_choice,
// max_tokens, temperature...). Other fields are allowed, as providers add their own. Written
// after CreateChatCompletionRequest of OpenAI's OpenAPI description (tst_openapirequest checks
// that what that allows, this allows too).
const QJsonObject &chatRequestSchema();

} // namespace AgentLoop
