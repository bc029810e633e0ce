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

// What the demo model does. Tour is the walk-through below; the others are the scripted cases
// of the course's experiments and self-test (agent/experiments.h), one each:
//   - FailingCommand: one `shell` call of a command that prints a line and exits 1;
//   - PlainText: content "好的" with tool_calls [] (an answer that ends the loop);
//   - NullContent: content null with tool_calls [] (neither text nor a call);
//   - ThreeCallsOneFails: three read calls at once (list_dir, read_file of a missing file,
//     list_dir), then an answer counting the tool messages that came back;
//   - UnknownTool: a call of a tool no request offers (`deploy`), then an answer;
//   - ThreeReads: three list_dir calls at once, then an answer (two requests, three calls).
// The script is named by the request's model (demoModelName, or demoModelName-<script>), so the
// demo stays stateless.
enum class DemoScript {
    Tour,
    FailingCommand,
    PlainText,
    NullContent,
    ThreeCallsOneFails,
    UnknownTool,
    ThreeReads,
};

// Provider settings that reach the demo model (no key needed), playing the script.
ProviderSettings demoProviderSettings(DemoScript script = DemoScript::Tour);
// The model name that plays the script.
QString demoModelFor(DemoScript script);

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
