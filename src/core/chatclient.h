#pragma once

#include "completion.h"
#include "error.h"
#include "exchange.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <chrono>

namespace AgentLoop {

// Where and how to reach the provider.
struct ProviderSettings
{
    QUrl baseUrl; // e.g. https://api.openai.com/v1; /chat/completions is appended
    QString apiKey;
    QString model;
    // How long the provider may stay silent before the request is given up.
    std::chrono::milliseconds requestTimeout{std::chrono::seconds(120)};
};

// Talks to an OpenAI-compatible Chat Completions endpoint, asynchronously: one request at a
// time, results through signals, never a blocking wait.
class ChatClient final : public QObject
{
    Q_OBJECT
public:
    explicit ChatClient(QObject *parent = nullptr);

    void setSettings(const ProviderSettings &settings) { m_settings = settings; }
    // Replaces the transport (the offline demo answers from a QNetworkAccessManager of its own).
    // Takes ownership.
    void setNetworkAccessManager(QNetworkAccessManager *manager);
    const ProviderSettings &settings() const { return m_settings; }

    // POST {baseUrl}/chat/completions with body. Emits requestSent, then responseReceived and
    // exactly one of completed or failed.
    void postChatCompletion(int turn, const QByteArray &body);
    // GET {baseUrl}/models. Emits modelsListed or modelsFailed.
    void listModels();
    // Abandons the request in flight; no further signal is emitted for it.
    void abort();
    bool isBusy() const { return m_reply != nullptr; }

    static QUrl endpoint(const QUrl &baseUrl, const QString &path);

signals:
    void requestSent(const AgentLoop::Exchange &exchange);
    void responseReceived(const AgentLoop::Exchange &exchange);
    void completed(const AgentLoop::Completion &completion);
    void failed(const AgentLoop::Error &error);

    void modelsListed(const QStringList &modelIds);
    void modelsFailed(const AgentLoop::Error &error);

private:
    QNetworkReply *send(const QByteArray &method, const QString &path, const QByteArray &body);
    void finishChatCompletion();
    // The typed error for a reply that failed; kind Http, Network or Timeout.
    Error replyError(QNetworkReply *reply, const QByteArray &body) const;

    QNetworkAccessManager *m_network = nullptr;
    ProviderSettings m_settings;
    QPointer<QNetworkReply> m_reply;
    Exchange m_exchange;
    QElapsedTimer m_clock;
};

} // namespace AgentLoop
