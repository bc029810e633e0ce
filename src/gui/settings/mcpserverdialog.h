#pragma once

#include "mcp/mcpconfig.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QStackedWidget;

namespace Gui {

// Settings › MCP servers › Add… / Edit…: one server as the mcpServers format describes it — its
// name, how it is reached (a program on standard input and output, or a URL), the program, its
// arguments one per line and its environment as KEY=VALUE lines (${VAR} is expanded from the
// app's environment when the server starts), or the URL and its headers ("Name: value" lines),
// and the time a call may take. OK stays disabled while an entry is invalid, and says why.
// What the dialog does not edit (enabled, trusted, the working folder) is kept as it was.
class McpServerDialog final : public QDialog
{
    Q_OBJECT
public:
    // takenNames: the names other servers of the same file have.
    McpServerDialog(const AgentLoop::McpServerConfig &server,
                    const QStringList &takenNames,
                    QWidget *parent = nullptr);

    AgentLoop::McpServerConfig server() const;
    bool isValid() const;
    QString problemText() const;

    QLineEdit *nameEdit() const { return m_name; }
    QComboBox *transportCombo() const { return m_transport; }
    QLineEdit *commandEdit() const { return m_command; }
    QPlainTextEdit *argumentsEdit() const { return m_arguments; }
    QPlainTextEdit *environmentEdit() const { return m_environment; }
    QLineEdit *urlEdit() const { return m_url; }
    QPlainTextEdit *headersEdit() const { return m_headers; }
    QSpinBox *timeoutSpin() const { return m_timeout; }

    // "KEY=VALUE" lines; the error names the first line that is none.
    static AgentLoop::Result<QMap<QString, QString>> parseEnvironment(const QString &text);
    // "Name: value" lines.
    static AgentLoop::Result<QMap<QString, QString>> parseHeaders(const QString &text);

private:
    void validate();

    AgentLoop::McpServerConfig m_original;
    QStringList m_takenNames;
    QLineEdit *m_name;
    QComboBox *m_transport;
    QStackedWidget *m_pages;
    QLineEdit *m_command;
    QPlainTextEdit *m_arguments;
    QPlainTextEdit *m_environment;
    QLineEdit *m_url;
    QPlainTextEdit *m_headers;
    QSpinBox *m_timeout;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
};

} // namespace Gui
