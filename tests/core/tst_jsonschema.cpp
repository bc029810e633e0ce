#include "protocol/jsonschema.h"
#include "testmain.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

#include <algorithm>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

#ifndef JSON_SCHEMA_TEST_SUITE_DIR
#define JSON_SCHEMA_TEST_SUITE_DIR ""
#endif

namespace {

// The keywords every tool schema relies on; most of their suite cases must run, not skip.
const QStringList requiredSuiteFiles = {u"type"_s,
                                        u"properties"_s,
                                        u"required"_s,
                                        u"additionalProperties"_s,
                                        u"minLength"_s,
                                        u"maxLength"_s,
                                        u"enum"_s,
                                        u"minimum"_s,
                                        u"maximum"_s,
                                        u"items"_s,
                                        u"minItems"_s,
                                        u"maxItems"_s,
                                        u"pattern"_s};

const QStringList otherSuiteFiles = {u"const"_s,
                                     u"exclusiveMinimum"_s,
                                     u"exclusiveMaximum"_s,
                                     u"multipleOf"_s,
                                     u"uniqueItems"_s,
                                     u"patternProperties"_s,
                                     u"additionalItems"_s,
                                     u"allOf"_s,
                                     u"anyOf"_s,
                                     u"oneOf"_s,
                                     u"not"_s,
                                     u"minProperties"_s,
                                     u"maxProperties"_s,
                                     u"boolean_schema"_s,
                                     u"default"_s};

// Annotations: ignoring them is exactly what a validator should do.
const QStringList annotationKeywords = {u"$schema"_s,
                                        u"$comment"_s,
                                        u"title"_s,
                                        u"description"_s,
                                        u"default"_s,
                                        u"examples"_s,
                                        u"readOnly"_s,
                                        u"writeOnly"_s};

struct SuiteCase
{
    QString name;
    QJsonValue schema;
    QJsonValue data;
    bool valid = false;
    QString unsupportedKeyword;
};

QString suiteDir()
{
    return QString::fromUtf8(JSON_SCHEMA_TEST_SUITE_DIR);
}

bool suiteInstalled()
{
    return !suiteDir().isEmpty() && QFileInfo(suiteDir() + u"/type.json"_s).isFile();
}

// Walks only schema positions, so property names and enum values are never taken for keywords.
QString unsupportedKeyword(const QJsonValue &schema)
{
    static const QStringList supported = JsonSchema::supportedKeywords();
    const QJsonObject object = schema.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString &key = it.key();
        if (!supported.contains(key) && !annotationKeywords.contains(key))
            return key;
        QJsonArray subschemas;
        if (key == u"properties" || key == u"patternProperties") {
            for (const QJsonValue &subschema : it.value().toObject())
                subschemas.append(subschema);
        } else if (key == u"allOf" || key == u"anyOf" || key == u"oneOf"
                   || (key == u"items" && it.value().isArray())) {
            subschemas = it.value().toArray();
        } else if (key == u"items" || key == u"additionalItems" || key == u"additionalProperties"
                   || key == u"not") {
            subschemas.append(it.value());
        }
        for (const QJsonValue &subschema : std::as_const(subschemas)) {
            if (const QString found = unsupportedKeyword(subschema); !found.isEmpty())
                return found;
        }
    }
    return {};
}

QList<SuiteCase> loadSuiteFile(const QString &file, QString *error)
{
    QFile f(suiteDir() + u'/' + file + u".json"_s);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = u"cannot read %1: %2"_s.arg(f.fileName(), f.errorString());
        return {};
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isArray()) {
        *error = u"%1 is not a JSON array: %2"_s.arg(f.fileName(), pe.errorString());
        return {};
    }
    QList<SuiteCase> cases;
    QSet<QString> names;
    for (const QJsonValue &group : doc.array()) {
        const QJsonValue schema = group[u"schema"];
        const QString unsupported = unsupportedKeyword(schema);
        for (const QJsonValue &test : group[u"tests"].toArray()) {
            QString name = u"%1: %2 / %3"_s.arg(file,
                                                group[u"description"].toString(),
                                                test[u"description"].toString());
            while (names.contains(name))
                name += u" (again)"_s;
            names.insert(name);
            cases.append({name, schema, test[u"data"], test[u"valid"].toBool(), unsupported});
        }
    }
    return cases;
}

// JsonSchema holds an object; the suite's root boolean schemas are written as their object
// equivalents (true accepts everything like {}, false rejects everything like {"not": {}}).
JsonSchema schemaFor(const QJsonValue &schema)
{
    if (schema.isBool())
        return JsonSchema(schema.toBool() ? QJsonObject{} : QJsonObject{{u"not"_s, QJsonObject{}}});
    return JsonSchema(schema.toObject());
}

QJsonValue parse(const QByteArray &json)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson("[" + json + "]", &pe);
    if (pe.error != QJsonParseError::NoError)
        qFatal("bad JSON in test data: %s", json.constData());
    return doc.array().first();
}

QStringList pathsOf(const QList<SchemaViolation> &violations)
{
    QStringList paths;
    for (const SchemaViolation &v : violations)
        paths.append(v.path);
    return paths;
}

QStringList messagesOf(const QList<SchemaViolation> &violations)
{
    QStringList messages;
    for (const SchemaViolation &v : violations)
        messages.append(v.message);
    return messages;
}

const QByteArray shellToolSchema = R"({"type": "object",
    "properties": {"command": {"type": "string", "minLength": 1, "pattern": "\\S"}},
    "required": ["command"], "additionalProperties": false})";

} // namespace

class tst_JsonSchema : public QObject
{
    Q_OBJECT

private slots:
    void officialSuite_data();
    void officialSuite();
    void requiredSuiteFilesMostlyRun();
    void shellSchema_data();
    void shellSchema();
    void messages_data();
    void messages();
    void invalidPatternRejects_data();
    void invalidPatternRejects();
    void pointerPaths_data();
    void pointerPaths();
    void describeViolationsFormat_data();
    void describeViolationsFormat();
};

void tst_JsonSchema::officialSuite_data()
{
    QTest::addColumn<QJsonValue>("schema");
    QTest::addColumn<QJsonValue>("data");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("unsupportedKeyword");
    if (!suiteInstalled())
        QSKIP("JSON-Schema-Test-Suite not found; install the json-schema-test-suite package");
    for (const QString &file : requiredSuiteFiles + otherSuiteFiles) {
        QString error;
        const QList<SuiteCase> cases = loadSuiteFile(file, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const SuiteCase &c : cases)
            QTest::newRow(qPrintable(c.name))
                    << c.schema << c.data << c.valid << c.unsupportedKeyword;
    }
}

void tst_JsonSchema::officialSuite()
{
    QFETCH(QJsonValue, schema);
    QFETCH(QJsonValue, data);
    QFETCH(bool, valid);
    QFETCH(QString, unsupportedKeyword);
    if (!unsupportedKeyword.isEmpty())
        QSKIP(qPrintable(u"schema uses unsupported keyword \"%1\""_s.arg(unsupportedKeyword)));

    const QList<SchemaViolation> violations = schemaFor(schema).validate(data);
    if (valid)
        QVERIFY2(violations.isEmpty(), qPrintable(describeViolations(violations)));
    else
        QVERIFY2(!violations.isEmpty(), "accepted an invalid instance");
}

void tst_JsonSchema::requiredSuiteFilesMostlyRun()
{
    if (!suiteInstalled())
        QSKIP("JSON-Schema-Test-Suite not found; install the json-schema-test-suite package");
    qsizetype total = 0;
    qsizetype runnable = 0;
    for (const QString &file : requiredSuiteFiles) {
        QString error;
        const QList<SuiteCase> cases = loadSuiteFile(file, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        total += cases.size();
        runnable += std::count_if(cases.begin(), cases.end(), [](const SuiteCase &c) {
            return c.unsupportedKeyword.isEmpty();
        });
    }
    QVERIFY2(total >= 150, qPrintable(u"only %1 suite cases found"_s.arg(total)));
    QVERIFY2(runnable * 100 >= total * 95,
             qPrintable(u"only %1 of %2 cases run"_s.arg(runnable).arg(total)));
}

void tst_JsonSchema::shellSchema_data()
{
    QTest::addColumn<QByteArray>("arguments");
    QTest::addColumn<QStringList>("paths");
    QTest::addColumn<QStringList>("messages");

    QTest::newRow("valid command")
            << QByteArray(R"({"command": "ls -la"})") << QStringList() << QStringList();
    QTest::newRow("missing command") << QByteArray("{}") << QStringList{u""_s}
                                     << QStringList{u"missing required property \"command\""_s};
    QTest::newRow("empty command")
            << QByteArray(R"({"command": ""})") << QStringList{u"/command"_s, u"/command"_s}
            << QStringList{u"must be at least 1 character long"_s,
                           u"must match the pattern \"\\\\S\""_s};
    QTest::newRow("blank command")
            << QByteArray(R"({"command": "   "})") << QStringList{u"/command"_s}
            << QStringList{u"must match the pattern \"\\\\S\""_s};
    QTest::newRow("extra cwd") << QByteArray(R"({"command": "ls", "cwd": "/tmp"})")
                               << QStringList{u""_s}
                               << QStringList{u"property \"cwd\" is not allowed"_s};
    QTest::newRow("command as number")
            << QByteArray(R"({"command": 42})") << QStringList{u"/command"_s}
            << QStringList{u"must be a string, not a number"_s};
    QTest::newRow("arguments as array") << QByteArray(R"(["ls"])") << QStringList{u""_s}
                                        << QStringList{u"must be an object, not an array"_s};
    QTest::newRow("arguments as string") << QByteArray(R"("ls")") << QStringList{u""_s}
                                         << QStringList{u"must be an object, not a string"_s};
    QTest::newRow("only an extra field")
            << QByteArray(R"({"cmd": "ls"})") << QStringList{u""_s, u""_s}
            << QStringList{u"missing required property \"command\""_s,
                           u"property \"cmd\" is not allowed"_s};
}

void tst_JsonSchema::shellSchema()
{
    QFETCH(QByteArray, arguments);
    QFETCH(QStringList, paths);
    QFETCH(QStringList, messages);

    const QList<SchemaViolation> violations = JsonSchema(parse(shellToolSchema).toObject())
                                                      .validate(parse(arguments));
    QCOMPARE(pathsOf(violations), paths);
    QCOMPARE(messagesOf(violations), messages);
}

void tst_JsonSchema::messages_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("instance");
    QTest::addColumn<QStringList>("messages");

    const auto row = [](const char *name,
                        const char *schema,
                        const char *instance,
                        const QStringList &messages) {
        QTest::newRow(name) << QByteArray(schema) << QByteArray(instance) << messages;
    };
    row("enum", R"({"enum": ["a", "b"]})", R"("c")", {u"must be one of: \"a\", \"b\""_s});
    row("enum 1 == 1.0", R"({"enum": [1, "x"]})", "1.0", {});
    row("const", R"({"const": {"a": [1]}})", R"({"a": [2]})", {u"must be exactly {\"a\":[1]}"_s});
    row("type union",
        R"({"type": ["string", "null"]})",
        "true",
        {u"must be a string or null, not a boolean"_s});
    row("integer accepts 1.0", R"({"type": "integer"})", "1.0", {});
    row("integer rejects a fraction",
        R"({"type": "integer"})",
        "1.5",
        {u"must be an integer, not 1.5"_s});
    row("minimum", R"({"minimum": 1.5})", "1", {u"must be at least 1.5"_s});
    row("exclusiveMaximum", R"({"exclusiveMaximum": 10})", "10", {u"must be less than 10"_s});
    row("multipleOf", R"({"multipleOf": 0.01})", "0.125", {u"must be a multiple of 0.01"_s});
    row("multipleOf with binary noise", R"({"multipleOf": 0.01})", "19.99", {});
    row("maxLength counts code points",
        R"({"maxLength": 2})",
        "\"\\ud83d\\udca9\\ud83d\\udca9\"",
        {});
    row("maxLength", R"({"maxLength": 2})", R"("abc")", {u"must be at most 2 characters long"_s});
    row("pattern is unanchored", R"({"pattern": "b+"})", R"("abba")", {});
    row("dollar ends the input",
        R"({"pattern": "^a$"})",
        R"("a\n")",
        {u"must match the pattern \"^a$\""_s});
    row("escaped dollar", R"({"pattern": "^\\$[$]$"})", R"("$$")", {});
    row("unicode escape", R"({"pattern": "^\\u00e9$"})", R"("é")", {});
    row("minItems", R"({"minItems": 1})", "[]", {u"must contain at least 1 item"_s});
    row("additionalItems false",
        R"({"items": [{}], "additionalItems": false})",
        "[1, 2]",
        {u"must contain at most 1 item"_s});
    row("uniqueItems",
        R"({"uniqueItems": true})",
        R"([1, {"a": 1}, {"a": 1.0}])",
        {u"must not contain duplicate items (items 1 and 2 are equal)"_s});
    row("maxProperties",
        R"({"maxProperties": 1})",
        R"({"a": 1, "b": 2})",
        {u"must have at most 1 property"_s});
    row("anyOf",
        R"({"anyOf": [{"type": "string"}, {"minimum": 2}]})",
        "1",
        {u"must match at least one of the alternatives (alternative 1: must be a string, not a "
         u"number; alternative 2: must be at least 2)"_s});
    row("oneOf matches twice",
        R"({"oneOf": [{"type": "number"}, {"minimum": 2}]})",
        "3",
        {u"must match exactly one of the alternatives, but matches alternatives 1 and 2"_s});
    row("not",
        R"({"not": {"type": "null"}})",
        "null",
        {u"must not match the schema {\"type\":\"null\"}"_s});
    row("false subschema",
        R"({"properties": {"a": false}})",
        R"({"a": 1})",
        {u"is not allowed here"_s});
}

void tst_JsonSchema::messages()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, instance);
    QFETCH(QStringList, messages);

    QCOMPARE(messagesOf(JsonSchema(parse(schema).toObject()).validate(parse(instance))), messages);
}

void tst_JsonSchema::invalidPatternRejects_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("instance");
    QTest::addColumn<QString>("path");

    QTest::newRow("pattern") << QByteArray(R"({"pattern": "("})") << QByteArray(R"("x")")
                             << QString();
    QTest::newRow("patternProperties")
            << QByteArray(R"({"properties": {"a": {"patternProperties": {"(": {}}}}})")
            << QByteArray(R"({"a": {"x": 1}})") << u"/a"_s;
}

void tst_JsonSchema::invalidPatternRejects()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, instance);
    QFETCH(QString, path);

    const QList<SchemaViolation> violations = JsonSchema(parse(schema).toObject())
                                                      .validate(parse(instance));
    QCOMPARE(violations.size(), 1);
    QCOMPARE(violations.first().path, path);
    QVERIFY2(violations.first().message.startsWith(
                     u"cannot be checked: the schema's pattern \"(\" is invalid ("_s),
             qPrintable(violations.first().message));
}

void tst_JsonSchema::pointerPaths_data()
{
    QTest::addColumn<QByteArray>("instance");
    QTest::addColumn<QStringList>("paths");

    QTest::newRow("array item") << QByteArray(R"({"items": [1, 2, "x"]})")
                                << QStringList{u"/items/2"_s};
    QTest::newRow("slash escaped") << QByteArray(R"({"a/b": "x"})") << QStringList{u"/a~1b"_s};
    QTest::newRow("tilde escaped") << QByteArray(R"({"m~n": "x"})") << QStringList{u"/m~0n"_s};
    QTest::newRow("nested") << QByteArray(R"({"nested": {"deep": ["x", 1]}})")
                            << QStringList{u"/nested/deep/0"_s};
}

void tst_JsonSchema::pointerPaths()
{
    QFETCH(QByteArray, instance);
    QFETCH(QStringList, paths);

    const JsonSchema schema(parse(R"({"additionalProperties": false, "properties": {
        "items": {"items": {"type": "integer"}},
        "a/b": {"type": "integer"}, "m~n": {"type": "integer"},
        "nested": {"properties": {"deep": {"items": {"type": "integer"}}}}}})")
                                    .toObject());
    QCOMPARE(pathsOf(schema.validate(parse(instance))), paths);
}

void tst_JsonSchema::describeViolationsFormat_data()
{
    QTest::addColumn<QList<SchemaViolation>>("violations");
    QTest::addColumn<QString>("text");

    QTest::newRow("none") << QList<SchemaViolation>() << QString();
    QTest::newRow("root is called arguments")
            << QList<SchemaViolation>{{u""_s, u"missing required property \"command\""_s}}
            << u"arguments: missing required property \"command\""_s;
    const QList<SchemaViolation> several = {{u""_s, u"property \"cwd\" is not allowed"_s},
                                            {u"/command"_s, u"must be a string, not a number"_s}};
    QTest::newRow("several") << several
                             << u"arguments: property \"cwd\" is not allowed; "
                                u"/command: must be a string, not a number"_s;
}

void tst_JsonSchema::describeViolationsFormat()
{
    QFETCH(QList<SchemaViolation>, violations);
    QFETCH(QString, text);

    QCOMPARE(AgentLoop::describeViolations(violations), text);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_JsonSchema)
#include "tst_jsonschema.moc"
