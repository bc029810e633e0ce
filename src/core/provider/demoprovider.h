#pragma once

#include "provider/chatclient.h"

#include <QNetworkAccessManager>
#include <QUrl>

#include <chrono>

namespace AgentLoop {

// Where the offline demo "provider" lives. No network request ever goes there: only
// DemoNetworkAccessManager answers it.
QUrl demoBaseUrl();
inline constexpr char demoModelName[] = "agentloop-demo";

// Provider settings that reach the demo model (no key needed).
ProviderSettings demoProviderSettings();

// True for URLs under demoBaseUrl().
bool isDemoUrl(const QUrl &url);

// A QNetworkAccessManager that answers requests under demoBaseUrl() itself, without any network,
// and passes every other request to the real network (so it can stay installed when the user
// switches to a real provider). Install it with ChatClient::setNetworkAccessManager().
//
// The demo model walks a new user through one turn of the loop, and it is stateless: it reads
// the request's messages like a real model does.
//   - POST .../chat/completions whose last message is the user's prompt: a short text and one
//     `shell` call of a harmless command, written for the shell the request's tool description
//     names (PowerShell, cmd.exe or a POSIX shell).
//   - ... whose last message is a tool result: a final answer that quotes the output and explains
//     the loop, or, for a "denied" result, explains that nothing ran.
//   - GET .../models: {"data": [{"id": "agentloop-demo"}]}.
// Replies arrive asynchronously after a short, model-like delay, with HTTP status 200 and JSON
// headers, so ChatClient, the inspector and transcripts see ordinary exchanges. The model's text
// is English, or Chinese when the user's prompt contains Chinese characters.
class DemoNetworkAccessManager final : public QNetworkAccessManager
{
    Q_OBJECT
public:
    explicit DemoNetworkAccessManager(QObject *parent = nullptr);

    // How long the demo "thinks" before a reply: a random duration in [minimum, maximum].
    // Default 300-600 ms.
    void setLatency(std::chrono::milliseconds minimum, std::chrono::milliseconds maximum);

protected:
    QNetworkReply *createRequest(Operation operation,
                                 const QNetworkRequest &request,
                                 QIODevice *outgoingData) override;

private:
    std::chrono::milliseconds m_minimumLatency{300};
    std::chrono::milliseconds m_maximumLatency{600};
};

} // namespace AgentLoop
