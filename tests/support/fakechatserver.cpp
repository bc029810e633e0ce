#include "fakechatserver.h"

#include <QJsonDocument>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// Fixed, so that two runs of a test produce the same bytes.
constexpr qint64 fakeCreated = 1727346165;
const QString fakeModel = u"gpt-4.1"_s;

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 408:
        return "Request Timeout";
    case 413:
        return "Payload Too Large";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Status";
    }
}

bool hasToken(const QByteArray &headerValue, QByteArrayView token)
{
    const QList<QByteArray> tokens = headerValue.split(',');
    return std::any_of(tokens.cbegin(), tokens.cend(), [token](const QByteArray &t) {
        return t.trimmed().compare(token, Qt::CaseInsensitive) == 0;
    });
}

QByteArray routeOf(const QByteArray &target)
{
    const qsizetype query = target.indexOf('?');
    return query < 0 ? target : target.left(query);
}

bool isChatCompletion(const RecordedRequest &request)
{
    return request.method == "POST" && routeOf(request.path) == "/v1/chat/completions";
}

// Decodes a chunked body starting at from. Returns the offset just past it, 0 while it is
// incomplete, -1 when it is malformed.
qsizetype decodeChunked(const QByteArray &data, qsizetype from, QByteArray *body)
{
    body->clear();
    qsizetype pos = from;
    for (;;) {
        const qsizetype lineEnd = data.indexOf("\r\n", pos);
        if (lineEnd < 0)
            return 0;
        QByteArray sizeField = data.mid(pos, lineEnd - pos);
        if (const qsizetype extension = sizeField.indexOf(';'); extension >= 0)
            sizeField.truncate(extension);
        bool ok = false;
        const qint64 size = sizeField.trimmed().toLongLong(&ok, 16);
        if (!ok || size < 0)
            return -1;
        pos = lineEnd + 2;
        if (size == 0) {
            if (data.size() < pos + 2)
                return 0;
            if (data.mid(pos, 2) == "\r\n")
                return pos + 2;
            const qsizetype trailersEnd = data.indexOf("\r\n\r\n", pos);
            return trailersEnd < 0 ? 0 : trailersEnd + 4;
        }
        if (data.size() < pos + size + 2)
            return 0;
        body->append(data.mid(pos, size));
        pos += size;
        if (data.mid(pos, 2) != "\r\n")
            return -1;
        pos += 2;
    }
}

QJsonObject errorObject(const QString &message, const QString &type, const QString &code)
{
    return {{u"error"_s,
             QJsonObject{{u"message"_s, message},
                         {u"type"_s, type},
                         {u"param"_s, QJsonValue::Null},
                         {u"code"_s, code.isEmpty() ? QJsonValue(QJsonValue::Null) : code}}}};
}

QString nextCompletionId()
{
    static int serial = 0;
    return u"chatcmpl-fake%1"_s.arg(++serial);
}

QJsonValue optionalText(const std::optional<QString> &text)
{
    return text ? QJsonValue(*text) : QJsonValue(QJsonValue::Null);
}

// "Bearer <token>" → token; anything else → empty.
QByteArray bearerToken(const QByteArray &authorization)
{
    const qsizetype space = authorization.indexOf(' ');
    if (space <= 0 || authorization.left(space).compare("Bearer", Qt::CaseInsensitive) != 0)
        return {};
    return authorization.mid(space + 1).trimmed();
}

// Real keys are never echoed whole: OpenAI shows a few leading characters and stars.
QString maskedKey(const QByteArray &key)
{
    return QString::fromUtf8(key.left(std::min<qsizetype>(5, key.size() / 2))) + u"***"_s;
}

} // namespace

QByteArray RecordedRequest::header(QByteArrayView name) const
{
    for (const auto &[headerName, value] : headers) {
        if (headerName.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QJsonObject RecordedRequest::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QJsonArray RecordedRequest::messages() const
{
    return json().value(u"messages"_s).toArray();
}

QList<QJsonObject> RecordedRequest::toolMessages() const
{
    QList<QJsonObject> result;
    for (const QJsonValue &message : messages()) {
        if (message[u"role"_s] == u"tool"_s)
            result.append(message.toObject());
    }
    return result;
}

FakeResponse FakeResponse::withDelay(int ms) const
{
    FakeResponse copy = *this;
    copy.delayMs = ms;
    return copy;
}

FakeResponse FakeResponse::withBehaviour(Behaviour b) const
{
    FakeResponse copy = *this;
    copy.behaviour = b;
    return copy;
}

FakeResponse FakeResponse::completion(const QJsonObject &message, const QString &finishReason)
{
    const QJsonObject choice{{u"index"_s, 0},
                             {u"message"_s, message},
                             {u"logprobs"_s, QJsonValue::Null},
                             {u"finish_reason"_s, finishReason}};
    const QJsonObject usage{{u"prompt_tokens"_s, 20},
                            {u"completion_tokens"_s, 10},
                            {u"total_tokens"_s, 30}};
    return json({{u"id"_s, nextCompletionId()},
                 {u"object"_s, u"chat.completion"_s},
                 {u"created"_s, fakeCreated},
                 {u"model"_s, fakeModel},
                 {u"choices"_s, QJsonArray{choice}},
                 {u"usage"_s, usage}});
}

FakeResponse FakeResponse::answer(const QString &text, const QString &finishReason)
{
    return completion({{u"role"_s, u"assistant"_s},
                       {u"content"_s, text},
                       {u"refusal"_s, QJsonValue::Null}},
                      finishReason);
}

FakeResponse FakeResponse::toolCall(const QString &id,
                                    const QString &name,
                                    const QString &argumentsJson,
                                    const std::optional<QString> &content)
{
    return toolCalls({{id, name, argumentsJson}}, content);
}

FakeResponse FakeResponse::toolCalls(const QList<FakeToolCall> &calls,
                                     const std::optional<QString> &content)
{
    QJsonArray toolCallArray;
    for (const FakeToolCall &call : calls) {
        toolCallArray.append(QJsonObject{{u"id"_s, call.id},
                                         {u"type"_s, u"function"_s},
                                         {u"function"_s,
                                          QJsonObject{{u"name"_s, call.name},
                                                      {u"arguments"_s, call.arguments}}}});
    }
    return completion({{u"role"_s, u"assistant"_s},
                       {u"content"_s, optionalText(content)},
                       {u"tool_calls"_s, toolCallArray},
                       {u"refusal"_s, QJsonValue::Null}},
                      u"tool_calls"_s);
}

FakeResponse FakeResponse::httpError(int httpStatus,
                                     const QString &message,
                                     const QString &type,
                                     const QString &code)
{
    return json(errorObject(message, type, code), httpStatus);
}

FakeResponse FakeResponse::models(const QStringList &ids)
{
    QJsonArray data;
    for (const QString &id : ids) {
        data.append(QJsonObject{{u"id"_s, id},
                                {u"object"_s, u"model"_s},
                                {u"created"_s, fakeCreated},
                                {u"owned_by"_s, u"system"_s}});
    }
    return json({{u"object"_s, u"list"_s}, {u"data"_s, data}});
}

FakeResponse FakeResponse::json(const QJsonObject &object, int httpStatus)
{
    FakeResponse response;
    response.status = httpStatus;
    response.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return response;
}

FakeResponse FakeResponse::raw(const QByteArray &body, int httpStatus, const QByteArray &contentType)
{
    FakeResponse response;
    response.status = httpStatus;
    response.contentType = contentType;
    response.body = body;
    return response;
}

FakeResponse FakeResponse::neverAnswer()
{
    FakeResponse response;
    response.behaviour = NeverAnswer;
    return response;
}

FakeResponse FakeResponse::dropConnection()
{
    FakeResponse response;
    response.behaviour = DropConnection;
    return response;
}

FakeResponse FakeResponse::stream(const QList<QByteArray> &sseChunks, int delayBetweenMs)
{
    FakeResponse response;
    response.behaviour = Stream;
    response.chunks = sseChunks;
    response.chunkDelayMs = delayBetweenMs;
    return response;
}

FakeResponse FakeResponse::streamedAnswer(const QStringList &pieces, const QString &finishReason)
{
    const QString id = nextCompletionId();
    const auto chunk = [&id](const QJsonObject &delta, const QJsonValue &finish) {
        const QJsonObject choice{{u"index"_s, 0},
                                 {u"delta"_s, delta},
                                 {u"logprobs"_s, QJsonValue::Null},
                                 {u"finish_reason"_s, finish}};
        return sseEvent({{u"id"_s, id},
                         {u"object"_s, u"chat.completion.chunk"_s},
                         {u"created"_s, fakeCreated},
                         {u"model"_s, fakeModel},
                         {u"choices"_s, QJsonArray{choice}}});
    };
    QList<QByteArray> events{
            chunk({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}, QJsonValue::Null)};
    for (const QString &piece : pieces)
        events.append(chunk({{u"content"_s, piece}}, QJsonValue::Null));
    events.append(chunk({}, finishReason));
    events.append(sseDone());
    return stream(events);
}

QByteArray FakeResponse::sseEvent(const QJsonObject &data)
{
    return "data: " + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n";
}

QByteArray FakeResponse::sseDone()
{
    return QByteArrayLiteral("data: [DONE]\n\n");
}

// One accepted TCP connection: reads requests one after the other and answers each as the
// server says. Requests that arrive while one is being answered wait in the buffer.
class FakeHttpConnection final : public QObject
{
public:
    using Responder = std::function<FakeResponse(const RecordedRequest &)>;

    FakeHttpConnection(QTcpSocket *socket, int serial, Responder responder, QObject *parent)
        : QObject(parent)
        , m_socket(socket)
        , m_serial(serial)
        , m_respond(std::move(responder))
    {
        m_socket->setParent(this);
        connect(m_socket, &QIODevice::readyRead, this, [this] {
            m_buffer += m_socket->readAll();
            readRequest();
        });
    }

    QTcpSocket *socket() const { return m_socket; }

private:
    bool isConnected() const { return m_socket->state() == QAbstractSocket::ConnectedState; }

    void readRequest()
    {
        if (m_busy || !isConnected())
            return;
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;

        const QList<QByteArray> lines = m_buffer.left(headEnd).split('\n');
        const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1."))
            return rejectMalformed();
        RecordedRequest request;
        request.method = requestLine.at(0);
        request.path = requestLine.at(1);
        request.connection = m_serial;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0)
                return rejectMalformed();
            request.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
        }

        const qsizetype bodyStart = headEnd + 4;
        qsizetype requestEnd = 0;
        if (hasToken(request.header("Transfer-Encoding"), "chunked")) {
            requestEnd = decodeChunked(m_buffer, bodyStart, &request.body);
            if (requestEnd < 0)
                return rejectMalformed();
        } else {
            const QByteArray lengthField = request.header("Content-Length");
            bool ok = true;
            const qint64 length = lengthField.isEmpty() ? 0 : lengthField.toLongLong(&ok);
            if (!ok || length < 0)
                return rejectMalformed();
            if (m_buffer.size() - bodyStart >= length) {
                request.body = m_buffer.mid(bodyStart, length);
                requestEnd = bodyStart + length;
            }
        }
        if (requestEnd == 0) {
            // curl holds a large body back for up to a second unless it hears this.
            if (!m_continueSent && hasToken(request.header("Expect"), "100-continue")) {
                m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
                m_continueSent = true;
            }
            return;
        }
        m_buffer.remove(0, requestEnd);
        m_continueSent = false;

        const QByteArray connectionField = request.header("Connection");
        m_closeAfterResponse = requestLine.at(2) == "HTTP/1.0"
                                       ? !hasToken(connectionField, "keep-alive")
                                       : hasToken(connectionField, "close");
        m_busy = true;
        const FakeResponse response = m_respond(request);
        if (!isConnected()) // the test closed the connection from requestReceived()
            return;
        if (response.delayMs > 0)
            QTimer::singleShot(response.delayMs, this, [this, response] { start(response); });
        else
            start(response);
    }

    void rejectMalformed()
    {
        m_busy = true;
        m_closeAfterResponse = true;
        start(FakeResponse::httpError(400, u"FakeChatServer: malformed HTTP request"_s));
    }

    void start(const FakeResponse &response)
    {
        if (!isConnected())
            return;
        switch (response.behaviour) {
        case FakeResponse::Respond:
            writeHead(response, response.body.size());
            m_socket->write(response.body);
            finishResponse();
            break;
        case FakeResponse::NeverAnswer:
            break; // stays busy: later requests on this connection are never read either
        case FakeResponse::DropConnection:
            m_socket->disconnectFromHost();
            break;
        case FakeResponse::DropMidBody:
            writeHead(response, response.body.size());
            m_socket->write(response.body.left(response.body.size() / 2));
            m_socket->disconnectFromHost(); // after the bytes written so far have gone out
            break;
        case FakeResponse::Stream:
        case FakeResponse::StreamThenDrop:
            m_stream = response;
            m_nextChunk = 0;
            writeHead(response, std::nullopt);
            sendNextChunk();
            break;
        }
    }

    // contentLength nullopt: chunked transfer encoding, which QNetworkAccessManager hands to
    // readyRead chunk by chunk and which keeps the connection reusable.
    void writeHead(const FakeResponse &response, std::optional<qsizetype> contentLength)
    {
        const bool streamed = !contentLength;
        const QByteArray contentType = !response.contentType.isEmpty() ? response.contentType
                                       : streamed ? QByteArrayLiteral("text/event-stream")
                                                  : QByteArrayLiteral("application/json");
        QByteArray head = "HTTP/1.1 " + QByteArray::number(response.status) + ' '
                          + reasonPhrase(response.status) + "\r\n";
        head += "Content-Type: " + contentType + "\r\n";
        if (streamed)
            head += "Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n";
        else
            head += "Content-Length: " + QByteArray::number(*contentLength) + "\r\n";
        if (m_closeAfterResponse)
            head += "Connection: close\r\n";
        for (const auto &[name, value] : response.headers)
            head += name + ": " + value + "\r\n";
        head += "\r\n";
        m_socket->write(head);
    }

    void sendNextChunk()
    {
        if (!isConnected())
            return;
        if (m_nextChunk == m_stream.chunks.size()) {
            if (m_stream.behaviour == FakeResponse::StreamThenDrop) {
                m_socket->disconnectFromHost();
                return;
            }
            m_socket->write("0\r\n\r\n");
            finishResponse();
            return;
        }
        const QByteArray &chunk = m_stream.chunks.at(m_nextChunk++);
        if (!chunk.isEmpty()) // an empty chunk would end the stream
            m_socket->write(QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n");
        QTimer::singleShot(m_stream.chunkDelayMs, this, [this] { sendNextChunk(); });
    }

    void finishResponse()
    {
        m_busy = false;
        m_stream = {};
        if (m_closeAfterResponse)
            m_socket->disconnectFromHost();
        else if (!m_buffer.isEmpty()) // a pipelined request
            QTimer::singleShot(0, this, [this] { readRequest(); });
    }

    QTcpSocket *m_socket;
    const int m_serial;
    const Responder m_respond;
    QByteArray m_buffer;
    bool m_busy = false;
    bool m_continueSent = false;
    bool m_closeAfterResponse = false;
    FakeResponse m_stream;
    qsizetype m_nextChunk = 0;
};

FakeChatServer::FakeChatServer(QObject *parent)
    : QObject(parent)
{
    connect(&m_listener, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_listener.nextPendingConnection()) {
            auto *connection = new FakeHttpConnection(
                    socket,
                    ++m_connectionCount,
                    [this](const RecordedRequest &request) { return respondTo(request); },
                    this);
            m_connections.append(connection);
            connect(socket, &QAbstractSocket::disconnected, connection, [this, connection] {
                m_connections.removeOne(connection);
                connection->deleteLater();
            });
        }
    });
    // Loopback only: tests must never be reachable from, or talk to, any other address.
    m_listener.listen(QHostAddress::LocalHost, 0);
}

FakeChatServer::~FakeChatServer()
{
    // Connections call back into this server: end them while it is still whole.
    qDeleteAll(std::exchange(m_connections, {}));
}

bool FakeChatServer::isListening() const
{
    return m_listener.isListening();
}

QHostAddress FakeChatServer::serverAddress() const
{
    return m_listener.serverAddress();
}

quint16 FakeChatServer::port() const
{
    return m_listener.serverPort();
}

QUrl FakeChatServer::baseUrl() const
{
    return QUrl(u"http://127.0.0.1:%1/v1"_s.arg(port()));
}

void FakeChatServer::script(const QList<FakeResponse> &responses)
{
    m_script.append(responses);
}

void FakeChatServer::setHandler(Handler handler)
{
    m_handler = std::move(handler);
}

void FakeChatServer::setModels(const QStringList &ids)
{
    m_models = ids;
}

void FakeChatServer::setRequiredApiKey(const QByteArray &key)
{
    m_requiredApiKey = key;
}

void FakeChatServer::setRecordsBodies(bool records)
{
    m_recordsBodies = records;
}

QList<RecordedRequest> FakeChatServer::requests() const
{
    QList<RecordedRequest> chatRequests;
    std::copy_if(m_requests.cbegin(),
                 m_requests.cend(),
                 std::back_inserter(chatRequests),
                 isChatCompletion);
    return chatRequests;
}

QList<RecordedRequest> FakeChatServer::allRequests() const
{
    return m_requests;
}

int FakeChatServer::openConnections() const
{
    return int(m_connections.size());
}

void FakeChatServer::closeAllConnections()
{
    const QList<FakeHttpConnection *> connections = m_connections;
    for (FakeHttpConnection *connection : connections)
        connection->socket()->abort();
}

FakeResponse FakeChatServer::respondTo(const RecordedRequest &request)
{
    m_requests.append(request);
    if (!m_recordsBodies)
        m_requests.last().body.clear();
    emit requestReceived(int(m_requests.size() - 1));

    if (std::optional<FakeResponse> rejection = rejectApiKey(request))
        return *rejection;
    if (m_handler)
        return m_handler(request);
    if (isChatCompletion(request)) {
        if (!m_script.isEmpty())
            return m_script.takeFirst();
        return FakeResponse::httpError(
                500,
                u"FakeChatServer: the script ran out; chat request #%1 was not scripted"_s.arg(
                        requests().size()),
                u"server_error"_s);
    }
    const QByteArray route = routeOf(request.path);
    if (request.method == "GET" && route == "/v1/models")
        return FakeResponse::models(m_models);
    return FakeResponse::httpError(404,
                                   u"Invalid URL (%1 %2)"_s.arg(QString::fromUtf8(request.method),
                                                                QString::fromUtf8(route)));
}

std::optional<FakeResponse> FakeChatServer::rejectApiKey(const RecordedRequest &request) const
{
    if (m_requiredApiKey.isEmpty())
        return std::nullopt;
    const QByteArray key = bearerToken(request.header("Authorization"));
    if (key == m_requiredApiKey)
        return std::nullopt;
    if (key.isEmpty()) {
        return FakeResponse::httpError(
                401,
                u"You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), "
                "or as the basic auth username, or as the password field (i.e. -u YOUR_KEY:). "
                "You can obtain an API key from https://platform.openai.com/account/api-keys."_s);
    }
    return FakeResponse::httpError(401,
                                   u"Incorrect API key provided: %1. You can find your API key "
                                   "at https://platform.openai.com/account/api-keys."_s.arg(
                                           maskedKey(key)),
                                   u"invalid_request_error"_s,
                                   u"invalid_api_key"_s);
}

quint16 closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

} // namespace AgentLoop
