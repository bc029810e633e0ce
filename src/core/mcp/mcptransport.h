#pragma once

#include "mcp/mcpconfig.h"

#include <QJsonObject>
#include <QObject>
#include <QStringList>

namespace AgentLoop {

// How one MCP server is reached. A transport moves whole JSON-RPC messages; it knows nothing of
// methods or eras (McpClient does). Each transport is a QObject that emits, never blocks.
class McpTransport : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Starts the process (stdio) or just becomes ready (HTTP); started() or closed() follows.
    virtual void open() = 0;
    // Sends one JSON-RPC message (request, notification or response).
    virtual void send(const QJsonObject &message) = 0;
    // Stops: stdio closes stdin, terminates and then kills the whole process tree (process group
    // on Unix, a Job Object with kill-on-close on Windows, so the tree also dies with the app);
    // HTTP aborts what is in flight (and, in the legacy era, ends the session with DELETE).
    // closed() follows once, unless it already came.
    virtual void close() = 0;

    // The client no longer wants the answer to request id (a cancelled or timed-out call).
    // HTTP aborts that request's POST, which is how a stateless server learns of it; stdio has
    // nothing to do.
    virtual void abandonRequest(const QJsonValue &id) { Q_UNUSED(id); }

    // HTTP only: the era the client settled on decides the headers of every later request
    // (MCP-Protocol-Version; Mcp-Session-Id from the legacy era's initialize answer).
    virtual void setProtocolVersion(const QString &version) { Q_UNUSED(version); }

    // The last lines the server wrote to standard error (stdio), oldest first, at most 200.
    virtual QStringList standardErrorTail() const { return {}; }

signals:
    void started();
    // One message from the server, parsed (a line that is not a JSON object is reported through
    // protocolNoise() and skipped: some servers print banners on stdout).
    void messageReceived(const QJsonObject &message);
    // HTTP: the answer to a request was not a JSON-RPC message (status, content type, body start),
    // delivered for the request id it answered so that the client can fail that request.
    void requestFailed(const QJsonValue &id, const QString &reason, int httpStatus);
    void protocolNoise(const QString &text);
    // Something about the connection worth a line in the server's log (HTTP: the server's own
    // stream is not offered, or was given up).
    void note(const QString &text);
    void standardErrorLine(const QString &line);
    // The server went away: exitCode and a sentence saying why (exited with code 1, crashed,
    // could not be started: the program was not found, ...). expected: after close().
    void closed(int exitCode, const QString &reason, bool expected);
};

// How a .cmd or .bat file runs on Windows: the native arguments of cmd.exe,
// `/d /s /c "<script> <argument> …"`. /s makes cmd.exe strip the outer quotes and run the rest
// as it is; the script and each argument that is not plainly safe is quoted for the C runtime's parser (the
// program the script hands %* to reads it so) with every character cmd.exe would interpret inside
// quotes neutralised: `"` is doubled and `%` cannot start a variable. Empty when an argument holds
// a line break, which no cmd.exe command line can carry. Plain function, for tests on every
// platform.
QString cmdExeNativeArguments(const QString &script, const QStringList &arguments);

// The longest line (stdio) or answer (HTTP) accepted from a server.
inline constexpr qsizetype mcpMaxMessageBytes = 64 * 1024 * 1024;

// Runs the server as a child process speaking newline-delimited JSON-RPC on stdin/stdout.
// - The environment is the app's, minus the provider's API key variable and any variable whose
//   value contains one of secretValues (servers never inherit the key: a tool like
//   server-everything's get-env would hand it to the model), plus the server's env.
// - On Windows a command that resolves (PATH and PATHEXT) to a .cmd or .bat (npx, npm, …) starts
//   as `cmd.exe /d /s /c "<quoted command line>"` with every argument quoted for cmd.exe.
// - Standard error is read line by line (UTF-8, bounded lines) and kept, the last 200 lines.
class McpStdioTransport final : public McpTransport
{
    Q_OBJECT
public:
    McpStdioTransport(McpServerConfig expandedServer,
                      QString workingDirectory,
                      QStringList secretValues,
                      QObject *parent = nullptr);
    ~McpStdioTransport() override;

    void open() override;
    void send(const QJsonObject &message) override;
    void close() override;
    QStringList standardErrorTail() const override;

    // The program and arguments given to the process (on Windows the cmd.exe line for .cmd/.bat),
    // for the server's page and tests.
    QString launchedProgram() const;
    QStringList launchedArguments() const;
    qint64 processId() const;

private:
    class Private;
    std::unique_ptr<Private> d;
};

// Streamable HTTP: every message is a POST of one JSON-RPC message with
// Accept: application/json, text/event-stream; the answer is one JSON message or an SSE stream of
// messages (notifications and server requests may come before the response). 202 for
// notifications and responses. The configured headers go with every request.
// - Once the server accepted notifications/initialized (legacy era), a GET stream carries the
//   server's own requests and notifications; 405 means it has none. When the server ends it, it
//   is opened again after the server's `retry:` time (otherwise 1 s, doubling while it brings
//   nothing, given up after 5 such tries), with Last-Event-ID.
// - A request's stream that ends before its answer, after an event id, is resumed the same way
//   (SEP-1699): GET with Last-Event-ID after the `retry:` time, until the answer or the call's
//   own timeout.
class McpHttpTransport final : public McpTransport
{
    Q_OBJECT
public:
    McpHttpTransport(McpServerConfig expandedServer, QObject *parent = nullptr);
    ~McpHttpTransport() override;

    void open() override;
    void send(const QJsonObject &message) override;
    void close() override;
    void abandonRequest(const QJsonValue &id) override;
    void setProtocolVersion(const QString &version) override;

private:
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace AgentLoop
