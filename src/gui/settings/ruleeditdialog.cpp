#include "settings/ruleeditdialog.h"

#include "base/displaytext.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::RuleEffect;
using AgentLoop::RuleOrigin;

namespace Gui {

QString effectName(RuleEffect effect)
{
    switch (effect) {
    case RuleEffect::Allow:
        return RuleEditDialog::tr("Allow");
    case RuleEffect::Ask:
        return RuleEditDialog::tr("Ask");
    case RuleEffect::Deny:
        return RuleEditDialog::tr("Deny");
    }
    return {};
}

QString originName(RuleOrigin origin)
{
    switch (origin) {
    case RuleOrigin::BuiltIn:
        return RuleEditDialog::tr("Built-in");
    case RuleOrigin::App:
        return RuleEditDialog::tr("All workspaces");
    case RuleOrigin::Workspace:
        return RuleEditDialog::tr("This workspace");
    case RuleOrigin::CommandLine:
        return RuleEditDialog::tr("Command line");
    case RuleOrigin::Conversation:
        return RuleEditDialog::tr("This conversation");
    }
    return {};
}

RuleEditDialog::RuleEditDialog(const AgentLoop::PermissionRule &rule,
                               bool workspaceAvailable,
                               QWidget *parent)
    : QDialog(parent)
    , m_effect(new QComboBox(this))
    , m_text(new QLineEdit(this))
    , m_error(new QLabel(this))
    , m_scope(new QComboBox(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setObjectName(u"ruleEditor"_s);
    setWindowTitle(rule.text.isEmpty() ? tr("Add a Rule") : tr("Edit the Rule"));
    setMinimumWidth(fontMetrics().averageCharWidth() * 60);
    for (const RuleEffect effect : {RuleEffect::Allow, RuleEffect::Ask, RuleEffect::Deny})
        m_effect->addItem(effectName(effect), int(effect));
    m_effect->setObjectName(u"ruleEffect"_s);
    m_effect->setCurrentIndex(m_effect->findData(int(rule.effect)));
    m_text->setObjectName(u"ruleText"_s);
    m_text->setText(rule.text);
    m_text->setPlaceholderText(u"shell(npm run test:*)"_s);
    m_text->setToolTip(tr("tool(pattern): shell(git status), shell(npm run test:*), "
                          "read_file(src/**), edit_file(**/*.md); a tool alone (shell) is every "
                          "call of it. `:*` at the end allows further arguments, `*` matches "
                          "within one argument."));
    m_error->setObjectName(u"ruleError"_s);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    QPalette palette = m_error->palette();
    palette.setColor(QPalette::WindowText,
                     palette.color(QPalette::Window).lightness() < 128 ? QColor(0xff, 0x8a, 0x80)
                                                                       : QColor(0xb3, 0x26, 0x1e));
    m_error->setPalette(palette);
    for (const RuleOrigin origin : {RuleOrigin::App, RuleOrigin::Workspace})
        m_scope->addItem(originName(origin), int(origin));
    m_scope->setObjectName(u"ruleScope"_s);
    if (!workspaceAvailable) {
        auto *items = qobject_cast<QStandardItemModel *>(m_scope->model());
        items->item(1)->setEnabled(false);
        items->item(1)->setToolTip(tr("This workspace's rules file cannot be read: fix it first"));
    }
    m_scope->setCurrentIndex(rule.origin == RuleOrigin::Workspace && workspaceAvailable ? 1 : 0);

    auto *form = new QFormLayout;
    form->addRow(tr("&Effect:"), m_effect);
    form->addRow(tr("&Rule:"), m_text);
    form->addRow(QString(), m_error);
    form->addRow(tr("&Where:"), m_scope);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_text, &QLineEdit::textChanged, this, &RuleEditDialog::validate);
    validate();
}

AgentLoop::PermissionRule RuleEditDialog::rule() const
{
    return {m_text->text().trimmed(),
            RuleEffect(m_effect->currentData().toInt()),
            RuleOrigin(m_scope->currentData().toInt())};
}

QString RuleEditDialog::errorText() const
{
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

void RuleEditDialog::validate()
{
    const QString text = m_text->text().trimmed();
    const auto parsed = AgentLoop::parseRuleText(text);
    const QString error = text.isEmpty() || parsed ? QString()
                                                   : AgentLoop::displayed(parsed.error().message);
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.isEmpty() && parsed.hasValue());
}

} // namespace Gui
