#pragma once

#include "settings/appsettings.h"
#include "storage/keystore.h"

#include <QDialog>
#include <QPointer>

#include <memory>

class QAction;
class QLabel;

namespace AgentLoop {
class ChatClient;
struct Error;
} // namespace AgentLoop

namespace Ui {
class SettingsDialog;
}

namespace Gui {

// The settings form (ui/settingsdialog.ui). Open it with open(); it never blocks.
//
// Validation is inline and uses the core's rules and messages (AgentLoop::baseUrlError() in red,
// baseUrlWarning() in amber, "Missing required settings: ..." as loadConfig() says it); OK stays
// disabled while the entries are invalid. The demo needs nothing but an existing workspace.
//
// OK saves: every field to the settings file and the key to keyStore (AppSettings::save()), then
// settingsApplied() carries the new settings. keyStore may be null: the key is then kept for this
// session only (in the AppSettings the caller holds).
class SettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    SettingsDialog(const AppSettings &settings,
                   AgentLoop::KeyStore *keyStore,
                   QWidget *parent = nullptr);
    ~SettingsDialog() override;

    // The entries as they are now, with the environment bookkeeping of the settings it opened with.
    AppSettings settings() const;
    bool isValid() const { return m_valid; }
    bool isTestingConnection() const { return m_testing; }

    // GET {base URL}/models with the entered values, asynchronously; fills the model list.
    void testConnection();

    void accept() override;
    void done(int result) override;

signals:
    void settingsApplied(const Gui::AppSettings &settings);
    // The connection test ended; message is what the dialog shows.
    void connectionTested(bool ok, const QString &message);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    enum class Tone { None, Error, Warning, Success, Note };

    void validate();
    void updateKeyStorage();
    void chooseWorkspace();
    void setKeyVisible(bool visible);
    void onModelsListed(const QStringList &models);
    void onModelsFailed(const AgentLoop::Error &error);
    void finishTest(bool ok, const QString &message);
    void showMessage(QLabel *label, const QString &text, Tone tone);
    void applyTone(QLabel *label);
    void scheduleFit();
    void fitToContents();

    std::unique_ptr<Ui::SettingsDialog> m_ui;
    AppSettings m_initial;
    QPointer<AgentLoop::KeyStore> m_keyStore;
    AgentLoop::ChatClient *m_client = nullptr;
    QAction *m_showKeyAction = nullptr;
    bool m_valid = false;
    bool m_testing = false;
    bool m_fitPending = false;
};

} // namespace Gui
