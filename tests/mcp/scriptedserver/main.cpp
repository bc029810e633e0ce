// agentloop-mcp-scripted: a small MCP server on stdio whose behaviour the tests choose, for what
// real servers cannot be made to do on demand (speak one era only, crash, stay silent).
//
//   agentloop-mcp-scripted [--era modern|legacy|both] [--probe-silent] [--probe-late]
//                          [--crash-at-start]
//                          [--crash-on-call] [--never-answer] [--stderr N] [--list-changed-early]
//                          [--tools N] [--page-size N] [--ttl MS] [--elicit] [--print-env NAME]
//                          [--banner] [--slow-start MS] [--ask-more] [--progress] [--log FILE]
//
// Modern (2026-07-28): answers server/discover and requires the protocol version and client
// capabilities in every request's _meta; asks for input with resultType "input_required".
// Legacy (2025-11-25): answers server/discover with -32601 (with --probe-silent not at all, with
// --probe-late only once the next message came) and requires initialize and
// notifications/initialized first; asks with server-to-client
// requests. Both: answers either way.
//
// Tools: echo {message}; tool_1 … tool_N; late (from the second listing on, with
// --list-changed-early); sample (asks for sampling, returns what it got); roots
// (asks for the client's roots); elicit (with --elicit: asks the user for a name); print_env
// {name?} (with --print-env: the variable's value, or "<unset>"); progress (with --progress:
// reports 1 of 2 "halfway" and 2 of 2 "done" for the call's progressToken, then answers).
//
// Reads stdin line by line with blocking reads (readLine()): a test tool, not product code.

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>

#ifdef Q_OS_WIN
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#endif

using namespace Qt::StringLiterals;

namespace {

// One line of standard input, without its line break; false at its end.
#ifdef Q_OS_WIN
// QProcess hands a child the client end of an overlapped pipe. A read without an OVERLAPPED on
// such a handle (the C runtime's) may come back at once with ERROR_IO_PENDING and nothing read,
// which the runtime takes for the end of input: Wine does that now and then when the pipe is
// empty. This reads with an OVERLAPPED and waits, which is right for either kind of handle.
bool readLine(std::string &line)
{
    static std::string buffered;
    static HANDLE input = GetStdHandle(STD_INPUT_HANDLE);
    static HANDLE readDone = CreateEventW(nullptr, TRUE, FALSE, nullptr);
    for (;;) {
        if (const size_t end = buffered.find('\n'); end != std::string::npos) {
            line = buffered.substr(0, end);
            buffered.erase(0, end + 1);
            return true;
        }
        char chunk[65536];
        OVERLAPPED overlapped{};
        overlapped.hEvent = readDone;
        DWORD read = 0;
        if (!ReadFile(input, chunk, sizeof chunk, &read, &overlapped)) {
            if (GetLastError() != ERROR_IO_PENDING
                || !GetOverlappedResult(input, &overlapped, &read, TRUE)) {
                read = 0; // ERROR_BROKEN_PIPE: the client closed it
            }
        } else if (!GetOverlappedResult(input, &overlapped, &read, TRUE)) {
            read = 0;
        }
        if (read == 0) {
            line = std::exchange(buffered, {});
            return !line.empty();
        }
        buffered.append(chunk, read);
    }
}
#else
bool readLine(std::string &line)
{
    return bool(std::getline(std::cin, line));
}
#endif

const QString modernVersion = u"2026-07-28"_s;
const QString legacyVersion = u"2025-11-25"_s;

struct Options
{
    bool modern = true;
    bool legacy = false;
    bool probeSilent = false;
    bool probeLate = false;
    bool crashOnCall = false;
    bool neverAnswer = false;
    bool listChangedEarly = false;
    bool elicit = false;
    bool askMore = false;
    bool progress = false;
    int tools = 0;
    int pageSize = 0;
    int ttlMs = 0;
    QString printEnv;
    QString logPath;
};

class Server
{
public:
    explicit Server(Options options)
        : m_options(std::move(options))
    {}

    void run()
    {
        std::string line;
        while (readLine(line)) {
            const QByteArray bytes = QByteArray::fromStdString(line).trimmed();
            if (bytes.isEmpty())
                continue;
            log(bytes);
            handle(QJsonDocument::fromJson(bytes).object());
        }
        // Why it stops, for a test that did not expect it to.
        std::fputs("agentloop-mcp-scripted: standard input ended\n", stderr);
        std::fflush(stderr);
    }

private:
    using Continuation = std::function<QJsonObject(const QJsonObject &response)>;

    void log(const QByteArray &line)
    {
        if (m_options.logPath.isEmpty())
            return;
        QFile file(m_options.logPath);
        if (file.open(QIODevice::Append))
            file.write(line + '\n');
    }

    static void write(const QJsonObject &message)
    {
        const QByteArray bytes = QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
        std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
        std::fflush(stdout);
    }

    void answer(const QJsonValue &id, QJsonObject result)
    {
        if (m_modernRequest)
            result.insert(u"resultType"_s, result.value(u"resultType"_s).toString(u"complete"_s));
        write({{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}});
    }

    static void error(const QJsonValue &id, int code, const QString &message)
    {
        write({{u"jsonrpc"_s, u"2.0"_s},
               {u"id"_s, id},
               {u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}});
    }

    static QJsonObject text(const QString &text)
    {
        return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}};
    }

    static QString compact(const QJsonObject &object)
    {
        return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
    }

    void handle(const QJsonObject &message)
    {
        const QJsonValue id = message.value(u"id"_s);
        const QString method = message.value(u"method"_s).toString();
        if (method.isEmpty()) {
            // A response to one of our requests.
            const auto it = m_waiting.find(id.toString());
            if (it == m_waiting.end())
                return;
            const auto [callId, continuation] = it->second;
            m_waiting.erase(it);
            answer(callId, continuation(message));
            return;
        }
        if (!m_lateProbe.isUndefined()) // a client that gave up on the probe gets its answer now
            error(std::exchange(m_lateProbe, QJsonValue(QJsonValue::Undefined)),
                  -32601,
                  u"Method not found"_s);
        const QJsonObject params = message.value(u"params"_s).toObject();
        const QJsonObject meta = params.value(u"_meta"_s).toObject();
        m_modernRequest = m_options.modern
                          && meta.value(u"io.modelcontextprotocol/protocolVersion"_s).toString()
                                     == modernVersion;
        if (method == u"notifications/initialized") {
            m_initialized = m_initializeAnswered;
            return;
        }
        if (id.isUndefined() || id.isNull())
            return; // other notifications (cancelled, ...)
        if (method == u"server/discover") {
            if (m_options.modern) {
                answer(id,
                       {{u"supportedVersions"_s, QJsonArray{modernVersion}},
                        {u"capabilities"_s,
                         QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}}},
                        {u"serverInfo"_s,
                         QJsonObject{{u"name"_s, u"scripted"_s}, {u"version"_s, u"1.0"_s}}},
                        {u"instructions"_s, u"Scripted for tests."_s}});
            } else if (m_options.probeLate) {
                m_lateProbe = id;
            } else if (!m_options.probeSilent) {
                error(id, -32601, u"Method not found"_s);
            }
            return;
        }
        if (method == u"initialize") {
            if (!m_options.legacy) {
                error(id, -32601, u"Method not found"_s);
                return;
            }
            m_initializeAnswered = true;
            answer(id,
                   {{u"protocolVersion"_s, legacyVersion},
                    {u"capabilities"_s,
                     QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}}},
                    {u"serverInfo"_s,
                     QJsonObject{{u"name"_s, u"scripted"_s}, {u"version"_s, u"1.0"_s}}}});
            return;
        }
        if (method == u"ping") {
            answer(id, {});
            return;
        }
        if (!m_modernRequest && !m_initialized) {
            error(id,
                  -32600,
                  m_options.modern ? u"Missing _meta protocol version"_s
                                   : u"Server not initialized"_s);
            return;
        }
        if (m_modernRequest
            && !meta.value(u"io.modelcontextprotocol/clientCapabilities"_s).isObject()) {
            error(id, -32602, u"Missing _meta client capabilities"_s);
            return;
        }
        if (method == u"tools/list")
            listTools(id, params);
        else if (method == u"tools/call")
            callTool(id, params);
        else
            error(id, -32601, u"Method not found"_s);
    }

    QJsonArray allTools() const
    {
        const QJsonObject anyObject{{u"type"_s, u"object"_s}};
        QJsonArray tools;
        tools.append(QJsonObject{{u"name"_s, u"echo"_s},
                                 {u"description"_s, u"Echoes the message."_s},
                                 {u"inputSchema"_s,
                                  QJsonObject{{u"type"_s, u"object"_s},
                                              {u"properties"_s,
                                               QJsonObject{{u"message"_s,
                                                            QJsonObject{{u"type"_s, u"string"_s}}}}},
                                              {u"required"_s, QJsonArray{u"message"_s}}}},
                                 {u"annotations"_s, QJsonObject{{u"readOnlyHint"_s, true}}}});
        for (int i = 1; i <= m_options.tools; ++i) {
            tools.append(QJsonObject{{u"name"_s, u"tool_%1"_s.arg(i)},
                                     {u"description"_s, u"Tool number %1."_s.arg(i)},
                                     {u"inputSchema"_s, anyObject}});
        }
        tools.append(QJsonObject{{u"name"_s, u"sample"_s}, {u"inputSchema"_s, anyObject}});
        tools.append(QJsonObject{{u"name"_s, u"roots"_s}, {u"inputSchema"_s, anyObject}});
        if (m_options.elicit)
            tools.append(QJsonObject{{u"name"_s, u"elicit"_s}, {u"inputSchema"_s, anyObject}});
        if (m_options.askMore) {
            tools.append(QJsonObject{{u"name"_s, u"ping"_s}, {u"inputSchema"_s, anyObject}});
            tools.append(QJsonObject{{u"name"_s, u"unknown"_s}, {u"inputSchema"_s, anyObject}});
        }
        if (!m_options.printEnv.isEmpty())
            tools.append(QJsonObject{{u"name"_s, u"print_env"_s}, {u"inputSchema"_s, anyObject}});
        if (m_options.progress)
            tools.append(QJsonObject{{u"name"_s, u"progress"_s}, {u"inputSchema"_s, anyObject}});
        // What the early list_changed announced, offered from the second listing on.
        if (m_options.listChangedEarly && m_listings > 1)
            tools.append(QJsonObject{{u"name"_s, u"late"_s}, {u"inputSchema"_s, anyObject}});
        return tools;
    }

    void listTools(const QJsonValue &id, const QJsonObject &params)
    {
        if (m_options.listChangedEarly && !m_sentListChanged) {
            m_sentListChanged = true;
            write({{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, u"notifications/tools/list_changed"_s}});
        }
        if (!params.contains(u"cursor"_s))
            ++m_listings;
        const QJsonArray tools = allTools();
        const int start = params.value(u"cursor"_s).toString().toInt();
        const int size = m_options.pageSize > 0 ? m_options.pageSize : int(tools.size());
        QJsonObject result{
                {u"tools"_s, QJsonArray::fromVariantList(tools.toVariantList().mid(start, size))}};
        if (start + size < tools.size())
            result.insert(u"nextCursor"_s, QString::number(start + size));
        if (m_options.ttlMs > 0)
            result.insert(u"ttlMs"_s, m_options.ttlMs);
        answer(id, result);
    }

    // Legacy: a request to the client, answered later; modern: an input_required round.
    void ask(const QJsonValue &callId,
             const QJsonObject &params,
             const QString &method,
             const QJsonObject &askParams,
             const std::function<QString(const QJsonObject &answer)> &describe)
    {
        if (m_modernRequest) {
            const QJsonObject responses = params.value(u"inputResponses"_s).toObject();
            if (responses.contains(u"input"_s)) {
                answer(callId,
                       text(describe(responses.value(u"input"_s).toObject()) + u" requestState="_s
                            + params.value(u"requestState"_s).toString()));
                return;
            }
            answer(callId,
                   {{u"resultType"_s, u"input_required"_s},
                    {u"inputRequests"_s,
                     QJsonObject{{u"input"_s,
                                  QJsonObject{{u"method"_s, method}, {u"params"_s, askParams}}}}},
                    {u"requestState"_s, u"state-%1"_s.arg(++m_requests)}});
            return;
        }
        const QString requestId = u"server-%1"_s.arg(++m_requests);
        m_waiting[requestId] = {callId, [describe](const QJsonObject &response) {
                                    if (response.contains(u"error"_s))
                                        return text(describe(response));
                                    return text(describe(response.value(u"result"_s).toObject()));
                                }};
        write({{u"jsonrpc"_s, u"2.0"_s},
               {u"id"_s, requestId},
               {u"method"_s, method},
               {u"params"_s, askParams}});
    }

    void callTool(const QJsonValue &id, const QJsonObject &params)
    {
        if (m_options.crashOnCall) {
            std::fputs("crashing on tools/call\n", stderr);
            std::fflush(stderr);
            std::exit(4);
        }
        if (m_options.neverAnswer)
            return;
        const QString name = params.value(u"name"_s).toString();
        const QJsonObject arguments = params.value(u"arguments"_s).toObject();
        if (name == u"echo") {
            answer(id, text(arguments.value(u"message"_s).toString()));
        } else if (name.startsWith(u"tool_")) {
            answer(id, text(name));
        } else if (name == u"progress" && m_options.progress) {
            const QJsonValue token = params.value(u"_meta"_s)[u"progressToken"_s];
            int step = 0;
            for (const QString &message : {u"halfway"_s, u"done"_s}) {
                write({{u"jsonrpc"_s, u"2.0"_s},
                       {u"method"_s, u"notifications/progress"_s},
                       {u"params"_s,
                        QJsonObject{{u"progressToken"_s, token},
                                    {u"progress"_s, ++step},
                                    {u"total"_s, 2},
                                    {u"message"_s, message}}}});
            }
            answer(id, text(u"progressed"_s));
        } else if (name == u"print_env" && !m_options.printEnv.isEmpty()) {
            const QString variable = arguments.value(u"name"_s).toString(m_options.printEnv);
            answer(id, text(qEnvironmentVariable(variable.toUtf8().constData(), u"<unset>"_s)));
        } else if (name == u"elicit" && m_options.elicit) {
            const QJsonObject schema{{u"type"_s, u"object"_s},
                                     {u"properties"_s,
                                      QJsonObject{
                                              {u"name"_s, QJsonObject{{u"type"_s, u"string"_s}}}}},
                                     {u"required"_s, QJsonArray{u"name"_s}}};
            ask(id,
                params,
                u"elicitation/create"_s,
                {{u"mode"_s, u"form"_s},
                 {u"message"_s, u"What is your name?"_s},
                 {u"requestedSchema"_s, schema}},
                [](const QJsonObject &result) {
                    return u"action=%1 content=%2"_s
                            .arg(result.value(u"action"_s).toString(),
                                 compact(result.value(u"content"_s).toObject()));
                });
        } else if (name == u"sample") {
            ask(id,
                params,
                u"sampling/createMessage"_s,
                {{u"messages"_s, QJsonArray{}}, {u"maxTokens"_s, 10}},
                [](const QJsonObject &result) { return u"sampling: "_s + compact(result); });
        } else if ((name == u"ping" || name == u"unknown") && m_options.askMore) {
            ask(id,
                params,
                name == u"ping" ? u"ping"_s : u"x/unknown"_s,
                {},
                [name](const QJsonObject &result) { return name + u": "_s + compact(result); });
        } else if (name == u"roots") {
            ask(id, params, u"roots/list"_s, {}, [](const QJsonObject &result) {
                return u"roots: "_s + compact(result);
            });
        } else {
            error(id, -32602, u"Unknown tool: "_s + name);
        }
    }

    Options m_options;
    bool m_modernRequest = false;
    bool m_initializeAnswered = false;
    bool m_initialized = false;
    bool m_sentListChanged = false;
    int m_requests = 0;
    int m_listings = 0;
    QJsonValue m_lateProbe{QJsonValue::Undefined};
    std::map<QString, std::pair<QJsonValue, Continuation>> m_waiting;
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication application(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({{u"era"_s, u"modern, legacy or both"_s, u"era"_s, u"modern"_s},
                       {u"probe-silent"_s, u"legacy: never answer server/discover"_s},
                       {u"probe-late"_s, u"legacy: answer server/discover after the next line"_s},
                       {u"crash-at-start"_s, u"exit with 3 before reading"_s},
                       {u"crash-on-call"_s, u"exit with 4 on tools/call"_s},
                       {u"never-answer"_s, u"never answer tools/call"_s},
                       {u"stderr"_s, u"lines written to stderr at start"_s, u"n"_s, u"0"_s},
                       {u"list-changed-early"_s, u"list_changed before the first tools/list"_s},
                       {u"tools"_s, u"extra tools offered"_s, u"n"_s, u"0"_s},
                       {u"page-size"_s, u"tools per tools/list page"_s, u"n"_s, u"0"_s},
                       {u"ttl"_s, u"ttlMs of tools/list results"_s, u"ms"_s, u"0"_s},
                       {u"elicit"_s, u"offer a tool that elicits"_s},
                       {u"print-env"_s, u"offer print_env for this variable"_s, u"name"_s},
                       {u"banner"_s, u"print a line that is not JSON on stdout at start"_s},
                       {u"slow-start"_s, u"wait this long before reading"_s, u"ms"_s, u"0"_s},
                       {u"ask-more"_s, u"offer ping and unknown, which ask the client"_s},
                       {u"progress"_s, u"offer a tool that reports its progress"_s},
                       {u"log"_s, u"append every received line to this file"_s, u"file"_s}});
    parser.process(application);
    if (parser.isSet(u"crash-at-start"_s)) {
        std::fputs("crashing at start\n", stderr);
        return 3;
    }
#ifdef Q_OS_WIN
    _setmode(_fileno(stdout), _O_BINARY);
#endif
    if (parser.isSet(u"banner"_s)) {
        // As some servers do, against the rules of stdio.
        std::fputs("Scripted MCP server running on stdio\n", stdout);
        std::fflush(stdout);
    }
    const int stderrLines = parser.value(u"stderr"_s).toInt();
    for (int i = 1; i <= stderrLines; ++i)
        std::fprintf(stderr, "stderr line %d\n", i);
    std::fflush(stderr);

    // As a server that npx first has to fetch.
    QThread::msleep(parser.value(u"slow-start"_s).toULong());

    Options options;
    const QString era = parser.value(u"era"_s);
    options.modern = era != u"legacy";
    options.legacy = era != u"modern";
    options.probeSilent = parser.isSet(u"probe-silent"_s);
    options.probeLate = parser.isSet(u"probe-late"_s);
    options.crashOnCall = parser.isSet(u"crash-on-call"_s);
    options.neverAnswer = parser.isSet(u"never-answer"_s);
    options.listChangedEarly = parser.isSet(u"list-changed-early"_s);
    options.elicit = parser.isSet(u"elicit"_s);
    options.askMore = parser.isSet(u"ask-more"_s);
    options.progress = parser.isSet(u"progress"_s);
    options.tools = parser.value(u"tools"_s).toInt();
    options.pageSize = parser.value(u"page-size"_s).toInt();
    options.ttlMs = parser.value(u"ttl"_s).toInt();
    options.printEnv = parser.value(u"print-env"_s);
    options.logPath = parser.value(u"log"_s);
    Server(options).run();
    return 0;
}
