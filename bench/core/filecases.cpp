#include "filecases.h"

#include "output.h"
#include "tools/filetools.h"
#include "treegen.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop::Bench {

namespace {

// A 1 ms precise timer on this thread's event loop; each tick records the time since the one
// before. A gap much longer than 1 ms is a stall: the loop was busy with something else.
// (bench/gui/benchcommon.h has the same probe for the widget cases.)
class StallProbe final
{
public:
    StallProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            m_longestNs = std::max(m_longestNs, now - m_last);
            m_last = now;
        });
    }

    void start()
    {
        m_longestNs = 0;
        m_clock.start();
        m_last = 0;
        m_timer.start();
    }

    // The longest gap, the one up to now included.
    double stopAndTakeLongestMs()
    {
        m_timer.stop();
        m_longestNs = std::max(m_longestNs, m_clock.nsecsElapsed() - m_last);
        return double(m_longestNs) / 1e6;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longestNs = 0;
};

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), or -1 where there is none.
qint64 procStatusKb(QByteArrayView field)
{
    QFile file(u"/proc/self/status"_s);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(field) && line.size() > field.size() && line.at(field.size()) == ':')
            return line.mid(field.size() + 1).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

// Resets VmHWM to the current RSS (Linux 4.0+).
bool resetPeakRss()
{
    QFile file(u"/proc/self/clear_refs"_s);
    return file.open(QIODevice::WriteOnly) && file.write("5") == 1;
}

struct TimedToolRun
{
    ToolResult result;
    double ms = 0;             // from prepare() to finished()
    double longestStallMs = 0; // of this thread's event loop meanwhile
};

// One call as the agent makes it: prepare, invoke, and this thread's event loop running until
// finished() (a benchmark may wait in a local loop; the product never does).
TimedToolRun runTool(const ToolSnapshot &tools, const QString &name, const QJsonObject &arguments)
{
    const ToolCall call{u"call_bench"_s,
                        name,
                        QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact))};
    TimedToolRun run;
    StallProbe probe;
    QEventLoop loop;
    QElapsedTimer clock;
    probe.start();
    clock.start();
    const Preparation preparation = tools.prepare(call);
    if (const auto *refused = std::get_if<ToolResult>(&preparation)) {
        run.result = *refused;
        return run;
    }
    ToolRun *toolRun = tools.find(name)->invoke(std::get<PreparedCall>(preparation), &loop);
    QObject::connect(toolRun, &ToolRun::finished, &loop, [&](const ToolResult &result) {
        run.ms = double(clock.nsecsElapsed()) / 1e6;
        run.result = result;
        loop.quit();
    });
    loop.exec();
    run.longestStallMs = probe.stopAndTakeLongestMs();
    return run;
}

// The longest stall of this thread's event loop with nothing to do for `ms`: what the machine
// itself adds (other processes, the scheduler) to what is measured while a tool runs.
double idleStallMs(double ms)
{
    StallProbe probe;
    QEventLoop loop;
    QTimer::singleShot(int(ms), &loop, &QEventLoop::quit);
    probe.start();
    loop.exec();
    return probe.stopAndTakeLongestMs();
}

// ---- Case 7 -----------------------------------------------------------------------------------

// A command-line search next to the tool.
struct Peer
{
    QString subject;
    QString program;
    QStringList arguments;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
};

struct TimedPeerRun
{
    QByteArray output;
    double ms = 0; // from start() to finished()
    bool ok = false;
    QString error;
};

TimedPeerRun runPeer(const Peer &peer, const QString &folder)
{
    TimedPeerRun run;
    QProcess process;
    process.setWorkingDirectory(folder);
    process.setProcessEnvironment(peer.environment);
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, [&](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    process.start(peer.program, peer.arguments);
    loop.exec();
    run.ms = double(clock.nsecsElapsed()) / 1e6;
    run.output = process.readAllStandardOutput();
    // grep and ripgrep exit with 0 when they found something, 1 when not, 2 on errors.
    run.ok = process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    if (!run.ok)
        run.error = u"%1 exited with %2: %3"_s.arg(peer.program)
                            .arg(process.exitCode())
                            .arg(QString::fromLocal8Bit(process.readAllStandardError()).trimmed());
    return run;
}

// "path:line" of every matching line of `grep -n`-style output, sorted; the tool's notes
// ("[Stopped ...]", "No matches for ...") and grep's "./" are left out.
QStringList matchKeys(const QString &output)
{
    QStringList keys;
    for (QStringView line : QStringView(output).split(u'\n', Qt::SkipEmptyParts)) {
        if (line.startsWith(u'[') || line.startsWith(u"No matches for "))
            continue;
        if (line.startsWith(u"./"))
            line = line.sliced(2);
        const qsizetype path = line.indexOf(u':');
        const qsizetype number = path < 0 ? -1 : line.indexOf(u':', path + 1);
        keys.append((number < 0 ? line : line.first(number)).toString());
    }
    keys.sort();
    return keys;
}

// The tree of case 7, generated into keepDir/tree once (keepDir/tree.json says what it holds),
// or into a temporary folder.
struct Tree
{
    QString root;
    TreeSummary summary;
    std::unique_ptr<QTemporaryDir> temporary;
};

std::optional<Tree> prepareTree(const FileCaseOptions &options)
{
    Tree tree;
    QString base = options.keepDir;
    if (base.isEmpty()) {
        tree.temporary = std::make_unique<QTemporaryDir>();
        if (!tree.temporary->isValid()) {
            note(u"grep: cannot create a temporary folder"_s);
            return std::nullopt;
        }
        base = tree.temporary->path();
    }
    tree.root = QDir(base).filePath(u"tree"_s);
    QFile info(QDir(base).filePath(u"tree.json"_s));
    const QJsonObject wanted{{u"files"_s, options.files}, {u"bytes"_s, double(options.bytes)}};
    if (info.open(QIODevice::ReadOnly)) {
        const QJsonObject stored = QJsonDocument::fromJson(info.readAll()).object();
        info.close();
        if (stored.value(u"wanted"_s).toObject() == wanted) {
            const QJsonObject s = stored.value(u"summary"_s).toObject();
            tree.summary.files = s.value(u"files"_s).toInt();
            tree.summary.bytes = s.value(u"bytes"_s).toInteger();
            tree.summary.matchingLines = s.value(u"matchingLines"_s).toInt();
            tree.summary.matchingFiles = s.value(u"matchingFiles"_s).toInt();
            tree.summary.ignoredMatchingLines = s.value(u"ignoredMatchingLines"_s).toInt();
            tree.summary.gb18030Files = s.value(u"gb18030Files"_s).toInt();
            tree.summary.binaryFiles = s.value(u"binaryFiles"_s).toInt();
            note(u"grep: reusing the tree in %1"_s.arg(tree.root));
            return tree;
        }
    }
    QDir(tree.root).removeRecursively();
    if (!QDir().mkpath(tree.root)) {
        note(u"grep: cannot create %1"_s.arg(tree.root));
        return std::nullopt;
    }
    QElapsedTimer clock;
    clock.start();
    const Result<TreeSummary> generated = generateTree(tree.root, options.files, options.bytes);
    if (!generated) {
        note(u"grep: %1"_s.arg(generated.error().message));
        return std::nullopt;
    }
    tree.summary = *generated;
    note(u"grep: generated %1 files, %2 bytes in %3 s"_s.arg(tree.summary.files)
                 .arg(tree.summary.bytes)
                 .arg(double(clock.elapsed()) / 1000, 0, 'f', 1));
    if (!options.keepDir.isEmpty() && info.open(QIODevice::WriteOnly)) {
        const QJsonObject s{{u"files"_s, tree.summary.files},
                            {u"bytes"_s, double(tree.summary.bytes)},
                            {u"matchingLines"_s, tree.summary.matchingLines},
                            {u"matchingFiles"_s, tree.summary.matchingFiles},
                            {u"ignoredMatchingLines"_s, tree.summary.ignoredMatchingLines},
                            {u"gb18030Files"_s, tree.summary.gb18030Files},
                            {u"binaryFiles"_s, tree.summary.binaryFiles}};
        info.write(QJsonDocument(QJsonObject{{u"wanted"_s, wanted}, {u"summary"_s, s}}).toJson());
    }
    return tree;
}

// GNU grep and ripgrep, as far as they are installed, searching what the tool searches: text
// files, neither .git/ nor what .gitignore ignores.
QList<Peer> grepPeers()
{
    const QString pattern = QString::fromLatin1(grepPattern);
    QList<Peer> peers;
    if (const QString grep = QStandardPaths::findExecutable(u"grep"_s); !grep.isEmpty()) {
        // GNU grep reads no .gitignore: it is told to leave the ignored folder out. -I skips
        // binary files, as the tool does; the C locale because the tree has GB18030 files,
        // which are not valid UTF-8 (in a UTF-8 locale grep reports them as binary files).
        Peer peer{u"gnu-grep"_s,
                  grep,
                  {u"-rnI"_s,
                   u"-E"_s,
                   u"--exclude-dir=.git"_s,
                   u"--exclude-dir=%1"_s.arg(QString::fromLatin1(ignoredFolder)),
                   pattern,
                   u"."_s}};
        peer.environment.insert(u"LC_ALL"_s, u"C"_s);
        peers.append(peer);
    } else {
        note(u"grep: GNU grep not found, not measured"_s);
    }
    if (const QString rg = QStandardPaths::findExecutable(u"rg"_s); !rg.isEmpty()) {
        // Reads .gitignore (the tree has a .git/), skips binary and hidden files by itself.
        peers.append({u"ripgrep"_s,
                      rg,
                      {u"-n"_s, u"--no-heading"_s, u"--color=never"_s, pattern, u"."_s}});
    } else {
        note(u"grep: ripgrep (rg) not found, not measured"_s);
    }
    return peers;
}

} // namespace

int grepCase(const FileCaseOptions &options)
{
    const std::optional<Tree> tree = prepareTree(options);
    if (!tree)
        return 1;
    const TreeSummary &summary = tree->summary;
    note(u"grep: %1 lines in %2 files match %3 (plus %4 in the ignored %5/); %6 GB18030 and %7 "
         u"binary files"_s.arg(summary.matchingLines)
                 .arg(summary.matchingFiles)
                 .arg(QString::fromLatin1(grepPattern))
                 .arg(summary.ignoredMatchingLines)
                 .arg(QString::fromLatin1(ignoredFolder))
                 .arg(summary.gb18030Files)
                 .arg(summary.binaryFiles));

    const auto context = std::make_shared<FileToolContext>(tree->root);
    const ToolSnapshot tools(fileTools(context));
    // max_results well above what the tree has, so that the tool searches every file.
    const QJsonObject arguments{{u"pattern"_s, QString::fromLatin1(grepPattern)},
                                {u"max_results"_s, 2000}};
    const QList<Peer> peers = grepPeers();

    // What every subject found must be what the tree has; checked on every run.
    QStringList expected;
    const auto check = [&](const QString &subject, const QString &output) {
        const QStringList keys = matchKeys(output);
        if (expected.isEmpty())
            expected = keys;
        if (keys.size() != summary.matchingLines || keys != expected) {
            note(u"grep: %1 found %2 matching lines, expected %3 (the same as the others)"_s
                         .arg(subject)
                         .arg(keys.size())
                         .arg(summary.matchingLines));
            return false;
        }
        return true;
    };
    const auto ours = [&]() -> std::optional<TimedToolRun> {
        TimedToolRun run = runTool(tools, u"grep"_s, arguments);
        if (!run.result.ok || run.result.content.contains(u"\n[Stopped"_s)) {
            note(u"grep: the tool did not search everything: %1"_s.arg(
                    run.result.content.right(300)));
            return std::nullopt;
        }
        if (!check(u"agentloop"_s, run.result.content))
            return std::nullopt;
        return run;
    };
    const auto theirs = [&](const Peer &peer) -> std::optional<TimedPeerRun> {
        TimedPeerRun run = runPeer(peer, tree->root);
        if (!run.ok) {
            note(u"grep: %1"_s.arg(run.error));
            return std::nullopt;
        }
        if (!check(peer.subject, QString::fromUtf8(run.output)))
            return std::nullopt;
        return run;
    };

    // One untimed warm-up each: the same page cache (and, for us, the thread pool) for everyone.
    if (!ours())
        return 1;
    for (const Peer &peer : peers) {
        if (!theirs(peer))
            return 1;
    }
    note(u"grep: every subject found the same %1 matching lines"_s.arg(expected.size()));

    for (int run = 0; run < options.runs; ++run) { // interleaved, so drift hits everyone alike
        const std::optional<TimedToolRun> tool = ours();
        if (!tool)
            return 1;
        printSample(u"7-grep"_s, u"search"_s, u"ms"_s, tool->ms, false, u"agentloop"_s);
        printSample(u"7-grep"_s,
                    u"longest event-loop stall"_s,
                    u"ms"_s,
                    tool->longestStallMs,
                    false,
                    u"agentloop"_s);
        const double idle = idleStallMs(tool->ms);
        printSample(u"7-grep"_s, u"longest event-loop stall"_s, u"ms"_s, idle, false, u"idle-loop"_s);
        QString line = u"grep run %1: agentloop %2 ms (stall %3 ms, idle loop %4 ms)"_s.arg(run + 1)
                               .arg(tool->ms, 0, 'f', 1)
                               .arg(tool->longestStallMs, 0, 'f', 1)
                               .arg(idle, 0, 'f', 1);
        for (const Peer &peer : peers) {
            const std::optional<TimedPeerRun> other = theirs(peer);
            if (!other)
                return 1;
            printSample(u"7-grep"_s, u"search"_s, u"ms"_s, other->ms, false, peer.subject);
            line += u", %1 %2 ms"_s.arg(peer.subject).arg(other->ms, 0, 'f', 1);
        }
        note(line);
    }
    return 0;
}

// ---- Case 8 -----------------------------------------------------------------------------------

int readFileCase(const FileCaseOptions &options)
{
    std::unique_ptr<QTemporaryDir> temporary;
    QString folder = options.keepDir;
    if (folder.isEmpty()) {
        temporary = std::make_unique<QTemporaryDir>();
        folder = temporary->path();
    }
    const QString name = u"large-%1.txt"_s.arg(options.bytes);
    const QString path = QDir(folder).filePath(name);
    if (QFileInfo(path).size() != options.bytes) {
        QDir().mkpath(folder);
        if (const Result<void> written = generateTextFile(path, options.bytes); !written) {
            note(u"read_file: %1"_s.arg(written.error().message));
            return 1;
        }
    }

    const auto context = std::make_shared<FileToolContext>(folder);
    const ToolSnapshot tools(fileTools(context));
    const QJsonObject arguments{{u"path"_s, name}}; // the defaults: offset 1, limit 2 000
    const int lines = context->limits.readLineLimit;
    const auto read = [&]() -> std::optional<TimedToolRun> {
        TimedToolRun run = runTool(tools, u"read_file"_s, arguments);
        const QString &content = run.result.content;
        // Lines are numbered like `cat -n`: the last one shown is the limit's.
        const bool complete = content.contains(u"\n%1\t"_s.arg(lines, 6))
                              && !content.contains(u"\n%1\t"_s.arg(lines + 1, 6));
        if (!run.result.ok || !complete) {
            note(u"read_file: not the first %1 lines: %2"_s.arg(lines).arg(content.left(300)));
            return std::nullopt;
        }
        return run;
    };

    if (!read()) // untimed: the page cache, the thread pool, the codecs
        return 1;
    for (int run = 0; run < options.runs; ++run) {
        const bool peakReset = resetPeakRss();
        const qint64 before = procStatusKb("VmRSS");
        const std::optional<TimedToolRun> timed = read();
        if (!timed)
            return 1;
        const qint64 peak = procStatusKb("VmHWM");
        printSample(u"8-read-file"_s,
                    u"first %1 lines"_s.arg(lines),
                    u"ms"_s,
                    timed->ms,
                    false,
                    u"agentloop"_s);
        QString line = u"read_file run %1: %2 ms, %3 characters"_s.arg(run + 1)
                               .arg(timed->ms, 0, 'f', 2)
                               .arg(timed->result.content.size());
        if (peakReset && before > 0 && peak > 0) {
            const double growthMb = double(std::max<qint64>(peak - before, 0)) * 1024 / 1e6;
            printSample(u"8-read-file"_s,
                        u"peak RSS growth"_s,
                        u"MB"_s,
                        growthMb,
                        false,
                        u"agentloop"_s);
            line += u", peak RSS +%1 MB"_s.arg(growthMb, 0, 'f', 2);
        }
        note(line);
    }
    return 0;
}

} // namespace AgentLoop::Bench
