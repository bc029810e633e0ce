#include "tools/shellsyntax.h"

#include <QCoreApplication>

namespace AgentLoop {

// Until the real splitter lands: nothing can be split with certainty, so every call is asked.
ShellParse parseShellCommand(const QString &command, ShellSyntax)
{
    ShellParse parse;
    parse.certain = false;
    parse.uncertainty = QCoreApplication::translate("ShellSyntax", "The command was not split.");
    SimpleCommand whole;
    whole.text = command;
    parse.commands.append(whole);
    return parse;
}

} // namespace AgentLoop
