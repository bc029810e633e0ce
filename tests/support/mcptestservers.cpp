#include "mcptestservers.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QString mcpTestNodeModules()
{
    // Set by tests/CMakeLists.txt for this file alone.
    return QStringLiteral(AGENTLOOP_MCP_NODE_MODULES);
}

QString mcpTestNodeProgram()
{
    // The conformance runner needs Node 22 (fs.globSync); Debian 12's own Node.js is 18.
    const QString own = mcpTestNodeModules() + u"/.bin/node"_s;
    if (QFileInfo(own).isExecutable())
        return own;
    return QStandardPaths::findExecutable(u"node"_s);
}

McpTestServer mcpTestServer(const QString &name,
                            const QString &package,
                            const QStringList &arguments)
{
    McpTestServer server;
    server.config.name = name;
    server.config.transport = McpServerConfig::Stdio;
#ifdef Q_OS_WIN
    Q_UNUSED(package);
    Q_UNUSED(arguments);
    server.problem = u"%1: the Windows tests run under Wine, which has no Node.js"_s.arg(package);
    return server;
#else
    const QString packageDirectory = mcpTestNodeModules() + u'/' + package;
    QFile manifest(packageDirectory + u"/package.json"_s);
    if (!manifest.open(QIODevice::ReadOnly)) {
        server.problem = u"%1 is not installed in %2 (run tools/install-deps.sh)"_s
                                 .arg(package, mcpTestNodeModules());
        return server;
    }
    // "bin" is {"name": "dist/index.js"} (or a plain path): the script npx would run.
    const QJsonValue bin = QJsonDocument::fromJson(manifest.readAll()).object().value(u"bin"_s);
    const QJsonObject commands = bin.toObject();
    const QString relative = bin.isString()       ? bin.toString()
                             : commands.isEmpty() ? QString()
                                                  : commands.constBegin().value().toString();
    server.script = QDir(packageDirectory).filePath(relative);
    if (relative.isEmpty() || !QFileInfo::exists(server.script)) {
        server.problem = u"%1 names no script to run in its package.json"_s.arg(package);
        return server;
    }
    server.config.command = mcpTestNodeProgram();
    if (server.config.command.isEmpty()) {
        server.problem = u"no Node.js: neither %1/.bin/node nor node on PATH"_s.arg(
                mcpTestNodeModules());
        return server;
    }
    server.config.args = QStringList{server.script} + arguments;
    return server;
#endif
}

bool mcpTestServersRequired()
{
#ifdef Q_OS_WIN
    return false;
#else
    return qEnvironmentVariable("CI") == u"true"_s;
#endif
}

QByteArray claudeDesktopMcpFile()
{
    return R"({
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "C:\\Users\\me\\Desktop"]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    }
  }
})";
}

} // namespace AgentLoop
