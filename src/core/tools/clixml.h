#pragma once

#include <QString>
#include <QStringView>

namespace AgentLoop {

// PowerShell started with a redirected standard error writes its error, warning, verbose, debug
// and information records there as CLIXML ("#< CLIXML" and then <Objs …><S S="Error">boom_x000D_
// _x000A_</S>…</Objs>), in 5.1 and 7, with ANSI colours inside from 7.2 on. This filter turns
// such documents back into the plain lines a console would show: the _xHHHH_ escapes decoded,
// colours removed, progress records dropped. Everything else passes unchanged, also text that
// comes before, between or after documents, and a document that never ends or does not parse.
//
// It is fed decoded text in pieces as it arrives; a marker or document split across pieces waits
// for the rest.
class ClixmlFilter
{
public:
    // The text that is final so far.
    QString feed(QStringView text);
    // The rest, once the stream has ended.
    QString finish();
    // Whether any CLIXML document was decoded.
    bool decodedAny() const { return m_decodedAny; }

    // One <Objs> document (without the marker) as plain text; ok is false when it does not parse.
    static QString decodeDocument(QStringView document, bool *ok = nullptr);
    // "_x000D__x000A_" → "\r\n"; anything that is no escape stays as it is.
    static QString unescape(QStringView text);

private:
    bool step();
    bool takePlainText();
    bool takeDocument();
    bool lookForNextDocument();

    enum class State { Plain, Document, AfterDocument };
    State m_state = State::Plain;
    QString m_buffer; // text not passed on yet
    QString m_output;
    bool m_decodedAny = false;
};

} // namespace AgentLoop
