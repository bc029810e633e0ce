#include "inspector/jsonhighlighter.h"

#include "chat/chatstyle.h"

#include <QGuiApplication>

using namespace Qt::StringLiterals;

namespace Gui {

JsonHighlighter::JsonHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
{
    setPalette(QGuiApplication::palette());
}

void JsonHighlighter::setPalette(const QPalette &palette)
{
    const bool dark = ChatColors::isDark(palette);
    m_key.setForeground(dark ? QColor(0x9c, 0xdc, 0xfe) : QColor(0x00, 0x45, 0x9e));
    m_key.setFontWeight(QFont::DemiBold);
    m_string.setForeground(dark ? QColor(0xce, 0x91, 0x78) : QColor(0xa3, 0x15, 0x15));
    m_number.setForeground(dark ? QColor(0xb5, 0xce, 0xa8) : QColor(0x09, 0x86, 0x58));
    m_keyword.setForeground(dark ? QColor(0x56, 0x9c, 0xd6) : QColor(0x00, 0x00, 0xff));
    m_keyword.setFontWeight(QFont::DemiBold);
    m_punctuation.setForeground(
            ChatColors::blend(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.35));
    m_field.setForeground(
            ChatColors::blend(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.45));
    m_comment.setForeground(m_field.foreground());
    m_comment.setFontItalic(true);
    rehighlight();
}

void JsonHighlighter::highlightBlock(const QString &text)
{
    if (m_mode == Mode::Json) {
        highlightJson(text, 0);
        return;
    }
    if (text.startsWith(u':')) { // a comment, such as a keep-alive
        setFormat(0, int(text.size()), m_comment);
        return;
    }
    const qsizetype colon = text.indexOf(u':');
    if (colon < 0)
        return;
    qsizetype valueStart = colon + 1;
    if (valueStart < text.size() && text.at(valueStart) == u' ')
        ++valueStart;
    setFormat(0, int(valueStart), m_field);
    if (QStringView(text).first(colon) == u"data")
        highlightJson(text, valueStart);
}

void JsonHighlighter::highlightJson(const QString &text, qsizetype from)
{
    const qsizetype n = text.size();
    qsizetype i = from;
    while (i < n) {
        const QChar c = text.at(i);
        if (c == u'"') {
            qsizetype end = i + 1;
            while (end < n && text.at(end) != u'"')
                end += text.at(end) == u'\\' ? 2 : 1;
            end = qMin(end + 1, n);
            qsizetype next = end;
            while (next < n && text.at(next).isSpace())
                ++next;
            const bool isKey = next < n && text.at(next) == u':';
            setFormat(int(i), int(end - i), isKey ? m_key : m_string);
            i = end;
        } else if (c == u'-' || c.isDigit()) {
            qsizetype end = i + 1;
            while (end < n
                   && (text.at(end).isDigit() || text.at(end) == u'.' || text.at(end) == u'e'
                       || text.at(end) == u'E' || text.at(end) == u'+' || text.at(end) == u'-'))
                ++end;
            setFormat(int(i), int(end - i), m_number);
            i = end;
        } else if (c.isLetter()) {
            qsizetype end = i + 1;
            while (end < n && text.at(end).isLetter())
                ++end;
            const QStringView word = QStringView(text).mid(i, end - i);
            if (word == u"true" || word == u"false" || word == u"null")
                setFormat(int(i), int(end - i), m_keyword);
            i = end;
        } else {
            if (c == u'{' || c == u'}' || c == u'[' || c == u']' || c == u',' || c == u':')
                setFormat(int(i), 1, m_punctuation);
            ++i;
        }
    }
}

} // namespace Gui
