// agentloop-bench: the core's benchmarks (cases 1, 2, 6, 7 and 8 of issue 5, 9 of issue 17) and the loopback
// server the stream case and its peers read from. bench/run.sh drives it; see bench/README.md.
//
//   agentloop-bench serve --bytes N --info FILE   serve the SSE stream on 127.0.0.1 until killed
//   agentloop-bench stream --url URL --runs N     case 1: ChatClient throughput
//   agentloop-bench drain --url URL --runs N      case 1: QNAM alone, readAll() and discard
//   agentloop-bench request --runs N --dump DIR   case 2: requestBody(); writes the bodies to DIR
//   agentloop-bench tool --runs N                 case 6: shell tool vs QProcess
//   agentloop-bench grep --runs N [--files N] [--bytes N] [--dir DIR]
//                                                 case 7: grep tool vs GNU grep and ripgrep
//   agentloop-bench read --runs N [--bytes N] [--dir DIR]
//                                                 case 8: read_file of a large file
//   agentloop-bench context --runs N              case 9: compaction planning, token accounting

#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "benchserver.h"
#include "contextcase.h"
#include "filecases.h"
#include "historygen.h"
#include "output.h"
#include "provider/chatclient.h"
#include "streamgen.h"
#include "tools/commandrunner.h"
#include "tools/shelltool.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using namespace AgentLoop::Bench;

namespace {

int serve(qsizetype bytes, const QString &infoPath)
{
    StreamSummary summary;
    const QByteArray body = generateStream(bytes, &summary);
    BenchServer server(body);
    if (!server.listenOnLoopback()) {
        note(u"serve: cannot listen on 127.0.0.1: %1"_s.arg(server.errorString()));
        return 1;
    }
    const QJsonObject info{
            {u"port"_s, server.serverPort()},
            {u"bytes"_s, double(body.size())},
            {u"events"_s, summary.events},
            {u"contentChars"_s, double(summary.contentChars)},
            {u"toolCalls"_s, summary.toolCalls},
            {u"argumentsChars"_s, double(summary.argumentsChars)},
    };
    // Written to a temporary name and renamed, so that a reader never sees half of it.
    QFile file(infoPath + u".tmp"_s);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(QJsonDocument(info).toJson(QJsonDocument::Compact)) < 0) {
        note(u"serve: cannot write %1"_s.arg(infoPath));
        return 1;
    }
    file.close();
    QFile::remove(infoPath);
    QFile::rename(file.fileName(), infoPath);
    return QCoreApplication::exec();
}

// What case 1 posts, to ChatClient and to the bare QNetworkAccessManager alike.
const QByteArray streamRequest = R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],)"
                                 R"("stream":true,"stream_options":{"include_usage":true}})";

void printThroughput(qint64 bytes, double seconds, const QString &subject)
{
    printSample(u"1-stream"_s,
                u"throughput"_s,
                u"MB/s"_s,
                double(bytes) / 1e6 / seconds,
                true,
                subject);
}

// Case 1: postChatCompletion with a streamed answer, until completed().
int stream(const QUrl &baseUrl, int runs, qint64 bytes)
{
    ChatClient client;
    ProviderSettings settings;
    settings.baseUrl = baseUrl;
    // As long as a real key: the response is searched for it (redaction), and how fast depends on
    // its length.
    settings.apiKey = u"sk-bench-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"_s;
    settings.model = u"gpt-4o"_s;
    settings.stream = true;
    settings.retry.maxRetries = 0;
    // The 64 MiB stream carries a few bytes of framing past the default answer limit (64 MiB):
    // the case measures reading, not that limit.
    settings.maxResponseBytes = std::max(settings.maxResponseBytes, bytes + 1024 * 1024);
    client.setSettings(settings);
    for (int run = 0; run < runs; ++run) {
        QEventLoop loop;
        std::optional<Completion> result;
        std::optional<Error> error;
        const auto done = QObject::connect(&client,
                                           &ChatClient::completed,
                                           &loop,
                                           [&](const Completion &c) {
                                               result = c;
                                               loop.quit();
                                           });
        const auto fail = QObject::connect(&client, &ChatClient::failed, &loop, [&](const Error &e) {
            error = e;
            loop.quit();
        });
        QElapsedTimer clock;
        clock.start();
        client.postChatCompletion(1, streamRequest);
        loop.exec();
        const double seconds = double(clock.nsecsElapsed()) / 1e9;
        QObject::disconnect(done);
        QObject::disconnect(fail);
        if (!result) {
            note(u"stream: failed: %1"_s.arg(error ? error->message : u"?"_s));
            return 1;
        }
        qsizetype arguments = 0;
        for (const ToolCall &call : result->message.toolCalls())
            arguments += call.arguments.size();
        note(u"stream run %1: %2 s, content %3 chars, %4 tool calls, arguments %5 chars"_s
                     .arg(run + 1)
                     .arg(seconds, 0, 'f', 3)
                     .arg(result->message.content().size())
                     .arg(result->message.toolCalls().size())
                     .arg(arguments));
        printThroughput(bytes, seconds, u"agentloop"_s);
    }
    return 0;
}

// Case 1's ceiling for any QNAM client: the same request and bytes, with QNetworkAccessManager
// doing its own HTTP and chunked decoding and the client nothing but readAll() and discard.
int drain(const QUrl &baseUrl, int runs, qint64 bytes)
{
    QNetworkAccessManager network;
    for (int run = 0; run < runs; ++run) {
        QNetworkRequest post(ChatClient::endpoint(baseUrl, u"/chat/completions"_s));
        post.setRawHeader("Content-Type", "application/json");
        QEventLoop loop;
        qint64 received = 0;
        QElapsedTimer clock;
        clock.start();
        QNetworkReply *reply = network.post(post, streamRequest);
        QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
            received += reply->readAll().size();
        });
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        received += reply->readAll().size();
        const double seconds = double(clock.nsecsElapsed()) / 1e9;
        const bool ok = reply->error() == QNetworkReply::NoError && received == bytes;
        const QString error = reply->errorString();
        reply->deleteLater();
        if (!ok) {
            note(u"drain: got %1 of %2 bytes: %3"_s.arg(received).arg(bytes).arg(error));
            return 1;
        }
        note(u"drain run %1: %2 s"_s.arg(run + 1).arg(seconds, 0, 'f', 3));
        printThroughput(bytes, seconds, u"qnam-drain"_s);
    }
    return 0;
}

// Case 2: requestBody() for the next turn of long histories.
int request(int runs, const QString &dumpDir)
{
    constexpr qsizetype toolOutput = 20 * 1000 * 1000;
    constexpr qsizetype newOutput = 4 * 1024;
    QTemporaryDir workspace;
    for (const int count : {100, 1000, 5000}) {
        const History history = makeHistory(count, toolOutput);
        History next = history;
        next.append(nextToolMessage(history, newOutput));

        AgentController controller;
        ShellToolOptions options;
        options.workspace = workspace.path();
        installStandardTools(controller, std::make_shared<ProcessCommandRunner>(), options);
        ProviderSettings settings;
        settings.baseUrl = QUrl(u"http://127.0.0.1:9/v1"_s);
        settings.model = u"gpt-4o"_s;
        controller.setProvider(settings);
        const ToolSnapshot snapshot = controller.tools().snapshot();

        QByteArray body;
        for (int run = 0; run < runs; ++run) {
            // The turn before: the app has already sent this history once.
            controller.setHistory(history);
            body = controller.requestBody(snapshot);
            // This turn: one more message.
            controller.setHistory(next);
            QElapsedTimer clock;
            clock.start();
            body = controller.requestBody(snapshot);
            const double ms = double(clock.nsecsElapsed()) / 1e6;
            printSample(u"2-request"_s, u"build-%1"_s.arg(count), u"ms"_s, ms, false, u"agentloop"_s);
        }
        note(u"request %1 messages: body %2 bytes"_s.arg(next.size()).arg(body.size()));
        if (!dumpDir.isEmpty()) {
            QFile file(QDir(dumpDir).filePath(u"request-%1.json"_s.arg(count)));
            if (!file.open(QIODevice::WriteOnly) || file.write(body) != body.size()) {
                note(u"request: cannot write %1"_s.arg(file.fileName()));
                return 1;
            }
        }
    }
    return 0;
}

// Case 6: prepare + invoke of the shell tool vs a bare QProcess, `echo hi`, to finished().
int tool(int runs, int iterations)
{
    QTemporaryDir workspace;
    ShellToolOptions options;
    options.workspace = workspace.path();
    const ShellTool shell(std::make_shared<ProcessCommandRunner>(), options);
    const ToolCall call{u"call_1"_s, u"shell"_s, uR"({"command":"echo hi"})"_s};

    const auto viaTool = [&]() -> bool {
        const Preparation preparation = shell.prepare(call);
        const auto *prepared = std::get_if<PreparedCall>(&preparation);
        if (!prepared)
            return false;
        QEventLoop loop;
        bool ok = false;
        ToolRun *toolRun = shell.invoke(*prepared, &loop);
        QObject::connect(toolRun, &ToolRun::finished, &loop, [&](const ToolResult &result) {
            ok = result.ok && result.content.contains(u"hi"_s);
            loop.quit();
        });
        loop.exec();
        return ok;
    };
    const auto viaQProcess = [&]() -> bool {
        QEventLoop loop;
        QProcess process;
        process.setWorkingDirectory(workspace.path());
        QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
        process.start(u"/bin/sh"_s, {u"-c"_s, u"echo hi"_s});
        loop.exec();
        return process.exitCode() == 0 && process.readAllStandardOutput() == "hi\n";
    };

    // Warm up both paths (dynamic loading, first fork).
    if (!viaTool() || !viaQProcess()) {
        note(u"tool: `echo hi` did not succeed"_s);
        return 1;
    }
    for (int run = 0; run < runs; ++run) {
        qint64 toolNs = 0;
        qint64 processNs = 0;
        QElapsedTimer clock;
        for (int i = 0; i < iterations; ++i) { // interleaved, so drift hits both alike
            clock.start();
            viaTool();
            toolNs += clock.nsecsElapsed();
            clock.start();
            viaQProcess();
            processNs += clock.nsecsElapsed();
        }
        printSample(u"6-tool"_s,
                    u"echo"_s,
                    u"ms"_s,
                    double(toolNs) / 1e6 / iterations,
                    false,
                    u"agentloop"_s);
        printSample(u"6-tool"_s,
                    u"echo"_s,
                    u"ms"_s,
                    double(processNs) / 1e6 / iterations,
                    false,
                    u"qprocess"_s);
    }
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Agent Loop core benchmarks (see bench/README.md)"_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"mode"_s, u"serve, stream, drain, request, tool, grep or read"_s);
    const QCommandLineOption bytesOption(u"bytes"_s,
                                         u"Size of the SSE stream (64 MiB), of grep's tree "
                                         u"(200 MB) or of read's file (100 MB)."_s,
                                         u"n"_s);
    const QCommandLineOption infoOption(u"info"_s,
                                        u"serve: where to write port and size."_s,
                                        u"file"_s);
    const QCommandLineOption urlOption(u"url"_s,
                                       u"stream, drain: the server's base URL."_s,
                                       u"url"_s);
    const QCommandLineOption runsOption(u"runs"_s, u"Samples per figure."_s, u"n"_s, u"5"_s);
    const QCommandLineOption iterationsOption(u"iterations"_s,
                                              u"tool: spawns per sample."_s,
                                              u"n"_s,
                                              u"40"_s);
    const QCommandLineOption dumpOption(u"dump"_s,
                                        u"request: directory for the bodies."_s,
                                        u"dir"_s);
    const QCommandLineOption filesOption(u"files"_s,
                                         u"grep: files in the tree."_s,
                                         u"n"_s,
                                         u"20000"_s);
    const QCommandLineOption dirOption(u"dir"_s,
                                       u"grep, read: generate into this folder and reuse what "
                                       u"is there (default: a temporary folder)."_s,
                                       u"dir"_s);
    parser.addOptions({bytesOption,
                       infoOption,
                       urlOption,
                       runsOption,
                       iterationsOption,
                       dumpOption,
                       filesOption,
                       dirOption});
    parser.process(app);

    const QString mode = parser.positionalArguments().value(0);
    const int runs = parser.value(runsOption).toInt();
    const auto bytes = [&](qint64 byDefault) {
        return parser.isSet(bytesOption) ? parser.value(bytesOption).toLongLong() : byDefault;
    };
    constexpr qint64 streamBytes = 64 * 1024 * 1024;
    if (mode == u"serve")
        return serve(bytes(streamBytes), parser.value(infoOption));
    if (mode == u"stream")
        return stream(QUrl(parser.value(urlOption)), runs, bytes(streamBytes));
    if (mode == u"drain")
        return drain(QUrl(parser.value(urlOption)), runs, bytes(streamBytes));
    if (mode == u"request")
        return request(runs, parser.value(dumpOption));
    if (mode == u"context")
        return contextCase(runs);
    if (mode == u"tool")
        return tool(runs, parser.value(iterationsOption).toInt());
    if (mode == u"grep" || mode == u"read") {
        FileCaseOptions options;
        options.runs = runs;
        options.files = parser.value(filesOption).toInt();
        options.bytes = bytes(mode == u"grep" ? 200'000'000 : 100'000'000);
        options.keepDir = parser.value(dirOption);
        return mode == u"grep" ? grepCase(options) : readFileCase(options);
    }
    parser.showHelp(2);
}
