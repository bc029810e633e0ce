#include "mcp/mcptool.h"

#include "mcp/mcpconfig.h"
#include "mcp/mcpserver.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace AgentLoop {

// Results are protocol text for the model: English, each failure with its stable code first.
// Only the approval's reason is shown to the user, and translated.

namespace {

struct McpToolText
{
    Q_DECLARE_TR_FUNCTIONS(McpTool)
};

// The whole result of a call goes to a file up to this size; more is cut there too.
constexpr qint64 resultFileLimit = qint64(64) << 20;

QString cappedDescription(const McpToolInfo &info)
{
    QString description = info.description.trimmed();
    if (description.isEmpty())
        description = info.title.trimmed();
    if (description.size() > mcpDescriptionLimit) {
        qsizetype cut = mcpDescriptionLimit;
        if (description.at(cut - 1).isHighSurrogate())
            --cut;
        description = description.left(cut)
                      + u"… [description cut at %1 characters]"_s.arg(mcpDescriptionLimit);
    }
    return description;
}

QString modelDescription(const QString &serverName, const McpToolInfo &info)
{
    return u"[MCP server %1] "_s.arg(serverName) + cappedDescription(info);
}

QJsonObject parameterSchema(const McpToolInfo &info)
{
    QJsonObject schema = info.inputSchema;
    // Providers want an object schema; a tool without one takes an object with anything in it.
    if (schema.isEmpty() || !schema.value(u"type"_s).isString())
        schema.insert(u"type"_s, u"object"_s);
    return schema;
}

SideEffect sideEffectFor(McpServer *server, const McpToolInfo &info)
{
    // The server's word lowers an ask only where the user trusts the server.
    return info.readOnlyHint && server && server->config().trusted ? SideEffect::Read
                                                                   : SideEffect::Execute;
}

const QSet<QString> &meaningfulUnsupportedKeywords()
{
    static const QSet<QString> keywords = {
            u"$ref"_s,
            u"$dynamicRef"_s,
            u"$recursiveRef"_s,
            u"if"_s,
            u"then"_s,
            u"else"_s,
            u"dependentSchemas"_s,
            u"dependentRequired"_s,
            u"dependencies"_s,
            u"prefixItems"_s,
            u"unevaluatedProperties"_s,
            u"unevaluatedItems"_s,
            u"contains"_s,
            u"minContains"_s,
            u"maxContains"_s,
            u"propertyNames"_s,
    };
    return keywords;
}

// Walks the schema's subschemas only: a property named "if" is a name, not a keyword.
void collectUnsupported(const QJsonValue &value, QSet<QString> &found, int depth)
{
    if (!value.isObject() || depth > 64)
        return;
    const QJsonObject schema = value.toObject();
    for (auto it = schema.begin(); it != schema.end(); ++it) {
        if (meaningfulUnsupportedKeywords().contains(it.key()))
            found.insert(it.key());
    }
    static const QStringList schemaValued = {u"items"_s,
                                             u"additionalItems"_s,
                                             u"additionalProperties"_s,
                                             u"not"_s,
                                             u"contains"_s,
                                             u"if"_s,
                                             u"then"_s,
                                             u"else"_s,
                                             u"propertyNames"_s,
                                             u"unevaluatedProperties"_s,
                                             u"unevaluatedItems"_s};
    static const QStringList schemaMaps = {u"properties"_s,
                                           u"patternProperties"_s,
                                           u"$defs"_s,
                                           u"definitions"_s,
                                           u"dependentSchemas"_s};
    static const QStringList schemaLists = {u"allOf"_s, u"anyOf"_s, u"oneOf"_s, u"prefixItems"_s};
    for (const QString &key : schemaValued) {
        const QJsonValue child = schema.value(key);
        if (child.isArray()) {
            for (const QJsonValue &item : child.toArray())
                collectUnsupported(item, found, depth + 1);
        } else {
            collectUnsupported(child, found, depth + 1);
        }
    }
    for (const QString &key : schemaMaps) {
        const QJsonObject map = schema.value(key).toObject();
        for (auto it = map.begin(); it != map.end(); ++it)
            collectUnsupported(it.value(), found, depth + 1);
    }
    for (const QString &key : schemaLists) {
        for (const QJsonValue &item : schema.value(key).toArray())
            collectUnsupported(item, found, depth + 1);
    }
}

QString extensionFor(const QString &mimeType)
{
    static const QHash<QString, QString> known = {
            {u"image/png"_s, u"png"_s},
            {u"image/jpeg"_s, u"jpg"_s},
            {u"image/gif"_s, u"gif"_s},
            {u"image/webp"_s, u"webp"_s},
            {u"image/svg+xml"_s, u"svg"_s},
            {u"audio/wav"_s, u"wav"_s},
            {u"audio/x-wav"_s, u"wav"_s},
            {u"audio/mpeg"_s, u"mp3"_s},
            {u"audio/ogg"_s, u"ogg"_s},
            {u"application/pdf"_s, u"pdf"_s},
            {u"application/json"_s, u"json"_s},
            {u"text/plain"_s, u"txt"_s},
    };
    return known.value(mimeType.toLower(), u"bin"_s);
}

// Saves binary content of a result next to the conversation's command outputs. Returns the
// sentence the model reads.
class BinarySaver
{
public:
    BinarySaver(QString directory, QString callId)
        : m_directory(std::move(directory))
        , m_stem(OutputFileWriter::safeStem(callId))
    {}

    QString save(const QString &what, const QString &base64, const QString &mimeType)
    {
        const QString type = mimeType.isEmpty() ? u"unknown type"_s : mimeType;
        const auto decoded = QByteArray::fromBase64Encoding(base64.toLatin1(),
                                                            QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return u"[%1 not saved: its data is not valid base64 (%2)]"_s.arg(what, type);
        const QByteArray &bytes = *decoded;
        if (m_directory.isEmpty())
            return u"[%1 not saved: no folder for outputs (%2, %3 bytes)]"_s.arg(what, type)
                    .arg(bytes.size());
        if (!QDir().mkpath(m_directory))
            return u"[%1 not saved: cannot create the folder %2 (%3, %4 bytes)]"_s
                    .arg(what, QDir::toNativeSeparators(m_directory), type)
                    .arg(bytes.size());
        ++m_count;
        const QString extension = extensionFor(mimeType);
        QFile file;
        for (int attempt = 1; attempt <= 100 && !file.isOpen(); ++attempt) {
            const QString name = attempt == 1
                                         ? u"%1-%2.%3"_s.arg(m_stem).arg(m_count).arg(extension)
                                         : u"%1-%2-%3.%4"_s.arg(m_stem).arg(m_count).arg(attempt).arg(
                                                 extension);
            file.setFileName(QDir(m_directory).filePath(name));
            // NewOnly: a call id a provider reuses never overwrites an earlier call's file.
            if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly) && !file.exists())
                break;
        }
        if (!file.isOpen() || file.write(bytes) != bytes.size() || !file.flush())
            return u"[%1 not saved: %2 (%3, %4 bytes)]"_s.arg(what, file.errorString(), type)
                    .arg(bytes.size());
        return u"[%1 saved: %2 (%3, %4 bytes)]"_s
                .arg(what, QDir::toNativeSeparators(file.fileName()), type)
                .arg(bytes.size());
    }

private:
    QString m_directory;
    QString m_stem;
    int m_count = 0;
};

QString contentText(const QJsonArray &content, BinarySaver &saver)
{
    QStringList parts;
    for (const QJsonValue &value : content) {
        const QJsonObject item = value.toObject();
        const QString type = item.value(u"type"_s).toString();
        if (type == u"text") {
            parts.append(item.value(u"text"_s).toString());
        } else if (type == u"image" || type == u"audio") {
            parts.append(saver.save(type,
                                    item.value(u"data"_s).toString(),
                                    item.value(u"mimeType"_s).toString()));
        } else if (type == u"resource_link") {
            QString link = u"[resource link: %1"_s.arg(item.value(u"uri"_s).toString());
            if (const QString name = item.value(u"name"_s).toString(); !name.isEmpty())
                link += u' ' + name;
            parts.append(link + u']');
        } else if (type == u"resource") {
            const QJsonObject resource = item.value(u"resource"_s).toObject();
            const QString uri = resource.value(u"uri"_s).toString();
            if (resource.contains(u"text"_s))
                parts.append(u"[resource %1]\n%2"_s.arg(uri, resource.value(u"text"_s).toString()));
            else
                parts.append(saver.save(u"resource %1"_s.arg(uri),
                                        resource.value(u"blob"_s).toString(),
                                        resource.value(u"mimeType"_s).toString()));
        } else {
            parts.append(u"[content of type \"%1\" left out]"_s.arg(type.left(64)));
        }
    }
    return parts.join(u"\n\n"_s);
}

// A result over the limit goes whole to a file (as a command's output does), and the model reads
// its start and where the rest is.
void capResult(ToolResult &result, const QString &outputDirectory, const QString &callId)
{
    if (result.content.size() <= mcpResultLimit)
        return;
    const qsizetype total = result.content.size();
    OutputFileWriter writer(outputDirectory, callId, resultFileLimit);
    writer.append(result.content.toUtf8());
    writer.start();
    const OutputFile file = writer.finish();
    qsizetype cut = mcpResultLimit;
    if (result.content.at(cut - 1).isHighSurrogate())
        --cut;
    QString content = result.content.left(cut);
    content += u"\n[The result has %1 characters; only the first %2 are shown above.]"_s.arg(total)
                       .arg(cut);
    if (file.complete)
        content += u"\n[The full result (%1 bytes) is in the file %2]"_s.arg(file.bytes)
                           .arg(QDir::toNativeSeparators(file.path));
    else if (file.path.isEmpty())
        content += u"\n[The full result could not be saved to a file: %1]"_s.arg(file.problem);
    else
        content += u"\n[Only the first %1 bytes of the result are in the file %2: %3]"_s
                           .arg(file.bytes)
                           .arg(QDir::toNativeSeparators(file.path), file.problem);
    result.content = content;
    result.outputFile = file;
}

QString compactJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    // A scalar: as the only element of an array, without the brackets.
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(array.mid(1, array.size() - 2));
}

class McpToolRun final : public ToolRun
{
public:
    McpToolRun(QObject *parent)
        : ToolRun(parent)
    {
        m_clock.start();
    }

    void begin(McpServer *server,
               const McpToolInfo &info,
               const QJsonObject &arguments,
               QString outputDirectory,
               QString callId)
    {
        if (!server || server->status() != McpServer::Status::Ready || !server->client()) {
            const QString name = server ? server->config().name : u"(removed)"_s;
            const QString state = server ? mcpStatusName(server->status()) : u"removed"_s;
            finishLater(ToolResult::failure(u"mcp_unavailable"_s,
                                            u"server %1 is %2"_s.arg(name, state)));
            return;
        }
        m_info = info;
        m_timeoutMs = server->config().timeoutMs;
        m_outputDirectory = std::move(outputDirectory);
        m_callId = std::move(callId);
        m_call = server->client()->callTool(info.name, arguments, m_timeoutMs, this);
        connect(m_call, &McpCall::finished, this, [this](const McpCallOutcome &outcome) {
            finish(mcpToolResult(outcome, m_info, m_outputDirectory, m_callId, m_timeoutMs));
        });
        connect(m_call,
                &McpCall::progressed,
                this,
                [this](double progress, double total, const QString &message) {
                    if (!m_done)
                        emit progressed(ToolProgress{progress, total, message});
                });
        // The client's calls end with it; in case one does not, a server that leaves Ready ends
        // the call here, once everything it sent has been heard.
        connect(server, &McpServer::statusChanged, this, [this, server](McpServer::Status status) {
            if (status == McpServer::Status::Ready)
                return;
            const QString detail = server->statusDetail();
            QTimer::singleShot(0, this, [this, detail] {
                finish(ToolResult::failure(u"mcp_failed"_s,
                                           u"the server stopped during the call%1"_s.arg(
                                                   detail.isEmpty() ? QString()
                                                                    : u" (%1)"_s.arg(detail))));
            });
        });
        connect(server, &QObject::destroyed, this, [this] {
            QTimer::singleShot(0, this, [this] {
                finish(ToolResult::failure(u"mcp_failed"_s,
                                           u"the server was removed during the call"_s));
            });
        });
    }

    void cancel() override
    {
        if (m_call && !m_done) {
            m_call->cancel();
            return;
        }
        finishLater(ToolResult::failure(u"cancelled"_s,
                                        u"the user stopped the run before the MCP call was sent"_s));
    }

private:
    void finishLater(const ToolResult &result)
    {
        QTimer::singleShot(0, this, [this, result] { finish(result); });
    }

    void finish(ToolResult result)
    {
        if (m_done)
            return;
        m_done = true;
        if (m_call)
            disconnect(m_call, nullptr, this, nullptr);
        result.durationMs = m_clock.elapsed();
        emit finished(result);
    }

    McpToolInfo m_info;
    int m_timeoutMs = 0;
    QString m_outputDirectory;
    QString m_callId;
    QPointer<McpCall> m_call;
    QElapsedTimer m_clock;
    bool m_done = false;
};

} // namespace

QStringList unsupportedSchemaKeywords(const QJsonObject &schema)
{
    QSet<QString> found;
    collectUnsupported(schema, found, 0);
    QStringList keywords(found.begin(), found.end());
    keywords.sort();
    return keywords;
}

McpTool::McpTool(McpServer *server,
                 const McpToolInfo &info,
                 std::function<QString()> outputDirectory,
                 const QString &registryName)
    : Tool(registryName.isEmpty()
                   ? mcpToolName(server ? server->config().name : QString(), info.name)
                   : registryName,
           modelDescription(server ? server->config().name : QString(), info),
           JsonSchema(parameterSchema(info)),
           sideEffectFor(server, info))
    , m_server(server)
    , m_serverName(server ? server->config().name : QString())
    , m_info(info)
    , m_unsupported(unsupportedSchemaKeywords(info.inputSchema))
    , m_outputDirectory(std::move(outputDirectory))
{}

QString McpTool::approvalReason() const
{
    // Shown to the user, who reads the description as the server wrote it: the front ends pass
    // it through displayText() like all text from a server.
    QString reason = McpToolText::tr("The tool “%1” of the MCP server “%2” runs only when you "
                                     "approve it. Its description: %3")
                             .arg(m_info.name, m_serverName, cappedDescription(m_info));
    if (validationSkipped())
        reason += u'\n'
                  + McpToolText::tr("The arguments were not checked against the tool's schema: "
                                    "it uses %1, which Agent Loop cannot check.")
                            .arg(m_unsupported.join(u", "_s));
    return reason;
}

CallPreview McpTool::preview(const QJsonObject &arguments) const
{
    // The full arguments, indented, never cut: the user approves exactly what the server gets.
    return Tool::preview(arguments);
}

ToolRun *McpTool::invoke(const PreparedCall &call, QObject *parent) const
{
    auto *run = new McpToolRun(parent);
    run->begin(m_server.data(),
               m_info,
               call.arguments,
               m_outputDirectory ? m_outputDirectory() : QString(),
               call.call.id);
    return run;
}

QString McpTool::checkArguments(const QJsonObject &) const
{
    return {};
}

ToolResult mcpToolResult(const McpCallOutcome &outcome,
                         const McpToolInfo &info,
                         const QString &outputDirectory,
                         const QString &callId,
                         int timeoutMs)
{
    switch (outcome.status) {
    case McpCallOutcome::Failed:
        return ToolResult::failure(u"mcp_failed"_s,
                                   outcome.errorMessage.isEmpty() ? u"the call failed"_s
                                                                  : outcome.errorMessage);
    case McpCallOutcome::TimedOut:
        return ToolResult::failure(u"mcp_timeout"_s,
                                   timeoutMs > 0
                                           ? u"no answer within %1 s; the call was cancelled on "
                                             u"the server"_s.arg((timeoutMs + 999) / 1000)
                                           : u"no answer in time; the call was cancelled on the "
                                             u"server"_s);
    case McpCallOutcome::Cancelled:
        return ToolResult::failure(u"cancelled"_s,
                                   u"the user stopped the run; the MCP server was told to cancel "
                                   u"the call"_s);
    case McpCallOutcome::Completed:
        break;
    }
    const QJsonObject &result = outcome.result;
    BinarySaver saver(outputDirectory, callId);
    QString text = contentText(result.value(u"content"_s).toArray(), saver);
    const bool isError = result.value(u"isError"_s).toBool();
    const QJsonValue structured = result.value(u"structuredContent"_s);
    const bool hasStructured = !structured.isUndefined() && !structured.isNull();
    if (!isError && !info.outputSchema.isEmpty()) {
        if (!hasStructured)
            return ToolResult::failure(u"mcp_invalid_output"_s,
                                       u"the tool declares an output schema but its result has "
                                       u"no structuredContent"_s);
        const QList<SchemaViolation> violations = JsonSchema(info.outputSchema).validate(structured);
        if (!violations.isEmpty())
            return ToolResult::failure(u"mcp_invalid_output"_s,
                                       u"the structured result does not match the tool's output "
                                       u"schema: "_s
                                               + describeViolations(violations));
    }
    if (text.isEmpty() && hasStructured)
        text = compactJson(structured);
    ToolResult converted = isError ? ToolResult::failure(u"mcp_error"_s,
                                                         text.isEmpty()
                                                                 ? u"the tool reported an error "
                                                                   u"without a message"_s
                                                                 : text)
                                   : ToolResult::success(text);
    capResult(converted, outputDirectory, callId);
    return converted;
}

} // namespace AgentLoop
