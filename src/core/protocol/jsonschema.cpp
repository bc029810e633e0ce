#include "protocol/jsonschema.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

using Violations = QList<SchemaViolation>;

QString childPath(const QString &path, QString key)
{
    return path + u'/' + key.replace(u'~', u"~0"_s).replace(u'/', u"~1"_s);
}

QString childPath(const QString &path, qsizetype index)
{
    return path + u'/' + QString::number(index);
}

// Compact JSON, so a value in a message reads exactly as the model has to write it.
QString toJsonText(const QJsonValue &value)
{
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

QString quoted(const QString &text)
{
    return toJsonText(QJsonValue(text));
}

QString countOf(const QJsonValue &count, const QString &one, const QString &many)
{
    return toJsonText(count) + u' ' + (count.toDouble() == 1 ? one : many);
}

// "a", "a or b", "a, b or c"
QString joinWords(const QStringList &items, const QString &conjunction)
{
    if (items.size() < 2)
        return items.join(QString());
    return items.first(items.size() - 1).join(u", "_s) + u' ' + conjunction + u' ' + items.last();
}

bool jsonEqual(const QJsonValue &a, const QJsonValue &b)
{
    if (a.type() != b.type())
        return false;
    switch (a.type()) {
    case QJsonValue::Double:
        return a.toDouble() == b.toDouble(); // 1 and 1.0 are the same number
    case QJsonValue::Array: {
        const QJsonArray x = a.toArray();
        const QJsonArray y = b.toArray();
        return x.size() == y.size()
               && std::equal(x.constBegin(), x.constEnd(), y.constBegin(), jsonEqual);
    }
    case QJsonValue::Object: {
        const QJsonObject x = a.toObject();
        const QJsonObject y = b.toObject();
        if (x.size() != y.size())
            return false;
        for (auto it = x.constBegin(); it != x.constEnd(); ++it) {
            const auto other = y.constFind(it.key());
            if (other == y.constEnd() || !jsonEqual(it.value(), other.value()))
                return false;
        }
        return true;
    }
    default:
        return a == b;
    }
}

bool isInteger(const QJsonValue &value)
{
    const double number = value.toDouble();
    return value.isDouble() && std::isfinite(number) && std::floor(number) == number;
}

bool hasType(const QJsonValue &value, QStringView type)
{
    if (type == u"integer")
        return isInteger(value);
    if (type == u"number")
        return value.isDouble();
    if (type == u"string")
        return value.isString();
    if (type == u"object")
        return value.isObject();
    if (type == u"array")
        return value.isArray();
    if (type == u"boolean")
        return value.isBool();
    if (type == u"null")
        return value.isNull();
    return false;
}

QString withArticle(const QString &type)
{
    if (type == u"null")
        return type;
    const bool vowel = type.startsWith(u'a') || type.startsWith(u'i') || type.startsWith(u'o');
    return (vowel ? u"an "_s : u"a "_s) + type;
}

QString describeType(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return u"null"_s;
    case QJsonValue::Bool:
        return u"a boolean"_s;
    case QJsonValue::Double:
        return u"a number"_s;
    case QJsonValue::String:
        return u"a string"_s;
    case QJsonValue::Array:
        return u"an array"_s;
    case QJsonValue::Object:
        return u"an object"_s;
    default:
        return u"missing"_s;
    }
}

// Patterns are ECMA-262; PCRE2 differs where tool schemas can notice: ECMA's "$" matches only
// at the very end (PCRE's also before a final newline), and PCRE2 rejects ECMA's "\uXXXX".
QString pcreFromEcmaScript(const QString &pattern)
{
    QString result;
    bool inClass = false;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern.at(i);
        if (c == u'\\' && i + 1 < pattern.size()) {
            const QString hex = pattern.mid(i + 2, 4);
            const auto isHexDigit = [](QChar h) {
                return (h >= u'0' && h <= u'9') || (h >= u'a' && h <= u'f')
                       || (h >= u'A' && h <= u'F');
            };
            if (pattern.at(i + 1) == u'u' && hex.size() == 4
                && std::all_of(hex.begin(), hex.end(), isHexDigit)) {
                result += u"\\x{"_s + hex + u'}';
                i += 5;
            } else {
                result += c;
                result += pattern.at(++i);
            }
            continue;
        }
        if (c == u'[')
            inClass = true;
        else if (c == u']')
            inClass = false;
        result += (c == u'$' && !inClass) ? u"\\z"_s : QString(c);
    }
    return result;
}

// Tool schemas hold a handful of fixed patterns, so compiling each once per thread is enough.
// Callers check isValid(): a pattern the schema author got wrong fails every value, since
// accepting anything would be worse.
QRegularExpression compiledPattern(const QString &pattern)
{
    static thread_local QHash<QString, QRegularExpression> cache;
    if (const auto it = cache.constFind(pattern); it != cache.constEnd())
        return it.value();
    if (cache.size() >= 256)
        cache.clear();
    QRegularExpression regex(pcreFromEcmaScript(pattern));
    regex.optimize();
    return cache.insert(pattern, regex).value();
}

SchemaViolation invalidPattern(const QString &path,
                               const QString &pattern,
                               const QRegularExpression &regex)
{
    return {path,
            u"cannot be checked: the schema's pattern %1 is invalid (%2)"_s
                    .arg(quoted(pattern), regex.errorString())};
}

void validateValue(const QJsonValue &schema,
                   const QJsonValue &instance,
                   const QString &path,
                   Violations &out);

void checkType(const QJsonObject &schema,
               const QJsonValue &instance,
               const QString &path,
               Violations &out)
{
    const QJsonValue type = schema.value(u"type");
    const QJsonArray types = type.isArray() ? type.toArray() : QJsonArray{type};
    if (type.isUndefined() || std::any_of(types.begin(), types.end(), [&](const QJsonValue &t) {
            return hasType(instance, t.toString());
        }))
        return;
    QStringList expected;
    for (const QJsonValue &t : types)
        expected.append(withArticle(t.toString()));
    const bool fraction = instance.isDouble() && types.contains(QJsonValue(u"integer"_s));
    out.append({path,
                u"must be %1, not %2"_s.arg(joinWords(expected, u"or"_s),
                                            fraction ? toJsonText(instance)
                                                     : describeType(instance))});
}

void checkEnumAndConst(const QJsonObject &schema,
                       const QJsonValue &instance,
                       const QString &path,
                       Violations &out)
{
    if (const QJsonValue options = schema.value(u"enum"); options.isArray()) {
        const QJsonArray values = options.toArray();
        if (std::none_of(values.begin(), values.end(), [&](const QJsonValue &v) {
                return jsonEqual(v, instance);
            })) {
            QStringList texts;
            for (const QJsonValue &v : values)
                texts.append(toJsonText(v));
            out.append({path, u"must be one of: "_s + texts.join(u", "_s)});
        }
    }
    if (schema.contains(u"const") && !jsonEqual(schema.value(u"const"), instance))
        out.append({path, u"must be exactly "_s + toJsonText(schema.value(u"const"))});
}

bool isMultipleOf(double value, double divisor)
{
    // Binary fractions leave noise (0.0075 / 0.0001 is 74.99999999999999), so allow a few ulps;
    // an overflowing quotient is no multiple.
    const double quotient = value / divisor;
    return std::isfinite(quotient)
           && std::abs(quotient - std::round(quotient))
                      <= std::max(1e-9, std::abs(quotient) * 1e-15);
}

void checkNumber(const QJsonObject &schema,
                 const QJsonValue &instance,
                 const QString &path,
                 Violations &out)
{
    if (!instance.isDouble())
        return;
    const double x = instance.toDouble();
    const auto check = [&](QStringView keyword, auto fails, const QString &message) {
        const QJsonValue bound = schema.value(keyword);
        if (bound.isDouble() && fails(x, bound.toDouble()))
            out.append({path, message.arg(toJsonText(bound))});
    };
    check(u"minimum", std::less<>(), u"must be at least %1"_s);
    check(u"maximum", std::greater<>(), u"must be at most %1"_s);
    check(u"exclusiveMinimum", std::less_equal<>(), u"must be greater than %1"_s);
    check(u"exclusiveMaximum", std::greater_equal<>(), u"must be less than %1"_s);
    const QJsonValue divisor = schema.value(u"multipleOf");
    if (divisor.toDouble() > 0 && !isMultipleOf(x, divisor.toDouble()))
        out.append({path, u"must be a multiple of "_s + toJsonText(divisor)});
}

void checkString(const QJsonObject &schema,
                 const QJsonValue &instance,
                 const QString &path,
                 Violations &out)
{
    if (!instance.isString())
        return;
    const QString text = instance.toString();
    // The specification counts code points; an emoji is two UTF-16 units but one character.
    const qsizetype length = text.toUcs4().size();
    const QJsonValue minLength = schema.value(u"minLength");
    if (minLength.isDouble() && length < minLength.toDouble())
        out.append({path,
                    u"must be at least %1 long"_s.arg(
                            countOf(minLength, u"character"_s, u"characters"_s))});
    const QJsonValue maxLength = schema.value(u"maxLength");
    if (maxLength.isDouble() && length > maxLength.toDouble())
        out.append({path,
                    u"must be at most %1 long"_s.arg(
                            countOf(maxLength, u"character"_s, u"characters"_s))});
    if (const QJsonValue pattern = schema.value(u"pattern"); pattern.isString()) {
        const QRegularExpression regex = compiledPattern(pattern.toString());
        if (!regex.isValid())
            out.append(invalidPattern(path, pattern.toString(), regex));
        else if (!regex.match(text).hasMatch())
            out.append({path, u"must match the pattern "_s + quoted(pattern.toString())});
    }
}

void checkArray(const QJsonObject &schema,
                const QJsonValue &instance,
                const QString &path,
                Violations &out)
{
    if (!instance.isArray())
        return;
    const QJsonArray array = instance.toArray();
    if (const QJsonValue min = schema.value(u"minItems");
        min.isDouble() && array.size() < min.toDouble())
        out.append({path, u"must contain at least "_s + countOf(min, u"item"_s, u"items"_s)});
    if (const QJsonValue max = schema.value(u"maxItems");
        max.isDouble() && array.size() > max.toDouble())
        out.append({path, u"must contain at most "_s + countOf(max, u"item"_s, u"items"_s)});

    const QJsonValue items = schema.value(u"items");
    if (items.isArray()) {
        const QJsonArray tuple = items.toArray();
        for (qsizetype i = 0; i < std::min(tuple.size(), array.size()); ++i)
            validateValue(tuple.at(i), array.at(i), childPath(path, i), out);
        const QJsonValue additional = schema.value(u"additionalItems");
        if (array.size() > tuple.size() && additional == QJsonValue(false)) {
            out.append({path,
                        u"must contain at most "_s
                                + countOf(QJsonValue(tuple.size()), u"item"_s, u"items"_s)});
        } else if (!additional.isUndefined()) {
            for (qsizetype i = tuple.size(); i < array.size(); ++i)
                validateValue(additional, array.at(i), childPath(path, i), out);
        }
    } else if (!items.isUndefined()) {
        for (qsizetype i = 0; i < array.size(); ++i)
            validateValue(items, array.at(i), childPath(path, i), out);
    }

    if (schema.value(u"uniqueItems").toBool()) {
        for (qsizetype i = 0; i < array.size(); ++i) {
            for (qsizetype j = i + 1; j < array.size(); ++j) {
                if (jsonEqual(array.at(i), array.at(j))) {
                    out.append({path,
                                u"must not contain duplicate items (items %1 and %2 are equal)"_s
                                        .arg(i)
                                        .arg(j)});
                    return;
                }
            }
        }
    }
}

void checkObject(const QJsonObject &schema,
                 const QJsonValue &instance,
                 const QString &path,
                 Violations &out)
{
    if (!instance.isObject())
        return;
    const QJsonObject object = instance.toObject();
    for (const QJsonValue &name : schema.value(u"required").toArray()) {
        if (!object.contains(name.toString()))
            out.append({path, u"missing required property "_s + quoted(name.toString())});
    }
    if (const QJsonValue min = schema.value(u"minProperties");
        min.isDouble() && object.size() < min.toDouble())
        out.append({path, u"must have at least "_s + countOf(min, u"property"_s, u"properties"_s)});
    if (const QJsonValue max = schema.value(u"maxProperties");
        max.isDouble() && object.size() > max.toDouble())
        out.append({path, u"must have at most "_s + countOf(max, u"property"_s, u"properties"_s)});

    const QJsonObject properties = schema.value(u"properties").toObject();
    const QJsonObject patternProperties = schema.value(u"patternProperties").toObject();
    const QJsonValue additional = schema.value(u"additionalProperties");
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString valuePath = childPath(path, it.key());
        bool declared = properties.contains(it.key());
        if (declared)
            validateValue(properties.value(it.key()), it.value(), valuePath, out);
        for (auto p = patternProperties.constBegin(); p != patternProperties.constEnd(); ++p) {
            const QRegularExpression regex = compiledPattern(p.key());
            if (!regex.isValid()) {
                out.append(invalidPattern(path, p.key(), regex));
            } else if (regex.match(it.key()).hasMatch()) {
                declared = true;
                validateValue(p.value(), it.value(), valuePath, out);
            }
        }
        if (declared || additional.isUndefined())
            continue;
        if (additional == QJsonValue(false))
            out.append({path, u"property %1 is not allowed"_s.arg(quoted(it.key()))});
        else
            validateValue(additional, it.value(), valuePath, out);
    }
}

// How a failed alternative of anyOf/oneOf failed, relative to the value being checked.
QString describeAlternative(const Violations &violations, const QString &path)
{
    QStringList parts;
    for (const SchemaViolation &v : violations)
        parts.append(v.path == path ? v.message : v.path + u": "_s + v.message);
    return parts.join(u", "_s);
}

void checkCombinators(const QJsonObject &schema,
                      const QJsonValue &instance,
                      const QString &path,
                      Violations &out)
{
    for (const QJsonValue &subschema : schema.value(u"allOf").toArray())
        validateValue(subschema, instance, path, out);

    for (const QStringView keyword : {u"anyOf", u"oneOf"}) {
        const QJsonValue value = schema.value(keyword);
        if (!value.isArray())
            continue;
        const QJsonArray alternatives = value.toArray();
        QStringList failures;
        QStringList matches;
        for (qsizetype i = 0; i < alternatives.size(); ++i) {
            Violations violations;
            validateValue(alternatives.at(i), instance, path, violations);
            if (violations.isEmpty())
                matches.append(QString::number(i + 1));
            else
                failures.append(u"alternative %1: %2"_s.arg(i + 1).arg(
                        describeAlternative(violations, path)));
            if (keyword == u"anyOf" && !matches.isEmpty())
                break;
        }
        const QString exactly = keyword == u"oneOf" ? u"exactly"_s : u"at least"_s;
        if (matches.isEmpty())
            out.append(
                    {path,
                     u"must match %1 one of the alternatives (%2)"_s.arg(exactly,
                                                                         failures.join(u"; "_s))});
        else if (keyword == u"oneOf" && matches.size() > 1)
            out.append({path,
                        u"must match exactly one of the alternatives, but matches alternatives %1"_s
                                .arg(joinWords(matches, u"and"_s))});
    }

    if (const QJsonValue negated = schema.value(u"not"); !negated.isUndefined()) {
        Violations violations;
        validateValue(negated, instance, path, violations);
        if (violations.isEmpty())
            out.append({path, u"must not match the schema "_s + toJsonText(negated)});
    }
}

void validateValue(const QJsonValue &schema,
                   const QJsonValue &instance,
                   const QString &path,
                   Violations &out)
{
    if (schema.isBool()) {
        if (!schema.toBool())
            out.append({path, u"is not allowed here"_s});
        return;
    }
    const QJsonObject object = schema.toObject();
    checkType(object, instance, path, out);
    checkEnumAndConst(object, instance, path, out);
    checkNumber(object, instance, path, out);
    checkString(object, instance, path, out);
    checkArray(object, instance, path, out);
    checkObject(object, instance, path, out);
    checkCombinators(object, instance, path, out);
}

} // namespace

JsonSchema::JsonSchema(QJsonObject schema)
    : m_schema(std::move(schema))
{}

QList<SchemaViolation> JsonSchema::validate(const QJsonValue &instance) const
{
    Violations violations;
    validateValue(m_schema, instance, QString(), violations);
    return violations;
}

QStringList JsonSchema::supportedKeywords()
{
    return {u"type"_s,
            u"properties"_s,
            u"required"_s,
            u"additionalProperties"_s,
            u"patternProperties"_s,
            u"minLength"_s,
            u"maxLength"_s,
            u"pattern"_s,
            u"enum"_s,
            u"const"_s,
            u"minimum"_s,
            u"maximum"_s,
            u"exclusiveMinimum"_s,
            u"exclusiveMaximum"_s,
            u"multipleOf"_s,
            u"items"_s,
            u"additionalItems"_s,
            u"minItems"_s,
            u"maxItems"_s,
            u"uniqueItems"_s,
            u"minProperties"_s,
            u"maxProperties"_s,
            u"allOf"_s,
            u"anyOf"_s,
            u"oneOf"_s,
            u"not"_s};
}

QString describeViolations(const QList<SchemaViolation> &violations)
{
    QStringList parts;
    for (const SchemaViolation &v : violations)
        parts.append((v.path.isEmpty() ? u"arguments"_s : v.path) + u": "_s + v.message);
    return parts.join(u"; "_s);
}

} // namespace AgentLoop
