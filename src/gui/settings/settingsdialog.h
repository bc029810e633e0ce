#pragma once

#include "provider/capabilitycheck.h"
#include "settings/appsettings.h"
#include "storage/keystore.h"
#include "storage/providerprofiles.h"

#include <QDialog>
#include <QPointer>

#include <memory>

class QAction;
class QLabel;

class QMenu;

namespace AgentLoop {
class AgentSession;
}

namespace Ui {
class SettingsDialog;
}

namespace Gui {

class ContextPage;
class McpServersPage;
class PermissionsPage;

// The settings form (ui/settingsdialog.ui). Open it with open(); it never blocks.
//
// Validation is inline and uses the core's rules and messages (AgentLoop::baseUrlError() in red,
// baseUrlWarning() in amber, "Missing required settings: ..." as loadConfig() says it); OK stays
// disabled while the entries are invalid. The demo needs nothing but an existing workspace.
//
// The provider section edits one profile at a time, chosen at its top (new ones from a preset,
// duplicated, renamed, removed); the profile selected on OK is the one used from then on. Each
// profile's key is read from its own store entry when the profile is first selected.
//
// A second tab, Permissions (PermissionsPage), edits the permission rules of every workspace and
// of the one entered, with a test of a sample call and the recent decisions of session's
// conversation (none: no session to take them from). A third, Context (ContextPage), edits the
// context window of the model entered and how the conversation is compacted. A fourth, MCP
// servers (McpServersPage), lists the servers of the app and of the workspace entered with the
// session's states; it saves its changes at once (mcpServersChanged()), not on OK.
//
// OK saves: the rules files that changed (an error keeps the dialog open on the Permissions tab,
// with the edits), every field to the settings file and the key to keyStore (AppSettings::save()),
// then settingsApplied() carries the new settings. keyStore may be null: the key is then kept for
// this session only (in the AppSettings the caller holds).
class SettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    SettingsDialog(const AppSettings &settings,
                   AgentLoop::KeyStore *keyStore,
                   QWidget *parent = nullptr,
                   const AgentLoop::AgentSession *session = nullptr);
    ~SettingsDialog() override;

    // The entries as they are now, with the environment bookkeeping of the settings it opened with.
    AppSettings settings() const;
    bool isValid() const { return m_valid; }
    bool isTestingConnection() const { return m_testing; }

    // The capability check (CapabilityCheck) with the entered values, asynchronously; shows its
    // findings and fills the model list.
    void testConnection();
    // What a finished check shows: a line per finding, the models, the suggestions' button.
    void showCapabilityReport(const AgentLoop::CapabilityReport &report);

    // The profiles as edited so far, the default one first, and the selected one's id.
    QList<AgentLoop::ProviderProfile> profiles() const;
    QString selectedProfileId() const;
    void selectProfile(const QString &id);
    // A new profile from the preset with this id, selected; its id.
    QString addProfileFromPreset(const QString &presetId);
    void duplicateProfile();
    void renameProfile(const QString &name);
    // Removes the selected profile at once (the Remove button asks first); not the default one.
    void removeProfile();
    // A run learned a profile's switches (a field its provider refused) while the dialog is open:
    // they are taken in, so that OK does not undo them.
    void takeSwitches(const AgentLoop::ProviderProfile &learned);
    // The "New from preset…" menu.
    QMenu *presetMenu() const { return m_presetMenu; }
    PermissionsPage *permissionsPage() const { return m_permissions; }
    ContextPage *contextPage() const { return m_context; }
    McpServersPage *mcpPage() const { return m_mcp; }
    // Shows the Permissions tab.
    void showPermissions();
    // Shows the MCP servers tab.
    void showMcpServers();

    void accept() override;
    void done(int result) override;

signals:
    void settingsApplied(const Gui::AppSettings &settings);
    // The MCP servers page saved a change (it does so at once, OK or not): the session's servers
    // are to be set anew.
    void mcpServersChanged();
    // The connection test ended; message is what the dialog shows.
    void connectionTested(bool ok, const QString &message);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    enum class Tone { None, Error, Warning, Success, Note };

    void addContextPage(const AppSettings &settings, const AgentLoop::AgentSession *session);
    void validate();
    void updateKeyStorage();
    void chooseWorkspace();
    void setKeyVisible(bool visible);
    void finishTest(bool ok, const QString &message);
    void retranslateProfiles();
    void fillPresetMenu();
    void fillProfileCombo();
    void showProfile(int index);
    void storeFields();
    AgentLoop::ProviderProfile enteredProfile() const;
    QString enteredKey() const;
    void readKeyOf(const QString &profileId);
    void updateProfileButtons();
    void updateKeyPage();
    void askToRemoveProfile();
    void askForNewName();
    void applySuggestions();
    void setAdvancedVisible(bool visible);
    void showMessage(QLabel *label, const QString &text, Tone tone);
    void applyTone(QLabel *label);
    void scheduleFit();
    void fitToContents();

    std::unique_ptr<Ui::SettingsDialog> m_ui;
    AppSettings m_initial;
    QPointer<AgentLoop::KeyStore> m_keyStore;
    AgentLoop::CapabilityCheck *m_check = nullptr;
    AgentLoop::CapabilityReport m_report;
    QAction *m_showKeyAction = nullptr;
    QMenu *m_presetMenu = nullptr;
    PermissionsPage *m_permissions = nullptr;
    ContextPage *m_context = nullptr;
    McpServersPage *m_mcp = nullptr;
    // Every profile, the default one first; the one shown in the fields is m_shown (its entries
    // there are newer than its copy here until storeFields()).
    QList<AgentLoop::ProviderProfile> m_profiles;
    int m_shown = -1;
    // The keys known so far, by profile id: read from the store, typed, or new (empty). A
    // profile whose key was never read keeps its stored one.
    QHash<QString, QString> m_keys;
    bool m_valid = false;
    bool m_testing = false;
    bool m_fitPending = false;
};

} // namespace Gui
