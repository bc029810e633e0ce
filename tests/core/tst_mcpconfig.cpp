#include "mcp/mcpconfig.h"
#include "mcptestservers.h"
#include "plantedfile.h"
#include "testmain.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// The mcpServers files users paste, the errors they see, the variables and the tool names
// providers accept.
class tst_McpConfig : public QObject
{
    Q_OBJECT

private slots:
    void claudeDesktopFileImportsAsItIs();
    void cursorFileImportsAsItIs();
    void secretValuesAreWhatEnvAndHeadersTakeFromVariables();
    void aWorkspaceFileThatIsNotAFileOfTheWorkspaceIsNotRead();
    void shapes_data();
    void shapes();
    void errorsNameServerAndField_data();
    void errorsNameServerAndField();
    void writtenFileReadsBackTheSame();
    void missingFileIsNoServers();
    void workspaceFileHasItsHash();
    void expansion_data();
    void expansion();
    void missingVariablesAreAllNamed();
    void sanitizing_data();
    void sanitizing();
    void longNamesStayDistinct();
};

// As Claude Desktop writes claude_desktop_config.json (Windows paths, its other settings next to
// the servers).
void tst_McpConfig::claudeDesktopFileImportsAsItIs()
{
    const QByteArray file = claudeDesktopMcpFile();
    const auto parsed = parseMcpServers(file, McpConfigOrigin::App, u"/x/claude.json"_s);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(parsed->size(), 2);
    const McpServerConfig &files = parsed->at(0);
    QCOMPARE(files.name, u"filesystem"_s);
    QCOMPARE(files.transport, McpServerConfig::Stdio);
    QCOMPARE(files.command, u"npx"_s);
    QCOMPARE(files.args,
             QStringList({u"-y"_s,
                          u"@modelcontextprotocol/server-filesystem"_s,
                          u"C:\\Users\\me\\Desktop"_s}));
    QVERIFY(files.enabled);
    QVERIFY(!files.trusted);
    QCOMPARE(files.timeoutMs, 60000);
    QCOMPARE(files.sourcePath, u"/x/claude.json"_s);
    const McpServerConfig &github = parsed->at(1);
    QCOMPARE(github.env.value(u"GITHUB_PERSONAL_ACCESS_TOKEN"_s), u"${GITHUB_TOKEN}"_s);
}

// As Cursor writes .cursor/mcp.json: stdio with "type", and a remote server with headers.
void tst_McpConfig::cursorFileImportsAsItIs()
{
    const QByteArray file = R"({
  "mcpServers": {
    "local": {"type": "stdio", "command": "python", "args": ["server.py"], "env": {"A": "1"}},
    "remote": {"url": "https://api.example.com/mcp",
               "headers": {"Authorization": "Bearer ${API_TOKEN}"}}
  }
})";
    const auto parsed = parseMcpServers(file, McpConfigOrigin::File);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(parsed->size(), 2);
    QCOMPARE(parsed->at(0).transport, McpServerConfig::Stdio);
    QCOMPARE(parsed->at(0).env.value(u"A"_s), u"1"_s);
    QCOMPARE(parsed->at(1).name, u"remote"_s);
    QCOMPARE(parsed->at(1).transport, McpServerConfig::Http);
    QCOMPARE(parsed->at(1).url, u"https://api.example.com/mcp"_s);
    QCOMPARE(parsed->at(1).headers.value(u"Authorization"_s), u"Bearer ${API_TOKEN}"_s);
    QCOMPARE(parsed->at(1).origin, McpConfigOrigin::File);
}

void tst_McpConfig::shapes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("transport");
    QTest::addColumn<bool>("enabled");
    QTest::addColumn<bool>("trusted");
    QTest::addColumn<int>("timeoutMs");

    QTest::newRow("bare map") << QByteArray(R"({"a": {"command": "x"}})") << u"a"_s
                              << int(McpServerConfig::Stdio) << true << false << 60000;
    QTest::newRow("VS Code servers")
            << QByteArray(R"({"servers": {"v": {"type": "http", "url":
                                        "http://127.0.0.1:1/mcp"}}, "inputs": []})")
            << u"v"_s << int(McpServerConfig::Http) << true << false << 60000;
    QTest::newRow("streamable-http")
            << QByteArray(R"({"mcpServers": {"h": {"type":
                                        "streamable-http", "url": "http://h/mcp"}}})")
            << u"h"_s << int(McpServerConfig::Http) << true << false << 60000;
    QTest::newRow("sse") << QByteArray(R"({"mcpServers": {"s": {"type": "sse", "url": "u"}}})")
                         << u"s"_s << int(McpServerConfig::Http) << true << false << 60000;
    QTest::newRow("agent loop's fields")
            << QByteArray(R"({"mcpServers": {"o": {"command": "x", "disabled": true,
                          "trusted": true, "timeoutMs": 1500, "somethingElse": 1}}})")
            << u"o"_s << int(McpServerConfig::Stdio) << false << true << 1500;
    QTest::newRow("unicode name") << QByteArray(R"({"mcpServers": {"文件": {"command": "x"}}})")
                                  << u"文件"_s << int(McpServerConfig::Stdio) << true << false
                                  << 60000;
}

void tst_McpConfig::shapes()
{
    QFETCH(QByteArray, json);
    const auto parsed = parseMcpServers(json, McpConfigOrigin::App);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().message));
    QCOMPARE(parsed->size(), 1);
    QTEST(parsed->first().name, "name");
    QTEST(int(parsed->first().transport), "transport");
    QTEST(parsed->first().enabled, "enabled");
    QTEST(parsed->first().trusted, "trusted");
    QTEST(parsed->first().timeoutMs, "timeoutMs");
}

void tst_McpConfig::errorsNameServerAndField_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("named"); // what the message must contain

    QTest::newRow("not JSON") << QByteArray("{\"mcpServers\": ") << QStringList{u"JSON"_s};
    QTest::newRow("not an object") << QByteArray("[1]") << QStringList{u"mcpServers"_s};
    QTest::newRow("mcpServers a list")
            << QByteArray(R"({"mcpServers": []})") << QStringList{u"mcpServers"_s};
    QTest::newRow("neither command nor url") << QByteArray(R"({"mcpServers": {"g": {}}})")
                                             << QStringList{u"“g”"_s, u"command"_s, u"url"_s};
    QTest::newRow("args not a list")
            << QByteArray(R"({"mcpServers": {"g": {"command": "x", "args": "-y"}}})")
            << QStringList{u"“g”"_s, u"“args”"_s};
    QTest::newRow("an arg a number")
            << QByteArray(R"({"mcpServers": {"g": {"command": "x", "args": ["a", 2]}}})")
            << QStringList{u"“g”"_s, u"args[1]"_s};
    QTest::newRow("env value a number")
            << QByteArray(R"({"mcpServers": {"g": {"command": "x", "env": {"PORT": 80}}}})")
            << QStringList{u"“g”"_s, u"env.PORT"_s};
    QTest::newRow("headers a list")
            << QByteArray(R"({"mcpServers": {"g": {"url": "u", "headers": ["a"]}}})")
            << QStringList{u"“g”"_s, u"“headers”"_s};
    QTest::newRow("unknown type") << QByteArray(
            R"({"mcpServers": {"g": {"type": "websocket", "url": "u"}}})")
                                  << QStringList{u"“g”"_s, u"“type”"_s, u"websocket"_s};
    QTest::newRow("http without url")
            << QByteArray(R"({"mcpServers": {"g": {"type": "http", "command": "x"}}})")
            << QStringList{u"“g”"_s, u"“url”"_s};
    QTest::newRow("disabled a string")
            << QByteArray(R"({"mcpServers": {"g": {"command": "x", "disabled": "yes"}}})")
            << QStringList{u"“g”"_s, u"“disabled”"_s};
    QTest::newRow("timeout negative")
            << QByteArray(R"({"mcpServers": {"g": {"command": "x", "timeoutMs": -5}}})")
            << QStringList{u"“g”"_s, u"“timeoutMs”"_s};
    QTest::newRow("one bad entry spoils the file")
            << QByteArray(R"({"mcpServers": {"a": {"command": "x"}, "b": {"command": 7}}})")
            << QStringList{u"“b”"_s, u"“command”"_s};
}

void tst_McpConfig::errorsNameServerAndField()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, named);
    const auto parsed = parseMcpServers(json, McpConfigOrigin::App, u"/w/mcp.json"_s);
    QVERIFY(!parsed);
    QCOMPARE(parsed.error().kind, Error::Configuration);
    QVERIFY2(parsed.error().message.contains(QDir::toNativeSeparators(u"/w/mcp.json"_s)),
             qPrintable(parsed.error().message));
    for (const QString &part : named)
        QVERIFY2(parsed.error().message.contains(part), qPrintable(parsed.error().message));
}

void tst_McpConfig::writtenFileReadsBackTheSame()
{
    McpServerConfig stdio;
    stdio.name = u"files"_s;
    stdio.command = u"npx"_s;
    stdio.args = {u"-y"_s, u"pkg"_s, u"C:\\dir with space"_s};
    stdio.env = {{u"B"_s, u"2"_s}, {u"A"_s, u"${HOME}"_s}};
    stdio.cwd = u"sub"_s;
    stdio.trusted = true;
    stdio.timeoutMs = 5000;
    McpServerConfig http;
    http.name = u"web"_s;
    http.transport = McpServerConfig::Http;
    http.url = u"http://127.0.0.1:9/mcp"_s;
    http.headers = {{u"Authorization"_s, u"Bearer ${T}"_s}};
    http.enabled = false;

    QTemporaryDir dir;
    const QString path = dir.filePath(u"config/mcp.json"_s);
    const Result<void> written = writeMcpServersFile(path, {http, stdio});
    QVERIFY2(written, qPrintable(written ? QString() : written.error().message));
    const auto read = readMcpServersFile(path, McpConfigOrigin::App);
    QVERIFY(read);
    QCOMPARE(read->size(), 2);
    stdio.sourcePath = path;
    http.sourcePath = path;
    // Sorted by name, so that saving is stable.
    QCOMPARE(read->at(0), stdio);
    QCOMPARE(read->at(1), http);
    QCOMPARE(serializeMcpServers(*read), serializeMcpServers({stdio, http}));
}

void tst_McpConfig::missingFileIsNoServers()
{
    QTemporaryDir dir;
    const auto read = readMcpServersFile(dir.filePath(u"none.json"_s), McpConfigOrigin::File);
    QVERIFY(read);
    QVERIFY(read->isEmpty());
}

// What the front end asks the user about: the file's servers and the hash of exactly its bytes.
void tst_McpConfig::workspaceFileHasItsHash()
{
    QTemporaryDir dir;
    QCOMPARE(readWorkspaceMcpServers(dir.path()).exists, false);
    QVERIFY(QDir(dir.path()).mkpath(u".agentloop"_s));
    const QByteArray bytes = R"({"mcpServers": {"w": {"command": "node", "args": ["s.js"]}}})";
    QFile file(workspaceMcpServersPath(dir.path()));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();
    const McpServersFile read = readWorkspaceMcpServers(dir.path());
    QVERIFY(read.exists);
    QCOMPARE(read.path, QDir(dir.path()).filePath(u".agentloop/mcp.json"_s));
    QCOMPARE(read.sha256,
             QString::fromLatin1(
                     QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
    QVERIFY(read.servers);
    QCOMPARE(read.servers->size(), 1);
    QCOMPARE(read.servers->first().origin, McpConfigOrigin::Workspace);
}

// A repository ships .agentloop/mcp.json as a link to a configuration elsewhere (the user's own,
// with its tokens), or as a FIFO that would hang the app at its start.
void tst_McpConfig::aWorkspaceFileThatIsNotAFileOfTheWorkspaceIsNotRead()
{
#ifdef Q_OS_WIN
    QSKIP("symbolic links need a privilege on Windows and FIFOs do not exist there");
#else
    for (const PlantedFile planted :
         {PlantedFile::LinkOut, PlantedFile::Fifo, PlantedFile::LinkToDevice}) {
        QTemporaryDir dir;
        const QString workspace = dir.filePath(u"repository"_s);
        QVERIFY(QDir(workspace).mkpath(u".agentloop"_s));
        const QString elsewhere = dir.filePath(u"user-mcp.json"_s);
        QFile outside(elsewhere);
        QVERIFY(outside.open(QIODevice::WriteOnly));
        outside.write(R"({"mcpServers": {"gh": {"url": "http://127.0.0.1:1/mcp"}}})");
        outside.close();
        QVERIFY(plantFile(planted, workspaceMcpServersPath(workspace), elsewhere));
        const McpServersFile read = readWorkspaceMcpServers(workspace);
        QVERIFY(read.exists);
        QVERIFY(!read.servers);
        QVERIFY2(read.servers.error().message.startsWith(u"Cannot read "_s),
                 qPrintable(read.servers.error().message));
        QVERIFY(read.sha256.isEmpty());
    }
#endif
}

void tst_McpConfig::expansion_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expanded");

    QTest::newRow("plain") << u"no variables"_s << u"no variables"_s;
    QTest::newRow("braced") << u"Bearer ${TOKEN}"_s << u"Bearer t0k"_s;
    QTest::newRow("twice") << u"${TOKEN}-${TOKEN}"_s << u"t0k-t0k"_s;
    QTest::newRow("default unused") << u"${TOKEN:-x}"_s << u"t0k"_s;
    QTest::newRow("default for unset") << u"${NOPE:-fallback value}"_s << u"fallback value"_s;
    QTest::newRow("default for empty") << u"${EMPTY:-d}"_s << u"d"_s;
    QTest::newRow("empty is set") << u"[${EMPTY}]"_s << u"[]"_s;
    QTest::newRow("dollar dollar") << u"$${TOKEN} costs $$5"_s << u"${TOKEN} costs $5"_s;
    QTest::newRow("bare dollar kept") << u"$TOKEN and $"_s << u"$TOKEN and $"_s;
    QTest::newRow("unclosed kept") << u"${TOKEN"_s << u"${TOKEN"_s;
    QTest::newRow("unicode value") << u"${UNI}"_s << u"文件 ✓"_s;
}

void tst_McpConfig::expansion()
{
    QFETCH(QString, text);
    QProcessEnvironment environment;
    environment.insert(u"TOKEN"_s, u"t0k"_s);
    environment.insert(u"EMPTY"_s, QString());
    environment.insert(u"UNI"_s, u"文件 ✓"_s);
    McpServerConfig server;
    server.name = u"s"_s;
    server.command = text;
    server.args = {text};
    server.env = {{u"E"_s, text}};
    server.cwd = text;
    server.url = text;
    server.headers = {{u"H"_s, text}};
    const auto expanded = expandMcpServer(server, environment);
    QVERIFY2(expanded, qPrintable(expanded ? QString() : expanded.error().message));
    QTEST(expanded->command, "expanded");
    QTEST(expanded->args.value(0), "expanded");
    QTEST(expanded->env.value(u"E"_s), "expanded");
    QTEST(expanded->cwd, "expanded");
    QTEST(expanded->url, "expanded");
    QTEST(expanded->headers.value(u"H"_s), "expanded");
}

void tst_McpConfig::secretValuesAreWhatEnvAndHeadersTakeFromVariables()
{
    McpServerConfig server;
    server.name = u"github"_s;
    server.command = u"${TOOLS}/npx"_s; // a path, not a secret
    server.env = {{u"GITHUB_PERSONAL_ACCESS_TOKEN"_s, u"${GITHUB_TOKEN}"_s},
                  {u"LOG"_s, u"debug"_s},
                  {u"REGION"_s, u"${REGION:-eu}"_s}};
    server.headers = {{u"Authorization"_s, u"Bearer ${API_TOKEN}"_s}};
    QProcessEnvironment environment;
    environment.insert(u"TOOLS"_s, u"/opt/tools"_s);
    environment.insert(u"GITHUB_TOKEN"_s, u"ghp_secret0123456789"_s);
    environment.insert(u"API_TOKEN"_s, u"tok_abcdefgh"_s);
    QStringList values = mcpSecretValues(server, environment);
    values.sort();
    // REGION is unset: its default is written in the file, no secret.
    QCOMPARE(values, (QStringList{u"ghp_secret0123456789"_s, u"tok_abcdefgh"_s}));
}

void tst_McpConfig::missingVariablesAreAllNamed()
{
    McpServerConfig server;
    server.name = u"github"_s;
    server.command = u"npx"_s;
    server.args = {u"--token=${GITHUB_TOKEN}"_s};
    server.env = {{u"GITHUB_PERSONAL_ACCESS_TOKEN"_s, u"${GITHUB_TOKEN}"_s},
                  {u"HOST"_s, u"${GH_HOST:-github.com}"_s}};
    server.url = u"${API_BASE}/x"_s;
    QProcessEnvironment environment;
    environment.insert(u"PATH"_s, u"/bin"_s);
    const auto expanded = expandMcpServer(server, environment);
    QVERIFY(!expanded);
    const QString message = expanded.error().message;
    QVERIFY2(message.contains(u"“github”"_s), qPrintable(message));
    QVERIFY2(message.contains(u"GITHUB_TOKEN is not set (used in args[0], "
                              u"env.GITHUB_PERSONAL_ACCESS_TOKEN)"_s),
             qPrintable(message));
    QVERIFY2(message.contains(u"API_BASE is not set (used in url)"_s), qPrintable(message));
    QVERIFY2(!message.contains(u"GH_HOST"_s), qPrintable(message)); // it has a default
    QVERIFY(!expanded.error().hint.isEmpty());
}

void tst_McpConfig::sanitizing_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("sanitized");

    QTest::newRow("kept") << u"read_file-2"_s << u"read_file-2"_s;
    QTest::newRow("dots and spaces") << u"git.log now"_s << u"git_log_now"_s;
    QTest::newRow("slash") << u"fs/read"_s << u"fs_read"_s;
    QTest::newRow("chinese") << u"读取"_s << u"__"_s;
    QTest::newRow("emoji is one character") << u"a😀b"_s << u"a_b"_s;
    QTest::newRow("empty") << QString() << u"_"_s;
    QTest::newRow("64 kept") << QString(64, u'a') << QString(64, u'a');
}

void tst_McpConfig::sanitizing()
{
    QFETCH(QString, name);
    QTEST(sanitizedToolName(name), "sanitized");
}

void tst_McpConfig::longNamesStayDistinct()
{
    static const QRegularExpression accepted(u"^[a-zA-Z0-9_-]{1,64}$"_s);
    const QString a = QString(70, u'x') + u"a"_s;
    const QString b = QString(70, u'x') + u"b"_s;
    const QString sa = sanitizedToolName(a);
    const QString sb = sanitizedToolName(b);
    QCOMPARE(sa.size(), 64);
    QVERIFY(accepted.match(sa).hasMatch());
    QVERIFY(accepted.match(sb).hasMatch());
    QVERIFY(sa != sb);
    QVERIFY(sa.startsWith(QString(55, u'x') + u'_'));
    QCOMPARE(sa.right(8),
             QString::fromLatin1(QCryptographicHash::hash(a.toUtf8(), QCryptographicHash::Sha256)
                                         .toHex()
                                         .left(8)));

    QCOMPARE(mcpToolName(u"github"_s, u"list_issues"_s), u"mcp__github__list_issues"_s);
    QCOMPARE(mcpToolName(u"my server"_s, u"do.it"_s), u"mcp__my_server__do_it"_s);
    const QString long_ = mcpToolName(QString(40, u's'), QString(40, u't'));
    QVERIFY(accepted.match(long_).hasMatch());
    QVERIFY(long_.startsWith(u"mcp__sss"_s));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_McpConfig)
#include "tst_mcpconfig.moc"
