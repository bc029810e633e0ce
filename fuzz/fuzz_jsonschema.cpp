// libFuzzer target: the tool-argument validator. The input is a schema and an instance separated
// by the first NUL byte (without one, the first half is the schema): the validator must answer
// for any schema and any instance, never crash or hang.
#include "protocol/jsonschema.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace AgentLoop;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    qsizetype split = bytes.indexOf('\0');
    const QByteArray schemaText = split >= 0 ? bytes.first(split) : bytes.first(bytes.size() / 2);
    const QByteArray instanceText = split >= 0 ? bytes.sliced(split + 1)
                                               : bytes.sliced(bytes.size() / 2);

    const QJsonDocument schemaDocument = QJsonDocument::fromJson(schemaText);
    if (!schemaDocument.isObject())
        return 0;
    // Wrapped, so that any JSON value can be the instance (arguments are objects, but a schema's
    // subschemas see every type).
    const QJsonDocument instanceDocument = QJsonDocument::fromJson("[" + instanceText + "]");
    const QJsonValue instance = instanceDocument.isArray() && !instanceDocument.array().isEmpty()
                                        ? instanceDocument.array().first()
                                        : QJsonValue(QString::fromUtf8(instanceText));

    const JsonSchema schema(schemaDocument.object());
    const QList<SchemaViolation> violations = schema.validate(instance);
    (void) describeViolations(violations);
    return 0;
}
