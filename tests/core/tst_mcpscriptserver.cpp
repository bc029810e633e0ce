// An MCP server started through a script, as `npx` is on Windows: a .cmd file there (run by
// cmd.exe /d /s /c, quoting each argument), a shell script elsewhere. The script starts the real
// server (agentloop-mcp-scripted) as its child, and a helper process that, unlike the server,
// does not end when its input closes (as a server's own children may not): this program again,
// with --linger. The server comes up with its tools, the arguments reach it intact, and stopping
// it, or destroying it as the app does on exit, ends the script, the server and the helper (Job
// Object on Windows, process group on Unix). Runs in the Windows job under Wine.

#include "processreaper.h"
#include "testmain.h"
#include "testpaths.h"

#include "mcp/mcpclient.h"
#include "mcp/mcpserver.h"
#include "mcp/mcptool.h"
#include "mcp/mcptransport.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

constexpr int startTimeoutMs = 60000; // Wine starting cmd.exe and a Qt program
constexpr int goneTimeoutMs = 15000;

// --linger FILE: writes this process's id to FILE, then waits for ten minutes, reading nothing.
int linger(const char *pidFile)
{
    // Whole or not at all: the test reads it while it is written.
    QSaveFile file(QString::fromLocal8Bit(pidFile));
    if (!file.open(QIODevice::WriteOnly))
        return 1;
    file.write(QByteArray::number(QCoreApplication::applicationPid()));
    if (!file.commit())
        return 1;
    QThread::sleep(600);
    return 0;
}

} // namespace

class tst_McpScriptServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void startsThroughTheScriptAndStopsItsTree();
    void destroyingTheServerEndsItsTree();

private:
    // A started server's processes: the script, the server and the helper.
    struct Tree
    {
        std::unique_ptr<WatchedProcess> script;
        std::unique_ptr<WatchedProcess> server;
        std::unique_ptr<WatchedProcess> helper;
    };
    McpServerConfig scriptServer(const QString &logPath) const;
    // Starts the server and waits for Ready and for every process of its tree.
    std::unique_ptr<McpServer> startedServer(const QString &logPath, Tree *tree);
    void verifyTreeIsGone(const Tree &tree);

    QTemporaryDir m_dir;
    QString m_script;
    QString m_helperPidFile;
};

void tst_McpScriptServer::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString program = QStringLiteral(AGENTLOOP_MCP_SCRIPTED_PATH);
    QVERIFY2(QFile::exists(program), qPrintable(program));
    // A folder with a space, as "C:\Program Files\nodejs\npx.cmd" has.
    const QString folder = m_dir.filePath(u"script folder"_s);
    QVERIFY(QDir().mkpath(folder));
    m_helperPidFile = m_dir.filePath(u"helper.pid"_s);
    // Absolute with its drive: under Wine the build folder is on Z:, the script runs on C:.
    const QString server = QDir::toNativeSeparators(QFileInfo(program).absoluteFilePath());
    const QString self = QDir::toNativeSeparators(QCoreApplication::applicationFilePath());
    const QString pidFile = QDir::toNativeSeparators(m_helperPidFile);
#ifdef Q_OS_WIN
    m_script = QDir::toNativeSeparators(folder + u"/scripted.cmd"_s);
    // The helper in the background (start /b: the same console, no window), then, as npm's own
    // .cmd shims do, the program with every argument as given (%*).
    const QString script = u"@echo off\r\n"
                           u"start \"\" /b \"%1\" %2 --linger \"%3\"\r\n"
                           u"\"%4\" --era legacy %*\r\n"_s.arg(self,
                                                               Testing::runningTestName(),
                                                               pidFile,
                                                               server);
#else
    m_script = folder + u"/scripted.sh"_s;
    // No exec: the shell stays, the server is its child, as with a .cmd file.
    const QString script = u"#!/bin/sh\n"
                           u"\"%1\" %2 --linger \"%3\" </dev/null &\n"
                           u"\"%4\" --era legacy \"$@\"\n"_s.arg(self,
                                                                 Testing::runningTestName(),
                                                                 pidFile,
                                                                 server);
#endif
    QVERIFY(writeFile(m_script, script.toLocal8Bit()));
    QVERIFY(QFile::setPermissions(m_script, QFile::permissions(m_script) | QFile::ExeOwner));
}

McpServerConfig tst_McpScriptServer::scriptServer(const QString &logPath) const
{
    McpServerConfig config;
    config.name = u"scripted"_s;
    config.command = m_script;
    // A path with a space and characters cmd.exe would otherwise interpret: it must reach the
    // server as one argument, unchanged.
    config.args = {u"--log"_s, logPath};
    return config;
}

std::unique_ptr<McpServer> tst_McpScriptServer::startedServer(const QString &logPath, Tree *tree)
{
    QFile::remove(m_helperPidFile);
    auto server = std::make_unique<McpServer>(scriptServer(logPath), m_dir.path());
    server->start();
    [&] {
        // At a failure, says why, with what the server logged and wrote to standard error.
        QTRY_VERIFY_WITH_TIMEOUT(server->status() == McpServer::Status::Ready
                                         || server->status() == McpServer::Status::Failed,
                                 startTimeoutMs);
        QVERIFY2(server->status() == McpServer::Status::Ready,
                 qPrintable(u"%1: %2\nlog: %3\nstandard error:\n%4"_s
                                    .arg(mcpStatusName(server->status()),
                                         server->statusDetail(),
                                         QString::fromLocal8Bit(readFile(logPath)),
                                         server->standardErrorTail().join(u'\n'))));
        const auto *transport = qobject_cast<McpStdioTransport *>(server->client()->transport());
        QVERIFY(transport);
#ifdef Q_OS_WIN
        QVERIFY2(transport->launchedProgram().endsWith(u"cmd.exe"_s, Qt::CaseInsensitive),
                 qPrintable(transport->launchedProgram()));
#endif
        const qint64 script = transport->processId();
        QVERIFY(script > 0);
        tree->script = std::make_unique<WatchedProcess>(script);
        QTRY_COMPARE_WITH_TIMEOUT(childProcesses(script, u"agentloop-mcp-scripted"_s).size(),
                                  1,
                                  goneTimeoutMs);
        tree->server = std::make_unique<WatchedProcess>(
                childProcesses(script, u"agentloop-mcp-scripted"_s).first());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(m_helperPidFile).toLongLong() > 0, goneTimeoutMs);
        tree->helper = std::make_unique<WatchedProcess>(readFile(m_helperPidFile).toLongLong());
        QVERIFY(!tree->script->isGone());
        QVERIFY(!tree->server->isGone());
        QVERIFY(!tree->helper->isGone());
        // Known to be ours, for the leftover check, once their parents are gone.
        testProcessReaper().track();
    }();
    return server;
}

void tst_McpScriptServer::verifyTreeIsGone(const Tree &tree)
{
    QTRY_VERIFY_WITH_TIMEOUT(tree.script->isGone(), goneTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(tree.server->isGone(), goneTimeoutMs);
    // It reads nothing and waits for ten minutes: only the tree's end ends it.
    QTRY_VERIFY_WITH_TIMEOUT(tree.helper->isGone(), goneTimeoutMs);
}

void tst_McpScriptServer::startsThroughTheScriptAndStopsItsTree()
{
    // No %: Wine's cmd.exe drops it from cmdExeNativeArguments()'s "100%%cd:~,%" (Wine 8).
    const QString log = m_dir.filePath(u"log & ^ (1).txt"_s);
    Tree tree;
    std::unique_ptr<McpServer> server = startedServer(log, &tree);
    if (QTest::currentTestFailed())
        return;

    QCOMPARE(server->era(), McpClient::Era::Legacy);
    QList<McpToolInfo> tools = server->tools();
    QVERIFY(std::any_of(tools.cbegin(), tools.cend(), [](const McpToolInfo &tool) {
        return tool.name == u"echo";
    }));
    // The argument arrived whole: the server logs what it reads to exactly that file.
    QTRY_VERIFY_WITH_TIMEOUT(readFile(log).contains("\"initialize\""), goneTimeoutMs);

    // A call goes through the script's pipes both ways.
    McpCall *call = server->client()->callTool(u"echo"_s,
                                               {{u"message"_s, u"through the script"_s}},
                                               goneTimeoutMs,
                                               this);
    QSignalSpy finished(call, &McpCall::finished);
    QVERIFY(finished.wait(goneTimeoutMs));
    const auto outcome = finished.first().first().value<McpCallOutcome>();
    QCOMPARE(outcome.status, McpCallOutcome::Completed);
    QVERIFY2(QJsonDocument(outcome.result).toJson().contains("through the script"),
             QJsonDocument(outcome.result).toJson().constData());
    call->deleteLater();

    server->stop();
    QCOMPARE(server->status(), McpServer::Status::Stopped);
    verifyTreeIsGone(tree);
}

void tst_McpScriptServer::destroyingTheServerEndsItsTree()
{
    Tree tree;
    std::unique_ptr<McpServer> server = startedServer(m_dir.filePath(u"log 2.txt"_s), &tree);
    if (QTest::currentTestFailed())
        return;
    server.reset(); // as when the app exits with the server running
    verifyTreeIsGone(tree);
}

namespace {

int runTests(int argc, char *argv[])
{
    if (argc == 3 && qstrcmp(argv[1], "--linger") == 0)
        return linger(argv[2]);
    QCoreApplication app(argc, argv);
    tst_McpScriptServer test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

} // namespace

AGENTLOOP_TEST_ENTRY(runTests)

#include "tst_mcpscriptserver.moc"
