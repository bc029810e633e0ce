#include "protocol/exchange.h"

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

QString shellQuote(const QString &word)
{
    QString quoted = word;
    quoted.replace(u"'"_s, u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

} // namespace

QString curlCommand(const Exchange &exchange)
{
    // The body goes through a quoted here-document: no quoting or expansion touches it, and it
    // is never limited by the command line's length. -d @- drops the here-document's final
    // newline again (the body is compact JSON, which has no raw newlines), so curl sends the
    // exact bytes.
    QString delimiter = u"AGENTLOOP_BODY"_s;
    const QString body = QString::fromUtf8(exchange.requestBody);
    while (body.contains(delimiter))
        delimiter += u'_';
    QString command = u"curl -sS -X "_s + QString::fromLatin1(exchange.method) + u' '
                      + shellQuote(exchange.url.toString(QUrl::FullyEncoded)) + u" \\\n"_s;
    command += u"  -H 'Content-Type: application/json' \\\n"_s;
    command += u"  -H \"Authorization: Bearer $OPENAI_API_KEY\""_s;
    if (exchange.requestBody.isEmpty())
        return command + u'\n';
    command += u" \\\n  -d @- <<'"_s + delimiter + u"'\n"_s;
    command += body;
    if (!body.endsWith(u'\n'))
        command += u'\n';
    command += delimiter + u'\n';
    return command;
}

} // namespace AgentLoop
