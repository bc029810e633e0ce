#include "mcp/mcptransport.h"

#include "base/displaytext.h"
#include "base/urlorigin.h"
#include "protocol/providersettings.h"
#include "protocol/sseparser.h"
#include "tools/processtree.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// How long a stopping server's tree gets between SIGTERM (Windows: Ctrl+Break) and SIGKILL
// (Windows: terminating its job).
constexpr int terminateGraceMs = 2000;
constexpr int keptStandardErrorLines = 200;
// A line of standard error longer than this is cut: the page shows lines, not dumps.
constexpr qsizetype maxStandardErrorLine = 4000;
// How much of a server's stray output or failed answer goes into a message.
constexpr qsizetype quotedChars = 200;

QString quoted(const QByteArray &bytes)
{
    return displayedLine(QString::fromUtf8(bytes.first(qMin(bytes.size(), quotedChars * 4))),
                         quotedChars);
}

// Each JSON-RPC message in a document: an object, or the objects of a batch.
bool forEachMessage(const QByteArray &bytes, const std::function<void(const QJsonObject &)> &emitter)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        return false;
    if (document.isObject()) {
        emitter(document.object());
        return true;
    }
    if (!document.isArray())
        return false;
    const QJsonArray batch = document.array();
    for (const QJsonValue &entry : batch) {
        if (entry.isObject())
            emitter(entry.toObject());
    }
    return true;
}

bool isPlainArgument(const QString &argument)
{
    if (argument.isEmpty())
        return false;
    for (const QChar c : argument) {
        const char16_t u = c.unicode();
        const bool plain = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z')
                           || (u >= u'0' && u <= u'9') || u == u'_' || u == u'-' || u == u'.'
                           || u == u'/' || u == u':' || u == u'\\' || u == u'@' || u == u'+';
        if (!plain)
            return false;
    }
    return true;
}

QString cmdQuoted(const QString &argument)
{
    if (isPlainArgument(argument))
        return argument;
    QString out = u"\""_s;
    qsizetype backslashes = 0;
    for (const QChar c : argument) {
        if (c == u'\\') {
            ++backslashes;
            continue;
        }
        if (c == u'"') {
            // The C runtime reads 2n backslashes and "" inside quotes as n backslashes and a
            // quote; cmd.exe sees the quote state toggled twice, so it stays inside quotes,
            // where & | < > ^ are plain characters.
            out += QString(backslashes * 2, u'\\') + u"\"\""_s;
        } else if (c == u'%') {
            // cmd.exe expands %NAME% even inside quotes. "%%cd:~,%" is a literal % followed by
            // an empty substring of %cd%: nothing after it can complete a variable name.
            out += QString(backslashes, u'\\') + u"%%cd:~,%"_s;
        } else {
            out += QString(backslashes, u'\\') + c;
        }
        backslashes = 0;
    }
    out += QString(backslashes * 2, u'\\') + u'"';
    return out;
}

#ifdef Q_OS_WIN
// The file CreateProcess would run for `command`, found the way cmd.exe finds it: through PATH
// (of the server's environment) and PATHEXT, so that "npx" finds npx.cmd.
QString resolveWindowsCommand(const QString &command,
                              const QProcessEnvironment &environment,
                              const QString &workingDirectory)
{
    QStringList extensions = environment.value(u"PATHEXT"_s, u".COM;.EXE;.BAT;.CMD"_s)
                                     .split(u';', Qt::SkipEmptyParts);
    const QString suffix = u'.' + QFileInfo(command).suffix();
    const bool hasExtension = suffix.size() > 1 && extensions.contains(suffix, Qt::CaseInsensitive);
    const auto findIn = [&](const QString &base) -> QString {
        if (hasExtension && QFileInfo(base).isFile())
            return base;
        for (const QString &extension : std::as_const(extensions)) {
            if (QFileInfo(base + extension).isFile())
                return base + extension;
        }
        return {};
    };
    if (command.contains(u'/') || command.contains(u'\\') || command.contains(u':')) {
        // A path from the root without a drive ("\\tools\\server.exe") is on the drive of this
        // process's current folder, as CreateProcess reads it, not on the working folder's.
        const bool rooted = command.startsWith(u'/') || command.startsWith(u'\\');
        const QString base = rooted ? QFileInfo(command).absoluteFilePath()
                                    : QDir(workingDirectory).absoluteFilePath(command);
        return QDir::toNativeSeparators(findIn(base));
    }
    const QStringList directories = environment.value(u"PATH"_s).split(u';', Qt::SkipEmptyParts);
    for (const QString &directory : directories) {
        QString trimmed = directory.trimmed();
        if (trimmed.size() >= 2 && trimmed.startsWith(u'"') && trimmed.endsWith(u'"'))
            trimmed = trimmed.sliced(1, trimmed.size() - 2);
        const QString found = findIn(QDir(trimmed).filePath(command));
        if (!found.isEmpty())
            return QDir::toNativeSeparators(found);
    }
    return {};
}
#else
QString resolveUnixCommand(const QString &command,
                           const QProcessEnvironment &environment,
                           const QString &workingDirectory)
{
    if (command.contains(u'/')) {
        const QFileInfo file(QDir(workingDirectory).absoluteFilePath(command));
        return file.isFile() && file.isExecutable() ? file.filePath() : QString();
    }
    const QStringList path = environment.value(u"PATH"_s).split(u':', Qt::SkipEmptyParts);
    return QStandardPaths::findExecutable(command, path);
}
#endif

} // namespace

QString cmdExeNativeArguments(const QString &script, const QStringList &arguments)
{
    QStringList line{cmdQuoted(script)};
    for (const QString &argument : arguments) {
        if (argument.contains(u'\n') || argument.contains(u'\r'))
            return {};
        line.append(cmdQuoted(argument));
    }
    // cmdQuoted() leaves a plain script name bare; /s strips exactly one outer pair.
    return u"/d /s /c \""_s + line.join(u' ') + u'"';
}

// ---------------------------------------------------------------------------------------------
// stdio

class McpStdioTransport::Private
{
public:
    McpStdioTransport *q = nullptr;
    McpServerConfig server;
    QString workingDirectory;
    QStringList secretValues;
    QProcess *process = nullptr;
    std::unique_ptr<ProcessTree> tree;
    QTimer killTimer;
    QByteArray stdoutLine;
    bool skippingLongLine = false;
    QByteArray stderrLine;
    QStringList stderrTail;
    QString program;
    QStringList arguments;
    bool opened = false;
    bool closing = false;
    bool closedSent = false;

    QProcessEnvironment environment() const;
    void readStandardOutput();
    void readStandardError();
    void addStandardErrorLine(const QByteArray &line);
    void handleLine(const QByteArray &line);
    void finish(int exitCode, const QString &reason);
    void failLater(const QString &reason);
};

QProcessEnvironment McpStdioTransport::Private::environment() const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QString::fromLatin1(apiKeyVariable));
    const QStringList names = environment.keys();
    for (const QString &name : names) {
        const QString value = environment.value(name);
        for (const QString &secret : secretValues) {
            // A secret of a few characters would take half the environment with it.
            if (secret.size() >= 4 && value.contains(secret)) {
                environment.remove(name);
                break;
            }
        }
    }
    for (auto it = server.env.cbegin(); it != server.env.cend(); ++it)
        environment.insert(it.key(), it.value());
    return environment;
}

void McpStdioTransport::Private::readStandardOutput()
{
    const QPointer<McpStdioTransport> alive(q);
    while (alive && process->bytesAvailable() > 0) {
        const QByteArray chunk = process->read(1 << 20);
        qsizetype start = 0;
        while (start < chunk.size()) {
            const qsizetype newline = chunk.indexOf('\n', start);
            const qsizetype end = newline < 0 ? chunk.size() : newline;
            if (!skippingLongLine) {
                stdoutLine.append(chunk.constData() + start, end - start);
                if (stdoutLine.size() > mcpMaxMessageBytes) {
                    stdoutLine.clear();
                    skippingLongLine = true;
                    emit q->protocolNoise(McpStdioTransport::tr("A line longer than %1 MiB on "
                                                                "standard output was skipped.")
                                                  .arg(mcpMaxMessageBytes >> 20));
                    if (!alive)
                        return;
                }
            }
            if (newline < 0)
                break;
            start = newline + 1;
            if (skippingLongLine) {
                skippingLongLine = false;
                continue;
            }
            const QByteArray line = std::exchange(stdoutLine, {});
            handleLine(line);
            if (!alive)
                return;
        }
    }
}

void McpStdioTransport::Private::handleLine(const QByteArray &rawLine)
{
    const QByteArray line = rawLine.trimmed();
    if (line.isEmpty())
        return;
    const QPointer<McpStdioTransport> alive(q);
    const bool parsed = forEachMessage(line, [&](const QJsonObject &message) {
        if (alive && !closedSent)
            emit q->messageReceived(message);
    });
    if (!parsed && alive)
        emit q->protocolNoise(quoted(line));
}

void McpStdioTransport::Private::readStandardError()
{
    const QByteArray chunk = process->readAllStandardError();
    qsizetype start = 0;
    while (start < chunk.size()) {
        const qsizetype newline = chunk.indexOf('\n', start);
        const qsizetype end = newline < 0 ? chunk.size() : newline;
        // Bytes past the bound are dropped; the line is still ended by its newline.
        const qsizetype room = maxStandardErrorLine * 4 - stderrLine.size();
        if (room > 0)
            stderrLine.append(chunk.constData() + start, qMin(room, end - start));
        if (newline < 0)
            break;
        addStandardErrorLine(std::exchange(stderrLine, {}));
        start = newline + 1;
    }
}

void McpStdioTransport::Private::addStandardErrorLine(const QByteArray &bytes)
{
    QString line = QString::fromUtf8(bytes);
    if (line.endsWith(u'\r'))
        line.chop(1);
    if (line.size() > maxStandardErrorLine)
        line = line.first(maxStandardErrorLine) + u'…';
    stderrTail.append(line);
    if (stderrTail.size() > keptStandardErrorLines)
        stderrTail.removeFirst();
    emit q->standardErrorLine(line);
}

void McpStdioTransport::Private::finish(int exitCode, const QString &reason)
{
    if (closedSent)
        return;
    killTimer.stop();
    // What the server wrote last often says why it went: read it before saying it went.
    if (process->isOpen()) {
        readStandardError();
        if (!stderrLine.isEmpty())
            addStandardErrorLine(std::exchange(stderrLine, {}));
    }
    closedSent = true;
    emit q->closed(exitCode, reason, closing);
}

void McpStdioTransport::Private::failLater(const QString &reason)
{
    QMetaObject::invokeMethod(
            q, [this, reason] { finish(-1, reason); }, Qt::QueuedConnection);
}

McpStdioTransport::McpStdioTransport(McpServerConfig expandedServer,
                                     QString workingDirectory,
                                     QStringList secretValues,
                                     QObject *parent)
    : McpTransport(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->server = std::move(expandedServer);
    d->workingDirectory = d->server.cwd.isEmpty() ? std::move(workingDirectory) : d->server.cwd;
    d->secretValues = std::move(secretValues);
    d->process = new QProcess(this);
    d->tree = std::make_unique<ProcessTree>(d->process);
    d->killTimer.setSingleShot(true);
    d->killTimer.setInterval(terminateGraceMs);
    connect(&d->killTimer, &QTimer::timeout, this, [this] { d->tree->kill(); });

    connect(d->process, &QProcess::readyReadStandardOutput, this, [this] {
        d->readStandardOutput();
    });
    connect(d->process, &QProcess::readyReadStandardError, this, [this] { d->readStandardError(); });
    connect(d->process, &QProcess::started, this, &McpTransport::started);
    connect(d->process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        // Crashes and read errors are followed by finished(); only a failed start is final.
        if (error == QProcess::FailedToStart)
            d->finish(-1, tr("could not be started: %1").arg(d->process->errorString()));
    });
    connect(d->process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        // Whatever the server left running must not outlive it.
        d->tree->kill();
        const QPointer<McpStdioTransport> alive(this);
        d->readStandardOutput();
        if (!alive)
            return;
        if (!d->stdoutLine.isEmpty() && !d->skippingLongLine)
            d->handleLine(std::exchange(d->stdoutLine, {}));
        if (!alive)
            return;
        if (d->closing)
            d->finish(exitCode, tr("stopped"));
        else if (status == QProcess::CrashExit)
            d->finish(exitCode, tr("crashed"));
        else
            d->finish(exitCode, tr("exited with code %1").arg(exitCode));
    });
}

McpStdioTransport::~McpStdioTransport()
{
    // Kills the tree without waiting: the process deletes itself once it is reaped.
    d->tree->killAndRelease();
}

void McpStdioTransport::open()
{
    if (d->opened)
        return;
    d->opened = true;
    const QString &directory = d->workingDirectory;
    if (!directory.isEmpty() && !QFileInfo(directory).isDir()) {
        d->failLater(tr("could not be started: the working directory “%1” does not exist")
                             .arg(QDir::toNativeSeparators(directory)));
        return;
    }
    const QProcessEnvironment environment = d->environment();
#ifdef Q_OS_WIN
    const QString resolved = resolveWindowsCommand(d->server.command, environment, directory);
#else
    const QString resolved = resolveUnixCommand(d->server.command, environment, directory);
#endif
    if (resolved.isEmpty()) {
        d->failLater(
                tr("could not be started: the program “%1” was not found").arg(d->server.command));
        return;
    }
    d->program = resolved;
    d->arguments = d->server.args;
    d->process->setProgram(resolved);
    d->process->setArguments(d->server.args);
#ifdef Q_OS_WIN
    const QString suffix = QFileInfo(resolved).suffix().toLower();
    if (suffix == u"cmd" || suffix == u"bat") {
        // CreateProcess cannot run a script; cmd.exe can, given a line quoted for it (QProcess
        // would quote by the C runtime's rules, which cmd.exe does not follow).
        const QString native = cmdExeNativeArguments(resolved, d->server.args);
        if (native.isEmpty()) {
            d->failLater(tr("could not be started: an argument holds a line break, which "
                            "cmd.exe cannot pass to “%1”")
                                 .arg(d->server.command));
            return;
        }
        QString cmd = environment.value(u"ComSpec"_s);
        if (cmd.isEmpty() || !QFileInfo(cmd).isFile())
            cmd = qEnvironmentVariable("SystemRoot") + u"\\System32\\cmd.exe"_s;
        d->process->setProgram(cmd);
        d->process->setArguments({});
        d->process->setNativeArguments(native);
        d->program = cmd;
        d->arguments = QStringList{native};
    }
#endif
    d->process->setWorkingDirectory(directory);
    d->process->setProcessEnvironment(environment);
    d->tree->prepare();
    d->process->start(QIODevice::ReadWrite);
    d->tree->adopt();
}

void McpStdioTransport::send(const QJsonObject &message)
{
    if (d->closing || d->closedSent || d->process->state() == QProcess::NotRunning)
        return;
    // Compact JSON escapes every line break inside strings: one message, one line.
    d->process->write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

void McpStdioTransport::close()
{
    if (d->closing || d->closedSent)
        return;
    d->closing = true;
    if (d->process->state() == QProcess::NotRunning) {
        // Never started (or failing to): say so once, from the event loop.
        if (!d->opened)
            d->failLater(tr("stopped"));
        return;
    }
    // The spec's order: close its input (a well-behaved server exits on EOF), then terminate,
    // then kill.
    d->process->closeWriteChannel();
    if (d->tree->terminate())
        d->killTimer.start();
    else
        d->tree->kill();
}

QStringList McpStdioTransport::standardErrorTail() const
{
    return d->stderrTail;
}

QString McpStdioTransport::launchedProgram() const
{
    return d->program;
}

QStringList McpStdioTransport::launchedArguments() const
{
    return d->arguments;
}

qint64 McpStdioTransport::processId() const
{
    return d->tree->processId();
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP

class McpHttpTransport::Private
{
public:
    // What one exchange has seen so far: a request (until its answer came), a notification or
    // response (until accepted), or the GET stream the server sends its own messages on. A stream
    // the server ends early is resumed (GET with Last-Event-ID) as the same exchange.
    struct Exchange
    {
        QJsonValue id;                  // the request's; null for a notification or response
        bool listening = false;         // the server's own stream (GET)
        bool opensListenStream = false; // notifications/initialized: once accepted, listen
        bool sentSession = false;
        QNetworkReply *reply = nullptr; // the HTTP reply in flight, if any
        std::optional<bool> isStream;
        SseParser sse{mcpMaxMessageBytes};
        bool answered = false; // the response to id came
        QString failure;       // why it was aborted
        // For resumption: the stream's last event id and reconnection time, and how many
        // reconnections in a row brought no event.
        QByteArray lastEventId;
        std::optional<qint64> reconnectionTimeMs;
        bool eventOnThisReply = false;
        int quietReconnections = 0;
        std::unique_ptr<QTimer> reconnectTimer;
    };
    using ExchangePtr = std::shared_ptr<Exchange>;

    McpHttpTransport *q = nullptr;
    McpServerConfig server;
    QNetworkAccessManager *network = nullptr;
    QString protocolVersion;
    QByteArray sessionId;
    QSet<QNetworkReply *> replies;
    QHash<qint64, ExchangePtr> requests; // by JSON-RPC id, until answered or given up
    ExchangePtr listenStream;
    bool opened = false;
    bool closedSent = false;

    QNetworkRequest request() const;
    QNetworkRequest streamRequest(const QByteArray &lastEventId) const;
    void watch(QNetworkReply *reply, const ExchangePtr &exchange);
    void finished(QNetworkReply *reply, const ExchangePtr &exchange);
    // stream: the reply was an event stream (else 405, another status or no connection).
    void listenStreamEnded(const ExchangePtr &exchange, int status, bool stream);
    // Ends the exchange's wait: no more reconnections, its reply aborted.
    void forget(const ExchangePtr &exchange);
    void reconnectLater(const ExchangePtr &exchange, qint64 delayMs);
    void openListenStream();
    void closeLater(int exitCode, const QString &reason, bool expected);
};

namespace {

// A server's stream that ended is opened again this often in a row without bringing an event
// before the client gives up on it.
constexpr int maxQuietReconnections = 5;
// When the server gave no `retry:`: the first wait, doubled after each quiet reconnection.
constexpr qint64 defaultReconnectionMs = 1000;

} // namespace

QNetworkRequest McpHttpTransport::Private::request() const
{
    QNetworkRequest request{QUrl(server.url)};
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json"_ba);
    request.setRawHeader("Accept", "application/json, text/event-stream");
    for (auto it = server.headers.cbegin(); it != server.headers.cend(); ++it)
        request.setRawHeader(it.key().toUtf8(), it.value().toUtf8());
    if (!protocolVersion.isEmpty())
        request.setRawHeader("MCP-Protocol-Version", protocolVersion.toUtf8());
    if (!sessionId.isEmpty())
        request.setRawHeader("Mcp-Session-Id", sessionId);
    // A stream of progress may be quiet for long; the client's own timers decide.
    request.setTransferTimeout(0);
    // Qt would follow a redirect anywhere with the configured headers (a token, say): each one is
    // checked in watch() instead.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::UserVerifiedRedirectPolicy);
    return request;
}

QNetworkRequest McpHttpTransport::Private::streamRequest(const QByteArray &lastEventId) const
{
    QNetworkRequest get = request();
    get.setHeader(QNetworkRequest::ContentTypeHeader, QVariant());
    get.setRawHeader("Accept", "text/event-stream");
    if (!lastEventId.isEmpty())
        get.setRawHeader("Last-Event-ID", lastEventId);
    return get;
}

void McpHttpTransport::Private::watch(QNetworkReply *reply, const ExchangePtr &exchange)
{
    replies.insert(reply);
    exchange->reply = reply;
    exchange->sentSession = !sessionId.isEmpty();
    exchange->isStream.reset();
    exchange->sse.reset();
    exchange->failure.clear();
    exchange->eventOnThisReply = false;

    const auto fail = [reply, exchange](const QString &reason) {
        exchange->failure = reason;
        reply->abort();
    };
    const auto onEvent = [this, exchange](const SseEventView &event) {
        exchange->eventOnThisReply = true;
        if (closedSent || event.data.trimmed().isEmpty())
            return; // an event without data primes a stream for resumption
        const QPointer<McpHttpTransport> alive(q);
        const bool parsed = forEachMessage(event.data.toByteArray(), [&](const QJsonObject &message) {
            if (!message.contains(u"method"_s) && message.value(u"id"_s) == exchange->id)
                exchange->answered = true;
            if (alive && !closedSent)
                emit q->messageReceived(message);
        });
        if (!parsed && alive)
            emit q->protocolNoise(quoted(event.data.toByteArray()));
    };
    const auto readStream = [this, reply, exchange, fail, onEvent](bool end) {
        const QPointer<McpHttpTransport> alive(q);
        Result<void> fed = exchange->sse.feed(reply->readAll(), onEvent);
        // Kept across this reply's end (finish() forgets them): a reconnection sends them.
        if (!exchange->sse.lastEventId().isEmpty())
            exchange->lastEventId = exchange->sse.lastEventId();
        if (const auto retry = exchange->sse.reconnectionTimeMs())
            exchange->reconnectionTimeMs = retry;
        if (fed && end && alive)
            fed = exchange->sse.finish(onEvent);
        if (!fed && alive)
            fail(McpHttpTransport::tr("the event stream broke: %1").arg(fed.error().message));
    };

    connect(reply, &QNetworkReply::redirected, q, [this, reply, fail](const QUrl &target) {
        // Against the server's URL, not the last hop: a chain may not leave the origin either.
        const QUrl configured(server.url);
        const QUrl resolved = configured.resolved(target);
        if (isSameOrigin(configured, resolved)) {
            emit reply->redirectAllowed();
            return;
        }
        fail(McpHttpTransport::tr("the server redirected the request to another address, %1; "
                                  "it was not followed, so that the server's headers go "
                                  "nowhere else")
                     .arg(displayedLine(resolved.toString(QUrl::RemoveUserInfo | QUrl::RemovePath
                                                          | QUrl::RemoveQuery
                                                          | QUrl::RemoveFragment),
                                        200)));
    });
    connect(reply, &QNetworkReply::metaDataChanged, q, [this, reply, exchange] {
        const QByteArray session = reply->rawHeader("Mcp-Session-Id");
        if (!session.isEmpty() && sessionId.isEmpty())
            sessionId = session;
        const QByteArray type = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
        exchange->isStream = type.trimmed().toLower().startsWith("text/event-stream");
    });
    connect(reply, &QNetworkReply::readyRead, q, [reply, exchange, readStream, fail] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (exchange->isStream.value_or(false) && status >= 200 && status < 300)
            readStream(false);
        else if (reply->bytesAvailable() > mcpMaxMessageBytes)
            fail(McpHttpTransport::tr("the answer is larger than %1 MiB")
                         .arg(mcpMaxMessageBytes >> 20));
    });
    connect(reply, &QNetworkReply::finished, q, [this, reply, exchange, readStream] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (!closedSent && exchange->failure.isEmpty() && exchange->isStream.value_or(false)
            && status >= 200 && status < 300) {
            readStream(true);
        }
        finished(reply, exchange);
    });
}

void McpHttpTransport::Private::finished(QNetworkReply *reply, const ExchangePtr &exchange)
{
    replies.remove(reply);
    reply->deleteLater();
    if (exchange->reply == reply)
        exchange->reply = nullptr;
    if (closedSent)
        return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const bool stream = exchange->isStream.value_or(false) && status >= 200 && status < 300
                        && status != 202 && status != 204;
    // For either kind of stream: how many tries in a row (ended, or no connection) brought no
    // event.
    if (stream || status == 0)
        exchange->quietReconnections = exchange->eventOnThisReply
                                               ? 0
                                               : exchange->quietReconnections + 1;
    if (exchange->listening) {
        listenStreamEnded(exchange, status, stream);
        return;
    }
    const QPointer<McpHttpTransport> alive(q);
    const bool isRequest = !exchange->id.isNull();
    const bool resuming = !exchange->lastEventId.isEmpty();
    // The server may end a stream before the answer (SEP-1699): with an event id to resume from,
    // the answer comes on a GET stream after the server's retry time.
    if (isRequest && stream && alive && exchange->failure.isEmpty() && !exchange->answered
        && resuming && exchange->quietReconnections < maxQuietReconnections) {
        reconnectLater(exchange, exchange->reconnectionTimeMs.value_or(defaultReconnectionMs));
        return;
    }
    if (isRequest)
        requests.remove(exchange->id.toInteger());
    const auto failRequest = [&](const QString &reason) {
        if (isRequest)
            emit q->requestFailed(exchange->id, reason, status);
        else
            emit q->protocolNoise(reason);
    };
    if (!exchange->failure.isEmpty()) {
        failRequest(exchange->failure);
        return;
    }
    if (status == 0) {
        failRequest(McpHttpTransport::tr("the request failed: %1").arg(reply->errorString()));
        return;
    }
    if (status == 202 || status == 204) {
        if (isRequest && resuming) {
            failRequest(McpHttpTransport::tr("the event stream ended without an answer, and "
                                             "resuming it brought none (HTTP %1)")
                                .arg(status));
        } else if (exchange->opensListenStream) {
            openListenStream();
        }
        return;
    }
    if (status < 200 || status >= 300) {
        const QByteArray body = reply->readAll();
        // Some servers put a JSON-RPC error for the request in a 4xx answer: it says more.
        const QJsonObject answer = QJsonDocument::fromJson(body).object();
        if (isRequest && answer.value(u"error"_s).isObject()
            && answer.value(u"id"_s) == exchange->id) {
            emit q->messageReceived(answer);
        } else {
            const QString http
                    = body.trimmed().isEmpty()
                              ? McpHttpTransport::tr("HTTP %1").arg(status)
                              : McpHttpTransport::tr("HTTP %1: %2").arg(status).arg(quoted(body));
            failRequest(resuming ? McpHttpTransport::tr("the event stream ended without an "
                                                        "answer, and resuming it failed: %1")
                                           .arg(http)
                                 : http);
        }
        // 404 to a request in a session: the server ended it, and only a new initialize
        // starts another. The server is gone as far as this transport goes.
        if (alive && status == 404 && exchange->sentSession && !closedSent) {
            sessionId.clear();
            closedSent = true;
            emit q->closed(-1, McpHttpTransport::tr("ended the session (HTTP 404)"), false);
        }
        return;
    }
    if (stream) {
        if (isRequest && !exchange->answered && alive)
            failRequest(McpHttpTransport::tr("the event stream ended without an answer"));
        return;
    }
    const QByteArray body = reply->readAll();
    const QByteArray type
            = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray().trimmed().toLower();
    if (body.trimmed().isEmpty()) {
        if (isRequest)
            failRequest(McpHttpTransport::tr("HTTP %1 with an empty answer").arg(status));
        return;
    }
    const bool parsed = type.startsWith("application/json")
                        && forEachMessage(body, [&](const QJsonObject &message) {
                               if (alive && !closedSent)
                                   emit q->messageReceived(message);
                           });
    if (!parsed && alive)
        failRequest(McpHttpTransport::tr("the answer is not JSON-RPC (%1): %2")
                            .arg(QString::fromLatin1(type), quoted(body)));
}

void McpHttpTransport::Private::listenStreamEnded(const ExchangePtr &exchange,
                                                  int status,
                                                  bool stream)
{
    if (status != 0 && !stream) {
        // 405 is the spec's "no such stream here"; anything else says the same, less politely.
        if (status != 405 && status != 202 && status != 204) {
            emit q->note(McpHttpTransport::tr("offers no stream of its own messages (HTTP %1)")
                                 .arg(status));
        }
        listenStream.reset();
        return;
    }
    if (!exchange->failure.isEmpty())
        emit q->note(exchange->failure);
    if (exchange->quietReconnections > maxQuietReconnections) {
        emit q->note(McpHttpTransport::tr("stopped listening for its own messages: its stream "
                                          "ended %n times in a row without a message",
                                          nullptr,
                                          exchange->quietReconnections));
        listenStream.reset();
        return;
    }
    // The server's retry time when it gave one; otherwise 1 s, doubled after each quiet try.
    const qint64 delay = exchange->reconnectionTimeMs.value_or(
            defaultReconnectionMs << qMax(0, exchange->quietReconnections - 1));
    reconnectLater(exchange, delay);
}

void McpHttpTransport::Private::forget(const ExchangePtr &exchange)
{
    exchange->reconnectTimer.reset();
    if (QNetworkReply *reply = std::exchange(exchange->reply, nullptr)) {
        replies.remove(reply);
        reply->disconnect(q);
        reply->abort();
        reply->deleteLater();
    }
}

void McpHttpTransport::Private::reconnectLater(const ExchangePtr &exchange, qint64 delayMs)
{
    exchange->reconnectTimer = std::make_unique<QTimer>();
    exchange->reconnectTimer->setSingleShot(true);
    exchange->reconnectTimer->setTimerType(Qt::PreciseTimer); // the server's retry time, not later
    const std::weak_ptr<Exchange> weak = exchange;
    connect(exchange->reconnectTimer.get(), &QTimer::timeout, q, [this, weak] {
        const ExchangePtr waiting = weak.lock();
        if (!waiting || closedSent)
            return;
        watch(network->get(streamRequest(waiting->lastEventId)), waiting);
    });
    exchange->reconnectTimer->start(int(qMin<qint64>(delayMs, std::numeric_limits<int>::max())));
}

void McpHttpTransport::Private::openListenStream()
{
    if (listenStream || closedSent)
        return;
    listenStream = std::make_shared<Exchange>();
    listenStream->listening = true;
    watch(network->get(streamRequest({})), listenStream);
}

void McpHttpTransport::Private::closeLater(int exitCode, const QString &reason, bool expected)
{
    QMetaObject::invokeMethod(
            q,
            [this, exitCode, reason, expected] {
                if (closedSent)
                    return;
                closedSent = true;
                emit q->closed(exitCode, reason, expected);
            },
            Qt::QueuedConnection);
}

McpHttpTransport::McpHttpTransport(McpServerConfig expandedServer, QObject *parent)
    : McpTransport(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->server = std::move(expandedServer);
    d->network = new QNetworkAccessManager(this);
}

McpHttpTransport::~McpHttpTransport()
{
    // No reconnection fires into a half-destroyed transport.
    for (const Private::ExchangePtr &exchange : std::as_const(d->requests))
        exchange->reconnectTimer.reset();
    if (d->listenStream)
        d->listenStream->reconnectTimer.reset();
    for (QNetworkReply *reply : std::as_const(d->replies)) {
        reply->disconnect(this);
        reply->abort();
    }
}

void McpHttpTransport::open()
{
    if (d->opened)
        return;
    d->opened = true;
    const QUrl url(d->server.url);
    if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https")) {
        d->closeLater(-1,
                      tr("could not be started: “%1” is not an http or https address")
                              .arg(displayedLine(d->server.url, quotedChars)),
                      false);
        return;
    }
    QMetaObject::invokeMethod(
            this,
            [this] {
                if (!d->closedSent)
                    emit started();
            },
            Qt::QueuedConnection);
}

void McpHttpTransport::send(const QJsonObject &message)
{
    if (!d->opened || d->closedSent)
        return;
    auto exchange = std::make_shared<Private::Exchange>();
    // Only a request is answered; a response or notification gets 202 and nothing.
    if (message.contains(u"method"_s) && message.contains(u"id"_s))
        exchange->id = message.value(u"id"_s);
    // The legacy session is set up once the server accepted this: from then on the server may
    // send requests and notifications of its own, on a GET stream.
    exchange->opensListenStream = message.value(u"method"_s).toString()
                                  == u"notifications/initialized";
    if (exchange->id.isDouble())
        d->requests.insert(exchange->id.toInteger(), exchange);
    d->watch(d->network->post(d->request(), QJsonDocument(message).toJson(QJsonDocument::Compact)),
             exchange);
}

void McpHttpTransport::close()
{
    if (d->closedSent)
        return;
    for (const Private::ExchangePtr &exchange : std::as_const(d->requests))
        d->forget(exchange);
    d->requests.clear();
    if (d->listenStream)
        d->forget(std::exchange(d->listenStream, nullptr));
    const QList<QNetworkReply *> inFlight = d->replies.values();
    d->replies.clear();
    for (QNetworkReply *reply : inFlight) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
    if (!d->sessionId.isEmpty()) {
        // Ends the legacy session, fire and forget: its own manager, which outlives this
        // transport and goes when the answer came or after a few seconds.
        auto *network = new QNetworkAccessManager;
        QNetworkRequest request = d->request();
        request.setTransferTimeout(5000);
        QNetworkReply *reply = network->deleteResource(request);
        connect(reply, &QNetworkReply::finished, network, &QObject::deleteLater);
        d->sessionId.clear();
    }
    d->closeLater(0, tr("stopped"), true);
}

void McpHttpTransport::abandonRequest(const QJsonValue &id)
{
    if (const Private::ExchangePtr exchange = d->requests.take(id.toInteger(-1)))
        d->forget(exchange);
}

void McpHttpTransport::setProtocolVersion(const QString &version)
{
    d->protocolVersion = version;
}

} // namespace AgentLoop
