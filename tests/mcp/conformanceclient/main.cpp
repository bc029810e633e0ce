// agentloop-mcp-conformance-client: Agent Loop's MCP client as the client scenarios of
// @modelcontextprotocol/conformance run one (tests/mcp/conformance.sh):
//
//   agentloop-mcp-conformance-client <server URL>
//
// Connects with McpClient over Streamable HTTP (McpHttpTransport) and negotiates as the app does,
// waits for the first tool list, calls every listed tool once with arguments made from its input
// schema, answers each elicitation as the app's form does when the user accepts what it shows
// (the schema's defaults filled in, SEP-1034), then stops the client (which ends a legacy
// session) and exits: 0 when every call completed, 1 when a call or the connection failed, 2 on
// a usage error, 3 when it did not finish in time. What it does is printed on standard error,
// which the runner keeps with its results.

#include "mcp/mcpclient.h"
#include "mcp/mcptransport.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

// Under the runner's own limit (30 s), so that what happened is still printed.
constexpr int overallTimeoutMs = 25000;
constexpr int callTimeoutMs = 15000;

void say(const QString &line)
{
    std::fprintf(stderr, "%s\n", line.toUtf8().constData());
    std::fflush(stderr);
}

QString compact(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

// A value a user would type into a field of this schema that has no default.
QJsonValue sampleValue(const QJsonObject &schema)
{
    if (schema.contains(u"default"_s))
        return schema.value(u"default"_s);
    if (schema.contains(u"const"_s))
        return schema.value(u"const"_s);
    const QJsonArray choices = schema.value(u"enum"_s).toArray();
    if (!choices.isEmpty())
        return choices.first();
    const QString type = schema.value(u"type"_s).isArray()
                                 ? schema.value(u"type"_s).toArray().first().toString()
                                 : schema.value(u"type"_s).toString();
    if (type == u"integer" || type == u"number")
        return 1;
    if (type == u"boolean")
        return true;
    if (type == u"array")
        return QJsonArray();
    if (type == u"object")
        return QJsonObject();
    return u"conformance"_s;
}

// Every property of an object schema with its sample value.
QJsonObject sampleObject(const QJsonObject &schema)
{
    QJsonObject object;
    const QJsonObject properties = schema.value(u"properties"_s).toObject();
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it)
        object.insert(it.key(), sampleValue(it.value().toObject()));
    return object;
}

// What an accepted elicitation form holds: the fields with a default keep it, required fields
// without one get a sample value, the rest stay empty (as a user who only pressed OK).
QJsonObject acceptedForm(const QJsonObject &requestedSchema)
{
    QJsonObject content;
    const QJsonObject properties = requestedSchema.value(u"properties"_s).toObject();
    const QJsonArray required = requestedSchema.value(u"required"_s).toArray();
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
        const QJsonObject field = it.value().toObject();
        if (field.contains(u"default"_s) || required.contains(it.key()))
            content.insert(it.key(), sampleValue(field));
    }
    return content;
}

class Driver final : public QObject
{
public:
    explicit Driver(const QString &url)
    {
        McpServerConfig server;
        server.name = u"conformance"_s;
        server.transport = McpServerConfig::Http;
        server.url = url;
        m_client = new McpClient(server.name,
                                 new McpHttpTransport(server),
                                 QDir::currentPath(),
                                 this);
        connect(m_client, &McpClient::ready, this, [this] {
            say(u"ready: %1 (%2), server %3"_s.arg(m_client->protocolVersion(),
                                                   m_client->era() == McpClient::Era::Modern
                                                           ? u"modern"_s
                                                           : u"legacy"_s,
                                                   compact(m_client->serverInfo())));
        });
        connect(m_client, &McpClient::toolsChanged, this, &Driver::onToolsChanged);
        connect(m_client, &McpClient::failed, this, [this](const QString &reason) {
            say(u"failed: "_s + reason);
            finish(m_stopping ? m_exitCode : 1);
        });
        connect(m_client, &McpClient::logMessage, this, [](const QString &text) {
            say(u"log: "_s + text);
        });
        connect(m_client,
                &McpClient::elicitationRequested,
                this,
                [this](const McpElicitation &request) {
                    const QJsonObject content = acceptedForm(request.requestedSchema);
                    say(u"elicitation: %1; accepted with %2"_s.arg(request.message,
                                                                   compact(content)));
                    m_client->answerElicitation(request.id, u"accept"_s, content);
                });
        connect(m_client, &McpClient::stateChanged, this, [this](McpClient::State state) {
            if (state == McpClient::State::Closed && m_stopping)
                finish(m_exitCode);
        });
    }

    void start()
    {
        QTimer::singleShot(overallTimeoutMs, this, [this] {
            say(u"timed out after %1 ms"_s.arg(overallTimeoutMs));
            finish(3);
        });
        m_client->start();
    }

private:
    void onToolsChanged()
    {
        if (m_listed)
            return; // a later change: the scenario's tools are those of the first listing
        m_listed = true;
        for (const McpToolInfo &tool : m_client->tools())
            m_pending.append(tool);
        say(u"tools: %1"_s.arg(m_pending.size()));
        callNext();
    }

    void callNext()
    {
        if (m_pending.isEmpty()) {
            stop();
            return;
        }
        const McpToolInfo tool = m_pending.takeFirst();
        const QJsonObject arguments = sampleObject(tool.inputSchema);
        say(u"call %1 %2"_s.arg(tool.name, compact(arguments)));
        McpCall *call = m_client->callTool(tool.name, arguments, callTimeoutMs, this);
        connect(call,
                &McpCall::progressed,
                this,
                [](double progress, double total, const QString &message) {
                    say(u"progress %1/%2 %3"_s.arg(progress).arg(total).arg(message));
                });
        connect(call,
                &McpCall::finished,
                this,
                [this, call, name = tool.name](const McpCallOutcome &outcome) {
                    call->deleteLater();
                    if (outcome.status == McpCallOutcome::Completed) {
                        say(u"result of %1: %2"_s.arg(name, compact(outcome.result)));
                    } else {
                        say(u"call %1 did not complete: %2 (code %3)"_s
                                    .arg(name, outcome.errorMessage)
                                    .arg(outcome.errorCode));
                        m_exitCode = 1;
                    }
                    callNext();
                });
    }

    void stop()
    {
        m_stopping = true;
        // A legacy session ends with DELETE; the client is Closed once that is done.
        m_client->stop();
        if (m_client->state() == McpClient::State::Closed)
            finish(m_exitCode);
    }

    void finish(int exitCode)
    {
        if (m_finished)
            return;
        m_finished = true;
        say(u"exit %1"_s.arg(exitCode));
        QCoreApplication::exit(exitCode);
    }

    McpClient *m_client = nullptr;
    QList<McpToolInfo> m_pending;
    bool m_listed = false;
    bool m_stopping = false;
    bool m_finished = false;
    int m_exitCode = 0;
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = app.arguments().mid(1);
    if (arguments.size() != 1) {
        say(u"usage: agentloop-mcp-conformance-client <server URL>"_s);
        return 2;
    }
    say(u"scenario: "_s + qEnvironmentVariable("MCP_CONFORMANCE_SCENARIO"));
    Driver driver(arguments.first());
    QTimer::singleShot(0, &driver, &Driver::start);
    return app.exec();
}
