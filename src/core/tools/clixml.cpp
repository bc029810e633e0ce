#include "tools/clixml.h"

#include "base/hexdigit.h"

#include <QXmlStreamReader>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr QStringView marker = u"#< CLIXML";
constexpr QStringView documentStart = u"<Objs";
constexpr QStringView documentEnd = u"</Objs>";
// A document this long without its end is no CLIXML PowerShell wrote: it passes as it is.
constexpr qsizetype maxDocumentChars = 4 * 1024 * 1024;

// Removes ANSI escape sequences (CSI: ESC [ parameters intermediates final), which PowerShell
// 7.2+ puts around error text even when it serialises it.
QString withoutAnsiSequences(const QString &text)
{
    if (!text.contains(u'\x1b'))
        return text;
    QString plain;
    plain.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i) != u'\x1b' || i + 1 >= text.size() || text.at(i + 1) != u'[') {
            plain.append(text.at(i));
            continue;
        }
        qsizetype j = i + 2;
        while (j < text.size() && text.at(j).unicode() >= 0x20 && text.at(j).unicode() <= 0x3F)
            ++j;
        if (j < text.size() && text.at(j).unicode() >= 0x40 && text.at(j).unicode() <= 0x7E)
            i = j; // the whole sequence
        else
            plain.append(text.at(i)); // not a complete sequence: keep the ESC, shown as such
    }
    return plain;
}

// The line prefix a console shows for records of this stream.
QString prefixFor(QStringView stream)
{
    if (stream.compare(u"warning"_s, Qt::CaseInsensitive) == 0)
        return u"WARNING: "_s;
    if (stream.compare(u"verbose"_s, Qt::CaseInsensitive) == 0)
        return u"VERBOSE: "_s;
    if (stream.compare(u"debug"_s, Qt::CaseInsensitive) == 0)
        return u"DEBUG: "_s;
    return {};
}

// How a marker is given back when what follows it is no document after all.
QString markerLine()
{
    return marker.toString() + u"\r\n"_s;
}

// Whether text could still become `whole` once more text arrives.
bool isPrefixOf(QStringView text, QStringView whole)
{
    return text.size() < whole.size() && whole.startsWith(text);
}

} // namespace

QString ClixmlFilter::unescape(QStringView text)
{
    QString plain;
    plain.reserve(text.size());
    qsizetype i = 0;
    while (i < text.size()) {
        if (text.at(i) == u'_' && i + 6 < text.size() && text.at(i + 1) == u'x'
            && text.at(i + 6) == u'_') {
            int unit = 0;
            bool hex = true;
            for (qsizetype k = i + 2; k < i + 6 && hex; ++k) {
                const int digit = hexDigitValue(text.at(k).unicode());
                hex = digit >= 0;
                unit = unit * 16 + digit;
            }
            if (hex) {
                plain.append(QChar(char16_t(unit)));
                i += 7;
                continue;
            }
        }
        plain.append(text.at(i));
        ++i;
    }
    return plain;
}

QString ClixmlFilter::decodeDocument(QStringView document, bool *ok)
{
    QXmlStreamReader reader(document.toString());
    QString text;
    // One <Objs> element: the reader is not asked past its end, which it would call premature.
    if (!reader.readNextStartElement() || reader.name() != u"Objs"_s)
        reader.raiseError(u"not CLIXML"_s);
    while (!reader.hasError() && reader.readNextStartElement()) {
        const QString stream = reader.attributes().value(u"S"_s).toString();
        if (reader.name() != u"S"_s) {
            // Progress records and serialised objects: a console shows no line for them.
            reader.skipCurrentElement();
            continue;
        }
        QString record = withoutAnsiSequences(unescape(reader.readElementText()));
        const QString prefix = prefixFor(stream);
        if (!prefix.isEmpty()) {
            if (!record.startsWith(prefix, Qt::CaseInsensitive))
                record.prepend(prefix);
            if (!record.endsWith(u'\n'))
                record.append(u"\r\n"_s);
        }
        text += record;
    }
    const bool parsed = !reader.hasError();
    if (ok)
        *ok = parsed;
    if (!parsed)
        return document.toString();
    // Records of one document run on; the next document starts on a line of its own.
    if (!text.isEmpty() && !text.endsWith(u'\n'))
        text.append(u"\r\n"_s);
    return text;
}

QString ClixmlFilter::feed(QStringView text)
{
    m_buffer.append(text);
    while (step()) {
    }
    return std::exchange(m_output, {});
}

bool ClixmlFilter::step()
{
    switch (m_state) {
    case State::Plain:
        return takePlainText();
    case State::Document:
        return takeDocument();
    case State::AfterDocument:
        return lookForNextDocument();
    }
    return false;
}

// Passes on plain text up to a marker; false when it must wait for more.
bool ClixmlFilter::takePlainText()
{
    const qsizetype at = m_buffer.indexOf(marker);
    if (at < 0) {
        // Hold back a tail that may be the start of a marker.
        qsizetype keep = 0;
        for (qsizetype n = std::min(m_buffer.size(), marker.size() - 1); n > 0; --n) {
            if (isPrefixOf(QStringView(m_buffer).last(n), marker)) {
                keep = n;
                break;
            }
        }
        m_output += QStringView(m_buffer).first(m_buffer.size() - keep);
        m_buffer.remove(0, m_buffer.size() - keep);
        return false;
    }
    m_output += QStringView(m_buffer).first(at);
    m_buffer.remove(0, at);
    // The marker's line break and the document's start must follow.
    qsizetype start = marker.size();
    if (start < m_buffer.size() && m_buffer.at(start) == u'\r')
        ++start;
    if (start < m_buffer.size() && m_buffer.at(start) == u'\n')
        ++start;
    const QStringView after = QStringView(m_buffer).sliced(start);
    if (isPrefixOf(after, documentStart)) // (also when nothing follows yet)
        return false;                     // wait
    if (!after.startsWith(documentStart)) {
        // Only looks like a marker: it is text.
        m_output += QStringView(m_buffer).first(start);
        m_buffer.remove(0, start);
        return true;
    }
    m_buffer.remove(0, start);
    m_state = State::Document;
    return true;
}

// Decodes one complete document; false when it must wait for more.
bool ClixmlFilter::takeDocument()
{
    const qsizetype end = m_buffer.indexOf(documentEnd);
    if (end < 0) {
        if (m_buffer.size() <= maxDocumentChars)
            return false;
        m_output += markerLine() + m_buffer;
        m_buffer.clear();
        m_state = State::Plain;
        return false;
    }
    const qsizetype length = end + documentEnd.size();
    bool ok = false;
    const QString decoded = decodeDocument(QStringView(m_buffer).first(length), &ok);
    m_output += ok ? decoded : markerLine() + decoded;
    m_decodedAny = m_decodedAny || ok;
    m_buffer.remove(0, length);
    m_state = State::AfterDocument;
    return true;
}

// PowerShell may write a second document right after the first, without a marker.
bool ClixmlFilter::lookForNextDocument()
{
    qsizetype next = 0;
    while (next < m_buffer.size() && (m_buffer.at(next) == u'\r' || m_buffer.at(next) == u'\n'))
        ++next;
    const QStringView after = QStringView(m_buffer).sliced(next);
    if (after.isEmpty() || isPrefixOf(after, documentStart))
        return false; // may still become a document: wait
    if (after.startsWith(documentStart)) {
        m_buffer.remove(0, next);
        m_state = State::Document;
    } else {
        m_state = State::Plain;
    }
    return true;
}

QString ClixmlFilter::finish()
{
    QString rest = std::exchange(m_output, {});
    if (m_state == State::Document)
        rest += markerLine(); // a document that never ended is shown as it came
    rest += m_buffer;
    m_buffer.clear();
    m_state = State::Plain;
    return rest;
}

} // namespace AgentLoop
