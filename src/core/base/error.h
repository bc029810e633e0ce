#pragma once

#include <QString>

namespace AgentLoop {

// A failure the user can act on: what went wrong (message) and how to fix it (hint).
struct Error
{
    enum Kind {
        None,
        Configuration, // settings missing or malformed; nothing was sent
        Contract,      // the history would break the Chat Completions protocol
        Agent,         // the loop stopped: turn limit, finish_reason, empty answer
        Protocol,      // the provider's answer is not what the protocol says
        Http,          // the provider answered with an HTTP error status
        Network,       // no answer: connection refused, DNS, TLS, dropped connection
        Timeout,       // the provider stayed silent for longer than the request timeout
        Cancelled,     // the user stopped the run
        Io,            // a local file could not be read or written
    };

    Error() = default;
    Error(Kind errorKind, QString errorMessage, QString fixHint = {})
        : kind(errorKind)
        , message(std::move(errorMessage))
        , hint(std::move(fixHint))
    {}

    Kind kind = None;
    QString message;
    QString hint;
    int httpStatus = 0;      // Http only
    QString providerMessage; // error.message from the provider's body, when it sent one
    QString providerCode;    // error.code from the provider's body (context_length_exceeded, ...)

    // "message" alone, or "message\nhint" when there is a hint; what a front end prints.
    QString toString() const;
};

} // namespace AgentLoop
