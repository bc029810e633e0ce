#pragma once

#include "permissions/permissionrules.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace Gui {

// Adds or edits one permission rule: its effect, its text (`shell(git status)`,
// `read_file(src/**)`) with the parse error shown as it is typed, and where it is kept (all
// workspaces, or this workspace). OK stays disabled while the text does not parse.
class RuleEditDialog final : public QDialog
{
    Q_OBJECT
public:
    // workspaceAvailable: this workspace's rules file can be written (it was read, or is missing).
    RuleEditDialog(const AgentLoop::PermissionRule &rule,
                   bool workspaceAvailable,
                   QWidget *parent = nullptr);

    AgentLoop::PermissionRule rule() const;
    QLineEdit *textEdit() const { return m_text; }
    QComboBox *effectCombo() const { return m_effect; }
    QComboBox *scopeCombo() const { return m_scope; }
    QString errorText() const;

private:
    void validate();

    QComboBox *m_effect;
    QLineEdit *m_text;
    QLabel *m_error;
    QComboBox *m_scope;
    QDialogButtonBox *m_buttons;
};

// The words the rules pages use for an effect and for where a rule is kept.
QString effectName(AgentLoop::RuleEffect effect);
QString originName(AgentLoop::RuleOrigin origin);

} // namespace Gui
