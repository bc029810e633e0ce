#include "tools/tool.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>
#include <QSet>

#include <algorithm>
#include <optional>

using namespace Qt::StringLiterals;

namespace AgentLoop {

// The texts in this file go to the model, not to the user: they stay English and untranslated,
// with a stable code first so the model (and tests) can tell failures apart. ToolProgress::text()
// alone is for the user.

QString ToolProgress::text() const
{
    const auto number = [](double value) {
        return QLocale().toString(value, 'g', 12);
    };
    QString shown = total > 0 ? QCoreApplication::translate("AgentLoop::ToolProgress", "%1 of %2")
                                        .arg(number(progress), number(total))
                              : number(progress);
    if (!message.isEmpty())
        shown += u" · "_s + message.left(200);
    return shown;
}

namespace {

bool hasLoneSurrogate(QStringView text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate())
            ++i;
        else if (text[i].isSurrogate())
            return true;
    }
    return false;
}

// Reads the JSON string starting at the quote at text[i], decoding its escapes; i ends after the
// closing quote. The text has already been parsed once, so it is well formed.
QString readJsonString(QStringView text, qsizetype &i)
{
    QString value;
    for (++i; i < text.size() && text[i] != u'"'; ++i) {
        if (text[i] != u'\\') {
            value += text[i];
            continue;
        }
        if (++i >= text.size())
            break;
        switch (text[i].unicode()) {
        case u'b':
            value += u'\b';
            break;
        case u'f':
            value += u'\f';
            break;
        case u'n':
            value += u'\n';
            break;
        case u'r':
            value += u'\r';
            break;
        case u't':
            value += u'\t';
            break;
        case u'u':
            value += QChar(char16_t(text.sliced(i + 1, std::min<qsizetype>(4, text.size() - i - 1))
                                            .toUShort(nullptr, 16)));
            i += 4;
            break;
        default:
            value += text[i];
            break; // \" \\ \/
        }
    }
    ++i;
    return value;
}

// The first key that appears twice in one object, or nothing. A JSON parser keeps one of the two
// values silently; the user would approve one and the tool would run the other.
std::optional<QString> duplicateKey(QStringView text)
{
    struct Level
    {
        bool isObject = false;
        bool expectingKey = false;
        QSet<QString> keys;
    };
    QList<Level> levels;
    for (qsizetype i = 0; i < text.size();) {
        const QChar c = text[i];
        if (c == u'"') {
            const QString string = readJsonString(text, i);
            if (!levels.isEmpty() && levels.last().isObject && levels.last().expectingKey) {
                if (levels.last().keys.contains(string))
                    return string;
                levels.last().keys.insert(string);
                levels.last().expectingKey = false;
            }
            continue;
        }
        if (c == u'{' || c == u'[')
            levels.append(Level{c == u'{', c == u'{', {}});
        else if ((c == u'}' || c == u']') && !levels.isEmpty())
            levels.removeLast();
        else if (c == u',' && !levels.isEmpty() && levels.last().isObject)
            levels.last().expectingKey = true;
        ++i;
    }
    return std::nullopt;
}

// Why a decoded text cannot be shown and run faithfully: a NUL ends a command or a path early for
// the operating system (what runs would be shorter than what was approved), and a lone surrogate
// is not a character at all.
QString unfaithfulText(const QString &text, const QString &what)
{
    if (text.contains(QChar(u'\0')))
        return u"%1 contains a NUL character (\\u0000), which would cut it short where it is used. "
               u"Remove it."_s.arg(what);
    if (hasLoneSurrogate(text))
        return u"%1 contains a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF), which is not "
               u"a character. Send valid Unicode."_s.arg(what);
    return {};
}

QString unfaithfulValue(const QJsonValue &value, const QString &path)
{
    if (value.isString())
        return unfaithfulText(value.toString(), u"the value of \"%1\""_s.arg(path));
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (QString problem = unfaithfulValue(array.at(i), u"%1[%2]"_s.arg(path).arg(i));
                !problem.isEmpty())
                return problem;
        }
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString child = path.isEmpty() ? it.key() : path + u'.' + it.key();
            if (QString problem = unfaithfulText(it.key(), u"a key"_s); !problem.isEmpty())
                return problem;
            if (QString problem = unfaithfulValue(it.value(), child); !problem.isEmpty())
                return problem;
        }
    }
    return {};
}

} // namespace

ToolResult ToolResult::failure(const QString &code, const QString &detail)
{
    return {code + u": "_s + detail, false, code, -1, 0, {}, {}, {}, {}};
}

Tool::Tool(QString name, QString description, JsonSchema parameters, SideEffect sideEffect)
    : m_name(std::move(name))
    , m_description(std::move(description))
    , m_parameters(std::move(parameters))
    , m_sideEffect(sideEffect)
{}

QJsonObject Tool::definition() const
{
    return QJsonObject{
            {u"type"_s, u"function"_s},
            {u"function"_s,
             QJsonObject{
                     {u"name"_s, m_name},
                     {u"description"_s, m_description},
                     {u"parameters"_s, m_parameters.schema()},
             }},
    };
}

CallPreview Tool::preview(const QJsonObject &arguments) const
{
    QString text = QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Indented));
    while (text.endsWith(u'\n'))
        text.chop(1);
    CallPreview preview;
    preview.kind = CallPreview::Arguments;
    preview.text = text;
    return preview;
}

QFuture<Review> Tool::review(const PreparedCall &call) const
{
    return QtFuture::makeReadyFuture(Review(preview(call.arguments)));
}

RuleSubject Tool::ruleSubject(const QJsonObject &) const
{
    return {};
}

QString Tool::checkArguments(const QJsonObject &) const
{
    return {};
}

Preparation Tool::prepare(const ToolCall &call) const
{
    // An empty arguments string is how some providers say "no arguments".
    const QByteArray text = call.arguments.trimmed().isEmpty() ? QByteArray("{}")
                                                               : call.arguments.toUtf8();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   u"the arguments are not valid JSON (%1 at offset %2). "
                                   u"Send the arguments as one JSON object."_s
                                           .arg(parseError.errorString())
                                           .arg(parseError.offset));
    }
    if (!document.isObject()) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   u"the arguments must be a JSON object."_s);
    }
    const QJsonObject arguments = document.object();
    // What the user approves is the decoded arguments: refuse those that cannot be shown as what
    // will run (the model may be prompt-injected and try exactly that).
    if (const std::optional<QString> key = duplicateKey(call.arguments)) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   u"the key \"%1\" appears more than once in one object. Send "
                                   u"each key once."_s.arg(*key));
    }
    if (const QString problem = hasLoneSurrogate(call.arguments)
                                        ? unfaithfulText(call.arguments, u"the arguments text"_s)
                                        : unfaithfulValue(arguments, {});
        !problem.isEmpty()) {
        return ToolResult::failure(u"invalid_arguments"_s, problem);
    }
    const QList<SchemaViolation> violations = validatesArguments()
                                                      ? m_parameters.validate(arguments)
                                                      : QList<SchemaViolation>();
    if (!violations.isEmpty()) {
        return ToolResult::failure(u"invalid_arguments"_s,
                                   describeViolations(violations) + u". The parameters schema is: "_s
                                           + QString::fromUtf8(
                                                   QJsonDocument(m_parameters.schema())
                                                           .toJson(QJsonDocument::Compact)));
    }
    if (const QString problem = checkArguments(arguments); !problem.isEmpty())
        return ToolResult::failure(u"invalid_arguments"_s, problem);
    return PreparedCall{call, arguments, {}};
}

ToolSnapshot::ToolSnapshot(QList<std::shared_ptr<const Tool>> tools)
    : m_tools(std::move(tools))
{}

std::shared_ptr<const Tool> ToolSnapshot::find(const QString &name) const
{
    for (const auto &tool : m_tools) {
        if (tool->name() == name)
            return tool;
    }
    return nullptr;
}

QJsonArray ToolSnapshot::definitions() const
{
    QJsonArray array;
    for (const auto &tool : m_tools)
        array.append(tool->definition());
    return array;
}

Preparation ToolSnapshot::prepare(const ToolCall &call) const
{
    if (const auto tool = find(call.name))
        return tool->prepare(call);
    QStringList names;
    for (const auto &tool : m_tools)
        names.append(tool->name());
    return ToolResult::failure(u"unknown_tool"_s,
                               u"there is no tool named \"%1\". Available tools: %2."_s
                                       .arg(call.name,
                                            names.isEmpty() ? u"none"_s : names.join(u", "_s)));
}

void ToolRegistry::add(std::shared_ptr<const Tool> tool)
{
    remove(tool->name());
    m_tools.append(std::move(tool));
}

void ToolRegistry::remove(const QString &name)
{
    m_tools.removeIf([&](const auto &tool) { return tool->name() == name; });
}

QStringList ToolRegistry::names() const
{
    QStringList names;
    for (const auto &tool : m_tools)
        names.append(tool->name());
    return names;
}

} // namespace AgentLoop
