#pragma once

#include "base/result.h"
#include "permissions/permissionrules.h"
#include "settings/ruleeditdialog.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTableWidget;

namespace AgentLoop {
class AgentSession;
}

namespace Gui {

class AuditModel;

// The settings' Permissions page: every rule, app-wide (the app's rules file) and this
// workspace's (.agentloop/permissions.json), to add, edit and delete, a rule that does not parse
// flagged with its error; the switch for the built-in read-only commands; a test of a sample
// call (`shell(git diff; rm -rf ~)`) against the rules as edited; and the recent calls of the
// conversation with the rule that decided each. Nothing is written before save().
class PermissionsPage final : public QWidget
{
    Q_OBJECT
public:
    // session: where the tools (for the test) and the audit trail (the recent decisions) come
    // from; none: the test knows no tools and no calls are listed.
    PermissionsPage(const QString &workspace,
                    bool readOnlyCommands,
                    const AgentLoop::AgentSession *session,
                    QWidget *parent = nullptr);

    // Shows another workspace's rules, unless this one's were edited: those stay, with their
    // folder, until they are saved.
    void setWorkspace(const QString &workspace);
    QString workspace() const { return m_workspace; }

    // The rules as edited: the app's first, then the workspace's.
    const QList<AgentLoop::PermissionRule> &rules() const { return m_rules; }
    bool readOnlyCommands() const;
    bool hasChanges() const;
    // Writes the rules files that changed. The error says which could not be written and is
    // shown on the page; the edits are kept.
    AgentLoop::Result<void> save();

    // Opens the editor for a new rule, or for the selected one; removes the selected one.
    void addRule();
    void editSelectedRule();
    void removeSelectedRule();
    void selectRule(int row);
    // The open rule editor, or null.
    RuleEditDialog *ruleEditor() const { return m_editor; }

    // What the page shows, for the tests and the screenshots.
    QTableWidget *rulesTable() const { return m_table; }
    QCheckBox *readOnlyCheck() const { return m_readOnly; }
    // Shown when the workspace's rules file was changed outside Agent Loop.
    QCheckBox *trustCheck() const { return m_trust; }
    QLineEdit *testEdit() const { return m_testEdit; }
    QString verdictText() const;
    QString explanationText() const;
    QString messageText() const;
    QTableView *recentTable() const { return m_recent; }

private:
    void loadWorkspaceRules(const QString &workspace);
    AgentLoop::Result<void> saveWorkspace();
    QList<AgentLoop::PermissionRule> rulesOf(AgentLoop::RuleOrigin origin) const;
    AgentLoop::PermissionPolicy policy() const;
    void openEditor(int index);
    void showRules();
    void showFiles();
    void showMessage(const QString &text);
    void updateButtons();
    void updateTest();
    int selectedIndex() const;

    const AgentLoop::AgentSession *m_session;
    QString m_workspace;
    QList<AgentLoop::PermissionRule> m_rules;
    QList<AgentLoop::PermissionRule> m_savedApp;
    QList<AgentLoop::PermissionRule> m_savedWorkspace;
    QString m_appReadError;
    QString m_workspaceReadError;
    QStringList m_untrustedAllowRules; // of the workspace's file as last read
    QString m_saveError;

    QTableWidget *m_table;
    QPushButton *m_add;
    QPushButton *m_edit;
    QPushButton *m_remove;
    QLabel *m_files;
    QLabel *m_message;
    QCheckBox *m_trust;
    QCheckBox *m_readOnly;
    QLabel *m_readOnlyList;
    QLineEdit *m_testEdit;
    QLabel *m_verdict;
    QLabel *m_explanation;
    AuditModel *m_recentModel;
    QTableView *m_recent;
    QPointer<RuleEditDialog> m_editor;
};

} // namespace Gui
