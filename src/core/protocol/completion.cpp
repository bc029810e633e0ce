#include "protocol/completion.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct CompletionText
{
    Q_DECLARE_TR_FUNCTIONS(Completion)
};

bool looksLikeHtml(const QByteArray &body)
{
    const QByteArray start = body.left(512).trimmed().toLower();
    return start.startsWith("<!doctype html") || start.startsWith("<html")
           || start.contains("<body");
}

QString excerpt(const QByteArray &body)
{
    constexpr qsizetype limit = 200;
    QString text = QString::fromUtf8(body.left(limit)).simplified();
    if (body.size() > limit)
        text += u"…"_s;
    return text;
}

Error notJson(const QByteArray &body, const QString &parseError)
{
    if (looksLikeHtml(body)) {
        return Error{Error::Protocol,
                     CompletionText::tr("The provider answered with an HTML page instead of JSON."),
                     CompletionText::tr("A proxy, a login page or a wrong base URL answered. Check "
                                        "that the base URL points at the API (it usually ends in "
                                        "/v1).")};
    }
    return Error{Error::Protocol,
                 CompletionText::tr("The provider's response is not JSON (%1): %2")
                         .arg(parseError, excerpt(body)),
                 CompletionText::tr("The endpoint is probably not an OpenAI-compatible Chat "
                                    "Completions API. Check the base URL.")};
}

QString hintForStatus(int status)
{
    if (status == 401 || status == 403)
        return CompletionText::tr("The API key is invalid or has no access: check OPENAI_API_KEY "
                                  "and that this key can use OPENAI_MODEL.");
    if (status == 404)
        return CompletionText::tr("The base URL path is wrong: most often /v1 is missing (for "
                                  "example https://api.openai.com/v1). A model name this key "
                                  "cannot see also gives 404.");
    if (status == 400 || status == 422)
        return CompletionText::tr(
                "The provider rejected the request: check the model name and that "
                "the model supports tool calling.");
    if (status == 408 || status == 504)
        return CompletionText::tr("The provider took too long: try again, or raise the request "
                                  "timeout.");
    if (status == 429)
        return CompletionText::tr("Rate limit or quota reached: wait a moment and try again, or "
                                  "check the plan of this key.");
    if (status >= 500)
        return CompletionText::tr("The provider had a problem of its own: try again in a moment.");
    return {};
}

} // namespace

Error tooManyToolCallsError()
{
    return Error{Error::Agent,
                 CompletionText::tr("The model asked for more than %1 tool calls in one message, "
                                    "so none of them was run.")
                         .arg(maxToolCallsPerMessage),
                 CompletionText::tr("Ask for the work in smaller steps, or try another model.")};
}

QString finishReasonFromProvider(const QString &providerValue)
{
    if (providerValue == u"eos" || providerValue == u"end_turn" || providerValue == u"stop_sequence")
        return u"stop"_s;
    if (providerValue == u"function_call")
        return u"tool_calls"_s;
    if (providerValue == u"max_tokens")
        return u"length"_s;
    if (providerValue == u"sensitive")
        return u"content_filter"_s;
    return providerValue;
}

void assignMissingToolCallIds(QJsonArray &toolCalls, const QString &responseId)
{
    QSet<QString> taken;
    for (const QJsonValue &call : std::as_const(toolCalls))
        taken.insert(call.toObject().value(u"id"_s).toString());
    for (qsizetype i = 0; i < toolCalls.size(); ++i) {
        QJsonObject call = toolCalls.at(i).toObject();
        if (!call.value(u"id"_s).toString().isEmpty() || !toolCalls.at(i).isObject())
            continue;
        const QJsonObject function = call.value(u"function"_s).toObject();
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(responseId.toUtf8());
        hash.addData(QByteArray::number(i));
        hash.addData(QJsonDocument(function).toJson(QJsonDocument::Compact));
        const QByteArray digest = hash.result().toHex();
        QString id = u"call_"_s + QString::fromLatin1(digest.left(24));
        for (int attempt = 0; taken.contains(id); ++attempt)
            id = u"call_%1_%2"_s.arg(QString::fromLatin1(digest.left(24))).arg(attempt);
        taken.insert(id);
        call.insert(u"id"_s, id);
        toolCalls.replace(i, call);
    }
}

std::optional<ContentParts> contentParts(const QJsonValue &value)
{
    if (!value.isArray())
        return std::nullopt;
    const auto textOf = [](const QJsonValue &parts) {
        if (parts.isString())
            return parts.toString();
        QString text;
        for (const QJsonValue &part : parts.toArray()) {
            if (part.toObject().value(u"type"_s).toString() == u"text")
                text += part.toObject().value(u"text"_s).toString();
        }
        return text;
    };
    ContentParts parts;
    for (const QJsonValue &part : value.toArray()) {
        const QJsonObject object = part.toObject();
        const QString type = object.value(u"type"_s).toString();
        if (type == u"text")
            parts.text += object.value(u"text"_s).toString();
        else if (type == u"thinking")
            parts.thinking += textOf(object.value(u"thinking"_s));
        else
            return std::nullopt;
    }
    return parts;
}

std::optional<Usage> usageFromJson(const QJsonValue &usage)
{
    if (!usage.isObject())
        return std::nullopt;
    const QJsonObject object = usage.toObject();
    const QJsonObject details = object.value(u"completion_tokens_details"_s).toObject();
    return Usage{object.value(u"prompt_tokens"_s).toInteger(),
                 object.value(u"completion_tokens"_s).toInteger(),
                 object.value(u"total_tokens"_s).toInteger(),
                 details.value(u"reasoning_tokens"_s).toInteger()};
}

QString providerErrorMessage(const QByteArray &body)
{
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    const QJsonValue error = object.value(u"error"_s);
    if (error.isObject())
        return error.toObject().value(u"message"_s).toString();
    if (error.isString())
        return error.toString();
    return object.value(u"message"_s).toString();
}

QString providerErrorCode(const QByteArray &body)
{
    const QJsonValue code
            = QJsonDocument::fromJson(body).object().value(u"error"_s).toObject().value(u"code"_s);
    return code.isDouble() ? QString::number(code.toInteger()) : code.toString();
}

Error httpError(int status, const QByteArray &body)
{
    Error error;
    error.kind = Error::Http;
    error.httpStatus = status;
    error.providerMessage = providerErrorMessage(body);
    error.providerCode = providerErrorCode(body);
    QString detail = error.providerMessage;
    if (detail.isEmpty())
        detail = looksLikeHtml(body) ? CompletionText::tr("an HTML page") : excerpt(body);
    error.message = detail.isEmpty() ? CompletionText::tr("HTTP %1").arg(status)
                                     : CompletionText::tr("HTTP %1: %2").arg(status).arg(detail);
    error.hint = hintForStatus(status);
    return error;
}

Result<Completion> parseCompletion(const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return notJson(body, parseError.errorString());
    if (!document.isObject())
        return notJson(body, CompletionText::tr("not an object"));
    const QJsonObject root = document.object();

    // Some gateways answer 200 with an error object in the body.
    if (root.contains(u"error"_s) && !root.contains(u"choices"_s)) {
        Error error = httpError(200, body);
        error.kind = Error::Protocol;
        error.message = CompletionText::tr("The provider reported an error: %1")
                                .arg(error.providerMessage.isEmpty() ? excerpt(body)
                                                                     : error.providerMessage);
        error.hint = CompletionText::tr("The request reached the provider but it could not answer "
                                        "it; read its message above.");
        return error;
    }

    const QJsonArray choices = root.value(u"choices"_s).toArray();
    if (choices.isEmpty()) {
        return Error{Error::Protocol,
                     CompletionText::tr("The provider's response has no choices: %1")
                             .arg(excerpt(body)),
                     CompletionText::tr("The endpoint is probably not fully compatible with Chat "
                                        "Completions: try another provider or model.")};
    }
    // Use the choice with index 0 (providers are not required to sort them).
    QJsonObject choice = choices.first().toObject();
    for (const QJsonValue &candidate : choices) {
        if (candidate.toObject().value(u"index"_s).toInt(-1) == 0) {
            choice = candidate.toObject();
            break;
        }
    }

    QJsonObject messageObject = choice.value(u"message"_s).toObject();
    if (messageObject.isEmpty()) {
        return Error{Error::Protocol,
                     CompletionText::tr("The provider's first choice has no message: %1")
                             .arg(excerpt(body)),
                     {}};
    }
    messageObject.insert(u"role"_s, u"assistant"_s);
    // Counted before the calls are read: a message over the bound is refused whole.
    QJsonArray toolCalls = messageObject.value(u"tool_calls"_s).toArray();
    if (toolCalls.size() > maxToolCallsPerMessage)
        return tooManyToolCallsError();
    if (!toolCalls.isEmpty()) {
        assignMissingToolCallIds(toolCalls, root.value(u"id"_s).toString());
        messageObject.insert(u"tool_calls"_s, toolCalls);
    }
    if (const std::optional<ContentParts> parts = contentParts(messageObject.value(u"content"_s))) {
        messageObject.insert(u"content"_s, parts->text);
        if (!parts->thinking.isEmpty()
            && messageObject.value(u"reasoning_content"_s).toString().isEmpty())
            messageObject.insert(u"reasoning"_s,
                                 messageObject.value(u"reasoning"_s).toString() + parts->thinking);
    }
    // A refusal is the model's answer in a field of its own; show it as the text.
    const QJsonValue refusal = messageObject.value(u"refusal"_s);
    if (refusal.isString() && !refusal.toString().isEmpty()
        && messageObject.value(u"content"_s).toString().isEmpty())
        messageObject.insert(u"content"_s, refusal);

    Result<Message> message = Message::fromJson(messageObject);
    if (!message)
        return message.error();

    Completion completion;
    completion.message = *message;
    completion.providerFinishReason = choice.value(u"finish_reason"_s).toString();
    completion.finishReason = finishReasonFromProvider(completion.providerFinishReason);
    completion.id = root.value(u"id"_s).toString();
    completion.model = root.value(u"model"_s).toString();
    completion.usage = usageFromJson(root.value(u"usage"_s));
    return completion;
}

} // namespace AgentLoop
