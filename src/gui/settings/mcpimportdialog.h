#pragma once

#include "mcp/mcpconfig.h"

#include <QDialog>
#include <QPointer>

class QDialogButtonBox;
class QFileDialog;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace Gui {

// Settings › MCP servers › Import JSON…: servers pasted, or read from a file, in the common
// mcpServers format. A Claude Desktop or Cursor configuration imports as it is (its other
// fields are ignored). Import parses what is in the box: an error is shown under it, naming the
// server and the field, and the text stays as it was, so that nothing typed is lost; the dialog
// closes only with servers that parsed.
class McpImportDialog final : public QDialog
{
    Q_OBJECT
public:
    // existingNames: the app's servers now; an imported server of the same name replaces it,
    // which the dialog says before Import.
    explicit McpImportDialog(const QStringList &existingNames, QWidget *parent = nullptr);

    // After accept(): what was imported.
    const QList<AgentLoop::McpServerConfig> &servers() const { return m_servers; }

    QPlainTextEdit *textEdit() const { return m_text; }
    QPushButton *importButton() const { return m_import; }
    QPushButton *openFileButton() const { return m_openFile; }
    QString errorText() const;
    QString summaryText() const;
    // Reads a file into the box (as Open a file… does once a file is chosen).
    void readFile(const QString &path);
    // Parses the box; accepts when it holds servers, else shows why.
    void tryImport();

private:
    void updateSummary();
    void showError(const QString &text);

    QStringList m_existingNames;
    QList<AgentLoop::McpServerConfig> m_servers;
    QPlainTextEdit *m_text;
    QLabel *m_summary;
    QLabel *m_error;
    QPushButton *m_openFile;
    QPushButton *m_import;
    QDialogButtonBox *m_buttons;
    QPointer<QFileDialog> m_fileDialog;
};

} // namespace Gui
