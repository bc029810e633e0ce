#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QUrl>

#include <functional>
#include <optional>

namespace AgentLoop {

class FakeHttpConnection;

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

// One HTTP request exactly as the fake server received it.
struct RecordedRequest
{
    QByteArray method;
    QByteArray path;     // the request target as sent, query included: "/v1/chat/completions"
    HttpHeaders headers; // in arrival order, names as the client spelled them
    QByteArray body;     // the exact bytes posted (de-chunked when sent chunked)
    int connection = 0;  // serial number of the TCP connection it came on, from 1

    // The first header of that name (case-insensitive), or an empty array.
    QByteArray header(QByteArrayView name) const;
    // The body as a JSON object; empty when it is not one.
    QJsonObject json() const;
    // json()["messages"]: what the agent sent the model.
    QJsonArray messages() const;
    // The role "tool" messages of messages(), in order.
    QList<QJsonObject> toolMessages() const;
};

// One call of a parallel tool-call answer; arguments is the JSON text the model would write.
struct FakeToolCall
{
    QString id;
    QString name;
    QString arguments;
};

// What the fake server does with one request. An aggregate: builders below, or designated
// initialisers for anything unusual.
struct FakeResponse
{
    enum Behaviour {
        Respond,        // send status, headers and body
        NeverAnswer,    // read the request, keep the connection open, send nothing
        DropConnection, // close the connection without a byte of response (QNetworkAccessManager
                        // then resends the request once: script two drops, or use a handler)
        DropMidBody,    // send the headers and the first half of the body, then close
        Stream,         // send chunks one by one (chunked transfer encoding), chunkDelayMs apart
        StreamThenDrop, // as Stream, then close the connection instead of ending the stream
                        // (Qt 6.4 may finish such a reply with NoError: check for [DONE])
    };

    Behaviour behaviour = Respond;
    int status = 200;
    HttpHeaders headers;    // extra response headers
    QByteArray contentType; // empty: application/json, or text/event-stream for streams
    QByteArray body;
    QList<QByteArray> chunks; // Stream, StreamThenDrop
    int chunkDelayMs = 20;
    int delayMs = 0; // wait this long before the response (or the drop) starts

    FakeResponse withDelay(int ms) const;
    FakeResponse withBehaviour(Behaviour b) const;

    // Chat Completions bodies ("object": "chat.completion", one choice, usage).
    static FakeResponse completion(const QJsonObject &message, const QString &finishReason);
    static FakeResponse answer(const QString &text,
                               const QString &finishReason = QStringLiteral("stop"));
    static FakeResponse toolCall(const QString &id,
                                 const QString &name,
                                 const QString &argumentsJson,
                                 const std::optional<QString> &content = {});
    static FakeResponse toolCalls(const QList<FakeToolCall> &calls,
                                  const std::optional<QString> &content = {});
    // {"error": {"message", "type", "param": null, "code"}}; an empty code is sent as null.
    static FakeResponse httpError(int httpStatus,
                                  const QString &message,
                                  const QString &type = QStringLiteral("invalid_request_error"),
                                  const QString &code = {});
    // GET /v1/models: {"object": "list", "data": [{"id", "object": "model", ...}]}
    static FakeResponse models(const QStringList &ids);
    static FakeResponse json(const QJsonObject &object, int httpStatus = 200);
    // Exactly these bytes as the body; an empty contentType is sent as application/json.
    static FakeResponse raw(const QByteArray &body,
                            int httpStatus = 200,
                            const QByteArray &contentType = {});

    static FakeResponse neverAnswer();
    static FakeResponse dropConnection();
    // Server-Sent Events; sseEvent() and sseDone() build the chunks.
    static FakeResponse stream(const QList<QByteArray> &sseChunks, int delayBetweenMs = 20);
    // A streamed text answer: a role chunk, one "chat.completion.chunk" per piece, a
    // finish_reason chunk and [DONE].
    static FakeResponse streamedAnswer(const QStringList &pieces,
                                       const QString &finishReason = QStringLiteral("stop"));
    static QByteArray sseEvent(const QJsonObject &data); // "data: {...}\n\n"
    static QByteArray sseDone();                         // "data: [DONE]\n\n"
};

// A local stand-in for an OpenAI-compatible provider, for tests. Listens on 127.0.0.1 only, on
// a free port, and speaks enough HTTP/1.1 for QNetworkAccessManager and curl (keep-alive,
// Connection: close, Content-Length and chunked request bodies, Expect: 100-continue).
//
// Each request is answered by, in this order: the API key check (when a key is required), the
// handler (when set; it answers every path), the script (POST /v1/chat/completions), the model
// list (GET /v1/models), or a 404.
class FakeChatServer final : public QObject
{
    Q_OBJECT

public:
    using Handler = std::function<FakeResponse(const RecordedRequest &)>;

    explicit FakeChatServer(QObject *parent = nullptr);
    ~FakeChatServer() override;

    bool isListening() const;
    QHostAddress serverAddress() const;
    quint16 port() const;
    QUrl baseUrl() const; // http://127.0.0.1:<port>/v1

    // Queues answers for POST /v1/chat/completions, used in order. A chat request beyond the
    // script gets a 500 whose error message says the script ran out.
    void script(const QList<FakeResponse> &responses);
    void setHandler(Handler handler);
    void setModels(const QStringList &ids); // default: gpt-4.1, gpt-4o-mini
    // Requests without "Authorization: Bearer <key>" get OpenAI's 401 (key masked).
    void setRequiredApiKey(const QByteArray &key);
    // Off: requests are recorded without their bodies (the handler still sees them whole), so
    // that a soak of hundreds of large requests measures the client's memory, not the server's.
    void setRecordsBodies(bool records);

    QList<RecordedRequest> requests() const; // POST /v1/chat/completions only, in arrival order
    QList<RecordedRequest> allRequests() const;
    int openConnections() const;
    void closeAllConnections();

signals:
    // index into allRequests(); emitted before the request is answered.
    void requestReceived(int index);

private:
    FakeResponse respondTo(const RecordedRequest &request);
    std::optional<FakeResponse> rejectApiKey(const RecordedRequest &request) const;

    QTcpServer m_listener;
    QList<FakeHttpConnection *> m_connections;
    int m_connectionCount = 0;
    QList<RecordedRequest> m_requests;
    QList<FakeResponse> m_script;
    Handler m_handler;
    QStringList m_models{QStringLiteral("gpt-4.1"), QStringLiteral("gpt-4o-mini")};
    QByteArray m_requiredApiKey;
    bool m_recordsBodies = true;
};

// A port on 127.0.0.1 that nothing listens on: bound a moment ago, closed again (0 when no port
// could be bound).
quint16 closedPort();

} // namespace AgentLoop
