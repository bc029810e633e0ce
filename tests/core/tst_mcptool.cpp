#include "mcp/mcpserver.h"
#include "mcp/mcptool.h"
#include "permissions/permissionrules.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// What the model reads of an MCP tool's results, and what the user approves.
class tst_McpTool : public QObject
{
    Q_OBJECT

private slots:
    void results_data();
    void results();
    void imageIsSavedWhole();
    void embeddedBlobIsSaved();
    void oversizeResultIsSavedWholeAndCut();
    void definitionAndDescriptionCap();
    void missingSchemaTakesAnObject();
    void argumentsAreValidated();
    void unsupportedKeywords_data();
    void unsupportedKeywords();
    void skippedValidationIsSaidInTheApproval();
    void sideEffectFollowsReadOnlyHintOnlyWhenTrusted();
    void previewIsTheFullArguments();
    void unavailableServerAnswersTheModel();

private:
    static McpServerConfig serverConfig(bool trusted = false)
    {
        McpServerConfig config;
        config.name = u"files"_s;
        config.command = u"none"_s;
        config.trusted = trusted;
        return config;
    }
    static McpToolInfo toolInfo(const QJsonObject &inputSchema = {})
    {
        McpToolInfo info;
        info.name = u"read"_s;
        info.description = u"Reads a file."_s;
        info.inputSchema = inputSchema;
        return info;
    }
};

namespace {

McpCallOutcome completed(const QJsonObject &result)
{
    McpCallOutcome outcome;
    outcome.result = result;
    return outcome;
}

QJsonObject textContent(const QString &text)
{
    return {{u"type"_s, u"text"_s}, {u"text"_s, text}};
}

QJsonObject withContent(const QJsonArray &content)
{
    return {{u"content"_s, content}};
}

const QJsonObject countSchema{{u"type"_s, u"object"_s},
                              {u"properties"_s,
                               QJsonObject{{u"count"_s, QJsonObject{{u"type"_s, u"integer"_s}}}}},
                              {u"required"_s, QJsonArray{u"count"_s}}};

} // namespace

void tst_McpTool::results_data()
{
    QTest::addColumn<McpCallOutcome>("outcome");
    QTest::addColumn<QJsonObject>("outputSchema");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("content");

    QTest::newRow("text parts joined")
            << completed(withContent({textContent(u"one"_s), textContent(u"two"_s)}))
            << QJsonObject() << true << u"one\n\ntwo"_s;
    QTest::newRow("resource link")
            << completed(withContent({QJsonObject{{u"type"_s, u"resource_link"_s},
                                                  {u"uri"_s, u"file:///r/readme.md"_s},
                                                  {u"name"_s, u"readme"_s}}}))
            << QJsonObject() << true << u"[resource link: file:///r/readme.md readme]"_s;
    QTest::newRow("embedded text resource")
            << completed(withContent({QJsonObject{{u"type"_s, u"resource"_s},
                                                  {u"resource"_s,
                                                   QJsonObject{{u"uri"_s, u"test://static/1"_s},
                                                               {u"mimeType"_s, u"text/plain"_s},
                                                               {u"text"_s, u"resource body"_s}}}}}))
            << QJsonObject() << true << u"[resource test://static/1]\nresource body"_s;
    QTest::newRow("unknown content type")
            << completed(withContent({QJsonObject{{u"type"_s, u"hologram"_s}}})) << QJsonObject()
            << true << u"[content of type \"hologram\" left out]"_s;
    QTest::newRow("isError is a failure the model reads")
            << completed(QJsonObject{{u"content"_s, QJsonArray{textContent(u"no such file"_s)}},
                                     {u"isError"_s, true}})
            << QJsonObject() << false << u"mcp_error: no such file"_s;
    QTest::newRow("isError without text")
            << completed(QJsonObject{{u"content"_s, QJsonArray()}, {u"isError"_s, true}})
            << QJsonObject() << false
            << u"mcp_error: the tool reported an error without a message"_s;

    const QJsonObject sumSchema{{u"type"_s, u"object"_s},
                                {u"properties"_s,
                                 QJsonObject{{u"sum"_s, QJsonObject{{u"type"_s, u"number"_s}}}}},
                                {u"required"_s, QJsonArray{u"sum"_s}}};
    QTest::newRow("structured, valid, with text")
            << completed(QJsonObject{{u"content"_s, QJsonArray{textContent(u"sum is 5"_s)}},
                                     {u"structuredContent"_s, QJsonObject{{u"sum"_s, 5}}}})
            << sumSchema << true << u"sum is 5"_s;
    QTest::newRow("structured, valid, no text")
            << completed(QJsonObject{{u"content"_s, QJsonArray()},
                                     {u"structuredContent"_s, QJsonObject{{u"sum"_s, 5}}}})
            << sumSchema << true << u"{\"sum\":5}"_s;
    QTest::newRow("structured, invalid")
            << completed(QJsonObject{{u"content"_s, QJsonArray{textContent(u"five"_s)}},
                                     {u"structuredContent"_s, QJsonObject{{u"sum"_s, u"five"_s}}}})
            << sumSchema << false
            << u"mcp_invalid_output: the structured result does not match the tool's output "
               u"schema: /sum: "_s;
    QTest::newRow("structured missing under an output schema")
            << completed(withContent({textContent(u"5"_s)})) << sumSchema << false
            << u"mcp_invalid_output: the tool declares an output schema but its result has no "
               u"structuredContent"_s;
    QTest::newRow("structured without a schema")
            << completed(QJsonObject{{u"structuredContent"_s, QJsonObject{{u"a"_s, 1}}}})
            << QJsonObject() << true << u"{\"a\":1}"_s;

    McpCallOutcome failed;
    failed.status = McpCallOutcome::Failed;
    failed.errorMessage = u"Unknown tool: nope (JSON-RPC error -32602)"_s;
    failed.errorCode = -32602;
    QTest::newRow("failed") << failed << QJsonObject() << false
                            << u"mcp_failed: Unknown tool: nope (JSON-RPC error -32602)"_s;
    McpCallOutcome timedOut;
    timedOut.status = McpCallOutcome::TimedOut;
    QTest::newRow("timed out") << timedOut << QJsonObject() << false
                               << u"mcp_timeout: no answer within 2 s; the call was cancelled on "
                                  u"the server"_s;
    McpCallOutcome cancelled;
    cancelled.status = McpCallOutcome::Cancelled;
    QTest::newRow("cancelled") << cancelled << QJsonObject() << false
                               << u"cancelled: the user stopped the run; the MCP server was told "
                                  u"to cancel the call"_s;
}

void tst_McpTool::results()
{
    QFETCH(McpCallOutcome, outcome);
    QFETCH(QJsonObject, outputSchema);
    QFETCH(bool, ok);
    QFETCH(QString, content);
    QTemporaryDir dir;
    McpToolInfo info = toolInfo();
    info.outputSchema = outputSchema;
    const ToolResult result = mcpToolResult(outcome, info, dir.path(), u"call_1"_s, 1500);
    QCOMPARE(result.ok, ok);
    if (content.endsWith(u": "_s)) // the validator's own words follow
        QVERIFY2(result.content.startsWith(content), qPrintable(result.content));
    else
        QCOMPARE(result.content, content);
    if (!ok)
        QCOMPARE(result.errorCode, content.left(content.indexOf(u':')));
    QVERIFY(QDir(dir.path()).isEmpty()); // nothing saved for these
}

void tst_McpTool::imageIsSavedWhole()
{
    QTemporaryDir dir;
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    png += QByteArray(1226, 'p');
    const QJsonObject image{{u"type"_s, u"image"_s},
                            {u"data"_s, QString::fromLatin1(png.toBase64())},
                            {u"mimeType"_s, u"image/png"_s}};
    const ToolResult result = mcpToolResult(completed(withContent({textContent(u"tiny"_s), image})),
                                            toolInfo(),
                                            dir.filePath(u"outputs"_s),
                                            u"call/../7"_s);
    QVERIFY(result.ok);
    static const QRegularExpression saved(
            u"^tiny\n\n\\[image saved: (.+) \\(image/png, 1234 bytes\\)\\]$"_s);
    const QRegularExpressionMatch match = saved.match(result.content);
    QVERIFY2(match.hasMatch(), qPrintable(result.content));
    const QString path = QDir::fromNativeSeparators(match.captured(1));
    QCOMPARE(QFileInfo(path).absolutePath(), QDir(dir.filePath(u"outputs"_s)).absolutePath());
    QVERIFY(path.endsWith(u".png"_s));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), png);

    // Not base64: said, nothing written.
    const QJsonObject broken{{u"type"_s, u"audio"_s},
                             {u"data"_s, u"@@@ not base64 @@@"_s},
                             {u"mimeType"_s, u"audio/wav"_s}};
    const ToolResult bad = mcpToolResult(completed(withContent({broken})),
                                         toolInfo(),
                                         dir.filePath(u"other"_s),
                                         u"c2"_s);
    QCOMPARE(bad.content, u"[audio not saved: its data is not valid base64 (audio/wav)]"_s);
}

void tst_McpTool::embeddedBlobIsSaved()
{
    QTemporaryDir dir;
    const QByteArray bytes("%PDF-1.4 binary\0\1\2", 19);
    const QJsonObject resource{{u"type"_s, u"resource"_s},
                               {u"resource"_s,
                                QJsonObject{{u"uri"_s, u"test://doc.pdf"_s},
                                            {u"mimeType"_s, u"application/pdf"_s},
                                            {u"blob"_s, QString::fromLatin1(bytes.toBase64())}}}};
    const ToolResult result = mcpToolResult(completed(withContent({resource})),
                                            toolInfo(),
                                            dir.path(),
                                            u"c"_s);
    static const QRegularExpression saved(
            u"^\\[resource test://doc.pdf saved: (.+\\.pdf) \\(application/pdf, 19 bytes\\)\\]$"_s);
    const QRegularExpressionMatch match = saved.match(result.content);
    QVERIFY2(match.hasMatch(), qPrintable(result.content));
    QFile file(QDir::fromNativeSeparators(match.captured(1)));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), bytes);
}

// Like a command's long output: the model reads the start and where the whole result is.
void tst_McpTool::oversizeResultIsSavedWholeAndCut()
{
    QTemporaryDir dir;
    QString text;
    for (int i = 0; text.size() <= mcpResultLimit + 5000; ++i)
        text += u"line %1 of a long result ✓\n"_s.arg(i);
    const ToolResult result = mcpToolResult(completed(withContent({textContent(text)})),
                                            toolInfo(),
                                            dir.path(),
                                            u"call_big"_s);
    QVERIFY(result.ok);
    QVERIFY(result.content.startsWith(text.left(mcpResultLimit)));
    QVERIFY(result.content.size() < mcpResultLimit + 400);
    QVERIFY(result.outputFile.complete);
    QVERIFY2(result.content.contains(u"The result has %1 characters"_s.arg(text.size())),
             qPrintable(result.content.right(300)));
    QVERIFY2(result.content.endsWith(
                     u"is in the file %1]"_s.arg(QDir::toNativeSeparators(result.outputFile.path))),
             qPrintable(result.content.right(300)));
    QCOMPARE(QFileInfo(result.outputFile.path).fileName(), u"call_big.log"_s);
    QFile file(result.outputFile.path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), text);
}

void tst_McpTool::definitionAndDescriptionCap()
{
    McpServer server(serverConfig(), QDir::tempPath());
    McpToolInfo info = toolInfo(countSchema);
    info.name = u"do.it"_s;
    info.description = QString(mcpDescriptionLimit + 500, u'd');
    const McpTool tool(&server, info, {});
    QCOMPARE(tool.name(), u"mcp__files__do_it"_s);
    QCOMPARE(tool.serverName(), u"files"_s);
    const QJsonObject function = tool.definition().value(u"function"_s).toObject();
    QCOMPARE(function.value(u"name"_s).toString(), u"mcp__files__do_it"_s);
    const QString description = function.value(u"description"_s).toString();
    QVERIFY(description.startsWith(u"[MCP server files] "_s + QString(mcpDescriptionLimit, u'd')
                                   + u"… [description cut at 2000 characters]"_s));
    QVERIFY(!description.contains(QString(mcpDescriptionLimit + 1, u'd')));
    QCOMPARE(function.value(u"parameters"_s).toObject(), countSchema);

    info.description = u"Short."_s;
    const McpTool shortTool(&server, info, {});
    QCOMPARE(shortTool.description(), u"[MCP server files] Short."_s);
}

void tst_McpTool::missingSchemaTakesAnObject()
{
    McpServer server(serverConfig(), QDir::tempPath());
    const McpTool tool(&server, toolInfo(), {});
    QCOMPARE(tool.parameters().schema(), QJsonObject({{u"type"_s, u"object"_s}}));
    QVERIFY(std::holds_alternative<PreparedCall>(
            tool.prepare(ToolCall{u"c"_s, tool.name(), u"{\"any\": 1}"_s})));
}

void tst_McpTool::argumentsAreValidated()
{
    McpServer server(serverConfig(), QDir::tempPath());
    const McpTool tool(&server, toolInfo(countSchema), {});
    QVERIFY(!tool.validationSkipped());
    const Preparation bad = tool.prepare(ToolCall{u"c"_s, tool.name(), u"{\"count\": \"3\"}"_s});
    QVERIFY(std::holds_alternative<ToolResult>(bad));
    QVERIFY2(std::get<ToolResult>(bad).content.startsWith(u"invalid_arguments: "_s),
             qPrintable(std::get<ToolResult>(bad).content));
    const Preparation good = tool.prepare(ToolCall{u"c"_s, tool.name(), u"{\"count\": 3}"_s});
    QVERIFY(std::holds_alternative<PreparedCall>(good));
}

void tst_McpTool::unsupportedKeywords_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QStringList>("keywords");

    QTest::newRow("plain") << QByteArray(R"({"type":"object","properties":{"a":{"type":"string"}}})")
                           << QStringList();
    QTest::newRow("$ref to $defs")
            << QByteArray(R"({"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},
                          "$defs":{"A":{"type":"string"}}})")
            << QStringList{u"$ref"_s};
    QTest::newRow("$defs alone") << QByteArray(R"({"type":"object","$defs":{"A":{}}})")
                                 << QStringList();
    QTest::newRow("if/then/else") << QByteArray(
            R"({"if":{"required":["a"]},"then":{"required":["b"]},"else":{}})")
                                  << QStringList{u"else"_s, u"if"_s, u"then"_s};
    QTest::newRow("deep in anyOf")
            << QByteArray(R"({"anyOf":[{"type":"array","prefixItems":[{"type":"string"}]}]})")
            << QStringList{u"prefixItems"_s};
    QTest::newRow("dependentRequired") << QByteArray(R"({"dependentRequired":{"a":["b"]}})")
                                       << QStringList{u"dependentRequired"_s};
    QTest::newRow("unevaluatedProperties in items")
            << QByteArray(R"({"properties":{"l":{"items":{"unevaluatedProperties":false}}}})")
            << QStringList{u"unevaluatedProperties"_s};
    QTest::newRow("contains and propertyNames")
            << QByteArray(R"({"properties":{"l":{"contains":{"const":1}},
                          "m":{"propertyNames":{"pattern":"^a"}}}})")
            << QStringList{u"contains"_s, u"propertyNames"_s};
    // Property names are names, not keywords.
    QTest::newRow("properties named like keywords")
            << QByteArray(R"({"properties":{"if":{"type":"string"},"$ref":{"type":"string"},
                          "contains":{"type":"boolean"}}})")
            << QStringList();
}

void tst_McpTool::unsupportedKeywords()
{
    QFETCH(QByteArray, schema);
    QTEST(unsupportedSchemaKeywords(QJsonDocument::fromJson(schema).object()), "keywords");
}

// A schema the validator would misread is not enforced: the call passes to the server (which
// checks it), and the user is told in the approval.
void tst_McpTool::skippedValidationIsSaidInTheApproval()
{
    McpServer server(serverConfig(), QDir::tempPath());
    const QJsonObject schema = QJsonDocument::fromJson(
                                       R"({"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},
                                         "$defs":{"N":{"type":"integer"}},"required":["n"]})")
                                       .object();
    const McpTool tool(&server, toolInfo(schema), {});
    QVERIFY(tool.validationSkipped());
    QCOMPARE(tool.unsupportedKeywords(), QStringList{u"$ref"_s});
    QVERIFY(!tool.validatesArguments());
    // Against the schema as draft 7 reads it with $ref ignored, "x" would pass anyway; the missing
    // required "n" would not: skipped, it passes.
    QVERIFY(std::holds_alternative<PreparedCall>(
            tool.prepare(ToolCall{u"c"_s, tool.name(), u"{}"_s})));
    const QString reason = tool.approvalReason();
    QVERIFY2(reason.contains(u"“read”"_s) && reason.contains(u"“files”"_s)
                     && reason.contains(u"Reads a file."_s),
             qPrintable(reason));
    QVERIFY2(reason.contains(u"not checked"_s) && reason.contains(u"$ref"_s), qPrintable(reason));

    const McpTool checked(&server, toolInfo(countSchema), {});
    QVERIFY(!checked.approvalReason().contains(u"not checked"_s));
}

// readOnlyHint lowers the ask only for a server the user trusts; the rules see the rest as
// execute (asked) and allow by the tool's name.
void tst_McpTool::sideEffectFollowsReadOnlyHintOnlyWhenTrusted()
{
    McpServer untrusted(serverConfig(false), QDir::tempPath());
    McpServer trusted(serverConfig(true), QDir::tempPath());
    McpToolInfo info = toolInfo();
    info.readOnlyHint = true;
    const McpTool readUntrusted(&untrusted, info, {});
    const McpTool readTrusted(&trusted, info, {});
    info.readOnlyHint = false;
    info.destructiveHint = false;
    const McpTool writeTrusted(&trusted, info, {});
    QCOMPARE(readUntrusted.sideEffect(), SideEffect::Execute);
    QVERIFY(readUntrusted.declaredReadOnly());
    QCOMPARE(readTrusted.sideEffect(), SideEffect::Read);
    QCOMPARE(writeTrusted.sideEffect(), SideEffect::Execute);

    const PermissionPolicy defaults;
    QCOMPARE(defaults.check(readTrusted, {}).verdict, Verdict::Allow);
    QCOMPARE(defaults.check(readUntrusted, {}).verdict, Verdict::Ask);
    QCOMPARE(defaults.check(writeTrusted, {}).verdict, Verdict::Ask);
    const PermissionPolicy allowByName({{u"mcp__files__read"_s, RuleEffect::Allow, RuleOrigin::App}},
                                       {},
                                       nullptr);
    QCOMPARE(allowByName.check(readUntrusted, {}).verdict, Verdict::Allow);
    const PermissionPolicy denyByName({{u"mcp__files__read"_s, RuleEffect::Deny, RuleOrigin::App}},
                                      {},
                                      nullptr);
    QCOMPARE(denyByName.check(readTrusted, {}).verdict, Verdict::Deny);
}

void tst_McpTool::previewIsTheFullArguments()
{
    McpServer server(serverConfig(), QDir::tempPath());
    const McpTool tool(&server, toolInfo(), {});
    const QString long_(70000, u'z');
    const QJsonObject arguments{{u"path"_s, u"a/b.txt"_s}, {u"body"_s, long_}};
    const CallPreview preview = tool.preview(arguments);
    QCOMPARE(preview.kind, CallPreview::Arguments);
    QCOMPARE(QJsonDocument::fromJson(preview.text.toUtf8()).object(), arguments);
    QVERIFY(preview.text.contains(long_));
    QVERIFY(preview.text.contains(u"\n    \"path\": \"a/b.txt\""_s)); // indented
}

void tst_McpTool::unavailableServerAnswersTheModel()
{
    McpServer server(serverConfig(), QDir::tempPath());
    const McpTool tool(&server, toolInfo(), {});
    const Preparation prepared = tool.prepare(ToolCall{u"c"_s, tool.name(), u"{}"_s});
    QObject parent;
    ToolRun *run = tool.invoke(std::get<PreparedCall>(prepared), &parent);
    QSignalSpy finished(run, &ToolRun::finished);
    QCOMPARE(finished.size(), 0); // asynchronously
    QVERIFY(finished.wait());
    const ToolResult result = finished.first().first().value<ToolResult>();
    QCOMPARE(result.content, u"mcp_unavailable: server files is stopped"_s);
    QCOMPARE(result.errorCode, u"mcp_unavailable"_s);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_McpTool)
#include "tst_mcptool.moc"
