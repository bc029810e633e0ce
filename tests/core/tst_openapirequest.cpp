#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "protocol/jsonschema.h"
#include "protocol/requestcheck.h"
#include "testmain.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
//
// The request bodies the real agent loop sends, checked against CreateChatCompletionRequest of
// the official OpenAPI description (../shared/vectors/openapi), made into one self-contained
// draft-7 schema that our own JsonSchema validates.
class tst_OpenApiRequest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    // The resolver, on small documents: every OpenAPI-ism it translates, checked by validating.
    void resolverTranslatesOpenApi_data();
    void resolverTranslatesOpenApi();

    // Nothing is left that our validator would silently skip.
    void resolvedSchemaIsSelfContained();

    // Every body a real AgentController sent to the fake provider.
    void seedTwoTurnExampleMatchesTheSpec_data();
    void seedTwoTurnExampleMatchesTheSpec();
    void longConversationMatchesTheSpec_data();
    void longConversationMatchesTheSpec();

    // The check has teeth: what the spec allows passes, what it forbids is reported.
    void specAcceptsTheseVariants_data();
    void specAcceptsTheseVariants();
    void specRejectsTheseMutations_data();
    void specRejectsTheseMutations();

private:
    QJsonObject capturedBody();

    JsonSchema m_request; // CreateChatCompletionRequest, resolved
    QJsonObject m_capturedBody;
};

namespace {

const QString specSchemaName = u"CreateChatCompletionRequest"_s;
const QString model = u"gpt-4.1"_s;
constexpr int conversationTimeoutMs = Testing::hangGuardMs;

// Keywords an OpenAPI schema object may carry that validate nothing (annotations, vendor
// extensions), or that our validator ignores anyway (format). `discriminator` only tells code
// generators which oneOf branch to pick; the spec's branches are already told apart by their
// `role` or `type` enum, so oneOf alone enforces the same thing. `readOnly` properties would be
// forbidden in requests, but no schema this request uses has any.
bool isDroppedKeyword(const QString &keyword)
{
    static const QSet<QString> dropped{u"description"_s,
                                       u"title"_s,
                                       u"example"_s,
                                       u"examples"_s,
                                       u"default"_s,
                                       u"deprecated"_s,
                                       u"discriminator"_s,
                                       u"format"_s,
                                       u"readOnly"_s,
                                       u"writeOnly"_s,
                                       u"externalDocs"_s,
                                       u"xml"_s,
                                       u"$comment"_s,
                                       u"$schema"_s,
                                       u"$id"_s,
                                       u"contentEncoding"_s,
                                       u"contentMediaType"_s};
    return keyword.startsWith(u"x-"_s) || dropped.contains(keyword);
}

// Keywords whose value is a map of property names (or patterns) to schemas.
bool holdsSchemaMap(const QString &keyword)
{
    return keyword == u"properties" || keyword == u"patternProperties";
}

// Keywords whose value is one schema.
bool holdsSchema(const QString &keyword)
{
    return keyword == u"additionalProperties" || keyword == u"additionalItems" || keyword == u"not"
           || keyword == u"contains" || keyword == u"propertyNames";
}

// Keywords whose value is a list of schemas.
bool holdsSchemaList(const QString &keyword)
{
    return keyword == u"allOf" || keyword == u"anyOf" || keyword == u"oneOf";
}

// Turns components.schemas.<name> of an OpenAPI 3.0/3.1 description into one self-contained
// draft-7 schema for JsonSchema, which has no $ref:
//  - every local "$ref": "#/components/schemas/X" is inlined, recursively. A reference to a
//    schema already being expanded on the current path (a recursive type) becomes {} (anything):
//    that is where expansion would never end, and accepting anything there keeps the check
//    sound, only lenient at that depth. CreateChatCompletionRequest has no such cycle today
//    (cyclesCut says so); any other $ref is a problem, reported;
//  - 3.1 allows keywords next to $ref and applies both: {"$ref": X, ...rest} becomes
//    allOf [X, rest] (rest without annotations, so usually just X);
//  - 3.0 `nullable: true` becomes anyOf [schema, {"type": "null"}]. Adding "null" to `type`
//    would not do: the spec puts nullable on schemas without a type (a oneOf), and an enum
//    next to it would still reject null;
//  - 3.0 boolean exclusiveMinimum/exclusiveMaximum become draft-7 numbers;
//  - 2020-12 `prefixItems` (+ `items`) become draft-7 `items` array (+ `additionalItems`);
//  - if/then/else, which our validator ignores, becomes
//    anyOf [allOf [if, then], allOf [not if, else]], the same rule in keywords it enforces;
//  - 3.1 `type` arrays ("type": ["string", "null"]) are draft 7 already and kept;
//  - annotations and extensions are dropped (isDroppedKeyword).
// Anything else is copied; resolvedSchemaIsSelfContained() fails if that leaves a keyword our
// validator does not enforce.
class OpenApiResolver
{
public:
    explicit OpenApiResolver(QJsonObject schemas)
        : m_schemas(std::move(schemas))
    {}

    QJsonValue resolve(const QString &name)
    {
        if (!m_schemas.contains(name)) {
            problems.append(u"no schema named %1"_s.arg(name));
            return QJsonValue(false);
        }
        m_path = {name};
        schemasUsed.insert(name);
        const QJsonValue resolved = translate(m_schemas.value(name));
        m_path.clear();
        return resolved;
    }

    int refsResolved = 0;
    QSet<QString> schemasUsed;
    int nullablesTranslated = 0;
    int conditionalsTranslated = 0;
    int cyclesCut = 0;
    QStringList problems;

private:
    QJsonValue translate(const QJsonValue &schema)
    {
        if (!schema.isObject())
            return schema; // boolean schemas, as they are
        QJsonObject in = schema.toObject();
        std::optional<QJsonValue> referenced;
        if (in.contains(u"$ref"_s))
            referenced = resolveRef(in.take(u"$ref"_s).toString());
        QJsonObject out;
        for (auto it = in.constBegin(); it != in.constEnd(); ++it) {
            const QString &keyword = it.key();
            if (isDroppedKeyword(keyword) || keyword == u"nullable" || keyword == u"prefixItems"
                || keyword == u"if" || keyword == u"then" || keyword == u"else")
                continue;
            if (holdsSchemaMap(keyword))
                out.insert(keyword, translateMap(it.value().toObject()));
            else if (holdsSchemaList(keyword))
                out.insert(keyword, translateList(it.value().toArray()));
            else if (keyword == u"items")
                out.insert(keyword,
                           it.value().isArray() ? QJsonValue(translateList(it.value().toArray()))
                                                : translate(it.value()));
            else if (holdsSchema(keyword))
                out.insert(keyword, translate(it.value()));
            else
                out.insert(keyword, it.value()); // type, enum, const, required, bounds: values
        }

        for (const auto &[exclusive, bound] : {std::pair(u"exclusiveMinimum"_s, u"minimum"_s),
                                               std::pair(u"exclusiveMaximum"_s, u"maximum"_s)}) {
            if (!out.value(exclusive).isBool())
                continue;
            if (out.take(exclusive).toBool() && out.contains(bound))
                out.insert(exclusive, out.take(bound));
        }

        if (in.contains(u"prefixItems"_s)) {
            if (out.contains(u"items"_s))
                out.insert(u"additionalItems"_s, out.take(u"items"_s));
            out.insert(u"items"_s, translateList(in.value(u"prefixItems"_s).toArray()));
        }

        QJsonArray conjuncts; // joins out's own allOf
        if (referenced)
            conjuncts.append(*referenced);
        if (in.contains(u"if"_s)) {
            ++conditionalsTranslated;
            const QJsonValue condition = translate(in.value(u"if"_s));
            const QJsonValue then = in.contains(u"then"_s) ? translate(in.value(u"then"_s))
                                                           : QJsonValue(true);
            const QJsonValue otherwise = in.contains(u"else"_s) ? translate(in.value(u"else"_s))
                                                                : QJsonValue(true);
            conjuncts.append(QJsonObject{
                    {u"anyOf"_s,
                     QJsonArray{QJsonObject{{u"allOf"_s, QJsonArray{condition, then}}},
                                QJsonObject{{u"allOf"_s,
                                             QJsonArray{QJsonObject{{u"not"_s, condition}},
                                                        otherwise}}}}}});
        }

        QJsonValue result = out;
        if (referenced && out.isEmpty() && conjuncts.size() == 1) {
            result = *referenced;
        } else if (!conjuncts.isEmpty()) {
            QJsonArray allOf = out.value(u"allOf"_s).toArray();
            for (const QJsonValue &conjunct : std::as_const(conjuncts))
                allOf.append(conjunct);
            out.insert(u"allOf"_s, allOf);
            result = out;
        }

        if (in.value(u"nullable"_s).toBool()) {
            ++nullablesTranslated;
            return QJsonObject{
                    {u"anyOf"_s, QJsonArray{result, QJsonObject{{u"type"_s, u"null"_s}}}}};
        }
        return result;
    }

    QJsonValue resolveRef(const QString &ref)
    {
        const QString prefix = u"#/components/schemas/"_s;
        if (!ref.startsWith(prefix)) {
            problems.append(u"unsupported $ref %1 (in %2)"_s.arg(ref, m_path.join(u" > "_s)));
            return QJsonObject();
        }
        QString name = ref.mid(prefix.size());
        name.replace(u"~1"_s, u"/"_s).replace(u"~0"_s, u"~"_s); // JSON Pointer escapes
        if (!m_schemas.contains(name)) {
            problems.append(u"dangling $ref %1 (in %2)"_s.arg(ref, m_path.join(u" > "_s)));
            return QJsonObject();
        }
        if (m_path.contains(name)) {
            ++cyclesCut;
            return QJsonObject();
        }
        ++refsResolved;
        schemasUsed.insert(name);
        m_path.append(name);
        const QJsonValue resolved = translate(m_schemas.value(name));
        m_path.removeLast();
        return resolved;
    }

    QJsonObject translateMap(const QJsonObject &map)
    {
        QJsonObject out;
        for (auto it = map.constBegin(); it != map.constEnd(); ++it)
            out.insert(it.key(), translate(it.value())); // keys are names, never keywords
        return out;
    }

    QJsonArray translateList(const QJsonArray &list)
    {
        QJsonArray out;
        for (const QJsonValue &schema : list)
            out.append(translate(schema));
        return out;
    }

    QJsonObject m_schemas;
    QStringList m_path; // the schemas being expanded, outermost first
};

// Every keyword of a resolved schema that JsonSchema does not enforce, with where it first is.
void collectUnsupportedKeywords(const QJsonValue &schema,
                                const QString &path,
                                const QStringList &supported,
                                QMap<QString, QString> &unsupported)
{
    if (!schema.isObject())
        return;
    const QJsonObject object = schema.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString &keyword = it.key();
        const QString here = path + u'/' + keyword;
        if (!supported.contains(keyword) && !unsupported.contains(keyword))
            unsupported.insert(keyword, here);
        if (holdsSchemaMap(keyword)) {
            const QJsonObject map = it.value().toObject();
            for (auto child = map.constBegin(); child != map.constEnd(); ++child)
                collectUnsupportedKeywords(child.value(),
                                           here + u'/' + child.key(),
                                           supported,
                                           unsupported);
        } else if (holdsSchemaList(keyword) || (keyword == u"items" && it.value().isArray())) {
            const QJsonArray list = it.value().toArray();
            for (qsizetype i = 0; i < list.size(); ++i)
                collectUnsupportedKeywords(list.at(i),
                                           here + u'/' + QString::number(i),
                                           supported,
                                           unsupported);
        } else if (holdsSchema(keyword) || keyword == u"items") {
            collectUnsupportedKeywords(it.value(), here, supported, unsupported);
        }
    }
}

// One JSON value from text (QJsonDocument alone takes only objects and arrays).
QJsonValue parseValue(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson('[' + text + ']', &error);
    if (error.error != QJsonParseError::NoError)
        qWarning().noquote() << "test data is not JSON:" << text << error.errorString();
    return document.array().at(0);
}

// One line per violation of every body: "request 2 /messages/3: missing required property ...".
QStringList specViolations(const JsonSchema &spec, const QList<RecordedRequest> &requests)
{
    QStringList lines;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(requests[i].body, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            lines.append(u"request %1: the body is not a JSON object (%2)"_s.arg(i + 1).arg(
                    error.errorString()));
            continue;
        }
        for (const SchemaViolation &v : spec.validate(document.object()))
            lines.append(
                    u"request %1 %2: %3"_s.arg(i + 1).arg(v.path.isEmpty() ? u"(root)"_s : v.path,
                                                          v.message));
    }
    return lines;
}

QString describe(const QList<SchemaViolation> &violations)
{
    QStringList lines;
    for (const SchemaViolation &v : violations)
        lines.append((v.path.isEmpty() ? u"(root)"_s : v.path) + u": "_s + v.message);
    return lines.join(u'\n');
}

// value with the value at pointer (RFC 6901 tokens, no escapes) replaced by replacement, or
// removed when replacement is undefined.
QJsonValue withValueAt(const QJsonValue &value,
                       const QStringList &tokens,
                       qsizetype depth,
                       const QJsonValue &replacement)
{
    if (depth == tokens.size())
        return replacement;
    const QString &token = tokens.at(depth);
    if (value.isObject()) {
        QJsonObject object = value.toObject();
        const QJsonValue child = withValueAt(object.value(token), tokens, depth + 1, replacement);
        if (child.isUndefined())
            object.remove(token);
        else
            object.insert(token, child);
        return object;
    }
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        const qsizetype index = token.toLongLong();
        const QJsonValue child = withValueAt(array.at(index), tokens, depth + 1, replacement);
        if (child.isUndefined())
            array.removeAt(index);
        else
            array.replace(index, child);
        return array;
    }
    return value;
}

QJsonValue valueAt(const QJsonValue &value, const QStringList &tokens)
{
    QJsonValue current = value;
    for (const QString &token : tokens)
        current = current.isArray() ? current.toArray().at(token.toLongLong())
                                    : current.toObject().value(token);
    return current;
}

QStringList pointerTokens(const QString &pointer)
{
    return pointer.split(u'/').mid(1);
}

// The agent as the app builds it: the standard tools (the real shell tool, in front of a fake
// command runner), talking real HTTP to a scripted model on 127.0.0.1. Approvals are answered a
// turn of the event loop later, as a dialog would: Allow, except for the call ids in deniedCalls.
// The fake answers with plain JSON even when asked to stream; the client takes either, and only
// the requests matter here.
class Conversation
{
public:
    explicit Conversation(bool stream, const QSet<QString> &deniedCalls = {})
    {
        ProviderSettings settings;
        settings.baseUrl = server.baseUrl();
        settings.apiKey = u"sk-test-openapi-0123456789"_s;
        settings.model = model;
        settings.stream = stream;
        agent.setProvider(settings);
        ShellToolOptions options;
        options.workspace = u"/tmp/agentloop-workspace"_s;
        installStandardTools(agent, std::make_shared<FakeCommandRunner>(runner), options);
        QObject::connect(&agent,
                         &AgentController::approvalRequested,
                         &agent,
                         [this, deniedCalls](const ApprovalRequest &request) {
                             const ApprovalAnswer decision = deniedCalls.contains(request.toolCallId)
                                                                     ? ApprovalAnswer::deny()
                                                                     : ApprovalAnswer::allowOnce();
                             QTimer::singleShot(0, &agent, [this, id = request.id, decision] {
                                 agent.resolveApproval(id, decision);
                             });
                         });
    }

    // Runs one prompt to the model's final answer; false when it failed or took too long.
    bool ask(const QString &prompt)
    {
        const qsizetype answersBefore = finished.size();
        if (!agent.run(prompt))
            return false;
        const bool ended = QTest::qWaitFor(
                [&] { return finished.size() > answersBefore || !failed.isEmpty(); },
                conversationTimeoutMs);
        return ended && failed.isEmpty();
    }

    QString error() const
    {
        return failed.isEmpty() ? u"no answer within %1 ms"_s.arg(conversationTimeoutMs)
                                : failed.first().first().value<Error>().toString();
    }

    QStringList roles(qsizetype request) const
    {
        QStringList names;
        for (const QJsonValue &message : server.requests().at(request).messages())
            names.append(message[u"role"_s].toString());
        return names;
    }

    QStringList toolCallIds(qsizetype request) const
    {
        QStringList ids;
        for (const QJsonObject &message : server.requests().at(request).toolMessages())
            ids.append(message[u"tool_call_id"_s].toString());
        return ids;
    }

    FakeChatServer server;
    FakeCommandRunner runner;
    AgentController agent;
    QSignalSpy finished{&agent, &AgentController::finished};
    QSignalSpy failed{&agent, &AgentController::failed};
    QSignalSpy sent{&agent, &AgentController::requestSent};
};

// The seed's two-turn example: a shell call, then the final answer.
void runSeedExample(Conversation &c)
{
    c.server.script(
            {FakeResponse::toolCall(u"call_abc123"_s, u"shell"_s, uR"({"command":"echo 42"})"_s),
             FakeResponse::answer(u"The command printed 42."_s)});
    c.runner.enqueue(0, u"42\n"_s);
}

// Both request shapes: streamed (the default) and --no-stream.
void addStreamColumn()
{
    QTest::addColumn<bool>("stream");
    QTest::newRow("streamed") << true;
    QTest::newRow("not streamed") << false;
}

} // namespace

#define VERIFY_MATCHES_SPEC(requests) \
    do { \
        const QStringList violations = specViolations(m_request, requests); \
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join(u'\n'))); \
    } while (false)

void tst_OpenApiRequest::initTestCase()
{
    qRegisterMetaType<Error>();
    qRegisterMetaType<Exchange>();
    qRegisterMetaType<ApprovalRequest>();

    const QString path = sharedVectorsPath(u"openapi/openai-openapi.json"_s);
    QFile file(path);
    if (!file.exists())
        QSKIP(qPrintable(
                u"shared vectors not found at %1: the OpenAPI request check was skipped"_s.arg(
                        path)));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));

    const QJsonObject schemas = document[u"components"_s][u"schemas"_s].toObject();
    QVERIFY2(schemas.contains(specSchemaName), "no CreateChatCompletionRequest in the description");
    OpenApiResolver resolver(schemas);
    const QJsonValue resolved = resolver.resolve(specSchemaName);
    QVERIFY2(resolver.problems.isEmpty(), qPrintable(resolver.problems.join(u'\n')));
    QVERIFY(resolved.isObject());
    m_request = JsonSchema(resolved.toObject());
    qDebug().noquote() << u"OpenAPI %1 (%2): resolved %3 $refs to %4 distinct schemas, translated "
                          u"%5 nullable and %6 if/then/else, cut %7 recursive refs"_s
                                  .arg(specSchemaName, document[u"openapi"_s].toString())
                                  .arg(resolver.refsResolved)
                                  .arg(resolver.schemasUsed.size() - 1)
                                  .arg(resolver.nullablesTranslated)
                                  .arg(resolver.conditionalsTranslated)
                                  .arg(resolver.cyclesCut);
}

void tst_OpenApiRequest::resolverTranslatesOpenApi_data()
{
    QTest::addColumn<QByteArray>("schemas"); // components.schemas; the root is "Root"
    QTest::addColumn<QByteArray>("instance");
    QTest::addColumn<bool>("valid");

    const QByteArray ref = R"({"Root": {"type": "object",
                                        "properties": {"a": {"$ref": "#/components/schemas/A"}}},
                               "A": {"type": "string"}})";
    QTest::newRow("$ref inlined: match") << ref << QByteArray(R"({"a": "x"})") << true;
    QTest::newRow("$ref inlined: mismatch") << ref << QByteArray(R"({"a": 1})") << false;

    const QByteArray escaped = R"({"Root": {"$ref": "#/components/schemas/a~1b~0c"},
                                   "a/b~c": {"type": "integer"}})";
    QTest::newRow("$ref with pointer escapes") << escaped << QByteArray("1.5") << false;

    const QByteArray sibling = R"({"Root": {"$ref": "#/components/schemas/A", "maxLength": 2,
                                            "description": "3.1: applies with the $ref"},
                                   "A": {"type": "string"}})";
    QTest::newRow("$ref sibling: both hold") << sibling << QByteArray(R"("ab")") << true;
    QTest::newRow("$ref sibling: sibling fails") << sibling << QByteArray(R"("abc")") << false;
    QTest::newRow("$ref sibling: ref fails") << sibling << QByteArray("5") << false;

    const QByteArray nullable = R"({"Root": {"type": "integer", "minimum": 1, "nullable": true}})";
    QTest::newRow("nullable: null") << nullable << QByteArray("null") << true;
    QTest::newRow("nullable: value") << nullable << QByteArray("2") << true;
    QTest::newRow("nullable: constraint kept") << nullable << QByteArray("0") << false;
    QTest::newRow("nullable: type kept") << nullable << QByteArray(R"("2")") << false;

    const QByteArray nullableOneOf = R"({"Root": {"nullable": true, "oneOf": [
                                            {"type": "string", "nullable": true},
                                            {"type": "array", "maxItems": 1}]}})";
    QTest::newRow("nullable without type: null") << nullableOneOf << QByteArray("null") << true;
    QTest::newRow("nullable without type: fails") << nullableOneOf << QByteArray("[1, 2]") << false;

    const QByteArray notNullable = R"({"Root": {"type": "string", "nullable": false}})";
    QTest::newRow("nullable false") << notNullable << QByteArray("null") << false;

    const QByteArray typeArray = R"({"Root": {"type": ["string", "null"]}})";
    QTest::newRow("3.1 type array: null") << typeArray << QByteArray("null") << true;
    QTest::newRow("3.1 type array: number") << typeArray << QByteArray("1") << false;

    const QByteArray cycle = R"({"Root": {"type": "object", "required": ["name"],
                                          "properties": {
                                              "name": {"type": "string"},
                                              "child": {"$ref": "#/components/schemas/Root"}}}})";
    QTest::newRow("recursive $ref: outer level checked")
            << cycle << QByteArray(R"({"child": {}})") << false;
    QTest::newRow("recursive $ref: cut to {}")
            << cycle << QByteArray(R"({"name": "a", "child": 5})") << true;

    const QByteArray conditional = R"({"Root": {"if": {"properties": {"kind": {"const": "a"}}},
                                                "then": {"required": ["a"]},
                                                "else": {"required": ["b"]}}})";
    QTest::newRow("if/then: then holds")
            << conditional << QByteArray(R"({"kind": "a", "a": 1})") << true;
    QTest::newRow("if/then: then fails")
            << conditional << QByteArray(R"({"kind": "a", "b": 1})") << false;
    QTest::newRow("if/else: else holds")
            << conditional << QByteArray(R"({"kind": "c", "b": 1})") << true;
    QTest::newRow("if/else: else fails") << conditional << QByteArray(R"({"kind": "c"})") << false;

    const QByteArray exclusive = R"({"Root": {"type": "number",
                                              "minimum": 0, "exclusiveMinimum": true,
                                              "maximum": 1, "exclusiveMaximum": false}})";
    QTest::newRow("3.0 boolean exclusiveMinimum: bound") << exclusive << QByteArray("0") << false;
    QTest::newRow("3.0 boolean exclusiveMinimum: inside") << exclusive << QByteArray("0.5") << true;
    QTest::newRow("3.0 exclusiveMaximum false: bound") << exclusive << QByteArray("1") << true;

    const QByteArray prefixItems = R"({"Root": {"type": "array",
                                                "prefixItems": [{"type": "string"}],
                                                "items": {"type": "integer"}}})";
    QTest::newRow("prefixItems: match") << prefixItems << QByteArray(R"(["a", 1, 2])") << true;
    QTest::newRow("prefixItems: first") << prefixItems << QByteArray("[1]") << false;
    QTest::newRow("prefixItems: rest") << prefixItems << QByteArray(R"(["a", "b"])") << false;

    const QByteArray annotations = R"({"Root": {"type": "object", "required": ["description"],
                                                "properties": {"description": {"type": "string"},
                                                               "default": {"type": "integer",
                                                                           "default": "x"}},
                                                "x-oaiTypeLabel": "map", "deprecated": true}})";
    QTest::newRow("property named like an annotation: kept")
            << annotations << QByteArray(R"({"description": 1})") << false;
    QTest::newRow("property named like an annotation: valid")
            << annotations << QByteArray(R"({"description": "d", "default": 2})") << true;

    const QByteArray extensions = R"({"Root": {"type": "string", "format": "uri",
                                               "x-stainless-const": true,
                                               "discriminator": {"propertyName": "type"}}})";
    QTest::newRow("format and x-* dropped") << extensions << QByteArray(R"("not a uri")") << true;
}

void tst_OpenApiRequest::resolverTranslatesOpenApi()
{
    QFETCH(QByteArray, schemas);
    QFETCH(QByteArray, instance);
    QFETCH(bool, valid);

    const QJsonValue components = parseValue(schemas);
    QVERIFY(components.isObject());
    OpenApiResolver resolver(components.toObject());
    const QJsonValue resolved = resolver.resolve(u"Root"_s);
    QVERIFY2(resolver.problems.isEmpty(), qPrintable(resolver.problems.join(u'\n')));
    QVERIFY(resolved.isObject());
    const QString resolvedText = QString::fromUtf8(
            QJsonDocument(resolved.toObject()).toJson(QJsonDocument::Compact));

    QMap<QString, QString> unsupported;
    collectUnsupportedKeywords(resolved, QString(), JsonSchema::supportedKeywords(), unsupported);
    QVERIFY2(unsupported.isEmpty(), qPrintable(resolvedText));

    const QList<SchemaViolation> violations = JsonSchema(resolved.toObject())
                                                      .validate(parseValue(instance));
    QVERIFY2(violations.isEmpty() == valid,
             qPrintable(u"resolved %1; violations: %2"_s.arg(resolvedText, describe(violations))));
}

void tst_OpenApiRequest::resolvedSchemaIsSelfContained()
{
    QMap<QString, QString> unsupported;
    collectUnsupportedKeywords(m_request.schema(),
                               QString(),
                               JsonSchema::supportedKeywords(),
                               unsupported);
    QStringList lines;
    for (auto it = unsupported.constBegin(); it != unsupported.constEnd(); ++it)
        lines.append(u"%1 (first at %2)"_s.arg(it.key(), it.value()));
    QVERIFY2(unsupported.isEmpty(),
             qPrintable(u"keywords our validator would skip: "_s + lines.join(u", "_s)));

    // It is the real thing, not an empty shell: an empty body misses both required members.
    const QList<SchemaViolation> empty = m_request.validate(QJsonObject());
    const QString missing = u"missing required property \"%1\""_s;
    QVERIFY(empty.contains(SchemaViolation{QString(), missing.arg(u"model"_s)}));
    QVERIFY(empty.contains(SchemaViolation{QString(), missing.arg(u"messages"_s)}));
}

void tst_OpenApiRequest::seedTwoTurnExampleMatchesTheSpec_data()
{
    addStreamColumn();
}

void tst_OpenApiRequest::seedTwoTurnExampleMatchesTheSpec()
{
    QFETCH(bool, stream);

    Conversation c(stream);
    runSeedExample(c);
    QVERIFY2(c.ask(u"Run echo 42 and tell me the result"_s), qPrintable(c.error()));

    const QList<RecordedRequest> requests = c.server.requests();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(c.sent.size(), requests.size()); // every body the client sent is checked
    QCOMPARE(c.roles(0), QStringList({u"system"_s, u"user"_s}));
    QCOMPARE(c.roles(1), QStringList({u"system"_s, u"user"_s, u"assistant"_s, u"tool"_s}));
    QCOMPARE(c.toolCallIds(1), QStringList{u"call_abc123"_s});
    QVERIFY(requests[1].messages()[2][u"content"_s].isNull()); // assistant: tool calls only
    QCOMPARE(requests[0].json().value(u"stream"_s).toBool(), stream);
    VERIFY_MATCHES_SPEC(requests);
}

void tst_OpenApiRequest::longConversationMatchesTheSpec_data()
{
    addStreamColumn();
}

void tst_OpenApiRequest::longConversationMatchesTheSpec()
{
    QFETCH(bool, stream);

    Conversation c(stream, {u"call_rm"_s});
    c.server.script({
            FakeResponse::toolCalls(
                    {{u"call_ls"_s, u"shell"_s, uR"({"command":"ls"})"_s},
                     {u"call_wc"_s, u"shell"_s, uR"({"command":"wc -l README.md"})"_s}}),
            FakeResponse::toolCall(u"call_rm"_s, u"shell"_s, uR"({"command":"rm -rf build"})"_s),
            FakeResponse::toolCall(u"call_false"_s,
                                   u"shell"_s,
                                   uR"({"command":"cat missing.txt"})"_s),
            FakeResponse::answer(u"Two entries; README.md has 12 lines. build was kept."_s),
            FakeResponse::toolCall(u"call_again"_s,
                                   u"shell"_s,
                                   uR"({"command":"ls"})"_s,
                                   u"Listing once more."_s),
            FakeResponse::answer(u"Still two entries."_s),
    });
    c.runner.enqueue(0, u"README.md\nsrc\n"_s);
    c.runner.enqueue(0, u"12 README.md\n"_s);
    c.runner.enqueue(1, QString(), u"cat: missing.txt: No such file or directory\n"_s);
    c.runner.enqueue(0, u"README.md\nsrc\n"_s);

    QVERIFY2(c.ask(u"Count the files, then clean up"_s), qPrintable(c.error()));
    QVERIFY2(c.ask(u"Run it once more"_s), qPrintable(c.error()));

    const QList<RecordedRequest> requests = c.server.requests();
    QCOMPARE(requests.size(), 6);
    QCOMPARE(c.sent.size(), requests.size());
    // The last request carries all of it: parallel calls, the denial, the failure, the second
    // prompt, and an assistant message with both text and a call.
    QCOMPARE(c.roles(5),
             QStringList({u"system"_s,
                          u"user"_s,
                          u"assistant"_s,
                          u"tool"_s,
                          u"tool"_s,
                          u"assistant"_s,
                          u"tool"_s,
                          u"assistant"_s,
                          u"tool"_s,
                          u"assistant"_s,
                          u"user"_s,
                          u"assistant"_s,
                          u"tool"_s}));
    QCOMPARE(c.toolCallIds(5),
             QStringList(
                     {u"call_ls"_s, u"call_wc"_s, u"call_rm"_s, u"call_false"_s, u"call_again"_s}));
    const QJsonArray messages = requests[5].messages();
    QCOMPARE(messages[2][u"tool_calls"_s].toArray().size(), 2);
    QCOMPARE(messages[11][u"content"_s].toString(), u"Listing once more."_s);
    VERIFY_MATCHES_SPEC(requests);
}

// The seed example's second body, streamed: system, user, assistant with a tool call, tool;
// tools, stream and stream_options.
QJsonObject tst_OpenApiRequest::capturedBody()
{
    if (m_capturedBody.isEmpty()) {
        Conversation c(true);
        runSeedExample(c);
        if (c.ask(u"Run echo 42 and tell me the result"_s) && c.server.requests().size() == 2)
            m_capturedBody = c.server.requests()[1].json();
    }
    return m_capturedBody;
}

void tst_OpenApiRequest::specAcceptsTheseVariants_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QJsonValue>("replacement");

    QTest::newRow("stream null (nullable)") << u"/stream"_s << QJsonValue(QJsonValue::Null);
    QTest::newRow("stream false") << u"/stream"_s << QJsonValue(false);
    QTest::newRow("stream_options absent")
            << u"/stream_options"_s << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("n null (nullable)") << u"/n"_s << QJsonValue(QJsonValue::Null);
    QTest::newRow("stop null (nullable oneOf)") << u"/stop"_s << QJsonValue(QJsonValue::Null);
    QTest::newRow("stop as a string") << u"/stop"_s << QJsonValue(u"END"_s);
    QTest::newRow("temperature null (type null)")
            << u"/temperature"_s << QJsonValue(QJsonValue::Null);
    QTest::newRow("max_completion_tokens") << u"/max_completion_tokens"_s << QJsonValue(1024);
    QTest::newRow("tool_choice auto") << u"/tool_choice"_s << QJsonValue(u"auto"_s);
    QTest::newRow("parallel_tool_calls false") << u"/parallel_tool_calls"_s << QJsonValue(false);
    QTest::newRow("model not in the spec's list") << u"/model"_s << QJsonValue(u"qwen3-coder"_s);
    QTest::newRow("assistant content empty") << u"/messages/2/content"_s << QJsonValue(u""_s);
    QTest::newRow("assistant content absent")
            << u"/messages/2/content"_s << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("assistant reasoning_content (DeepSeek)")
            << u"/messages/2/reasoning_content"_s << QJsonValue(u"thinking"_s);
    QTest::newRow("tool content as text parts")
            << u"/messages/3/content"_s
            << QJsonValue(QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"42"_s}}});
    QTest::newRow("no tools") << u"/tools"_s << QJsonValue(QJsonValue::Undefined);
}

void tst_OpenApiRequest::specAcceptsTheseVariants()
{
    QFETCH(QString, pointer);
    QFETCH(QJsonValue, replacement);

    const QJsonObject base = capturedBody();
    QVERIFY2(!base.isEmpty(), "the seed example did not produce a second request");
    QVERIFY2(m_request.validate(base).isEmpty(), qPrintable(describe(m_request.validate(base))));
    const QStringList tokens = pointerTokens(pointer);
    const QJsonValue parent = valueAt(base, tokens.first(tokens.size() - 1));
    QVERIFY2(parent.isObject() || parent.isArray(), "the row points nowhere in the body");

    const QJsonValue mutated = withValueAt(base, tokens, 0, replacement);
    const QList<SchemaViolation> violations = m_request.validate(mutated);
    QVERIFY2(violations.isEmpty(), qPrintable(describe(violations)));

    // What the spec allows, the inspector's check of an edited request allows too.
    const RequestCheck check = checkRequestBody(
            QJsonDocument(mutated.toObject()).toJson(QJsonDocument::Compact));
    QVERIFY2(check.isValid(),
             qPrintable(check.problems.isEmpty() ? QString() : check.problems.first().message));
}

void tst_OpenApiRequest::specRejectsTheseMutations_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QJsonValue>("replacement"); // undefined: the member is removed
    QTest::addColumn<QString>("path");           // where the violation is reported
    QTest::addColumn<QString>("text");           // part of its message

    const QJsonValue removed(QJsonValue::Undefined);
    QTest::newRow("tool message without tool_call_id")
            << u"/messages/3/tool_call_id"_s << removed << u"/messages/3"_s
            << u"missing required property \"tool_call_id\""_s;
    QTest::newRow("tool message without content")
            << u"/messages/3/content"_s << removed << u"/messages/3"_s
            << u"missing required property \"content\""_s;
    QTest::newRow("role robot") << u"/messages/1/role"_s << QJsonValue(u"robot"_s)
                                << u"/messages/1"_s
                                << u"/messages/1/role: must be one of: \"user\""_s;
    QTest::newRow("messages a string")
            << u"/messages"_s << QJsonValue(u"run it"_s) << u"/messages"_s << u"must be an array"_s;
    QTest::newRow("messages empty") << u"/messages"_s << QJsonValue(QJsonArray()) << u"/messages"_s
                                    << u"must contain at least 1 item"_s;
    QTest::newRow("model missing")
            << u"/model"_s << removed << QString() << u"missing required property \"model\""_s;
    QTest::newRow("model a number")
            << u"/model"_s << QJsonValue(4) << u"/model"_s << u"must be a string"_s;
    QTest::newRow("user content null") << u"/messages/1/content"_s << QJsonValue(QJsonValue::Null)
                                       << u"/messages/1"_s << u"/messages/1/content: must match"_s;
    QTest::newRow("system content an object")
            << u"/messages/0/content"_s << QJsonValue(QJsonObject()) << u"/messages/0"_s
            << u"/messages/0/content"_s;
    QTest::newRow("tool call arguments as an object")
            << u"/messages/2/tool_calls/0/function/arguments"_s
            << QJsonValue(QJsonObject{{u"command"_s, u"echo 42"_s}}) << u"/messages/2"_s
            << u"/messages/2/tool_calls/0/function/arguments: must be a string"_s;
    QTest::newRow("tool call without id")
            << u"/messages/2/tool_calls/0/id"_s << removed << u"/messages/2"_s
            << u"missing required property \"id\""_s;
    QTest::newRow("tool calls not an array")
            << u"/messages/2/tool_calls"_s << QJsonValue(QJsonObject()) << u"/messages/2"_s
            << u"/messages/2/tool_calls: must be an array"_s;
    QTest::newRow("tool of type plugin")
            << u"/tools/0/type"_s << QJsonValue(u"plugin"_s) << u"/tools/0"_s << u"/tools/0/type"_s;
    QTest::newRow("tool function without name")
            << u"/tools/0/function/name"_s << removed << u"/tools/0"_s
            << u"missing required property \"name\""_s;
    QTest::newRow("n zero") << u"/n"_s << QJsonValue(0) << u"/n"_s << u"must be at least 1"_s;
    QTest::newRow("stream a string")
            << u"/stream"_s << QJsonValue(u"yes"_s) << u"/stream"_s << u"must be a boolean"_s;
    QTest::newRow("temperature 3")
            << u"/temperature"_s << QJsonValue(3) << u"/temperature"_s << u"must be at most 2"_s;
    QTest::newRow("stop with five sequences")
            << u"/stop"_s << QJsonValue(QJsonArray{u"a"_s, u"b"_s, u"c"_s, u"d"_s, u"e"_s})
            << u"/stop"_s << u"must contain at most 4 items"_s;
    QTest::newRow("parallel_tool_calls a string")
            << u"/parallel_tool_calls"_s << QJsonValue(u"true"_s) << u"/parallel_tool_calls"_s
            << u"must be a boolean"_s;
}

void tst_OpenApiRequest::specRejectsTheseMutations()
{
    QFETCH(QString, pointer);
    QFETCH(QJsonValue, replacement);
    QFETCH(QString, path);
    QFETCH(QString, text);

    const QJsonObject base = capturedBody();
    QVERIFY2(!base.isEmpty(), "the seed example did not produce a second request");
    QVERIFY2(m_request.validate(base).isEmpty(), qPrintable(describe(m_request.validate(base))));
    const QStringList tokens = pointerTokens(pointer);
    if (replacement.isUndefined())
        QVERIFY2(!valueAt(base, tokens).isUndefined(), "the row removes nothing");

    const QList<SchemaViolation> violations = m_request.validate(
            withValueAt(base, tokens, 0, replacement));
    QVERIFY2(!violations.isEmpty(), "the mutated body passed");
    const bool reported = std::any_of(violations.cbegin(),
                                      violations.cend(),
                                      [&](const SchemaViolation &v) {
                                          return v.path == path && v.message.contains(text);
                                      });
    QVERIFY2(reported, qPrintable(describe(violations)));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_OpenApiRequest)

#include "tst_openapirequest.moc"
