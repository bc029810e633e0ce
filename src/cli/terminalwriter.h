#pragma once

#include <QString>
#include <QTextStream>

#include <cstdio>

namespace Cli {

// How much of one line of text that the model or a provider controls is shown: a tool name
// (real ones are at most 64 characters), an error message with a body excerpt.
inline constexpr qsizetype shownNameLength = 256;
inline constexpr qsizetype shownMessageLength = 2000;

// The only way the CLI writes to its terminal, standard output and standard error alike.
// Everything written is shown, never interpreted: the API key is blanked out first, then every
// character a terminal would act on (ESC and the other C0 controls, C1 controls such as U+009B,
// DEL, bidi controls, invisible characters, line separators) is written as a visible
// "⟨U+XXXX⟩" by AgentLoop::displayed(); line breaks and tabs stay. So the CLI never writes an
// escape sequence, not even one of its own.
class TerminalWriter final
{
public:
    explicit TerminalWriter(FILE *stream);
    // The same onto a device (a test's).
    explicit TerminalWriter(QIODevice *device);

    // Blanked out of everything written and of every line().
    void setSecret(const QString &secret) { m_secret = secret; }
    QString redacted(const QString &text) const;

    // Writes text as described above and flushes it.
    void write(const QString &text);
    void writeLine(const QString &line) { write(line + u'\n'); }

    // One line of text the model or a provider controls (a tool name, the first line of an
    // output, an error message), made to fit into a line of ours: the secret blanked out, and
    // line breaks and tabs shown as escapes too; after maxLength characters, "…".
    QString line(const QString &text, qsizetype maxLength = shownMessageLength) const;

private:
    QTextStream m_stream;
    QString m_secret;
};

} // namespace Cli
