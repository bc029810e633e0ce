#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

namespace AgentLoop {

// One way an instance fails its schema. `path` is a JSON Pointer into the instance ("" is the
// root, "/command", "/items/2"); `message` is one English sentence the model can act on, e.g.
// `missing required property "command"` or `property "extra" is not allowed`.
struct SchemaViolation
{
    QString path;
    QString message;

    friend bool operator==(const SchemaViolation &, const SchemaViolation &) = default;
};

// A JSON Schema (draft 7 semantics) for validating tool arguments. Implemented once and used for
// every tool, so the schema a tool sends to the model is exactly the schema its calls are checked
// against. Supported keywords: type, properties, required, additionalProperties, patternProperties,
// minLength, maxLength, pattern, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// multipleOf, items (schema or array form), additionalItems, minItems, maxItems, uniqueItems,
// minProperties, maxProperties, allOf, anyOf, oneOf, not, and boolean schemas. Unknown keywords
// are ignored, as the specification asks; so are $ref, definitions, dependencies, contains,
// propertyNames, if/then/else and format, which no tool schema needs yet. A missing required
// property or a property additionalProperties forbids is reported at the object's path, with the
// property named in the message. Patterns are ECMA-262 run by PCRE2 ("$" and "\uXXXX" are
// translated; \d and \w are ASCII in both).
class JsonSchema final
{
public:
    JsonSchema() = default;
    explicit JsonSchema(QJsonObject schema);

    const QJsonObject &schema() const { return m_schema; }

    // Every violation found, in a stable order; empty means valid.
    QList<SchemaViolation> validate(const QJsonValue &instance) const;

    // The keywords validate() understands, for tests that check coverage.
    static QStringList supportedKeywords();

private:
    QJsonObject m_schema;
};

// "path: message; path: message" with the root path shown as "arguments".
QString describeViolations(const QList<SchemaViolation> &violations);

} // namespace AgentLoop
