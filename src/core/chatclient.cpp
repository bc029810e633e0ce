#include "chatclient.h"

#include "redaction.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct ChatClientText
{
    Q_DECLARE_TR_FUNCTIONS(ChatClient)
};

HeaderList headersOf(const QNetworkRequest &request)
{
    HeaderList headers;
    for (const QByteArray &name : request.rawHeaderList()) {
        const bool secret = name.compare("authorization", Qt::CaseInsensitive) == 0;
        headers.append(
                {name, secret ? QByteArray("Bearer ") + redactedMarker : request.rawHeader(name)});
    }
    return headers;
}

Error networkError(QNetworkReply::NetworkError code, const QString &detail, const QUrl &url)
{
    Error error{Error::Network, ChatClientText::tr("Network error: %1").arg(detail)};
    switch (code) {
    case QNetworkReply::ConnectionRefusedError:
        error.hint = ChatClientText::tr(
                             "Nothing is listening at %1. Check the base URL and that the "
                             "server is running.")
                             .arg(url.authority());
        break;
    case QNetworkReply::HostNotFoundError:
        error.hint = ChatClientText::tr(
                             "The host name %1 could not be resolved. Check the base URL "
                             "and your network connection.")
                             .arg(url.host());
        break;
    case QNetworkReply::SslHandshakeFailedError:
        error.hint = ChatClientText::tr("The TLS handshake failed. Check the base URL's scheme "
                                        "(http or https) and the server's certificate.");
        break;
    case QNetworkReply::RemoteHostClosedError:
        error.hint = ChatClientText::tr("The provider closed the connection before answering. Try "
                                        "again; if it keeps happening, check proxies between you "
                                        "and the provider.");
        break;
    default:
        error.hint = ChatClientText::tr("Check the base URL and your network connection.");
        break;
    }
    return error;
}

} // namespace

ChatClient::ChatClient(QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
{
    m_retryTimer.setSingleShot(true);
    // A coarse timer may fire up to 5 % early, which would not honour Retry-After.
    m_retryTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_retryTimer, &QTimer::timeout, this, &ChatClient::startAttempt);
}

void ChatClient::setNetworkAccessManager(QNetworkAccessManager *manager)
{
    abort();
    if (m_network != manager) {
        delete m_network;
        m_network = manager;
        m_network->setParent(this);
    }
}

QUrl ChatClient::endpoint(const QUrl &baseUrl, const QString &path)
{
    QUrl url = baseUrl;
    QString basePath = url.path();
    while (basePath.endsWith(u'/'))
        basePath.chop(1);
    url.setPath(basePath + path);
    return url;
}

QNetworkReply *ChatClient::send(const QByteArray &method,
                                const QString &path,
                                const QByteArray &body)
{
    QNetworkRequest request(endpoint(m_settings.baseUrl, path));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    if (!body.isEmpty())
        request.setRawHeader("Content-Type", "application/json");
    request.setRawHeader("User-Agent", "AgentLoop/" AGENTLOOP_VERSION);
    request.setRawHeader("Authorization", "Bearer " + m_settings.apiKey.toUtf8());
    // An idle timeout: it fires only after this long without any byte from the provider.
    request.setTransferTimeout(int(m_settings.requestTimeout.count()));

    m_exchange = Exchange{};
    m_exchange.method = method;
    m_exchange.url = request.url();
    m_exchange.requestHeaders = headersOf(request);
    m_exchange.requestBody = redacted(body, m_settings.apiKey);
    m_exchange.startedAt = QDateTime::currentDateTimeUtc();
    m_clock.start();

    QNetworkReply *reply = m_network->sendCustomRequest(request, method, body);
    reply->setParent(this);
    m_reply = reply;
    return reply;
}

void ChatClient::postChatCompletion(int turn, const QByteArray &body)
{
    abort();
    m_body = body;
    m_turn = turn;
    m_attempt = 1;
    startAttempt();
}

void ChatClient::startAttempt()
{
    m_received.clear();
    m_stream.reset();
    m_streamFailure.reset();
    m_sse.reset();
    QNetworkReply *reply = send("POST", u"/chat/completions"_s, m_body);
    m_exchange.turn = m_turn;
    m_exchange.attempt = m_attempt;
    connect(reply, &QNetworkReply::readyRead, this, &ChatClient::readChatCompletion);
    connect(reply, &QNetworkReply::finished, this, &ChatClient::finishChatCompletion);
    emit requestSent(m_exchange);
}

void ChatClient::abort()
{
    m_retryTimer.stop();
    if (QNetworkReply *reply = m_reply) {
        m_reply = nullptr;
        // Disconnect first: abort() emits finished() synchronously, and this request's result
        // belongs to nobody any more.
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

Error ChatClient::replyError(QNetworkReply *reply, const QByteArray &body) const
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 400 || (status > 0 && reply->error() == QNetworkReply::NoError))
        return httpError(status, body);
    if (reply->error() == QNetworkReply::OperationCanceledError
        || reply->error() == QNetworkReply::TimeoutError) {
        // Only abort() cancels on purpose, and it disconnects first; so this is the timeout.
        // In seconds, but not rounded: a 500 ms timeout is "0.5 s", not "0 s".
        const double seconds = double(m_settings.requestTimeout.count()) / 1000.0;
        return Error{Error::Timeout,
                     ChatClientText::tr("The provider sent nothing for %1 s; the request was given "
                                        "up.")
                             .arg(seconds),
                     ChatClientText::tr("The model may be overloaded: try again, or raise the "
                                        "request timeout in the settings.")};
    }
    return networkError(reply->error(), reply->errorString(), reply->url());
}

void ChatClient::readChatCompletion()
{
    QNetworkReply *reply = m_reply;
    if (!reply || !reply->isOpen())
        return;
    const qint64 available = reply->bytesAvailable();
    if (available <= 0)
        return;
    // Whether this is a stream is the answer's decision, not the request's: a provider that
    // ignores `stream: true` sends one JSON body, which is parsed whole at the end.
    if (m_received.isEmpty()) {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray type = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
        if (status == 200 && type.contains("event-stream"))
            m_stream.emplace();
    }
    // Read straight onto the end of the kept response: the bytes the inspector shows are the
    // bytes the parser reads, copied once. (resize() grows the buffer geometrically.)
    const qsizetype start = m_received.size();
    m_received.resize(start + qsizetype(available));
    const qint64 read = reply->read(m_received.data() + start, available);
    m_received.resize(start + qsizetype(std::max<qint64>(read, 0)));
    if (!m_stream)
        return;
    if (const Result<void> fed = m_sse.feed(QByteArrayView(m_received).sliced(start),
                                            streamEventHandler());
        !fed) {
        // A line past the parser's bound: stop reading rather than grow without end.
        m_streamFailure = fed.error();
        reply->abort(); // finished() follows at once
        return;
    }
    if (const QString text = m_stream->takeTextDelta(); !text.isEmpty())
        emit textDelta(text);
    if (const QString reasoning = m_stream->takeReasoningDelta(); !reasoning.isEmpty())
        emit reasoningDelta(reasoning);
}

SseParser::EventHandler ChatClient::streamEventHandler()
{
    // Capturing only `this` keeps the std::function in its small buffer: no allocation per read.
    return [this](const SseEventView &event) {
        static_cast<void>(m_stream->addEvent(event)); // an error is kept for result()
    };
}

void ChatClient::finishChatCompletion()
{
    QNetworkReply *reply = m_reply;
    if (!reply)
        return;
    readChatCompletion(); // whatever arrived with the end
    m_reply = nullptr;
    reply->deleteLater();

    m_exchange.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    m_exchange.responseHeaders = reply->rawHeaderPairs();
    m_received.squeeze(); // the exchange keeps it: no room to spare from the geometric growth
    m_exchange.responseBody = redacted(m_received, m_settings.apiKey);
    m_exchange.durationMs = m_clock.elapsed();
    m_exchange.streamed = m_stream.has_value();
    if (reply->error() != QNetworkReply::NoError)
        m_exchange.errorString = redacted(reply->errorString(), m_settings.apiKey);

    if (m_stream) {
        finishStream(reply);
        return;
    }
    if (reply->error() != QNetworkReply::NoError || m_exchange.httpStatus >= 300) {
        if (scheduleRetry(reply))
            return;
        emit responseReceived(m_exchange);
        Error error = replyError(reply, m_exchange.responseBody);
        error.message = redacted(error.message, m_settings.apiKey);
        emit failed(error);
        return;
    }
    emit responseReceived(m_exchange);
    Result<Completion> completion = parseCompletion(m_exchange.responseBody);
    if (!completion) {
        emit failed(completion.error());
        return;
    }
    emit completed(*completion);
}

void ChatClient::finishStream(QNetworkReply *reply)
{
    // Taken before the unterminated last event is flushed: that one may be cut off mid-line.
    const bool providerReportedError = m_stream->hasError();
    static_cast<void>(m_sse.finish(streamEventHandler()));
    if (m_streamFailure) {
        emit responseReceived(m_exchange);
        emit failed(*std::exchange(m_streamFailure, std::nullopt));
        return;
    }
    const Result<Completion> completion = m_stream->result();
    if (completion) {
        m_exchange.assembledMessage = QJsonDocument(completion->message.toJson())
                                              .toJson(QJsonDocument::Compact);
        emit responseReceived(m_exchange);
        emit completed(*completion);
        return;
    }
    emit responseReceived(m_exchange);
    Error error = completion.error();
    // An error the provider reported in the stream is that error, not a broken stream; but when
    // the connection broke, only a complete event counts (the last one may be cut off).
    const bool brokeOff = reply->error() != QNetworkReply::NoError
                                  ? !providerReportedError
                                  : !m_stream->hasError() && !m_stream->isDone();
    if (brokeOff) {
        // Retrying now would show the beginning of the answer a second time.
        error = Error{Error::Network,
                      ChatClientText::tr("The answer stream broke off: %1")
                              .arg(reply->error() != QNetworkReply::NoError
                                           ? redacted(reply->errorString(), m_settings.apiKey)
                                           : error.message),
                      ChatClientText::tr("The answer is incomplete and was not retried, so that "
                                         "nothing is shown twice. Send the prompt again.")};
    }
    error.message = redacted(error.message, m_settings.apiKey);
    error.providerMessage = redacted(error.providerMessage, m_settings.apiKey);
    emit failed(error);
}

bool ChatClient::scheduleRetry(QNetworkReply *reply)
{
    const RetryPolicy &policy = m_settings.retry;
    const int status = m_exchange.httpStatus;
    // Connection failures count only before any byte of an answer arrived.
    const bool retryable = status > 0 ? isRetryableStatus(status)
                                      : m_received.isEmpty() && isRetryable(0, reply->error());
    if (!retryable || !policy.allowsRetryAfter(m_attempt))
        return false;
    const auto retryAfter = parseRetryAfter(reply->rawHeader("Retry-After"),
                                            QDateTime::currentDateTimeUtc(),
                                            policy.maxRetryAfter);
    const std::chrono::milliseconds delay = policy.delayForAttempt(m_attempt, retryAfter);
    m_exchange.retryNotice = policy.notice(delay, m_attempt);
    emit responseReceived(m_exchange);
    emit retryScheduled(m_exchange.retryNotice, delay.count(), m_attempt + 1, policy.maxRetries + 1);
    ++m_attempt;
    m_retryTimer.start(delay);
    return true;
}

void ChatClient::listModels()
{
    abort();
    QNetworkReply *reply = send("GET", u"/models"_s, {});
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (m_reply != reply)
            return;
        m_reply = nullptr;
        reply->deleteLater();
        const QByteArray body = redacted(reply->isOpen() ? reply->readAll() : QByteArray(),
                                         m_settings.apiKey);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (reply->error() != QNetworkReply::NoError || status >= 300) {
            emit modelsFailed(replyError(reply, body));
            return;
        }
        const QJsonDocument document = QJsonDocument::fromJson(body);
        if (!document.isObject() || !document.object().value(u"data"_s).isArray()) {
            emit modelsFailed(Error{Error::Protocol,
                                    ChatClientText::tr("The model list is not the expected JSON "
                                                       "({\"data\": [...]})."),
                                    ChatClientText::tr("Check that the base URL points at an "
                                                       "OpenAI-compatible API (it usually ends in "
                                                       "/v1).")});
            return;
        }
        QStringList ids;
        for (const QJsonValue &model : document.object().value(u"data"_s).toArray())
            ids.append(model.toObject().value(u"id"_s).toString());
        ids.removeAll(QString());
        ids.sort();
        emit modelsListed(ids);
    });
}

} // namespace AgentLoop
