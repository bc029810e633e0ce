// The controller's recovery from answers cut off at the output token limit and from models that
// fail (course chapter 11): a text answer is continued and its parts joined into one assistant
// message; tool calls cut off are answered without running; a model that is not found, stays
// rate-limited or keeps failing after the retries hands the request to the next fallback model.

#include "agent/agentcontroller.h"

#include "protocol/requestbody.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// The app's words to the model, never the user's: sent after the partial answer, never kept in
// the history. English on purpose: it is protocol data.
const QString continuationInstruction
        = u"Your previous answer was cut off at the output token limit. Continue exactly where "
          u"you stopped, from the next character: do not repeat anything already written, do not "
          u"start over and do not add an introduction."_s;

// What the model reads for a call it could not finish writing.
ToolResult cutOffResult()
{
    return ToolResult::failure(u"output_cut_off"_s,
                               u"your answer reached the output token limit before this call was "
                               u"complete, so it was not run (its arguments may be cut off). "
                               u"Repeat the call with less output per call: split a long file "
                               u"or edit into several smaller calls."_s);
}

bool isModelNotFound(const Error &error)
{
    if (error.httpStatus != 404 && error.httpStatus != 400)
        return false;
    if (error.providerCode == u"model_not_found")
        return true;
    const QString text = error.providerMessage.isEmpty() ? error.message : error.providerMessage;
    static const QStringList wordings{u"model not found"_s,
                                      u"model_not_found"_s,
                                      u"model not exist"_s,
                                      u"no such model"_s,
                                      u"unknown model"_s,
                                      u"模型不存在"_s};
    if (std::any_of(wordings.cbegin(), wordings.cend(), [&](const QString &wording) {
            return text.contains(wording, Qt::CaseInsensitive);
        }))
        return true;
    // OpenAI: "The model `gpt-x` does not exist or you do not have access to it."
    return text.contains(u"model"_s, Qt::CaseInsensitive)
           && text.contains(u"does not exist"_s, Qt::CaseInsensitive);
}

// Why the model cannot answer this request where another model might; empty when it could
// answer a next time, or when another model would fail the same way (a key, a request).
QString fallbackReason(const Error &error)
{
    if (error.kind != Error::Http)
        return {};
    if (isModelNotFound(error))
        return QCoreApplication::translate("AgentLoop::AgentController",
                                           "The provider does not know the model %1 (HTTP %2).");
    if (error.httpStatus == 429)
        return QCoreApplication::translate("AgentLoop::AgentController",
                                           "The model %1 is still rate-limited after the retries "
                                           "(HTTP %2).");
    if (error.httpStatus >= 500)
        return QCoreApplication::translate("AgentLoop::AgentController",
                                           "The model %1 still fails after the retries (HTTP %2).");
    return {};
}

QString modelLabel(const ProviderSettings &settings)
{
    if (settings.profileName.isEmpty())
        return settings.model;
    return QCoreApplication::translate("AgentLoop::AgentController", "%1 (profile %2)")
            .arg(settings.model, settings.profileName);
}

} // namespace

void AgentController::resetRecoveryRun()
{
    m_partialAnswer.reset();
    m_continuations = 0;
    m_partialUsage.reset();
    // Every run starts with the model the user chose.
    if (m_primaryProvider)
        m_client->setSettings(*std::exchange(m_primaryProvider, std::nullopt));
    m_fallbacksUsed = 0;
}

// A continuation's answer joined to the parts before it: one assistant message, and the usage of
// the first request with the completions of all parts. Any other answer as it came.
Completion AgentController::joinedWithPartialAnswer(const Completion &completion)
{
    if (!m_partialAnswer) {
        m_partialUsage = completion.usage;
        return completion;
    }
    const Message partial = *std::exchange(m_partialAnswer, std::nullopt);
    const Message &part = completion.message;
    Completion joined = completion;
    const QString reasoning = partial.reasoningContent() + part.reasoningContent();
    joined.message = Message::assistant(partial.content() + part.content(),
                                        part.toolCalls(),
                                        reasoning,
                                        partial.reasoningContent().isEmpty()
                                                ? part.reasoningField()
                                                : partial.reasoningField());
    if (m_partialUsage && completion.usage) {
        Usage usage = *m_partialUsage;
        usage.completionTokens += completion.usage->completionTokens;
        usage.reasoningTokens += completion.usage->reasoningTokens;
        usage.totalTokens = usage.promptTokens + usage.completionTokens;
        joined.usage = usage;
    } else {
        joined.usage = m_partialUsage;
    }
    m_partialUsage = joined.usage;
    return joined;
}

// A text answer cut off at the token limit: unless the limit of continuations is reached, the
// model is asked for the rest, with the answer so far and the app's instruction after the
// history (neither joins it). True when the continuation is on its way.
bool AgentController::continuesCutOffAnswer(const Message &message)
{
    const int limit = m_options.context.maxContinuations;
    if (!message.hasText() || m_continuations >= limit)
        return false;
    ++m_continuations;
    m_partialAnswer = message;
    emit continuationRequested(m_continuations + 1, limit + 1);
    emit notice(tr("The answer reached the output token limit; the model is asked to continue "
                   "where it stopped (part %1 of at most %2).")
                        .arg(m_continuations + 1)
                        .arg(limit + 1));
    if (m_state != State::WaitingForModel || !m_partialAnswer)
        return true; // stopped from a receiver
    m_client->postChatCompletion(m_turn, continuationBody(), ExchangePurpose::Continuation);
    return true;
}

QByteArray AgentController::continuationBody() const
{
    History request = requestHistory();
    // The text alone: reasoning sent back belongs to finished turns, and some providers refuse it.
    request.append(Message::assistant(m_partialAnswer->content()));
    request.append(Message::user(continuationInstruction));
    return chatRequestBody(m_client->settings(), request, m_snapshot.definitions());
}

// Tool calls cut off at the token limit never run, whatever they ask: each is answered with
// output_cut_off, and the model is asked again (a turn like any other).
void AgentController::answerCutOffCalls(const Message &message)
{
    append(message);
    const QList<ToolCall> calls = message.toolCalls();
    emit notice(tr("The answer reached the output token limit in the middle of %n tool call(s); "
                   "nothing was run, and the model is asked to repeat them with less output per "
                   "call.",
                   nullptr,
                   int(calls.size())));
    for (const ToolCall &call : calls)
        finishCall(call, cutOffResult(), {});
    if (m_state == State::Idle)
        return; // stopped from a receiver
    sendNextRequest();
}

Error AgentController::cutOffError() const
{
    if (m_continuations == 0)
        return Error{Error::Agent,
                     tr("Model output reached the token limit"),
                     tr("The answer was cut off (finish_reason=length). Ask for a shorter output, "
                        "or raise the max tokens setting.")};
    return Error{Error::Agent,
                 tr("Model output reached the token limit, even after %n continuation(s)",
                    nullptr,
                    m_continuations),
                 tr("The answer was cut off (finish_reason=length) every time. Ask for a shorter "
                    "output, raise the max tokens setting, or allow more continuations.")};
}

// The model failed in a way another model might not: the same request goes to the next
// fallback, and the run stays with it. True when it was sent.
bool AgentController::fallsBackAfter(const Error &error)
{
    if (m_state != State::WaitingForModel || m_fallbacksUsed >= m_options.fallbacks.size())
        return false;
    const QString reason = fallbackReason(error);
    if (reason.isEmpty())
        return false;
    const ProviderSettings failed = m_client->settings();
    const ProviderSettings next = m_options.fallbacks.at(m_fallbacksUsed++);
    if (!m_primaryProvider)
        m_primaryProvider = failed;
    m_client->setSettings(next);
    const QString text = reason.arg(modelLabel(failed), QString::number(error.httpStatus)) + u' '
                         + tr("The request goes to the fallback model %1.").arg(modelLabel(next));
    emit notice(text);
    emit fallbackActivated(text, next);
    if (m_state != State::WaitingForModel)
        return true; // stopped from a receiver
    if (m_partialAnswer)
        m_client->postChatCompletion(m_turn, continuationBody(), ExchangePurpose::Continuation);
    else
        m_client->postChatCompletion(m_turn, requestBody(m_snapshot));
    return true;
}

// After a fallback, the error names every model the run tried.
Error AgentController::withModelsTried(const Error &error) const
{
    if (m_fallbacksUsed == 0 || !m_primaryProvider)
        return error;
    QStringList models{modelLabel(*m_primaryProvider)};
    for (int i = 0; i < m_fallbacksUsed; ++i)
        models << modelLabel(m_options.fallbacks.at(i));
    Error tried = error;
    tried.message = tr("%1 (models tried: %2)").arg(error.message, models.join(u", "_s));
    if (m_fallbacksUsed >= m_options.fallbacks.size())
        tried.hint = tr("Every fallback model failed too. %1").arg(error.hint).trimmed();
    return tried;
}

} // namespace AgentLoop
