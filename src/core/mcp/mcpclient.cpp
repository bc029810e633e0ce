#include "mcp/mcpclient.h"

#include "base/displaytext.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <functional>
#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QStringList mcpAcceptedLegacyVersions()
{
    return {QString::fromLatin1(mcpLegacyVersion),
            u"2025-06-18"_s,
            u"2025-03-26"_s,
            u"2024-11-05"_s};
}

namespace {

constexpr int defaultProbeTimeoutMs = 3000;
constexpr int defaultRequestTimeoutMs = 30000;
// A list's ttlMs never makes the client ask more often than this.
constexpr int minimumRelistIntervalMs = 1000;
// Bounds against a server that pages or asks forever.
constexpr int maxListPages = 1000;
constexpr qsizetype maxTools = 10000;
constexpr int maxInputRounds = 16;
constexpr qsizetype maxLogMessage = 4000;

// JSON-RPC and MCP error codes.
constexpr int methodNotFound = -32601;
constexpr int unsupportedProtocolVersion = -32022;

const QString metaVersionKey = u"io.modelcontextprotocol/protocolVersion"_s;
const QString metaCapabilitiesKey = u"io.modelcontextprotocol/clientCapabilities"_s;
const QString metaClientInfoKey = u"io.modelcontextprotocol/clientInfo"_s;

QJsonObject clientInfo()
{
    return {{u"name"_s, u"agentloop"_s},
            {u"title"_s, u"Agent Loop"_s},
            {u"version"_s, QStringLiteral(AGENTLOOP_VERSION)}};
}

QString samplingRefusal()
{
    return u"Agent Loop does not offer sampling to MCP servers"_s;
}

QString compactJson(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
            .sliced(1)
            .chopped(1);
}

QString bounded(const QString &text, qsizetype limit)
{
    return text.size() <= limit ? text : text.first(limit) + u'…';
}

McpToolInfo toolFromJson(const QJsonObject &entry)
{
    McpToolInfo tool;
    tool.name = entry.value(u"name"_s).toString();
    tool.title = entry.value(u"title"_s).toString();
    tool.description = entry.value(u"description"_s).toString();
    tool.inputSchema = entry.value(u"inputSchema"_s).toObject();
    if (tool.inputSchema.isEmpty())
        tool.inputSchema = {{u"type"_s, u"object"_s}};
    tool.outputSchema = entry.value(u"outputSchema"_s).toObject();
    const QJsonObject annotations = entry.value(u"annotations"_s).toObject();
    if (tool.title.isEmpty())
        tool.title = annotations.value(u"title"_s).toString();
    tool.readOnlyHint = annotations.value(u"readOnlyHint"_s).toBool(false);
    tool.destructiveHint = annotations.value(u"destructiveHint"_s).toBool(false);
    tool.raw = entry;
    return tool;
}

// What a request came to.
struct Reply
{
    enum Kind { Result, Error, TimedOut, Closed };
    Kind kind = Result;
    QJsonObject result;
    int code = 0;
    QString message; // Error: the server's; Closed: why the transport went
    QJsonValue data;

    // "message (code -32601)" for an error; the reason for the others.
    QString describe() const
    {
        if (kind == Error && code != 0)
            return u"%1 (code %2)"_s.arg(message).arg(code);
        return message;
    }
};

} // namespace

class McpClient::Private
{
public:
    struct PendingRequest
    {
        QString method;
        std::function<void(const Reply &)> done;
        QTimer *timer = nullptr;
    };

    // An elicitation waiting for the user. Legacy: the server's request to answer. Modern: one
    // key of a call's input_required round.
    struct Elicitation
    {
        QJsonValue serverRequestId;  // legacy
        QSet<quint64> callsInFlight; // legacy: withdrawn when all of these have ended
        quint64 callKey = 0;         // modern
        QString inputKey;            // modern

        bool isLegacy() const
        {
            return !serverRequestId.isNull() && !serverRequestId.isUndefined();
        }
    };

    McpClient *q = nullptr;
    QString serverName;
    McpTransport *transport = nullptr;
    QString workspaceRoot;
    State state = State::Idle;
    Era era = Era::Unknown;
    QString protocolVersion;
    QJsonObject serverInfo;
    QJsonObject serverCapabilities;
    QString instructions;
    QList<McpToolInfo> tools;
    int probeTimeoutMs = defaultProbeTimeoutMs;
    int requestTimeoutMs = defaultRequestTimeoutMs;

    qint64 nextRequestId = 1;
    QHash<qint64, PendingRequest> pending;

    bool probeTimedOut = false;
    bool probedPatiently = false; // the second probe, after initialize was not known
    bool listing = false;
    bool relistWanted = false;
    bool listedOnce = false;
    QList<McpToolInfo> listBuffer;
    QSet<QString> cursorsSeen;
    int listPages = 0;
    QTimer ttlTimer;

    quint64 nextCallKey = 1;
    QHash<quint64, McpClientCall *> calls;
    quint64 nextElicitationId = 1;
    QHash<quint64, Elicitation> elicitations;

    // Requests
    QJsonObject modernMeta() const;
    QJsonObject withMeta(QJsonObject params) const;
    qint64 request(const QString &method,
                   QJsonObject params,
                   int timeoutMs,
                   std::function<void(const Reply &)> done);
    void resolve(qint64 id, const Reply &reply);
    void notify(const QString &method, const QJsonObject &params);
    void respond(const QJsonValue &id, const QJsonObject &result);
    void respondError(const QJsonValue &id, int code, const QString &message);

    // Negotiation
    void setState(State newState);
    void probe();
    void onProbe(const Reply &reply);
    void initialize();
    void onInitialize(const Reply &reply);
    void becomeReady(Era newEra, const QString &version);
    void fail(const QString &reason);

    // Tools
    void listTools();
    void requestToolPage(const QString &cursor);
    void onToolPage(const Reply &reply);

    // Messages
    void onMessage(const QJsonObject &message);
    void onServerRequest(const QJsonObject &message);
    void onNotification(const QJsonObject &message);
    void onRequestFailed(const QJsonValue &id, const QString &reason, int httpStatus);
    void onClosed(int exitCode, const QString &reason, bool expected);
    // What the server says reaches the screen escaped and bounded.
    void log(const QString &text)
    {
        emit q->logMessage(displayed(text, {.maxLength = maxLogMessage}));
    }
    static QString shown(const QString &reason) { return displayedLine(reason, 1000); }
    // Closed: every pending request ends with why, every elicitation is withdrawn.
    void shutDown(const QString &why);

    // Calls and elicitations
    quint64 addElicitation(Elicitation elicitation, const QJsonObject &params);
    // The calls an elicitation holds up: its own (modern), or those in flight when the server
    // asked (legacy).
    QList<McpClientCall *> callsWaitingFor(const Elicitation &elicitation) const;
    void withdrawElicitation(quint64 id);
    void callEnded(quint64 callKey);
    QJsonObject rootsResult() const;
};

// One tools/call: possibly several rounds in the modern era (input_required), one overall timer.
class McpClientCall final : public McpCall
{
public:
    McpClientCall(McpClient::Private *client,
                  quint64 key,
                  QString name,
                  QJsonObject arguments,
                  int timeoutMs,
                  QObject *parent)
        : McpCall(parent)
        , m_client(client)
        , m_owner(client->q)
        , m_key(key)
        , m_name(std::move(name))
        , m_arguments(std::move(arguments))
        , m_timeoutMs(timeoutMs)
    {
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            stop(McpCallOutcome::TimedOut,
                 u"the server did not answer within %1 ms"_s.arg(m_timeoutMs),
                 u"timed out"_s);
        });
    }

    ~McpClientCall() override
    {
        if (!m_done && m_owner)
            stop(McpCallOutcome::Cancelled, u"the call was deleted"_s, u"cancelled"_s);
    }

    void start()
    {
        if (m_timeoutMs > 0) {
            m_timer.setInterval(m_timeoutMs);
            m_timer.start();
        }
        sendRound({}, {});
    }

    void cancel() override
    {
        stop(McpCallOutcome::Cancelled, u"cancelled by the user"_s, u"cancelled by the user"_s);
    }

    quint64 key() const { return m_key; }

    // The call's time is the server's: while it waits for the user (an elicitation of its own,
    // or one its server asked while it ran), the timeout stands still.
    void userWaitBegins()
    {
        if (m_userWaits++ == 0 && m_timer.isActive()) {
            m_remainingMs = m_timer.remainingTime();
            m_timer.stop();
        }
    }

    void userWaitEnds()
    {
        if (m_userWaits == 0 || --m_userWaits > 0 || m_done || m_remainingMs < 0)
            return;
        m_timer.start(std::max(m_remainingMs, 1));
        m_remainingMs = -1;
    }

    void progress(const QJsonObject &params)
    {
        if (!m_done)
            emit progressed(params.value(u"progress"_s).toDouble(),
                            params.value(u"total"_s).toDouble(0),
                            params.value(u"message"_s).toString());
    }

    void finishWith(McpCallOutcome outcome)
    {
        if (m_done)
            return;
        m_done = true;
        m_timer.stop();
        if (m_owner)
            m_client->callEnded(m_key);
        QMetaObject::invokeMethod(
                this, [this, outcome] { emit finished(outcome); }, Qt::QueuedConnection);
    }

    // The user answered one input request of the current modern round.
    void answerInput(const QString &key, const QJsonObject &result)
    {
        m_inputResponses.insert(key, result);
        m_waitingInputs.remove(key);
        if (m_waitingInputs.isEmpty())
            sendRound(std::exchange(m_inputResponses, {}), m_requestState);
    }

private:
    void sendRound(const QJsonObject &inputResponses, const QJsonValue &requestState)
    {
        if (m_done || !m_owner)
            return;
        QJsonObject params{{u"name"_s, m_name},
                           {u"arguments"_s, m_arguments},
                           {u"_meta"_s, QJsonObject{{u"progressToken"_s, qint64(m_key)}}}};
        if (!inputResponses.isEmpty())
            params.insert(u"inputResponses"_s, inputResponses);
        if (!requestState.isUndefined() && !requestState.isNull())
            params.insert(u"requestState"_s, requestState);
        m_requestId = m_client->request(u"tools/call"_s, params, 0, [this](const Reply &reply) {
            m_requestId = 0;
            onReply(reply);
        });
    }

    void onReply(const Reply &reply)
    {
        McpCallOutcome outcome;
        switch (reply.kind) {
        case Reply::Result:
            if (m_client->era == McpClient::Era::Modern
                && reply.result.value(u"resultType"_s).toString() == u"input_required") {
                onInputRequired(reply.result);
                return;
            }
            outcome.status = McpCallOutcome::Completed;
            outcome.result = reply.result;
            break;
        case Reply::Error:
            outcome.status = McpCallOutcome::Failed;
            outcome.errorMessage = reply.describe();
            outcome.errorCode = reply.code;
            break;
        case Reply::TimedOut: // calls have no per-request timer; kept for completeness
            outcome.status = McpCallOutcome::TimedOut;
            outcome.errorMessage = reply.message;
            break;
        case Reply::Closed:
            outcome.status = McpCallOutcome::Failed;
            outcome.errorMessage = reply.message;
            break;
        }
        finishWith(outcome);
    }

    void onInputRequired(const QJsonObject &result)
    {
        if (++m_rounds > maxInputRounds) {
            McpCallOutcome outcome;
            outcome.status = McpCallOutcome::Failed;
            outcome.errorMessage = u"the server asked for input more than %1 times"_s.arg(
                    maxInputRounds);
            finishWith(outcome);
            return;
        }
        m_requestState = result.value(u"requestState"_s);
        const QJsonObject requests = result.value(u"inputRequests"_s).toObject();
        QJsonObject answered;
        QList<std::pair<QString, QJsonObject>> forUser;
        for (auto it = requests.begin(); it != requests.end(); ++it) {
            const QJsonObject request = it.value().toObject();
            const QString method = request.value(u"method"_s).toString();
            const QJsonObject params = request.value(u"params"_s).toObject();
            if (method == u"roots/list") {
                answered.insert(it.key(), m_client->rootsResult());
            } else if (method == u"elicitation/create"
                       && params.value(u"mode"_s).toString(u"form"_s) == u"form") {
                forUser.append({it.key(), params});
            } else if (method == u"elicitation/create") {
                answered.insert(it.key(), QJsonObject{{u"action"_s, u"decline"_s}});
            } else {
                const QString message = method == u"sampling/createMessage"
                                                ? samplingRefusal()
                                                : u"Method not found: "_s + method;
                answered.insert(it.key(),
                                QJsonObject{{u"error"_s,
                                             QJsonObject{{u"code"_s, methodNotFound},
                                                         {u"message"_s, message}}}});
            }
        }
        m_inputResponses = answered;
        m_waitingInputs.clear();
        for (const auto &entry : std::as_const(forUser))
            m_waitingInputs.insert(entry.first);
        if (forUser.isEmpty()) {
            sendRound(std::exchange(m_inputResponses, {}), m_requestState);
            return;
        }
        const QPointer<McpClient> owner(m_owner);
        for (const auto &[inputKey, params] : std::as_const(forUser)) {
            McpClient::Private::Elicitation elicitation;
            elicitation.callKey = m_key;
            elicitation.inputKey = inputKey;
            m_client->addElicitation(elicitation, params);
            if (!owner || m_done)
                return;
        }
    }

    void stop(McpCallOutcome::Status status, const QString &why, const QString &reasonForServer)
    {
        if (m_done)
            return;
        if (m_owner && m_requestId != 0) {
            const qint64 requestId = std::exchange(m_requestId, 0);
            m_client->pending.remove(requestId);
            if (m_client->era == McpClient::Era::Legacy)
                m_client->notify(u"notifications/cancelled"_s,
                                 {{u"requestId"_s, requestId}, {u"reason"_s, reasonForServer}});
            m_client->transport->abandonRequest(requestId);
        }
        McpCallOutcome outcome;
        outcome.status = status;
        outcome.errorMessage = why;
        finishWith(outcome);
    }

    McpClient::Private *m_client;
    QPointer<McpClient> m_owner;
    const quint64 m_key;
    const QString m_name;
    const QJsonObject m_arguments;
    const int m_timeoutMs;
    QTimer m_timer;
    qint64 m_requestId = 0;
    bool m_done = false;
    int m_rounds = 0;
    QJsonValue m_requestState;
    QJsonObject m_inputResponses;
    QSet<QString> m_waitingInputs;
    int m_userWaits = 0;
    int m_remainingMs = -1; // while the timer stands still
};

// ---------------------------------------------------------------------------------------------
// Requests

QJsonObject McpClient::Private::modernMeta() const
{
    const QJsonObject capabilities{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}}},
                                   {u"roots"_s, QJsonObject{}}};
    return {{metaVersionKey, QString::fromLatin1(mcpModernVersion)},
            {metaCapabilitiesKey, capabilities},
            {metaClientInfoKey, clientInfo()}};
}

QJsonObject McpClient::Private::withMeta(QJsonObject params) const
{
    // Until the server is known to be legacy, a request is a modern one (the probe).
    if (era == Era::Legacy)
        return params;
    QJsonObject meta = params.value(u"_meta"_s).toObject();
    const QJsonObject modern = modernMeta();
    for (auto it = modern.begin(); it != modern.end(); ++it)
        meta.insert(it.key(), it.value());
    params.insert(u"_meta"_s, meta);
    return params;
}

qint64 McpClient::Private::request(const QString &method,
                                   QJsonObject params,
                                   int timeoutMs,
                                   std::function<void(const Reply &)> done)
{
    const qint64 id = nextRequestId++;
    PendingRequest entry{method, std::move(done), nullptr};
    if (timeoutMs > 0) {
        entry.timer = new QTimer(q);
        entry.timer->setSingleShot(true);
        entry.timer->setInterval(timeoutMs);
        QObject::connect(entry.timer, &QTimer::timeout, q, [this, id, method, timeoutMs] {
            Reply reply;
            reply.kind = Reply::TimedOut;
            reply.message = McpClient::tr("%1 got no answer within %2 ms").arg(method).arg(timeoutMs);
            resolve(id, reply);
        });
        entry.timer->start();
    }
    pending.insert(id, std::move(entry));
    transport->send({{u"jsonrpc"_s, u"2.0"_s},
                     {u"id"_s, id},
                     {u"method"_s, method},
                     {u"params"_s, withMeta(std::move(params))}});
    return id;
}

void McpClient::Private::resolve(qint64 id, const Reply &reply)
{
    // An id no longer pending is a late answer (to the probe that timed out, to a cancelled
    // call): ignored.
    auto it = pending.find(id);
    if (it == pending.end())
        return;
    PendingRequest entry = std::move(it.value());
    pending.erase(it);
    if (entry.timer)
        entry.timer->deleteLater();
    entry.done(reply);
}

void McpClient::Private::notify(const QString &method, const QJsonObject &params)
{
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, method}};
    const QJsonObject withModern = era == Era::Modern ? withMeta(params) : params;
    if (!withModern.isEmpty())
        message.insert(u"params"_s, withModern);
    transport->send(message);
}

void McpClient::Private::respond(const QJsonValue &id, const QJsonObject &result)
{
    transport->send({{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}});
}

void McpClient::Private::respondError(const QJsonValue &id, int code, const QString &message)
{
    transport->send({{u"jsonrpc"_s, u"2.0"_s},
                     {u"id"_s, id},
                     {u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}});
}

// ---------------------------------------------------------------------------------------------
// Negotiation

void McpClient::Private::setState(State newState)
{
    if (state == newState)
        return;
    state = newState;
    emit q->stateChanged(newState);
}

void McpClient::Private::probe()
{
    // Over HTTP the answer decides (and a first request may be slow: a TLS handshake, a cold
    // start): only stdio servers that ignore unknown methods need the short probe.
    const bool http = qobject_cast<McpHttpTransport *>(transport) != nullptr;
    const bool patient = http || probedPatiently;
    const int timeoutMs = patient ? std::max(probeTimeoutMs, requestTimeoutMs) : probeTimeoutMs;
    request(u"server/discover"_s, {}, timeoutMs, [this](const Reply &reply) { onProbe(reply); });
}

void McpClient::Private::onProbe(const Reply &reply)
{
    if (state != State::Negotiating)
        return;
    const QString modern = QString::fromLatin1(mcpModernVersion);
    switch (reply.kind) {
    case Reply::Result: {
        const QJsonArray versions = reply.result.value(u"supportedVersions"_s).toArray();
        if (versions.contains(QJsonValue(modern))) {
            serverInfo = reply.result.value(u"serverInfo"_s).toObject();
            serverCapabilities = reply.result.value(u"capabilities"_s).toObject();
            instructions = reply.result.value(u"instructions"_s).toString();
            becomeReady(Era::Modern, modern);
            return;
        }
        log(McpClient::tr("server/discover did not offer %1; trying initialize").arg(modern));
        break;
    }
    case Reply::Error:
        if (reply.code == unsupportedProtocolVersion) {
            const QJsonObject data = reply.data.toObject();
            QJsonArray offered = data.value(u"supported"_s).toArray();
            if (offered.isEmpty())
                offered = data.value(u"supportedVersions"_s).toArray();
            QStringList versions;
            for (const QJsonValue &version : std::as_const(offered))
                versions.append(version.toString());
            const QStringList accepted = mcpAcceptedLegacyVersions();
            const bool known = std::any_of(versions.cbegin(),
                                           versions.cend(),
                                           [&](const QString &v) { return accepted.contains(v); });
            if (!versions.isEmpty() && !known) {
                fail(McpClient::tr("the server speaks only protocol versions %1, which this "
                                   "client does not")
                             .arg(bounded(versions.join(u", "_s), 200)));
                return;
            }
        }
        log(McpClient::tr("server/discover failed (%1); trying initialize")
                    .arg(bounded(reply.describe(), 300)));
        break;
    case Reply::TimedOut:
        log(McpClient::tr("no answer to server/discover within %1 ms; trying "
                          "initialize")
                    .arg(probeTimeoutMs));
        probeTimedOut = true;
        break;
    case Reply::Closed:
        return; // onClosed() fails the client
    }
    initialize();
}

void McpClient::Private::initialize()
{
    era = Era::Legacy; // from now on no modern _meta
    const QJsonObject capabilities{{u"roots"_s, QJsonObject{{u"listChanged"_s, true}}},
                                   {u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}}}};
    request(u"initialize"_s,
            {{u"protocolVersion"_s, QString::fromLatin1(mcpLegacyVersion)},
             {u"capabilities"_s, capabilities},
             {u"clientInfo"_s, clientInfo()}},
            requestTimeoutMs,
            [this](const Reply &reply) { onInitialize(reply); });
}

void McpClient::Private::onInitialize(const Reply &reply)
{
    if (state != State::Negotiating)
        return;
    if (reply.kind == Reply::Closed)
        return;
    if (reply.kind == Reply::Error && reply.code == methodNotFound && probeTimedOut
        && !probedPatiently) {
        // No initialize, and the probe was only slow: a modern server that took long to start
        // (npx fetching its package). Ask again, waiting as long as for any request.
        log(McpClient::tr("the server has no initialize; asking server/discover again"));
        probedPatiently = true;
        era = Era::Unknown;
        probe();
        return;
    }
    if (reply.kind != Reply::Result) {
        fail(McpClient::tr("initialize failed: %1").arg(bounded(reply.describe(), 300)));
        return;
    }
    const QString version = reply.result.value(u"protocolVersion"_s).toString();
    if (!mcpAcceptedLegacyVersions().contains(version)) {
        fail(McpClient::tr("the server answered initialize with protocol version “%1”, which "
                           "this client does not speak")
                     .arg(bounded(version, 100)));
        return;
    }
    serverInfo = reply.result.value(u"serverInfo"_s).toObject();
    serverCapabilities = reply.result.value(u"capabilities"_s).toObject();
    instructions = reply.result.value(u"instructions"_s).toString();
    // The version header (HTTP) goes with the notification already.
    transport->setProtocolVersion(version);
    notify(u"notifications/initialized"_s, {});
    becomeReady(Era::Legacy, version);
}

void McpClient::Private::becomeReady(Era newEra, const QString &version)
{
    era = newEra;
    protocolVersion = version;
    transport->setProtocolVersion(version);
    setState(State::Ready);
    const QPointer<McpClient> alive(q);
    emit q->ready();
    if (!alive || state != State::Ready)
        return;
    // A server that declares no tools has none to list (and might answer tools/list with an
    // error).
    if (!serverCapabilities.isEmpty() && !serverCapabilities.contains(u"tools"_s)) {
        listedOnce = true;
        emit q->toolsChanged();
        return;
    }
    listTools();
}

void McpClient::Private::fail(const QString &reason)
{
    if (state == State::Closed)
        return;
    shutDown(reason);
    transport->close();
    emit q->failed(shown(reason));
}

// ---------------------------------------------------------------------------------------------
// Tools

void McpClient::Private::listTools()
{
    if (state != State::Ready)
        return;
    if (listing) {
        relistWanted = true;
        return;
    }
    listing = true;
    relistWanted = false;
    ttlTimer.stop();
    listBuffer.clear();
    cursorsSeen.clear();
    listPages = 0;
    requestToolPage({});
}

void McpClient::Private::requestToolPage(const QString &cursor)
{
    QJsonObject params;
    if (!cursor.isEmpty())
        params.insert(u"cursor"_s, cursor);
    ++listPages;
    request(u"tools/list"_s, params, requestTimeoutMs, [this](const Reply &reply) {
        onToolPage(reply);
    });
}

void McpClient::Private::onToolPage(const Reply &reply)
{
    if (state != State::Ready || reply.kind == Reply::Closed)
        return;
    if (reply.kind != Reply::Result) {
        listing = false;
        const QString reason = McpClient::tr("tools/list failed: %1")
                                       .arg(bounded(reply.describe(), 300));
        if (!listedOnce) {
            fail(reason);
            return;
        }
        log(reason); // the last list stays
        if (relistWanted)
            listTools();
        return;
    }
    const QJsonArray page = reply.result.value(u"tools"_s).toArray();
    for (const QJsonValue &entry : page) {
        const McpToolInfo tool = toolFromJson(entry.toObject());
        if (!tool.name.isEmpty() && listBuffer.size() < maxTools)
            listBuffer.append(tool);
    }
    const QString next = reply.result.value(u"nextCursor"_s).toString();
    if (!next.isEmpty() && !cursorsSeen.contains(next) && listPages < maxListPages
        && listBuffer.size() < maxTools) {
        cursorsSeen.insert(next);
        requestToolPage(next);
        return;
    }
    listing = false;
    // A refresh that brings the same list (a ttlMs running out every few seconds, a
    // list_changed for nothing) is not a change the tool registry needs to hear of.
    const bool changed = !listedOnce
                         || !std::equal(tools.cbegin(),
                                        tools.cend(),
                                        listBuffer.cbegin(),
                                        listBuffer.cend(),
                                        [](const McpToolInfo &a, const McpToolInfo &b) {
                                            return a.raw == b.raw;
                                        });
    listedOnce = true;
    tools = std::exchange(listBuffer, {});
    const int ttl = reply.result.value(u"ttlMs"_s).toInt(0);
    if (ttl > 0) {
        ttlTimer.setInterval(std::max(ttl, minimumRelistIntervalMs));
        ttlTimer.start();
    }
    const QPointer<McpClient> alive(q);
    if (changed)
        emit q->toolsChanged();
    if (alive && relistWanted)
        listTools();
}

// ---------------------------------------------------------------------------------------------
// Messages

void McpClient::Private::onMessage(const QJsonObject &message)
{
    if (state == State::Closed)
        return;
    const bool hasMethod = message.value(u"method"_s).isString();
    const bool hasId = message.contains(u"id"_s) && !message.value(u"id"_s).isNull();
    if (hasMethod && hasId) {
        onServerRequest(message);
        return;
    }
    if (hasMethod) {
        onNotification(message);
        return;
    }
    if (!hasId)
        return;
    const QJsonValue idValue = message.value(u"id"_s);
    // Our ids are integers; a server that echoes them as strings is forgiven.
    bool isNumber = idValue.isDouble();
    qint64 id = idValue.toInteger(-1);
    if (idValue.isString())
        id = idValue.toString().toLongLong(&isNumber);
    if (!isNumber)
        return;
    Reply reply;
    if (message.value(u"error"_s).isObject()) {
        const QJsonObject error = message.value(u"error"_s).toObject();
        reply.kind = Reply::Error;
        reply.code = error.value(u"code"_s).toInt();
        reply.message = bounded(error.value(u"message"_s).toString(), 2000);
        reply.data = error.value(u"data"_s);
    } else {
        reply.result = message.value(u"result"_s).toObject();
    }
    resolve(id, reply);
}

void McpClient::Private::onServerRequest(const QJsonObject &message)
{
    const QJsonValue id = message.value(u"id"_s);
    const QString method = message.value(u"method"_s).toString();
    const QJsonObject params = message.value(u"params"_s).toObject();
    if (method == u"ping") {
        respond(id, {});
    } else if (method == u"roots/list") {
        respond(id, rootsResult());
    } else if (method == u"elicitation/create") {
        if (params.value(u"mode"_s).toString(u"form"_s) != u"form") {
            respond(id, {{u"action"_s, u"decline"_s}});
            return;
        }
        Elicitation elicitation;
        elicitation.serverRequestId = id;
        for (auto it = calls.cbegin(); it != calls.cend(); ++it)
            elicitation.callsInFlight.insert(it.key());
        addElicitation(elicitation, params);
    } else if (method == u"sampling/createMessage") {
        respondError(id, methodNotFound, samplingRefusal());
    } else {
        respondError(id, methodNotFound, u"Method not found: "_s + bounded(method, 200));
    }
}

void McpClient::Private::onNotification(const QJsonObject &message)
{
    const QString method = message.value(u"method"_s).toString();
    const QJsonObject params = message.value(u"params"_s).toObject();
    if (method == u"notifications/tools/list_changed") {
        if (listing)
            relistWanted = true;
        else if (state == State::Ready && listedOnce)
            listTools();
    } else if (method == u"notifications/progress") {
        const QJsonValue token = params.value(u"progressToken"_s);
        const quint64 key = token.isString() ? token.toString().toULongLong()
                                             : quint64(token.toInteger());
        if (McpClientCall *call = calls.value(key))
            call->progress(params);
    } else if (method == u"notifications/message") {
        const QString level = params.value(u"level"_s).toString();
        const QString logger = params.value(u"logger"_s).toString();
        QString text = compactJson(params.value(u"data"_s));
        if (!logger.isEmpty())
            text = logger + u": "_s + text;
        if (!level.isEmpty())
            text = u'[' + level + u"] "_s + text;
        log(text);
    } else if (method == u"notifications/cancelled") {
        const QJsonValue requestId = params.value(u"requestId"_s);
        QList<quint64> withdrawn;
        for (auto it = elicitations.cbegin(); it != elicitations.cend(); ++it) {
            if (it->isLegacy() && it->serverRequestId == requestId)
                withdrawn.append(it.key());
        }
        for (quint64 id : std::as_const(withdrawn))
            withdrawElicitation(id);
    }
}

void McpClient::Private::onRequestFailed(const QJsonValue &id, const QString &reason, int httpStatus)
{
    Reply reply;
    reply.kind = Reply::Error;
    reply.message = bounded(reason, 2000);
    reply.code = 0;
    Q_UNUSED(httpStatus);
    resolve(id.toInteger(-1), reply);
}

void McpClient::Private::onClosed(int exitCode, const QString &reason, bool expected)
{
    Q_UNUSED(exitCode);
    if (state == State::Closed) {
        shutDown(McpClient::tr("the server was stopped"));
        return;
    }
    shutDown(expected ? McpClient::tr("the server was stopped")
                      : McpClient::tr("the server %1").arg(reason));
    if (!expected)
        emit q->failed(shown(reason));
}

void McpClient::Private::shutDown(const QString &why)
{
    setState(State::Closed);
    ttlTimer.stop();
    listing = false;
    Reply reply;
    reply.kind = Reply::Closed;
    reply.message = why;
    const QList<qint64> ids = pending.keys();
    for (qint64 id : ids)
        resolve(id, reply);
    const QList<quint64> open = elicitations.keys();
    for (quint64 id : open)
        withdrawElicitation(id);
}

// ---------------------------------------------------------------------------------------------
// Calls and elicitations

quint64 McpClient::Private::addElicitation(Elicitation elicitation, const QJsonObject &params)
{
    const quint64 id = nextElicitationId++;
    for (McpClientCall *call : callsWaitingFor(elicitation))
        call->userWaitBegins();
    elicitations.insert(id, std::move(elicitation));
    McpElicitation request;
    request.id = id;
    request.serverName = serverName;
    request.message = bounded(params.value(u"message"_s).toString(), 20000);
    request.requestedSchema = params.value(u"requestedSchema"_s).toObject();
    emit q->elicitationRequested(request);
    return id;
}

void McpClient::Private::withdrawElicitation(quint64 id)
{
    const auto it = elicitations.constFind(id);
    if (it == elicitations.cend())
        return;
    const Elicitation elicitation = *it;
    elicitations.erase(it);
    for (McpClientCall *call : callsWaitingFor(elicitation))
        call->userWaitEnds();
    // The server still waits for an answer to its own request: it no longer matters to anyone.
    if (elicitation.isLegacy() && state != State::Closed)
        respond(elicitation.serverRequestId, {{u"action"_s, u"cancel"_s}});
    emit q->elicitationWithdrawn(id);
}

void McpClient::Private::callEnded(quint64 callKey)
{
    calls.remove(callKey);
    QList<quint64> withdrawn;
    for (auto it = elicitations.begin(); it != elicitations.end(); ++it) {
        if (it->callKey == callKey) {
            withdrawn.append(it.key());
        } else if (it->callsInFlight.remove(callKey) && it->callsInFlight.isEmpty()) {
            // A legacy elicitation asked while calls ran belongs to one of them; none is left.
            withdrawn.append(it.key());
        }
    }
    for (quint64 id : std::as_const(withdrawn))
        withdrawElicitation(id);
}

QList<McpClientCall *> McpClient::Private::callsWaitingFor(const Elicitation &elicitation) const
{
    QList<McpClientCall *> waiting;
    if (!elicitation.isLegacy()) {
        if (McpClientCall *call = calls.value(elicitation.callKey))
            waiting.append(call);
        return waiting;
    }
    for (quint64 key : elicitation.callsInFlight) {
        if (McpClientCall *call = calls.value(key))
            waiting.append(call);
    }
    return waiting;
}

QJsonObject McpClient::Private::rootsResult() const
{
    const QString root = QDir::cleanPath(QFileInfo(workspaceRoot).absoluteFilePath());
    return {{u"roots"_s,
             QJsonArray{QJsonObject{{u"uri"_s, QUrl::fromLocalFile(root).toString()},
                                    {u"name"_s, QFileInfo(root).fileName()}}}}};
}

// ---------------------------------------------------------------------------------------------

McpClient::McpClient(QString serverName,
                     McpTransport *transport,
                     QString workspaceRoot,
                     QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->serverName = std::move(serverName);
    d->transport = transport;
    d->workspaceRoot = std::move(workspaceRoot);
    transport->setParent(this);
    d->ttlTimer.setSingleShot(true);
    connect(&d->ttlTimer, &QTimer::timeout, this, [this] { d->listTools(); });
    connect(transport, &McpTransport::started, this, [this] {
        if (d->state == State::Negotiating)
            d->probe();
    });
    connect(transport, &McpTransport::messageReceived, this, [this](const QJsonObject &message) {
        d->onMessage(message);
    });
    connect(transport,
            &McpTransport::requestFailed,
            this,
            [this](const QJsonValue &id, const QString &reason, int status) {
                d->onRequestFailed(id, reason, status);
            });
    connect(transport, &McpTransport::closed, this, [this](int code, const QString &why, bool ok) {
        d->onClosed(code, why, ok);
    });
    connect(transport, &McpTransport::protocolNoise, this, [this](const QString &text) {
        d->log(tr("not JSON-RPC on its output: %1").arg(text));
    });
    connect(transport, &McpTransport::note, this, [this](const QString &text) { d->log(text); });
}

McpClient::~McpClient()
{
    // Calls outlive the client as their parents' children: they end now, failed.
    const QList<McpClientCall *> open = d->calls.values();
    for (McpClientCall *call : open) {
        McpCallOutcome outcome;
        outcome.status = McpCallOutcome::Failed;
        outcome.errorMessage = tr("the server was stopped");
        call->finishWith(outcome);
    }
    d->calls.clear();
    d->transport->disconnect(this);
    for (auto &entry : d->pending) {
        if (entry.timer)
            delete entry.timer;
    }
    d->pending.clear();
}

void McpClient::start()
{
    if (d->state != State::Idle)
        return;
    d->setState(State::Negotiating);
    d->transport->open();
}

void McpClient::stop()
{
    if (d->state == State::Closed)
        return;
    d->shutDown(tr("the server was stopped"));
    d->transport->close();
}

McpClient::State McpClient::state() const
{
    return d->state;
}

McpClient::Era McpClient::era() const
{
    return d->state == State::Negotiating ? Era::Unknown : d->era;
}

QString McpClient::protocolVersion() const
{
    return d->protocolVersion;
}

QJsonObject McpClient::serverInfo() const
{
    return d->serverInfo;
}

QString McpClient::instructions() const
{
    return d->instructions;
}

const QList<McpToolInfo> &McpClient::tools() const
{
    return d->tools;
}

McpTransport *McpClient::transport() const
{
    return d->transport;
}

void McpClient::setProbeTimeoutMs(int ms)
{
    d->probeTimeoutMs = ms;
}

void McpClient::setRequestTimeoutMs(int ms)
{
    d->requestTimeoutMs = ms;
}

McpCall *McpClient::callTool(const QString &name,
                             const QJsonObject &arguments,
                             int timeoutMs,
                             QObject *parent)
{
    const quint64 key = d->nextCallKey++;
    auto *call = new McpClientCall(d.get(), key, name, arguments, timeoutMs, parent);
    if (d->state != State::Ready) {
        McpCallOutcome outcome;
        outcome.status = McpCallOutcome::Failed;
        outcome.errorMessage = tr("the server is not ready");
        call->finishWith(outcome);
        return call;
    }
    d->calls.insert(key, call);
    call->start();
    return call;
}

void McpClient::answerElicitation(quint64 id, const QString &action, const QJsonObject &content)
{
    const auto it = d->elicitations.constFind(id);
    if (it == d->elicitations.cend())
        return;
    const Private::Elicitation elicitation = *it;
    d->elicitations.erase(it);
    for (McpClientCall *call : d->callsWaitingFor(elicitation))
        call->userWaitEnds();
    const QString checked = action == u"accept" || action == u"decline" ? action : u"cancel"_s;
    QJsonObject result{{u"action"_s, checked}};
    if (checked == u"accept")
        result.insert(u"content"_s, content);
    if (elicitation.isLegacy()) {
        if (d->state != State::Closed)
            d->respond(elicitation.serverRequestId, result);
        return;
    }
    if (McpClientCall *call = d->calls.value(elicitation.callKey))
        call->answerInput(elicitation.inputKey, result);
}

} // namespace AgentLoop
