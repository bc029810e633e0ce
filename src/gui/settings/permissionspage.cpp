#include "settings/permissionspage.h"

#include "agent/agentsession.h"
#include "base/displaytext.h"
#include "files/workspace.h"
#include "inspector/auditmodel.h"
#include "permissions/workspacerules.h"
#include "settings/ruleeditdialog.h"
#include "showntext.h"
#include "tools/shelltool.h"

#include <QCheckBox>
#include <QDir>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyle>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::PermissionRule;
using AgentLoop::RuleEffect;
using AgentLoop::RuleOrigin;
using AgentLoop::Verdict;

namespace Gui {

namespace {

// The recent decisions list the last calls of the conversation, not all of a long one.
constexpr qsizetype recentCalls = 50;
// How many of the built-in read-only commands the page names under its switch (the tooltip
// names them all).
constexpr qsizetype namedReadOnlyCommands = 8;

enum Column { EffectColumn, RuleColumn, WhereColumn, ColumnCount };

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor errorColor(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
}

QColor verdictColor(Verdict verdict, const QPalette &palette)
{
    switch (verdict) {
    case Verdict::Allow:
        return isDark(palette) ? QColor(0x81, 0xc9, 0x95) : QColor(0x1e, 0x7b, 0x34);
    case Verdict::Ask:
        return isDark(palette) ? QColor(0xff, 0xcc, 0x66) : QColor(0x8a, 0x52, 0x00);
    case Verdict::Deny:
        return errorColor(palette);
    }
    return palette.color(QPalette::WindowText);
}

void setTextColor(QLabel *label, const QColor &color)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, color);
    label->setPalette(palette);
}

QLabel *newNote(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTextColor(label, label->palette().color(QPalette::PlaceholderText));
    return label;
}

QString verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Allow:
        return PermissionsPage::tr("Allow");
    case Verdict::Ask:
        return PermissionsPage::tr("Ask");
    case Verdict::Deny:
        return PermissionsPage::tr("Deny");
    }
    return {};
}

// The tool a rule that does not parse was meant for: what comes before its "(".
QString intendedTool(const QString &text)
{
    return text.section(u'(', 0, 0).trimmed();
}

QString invalidRuleNote(const PermissionRule &rule, const QString &error)
{
    const QString tool = intendedTool(rule.text);
    const QString consequence
            = tool.isEmpty()
                      ? PermissionsPage::tr("This rule does not parse; it denies every call until "
                                            "fixed.")
                      : PermissionsPage::tr("This rule does not parse; it denies every call of %1 "
                                            "until fixed.")
                                .arg(AgentLoop::displayedLine(tool, 80));
    return consequence + u'\n' + AgentLoop::displayed(error);
}

AgentLoop::ShellSyntax shellSyntaxOf(const QList<std::shared_ptr<const AgentLoop::Tool>> &tools)
{
    for (const auto &tool : tools) {
        if (const auto *shell = dynamic_cast<const AgentLoop::ShellTool *>(tool.get()))
            return AgentLoop::shellSyntaxOf(shell->shell());
    }
    return AgentLoop::shellSyntaxOf(AgentLoop::detectShell());
}

} // namespace

PermissionsPage::PermissionsPage(const QString &workspace,
                                 bool readOnlyCommands,
                                 const AgentLoop::AgentSession *session,
                                 QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_add(new QPushButton(tr("A&dd…"), this))
    , m_edit(new QPushButton(tr("&Edit…"), this))
    , m_remove(new QPushButton(tr("De&lete"), this))
    , m_files(newNote(this))
    , m_message(new QLabel(this))
    , m_trust(new QCheckBox(tr("&Trust this workspace's rules as listed here (I reviewed its allow "
                               "rules)"),
                            this))
    , m_readOnly(new QCheckBox(tr("Allow the built-in &read-only commands without asking"), this))
    , m_readOnlyList(newNote(this))
    , m_testEdit(new QLineEdit(this))
    , m_verdict(new QLabel(this))
    , m_explanation(new QLabel(this))
    , m_recentModel(new AuditModel(this))
    , m_recent(new QTableView(this))
{
    setObjectName(u"permissionsPage"_s);
    m_table->setObjectName(u"rulesTable"_s);
    m_table->setAccessibleName(tr("Permission rules"));
    m_table->setHorizontalHeaderLabels({tr("Effect"), tr("Rule"), tr("Where")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->horizontalHeader()->setSectionResizeMode(EffectColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(RuleColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(WhereColumn, QHeaderView::ResizeToContents);
    m_add->setObjectName(u"addRuleButton"_s);
    m_edit->setObjectName(u"editRuleButton"_s);
    m_remove->setObjectName(u"deleteRuleButton"_s);
    m_files->setObjectName(u"ruleFilesNote"_s);
    m_message->setObjectName(u"rulesMessage"_s);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTextColor(m_message, errorColor(palette()));
    m_message->hide();

    m_readOnly->setObjectName(u"readOnlyCommandsCheck"_s);
    m_readOnly->setChecked(readOnlyCommands);
    const QStringList readOnlyRules = AgentLoop::PermissionPolicy::readOnlyCommandRules();
    m_readOnly->setToolTip(tr("Unless the command has a redirection or a substitution:\n%1")
                                   .arg(readOnlyRules.join(u'\n')));
    m_readOnlyList->setObjectName(u"readOnlyCommandsList"_s);
    QString named = readOnlyRules.mid(0, namedReadOnlyCommands).join(u", "_s);
    if (readOnlyRules.size() > namedReadOnlyCommands)
        named = tr("%1 and %2 more").arg(named).arg(readOnlyRules.size() - namedReadOnlyCommands);
    m_readOnlyList->setText(named);
    m_readOnlyList->setToolTip(m_readOnly->toolTip());
    m_readOnlyList->setVisible(!readOnlyRules.isEmpty());

    m_testEdit->setObjectName(u"ruleTestEdit"_s);
    m_testEdit->setAccessibleName(tr("Sample call"));
    m_testEdit->setPlaceholderText(u"shell(git diff; rm -rf ~)"_s);
    m_testEdit->setClearButtonEnabled(true);
    m_verdict->setObjectName(u"ruleTestVerdict"_s);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setWordWrap(true);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_explanation->setObjectName(u"ruleTestExplanation"_s);
    m_explanation->setTextFormat(Qt::PlainText);
    m_explanation->setWordWrap(true);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_recent->setObjectName(u"recentDecisions"_s);
    m_recent->setAccessibleName(tr("Recent decisions"));
    m_recent->setModel(m_recentModel);
    m_recent->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_recent->setSelectionMode(QAbstractItemView::SingleSelection);
    m_recent->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_recent->setShowGrid(false);
    m_recent->setWordWrap(false);
    m_recent->setToolTip(tr("Double-click a call to test it against the rules as edited"));
    m_recent->verticalHeader()->hide();
    m_recent->horizontalHeader()->setHighlightSections(false);
    m_recent->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_recent->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_recent->horizontalHeader()->setStretchLastSection(true);
    for (const int hidden : {AuditModel::TurnColumn,
                             AuditModel::CallColumn,
                             AuditModel::ReasonColumn,
                             AuditModel::ResultColumn,
                             AuditModel::DurationColumn})
        m_recent->setColumnHidden(hidden, true);
    m_recent->setMinimumHeight(m_recent->verticalHeader()->defaultSectionSize() * 4);

    auto *rulesGroup = new QGroupBox(tr("Rules"), this);
    auto *rulesLayout = new QVBoxLayout(rulesGroup);
    rulesLayout->addWidget(m_table, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_edit);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    rulesLayout->addLayout(buttons);
    rulesLayout->addWidget(m_message);
    rulesLayout->addWidget(m_files);
    rulesLayout->addWidget(m_trust);
    rulesLayout->addWidget(m_readOnly);
    rulesLayout->addWidget(m_readOnlyList);

    auto *testGroup = new QGroupBox(tr("Test a call"), this);
    auto *testLayout = new QVBoxLayout(testGroup);
    testLayout->addWidget(m_testEdit);
    testLayout->addWidget(m_verdict);
    testLayout->addWidget(m_explanation);

    auto *recentGroup = new QGroupBox(tr("Recent decisions"), this);
    auto *recentLayout = new QVBoxLayout(recentGroup);
    recentLayout->addWidget(m_recent);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(rulesGroup, 3);
    layout->addWidget(testGroup);
    layout->addWidget(recentGroup, 2);

    connect(m_add, &QPushButton::clicked, this, &PermissionsPage::addRule);
    connect(m_edit, &QPushButton::clicked, this, &PermissionsPage::editSelectedRule);
    connect(m_remove, &QPushButton::clicked, this, &PermissionsPage::removeSelectedRule);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &PermissionsPage::updateButtons);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &PermissionsPage::editSelectedRule);
    connect(m_readOnly, &QCheckBox::toggled, this, &PermissionsPage::showRules);
    connect(m_trust, &QCheckBox::toggled, this, &PermissionsPage::showFiles);
    connect(m_testEdit, &QLineEdit::textChanged, this, &PermissionsPage::updateTest);
    connect(m_recent, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const QJsonObject &entry = m_recentModel->entry(index.row());
        m_testEdit->setText(
                u"%1(%2)"_s.arg(entry.value(u"tool"_s).toString(), AuditModel::subjectOf(entry)));
    });

    if (const auto app = AgentLoop::readRuleFile(AgentLoop::appRuleFilePath(), RuleOrigin::App))
        m_savedApp = *app;
    else
        m_appReadError = app.error().message;
    m_rules = m_savedApp;
    loadWorkspaceRules(workspace);

    if (m_session) {
        const QList<QJsonObject> &trail = m_session->auditTrail();
        m_recentModel->setEntries(trail.mid(std::max<qsizetype>(0, trail.size() - recentCalls)));
        connect(m_session,
                &AgentLoop::AgentSession::auditRecorded,
                m_recentModel,
                &AuditModel::append);
        // Measured once the new row is laid out: a row added before the page is shown would
        // leave the columns as wide as their headings.
        connect(m_recentModel, &QAbstractItemModel::rowsInserted, m_recent, [this] {
            QTimer::singleShot(0, m_recent, [this] {
                m_recent->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
            });
        });
    }
    m_recent->scrollToBottom();
}

void PermissionsPage::setWorkspace(const QString &workspace)
{
    if (workspace == m_workspace || rulesOf(RuleOrigin::Workspace) != m_savedWorkspace)
        return;
    loadWorkspaceRules(workspace);
}

void PermissionsPage::loadWorkspaceRules(const QString &workspace)
{
    m_workspace = workspace;
    m_savedWorkspace.clear();
    m_workspaceReadError.clear();
    // A file changed outside Agent Loop: its allow rules are not used until the user trusts it.
    m_untrustedAllowRules = AgentLoop::loadWorkspaceRules(workspace).ignoredAllowRules;
    m_trust->setChecked(false);
    m_trust->setVisible(!m_untrustedAllowRules.isEmpty());
    if (const auto read = AgentLoop::readWorkspaceRuleFile(workspace))
        m_savedWorkspace = *read;
    else
        m_workspaceReadError = read.error().message;
    m_rules = rulesOf(RuleOrigin::App) + m_savedWorkspace;
    showRules();
}

QList<PermissionRule> PermissionsPage::rulesOf(RuleOrigin origin) const
{
    QList<PermissionRule> rules;
    for (const PermissionRule &rule : m_rules) {
        if (rule.origin == origin)
            rules.append(rule);
    }
    return rules;
}

bool PermissionsPage::readOnlyCommands() const
{
    return m_readOnly->isChecked();
}

bool PermissionsPage::hasChanges() const
{
    return rulesOf(RuleOrigin::App) != m_savedApp
           || rulesOf(RuleOrigin::Workspace) != m_savedWorkspace;
}

AgentLoop::Result<void> PermissionsPage::save()
{
    m_saveError.clear();
    AgentLoop::Result<void> saved;
    if (const QList<PermissionRule> rules = rulesOf(RuleOrigin::App); rules != m_savedApp) {
        saved = AgentLoop::writeRuleFile(AgentLoop::appRuleFilePath(), rules);
        if (saved)
            m_savedApp = rules;
    }
    if (saved)
        saved = saveWorkspace();
    if (!saved) {
        m_saveError = tr("The rules are not saved: %1 %2 Your edits are still here: correct the "
                         "problem and press OK again, or Cancel to keep the rules as they were.")
                              .arg(saved.error().message, saved.error().hint)
                              .simplified();
    }
    showFiles();
    return saved;
}

// The workspace's file as listed here. The allow rules the user sees here are accepted, but those
// that came from outside Agent Loop only when the user says so.
AgentLoop::Result<void> PermissionsPage::saveWorkspace()
{
    const QList<PermissionRule> rules = rulesOf(RuleOrigin::Workspace);
    const bool trusts = m_trust->isChecked();
    if (rules == m_savedWorkspace)
        return trusts && !m_untrustedAllowRules.isEmpty()
                       ? AgentLoop::trustWorkspaceRules(m_workspace, m_untrustedAllowRules)
                       : AgentLoop::Result<void>();
    QStringList accepted;
    for (const PermissionRule &rule : rules) {
        if (rule.effect == RuleEffect::Allow
            && (trusts || !m_untrustedAllowRules.contains(rule.text)))
            accepted.append(rule.text);
    }
    const AgentLoop::Result<void> written = AgentLoop::saveWorkspaceRules(m_workspace,
                                                                          rules,
                                                                          accepted);
    if (written)
        m_savedWorkspace = rules;
    return written;
}

AgentLoop::PermissionPolicy PermissionsPage::policy() const
{
    AgentLoop::PermissionOptions options;
    options.readOnlyCommands = readOnlyCommands();
    return AgentLoop::PermissionPolicy(m_rules,
                                       options,
                                       std::make_shared<AgentLoop::WorkspaceBoundary>(m_workspace));
}

void PermissionsPage::addRule()
{
    openEditor(-1);
}

void PermissionsPage::editSelectedRule()
{
    if (const int index = selectedIndex(); index >= 0)
        openEditor(index);
}

void PermissionsPage::removeSelectedRule()
{
    const int index = selectedIndex();
    if (index < 0)
        return;
    const int row = m_table->currentRow();
    m_rules.removeAt(index);
    showRules();
    selectRule(std::min(row, m_table->rowCount() - 1));
}

void PermissionsPage::selectRule(int row)
{
    if (row >= 0 && row < m_table->rowCount())
        m_table->selectRow(row);
}

void PermissionsPage::openEditor(int index)
{
    if (m_editor)
        m_editor->reject();
    const PermissionRule rule = index >= 0 ? m_rules.at(index)
                                           : PermissionRule{{}, RuleEffect::Allow, RuleOrigin::App};
    m_editor = new RuleEditDialog(rule, m_workspaceReadError.isEmpty(), this);
    m_editor->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_editor, &QDialog::accepted, this, [this, index, editor = m_editor.data()] {
        const PermissionRule edited = editor->rule();
        if (index >= 0 && index < m_rules.size())
            m_rules[index] = edited;
        else
            m_rules.append(edited);
        // The app's rules stay before the workspace's, as the files keep them.
        std::stable_partition(m_rules.begin(), m_rules.end(), [](const PermissionRule &kept) {
            return kept.origin == RuleOrigin::App;
        });
        showRules();
        for (int row = 0; row < m_table->rowCount(); ++row) {
            const int shown = m_table->item(row, EffectColumn)->data(Qt::UserRole).toInt();
            if (shown >= 0 && m_rules.at(shown) == edited)
                selectRule(row);
        }
    });
    m_editor->open();
}

int PermissionsPage::selectedIndex() const
{
    const QList<QTableWidgetItem *> selected = m_table->selectedItems();
    return selected.isEmpty()
                   ? -1
                   : m_table->item(selected.first()->row(), EffectColumn)->data(Qt::UserRole).toInt();
}

void PermissionsPage::showRules()
{
    const auto invalid = policy().invalidRules();
    QList<std::pair<PermissionRule, int>> rows;
    for (int i = 0; i < m_rules.size(); ++i)
        rows.append({m_rules.at(i), i});
    if (readOnlyCommands()) {
        for (const QString &text : AgentLoop::PermissionPolicy::readOnlyCommandRules())
            rows.append({PermissionRule{text, RuleEffect::Allow, RuleOrigin::BuiltIn}, -1});
    }
    const QSignalBlocker blocker(m_table);
    m_table->setRowCount(int(rows.size()));
    for (int row = 0; row < rows.size(); ++row) {
        const auto &[rule, index] = rows.at(row);
        auto *effect = new QTableWidgetItem(effectName(rule.effect));
        effect->setData(Qt::UserRole, index);
        auto *text = new QTableWidgetItem(AgentLoop::displayedLine(rule.text, 500));
        auto *where = new QTableWidgetItem(originName(rule.origin));
        const auto problem = std::find_if(invalid.cbegin(), invalid.cend(), [&](const auto &pair) {
            return pair.first == rule;
        });
        if (problem != invalid.cend()) {
            const QString note = invalidRuleNote(rule, problem->second);
            effect->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
            for (QTableWidgetItem *item : {effect, text, where}) {
                item->setForeground(errorColor(palette()));
                item->setToolTip(plainToolTip(note));
            }
        } else if (rule.origin == RuleOrigin::Workspace && rule.effect == RuleEffect::Allow
                   && m_untrustedAllowRules.contains(rule.text)) {
            const QString note = tr("Not used: this workspace's rules file was changed outside "
                                    "Agent Loop. Review it, then tick \"Trust this workspace's "
                                    "rules\" and press OK.");
            for (QTableWidgetItem *item : {effect, text, where}) {
                item->setForeground(palette().color(QPalette::PlaceholderText));
                item->setToolTip(plainToolTip(note));
            }
        } else {
            text->setToolTip(plainToolTip(text->text()));
        }
        if (index < 0) {
            for (QTableWidgetItem *item : {effect, text, where})
                item->setForeground(palette().color(QPalette::PlaceholderText));
        }
        m_table->setItem(row, EffectColumn, effect);
        m_table->setItem(row, RuleColumn, text);
        m_table->setItem(row, WhereColumn, where);
    }
    updateButtons();
    showFiles();
    updateTest();
}

void PermissionsPage::showFiles()
{
    m_files->setText(
            tr("Rules for all workspaces are kept in %1; this workspace's in %2.")
                    .arg(QDir::toNativeSeparators(AgentLoop::appRuleFilePath()),
                         QDir::toNativeSeparators(AgentLoop::workspaceRuleFilePath(m_workspace))));
    QStringList problems;
    if (!m_saveError.isEmpty())
        problems << m_saveError;
    if (!m_appReadError.isEmpty())
        problems << tr("%1 Until it is fixed, every call is denied.").arg(m_appReadError);
    if (!m_workspaceReadError.isEmpty())
        problems << tr("%1 Until it is fixed, every call in this workspace is denied; rules "
                       "cannot be added to it here.")
                            .arg(m_workspaceReadError);
    if (!m_untrustedAllowRules.isEmpty() && !m_trust->isChecked())
        problems << tr("This workspace's rules file was changed outside Agent Loop (a cloned "
                       "repository or a command may have written it), so its allow rules, shown "
                       "grey, are not used; its deny and ask rules are.");
    showMessage(problems.join(u'\n'));
}

void PermissionsPage::showMessage(const QString &text)
{
    m_message->setText(AgentLoop::displayed(text));
    m_message->setVisible(!text.isEmpty());
}

void PermissionsPage::updateButtons()
{
    const bool editable = selectedIndex() >= 0;
    m_edit->setEnabled(editable);
    m_remove->setEnabled(editable);
}

void PermissionsPage::updateTest()
{
    const QString sample = m_testEdit->text().trimmed();
    if (sample.isEmpty()) {
        m_verdict->setText(tr("Type a call as rules are written to see what these rules decide."));
        setTextColor(m_verdict, palette().color(QPalette::PlaceholderText));
        m_explanation->clear();
        m_explanation->hide();
        return;
    }
    const QList<std::shared_ptr<const AgentLoop::Tool>> tools
            = m_session ? m_session->controller().tools().snapshot().tools()
                        : QList<std::shared_ptr<const AgentLoop::Tool>>();
    const auto call = AgentLoop::parseSampleCall(sample, tools, shellSyntaxOf(tools));
    if (!call) {
        m_verdict->setText(AgentLoop::displayedLine(call.error().message, 500));
        setTextColor(m_verdict, errorColor(palette()));
        m_explanation->hide();
        return;
    }
    const AgentLoop::PermissionCheck check = policy().check(*call);
    const QString decider = check.decidedBy == u"default"
                                    ? tr("the defaults")
                                    : tr("%1 (%2)").arg(AgentLoop::displayedLine(check.decidedBy,
                                                                                 300),
                                                        originName(check.origin));
    //: The verdict of the rule test: "Deny — decided by shell(rm:*) (All workspaces)"
    m_verdict->setText(tr("%1 — decided by %2").arg(verdictName(check.verdict), decider));
    setTextColor(m_verdict, verdictColor(check.verdict, palette()));
    QStringList lines{check.explanation};
    for (const QString &detail : check.details)
        lines << u"• "_s + detail;
    lines.removeAll(QString());
    m_explanation->setText(AgentLoop::displayed(lines.join(u'\n')));
    m_explanation->setVisible(!lines.isEmpty());
}

QString PermissionsPage::verdictText() const
{
    return m_verdict->text();
}

QString PermissionsPage::explanationText() const
{
    return m_explanation->isVisibleTo(this) ? m_explanation->text() : QString();
}

QString PermissionsPage::messageText() const
{
    return m_message->isVisibleTo(this) ? m_message->text() : QString();
}

} // namespace Gui
