#pragma once

#include "agent/agentcontroller.h"

#include <QDialog>
#include <QPointer>

#include <functional>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;

namespace Gui {

// What "Always allow…" needs from the session: the rules in force (an edited rule is tested with
// them), the workspace (for "This workspace"), and how rules are saved (AgentSession::addRules).
struct RuleSaving
{
    std::shared_ptr<const AgentLoop::PermissionPolicy> policy;
    QString workspace; // none: only "All workspaces" and "This conversation only"
    std::function<AgentLoop::Result<void>(const QStringList &rules, AgentLoop::RuleOrigin scope)>
            addRules;
};

// "Always allow…" of the approval box: the allow rules that would let this call run (the
// request's suggestions, one a line, editable), where they go — all workspaces (the app's rules
// file), this workspace (its .agentloop/permissions.json) or this conversation only (not saved) —
// and, as the user types, whether each line parses and whether together they allow this very
// call; Save waits for both. Save writes the rules (an error is shown and the dialog stays);
// then answered() carries the approval's answer: allow once with the saved rules, or allow for
// the conversation with them. Cancel answers nothing.
class RuleDialog final : public QDialog
{
    Q_OBJECT
public:
    enum class Scope { AllWorkspaces, ThisWorkspace, ThisConversation };

    // Bounds on what the user may type: a rules field is a few lines.
    static constexpr int maximumRules = 50;
    static constexpr qsizetype maximumRuleLength = 2000;

    RuleDialog(const AgentLoop::ApprovalRequest &request, RuleSaving saving, QWidget *parent);

    // The field's lines, trimmed, without the empty ones.
    QStringList rules() const;
    Scope scope() const;
    void setScope(Scope scope);

    // For tests and screenshots.
    QPlainTextEdit *rulesEdit() const { return m_rulesEdit; }
    QPushButton *saveButton() const { return m_save; }
    QLabel *problemLabel() const { return m_problem; }

signals:
    void answered(const AgentLoop::ApprovalAnswer &answer);

private:
    QWidget *createScopes();
    // Why the rules cannot be saved as they are; empty when they can.
    QString problem() const;
    void validate();
    void save();

    AgentLoop::RuleCall m_call;
    RuleSaving m_saving;
    QPointer<QPlainTextEdit> m_rulesEdit;
    QPointer<QLabel> m_problem;
    QPointer<QPushButton> m_save;
    QPointer<QRadioButton> m_allWorkspaces;
    QPointer<QRadioButton> m_thisWorkspace;
    QPointer<QRadioButton> m_thisConversation;
};

} // namespace Gui
