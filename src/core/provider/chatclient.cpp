#include "provider/chatclient.h"

#include "base/displaytext.h"
#include "base/redaction.h"
#include "base/urlorigin.h"
#include "protocol/providerpresets.h"
#include "protocol/requestbody.h"
#include "protocol/streamredaction.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct ChatClientText
{
    Q_DECLARE_TR_FUNCTIONS(ChatClient)
};

HeaderList headersOf(const QNetworkRequest &request, const QString &apiKey)
{
    HeaderList headers;
    for (const QByteArray &name : request.rawHeaderList()) {
        QByteArray value = request.rawHeader(name);
        if (name.compare("authorization", Qt::CaseInsensitive) == 0)
            value = QByteArray("Bearer ") + redactedMarker;
        else if (name.compare("api-key", Qt::CaseInsensitive) == 0)
            value = redactedMarker;
        else // an extra header of the profile may carry the key as well
            value = redacted(value, apiKey);
        headers.append({name, value});
    }
    return headers;
}

// Headers a profile may not set: the key's own, and those the transport writes.
bool isReservedHeader(const QByteArray &name)
{
    static const QByteArrayList reserved{"authorization",
                                         "api-key",
                                         "content-type",
                                         "content-length",
                                         "host",
                                         "accept",
                                         "transfer-encoding",
                                         "connection"};
    return reserved.contains(name.toLower());
}

// What the provider said, for recognising a refusal by its words.
QString errorText(const QByteArray &body)
{
    const QString message = providerErrorMessage(body);
    return message.isEmpty() ? QString::fromUtf8(body.left(4096)) : message;
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

Error redirectError(const QUrl &target, const QString &endpointPath, int status)
{
    const QString origin = displayedLine(target.toString(QUrl::RemoveUserInfo | QUrl::RemovePath
                                                         | QUrl::RemoveQuery | QUrl::RemoveFragment),
                                         200);
    // The base URL that would reach the endpoint at the new address directly.
    QUrl base = target.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
    if (QString path = base.path(); path.endsWith(endpointPath)) {
        path.chop(endpointPath.size());
        base.setPath(path);
    }
    Error error{Error::Http,
                ChatClientText::tr("The provider redirected the request to another address, %1. "
                                   "The redirect was not followed, so that the API key is sent "
                                   "nowhere but to the base URL.")
                        .arg(origin),
                ChatClientText::tr("If %1 is where the provider answers now, set the base URL to "
                                   "%2.")
                        .arg(origin, displayedLine(base.toString(), 200))};
    error.httpStatus = status;
    return error;
}

Error tooLargeError(qint64 limit)
{
    const double megabytes = double(limit) / (1024.0 * 1024.0);
    return Error{Error::Protocol,
                 ChatClientText::tr("The answer passed the %1 MB limit; it was given up.")
                         .arg(megabytes),
                 ChatClientText::tr("Raise the maximum answer size in the settings (or with "
                                    "--max-response-mb) if answers this long are expected.")};
}

Error answerTimeError(std::chrono::milliseconds limit)
{
    // Whole minutes as set in the settings; anything else (a test's 300 ms) in seconds.
    const QString message = limit.count() > 0 && limit.count() % 60000 == 0
                                    ? ChatClientText::tr(
                                              "The answer was still arriving after %1 min; it was "
                                              "given up.")
                                              .arg(limit.count() / 60000)
                                    : ChatClientText::tr(
                                              "The answer was still arriving after %1 s; it was "
                                              "given up.")
                                              .arg(double(limit.count()) / 1000.0);
    return Error{Error::Timeout,
                 message,
                 ChatClientText::tr("Raise the maximum answer time in the settings (or with "
                                    "--max-answer-minutes), or ask for a shorter answer.")};
}

Message redactedMessage(const Message &message, const QString &key)
{
    QList<ToolCall> calls = message.toolCalls();
    for (ToolCall &call : calls)
        call.arguments = redacted(call.arguments, key);
    const std::optional<QString> content = message.hasContent()
                                                   ? std::optional(redacted(message.content(), key))
                                                   : std::nullopt;
    return Message::assistant(content,
                              calls,
                              redacted(message.reasoningContent(), key),
                              message.reasoningField());
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
    m_answerTimer.setSingleShot(true);
    connect(&m_answerTimer, &QTimer::timeout, this, [this] {
        stopReply(answerTimeError(m_settings.maxAnswerTime));
    });
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
    for (const auto &[name, value] : m_settings.extraHeaders) {
        if (!isReservedHeader(name))
            request.setRawHeader(name, value);
    }
    switch (m_settings.auth) {
    case AuthStyle::Bearer:
        request.setRawHeader("Authorization", "Bearer " + m_settings.apiKey.toUtf8());
        break;
    case AuthStyle::ApiKeyHeader:
        request.setRawHeader("api-key", m_settings.apiKey.toUtf8());
        break;
    case AuthStyle::None:
        break;
    }
    // An idle timeout: it fires only after this long without any byte from the provider.
    request.setTransferTimeout(int(m_settings.requestTimeout.count()));
    // Qt follows redirects by default, Authorization header included, to any host: each one is
    // checked in checkRedirect() instead.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::UserVerifiedRedirectPolicy);

    m_exchange = Exchange{};
    m_exchange.method = method;
    m_exchange.url = request.url();
    m_exchange.requestHeaders = headersOf(request, m_settings.apiKey);
    m_exchange.requestBody = redacted(body, m_settings.apiKey);
    m_exchange.startedAt = QDateTime::currentDateTimeUtc();
    m_clock.start();
    m_received.clear();
    m_abortReason.reset();

    QNetworkReply *reply = m_network->sendCustomRequest(request, method, body);
    reply->setParent(this);
    m_reply = reply;
    connect(reply, &QNetworkReply::redirected, this, [this, reply, path](const QUrl &target) {
        checkRedirect(reply, target, path);
    });
    // QTimer counts in int milliseconds.
    m_answerTimer.start(std::clamp(m_settings.maxAnswerTime,
                                   std::chrono::milliseconds(0),
                                   std::chrono::milliseconds(std::numeric_limits<int>::max())));
    return reply;
}

void ChatClient::postChatCompletion(int turn, const QByteArray &body, ExchangePurpose purpose)
{
    abort();
    m_body = body;
    m_turn = turn;
    m_purpose = purpose;
    m_attempt = 1;
    startAttempt();
}

void ChatClient::startAttempt()
{
    m_stream.reset();
    m_sse.reset();
    m_heldText.clear();
    m_heldReasoning.clear();
    QNetworkReply *reply = send("POST", u"/chat/completions"_s, m_body);
    m_exchange.turn = m_turn;
    m_exchange.purpose = m_purpose;
    m_exchange.model = m_settings.model;
    m_exchange.attempt = m_attempt;
    connect(reply, &QNetworkReply::readyRead, this, &ChatClient::readChatCompletion);
    connect(reply, &QNetworkReply::finished, this, &ChatClient::finishChatCompletion);
    emit requestSent(m_exchange);
}

void ChatClient::abort()
{
    m_retryTimer.stop();
    m_answerTimer.stop();
    if (QNetworkReply *reply = m_reply) {
        m_reply = nullptr;
        // Disconnect first: abort() emits finished() synchronously, and this request's result
        // belongs to nobody any more.
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

void ChatClient::checkRedirect(QNetworkReply *reply, const QUrl &target, const QString &endpointPath)
{
    if (reply != m_reply)
        return;
    // Against the URL the request was sent to, not the last hop: a chain of redirects may not
    // leave the origin either.
    const QUrl resolved = m_exchange.url.resolved(target);
    if (isSameOrigin(m_exchange.url, resolved)) {
        emit reply->redirectAllowed();
        return;
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    stopReply(redirectError(resolved, endpointPath, status));
}

void ChatClient::stopReply(Error reason)
{
    m_answerTimer.stop();
    if (!m_abortReason) {
        reason.message = redacted(reason.message, m_settings.apiKey);
        reason.hint = redacted(reason.hint, m_settings.apiKey);
        m_abortReason = std::move(reason);
    }
    if (QNetworkReply *reply = m_reply)
        reply->abort(); // finished() follows at once and reports m_abortReason
}

Error ChatClient::replyError(QNetworkReply *reply, const QByteArray &body) const
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 400 || (status > 0 && reply->error() == QNetworkReply::NoError)) {
        Error error = httpError(status, body);
        if (const QString hint = providerHintForStatus(m_settings, status); !hint.isEmpty())
            error.hint = hint;
        return error;
    }
    if (reply->error() == QNetworkReply::OperationCanceledError
        || reply->error() == QNetworkReply::TimeoutError) {
        // Only abort() and stopReply() cancel on purpose; abort() disconnects first, and
        // stopReply()'s reason is reported before this is asked. So this is the timeout.
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
    if (reply->bytesAvailable() <= 0)
        return;
    // Whether this is a stream is the answer's decision, not the request's: a provider that
    // ignores `stream: true` sends one JSON body, which is parsed whole at the end.
    if (m_received.isEmpty()) {
        m_exchange.firstByteMs = m_clock.elapsed();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray type = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
        if (status == 200 && type.contains("event-stream"))
            m_stream.emplace();
    }
    const qsizetype start = m_received.size();
    if (!readAvailable(reply) || !m_stream)
        return;
    if (const Result<void> fed = m_sse.feed(QByteArrayView(m_received).sliced(start),
                                            streamEventHandler());
        !fed) {
        // A line past the parser's bound: stop reading rather than grow without end.
        stopReply(fed.error());
        return;
    }
    if (m_stream->isRefused()) { // too many tool calls: none will run, the rest is of no use
        stopReply(m_stream->result().error());
        return;
    }
    if (const QString text = maskedDelta(m_heldText, m_stream->takeTextDelta()); !text.isEmpty())
        emit textDelta(text);
    if (const QString reasoning = maskedDelta(m_heldReasoning, m_stream->takeReasoningDelta());
        !reasoning.isEmpty())
        emit reasoningDelta(reasoning);
}

// Reads straight onto the end of the kept response: the bytes the inspector shows are the bytes
// the parser reads, copied once. Never more than one byte past maxResponseBytes is read or
// allocated: false, and the reply aborted, once the answer is over the limit.
bool ChatClient::readAvailable(QNetworkReply *reply)
{
    const qint64 limit = std::clamp<qint64>(m_settings.maxResponseBytes,
                                            0,
                                            std::numeric_limits<qsizetype>::max() / 2);
    const qsizetype start = m_received.size();
    const qint64 wanted = std::min(reply->bytesAvailable(), limit + 1 - start);
    if (wanted > 0) {
        const qsizetype needed = start + qsizetype(wanted);
        if (needed > m_received.capacity()) {
            // Grows geometrically, as resize() would, but never past what the limit allows.
            m_received.reserve(
                    qsizetype(std::min<qint64>(std::max<qint64>(needed, 2 * m_received.capacity()),
                                               limit + 1)));
        }
        m_received.resize(needed);
        const qint64 read = reply->read(m_received.data() + start, wanted);
        m_received.resize(start + qsizetype(std::max<qint64>(read, 0)));
    }
    if (m_received.size() <= limit)
        return true;
    stopReply(tooLargeError(limit));
    return false;
}

// A model that repeats the key may split it across two pieces of the stream: what is shown live
// is masked as a whole, and a tail that could begin the key waits for the next piece. (The final
// message, masked whole, replaces what was shown live.)
QString ChatClient::maskedDelta(QString &held, const QString &delta) const
{
    const QString &key = m_settings.apiKey;
    QString text = redacted(held + delta, key);
    held.clear();
    if (key.size() < 2 || text.isEmpty() || !key.contains(text.back()))
        return text;
    for (qsizetype length = std::min(key.size() - 1, text.size()); length > 0; --length) {
        if (QStringView(text).endsWith(QStringView(key).first(length))) {
            held = text.right(length);
            text.chop(length);
            break;
        }
    }
    return text;
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
    m_answerTimer.stop();
    reply->deleteLater();

    m_exchange.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    m_exchange.responseHeaders = reply->rawHeaderPairs();
    for (auto &header : m_exchange.responseHeaders) // a debugging proxy may echo the key
        header.second = redacted(header.second, m_settings.apiKey);
    m_received.squeeze(); // the exchange keeps it: no room to spare from the geometric growth
    // A stream's events carry the model's text in pieces: a key it repeats is joined first.
    m_exchange.responseBody = m_stream ? redactedEventStream(m_received, {m_settings.apiKey})
                                       : redacted(m_received, m_settings.apiKey);
    m_exchange.durationMs = m_clock.elapsed();
    if (m_exchange.firstByteMs < 0 && !m_received.isEmpty()) // the body came with the end
        m_exchange.firstByteMs = m_exchange.durationMs;
    m_exchange.streamed = m_stream.has_value();
    if (reply->error() != QNetworkReply::NoError)
        m_exchange.errorString = redacted(reply->errorString(), m_settings.apiKey);

    if (m_abortReason) {
        m_exchange.errorString = m_abortReason->message; // not Qt's "Operation canceled"
        emit responseReceived(m_exchange);
        emit failed(*std::exchange(m_abortReason, std::nullopt));
        return;
    }
    if (m_stream) {
        finishStream(reply);
        return;
    }
    if (reply->error() != QNetworkReply::NoError || m_exchange.httpStatus >= 300) {
        if (resendAdjusted() || scheduleRetry(reply))
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
    // What was held back is a part of the key at most, never all of it: the stream has ended.
    if (!m_heldText.isEmpty())
        emit textDelta(std::exchange(m_heldText, {}));
    if (!m_heldReasoning.isEmpty())
        emit reasoningDelta(std::exchange(m_heldReasoning, {}));
    const Result<Completion> completion = m_stream->result();
    if (completion) {
        // Assembled from the events as they came, not from the masked body: a model that repeats
        // the key must not bring it into the history.
        Completion masked = *completion;
        masked.message = redactedMessage(completion->message, m_settings.apiKey);
        m_exchange.assembledMessage = QJsonDocument(masked.message.toJson())
                                              .toJson(QJsonDocument::Compact);
        emit responseReceived(m_exchange);
        emit completed(masked);
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

// Some providers refuse, by name, a part of the request others need: the request is sent again at
// once without it, and the settings keep it out from then on (the front end may save that).
bool ChatClient::resendAdjusted()
{
    const int status = m_exchange.httpStatus;
    const QString text = errorText(m_exchange.responseBody);
    ProviderAdjustment adjustment;
    QByteArray body;
    if ((status == 400 || status == 422) && text.contains(QLatin1String(streamOptionsField))
        && (body = withoutStreamOptions(m_body)) != m_body) {
        adjustment.change = ProviderAdjustment::StreamUsageOff;
        m_settings.streamUsage = false;
    } else if (status >= 400 && text.contains(u"tools with stream"_s, Qt::CaseInsensitive)
               && (body = withoutStreaming(m_body)) != m_body) {
        adjustment.change = ProviderAdjustment::StreamingOff;
        m_settings.stream = false;
    } else {
        return false;
    }
    adjustment.notice = adjustmentNotice(adjustment.change, status);
    m_body = body;
    m_exchange.retryNotice = adjustment.notice;
    emit responseReceived(m_exchange);
    emit providerAdjusted(adjustment);
    ++m_attempt;
    m_retryTimer.start(0);
    return true;
}

QString ChatClient::adjustmentNotice(ProviderAdjustment::Change change, int status) const
{
    const QString provider = m_settings.providerId.isEmpty() ? ChatClientText::tr("The provider")
                                                             : providerName(m_settings.providerId);
    const QString kept = m_settings.profileName.isEmpty()
                                 ? ChatClientText::tr("This session leaves it out from now on.")
                                 : ChatClientText::tr("The profile %1 leaves it out from now on.")
                                           .arg(displayedLine(m_settings.profileName, 80));
    if (change == ProviderAdjustment::StreamUsageOff) {
        return ChatClientText::tr(
                       "%1 refused the stream_options field (HTTP %2); the request was sent again "
                       "without it. %3")
                .arg(provider)
                .arg(status)
                .arg(kept);
    }
    const QString streamingKept
            = m_settings.profileName.isEmpty()
                      ? ChatClientText::tr("This session asks for whole answers from now on.")
                      : ChatClientText::tr("The profile %1 asks for whole answers from now "
                                           "on.")
                                .arg(displayedLine(m_settings.profileName, 80));
    return ChatClientText::
            tr("%1 cannot stream an answer that uses tools (HTTP %2); the request was sent again "
               "without streaming. %3")
                    .arg(provider)
                    .arg(status)
                    .arg(streamingKept);
}

bool ChatClient::scheduleRetry(QNetworkReply *reply)
{
    const RetryPolicy policy(m_settings.retry);
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
    connect(reply, &QNetworkReply::readyRead, this, [this, reply] {
        if (m_reply == reply && reply->isOpen())
            readAvailable(reply);
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (m_reply != reply)
            return;
        if (reply->isOpen())
            readAvailable(reply); // whatever arrived with the end
        m_reply = nullptr;
        m_answerTimer.stop();
        reply->deleteLater();
        if (m_abortReason) {
            emit modelsFailed(*std::exchange(m_abortReason, std::nullopt));
            return;
        }
        const QByteArray body = redacted(std::exchange(m_received, {}), m_settings.apiKey);
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
        emit modelListReceived(body);
        emit modelsListed(ids);
    });
}

} // namespace AgentLoop
