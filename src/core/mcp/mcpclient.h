#pragma once

#include "mcp/mcptransport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <memory>
#include <optional>

namespace AgentLoop {

// The protocol versions this client speaks. Modern: stateless, no initialize; every request
// carries _meta["io.modelcontextprotocol/protocolVersion"] and
// _meta["io.modelcontextprotocol/clientCapabilities"] (and clientInfo); servers answer
// server/discover; results carry resultType; server-to-client requests are replaced by
// multi-round-trip results (resultType "input_required"). Legacy: initialize →
// notifications/initialized, Mcp-Session-Id over HTTP, ping, server-to-client requests.
inline constexpr char mcpModernVersion[] = "2026-07-28";
inline constexpr char mcpLegacyVersion[] = "2025-11-25";
// Older legacy versions a server may answer initialize with, and we accept.
QStringList mcpAcceptedLegacyVersions();

// One tool as a server lists it.
struct McpToolInfo
{
    QString name;
    QString title;
    QString description;
    QJsonObject inputSchema;
    QJsonObject outputSchema; // empty: none
    bool readOnlyHint = false;
    bool destructiveHint = false; // shown only; never lowers an ask
    QJsonObject raw;              // the whole entry as listed
};

// The answer to one tools/call (or its failure), as the server sent it.
struct McpCallOutcome
{
    enum Status { Completed, Failed, TimedOut, Cancelled };
    Status status = Completed;
    QJsonObject result;   // Completed: the result object (content, structuredContent, isError)
    QString errorMessage; // Failed / TimedOut: why (a JSON-RPC error's message and code, the
                          // server's exit, ...)
    int errorCode = 0;    // Failed with a JSON-RPC error: its code
};

// A request the server makes of the user (legacy: elicitation/create; modern: an input_required
// round). The front end shows `message` and a form for `requestedSchema`, then answers with
// McpClient::answerElicitation().
struct McpElicitation
{
    quint64 id = 0; // the client's, not the server's
    QString serverName;
    QString message;
    QJsonObject requestedSchema;
};

// One tools/call in flight. finished() is emitted exactly once, asynchronously.
class McpCall : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    // Sends notifications/cancelled (legacy) or drops the request (modern), then finishes with
    // Cancelled.
    virtual void cancel() = 0;
signals:
    // notifications/progress for this call's progressToken: progress, total (0 when unknown),
    // message.
    void progressed(double progress, double total, const QString &message);
    void finished(const AgentLoop::McpCallOutcome &outcome);
};

class McpClientCall;

// A JSON-RPC client of one MCP server over one transport, in whichever era the server speaks.
//
// Era negotiation (a state machine, tested): stdio probes with server/discover (modern _meta);
// a result with supportedVersions containing 2026-07-28 → Modern; any error that is not a modern
// one (not -32022 UnsupportedProtocolVersion with supported versions we know), or no answer within
// the probe timeout (default 3 s), → initialize with 2025-11-25 → Legacy at the version the
// server answers (if we accept it; otherwise failed). A late answer to the abandoned probe is
// ignored; when the probe timed out and initialize is unknown (-32601), the server was a slow
// modern one: server/discover is asked once more, with the request timeout. Over HTTP, the first POST of
// server/discover decides the same way from its answer (HTTP 400/404/405 or a JSON-RPC error →
// legacy), waiting for it as for any request (the request timeout, not the probe timeout). The era and version are kept for this server process (a restart negotiates anew).
class McpClient final : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, Negotiating, Ready, Closed };
    Q_ENUM(State)
    enum class Era { Unknown, Modern, Legacy };
    Q_ENUM(Era)

    // Takes ownership of transport. workspaceRoot is offered as the client's only root
    // (roots/list, legacy era).
    McpClient(QString serverName,
              McpTransport *transport,
              QString workspaceRoot,
              QObject *parent = nullptr);
    ~McpClient() override;

    // Opens the transport and negotiates; ready() or failed() follows. Then lists the tools
    // (every page) and emits toolsChanged().
    void start();
    void stop();

    State state() const;
    Era era() const;
    QString protocolVersion() const; // "2026-07-28", "2025-11-25", "2025-06-18", …
    QJsonObject serverInfo() const;  // name, version as the server said
    QString instructions() const;
    const QList<McpToolInfo> &tools() const;
    McpTransport *transport() const;

    void setProbeTimeoutMs(int ms);
    void setRequestTimeoutMs(int ms); // listing and negotiation requests; default 30 s

    // Calls a tool; the call's own timeout (the server's timeoutMs) fails it with TimedOut and
    // cancels it on the server. The timeout stands still while the call waits for the user (an
    // elicitation). The call is a child of parent.
    McpCall *callTool(const QString &name,
                      const QJsonObject &arguments,
                      int timeoutMs,
                      QObject *parent);

    // The user's answer to elicitationRequested(): action "accept" (with content), "decline" or
    // "cancel".
    void answerElicitation(quint64 id, const QString &action, const QJsonObject &content = {});

signals:
    void stateChanged(AgentLoop::McpClient::State state);
    void ready();
    // The tool list changed: the first listing, and every later one (after
    // notifications/tools/list_changed, also when sent before the first tools/list was answered,
    // or once a list's ttlMs ran out, at most once a second) that brought a different list.
    void toolsChanged();
    // Negotiation or the first listing failed, or the transport closed; reason is a sentence.
    void failed(const QString &reason);
    void elicitationRequested(const AgentLoop::McpElicitation &request);
    // An elicitation is no longer wanted (its call was cancelled, timed out or finished, the
    // server cancelled its request, or the server went away): the front end closes its form.
    // answerElicitation() for it does nothing.
    void elicitationWithdrawn(quint64 id);
    // notifications/message and anything the server logs, for the server's page.
    void logMessage(const QString &text);

private:
    friend class McpClientCall;
    class Private;
    std::unique_ptr<Private> d;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::McpCallOutcome)
Q_DECLARE_METATYPE(AgentLoop::McpElicitation)
