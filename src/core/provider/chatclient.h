#pragma once

#include "base/error.h"
#include "protocol/completion.h"
#include "protocol/exchange.h"
#include "protocol/providersettings.h"
#include "protocol/sseparser.h"
#include "protocol/streamassembler.h"
#include "provider/retrypolicy.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <optional>

namespace AgentLoop {

// A change the client made to its settings after the provider refused a part of the request.
struct ProviderAdjustment
{
    enum Change {
        StreamUsageOff, // stream_options left out (Mistral: 422 extra_forbidden)
        StreamingOff,   // whole answers instead of a stream (llama.cpp: tools with stream)
    };
    Change change = StreamUsageOff;
    QString notice; // what to tell the user, ready to show
};

// Talks to an OpenAI-compatible Chat Completions endpoint, asynchronously: one request at a
// time, results through signals, never a blocking wait. Streamed answers are parsed as they
// arrive; rate limits, server errors and refused connections are retried with backoff (never
// once the model has started answering, so no text is shown twice). A provider that refuses
// stream_options, or streaming with tools, by name gets the request again at once without it
// (providerAdjusted). Redirects are followed only
// within the base URL's origin (scheme, host and port): the API key goes nowhere else.
class ChatClient final : public QObject
{
    Q_OBJECT
public:
    explicit ChatClient(QObject *parent = nullptr);

    void setSettings(const ProviderSettings &settings) { m_settings = settings; }
    const ProviderSettings &settings() const { return m_settings; }
    // Replaces the transport (the offline demo answers from a QNetworkAccessManager of its own).
    // Takes ownership.
    void setNetworkAccessManager(QNetworkAccessManager *manager);

    // POST {baseUrl}/chat/completions with body. For each attempt: requestSent, then
    // responseReceived; between attempts retryScheduled; at the end exactly one of completed or
    // failed. While a streamed answer arrives: textDelta and reasoningDelta.
    void postChatCompletion(int turn,
                            const QByteArray &body,
                            ExchangePurpose purpose = ExchangePurpose::Turn);
    // GET {baseUrl}/models. Emits modelListReceived and modelsListed, or modelsFailed.
    void listModels();
    // Abandons the request in flight (or the wait before a retry); no further signal is emitted
    // for it.
    void abort();
    bool isBusy() const { return m_reply != nullptr || m_retryTimer.isActive(); }

    static QUrl endpoint(const QUrl &baseUrl, const QString &path);

signals:
    void requestSent(const AgentLoop::Exchange &exchange);
    void responseReceived(const AgentLoop::Exchange &exchange);
    void textDelta(const QString &text);
    void reasoningDelta(const QString &text);
    // notice is ready to show: "Retrying in 2 s (attempt 2 of 4)."
    void retryScheduled(const QString &notice, qint64 delayMs, int nextAttempt, int maxAttempts);
    void completed(const AgentLoop::Completion &completion);
    void failed(const AgentLoop::Error &error);

    // The settings changed after a refusal, and the request was sent again: settings() has the
    // change, and keeps it for later requests.
    void providerAdjusted(const AgentLoop::ProviderAdjustment &adjustment);

    // The whole answer to listModels(), for what else it says of the models (their context
    // windows, context/contextwindow.h); modelsListed follows.
    void modelListReceived(const QByteArray &body);
    void modelsListed(const QStringList &modelIds);
    void modelsFailed(const AgentLoop::Error &error);

private:
    QNetworkReply *send(const QByteArray &method, const QString &path, const QByteArray &body);
    void startAttempt();
    void readChatCompletion();
    bool readAvailable(QNetworkReply *reply);
    SseParser::EventHandler streamEventHandler();
    void checkRedirect(QNetworkReply *reply, const QUrl &target, const QString &endpointPath);
    void stopReply(Error reason);
    void finishChatCompletion();
    void finishStream(QNetworkReply *reply);
    QString maskedDelta(QString &held, const QString &delta) const;
    bool scheduleRetry(QNetworkReply *reply);
    bool resendAdjusted();
    QString adjustmentNotice(ProviderAdjustment::Change change, int status) const;
    // The typed error for a reply that failed; kind Http, Network or Timeout.
    Error replyError(QNetworkReply *reply, const QByteArray &body) const;

    QNetworkAccessManager *m_network = nullptr;
    ProviderSettings m_settings;
    QPointer<QNetworkReply> m_reply;
    Exchange m_exchange;
    QElapsedTimer m_clock;

    // The chat completion request being answered, across its attempts.
    QByteArray m_body;
    int m_turn = 0;
    ExchangePurpose m_purpose = ExchangePurpose::Turn;
    int m_attempt = 1;
    QTimer m_retryTimer;
    QTimer m_answerTimer; // maxAnswerTime, per attempt
    // Every byte of this attempt's response body, up to one byte past maxResponseBytes.
    QByteArray m_received;
    std::optional<StreamAssembler> m_stream; // set once the answer turns out to be a stream
    SseParser m_sse;
    // The end of the text shown so far that could be the start of the key: held back until the
    // next piece says whether it is (then it is masked with the rest).
    QString m_heldText;
    QString m_heldReasoning;
    // Why this client gave up the reply in flight: it fails with this error, never retried.
    std::optional<Error> m_abortReason;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ProviderAdjustment)
