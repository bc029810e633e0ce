// GUI benchmark cases of issue 5, run offscreen:
//   3-chat-append     appending message 10 vs message 10 000 to the chat (model + layout + paint)
//   3-stream-stalls   event-loop stalls while a 5 000 tokens/s stream arrives through MainWindow
//   4-command-output  peak memory and stalls while the shell tool runs a command printing 200 MB,
//                     and the size of the file the whole output was spilled to
//   5-startup         process start to first shown MainWindow vs a bare QMainWindow, idle RSS
//   10-many-conversations  start-up with 1 000 saved conversations of 5 MB (5 GB) vs none
//                     (AGENTLOOP_BENCH_CONVERSATIONS and AGENTLOOP_BENCH_CONVERSATION_MB change
//                     the figures; not part of --case all, for its size)
//   11-open-large-conversation  opening a conversation of 100 MB: time to its last screen, to
//                     every message, stalls meanwhile (AGENTLOOP_BENCH_OPEN_MB; not in --case all)
//   12-timeline       the Timeline of 1 000 turns shown, scrolled and zoomed while turns are
//                     added: the longest event-loop stall, one paint of all of it (fit to the view)
// Usage: agentloop-bench-gui --case NAME [--samples N]; one JSON line per figure and sample on
// stdout, diagnostics on stderr. --startup [--conversations DIR] is the child mode of 5-startup
// and 10-many-conversations.

#include "agent/runtimeline.h"
#include "applicationicon.h"
#include "base/i18n.h"
#include "benchcommon.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/promptedit.h"
#include "chat/runfeed.h"
#include "fakechatserver.h"
#include "mainwindow.h"
#include "settings/appsettings.h"
#include "storage/keystore.h"
#include "timeline/timelinedock.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "tools/commandrunner.h"
#include "tools/shelltool.h"

#include <QApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QWheelEvent>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::ChatItem;
using Gui::MainWindow;

namespace {

constexpr double kB = 1024.0;

void diag(const QString &text)
{
    std::fprintf(stderr, "%s\n", qPrintable(text));
}

// Lets the event loop run for duration (timers, deferred layouts, paints).
void settle(std::chrono::milliseconds duration)
{
    const QDeadlineTimer deadline(duration);
    while (!deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

// A main window as the app shows it, with nothing reaching outside the bench: the key only in
// memory, conversations in a temporary directory, no layout saved.
struct Window
{
    explicit Window(Gui::AppSettings settings)
        : keyStore(AgentLoop::KeyStore::Backend::SessionOnly, u"agentloop-bench"_s)
    {
        settings.workspace = workspace.path();
        MainWindow::Options options;
        options.commandRunner = std::make_shared<ProcessCommandRunner>();
        options.keyStore = &keyStore;
        options.persist = false;
        options.conversationDirectory = conversations.path();
        window = std::make_unique<MainWindow>(settings, options);
        window->resize(1100, 700);
        window->show();
        const QDeadlineTimer deadline(std::chrono::seconds(5));
        while (!(window->windowHandle() && window->windowHandle()->isExposed())
               && !deadline.hasExpired())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        // The chat view lays every item out again once its width has settled (120 ms).
        settle(std::chrono::milliseconds(300));
    }

    static Gui::AppSettings demoSettings()
    {
        Gui::AppSettings settings;
        settings.demoMode = true;
        return settings;
    }

    AgentLoop::KeyStore keyStore;
    QTemporaryDir workspace;
    QTemporaryDir conversations;
    std::unique_ptr<MainWindow> window;
};

// A varied conversation: prompts, Markdown answers, tool calls and multi-line tool output.
ChatItem chatItem(int index)
{
    ChatItem item;
    switch (index % 4) {
    case 0:
        item.kind = ChatItem::UserPrompt;
        item.text = u"Message %1: please look at src/gui/chatview.cpp and explain the layout."_s.arg(
                index);
        break;
    case 1:
        item.kind = ChatItem::AssistantText;
        item.text = u"Answer %1. The view keeps **cached heights** per item, so `append` only "
                    "lays out the new row.\n\n- one point\n- another point with `code`\n\n"
                    "A closing paragraph that is long enough to wrap at the usual width of the "
                    "chat view in the main window."_s.arg(index);
        break;
    case 2:
        item.kind = ChatItem::ToolCall;
        item.toolName = u"shell"_s;
        item.toolCallId = u"call_%1"_s.arg(index);
        item.arguments = u"{\"command\": \"grep -n layout src/gui/chatview.cpp\"}"_s;
        break;
    default:
        item.kind = ChatItem::ToolResult;
        item.toolName = u"shell"_s;
        item.toolCallId = u"call_%1"_s.arg(index - 1);
        item.exitCode = 0;
        item.durationMs = 12;
        for (int line = 0; line < 12; ++line)
            item.text += u"src/gui/chatview.cpp:%1: relayout(); // line %2\n"_s.arg(line * 7).arg(
                    line);
        break;
    }
    item.turn = index / 4 + 1;
    return item;
}

// Median time, in µs, of appending `count` messages one by one after `existing` rows: the model
// append, the deferred layout and scroll, and a synchronous paint of the viewport.
double medianAppendMicros(int existing, int count)
{
    Window w(Window::demoSettings());
    Gui::ChatModel *model = w.window->chatModel();
    Gui::ChatView *view = w.window->chatView();
    QList<ChatItem> prefill;
    prefill.reserve(existing);
    for (int i = 0; i < existing; ++i)
        prefill.append(chatItem(i));
    model->append(std::move(prefill));
    view->scrollToBottom();
    settle(std::chrono::milliseconds(300));

    QList<double> micros;
    for (int i = 0; i < count; ++i) {
        ChatItem item = chatItem(existing + i);
        QElapsedTimer clock;
        clock.start();
        model->append(std::move(item));
        QCoreApplication::processEvents(); // the deferred items layout and the follow-the-bottom
        view->viewport()->repaint();
        QCoreApplication::processEvents();
        micros.append(double(clock.nsecsElapsed()) / 1e3);
    }
    if (model->rowCount() != existing + count
        || view->verticalScrollBar()->value() < view->verticalScrollBar()->maximum() - 2)
        diag(u"3-chat-append: the view did not follow the newest message"_s);
    return Bench::percentile(micros, 50);
}

void chatAppend(int samples)
{
    const QString id = u"3-chat-append"_s;
    constexpr int timed = 20; // consecutive appends per position; their median is the sample
    for (int s = 0; s < samples; ++s) {
        const double at10 = medianAppendMicros(9, timed);
        const double at10000 = medianAppendMicros(9999, timed);
        diag(u"%1 sample %2: message 10: %3 µs, message 10 000: %4 µs (median of %5)"_s.arg(id)
                     .arg(s + 1)
                     .arg(at10, 0, 'f', 1)
                     .arg(at10000, 0, 'f', 1)
                     .arg(timed));
        Bench::report(id, u"append at 10"_s, u"us"_s, at10);
        Bench::report(id, u"append at 10 000"_s, u"us"_s, at10000);
        Bench::report(id, u"append at 10 000 / append at 10"_s, u"ratio"_s, at10000 / at10);
    }
}

QJsonObject chunkWith(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue::Null)
{
    return {{u"id"_s, u"chatcmpl-bench"_s},
            {u"object"_s, u"chat.completion.chunk"_s},
            {u"created"_s, 1700000000},
            {u"model"_s, u"gpt-bench"_s},
            {u"choices"_s,
             QJsonArray{QJsonObject{{u"index"_s, 0},
                                    {u"delta"_s, delta},
                                    {u"finish_reason"_s, finishReason}}}}};
}

// The fake provider on a thread of its own, as a real one is in another process: the event loop
// measured is the window's alone.
class ServerThread
{
public:
    ServerThread()
    {
        m_thread.start();
        m_anchor = new QObject;
        m_anchor->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_anchor, &QObject::deleteLater);
        run([this] { m_server = new FakeChatServer; });
    }
    ~ServerThread()
    {
        run([this] { delete m_server; });
        m_thread.quit();
        m_thread.wait();
    }
    ServerThread(const ServerThread &) = delete;
    ServerThread &operator=(const ServerThread &) = delete;

    // Runs f on the server's thread and waits for it.
    void run(const std::function<void()> &f)
    {
        QMetaObject::invokeMethod(m_anchor, f, Qt::BlockingQueuedConnection);
    }
    FakeChatServer *server() const { return m_server; }

private:
    QThread m_thread;
    QObject *m_anchor = nullptr;
    FakeChatServer *m_server = nullptr;
};

void streamStalls(int samples)
{
    const QString id = u"3-stream-stalls"_s;
    // 5 000 tokens/s for 5 s: 25 000 deltas of ~4 characters, one SSE event each, sent 10
    // events every 2 ms; a paragraph break every 60 tokens.
    constexpr int tokens = 25000;
    constexpr int eventsPerChunk = 10;
    constexpr int chunkDelayMs = 2;
    const QStringList words{u"the "_s, u"map "_s, u"of "_s, u"code "_s, u"runs "_s, u"fast "_s};
    QList<QByteArray> events{FakeResponse::sseEvent(
            chunkWith({{u"role"_s, u"assistant"_s}, {u"content"_s, u""_s}}))};
    qsizetype characters = 0;
    for (int i = 0; i < tokens; ++i) {
        const QString piece = (i % 60 == 59) ? u"\n\n"_s : words.at(i % words.size());
        characters += piece.size();
        events << FakeResponse::sseEvent(chunkWith({{u"content"_s, piece}}));
    }
    events << FakeResponse::sseEvent(chunkWith({}, u"stop"_s)) << FakeResponse::sseDone();
    QList<QByteArray> chunks;
    for (qsizetype i = 0; i < events.size(); i += eventsPerChunk)
        chunks << events.mid(i, eventsPerChunk).join();

    for (int s = 0; s < samples; ++s) {
        ServerThread server;
        QUrl baseUrl;
        server.run([&] {
            server.server()->script({FakeResponse::stream(chunks, chunkDelayMs)});
            baseUrl = server.server()->baseUrl();
        });
        Gui::AppSettings settings;
        settings.baseUrl = baseUrl.toString();
        settings.apiKey = u"sk-bench-gui"_s;
        settings.model = u"gpt-bench"_s;
        settings.stream = true;
        settings.maxRetries = 0;
        Window w(settings);
        // An earlier conversation on screen, as after a while of work.
        QList<ChatItem> earlier;
        for (int i = 0; i < 200; ++i)
            earlier.append(chatItem(i));
        w.window->chatModel()->append(std::move(earlier));
        w.window->chatView()->scrollToBottom();
        settle(std::chrono::milliseconds(300));

        AgentController &controller = w.window->controller();
        QElapsedTimer sinceFirstDelta;
        int deltas = 0;
        QObject::connect(&controller, &AgentController::assistantTextDelta, w.window.get(), [&] {
            if (deltas++ == 0)
                sinceFirstDelta.start();
        });
        QEventLoop loop;
        bool failed = false;
        QObject::connect(&controller, &AgentController::finished, &loop, &QEventLoop::quit);
        QObject::connect(&controller, &AgentController::failed, &loop, [&](const Error &error) {
            failed = true;
            diag(u"%1: the run failed: %2"_s.arg(id, error.message));
            loop.quit();
        });
        QTimer::singleShot(std::chrono::seconds(60), &loop, [&] {
            failed = true;
            diag(u"%1: no end after 60 s"_s.arg(id));
            loop.quit();
        });

        Bench::StallProbe probe;
        probe.start();
        w.window->promptEdit()->setPlainText(u"Stream a long answer"_s);
        w.window->send();
        loop.exec();
        const double seconds = sinceFirstDelta.isValid() ? sinceFirstDelta.nsecsElapsed() / 1e9 : 0;
        probe.stop();
        if (failed)
            continue;
        // The controller reports a delta per network read (many events), so the rate counts tokens.
        const double rate = seconds > 0 ? tokens / seconds : 0;
        const ChatItem &answer = w.window->chatModel()->item(w.window->chatModel()->rowCount() - 1);
        if (answer.text.size() != characters)
            diag(u"%1: the answer has %2 characters, %3 were sent"_s.arg(id)
                         .arg(answer.text.size())
                         .arg(characters));
        diag(u"%1 sample %2: %3 deltas in %4 s (%5 tokens/s), %6 probe ticks, longest gap %7 "
             "ms, p99 %8 ms"_s.arg(id)
                     .arg(s + 1)
                     .arg(deltas)
                     .arg(seconds, 0, 'f', 2)
                     .arg(rate, 0, 'f', 0)
                     .arg(probe.ticks())
                     .arg(probe.longestMs(), 0, 'f', 2)
                     .arg(probe.p99Ms(), 0, 'f', 2));
        Bench::report(id, u"longest event-loop stall"_s, u"ms"_s, probe.longestMs());
        Bench::report(id, u"p99 event-loop stall"_s, u"ms"_s, probe.p99Ms());
        Bench::report(id, u"token rate delivered"_s, u"tokens/s"_s, rate, true);
    }
}

// Samples VmRSS every 2 ms on a thread of its own (the measured event loop may be busy).
class RssSampler
{
public:
    RssSampler()
        : m_thread([this] {
            while (!m_stop.load()) {
                const qint64 rss = Bench::procStatusKb("VmRSS");
                if (rss > m_maxKb.load())
                    m_maxKb.store(rss);
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        })
    {}
    ~RssSampler() { stop(); }
    RssSampler(const RssSampler &) = delete;
    RssSampler &operator=(const RssSampler &) = delete;

    qint64 stop()
    {
        m_stop.store(true);
        if (m_thread.joinable())
            m_thread.join();
        return m_maxKb.load();
    }

private:
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_maxKb{0};
    std::thread m_thread;
};

void commandOutput(int samples)
{
    const QString id = u"4-command-output"_s;
    constexpr qint64 bytes = 200'000'000;
    // 200 MB in lines of 64 characters.
    const QString command = u"yes %1 | head -c %2"_s.arg(QString(63, u'x')).arg(bytes);
    Window w(Window::demoSettings());
    for (int s = 0; s < samples; ++s) {
        settle(std::chrono::seconds(1));
        Bench::resetPeakRss();
        const qint64 idleKb = Bench::procStatusKb("VmRSS");

        ShellToolOptions options;
        options.workspace = w.workspace.path();
        options.timeout = std::chrono::minutes(5);
        // As in the app: the whole output spilled to a file, head and tail in memory.
        const QString outputs = QDir(w.workspace.path()).filePath(u"outputs"_s);
        options.outputDirectory = [outputs] {
            return outputs;
        };
        ShellTool tool(std::make_shared<ProcessCommandRunner>(), options);
        PreparedCall call{ToolCall{u"call_bench"_s, u"shell"_s, {}}, {{u"command"_s, command}}, {}};

        RssSampler sampler;
        Bench::StallProbe probe;
        QEventLoop loop;
        ToolResult result;
        QElapsedTimer clock;
        probe.start();
        clock.start();
        std::unique_ptr<ToolRun> run(tool.invoke(call, nullptr));
        QObject::connect(run.get(), &ToolRun::finished, &loop, [&](const ToolResult &r) {
            result = r;
            loop.quit();
        });
        loop.exec();
        const double seconds = clock.nsecsElapsed() / 1e9;
        const qsizetype cut = result.content.indexOf(u"[... "_s);
        diag(u"%1: the model gets: %2"_s.arg(id,
                                             cut < 0 ? u"the whole output"_s
                                                     : result.content.mid(cut).section(u'\n', 0, 0)));
        // What the window then shows: the result in the chat.
        ChatItem item;
        item.kind = ChatItem::ToolResult;
        item.text = result.content;
        item.toolName = u"shell"_s;
        item.toolCallId = call.call.id;
        item.ok = result.ok;
        item.exitCode = result.exitCode;
        item.durationMs = result.durationMs;
        item.outputFile = result.outputFile;
        w.window->chatModel()->append(std::move(item));
        settle(std::chrono::milliseconds(100));
        probe.stop();
        const qint64 peakKb = std::max(sampler.stop(), Bench::procStatusKb("VmHWM"));

        const OutputFile &file = result.outputFile;
        const qint64 fileBytes = QFileInfo(file.path).size();
        diag(u"%1: output file %2, %3 bytes%4"_s.arg(id, file.path)
                     .arg(fileBytes)
                     .arg(file.complete ? QString() : u" (incomplete: %1)"_s.arg(file.problem)));
        QDir(outputs).removeRecursively(); // 200 MB per sample

        const double growthMb = double(peakKb - idleKb) / kB;
        diag(u"%1 sample %2: exit %3 after %4 s, %5 characters to the model; idle RSS %6 MB, "
             "peak %7 MB (+%8 MB); %9 probe ticks, longest gap %10 ms, p99 %11 ms"_s.arg(id)
                     .arg(s + 1)
                     .arg(result.exitCode)
                     .arg(seconds, 0, 'f', 2)
                     .arg(result.content.size())
                     .arg(idleKb / kB, 0, 'f', 1)
                     .arg(peakKb / kB, 0, 'f', 1)
                     .arg(growthMb, 0, 'f', 1)
                     .arg(probe.ticks())
                     .arg(probe.longestMs(), 0, 'f', 2)
                     .arg(probe.p99Ms(), 0, 'f', 2));
        Bench::report(id, u"peak RSS minus idle"_s, u"MB"_s, growthMb);
        Bench::report(id, u"idle RSS"_s, u"MB"_s, idleKb / kB);
        Bench::report(id, u"longest event-loop stall"_s, u"ms"_s, probe.longestMs());
        Bench::report(id, u"p99 event-loop stall"_s, u"ms"_s, probe.p99Ms());
        Bench::report(id, u"command wall time"_s, u"s"_s, seconds);
        Bench::report(id, u"spill file bytes"_s, u"MB"_s, double(fileBytes) / 1e6);
    }
}

struct StartupRun
{
    double shownMs = -1;
    double listedMs = -1; // the saved conversations in the window's list
    qint64 idleRssKb = -1;
};

// Starts program, times until it prints "shown", then reads its "rss <kB>" line.
StartupRun timeStartup(const QString &program, const QStringList &arguments)
{
    StartupRun run;
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QElapsedTimer clock;
    clock.start();
    process.start(program, arguments);
    const QDeadlineTimer deadline(std::chrono::seconds(30));
    while (!deadline.hasExpired() && (run.shownMs < 0 || run.idleRssKb < 0)) {
        if (!process.canReadLine() && !process.waitForReadyRead(100)) {
            if (process.state() == QProcess::NotRunning)
                break;
            continue;
        }
        while (process.canReadLine()) {
            const QByteArray line = process.readLine().trimmed();
            if (line == "shown")
                run.shownMs = double(clock.nsecsElapsed()) / 1e6;
            else if (line == "listed")
                run.listedMs = double(clock.nsecsElapsed()) / 1e6;
            else if (line.startsWith("rss "))
                run.idleRssKb = line.mid(4).toLongLong();
        }
    }
    if (!process.waitForFinished(10000))
        process.kill();
    if (run.shownMs < 0 || run.idleRssKb < 0)
        diag(u"5-startup: %1 did not report (%2)"_s.arg(program, process.errorString()));
    return run;
}

void startup(int samples)
{
    const QString id = u"5-startup"_s;
    const QString self = QCoreApplication::applicationFilePath();
    const QString bare = QStringLiteral(AGENTLOOP_BENCH_BAREWINDOW);
    // One unreported run of each: libraries into the page cache.
    timeStartup(self, {u"--startup"_s});
    timeStartup(bare, {});
    for (int s = 0; s < samples; ++s) {
        // Alternating order, so that neither always runs right after the other.
        StartupRun app;
        StartupRun floor;
        if (s % 2 == 0) {
            app = timeStartup(self, {u"--startup"_s});
            floor = timeStartup(bare, {});
        } else {
            floor = timeStartup(bare, {});
            app = timeStartup(self, {u"--startup"_s});
        }
        if (app.shownMs < 0 || floor.shownMs < 0)
            continue;
        diag(u"%1 sample %2: MainWindow %3 ms, bare QMainWindow %4 ms; idle RSS %5 MB vs %6 MB"_s
                     .arg(id)
                     .arg(s + 1)
                     .arg(app.shownMs, 0, 'f', 1)
                     .arg(floor.shownMs, 0, 'f', 1)
                     .arg(app.idleRssKb / kB, 0, 'f', 1)
                     .arg(floor.idleRssKb / kB, 0, 'f', 1));
        Bench::report(id, u"time to first shown MainWindow"_s, u"ms"_s, app.shownMs);
        Bench::report(id, u"time to first shown bare QMainWindow"_s, u"ms"_s, floor.shownMs);
        Bench::report(id,
                      u"MainWindow / bare QMainWindow"_s,
                      u"ratio"_s,
                      app.shownMs / floor.shownMs);
        Bench::report(id, u"idle RSS MainWindow"_s, u"MB"_s, app.idleRssKb / kB);
        Bench::report(id, u"idle RSS bare QMainWindow"_s, u"MB"_s, floor.idleRssKb / kB);
    }
}

// Conversations as the store writes them: a header line, then user messages of about 1 kB up to
// megabytes each. Returns false when the disk is full or not writable.
bool writeConversations(const QString &directory, int count, int megabytes)
{
    QByteArray message = R"({"content":")";
    message += QByteArray("the build log says ").repeated(50);
    message += "\",\"role\":\"user\"}\n";
    const QByteArray block = message.repeated(qsizetype(1 << 20) / message.size());
    for (int i = 0; i < count; ++i) {
        QFile file(
                QDir(directory).filePath(u"20260101-%1-%2.jsonl"_s.arg(i / 60, 6, 10, QChar(u'0'))
                                                 .arg(i, 4, 16, QChar(u'0'))));
        if (!file.open(QIODevice::WriteOnly))
            return false;
        const QByteArray header = QJsonDocument(
                                          QJsonObject{{u"agentloop"_s, u"conversation"_s},
                                                      {u"version"_s, 1},
                                                      {u"title"_s, u"Conversation %1"_s.arg(i + 1)},
                                                      {u"created"_s, u"2026-01-01T00:00:00.000"_s},
                                                      {u"model"_s, u"bench"_s},
                                                      {u"baseUrl"_s, u"http://127.0.0.1/v1"_s}})
                                          .toJson(QJsonDocument::Compact)
                                  + '\n';
        if (file.write(header) != header.size())
            return false;
        for (int mb = 0; mb < megabytes; ++mb) {
            if (file.write(block) != block.size())
                return false;
        }
    }
    return true;
}

void manyConversations(int samples)
{
    const QString id = u"10-many-conversations"_s;
    const QString self = QCoreApplication::applicationFilePath();
    const int count = qEnvironmentVariableIntValue("AGENTLOOP_BENCH_CONVERSATIONS") > 0
                              ? qEnvironmentVariableIntValue("AGENTLOOP_BENCH_CONVERSATIONS")
                              : 1000;
    const int megabytes = qEnvironmentVariableIntValue("AGENTLOOP_BENCH_CONVERSATION_MB") > 0
                                  ? qEnvironmentVariableIntValue("AGENTLOOP_BENCH_CONVERSATION_MB")
                                  : 5;
    QTemporaryDir many;
    QTemporaryDir none;
    diag(u"%1: writing %2 conversations of %3 MB into %4"_s.arg(id).arg(count).arg(megabytes).arg(
            many.path()));
    if (!many.isValid() || !none.isValid() || !writeConversations(many.path(), count, megabytes)) {
        diag(u"%1: the conversations could not be written: not measured"_s.arg(id));
        return;
    }
    const QStringList withMany{u"--startup"_s, u"--conversations"_s, many.path()};
    const QStringList withNone{u"--startup"_s, u"--conversations"_s, none.path()};
    // The first start reads every file whole and writes the index; reported, not compared.
    const StartupRun first = timeStartup(self, withMany);
    if (first.shownMs >= 0)
        Bench::report(id, u"first start, index built"_s, u"ms"_s, first.shownMs);
    timeStartup(self, withNone);
    for (int s = 0; s < samples; ++s) {
        StartupRun full;
        StartupRun empty;
        if (s % 2 == 0) {
            full = timeStartup(self, withMany);
            empty = timeStartup(self, withNone);
        } else {
            empty = timeStartup(self, withNone);
            full = timeStartup(self, withMany);
        }
        if (full.shownMs < 0 || empty.shownMs < 0)
            continue;
        diag(u"%1 sample %2: %3 conversations %4 ms, none %5 ms"_s.arg(id)
                     .arg(s + 1)
                     .arg(count)
                     .arg(full.shownMs, 0, 'f', 1)
                     .arg(empty.shownMs, 0, 'f', 1));
        Bench::report(id, u"start with the conversations"_s, u"ms"_s, full.shownMs);
        if (full.listedMs >= 0)
            Bench::report(id, u"conversations listed"_s, u"ms"_s, full.listedMs);
        Bench::report(id, u"start with none"_s, u"ms"_s, empty.shownMs);
        Bench::report(id, u"many / none"_s, u"ratio"_s, full.shownMs / empty.shownMs);
    }
}

// A conversation of a long session as the store writes it, of about megabytes: each turn a
// prompt, an answer asking for two commands, their outputs of about 20 kB (a build log), and a
// Markdown answer. Returns its id, or empty when it could not be written.
QString writeLongConversation(const QString &directory, int megabytes)
{
    const QString id = u"20260101-000000-b10b"_s;
    QFile file(QDir(directory).filePath(id + u".jsonl"_s));
    if (!file.open(QIODevice::WriteOnly))
        return {};
    const auto line = [&file](const QJsonObject &object) {
        const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
        return file.write(bytes) == bytes.size();
    };
    bool written = line(QJsonObject{{u"agentloop"_s, u"conversation"_s},
                                    {u"version"_s, 1},
                                    {u"title"_s, u"A long session"_s},
                                    {u"created"_s, u"2026-01-01T00:00:00.000"_s},
                                    {u"model"_s, u"bench"_s},
                                    {u"baseUrl"_s, u"http://127.0.0.1/v1"_s}})
                   && line(Message::system(u"You are a coding agent."_s).toStoredJson());
    QString log;
    for (int i = 0; log.size() < 20 * 1024; ++i)
        log += u"[%1/422] Building CXX object src/core/CMakeFiles/core.dir/file%2.cpp.o\n"_s.arg(i)
                       .arg(i * 7);
    const QString answer = u"The build got further. **What changed:** the include order in "
                           "`src/core/file.cpp`, and the flags.\n\n- one point about the "
                           "linker\n- another about `-Werror`\n\n"_s.repeated(10);
    for (int turn = 0; written && file.size() < qint64(megabytes) << 20; ++turn) {
        const QString a = u"call_%1_a"_s.arg(turn);
        const QString b = u"call_%1_b"_s.arg(turn);
        written = line(Message::user(u"Step %1: build it again and fix what fails."_s.arg(turn))
                               .toStoredJson())
                  && line(Message::assistant(std::nullopt,
                                             {ToolCall{a,
                                                       u"shell"_s,
                                                       u"{\"command\":\"cmake --build build\"}"_s},
                                              ToolCall{b,
                                                       u"shell"_s,
                                                       u"{\"command\":\"ctest -j2\"}"_s}})
                                  .toStoredJson())
                  && line(Message::tool(a, log).toStoredJson())
                  && line(Message::tool(b, log).toStoredJson())
                  && line(Message::assistant(u"Turn %1. "_s.arg(turn) + answer).toStoredJson());
    }
    written = written && line(Message::user(u"The last prompt."_s).toStoredJson())
              && line(Message::assistant(u"The last answer of the long session."_s).toStoredJson());
    return written ? id : QString();
}

// Opening a conversation of 100 MB (AGENTLOOP_BENCH_OPEN_MB): the time to its last screen (the
// last answer laid out and the view at the bottom), the time until every message is in the chat,
// and the longest event-loop stall from the click on, and while the earlier messages arrive.
void openLargeConversation(int samples)
{
    const QString id = u"11-open-large-conversation"_s;
    const int megabytes = qEnvironmentVariableIntValue("AGENTLOOP_BENCH_OPEN_MB") > 0
                                  ? qEnvironmentVariableIntValue("AGENTLOOP_BENCH_OPEN_MB")
                                  : 100;
    for (int s = 0; s < samples; ++s) {
        Window w(Window::demoSettings());
        const QString conversation = writeLongConversation(w.conversations.path(), megabytes);
        if (conversation.isEmpty()) {
            diag(u"%1: the conversation could not be written: not measured"_s.arg(id));
            return;
        }
        Gui::ChatModel *model = w.window->chatModel();
        Gui::ChatView *view = w.window->chatView();
        const Gui::RunFeed *feed = w.window->runFeed();
        bool shown = false;
        QObject::connect(feed, &Gui::RunFeed::conversationShown, w.window.get(), [&] {
            shown = true;
        });
        const auto lastScreenShown = [&] {
            const int rows = model->rowCount();
            return rows > 0
                   && model->item(rows - 1).text == u"The last answer of the long session."_s
                   && view->verticalScrollBar()->value()
                              >= view->verticalScrollBar()->maximum() - 2;
        };
        Bench::StallProbe whole;
        Bench::StallProbe rest;
        QElapsedTimer clock;
        whole.start();
        clock.start();
        w.window->openConversation(conversation);
        double lastScreenMs = -1;
        const QDeadlineTimer deadline(std::chrono::minutes(5));
        while (!shown && !deadline.hasExpired()) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            if (lastScreenMs < 0 && lastScreenShown()) {
                QCoreApplication::processEvents(); // its paint
                lastScreenMs = double(clock.nsecsElapsed()) / 1e6;
                rest.start();
            }
        }
        const double allMs = double(clock.nsecsElapsed()) / 1e6;
        whole.stop();
        rest.stop();
        if (!shown || lastScreenMs < 0) {
            diag(u"%1: the conversation was not shown within 5 minutes"_s.arg(id));
            continue;
        }
        diag(u"%1 sample %2: %3 MB, %4 rows: last screen %5 ms, all %6 ms, longest stall %7 ms "
             "(%8 ms while the rest arrived)"_s.arg(id)
                     .arg(s + 1)
                     .arg(megabytes)
                     .arg(model->rowCount())
                     .arg(lastScreenMs, 0, 'f', 1)
                     .arg(allMs, 0, 'f', 1)
                     .arg(whole.longestMs(), 0, 'f', 1)
                     .arg(rest.longestMs(), 0, 'f', 1));
        Bench::report(id, u"time to the last screen"_s, u"ms"_s, lastScreenMs);
        Bench::report(id, u"time to every message"_s, u"ms"_s, allMs);
        Bench::report(id, u"longest stall while the rest arrives"_s, u"ms"_s, rest.longestMs());
        Bench::report(id, u"longest stall from the click"_s, u"ms"_s, whole.longestMs());
    }
}

// The child of 5-startup and 10-many-conversations: the app's main() up to the first shown
// window, with demo settings, a temporary conversation directory (or --conversations DIR) and the
// key kept in memory (no credential store, and no start(): it follows the first show and would
// open the first-start settings dialog).
int startupChild(QApplication &app)
{
    QApplication::setOrganizationName(u"AgentLoop"_s);
    QApplication::setApplicationName(u"AgentLoop"_s);
    QApplication::setApplicationVersion(QStringLiteral(AGENTLOOP_VERSION));
    QGuiApplication::setDesktopFileName(u"agentloop"_s);
    QApplication::setWindowIcon(Gui::applicationIcon());
    installTranslations(app);
    QTemporaryDir conversations;
    QTemporaryDir workspace;
    AgentLoop::KeyStore keyStore(AgentLoop::KeyStore::Backend::SessionOnly, u"agentloop-bench"_s);
    Gui::AppSettings settings = Window::demoSettings();
    settings.workspace = workspace.path();
    MainWindow::Options options;
    options.keyStore = &keyStore;
    options.persist = false;
    const QStringList args = QCoreApplication::arguments();
    const qsizetype given = args.indexOf(u"--conversations"_s);
    options.conversationDirectory = given >= 0 && given + 1 < args.size() ? args.at(given + 1)
                                                                          : conversations.path();
    MainWindow window(settings, options);
    new Bench::ShownReporter(&window);
    // The saved conversations are listed on another thread; when the list shows them is said too.
    QTimer listed;
    listed.setInterval(1);
    QObject::connect(&listed, &QTimer::timeout, &window, [&] {
        if (window.isListingConversations())
            return;
        listed.stop();
        std::fputs("listed\n", stdout);
        std::fflush(stdout);
    });
    listed.start();
    window.show();
    return app.exec();
}

// One turn of a long session on the timeline, from t (ms) on: the request and its streamed
// answer, an approval every fifth turn, one or two commands (two reads together every third
// turn), and the arrows carrying the results back with the next request. Returns the end.
qint64 addTimelineTurn(AgentLoop::RunTimeline &timeline, int turn, qint64 t)
{
    using AgentLoop::TimelineSpan;
    TimelineSpan request;
    request.lane = TimelineSpan::Model;
    request.kind = TimelineSpan::Request;
    request.startMs = t;
    request.endMs = t + 900 + (turn * 37) % 2400;
    request.firstByteMs = t + 300 + (turn * 13) % 500;
    request.turn = turn;
    request.label = u"gpt-bench"_s;
    request.promptTokens = 2000 + turn * 40;
    request.completionTokens = 150 + turn % 200;
    const int requestIndex = timeline.addSpan(request);
    // The previous turn's tools hand their results to this request.
    for (int i = requestIndex - 1; i >= 0 && i >= requestIndex - 3; --i) {
        if (timeline.spans().at(i).kind == TimelineSpan::ToolRun)
            timeline.addArrow({i, requestIndex});
        else if (timeline.spans().at(i).kind == TimelineSpan::Request)
            break;
    }
    t = request.endMs;
    if (turn % 5 == 0) {
        TimelineSpan approval;
        approval.lane = TimelineSpan::App;
        approval.kind = TimelineSpan::Approval;
        approval.startMs = t;
        approval.endMs = t + 1500 + (turn * 71) % 4000;
        approval.turn = turn;
        approval.label = u"shell"_s;
        timeline.addSpan(approval);
        t = approval.endMs;
    }
    const int tools = turn % 3 == 0 ? 2 : 1;
    qint64 end = t;
    for (int i = 0; i < tools; ++i) {
        TimelineSpan tool;
        tool.lane = TimelineSpan::Tools;
        tool.kind = TimelineSpan::ToolRun;
        tool.startMs = t;
        tool.endMs = t + 40 + (turn * 97 + i * 53) % 3000;
        tool.turn = turn;
        tool.slot = i;
        tool.label = tools == 2 ? u"read_file"_s : u"shell"_s;
        timeline.addSpan(tool);
        end = std::max(end, tool.endMs);
    }
    return end;
}

// The Timeline of 1 000 turns in the main window's dock: scrolled page by page, zoomed out with
// Ctrl+wheel to the whole session and in again, while a new turn joins every 100 ms (as a live
// run's would); the longest gap of a 1 ms timer meanwhile. Then one paint of all of it, fitted to
// the view (every box on screen at once).
void timelineStalls(int samples)
{
    const QString id = u"12-timeline"_s;
    constexpr int turns = 1000;
    for (int s = 0; s < samples; ++s) {
        Window w(Window::demoSettings());
        AgentLoop::RunTimeline *timeline = w.window->runFeed()->timeline();
        qint64 t = 0;
        int turn = 1;
        for (; turn <= turns; ++turn)
            t = addTimelineTurn(*timeline, turn, t + 200);
        timeline->setNow(t);
        Gui::TimelineDock *dock = w.window->timelineDock();
        dock->toggleAction()->trigger();
        settle(std::chrono::milliseconds(300));
        Gui::TimelineView *view = dock->panel()->view();
        if (!view->isVisible()) {
            diag(u"%1: the timeline is not shown: not measured"_s.arg(id));
            return;
        }
        QScrollBar *bar = view->horizontalScrollBar();
        const auto wheel = [view](int angle) {
            const QPointF at(view->viewport()->width() / 2.0, view->viewport()->height() / 2.0);
            QWheelEvent event(at,
                              view->viewport()->mapToGlobal(at),
                              QPoint(),
                              QPoint(0, angle),
                              Qt::NoButton,
                              Qt::ControlModifier,
                              Qt::NoScrollPhase,
                              false);
            QCoreApplication::sendEvent(view->viewport(), &event);
        };

        Bench::StallProbe probe;
        probe.start();
        QElapsedTimer sinceLiveTurn;
        sinceLiveTurn.start();
        // Each step is what a user's one input does, then the loop runs (and paints) as it would
        // between two inputs.
        const auto step = [&](const std::function<void()> &input) {
            input();
            if (sinceLiveTurn.elapsed() >= 100) {
                t = addTimelineTurn(*timeline, turn++, t + 200);
                timeline->setNow(t);
                sinceLiveTurn.restart();
            }
            settle(std::chrono::milliseconds(16));
        };
        bar->setValue(0);
        for (int i = 0; i < 60; ++i)
            step([&] { bar->setValue(bar->value() + bar->pageStep()); });
        // Out to the whole session (1.5x per notch), and in again.
        int notches = 0;
        while (view->pixelsPerMs() * double(t) > view->viewport()->width() / 2.0 && notches < 40) {
            step([&] { wheel(-120); });
            ++notches;
        }
        for (int i = 0; i < 20; ++i)
            step([&] { bar->setValue(bar->value() - bar->pageStep() / 3); });
        for (int i = 0; i < notches; ++i)
            step([&] { wheel(120); });
        for (int i = 0; i < 30; ++i)
            step([&] { bar->setValue(bar->value() - bar->pageStep()); });
        probe.stop();

        view->zoomToFit();
        settle(std::chrono::milliseconds(50));
        QElapsedTimer paint;
        paint.start();
        view->viewport()->repaint();
        const double paintMs = double(paint.nsecsElapsed()) / 1e6;

        diag(u"%1: %2 turns, %3 spans, %4 ticks, longest stall %5 ms, p99 %6 ms, paint at fit %7 ms"_s
                     .arg(id)
                     .arg(turn - 1)
                     .arg(timeline->spans().size())
                     .arg(probe.ticks())
                     .arg(probe.longestMs(), 0, 'f', 2)
                     .arg(probe.p99Ms(), 0, 'f', 2)
                     .arg(paintMs, 0, 'f', 2));
        Bench::report(id, u"longest event-loop stall"_s, u"ms"_s, probe.longestMs());
        Bench::report(id, u"p99 event-loop stall"_s, u"ms"_s, probe.p99Ms());
        Bench::report(id, u"paint of every turn"_s, u"ms"_s, paintMs);
    }
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication::setHighDpiScaleFactorRoundingPolicy(
            Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.contains(u"--startup"_s))
        return startupChild(app);

    // Nothing of the user's settings is read or written.
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir configDir;
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, configDir.path());

    const auto value = [&args](const QString &option) {
        const qsizetype at = args.indexOf(option);
        return at >= 0 && at + 1 < args.size() ? args.at(at + 1) : QString();
    };
    const QString name = value(u"--case"_s);
    const int samples = std::max(1,
                                 value(u"--samples"_s).isEmpty() ? 5
                                                                 : value(u"--samples"_s).toInt());
    const QList<std::pair<QString, std::function<void(int)>>> cases{
            {u"3-chat-append"_s, chatAppend},
            {u"3-stream-stalls"_s, streamStalls},
            {u"4-command-output"_s, commandOutput},
            {u"5-startup"_s, startup},
            {u"10-many-conversations"_s, manyConversations},
            {u"11-open-large-conversation"_s, openLargeConversation},
            {u"12-timeline"_s, timelineStalls},
    };
    bool ran = false;
    for (const auto &[caseName, function] : cases) {
        const bool inAll = !caseName.startsWith(u"10-"_s) && !caseName.startsWith(u"11-"_s)
                           && !caseName.startsWith(u"12-"_s);
        if (name == caseName || (name == u"all"_s && inAll)) {
            function(samples);
            ran = true;
        }
    }
    if (!ran) {
        QStringList names;
        for (const auto &entry : cases)
            names << entry.first;
        diag(u"usage: agentloop-bench-gui --case {%1|all} [--samples N]"_s.arg(names.join(u'|')));
        return 2;
    }
    return 0;
}
