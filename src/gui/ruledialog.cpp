#include "ruledialog.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

constexpr int editColumns = 64;
constexpr int editLines = 4;

AgentLoop::RuleOrigin originOf(RuleDialog::Scope scope)
{
    switch (scope) {
    case RuleDialog::Scope::AllWorkspaces:
        return AgentLoop::RuleOrigin::App;
    case RuleDialog::Scope::ThisWorkspace:
        return AgentLoop::RuleOrigin::Workspace;
    case RuleDialog::Scope::ThisConversation:
        break;
    }
    return AgentLoop::RuleOrigin::Conversation;
}

QLabel *noteLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

} // namespace

RuleDialog::RuleDialog(const AgentLoop::ApprovalRequest &request, RuleSaving saving, QWidget *parent)
    : QDialog(parent)
    , m_call(request.ruleCall)
    , m_saving(std::move(saving))
{
    setObjectName(u"ruleDialog"_s);
    setWindowTitle(tr("Always allow"));
    setWindowModality(Qt::WindowModal);
    auto *layout = new QVBoxLayout(this);

    auto *caption = new QLabel(tr("&Rules to add, one per line:"), this);
    caption->setTextFormat(Qt::PlainText);
    layout->addWidget(caption);
    m_rulesEdit = new QPlainTextEdit(this);
    m_rulesEdit->setObjectName(u"ruleText"_s);
    m_rulesEdit->setAccessibleName(tr("Rules to add"));
    m_rulesEdit->setTabChangesFocus(true);
    m_rulesEdit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_rulesEdit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const QFontMetrics metrics(m_rulesEdit->font());
    m_rulesEdit->setMinimumWidth(metrics.horizontalAdvance(u'0') * editColumns);
    m_rulesEdit->setFixedHeight(metrics.lineSpacing() * editLines
                                + 2 * int(m_rulesEdit->document()->documentMargin())
                                + 2 * m_rulesEdit->frameWidth());
    m_rulesEdit->setPlainText(request.suggestedRules.join(u'\n'));
    caption->setBuddy(m_rulesEdit);
    layout->addWidget(m_rulesEdit);

    // A rule comes from the model's call: what it hides must not go unnoticed into a rules file.
    const bool hidden = std::any_of(request.suggestedRules.cbegin(),
                                    request.suggestedRules.cend(),
                                    [](const QString &rule) {
                                        return AgentLoop::displayedLine(rule) != rule;
                                    });
    if (hidden) {
        auto *warning = noteLabel(tr("A suggested rule contains invisible or control characters, "
                                     "as the command does."),
                                  this);
        warning->setObjectName(u"ruleHiddenCharacters"_s);
        layout->addWidget(warning);
    }

    layout->addWidget(createScopes());

    m_problem = new QLabel(this);
    m_problem->setObjectName(u"ruleProblem"_s);
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    m_save = buttons->button(QDialogButtonBox::Save);
    m_save->setObjectName(u"ruleSave"_s);
    connect(m_save, &QPushButton::clicked, this, &RuleDialog::save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(m_rulesEdit, &QPlainTextEdit::textChanged, this, &RuleDialog::validate);
    for (QRadioButton *scope :
         {m_allWorkspaces.data(), m_thisWorkspace.data(), m_thisConversation.data()})
        connect(scope, &QRadioButton::toggled, this, &RuleDialog::validate);
    validate();
}

QWidget *RuleDialog::createScopes()
{
    auto *scopes = new QWidget(this);
    auto *layout = new QVBoxLayout(scopes);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *caption = new QLabel(tr("Where the rules apply:"), scopes);
    caption->setTextFormat(Qt::PlainText);
    layout->addWidget(caption);

    m_allWorkspaces = new QRadioButton(tr("&All workspaces"), scopes);
    m_allWorkspaces->setObjectName(u"ruleScopeApp"_s);
    m_allWorkspaces->setChecked(true);
    layout->addWidget(m_allWorkspaces);
    layout->addWidget(noteLabel(tr("Saved in %1").arg(AgentLoop::appRuleFilePath()), scopes));

    m_thisWorkspace = new QRadioButton(tr("This &workspace"), scopes);
    m_thisWorkspace->setObjectName(u"ruleScopeWorkspace"_s);
    layout->addWidget(m_thisWorkspace);
    if (m_saving.workspace.isEmpty()) {
        m_thisWorkspace->setEnabled(false);
        layout->addWidget(noteLabel(tr("No workspace is open."), scopes));
    } else {
        const QString path = AgentLoop::workspaceRuleFilePath(m_saving.workspace);
        layout->addWidget(
                noteLabel(tr("Saved in %1").arg(AgentLoop::displayedLine(path, 1000)), scopes));
    }

    m_thisConversation = new QRadioButton(tr("This &conversation only"), scopes);
    m_thisConversation->setObjectName(u"ruleScopeConversation"_s);
    layout->addWidget(m_thisConversation);
    layout->addWidget(noteLabel(tr("Not saved: the rules end with this conversation."), scopes));
    return scopes;
}

QStringList RuleDialog::rules() const
{
    QStringList rules;
    for (const QString &line : m_rulesEdit->toPlainText().split(u'\n')) {
        const QString rule = line.trimmed();
        if (!rule.isEmpty())
            rules << rule;
    }
    return rules;
}

RuleDialog::Scope RuleDialog::scope() const
{
    if (m_thisWorkspace->isChecked())
        return Scope::ThisWorkspace;
    if (m_thisConversation->isChecked())
        return Scope::ThisConversation;
    return Scope::AllWorkspaces;
}

void RuleDialog::setScope(Scope scope)
{
    switch (scope) {
    case Scope::AllWorkspaces:
        m_allWorkspaces->setChecked(true);
        break;
    case Scope::ThisWorkspace:
        m_thisWorkspace->setChecked(m_thisWorkspace->isEnabled());
        break;
    case Scope::ThisConversation:
        m_thisConversation->setChecked(true);
        break;
    }
}

QString RuleDialog::problem() const
{
    const QStringList lines = rules();
    if (lines.isEmpty())
        return tr("Add at least one rule.");
    if (lines.size() > maximumRules)
        return tr("At most %1 rules can be added at once.").arg(maximumRules);
    QList<AgentLoop::PermissionRule> added;
    const AgentLoop::RuleOrigin origin = originOf(scope());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (line.size() > maximumRuleLength)
            return tr("Rule %1 is longer than %2 characters.").arg(i + 1).arg(maximumRuleLength);
        const AgentLoop::Result<AgentLoop::RulePattern> parsed = AgentLoop::parseRuleText(line);
        if (!parsed)
            return tr("Rule %1 (%2): %3")
                    .arg(i + 1)
                    .arg(AgentLoop::displayedLine(line, 200),
                         AgentLoop::displayedLine(parsed.error().message, 500));
        added << AgentLoop::PermissionRule{line, AgentLoop::RuleEffect::Allow, origin};
    }
    const AgentLoop::PermissionPolicy inForce = m_saving.policy ? *m_saving.policy
                                                                : AgentLoop::PermissionPolicy();
    const AgentLoop::PermissionCheck check = inForce.withRules(inForce.rules() + added).check(m_call);
    if (check.verdict != AgentLoop::Verdict::Allow) {
        const QString why = AgentLoop::displayedLine(check.explanation, 500);
        return why.isEmpty() ? tr("These rules would not allow this call.")
                             : tr("These rules would not allow this call: %1").arg(why);
    }
    return {};
}

void RuleDialog::validate()
{
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_save->setEnabled(why.isEmpty());
    m_save->setText(scope() == Scope::ThisConversation ? tr("&Allow") : tr("&Save"));
}

void RuleDialog::save()
{
    if (!problem().isEmpty())
        return;
    const QStringList added = rules();
    const Scope chosen = scope();
    if (chosen == Scope::ThisConversation) {
        emit answered({AgentLoop::ApprovalAnswer::AllowForConversation, {}, added});
        accept();
        return;
    }
    const AgentLoop::Result<void> saved
            = m_saving.addRules ? m_saving.addRules(added, originOf(chosen))
                                : AgentLoop::Result<void>(
                                        AgentLoop::Error{AgentLoop::Error::Agent,
                                                         tr("Rules cannot be saved here.")});
    if (!saved) {
        showWarning(this,
                    tr("The rules could not be saved: %1\n\nNothing was allowed. Fix the file, "
                       "or choose “This conversation only”.")
                            .arg(saved.error().message));
        return;
    }
    emit answered({AgentLoop::ApprovalAnswer::AllowOnce, {}, added});
    accept();
}

} // namespace Gui
