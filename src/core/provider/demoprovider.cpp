#include "provider/demoprovider.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct DemoText
{
    Q_DECLARE_TR_FUNCTIONS(DemoProvider)
};

// Everything below that the model "says" is the model's output, not UI text: English, or Chinese
// for a Chinese prompt, like a real model; so it is not translated with tr().

// A reply that is answered locally, a little later, as if it came over the network.
class DemoReply final : public QNetworkReply
{
public:
    DemoReply(QNetworkAccessManager::Operation operation,
              const QNetworkRequest &request,
              int status,
              QByteArray body,
              std::chrono::milliseconds delay,
              QObject *parent)
        : QNetworkReply(parent)
        , m_status(status)
        , m_body(std::move(body))
    {
        setRequest(request);
        setUrl(request.url());
        setOperation(operation);
        open(QIODevice::ReadOnly);
        QTimer::singleShot(delay, this, &DemoReply::deliver);
    }

    void abort() override
    {
        if (isFinished())
            return;
        m_body.clear();
        setError(OperationCanceledError, DemoText::tr("Operation cancelled"));
        emit errorOccurred(OperationCanceledError);
        setFinished(true);
        emit finished();
    }

    bool isSequential() const override { return true; }

    qint64 bytesAvailable() const override
    {
        return (m_delivered ? m_body.size() - m_offset : 0) + QNetworkReply::bytesAvailable();
    }

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        if (!m_delivered)
            return 0;
        const qint64 count = std::min<qint64>(maxSize, m_body.size() - m_offset);
        if (count <= 0)
            return isFinished() ? -1 : 0;
        std::copy_n(m_body.constData() + m_offset, count, data);
        m_offset += count;
        return count;
    }

private:
    void deliver()
    {
        if (isFinished())
            return;
        setAttribute(QNetworkRequest::HttpStatusCodeAttribute, m_status);
        setAttribute(QNetworkRequest::HttpReasonPhraseAttribute,
                     m_status == 200 ? QByteArray("OK") : QByteArray("Not Found"));
        setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        setHeader(QNetworkRequest::ContentLengthHeader, m_body.size());
        setRawHeader("X-AgentLoop-Demo", "offline demo model; nothing left this computer");
        if (m_status >= 400) {
            setError(ContentNotFoundError,
                     DemoText::tr("The offline demo has no %1").arg(url().path()));
        }
        m_delivered = true;
        emit metaDataChanged();
        emit downloadProgress(m_body.size(), m_body.size());
        emit readyRead();
        if (m_status >= 400)
            emit errorOccurred(error());
        setFinished(true);
        emit finished();
    }

    int m_status = 200;
    QByteArray m_body;
    qint64 m_offset = 0;
    bool m_delivered = false;
};

struct ScriptName
{
    DemoScript script;
    const char16_t *suffix;
};

constexpr ScriptName scriptNames[] = {
        {DemoScript::Tour, u""},
        {DemoScript::FailingCommand, u"-exit-1"},
        {DemoScript::PlainText, u"-plain-text"},
        {DemoScript::NullContent, u"-null-content"},
        {DemoScript::ThreeCallsOneFails, u"-one-of-three-fails"},
        {DemoScript::UnknownTool, u"-unknown-tool"},
        {DemoScript::ThreeReads, u"-three-reads"},
};

DemoScript scriptOf(const QString &model)
{
    for (const ScriptName &name : scriptNames) {
        if (model == demoModelFor(name.script))
            return name.script;
    }
    return DemoScript::Tour;
}

bool hasChinese(const QString &text)
{
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if ((u >= 0x3400 && u <= 0x9FFF) || (u >= 0xF900 && u <= 0xFAFF))
            return true;
    }
    return false;
}

// The command to show off, in the language of the shell the app really runs.
std::optional<QString> demoCommand(const QJsonArray &tools)
{
    for (const QJsonValue &tool : tools) {
        const QJsonObject function = tool.toObject().value(u"function"_s).toObject();
        if (function.value(u"name"_s).toString() != u"shell")
            continue;
        const QString description = function.value(u"description"_s).toString();
        if (description.contains(u"PowerShell"_s))
            return u"Write-Output \"Hello from the Agent Loop demo\"; Get-Date"_s;
        if (description.contains(u"cmd.exe"_s))
            return u"echo Hello from the Agent Loop demo& date /t& time /t"_s;
        return u"echo \"Hello from the Agent Loop demo\"; date"_s;
    }
    return std::nullopt;
}

// The shell the request's `shell` tool runs, as its description names it.
enum class ShellKind { None, PowerShell, Cmd, Posix };

ShellKind shellOf(const QJsonArray &tools)
{
    for (const QJsonValue &tool : tools) {
        const QJsonObject function = tool.toObject().value(u"function"_s).toObject();
        if (function.value(u"name"_s).toString() != u"shell")
            continue;
        const QString description = function.value(u"description"_s).toString();
        if (description.contains(u"PowerShell"_s))
            return ShellKind::PowerShell;
        if (description.contains(u"cmd.exe"_s))
            return ShellKind::Cmd;
        return ShellKind::Posix;
    }
    return ShellKind::None;
}

// A command that prints a line and exits with code 1, for the shell that runs it.
std::optional<QString> failingCommand(const QJsonArray &tools)
{
    switch (shellOf(tools)) {
    case ShellKind::PowerShell:
        return u"Write-Output \"this command fails on purpose\"; exit 1"_s;
    case ShellKind::Cmd:
        return u"echo this command fails on purpose& exit /b 1"_s;
    case ShellKind::Posix:
        return u"echo \"this command fails on purpose\"; exit 1"_s;
    case ShellKind::None:
        break;
    }
    return std::nullopt;
}

QString lastUserPrompt(const QJsonArray &messages)
{
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        const QJsonObject message = messages.at(i).toObject();
        if (message.value(u"role"_s).toString() == u"user")
            return message.value(u"content"_s).toString();
    }
    return {};
}

QString fenced(QString output)
{
    constexpr qsizetype limit = 2000;
    if (output.size() > limit)
        output = output.left(limit) + u"\n…"_s;
    while (output.endsWith(u'\n'))
        output.chop(1);
    const QString fence = output.contains(u"```"_s) ? u"~~~~"_s : u"```"_s;
    return fence + u'\n' + output + u'\n' + fence;
}

QString firstTurnText(bool chinese)
{
    if (chinese) {
        return u"这是离线演示：一个代替真实模型的脚本。我来带你走一遍智能体循环——我不直接回答，"
               u"而是请应用用 `shell` 工具运行一条无害的命令。应用会先把这次调用展示给你，"
               u"只有你选择“允许”才会运行。"_s;
    }
    return u"This is the offline demo, a scripted stand-in for a real model. Let me show you one "
           u"trip around the agent loop: instead of answering right away, I am asking the app to "
           u"run a harmless command with the `shell` tool. The app shows you the call first and "
           u"runs it only if you choose Allow."_s;
}

QString loopSteps(bool chinese, bool denied)
{
    if (chinese) {
        return u"这就是智能体循环完整的一圈：\n"
               u"1. 你的提示词连同 `shell` 工具的定义一起发给了模型（也就是这个演示）。\n"
               u"2. 模型没有直接回答，而是返回了一个工具调用，所以循环继续。\n"_s
               + (denied ? u"3. 应用把调用展示给你；你选择了“否”，所以什么都没有运行。\n"_s
                         : u"3. 应用把调用展示给你，在你批准之后才运行。\n"_s)
               + u"4. 结果以 `tool` 消息的形式回到模型，模型不再调用工具、直接回答——循环就此结束。"_s;
    }
    return u"That was one full trip around the agent loop:\n"
           u"1. Your prompt went to the model (this demo) together with the definition of the "
           u"`shell` tool.\n"
           u"2. The model answered with a tool call instead of text, so the loop went on.\n"_s
           + (denied ? u"3. The app showed you the call; you chose No, so nothing ran.\n"_s
                     : u"3. The app showed you the call and ran it only after you approved it.\n"_s)
           + u"4. The result came back to the model as a `tool` message, and the model answered "
             u"without calling a tool, which is what ends the loop."_s;
}

QString closingText(bool chinese, bool denied)
{
    if (chinese) {
        return (denied ? u"再问一次并选择“允许”，就能看到命令真正运行。"_s : QString())
               + u"打开检查器可以看到每一次请求和响应的原始 JSON。要使用真实模型，请打开设置，"
                 u"取消勾选演示，并填写 Base URL、API 密钥和模型。"_s;
    }
    return (denied ? u"Ask again and choose Allow to see the command run. "_s : QString())
           + u"Open the inspector to read every request and response as raw JSON. To work with a "
             u"real model, open the settings, untick the demo and enter a base URL, an API key "
             u"and a model."_s;
}

QString finalAnswer(const QString &toolResult, bool chinese)
{
    // Tool failures reach the model as "<error_code>: <detail>" (see ToolResult).
    static const QRegularExpression errorCode(u"^[a-z]+(_[a-z]+)+: "_s);
    const bool denied = toolResult.startsWith(u"denied:"_s);
    QString opening;
    if (denied && chinese) {
        opening = u"什么都没有运行：你拒绝了这次 `shell` 调用，应用用一条 `tool` 消息告诉了我：\n\n"_s
                  + fenced(toolResult)
                  + u"\n\n拒绝也是一种回答：循环带着它继续，由模型决定下一步——在这里，"
                    u"它停下来解释。"_s;
    } else if (denied) {
        opening = u"Nothing ran: you declined the `shell` call, and the app told me so in a "
                  u"`tool` message:\n\n"_s
                  + fenced(toolResult)
                  + u"\n\nA denial is an answer too: the loop goes on with it, and the model "
                    u"decides what to do next; here, it stops and explains."_s;
    } else if (errorCode.match(toolResult).hasMatch() && chinese) {
        opening = u"命令没有成功，但它的结果照样回到了我这里——工具失败是模型读取的数据，"
                  u"而不是崩溃：\n\n"_s
                  + fenced(toolResult);
    } else if (errorCode.match(toolResult).hasMatch()) {
        opening = u"The command did not succeed, but its result came back to me all the same: "
                  u"tool failures are data the model reads, not crashes.\n\n"_s
                  + fenced(toolResult);
    } else if (chinese) {
        opening = u"命令已经运行，输出如下：\n\n"_s + fenced(toolResult);
    } else {
        opening = u"The command ran, and this is what it printed:\n\n"_s + fenced(toolResult);
    }
    return opening + u"\n\n"_s + loopSteps(chinese, denied) + u"\n\n"_s
           + closingText(chinese, denied);
}

QJsonObject completion(int serial,
                       const QJsonObject &message,
                       const QString &finishReason,
                       qsizetype requestSize)
{
    const qint64 completionChars = QJsonDocument(message).toJson(QJsonDocument::Compact).size();
    const qint64 promptTokens = requestSize / 4 + 1;
    const qint64 completionTokens = completionChars / 4 + 1;
    return QJsonObject{
            {u"id"_s, u"chatcmpl-demo-%1"_s.arg(serial)},
            {u"object"_s, u"chat.completion"_s},
            {u"created"_s, QDateTime::currentSecsSinceEpoch()},
            {u"model"_s, QString::fromLatin1(demoModelName)},
            {u"choices"_s,
             QJsonArray{QJsonObject{{u"index"_s, 0},
                                    {u"message"_s, message},
                                    {u"finish_reason"_s, finishReason}}}},
            {u"usage"_s,
             QJsonObject{{u"prompt_tokens"_s, promptTokens},
                         {u"completion_tokens"_s, completionTokens},
                         {u"total_tokens"_s, promptTokens + completionTokens}}},
    };
}

QJsonObject assistantText(const QString &text)
{
    return QJsonObject{{u"role"_s, u"assistant"_s}, {u"content"_s, text}};
}

QByteArray errorBody(const QString &message, const QString &type)
{
    return QJsonDocument(QJsonObject{{u"error"_s,
                                      QJsonObject{{u"message"_s, message},
                                                  {u"type"_s, type},
                                                  {u"param"_s, QJsonValue::Null},
                                                  {u"code"_s, QJsonValue::Null}}}})
            .toJson(QJsonDocument::Compact);
}

QJsonObject toolCall(const QString &id, const QString &name, const QJsonObject &arguments)
{
    return QJsonObject{
            {u"id"_s, id},
            {u"type"_s, u"function"_s},
            {u"function"_s,
             QJsonObject{{u"name"_s, name},
                         {u"arguments"_s,
                          QString::fromUtf8(
                                  QJsonDocument(arguments).toJson(QJsonDocument::Compact))}}},
    };
}

QJsonObject assistantCalls(const QString &text, const QJsonArray &calls)
{
    return QJsonObject{{u"role"_s, u"assistant"_s},
                       {u"content"_s, text.isEmpty() ? QJsonValue(QJsonValue::Null) : text},
                       {u"tool_calls"_s, calls}};
}

// The tool messages since the last assistant message, in order.
QList<QJsonObject> lastToolMessages(const QJsonArray &messages)
{
    QList<QJsonObject> tools;
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        const QJsonObject message = messages.at(i).toObject();
        if (message.value(u"role"_s).toString() != u"tool")
            break;
        tools.prepend(message);
    }
    return tools;
}

QString toolCount(const QList<QJsonObject> &tools, bool chinese)
{
    static const QRegularExpression errorCode(u"^([a-z]+(_[a-z]+)+): "_s);
    QStringList lines;
    int failures = 0;
    for (const QJsonObject &tool : tools) {
        const QString id = tool.value(u"tool_call_id"_s).toString();
        const QRegularExpressionMatch match = errorCode.match(tool.value(u"content"_s).toString());
        if (match.hasMatch())
            ++failures;
        lines << (chinese ? u"- `%1`：%2"_s : u"- `%1`: %2"_s)
                         .arg(id,
                              match.hasMatch() ? match.captured(1)
                                               : (chinese ? u"成功"_s : u"ok"_s));
    }
    if (chinese) {
        return u"我请求了 %1 个工具调用，历史里就有 %1 条 `tool` 消息，每个 id 一条，失败的也算（%2 个失败）：\n"_s
                       .arg(tools.size())
                       .arg(failures)
               + lines.join(u'\n');
    }
    return u"I asked for %1 tool calls, and the history holds %1 `tool` messages, one per id, the "
           u"failed ones too (%2 failed):\n"_s.arg(tools.size())
                   .arg(failures)
           + lines.join(u'\n');
}

// One step of a scripted case (DemoScript), or nullopt for the tour.
std::optional<QJsonObject> scriptedMessage(DemoScript script,
                                           const QJsonObject &request,
                                           bool chinese,
                                           int serial)
{
    const QJsonArray messages = request.value(u"messages"_s).toArray();
    const QString role = messages.isEmpty()
                                 ? QString()
                                 : messages.last().toObject().value(u"role"_s).toString();
    const QJsonArray tools = request.value(u"tools"_s).toArray();
    const auto id = [serial](int n) {
        return u"call_%1_%2"_s.arg(serial).arg(n);
    };
    switch (script) {
    case DemoScript::Tour:
        return std::nullopt;
    case DemoScript::PlainText:
        return QJsonObject{{u"role"_s, u"assistant"_s},
                           {u"content"_s, u"好的"_s},
                           {u"tool_calls"_s, QJsonArray()}};
    case DemoScript::NullContent:
        return QJsonObject{{u"role"_s, u"assistant"_s},
                           {u"content"_s, QJsonValue::Null},
                           {u"tool_calls"_s, QJsonArray()}};
    case DemoScript::FailingCommand:
        if (role == u"user") {
            if (const std::optional<QString> command = failingCommand(tools)) {
                return assistantCalls(chinese ? u"我来运行一条注定失败的命令。"_s
                                              : u"Let me run a command that fails."_s,
                                      {toolCall(id(1),
                                                u"shell"_s,
                                                QJsonObject{{u"command"_s, *command}})});
            }
        }
        break;
    case DemoScript::ThreeCallsOneFails:
        if (role == u"user") {
            return assistantCalls(
                    chinese ? u"我一次请求三个读取调用，其中一个读的是不存在的文件。"_s
                            : u"Three read calls at once; one of them reads a file that is not "
                              u"there."_s,
                    {toolCall(id(1), u"list_dir"_s, QJsonObject{{u"path"_s, u"."_s}}),
                     toolCall(id(2),
                              u"read_file"_s,
                              QJsonObject{{u"path"_s, u"no-such-file-agentloop-experiment.txt"_s}}),
                     toolCall(id(3), u"list_dir"_s, QJsonObject{})});
        }
        break;
    case DemoScript::ThreeReads:
        if (role == u"user") {
            return assistantCalls(chinese ? u"我在一次请求里调用三个工具。"_s
                                          : u"Three tool calls in one request."_s,
                                  {toolCall(id(1), u"list_dir"_s, QJsonObject{{u"path"_s, u"."_s}}),
                                   toolCall(id(2), u"list_dir"_s, QJsonObject{}),
                                   toolCall(id(3), u"list_dir"_s, QJsonObject{{u"path"_s, u"."_s}})});
        }
        break;
    case DemoScript::UnknownTool:
        if (role == u"user") {
            return assistantCalls(chinese ? u"我调用一个这次请求没有提供的工具。"_s
                                          : u"I call a tool this request did not offer."_s,
                                  {toolCall(id(1),
                                            u"deploy"_s,
                                            QJsonObject{{u"target"_s, u"production"_s}})});
        }
        break;
    }
    if (role == u"tool") {
        const QList<QJsonObject> results = lastToolMessages(messages);
        if (script == DemoScript::UnknownTool) {
            return assistantText(
                    chinese ? u"`deploy` 不在这次请求的工具快照里，所以它被回答为 "
                              u"`unknown_tool`，什么都没有运行：\n\n"_s
                                      + fenced(results.value(0).value(u"content"_s).toString())
                            : u"`deploy` was not in this request's tool snapshot, so it was "
                              u"answered `unknown_tool` and nothing ran:\n\n"_s
                                      + fenced(results.value(0).value(u"content"_s).toString()));
        }
        if (script == DemoScript::FailingCommand)
            return assistantText(
                    finalAnswer(results.value(0).value(u"content"_s).toString(), chinese));
        return assistantText(toolCount(results, chinese));
    }
    return assistantText(chinese ? u"这个脚本化的实验需要它的工具，但这次请求没有提供。"_s
                                 : u"This scripted case needs its tools, but the request did not "
                                   u"offer them."_s);
}

// The demo model: reads the conversation, answers the next step of the walk-through.
QByteArray chatCompletion(const QByteArray &requestBody)
{
    const QJsonObject request = QJsonDocument::fromJson(requestBody).object();
    const QJsonArray messages = request.value(u"messages"_s).toArray();
    const bool chinese = hasChinese(lastUserPrompt(messages));
    const int serial = int(std::count_if(messages.begin(),
                                         messages.end(),
                                         [](const QJsonValue &m) {
                                             return m.toObject().value(u"role"_s).toString()
                                                    == u"assistant";
                                         }))
                       + 1;
    const QJsonObject last = messages.isEmpty() ? QJsonObject() : messages.last().toObject();
    const QString role = last.value(u"role"_s).toString();

    const DemoScript script = scriptOf(request.value(u"model"_s).toString());
    if (const std::optional<QJsonObject> scripted = scriptedMessage(script,
                                                                    request,
                                                                    chinese,
                                                                    serial)) {
        const bool calls = !scripted->value(u"tool_calls"_s).toArray().isEmpty();
        return QJsonDocument(completion(serial,
                                        *scripted,
                                        calls ? u"tool_calls"_s : u"stop"_s,
                                        requestBody.size()))
                .toJson(QJsonDocument::Compact);
    }

    QJsonObject message;
    QString finishReason = u"stop"_s;
    if (role == u"user") {
        if (const std::optional<QString> command = demoCommand(
                    request.value(u"tools"_s).toArray())) {
            const QJsonObject call{
                    {u"id"_s, u"call_demo_%1"_s.arg(serial)},
                    {u"type"_s, u"function"_s},
                    {u"function"_s,
                     QJsonObject{{u"name"_s, u"shell"_s},
                                 {u"arguments"_s,
                                  QString::fromUtf8(
                                          QJsonDocument(QJsonObject{{u"command"_s, *command}})
                                                  .toJson(QJsonDocument::Compact))}}},
            };
            message = QJsonObject{{u"role"_s, u"assistant"_s},
                                  {u"content"_s, firstTurnText(chinese)},
                                  {u"tool_calls"_s, QJsonArray{call}}};
            finishReason = u"tool_calls"_s;
        } else {
            message = assistantText(
                    chinese ? u"这个演示需要 `shell` 工具，但这次请求没有提供任何工具，"
                              u"所以我只能用文字回答。"_s
                            : u"This demo needs the `shell` tool, but the request offered no "
                              u"tools, so I can only answer in text."_s);
        }
    } else if (role == u"tool") {
        message = assistantText(finalAnswer(last.value(u"content"_s).toString(), chinese));
    } else {
        message = assistantText(chinese ? u"给我一个任务，我会演示智能体循环是怎样工作的。"_s
                                        : u"Give me a task and I will show you how the agent "
                                          u"loop works."_s);
    }
    return QJsonDocument(completion(serial, message, finishReason, requestBody.size()))
            .toJson(QJsonDocument::Compact);
}

QByteArray modelList()
{
    const QJsonObject model{{u"id"_s, QString::fromLatin1(demoModelName)},
                            {u"object"_s, u"model"_s},
                            {u"created"_s, 0},
                            {u"owned_by"_s, u"agentloop"_s}};
    return QJsonDocument(QJsonObject{{u"object"_s, u"list"_s}, {u"data"_s, QJsonArray{model}}})
            .toJson(QJsonDocument::Compact);
}

} // namespace

QUrl demoBaseUrl()
{
    return QUrl(u"demo://agentloop/v1"_s);
}

QString demoModelFor(DemoScript script)
{
    for (const ScriptName &name : scriptNames) {
        if (name.script == script)
            return QString::fromLatin1(demoModelName) + QString::fromUtf16(name.suffix);
    }
    return QString::fromLatin1(demoModelName);
}

ProviderSettings demoProviderSettings(DemoScript script)
{
    ProviderSettings settings;
    settings.baseUrl = demoBaseUrl();
    settings.model = demoModelFor(script);
    return settings;
}

bool isDemoUrl(const QUrl &url)
{
    const QUrl base = demoBaseUrl();
    return url.scheme() == base.scheme() && url.host() == base.host();
}

DemoNetworkAccessManager::DemoNetworkAccessManager(QObject *parent)
    : QNetworkAccessManager(parent)
{}

void DemoNetworkAccessManager::setLatency(std::chrono::milliseconds minimum,
                                          std::chrono::milliseconds maximum)
{
    m_minimumLatency = std::max(minimum, std::chrono::milliseconds(0));
    m_maximumLatency = std::max(maximum, m_minimumLatency);
}

QNetworkReply *DemoNetworkAccessManager::createRequest(Operation operation,
                                                       const QNetworkRequest &request,
                                                       QIODevice *outgoingData)
{
    if (!isDemoUrl(request.url()))
        return QNetworkAccessManager::createRequest(operation, request, outgoingData);

    QByteArray verb;
    switch (operation) {
    case GetOperation:
        verb = "GET";
        break;
    case PostOperation:
        verb = "POST";
        break;
    case CustomOperation:
        verb = request.attribute(QNetworkRequest::CustomVerbAttribute).toByteArray();
        break;
    default:
        break;
    }
    const QByteArray body = outgoingData ? outgoingData->readAll() : QByteArray();

    QString path = request.url().path();
    while (path.endsWith(u'/'))
        path.chop(1);
    int status = 200;
    QByteArray answer;
    if (verb == "POST" && path.endsWith(u"/chat/completions"_s)) {
        answer = chatCompletion(body);
    } else if (verb == "GET" && path.endsWith(u"/models"_s)) {
        answer = modelList();
    } else {
        status = 404;
        answer = errorBody(u"The offline demo has no %1 %2."_s.arg(QString::fromLatin1(verb), path),
                           u"invalid_request_error"_s);
    }
    const auto delay = std::chrono::milliseconds(
            QRandomGenerator::global()->bounded(int(m_minimumLatency.count()),
                                                int(m_maximumLatency.count()) + 1));
    return new DemoReply(operation, request, status, std::move(answer), delay, this);
}

} // namespace AgentLoop
