#include "inspector/jsonformat.h"

#include <QJsonDocument>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

bool isJsonWhitespace(QChar c)
{
    return c == u' ' || c == u'\t' || c == u'\n' || c == u'\r';
}

// Walks the tokens of valid JSON text; calls emit for every character outside whitespace, with
// the string state so that structure characters inside strings are left alone.
template<typename Emit>
void walkTokens(const QString &text, Emit emitChar)
{
    bool inString = false;
    bool escaped = false;
    for (const QChar c : text) {
        if (inString) {
            emitChar(c, true);
            if (escaped)
                escaped = false;
            else if (c == u'\\')
                escaped = true;
            else if (c == u'"')
                inString = false;
            continue;
        }
        if (isJsonWhitespace(c))
            continue;
        if (c == u'"')
            inString = true;
        emitChar(c, c == u'"');
    }
}

} // namespace

bool isJsonDocument(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    return error.error == QJsonParseError::NoError && !document.isNull();
}

QString prettyJson(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    if (!isJsonDocument(bytes))
        return text;
    return prettyJson(text);
}

QString prettyJson(const QString &text)
{
    if (!isJsonDocument(text.toUtf8()))
        return text;
    QString out;
    out.reserve(text.size() + text.size() / 2);
    int depth = 0;
    QChar previous;
    const auto newline = [&] {
        out += u'\n';
        out += QString(depth * 2, u' ');
    };
    walkTokens(text, [&](QChar c, bool inString) {
        if (inString) {
            out += c;
            previous = c;
            return;
        }
        switch (c.unicode()) {
        case u'{':
        case u'[':
            out += c;
            ++depth;
            newline();
            break;
        case u'}':
        case u']':
            --depth;
            // An empty object or array stays on one line: "{}" and "[]".
            if (previous == u'{' || previous == u'[') {
                while (out.endsWith(u' ') || out.endsWith(u'\n'))
                    out.chop(1);
            } else {
                newline();
            }
            out += c;
            break;
        case u',':
            out += c;
            newline();
            break;
        case u':':
            out += u": "_s;
            break;
        default:
            out += c;
            break;
        }
        previous = c;
    });
    return out;
}

QString compactJson(const QString &text)
{
    QString out;
    out.reserve(text.size());
    walkTokens(text, [&](QChar c, bool) { out += c; });
    return out;
}

} // namespace Gui
