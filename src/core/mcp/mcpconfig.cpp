#include "mcp/mcpconfig.h"

#include "files/workspace.h"
#include "tools/tool.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct McpConfigText
{
    Q_DECLARE_TR_FUNCTIONS(McpConfig)
};

constexpr int defaultTimeoutMs = 60000;
constexpr qint64 workspaceMcpFileLimit = 1024 * 1024;

// Errors of one entry name the server and the field, so the user finds the line to fix.
Error entryError(const QString &sourcePath, const QString &server, const QString &problem)
{
    const QString where = McpConfigText::tr("MCP server “%1”: %2").arg(server, problem);
    if (sourcePath.isEmpty())
        return Error{Error::Configuration, where};
    return Error{Error::Configuration,
                 McpConfigText::tr("%1: %2").arg(QDir::toNativeSeparators(sourcePath), where)};
}

QString mustBeString(const QString &field)
{
    return McpConfigText::tr("“%1” must be a string.").arg(field);
}

Result<QString> readString(const QJsonObject &entry, const QString &field)
{
    const QJsonValue value = entry.value(field);
    if (value.isUndefined() || value.isNull())
        return QString();
    if (!value.isString())
        return Error{Error::Configuration, mustBeString(field)};
    return value.toString();
}

Result<QStringList> readStringList(const QJsonObject &entry, const QString &field)
{
    const QJsonValue value = entry.value(field);
    if (value.isUndefined() || value.isNull())
        return QStringList();
    if (!value.isArray())
        return Error{Error::Configuration,
                     McpConfigText::tr("“%1” must be a list of strings.").arg(field)};
    QStringList list;
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isString())
            return Error{Error::Configuration, mustBeString(u"%1[%2]"_s.arg(field).arg(i))};
        list.append(array.at(i).toString());
    }
    return list;
}

Result<QMap<QString, QString>> readStringMap(const QJsonObject &entry, const QString &field)
{
    const QJsonValue value = entry.value(field);
    if (value.isUndefined() || value.isNull())
        return QMap<QString, QString>();
    if (!value.isObject())
        return Error{Error::Configuration,
                     McpConfigText::tr("“%1” must be an object of strings.").arg(field)};
    QMap<QString, QString> map;
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!it.value().isString())
            return Error{Error::Configuration, mustBeString(field + u'.' + it.key())};
        map.insert(it.key(), it.value().toString());
    }
    return map;
}

Result<bool> readBool(const QJsonObject &entry, const QString &field, bool fallback)
{
    const QJsonValue value = entry.value(field);
    if (value.isUndefined() || value.isNull())
        return fallback;
    if (!value.isBool())
        return Error{Error::Configuration,
                     McpConfigText::tr("“%1” must be true or false.").arg(field)};
    return value.toBool();
}

Result<McpServerConfig> parseEntry(const QString &name, const QJsonValue &value)
{
    if (!value.isObject())
        return Error{Error::Configuration,
                     McpConfigText::tr("the entry must be an object with “command” or “url”.")};
    const QJsonObject entry = value.toObject();
    McpServerConfig server;
    server.name = name;

    const Result<QString> type = readString(entry, u"type"_s);
    if (!type)
        return type.error();
    const Result<QString> command = readString(entry, u"command"_s);
    if (!command)
        return command.error();
    const Result<QString> url = readString(entry, u"url"_s);
    if (!url)
        return url.error();
    if (type->isEmpty()) {
        if (!command->trimmed().isEmpty())
            server.transport = McpServerConfig::Stdio;
        else if (!url->trimmed().isEmpty())
            server.transport = McpServerConfig::Http;
        else
            return Error{Error::Configuration,
                         McpConfigText::tr("it has neither “command” (a program to start) nor "
                                           "“url” (an HTTP server).")};
    } else if (*type == u"stdio") {
        server.transport = McpServerConfig::Stdio;
    } else if (*type == u"http" || *type == u"streamable-http" || *type == u"streamableHttp"
               || *type == u"sse") {
        server.transport = McpServerConfig::Http;
    } else {
        return Error{Error::Configuration,
                     McpConfigText::tr("“type” must be stdio, http, streamable-http or sse, not "
                                       "“%1”.")
                             .arg(type->left(40))};
    }
    if (server.transport == McpServerConfig::Stdio && command->trimmed().isEmpty())
        return Error{Error::Configuration,
                     McpConfigText::tr("“command” is missing: a stdio server needs a program to "
                                       "start.")};
    if (server.transport == McpServerConfig::Http && url->trimmed().isEmpty())
        return Error{Error::Configuration,
                     McpConfigText::tr("“url” is missing: an HTTP server needs its address.")};
    server.command = command->trimmed();
    server.url = url->trimmed();

    const Result<QStringList> args = readStringList(entry, u"args"_s);
    if (!args)
        return args.error();
    server.args = *args;
    const Result<QMap<QString, QString>> env = readStringMap(entry, u"env"_s);
    if (!env)
        return env.error();
    server.env = *env;
    const Result<QMap<QString, QString>> headers = readStringMap(entry, u"headers"_s);
    if (!headers)
        return headers.error();
    server.headers = *headers;
    const Result<QString> cwd = readString(entry, u"cwd"_s);
    if (!cwd)
        return cwd.error();
    server.cwd = *cwd;

    const Result<bool> disabled = readBool(entry, u"disabled"_s, false);
    if (!disabled)
        return disabled.error();
    server.enabled = !*disabled;
    const Result<bool> trusted = readBool(entry, u"trusted"_s, false);
    if (!trusted)
        return trusted.error();
    server.trusted = *trusted;
    const QJsonValue timeout = entry.value(u"timeoutMs"_s);
    if (!timeout.isUndefined() && !timeout.isNull()) {
        const double ms = timeout.toDouble(-1);
        if (!timeout.isDouble() || ms < 1 || ms > 24.0 * 3600 * 1000 || ms != qint64(ms))
            return Error{Error::Configuration,
                         McpConfigText::tr("“timeoutMs” must be a whole number of milliseconds "
                                           "from 1 to 86400000.")};
        server.timeoutMs = int(ms);
    }
    return server;
}

// The map of servers in the shapes other clients write.
std::optional<QJsonObject> serverMap(const QJsonObject &root)
{
    if (root.contains(u"mcpServers"_s)) {
        if (!root.value(u"mcpServers"_s).isObject())
            return std::nullopt;
        return root.value(u"mcpServers"_s).toObject();
    }
    // VS Code's .vscode/mcp.json
    if (root.value(u"servers"_s).isObject())
        return root.value(u"servers"_s).toObject();
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (!it.value().isObject())
            return std::nullopt;
    }
    return root;
}

QString hexSha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// One ${…} expansion pass over a value; where says where it is used, for the message.
struct Expansion
{
    const QProcessEnvironment &environment;
    QMap<QString, QStringList> missing; // variable → where it is used
    QStringList values;                 // of the variables used

    QString expand(const QString &text, const QString &where)
    {
        QString out;
        out.reserve(text.size());
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text.at(i);
            if (c != u'$' || i + 1 >= text.size()) {
                out += c;
                continue;
            }
            if (text.at(i + 1) == u'$') {
                out += u'$';
                ++i;
                continue;
            }
            const qsizetype close = text.at(i + 1) == u'{' ? text.indexOf(u'}', i + 2) : -1;
            if (close < 0) {
                out += c; // not a reference: kept as written
                continue;
            }
            const QString inside = text.sliced(i + 2, close - i - 2);
            const qsizetype dash = inside.indexOf(u":-"_s);
            const QString name = dash < 0 ? inside : inside.left(dash);
            if (dash >= 0) {
                const QString value = environment.value(name);
                out += value.isEmpty() ? inside.sliced(dash + 2) : value;
                values.append(value);
            } else if (!name.isEmpty() && environment.contains(name)) {
                out += environment.value(name);
                values.append(environment.value(name));
            } else {
                QStringList &places = missing[name];
                if (!places.contains(where))
                    places.append(where);
            }
            i = close;
        }
        return out;
    }
};

} // namespace

Result<QList<McpServerConfig>> parseMcpServers(const QByteArray &json,
                                               McpConfigOrigin origin,
                                               const QString &sourcePath)
{
    const QString file = sourcePath.isEmpty() ? McpConfigText::tr("The MCP configuration")
                                              : QDir::toNativeSeparators(sourcePath);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{Error::Configuration,
                     McpConfigText::tr("%1 is not valid JSON: %2 at offset %3.")
                             .arg(file, parseError.errorString())
                             .arg(parseError.offset)};
    if (!document.isObject())
        return Error{Error::Configuration,
                     McpConfigText::tr("%1 must be a JSON object with “mcpServers”.").arg(file)};
    const std::optional<QJsonObject> map = serverMap(document.object());
    if (!map)
        return Error{Error::Configuration,
                     McpConfigText::tr(
                             "%1: “mcpServers” must be an object of servers by name, "
                             "e.g. {\"mcpServers\": {\"files\": {\"command\": \"npx\"}}}.")
                             .arg(file)};
    QList<McpServerConfig> servers;
    for (auto it = map->begin(); it != map->end(); ++it) {
        if (it.key().trimmed().isEmpty())
            return Error{Error::Configuration,
                         McpConfigText::tr("%1: a server has an empty name.").arg(file)};
        Result<McpServerConfig> server = parseEntry(it.key(), it.value());
        if (!server)
            return entryError(sourcePath, it.key(), server.error().message);
        McpServerConfig config = std::move(server).value();
        config.origin = origin;
        config.sourcePath = sourcePath;
        servers.append(std::move(config));
    }
    return servers;
}

Result<QList<McpServerConfig>> readMcpServersFile(const QString &path, McpConfigOrigin origin)
{
    QFile file(path);
    if (!file.exists())
        return QList<McpServerConfig>();
    if (!file.open(QIODevice::ReadOnly))
        return Error{Error::Io,
                     McpConfigText::tr("Cannot read %1: %2")
                             .arg(QDir::toNativeSeparators(path), file.errorString())};
    return parseMcpServers(file.readAll(), origin, path);
}

QByteArray serializeMcpServers(const QList<McpServerConfig> &servers)
{
    QJsonObject map;
    for (const McpServerConfig &server : servers) {
        QJsonObject entry;
        const auto addMap = [&entry](const QString &key, const QMap<QString, QString> &values) {
            if (values.isEmpty())
                return;
            QJsonObject object;
            for (auto it = values.begin(); it != values.end(); ++it)
                object.insert(it.key(), it.value());
            entry.insert(key, object);
        };
        if (server.transport == McpServerConfig::Stdio) {
            entry.insert(u"command"_s, server.command);
            if (!server.args.isEmpty())
                entry.insert(u"args"_s, QJsonArray::fromStringList(server.args));
            addMap(u"env"_s, server.env);
            if (!server.cwd.isEmpty())
                entry.insert(u"cwd"_s, server.cwd);
        } else {
            entry.insert(u"type"_s, u"http"_s);
            entry.insert(u"url"_s, server.url);
            addMap(u"headers"_s, server.headers);
        }
        if (!server.enabled)
            entry.insert(u"disabled"_s, true);
        if (server.trusted)
            entry.insert(u"trusted"_s, true);
        if (server.timeoutMs != defaultTimeoutMs)
            entry.insert(u"timeoutMs"_s, server.timeoutMs);
        map.insert(server.name, entry);
    }
    return QJsonDocument(QJsonObject{{u"mcpServers"_s, map}}).toJson(QJsonDocument::Indented);
}

Result<void> writeMcpServersFile(const QString &path, const QList<McpServerConfig> &servers)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return Error{Error::Io, McpConfigText::tr("Cannot create the folder of %1.").arg(shown)};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{Error::Io,
                     McpConfigText::tr("Cannot write %1: %2").arg(shown, file.errorString())};
    file.write(serializeMcpServers(servers));
    if (!file.commit())
        return Error{Error::Io,
                     McpConfigText::tr("Cannot write %1: %2").arg(shown, file.errorString())};
    return {};
}

QString workspaceMcpServersPath(const QString &workspace)
{
    return QDir(workspace).filePath(u".agentloop/mcp.json"_s);
}

McpServersFile readWorkspaceMcpServers(const QString &workspace)
{
    McpServersFile read;
    read.path = workspaceMcpServersPath(workspace);
    // Through the boundary: a link out of the workspace, a FIFO or a device is not opened.
    const WorkspaceFileRead file = readWorkspaceFile(WorkspaceBoundary(workspace),
                                                     u".agentloop/mcp.json"_s,
                                                     workspaceMcpFileLimit);
    if (file.outcome == WorkspaceFileRead::Missing)
        return read;
    read.exists = true;
    if (file.outcome == WorkspaceFileRead::Refused || !file.complete) {
        const QString why = file.complete ? file.refusal.detail
                                          : McpConfigText::tr("it is larger than 1 MB");
        read.servers = Error{Error::Io,
                             McpConfigText::tr("Cannot read %1: %2")
                                     .arg(QDir::toNativeSeparators(read.path), why)};
        return read;
    }
    const QByteArray &bytes = file.bytes;
    read.sha256 = hexSha256(bytes);
    read.servers = parseMcpServers(bytes, McpConfigOrigin::Workspace, read.path);
    return read;
}

Result<McpServerConfig> expandMcpServer(const McpServerConfig &server,
                                        const QProcessEnvironment &environment)
{
    Expansion expansion{environment, {}, {}};
    McpServerConfig expanded = server;
    expanded.command = expansion.expand(server.command, u"command"_s);
    for (qsizetype i = 0; i < server.args.size(); ++i)
        expanded.args[i] = expansion.expand(server.args.at(i), u"args[%1]"_s.arg(i));
    for (auto it = expanded.env.begin(); it != expanded.env.end(); ++it)
        it.value() = expansion.expand(it.value(), u"env."_s + it.key());
    expanded.cwd = expansion.expand(server.cwd, u"cwd"_s);
    expanded.url = expansion.expand(server.url, u"url"_s);
    for (auto it = expanded.headers.begin(); it != expanded.headers.end(); ++it)
        it.value() = expansion.expand(it.value(), u"headers."_s + it.key());
    if (expansion.missing.isEmpty())
        return expanded;
    QStringList problems;
    for (auto it = expansion.missing.cbegin(); it != expansion.missing.cend(); ++it) {
        const QString name = it.key().isEmpty() ? u"${}"_s : it.key();
        problems.append(
                McpConfigText::tr("%1 is not set (used in %2)").arg(name, it.value().join(u", "_s)));
    }
    return Error{Error::Configuration,
                 McpConfigText::tr("MCP server “%1”: %2").arg(server.name, problems.join(u"; "_s)),
                 McpConfigText::tr("Set the variable in the environment Agent Loop starts from, "
                                   "or write ${NAME:-default} for a default; the server is not "
                                   "started until then.")};
}

QStringList mcpSecretValues(const McpServerConfig &server, const QProcessEnvironment &environment)
{
    Expansion expansion{environment, {}, {}};
    for (auto it = server.env.cbegin(); it != server.env.cend(); ++it)
        expansion.expand(it.value(), it.key());
    for (auto it = server.headers.cbegin(); it != server.headers.cend(); ++it)
        expansion.expand(it.value(), it.key());
    expansion.values.removeAll(QString());
    return expansion.values;
}

QStringList mcpSecretValues(const QList<McpServerConfig> &servers)
{
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QStringList values;
    for (const McpServerConfig &server : servers)
        values += mcpSecretValues(server, environment);
    return values;
}

QString sanitizedToolName(const QString &name)
{
    constexpr qsizetype maxLength = 64;
    QString sanitized;
    sanitized.reserve(name.size());
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        const bool allowed = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z')
                             || (c >= u'0' && c <= u'9') || c == u'_' || c == u'-';
        sanitized += allowed ? c : u'_';
        // One '_' per character, not per UTF-16 unit.
        if (c.isHighSurrogate() && i + 1 < name.size() && name.at(i + 1).isLowSurrogate())
            ++i;
    }
    if (sanitized.isEmpty())
        return u"_"_s;
    if (sanitized.size() <= maxLength)
        return sanitized;
    const QString hash = hexSha256(name.toUtf8()).left(8);
    return sanitized.left(maxLength - 9) + u'_' + hash;
}

QString mcpToolName(const QString &server, const QString &tool)
{
    return sanitizedToolName(mcpToolNamePrefix.toString() + server + u"__"_s + tool);
}

} // namespace AgentLoop
