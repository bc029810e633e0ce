// agentloop-fakeprovider: the seed's example as a provider, for checking an installed app end to
// end (packaging/windows/smoke-test.sh) without a real model.
//
//   agentloop-fakeprovider --port-file FILE --log FILE
//
// Listens on 127.0.0.1 on a free port and writes "http://127.0.0.1:<port>/v1" to the port file.
// The first chat request of a conversation gets a shell tool call that prints 42 in the shell
// the tool's description names (Write-Output for PowerShell, echo otherwise), the way a model
// reading that description would; a request that carries the tool's result gets the final
// answer, which says whether the result was 42. Every chat request body is appended to the log
// as one JSON line, exactly as received.

#include "fakechatserver.h"
#include "testjson.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

#include <cstdio>

using namespace Qt::StringLiterals;
using AgentLoop::FakeChatServer;
using AgentLoop::FakeResponse;
using AgentLoop::RecordedRequest;

namespace {

const QString seedCallId = u"call_abc123"_s;

// The command a model would choose for the shell the request's "shell" tool describes.
QString printFortyTwo(const QJsonArray &tools)
{
    for (const QJsonValue &tool : tools) {
        const QJsonObject function = tool[u"function"_s].toObject();
        if (function[u"name"_s].toString() == u"shell"
            && function[u"description"_s].toString().contains(u"PowerShell"_s))
            return u"Write-Output 42"_s;
    }
    return u"echo 42"_s;
}

FakeResponse answer(const RecordedRequest &request)
{
    const QList<QJsonObject> results = request.toolMessages();
    if (results.isEmpty()) {
        const QString command = printFortyTwo(request.json()[u"tools"_s].toArray());
        return FakeResponse::toolCall(seedCallId, u"shell"_s, AgentLoop::shellArguments(command));
    }
    const QJsonObject result = results.last();
    const QString output = result[u"content"_s].toString().trimmed();
    if (result[u"tool_call_id"_s].toString() == seedCallId && output == u"42")
        return FakeResponse::answer(u"命令执行成功,输出是 42。"_s);
    return FakeResponse::answer(u"命令的结果不是 42:"_s + output);
}

bool writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode)
{
    QFile file(path);
    return file.open(mode) && file.write(bytes) == bytes.size() && file.flush();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption portFile(u"port-file"_s, u"Where to write the base URL."_s, u"file"_s);
    const QCommandLineOption log(u"log"_s, u"Where to append each chat request body."_s, u"file"_s);
    parser.addOptions({portFile, log});
    parser.process(app);
    if (!parser.isSet(portFile) || !parser.isSet(log)) {
        std::fputs("agentloop-fakeprovider: --port-file and --log are required\n", stderr);
        return 2;
    }

    FakeChatServer server;
    if (!server.isListening()) {
        std::fputs("agentloop-fakeprovider: cannot listen on 127.0.0.1\n", stderr);
        return 1;
    }
    const QString logPath = parser.value(log);
    server.setHandler([logPath](const RecordedRequest &request) {
        if (request.path != "/v1/chat/completions")
            return FakeResponse::httpError(404, u"Only /v1/chat/completions is served here"_s);
        writeFile(logPath, request.body + '\n', QIODevice::Append);
        return answer(request);
    });
    if (!writeFile(parser.value(portFile),
                   server.baseUrl().toString().toUtf8(),
                   QIODevice::WriteOnly | QIODevice::Truncate)) {
        std::fputs("agentloop-fakeprovider: cannot write the port file\n", stderr);
        return 1;
    }
    return app.exec();
}
