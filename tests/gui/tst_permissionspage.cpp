// The settings' Permissions page: the rules of both files, editing and saving them, a rule that
// does not parse, the test of a sample call with the real rule engine, the read-only switch, and
// the recent decisions from the session's audit trail.

#include "agent/agentsession.h"
#include "base/displaytext.h"
#include "inspector/auditmodel.h"
#include "permissions/permissionrules.h"
#include "permissions/workspacerules.h"
#include "settings/appsettings.h"
#include "settings/permissionspage.h"
#include "settings/ruleeditdialog.h"
#include "settings/settingsdialog.h"
#include "temporarysettings.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using AgentLoop::PermissionRule;
using AgentLoop::RuleEffect;
using AgentLoop::RuleOrigin;

class tst_PermissionsPage : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void rulesOfBothFilesAreListed();
    void addEditDeleteAndOkWriteTheFiles();
    void ruleThatDoesNotParseIsFlagged();
    void testShowsTheVerdictAndWhy();
    void readOnlySwitchReachesTheConfiguration();
    void recentDecisionsComeFromTheAuditTrail();
    void untrustedWorkspaceRulesAreShownAndTrustedOnlyOnRequest();

private:
    Gui::SettingsDialog *openDialog();
    Gui::PermissionsPage *page() const { return m_dialog->permissionsPage(); }
    QString cell(int row, int column) const
    {
        return page()->rulesTable()->item(row, column)->text();
    }
    QList<PermissionRule> fileRules(const QString &path, RuleOrigin origin) const;
    void clickOk();

    AgentLoop::TemporarySettings m_settings;
    QTemporaryDir m_workspace;
    std::unique_ptr<AgentLoop::AgentSession> m_session;
    std::unique_ptr<Gui::SettingsDialog> m_dialog;
};

void tst_PermissionsPage::initTestCase()
{
    // Qt's test mode: the app's rules file is the test's, never the user's.
    QVERIFY(AgentLoop::appRuleFilePath().contains(u"qttest"_s));
}

void tst_PermissionsPage::init()
{
    QFile::remove(AgentLoop::appRuleFilePath());
    QFile::remove(AgentLoop::workspaceRuleFilePath(m_workspace.path()));
    QFile::remove(Gui::AppSettings::settingsFilePath());
    QFile::remove(AgentLoop::trustedRuleFilePath());
    m_session = std::make_unique<AgentLoop::AgentSession>(
            nullptr,
            AgentLoop::ConversationStore(m_workspace.filePath(u"c"_s),
                                         m_workspace.filePath(u"o"_s)));
    AgentLoop::SessionConfiguration configuration;
    configuration.workspace = m_workspace.path();
    m_session->configure(configuration);
}

void tst_PermissionsPage::cleanup()
{
    m_dialog.reset();
    m_session.reset();
}

Gui::SettingsDialog *tst_PermissionsPage::openDialog()
{
    Gui::AppSettings settings;
    settings.demoMode = true;
    settings.workspace = m_workspace.path();
    m_dialog = std::make_unique<Gui::SettingsDialog>(settings, nullptr, nullptr, m_session.get());
    m_dialog->open();
    m_dialog->showPermissions();
    if (!QTest::qWaitForWindowExposed(m_dialog.get()))
        qWarning("the settings dialog was not exposed");
    return m_dialog.get();
}

QList<PermissionRule> tst_PermissionsPage::fileRules(const QString &path, RuleOrigin origin) const
{
    const auto rules = AgentLoop::readRuleFile(path, origin);
    return rules ? *rules : QList<PermissionRule>{};
}

void tst_PermissionsPage::clickOk()
{
    m_dialog->findChild<QDialogButtonBox *>(u"buttonBox"_s)->button(QDialogButtonBox::Ok)->click();
}

void tst_PermissionsPage::rulesOfBothFilesAreListed()
{
    QVERIFY(AgentLoop::writeRuleFile(AgentLoop::appRuleFilePath(),
                                     {{u"shell(git status)"_s, RuleEffect::Allow, RuleOrigin::App}}));
    QVERIFY(AgentLoop::writeRuleFile(AgentLoop::workspaceRuleFilePath(m_workspace.path()),
                                     {{u"shell(rm:*)"_s, RuleEffect::Deny, RuleOrigin::Workspace}}));
    openDialog();
    QTableWidget *table = page()->rulesTable();
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(cell(0, 0), u"Allow"_s);
    QCOMPARE(cell(0, 1), u"shell(git status)"_s);
    QCOMPARE(cell(0, 2), u"All workspaces"_s);
    QCOMPARE(cell(1, 0), u"Deny"_s);
    QCOMPARE(cell(1, 1), u"shell(rm:*)"_s);
    QCOMPARE(cell(1, 2), u"This workspace"_s);
}

void tst_PermissionsPage::addEditDeleteAndOkWriteTheFiles()
{
    QVERIFY(AgentLoop::writeRuleFile(AgentLoop::appRuleFilePath(),
                                     {{u"shell(ls)"_s, RuleEffect::Allow, RuleOrigin::App}}));
    openDialog();

    page()->findChild<QPushButton *>(u"addRuleButton"_s)->click();
    Gui::RuleEditDialog *editor = page()->ruleEditor();
    QVERIFY(editor);
    QTest::keyClicks(editor->textEdit(), u"shell(npm run test:*)"_s);
    editor->scopeCombo()->setCurrentIndex(1);  // this workspace
    editor->effectCombo()->setCurrentIndex(1); // ask
    editor->accept();
    QCOMPARE(page()->rulesTable()->rowCount(), 2);
    QCOMPARE(cell(1, 1), u"shell(npm run test:*)"_s);
    QCOMPARE(cell(1, 2), u"This workspace"_s);

    page()->selectRule(0);
    page()->findChild<QPushButton *>(u"editRuleButton"_s)->click();
    editor = page()->ruleEditor();
    QCOMPARE(editor->textEdit()->text(), u"shell(ls)"_s);
    editor->textEdit()->setText(u"shell(ls:*)"_s);
    editor->effectCombo()->setCurrentIndex(2); // deny
    editor->accept();
    QCOMPARE(cell(0, 0), u"Deny"_s);
    QCOMPARE(cell(0, 1), u"shell(ls:*)"_s);

    // Nothing is written before OK.
    QCOMPARE(fileRules(AgentLoop::appRuleFilePath(), RuleOrigin::App).first().text, u"shell(ls)"_s);
    clickOk();
    QVERIFY(!m_dialog->isVisible());
    QCOMPARE(fileRules(AgentLoop::appRuleFilePath(), RuleOrigin::App),
             (QList<PermissionRule>{{u"shell(ls:*)"_s, RuleEffect::Deny, RuleOrigin::App}}));
    const QString workspaceFile = AgentLoop::workspaceRuleFilePath(m_workspace.path());
    QCOMPARE(fileRules(workspaceFile, RuleOrigin::Workspace),
             (QList<PermissionRule>{
                     {u"shell(npm run test:*)"_s, RuleEffect::Ask, RuleOrigin::Workspace}}));
    // What the user saved here is the user's: trusted.
    QVERIFY(AgentLoop::loadWorkspaceRules(m_workspace.path()).isTrusted());

    openDialog();
    page()->selectRule(1);
    page()->findChild<QPushButton *>(u"deleteRuleButton"_s)->click();
    QCOMPARE(page()->rulesTable()->rowCount(), 1);
    clickOk();
    QVERIFY(fileRules(workspaceFile, RuleOrigin::Workspace).isEmpty());
    QCOMPARE(fileRules(AgentLoop::appRuleFilePath(), RuleOrigin::App).size(), 1);
}

void tst_PermissionsPage::ruleThatDoesNotParseIsFlagged()
{
    QVERIFY(AgentLoop::writeRuleFile(AgentLoop::appRuleFilePath(),
                                     {{u"shell(git status"_s, RuleEffect::Allow, RuleOrigin::App},
                                      {u"shell(pwd)"_s, RuleEffect::Allow, RuleOrigin::App}}));
    openDialog();
    const QString flagged = page()->rulesTable()->item(0, 1)->toolTip();
    QVERIFY2(flagged.contains(u"This rule does not parse; it denies every call of shell until "
                              u"fixed."_s),
             qPrintable(flagged));
    const auto parsed = AgentLoop::parseRuleText(u"shell(git status"_s);
    QVERIFY(!parsed);
    QVERIFY2(flagged.contains(parsed.error().message), qPrintable(flagged));
    QVERIFY(!page()->rulesTable()->item(0, 0)->icon().isNull());
    QVERIFY(page()->rulesTable()->item(1, 0)->icon().isNull());

    // The editor says so as it is typed, and takes no rule that does not parse.
    page()->addRule();
    Gui::RuleEditDialog *editor = page()->ruleEditor();
    editor->textEdit()->setText(u"shell(git status"_s);
    QCOMPARE(editor->errorText(), parsed.error().message);
    QVERIFY(!editor->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
    editor->textEdit()->setText(u"shell(git status)"_s);
    QVERIFY(editor->errorText().isEmpty());
    QVERIFY(editor->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
    editor->reject();
}

void tst_PermissionsPage::testShowsTheVerdictAndWhy()
{
    QVERIFY(AgentLoop::writeRuleFile(AgentLoop::appRuleFilePath(),
                                     {{u"shell(git diff:*)"_s, RuleEffect::Allow, RuleOrigin::App}}));
    openDialog();
    page()->testEdit()->setText(u"shell(git diff)"_s);
    QVERIFY2(page()->verdictText().startsWith(u"Allow — decided by shell(git diff:*)"_s),
             qPrintable(page()->verdictText()));

    // The allow rule covers `git diff`, not what follows it (`&&`: every shell splits there,
    // cmd.exe too, which runs the Windows build's tests).
    page()->testEdit()->setText(u"shell(git diff && rm -rf ~)"_s);
    QVERIFY2(page()->verdictText().startsWith(u"Ask"_s), qPrintable(page()->verdictText()));
    QVERIFY2(page()->explanationText().contains(u"rm -rf ~"_s),
             qPrintable(page()->explanationText()));

    // A deny rule added on the page decides at once, before anything is saved.
    page()->addRule();
    Gui::RuleEditDialog *editor = page()->ruleEditor();
    editor->textEdit()->setText(u"shell(rm:*)"_s);
    editor->effectCombo()->setCurrentIndex(2);
    editor->accept();
    QVERIFY2(page()->verdictText().startsWith(u"Deny — decided by shell(rm:*) (All workspaces)"_s),
             qPrintable(page()->verdictText()));
    QVERIFY(!page()->explanationText().isEmpty());

    page()->testEdit()->setText(u"shell(git diff"_s);
    const auto sample = AgentLoop::parseSampleCall(u"shell(git diff"_s,
                                                   m_session->controller().tools().snapshot().tools(),
                                                   AgentLoop::ShellSyntax::Posix);
    QVERIFY(!sample);
    QCOMPARE(page()->verdictText(), sample.error().message);
}

void tst_PermissionsPage::readOnlySwitchReachesTheConfiguration()
{
    openDialog();
    QSignalSpy applied(m_dialog.get(), &Gui::SettingsDialog::settingsApplied);
    QCheckBox *check = page()->readOnlyCheck();
    QVERIFY(!check->isChecked());
    for (const QString &rule : AgentLoop::PermissionPolicy::readOnlyCommandRules())
        QVERIFY(check->toolTip().contains(rule));
    check->setChecked(true);
    // The built-in rules are listed while they apply.
    const int builtIn = int(AgentLoop::PermissionPolicy::readOnlyCommandRules().size());
    QVERIFY(builtIn > 0);
    QCOMPARE(page()->rulesTable()->rowCount(), builtIn);
    QCOMPARE(cell(0, 2), u"Built-in"_s);
    page()->testEdit()->setText(u"shell(git status)"_s);
    QVERIFY2(page()->verdictText().startsWith(u"Allow"_s), qPrintable(page()->verdictText()));

    clickOk();
    QCOMPARE(applied.size(), 1);
    const auto settings = applied.first().first().value<Gui::AppSettings>();
    QVERIFY(settings.sessionConfiguration().permissionOptions.readOnlyCommands);
    QVERIFY(Gui::AppSettings::load(QProcessEnvironment(), m_workspace.path()).readOnlyCommands);
}

void tst_PermissionsPage::recentDecisionsComeFromTheAuditTrail()
{
    openDialog();
    QTableView *recent = page()->recentTable();
    QAbstractItemModelTester tester(recent->model());
    QCOMPARE(recent->model()->rowCount(), 0);
    emit m_session->auditRecorded(
            QJsonObject{{u"time"_s, u"2026-12-02T10:15:03.120Z"_s},
                        {u"turn"_s, 2},
                        {u"tool_call_id"_s, u"call_1"_s},
                        {u"tool"_s, u"shell"_s},
                        {u"arguments"_s, u"{\"command\":\"git diff\u202e\"}"_s},
                        {u"decision"_s, u"allow"_s},
                        {u"asked"_s, false},
                        {u"decided_by"_s, u"shell(git diff:*)"_s}});
    QCOMPARE(recent->model()->rowCount(), 1);
    const auto shown = [recent](int column) {
        return recent->model()->index(0, column).data().toString();
    };
    QCOMPARE(shown(Gui::AuditModel::ToolColumn), u"shell"_s);
    // The bidi control the model sent is shown as an escape.
    QCOMPARE(shown(Gui::AuditModel::WhatRanColumn), AgentLoop::displayedLine(u"git diff\u202e"_s));
    QCOMPARE(shown(Gui::AuditModel::DecisionColumn), u"Allow"_s);
    QCOMPARE(shown(Gui::AuditModel::DecidedByColumn), u"shell(git diff:*)"_s);

    // Double-clicking a call tests it against the rules as edited.
    QVERIFY(recent->isVisible());
    QTRY_VERIFY(recent->viewport()->rect().contains(
            recent->visualRect(recent->model()->index(0, Gui::AuditModel::ToolColumn)).center()));
    const QPoint point = recent->visualRect(recent->model()->index(0, Gui::AuditModel::ToolColumn))
                                 .center();
    // The press before the double click selects the row, as a user's first click does.
    QTest::mouseClick(recent->viewport(), Qt::LeftButton, {}, point);
    QTest::mouseDClick(recent->viewport(), Qt::LeftButton, {}, point);
    QCOMPARE(page()->testEdit()->text(), u"shell(git diff\u202e)"_s);
}

// A workspace file written outside Agent Loop (a cloned repository): its allow rule is listed but
// marked as not used, and only ticking "Trust" and OK makes the session use it. OK alone does not.
void tst_PermissionsPage::untrustedWorkspaceRulesAreShownAndTrustedOnlyOnRequest()
{
    const QString workspace = m_workspace.path();
    QVERIFY(AgentLoop::writeRuleFile(AgentLoop::workspaceRuleFilePath(workspace),
                                     {{u"shell"_s, RuleEffect::Allow, RuleOrigin::Workspace}}));
    openDialog();
    QVERIFY(page()->trustCheck()->isVisibleTo(page()));
    QVERIFY2(page()->rulesTable()->item(0, 1)->toolTip().contains(u"Not used"_s),
             qPrintable(page()->rulesTable()->item(0, 1)->toolTip()));
    QVERIFY2(page()->messageText().contains(u"changed outside Agent Loop"_s),
             qPrintable(page()->messageText()));
    clickOk();
    QVERIFY(!AgentLoop::loadWorkspaceRules(workspace).isTrusted());

    openDialog();
    page()->trustCheck()->setChecked(true);
    QVERIFY(!page()->messageText().contains(u"changed outside Agent Loop"_s));
    clickOk();
    QVERIFY(AgentLoop::loadWorkspaceRules(workspace).isTrusted());
    openDialog();
    QVERIFY(!page()->trustCheck()->isVisibleTo(page()));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_PermissionsPage)
#include "tst_permissionspage.moc"
