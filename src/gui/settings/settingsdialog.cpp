#include "settings/settingsdialog.h"

#include "ui_settingsdialog.h"

#include "agent/agentsession.h"
#include "base/displaytext.h"
#include "base/error.h"
#include "base/redaction.h"
#include "protocol/providerpresets.h"
#include "provider/chatclient.h"
#include "settings/contextpage.h"
#include "settings/mcppage.h"
#include "settings/permissionspage.h"
#include "storage/config.h"

#include <QAction>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QIconEngine>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QTimer>

using namespace Qt::StringLiterals;
using AgentLoop::AuthStyle;
using AgentLoop::KeyStore;
using AgentLoop::ProviderProfile;

namespace Gui {

namespace {

const char toneProperty[] = "agentloopTone";

// An eye (the key is hidden: show it) or a struck-out eye (the key is shown: hide it), drawn at
// whatever size and device pixel ratio is asked for, in the palette's text colour.
class EyeIconEngine final : public QIconEngine
{
public:
    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        const QPalette palette = QGuiApplication::palette();
        const QColor color = palette.color(mode == QIcon::Disabled ? QPalette::Disabled
                                                                   : QPalette::Active,
                                           QPalette::ButtonText);
        const qreal side = std::min(rect.width(), rect.height());
        const QRectF box(rect.x() + (rect.width() - side) / 2.0,
                         rect.y() + (rect.height() - side) / 2.0,
                         side,
                         side);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        QPen pen(color, std::max<qreal>(1.0, side / 14.0));
        pen.setCapStyle(Qt::RoundCap);
        painter->setPen(pen);
        painter->setBrush(Qt::NoBrush);
        const qreal left = box.left() + side * 0.08;
        const qreal right = box.right() - side * 0.08;
        const qreal middle = box.center().y();
        QPainterPath eye;
        eye.moveTo(left, middle);
        eye.quadTo(box.center().x(), box.top() + side * 0.12, right, middle);
        eye.quadTo(box.center().x(), box.bottom() - side * 0.12, left, middle);
        painter->drawPath(eye);
        painter->setBrush(color);
        painter->drawEllipse(box.center(), side * 0.13, side * 0.13);
        if (state == QIcon::On) {
            painter->drawLine(QPointF(box.left() + side * 0.15, box.bottom() - side * 0.12),
                              QPointF(box.right() - side * 0.15, box.top() + side * 0.12));
        }
        painter->restore();
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        QPixmap pixmap(size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        paint(&painter, QRect(QPoint(0, 0), size), mode, state);
        return pixmap;
    }

    QIconEngine *clone() const override { return new EyeIconEngine; }
};

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

// A model id from /models is shown escaped (bidi controls, invisible characters), and the item
// keeps the id itself, which is what the provider is asked for when it is picked.
QString modelIdOf(const QComboBox *combo)
{
    const int index = combo->currentIndex();
    if (index >= 0 && combo->currentText() == combo->itemText(index)
        && combo->itemData(index).isValid())
        return combo->itemData(index).toString();
    return combo->currentText();
}

// The spin box offers the range the setting is declared with (appsettings.h), at value.
void offer(QSpinBox *spin, const SettingSpec<int> &setting, int value)
{
    spin->setRange(setting.minimum, setting.maximum);
    spin->setValue(value);
}

} // namespace

SettingsDialog::SettingsDialog(const AppSettings &settings,
                               KeyStore *keyStore,
                               QWidget *parent,
                               const AgentLoop::AgentSession *session)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::SettingsDialog>())
    , m_initial(settings)
    , m_keyStore(keyStore)
    , m_check(new AgentLoop::CapabilityCheck(this))
    , m_presetMenu(new QMenu(this))
    , m_profiles(settings.allProfiles())
{
    m_ui->setupUi(this);
    m_permissions = new PermissionsPage(settings.workspace,
                                        settings.readOnlyCommands,
                                        session,
                                        this);
    m_ui->settingsTabs->addTab(m_permissions, tr("Permissions"));
    addContextPage(settings, session);
    m_mcp = new McpServersPage(settings.workspace, session ? &session->mcp() : nullptr, this);
    m_ui->settingsTabs->addTab(m_mcp, tr("MCP servers"));
    connect(m_mcp, &McpServersPage::serversChanged, this, &SettingsDialog::mcpServersChanged);
    setMinimumWidth(fontMetrics().averageCharWidth() * 72);
    resize(fontMetrics().averageCharWidth() * 96, height());

    m_showKeyAction = new QAction(QIcon(new EyeIconEngine), tr("Show the key"), this);
    m_showKeyAction->setCheckable(true);
    m_ui->showKeyButton->setDefaultAction(m_showKeyAction);
    connect(m_showKeyAction, &QAction::toggled, this, &SettingsDialog::setKeyVisible);
    setKeyVisible(false);

    m_keys.insert(QString::fromLatin1(ProviderProfile::defaultId), settings.apiKey);
    for (auto it = settings.profileKeys.cbegin(); it != settings.profileKeys.cend(); ++it)
        m_keys.insert(it.key(), it.value());
    for (const AuthStyle auth : {AuthStyle::Bearer, AuthStyle::ApiKeyHeader, AuthStyle::None})
        m_ui->authCombo->addItem({}, int(auth));
    m_ui->maxTokensSpin->setRange(0, 10'000'000);
    // The field names are the protocol's: never translated.
    for (const auto field :
         {AgentLoop::MaxTokensField::MaxTokens, AgentLoop::MaxTokensField::MaxCompletionTokens})
        m_ui->maxTokensFieldCombo->addItem(AgentLoop::maxTokensFieldName(field), int(field));
    m_ui->newProfileButton->setMenu(m_presetMenu);
    m_ui->newProfileButton->setPopupMode(QToolButton::InstantPopup);
    retranslateProfiles();

    m_ui->demoCheck->setChecked(settings.demoMode);
    offer(m_ui->maxTurnsSpin, SettingsFile::maxTurns, settings.maxTurns);
    offer(m_ui->timeoutSpin, SettingsFile::requestTimeoutSeconds, settings.requestTimeoutSeconds);
    offer(m_ui->retriesSpin, SettingsFile::maxRetries, settings.maxRetries);
    offer(m_ui->maxResponseSpin, SettingsFile::maxResponseMegabytes, settings.maxResponseMegabytes);
    offer(m_ui->maxAnswerTimeSpin, SettingsFile::maxAnswerMinutes, settings.maxAnswerMinutes);
    m_ui->workspaceEdit->setText(QDir::toNativeSeparators(settings.workspace));
    m_ui->plainTextCheck->setChecked(settings.storeKeyInPlainText);
    m_ui->testProgress->hide();
    m_ui->applySuggestionsButton->hide();

    showMessage(m_ui->testResult, {}, Tone::None);
    showMessage(m_ui->demoNote, m_ui->demoNote->text(), Tone::Note);
    showMessage(m_ui->streamNote, m_ui->streamNote->text(), Tone::Note);

    connect(m_ui->demoCheck, &QCheckBox::toggled, this, &SettingsDialog::validate);
    connect(m_ui->baseUrlEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->apiKeyEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    // A test result speaks of the values it was made with; it goes once they change.
    for (QLineEdit *edit : {m_ui->baseUrlEdit, m_ui->apiKeyEdit}) {
        connect(edit, &QLineEdit::textChanged, this, [this] {
            if (!m_testing) {
                showMessage(m_ui->testResult, {}, Tone::None);
                m_ui->applySuggestionsButton->hide();
            }
        });
    }
    connect(m_ui->modelCombo, &QComboBox::editTextChanged, this, &SettingsDialog::validate);
    connect(m_ui->authCombo, &QComboBox::currentIndexChanged, this, &SettingsDialog::validate);
    connect(m_ui->workspaceEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->workspaceEdit, &QLineEdit::textChanged, this, [this] {
        if (const QString workspace = this->settings().workspace; QFileInfo(workspace).isDir()) {
            m_permissions->setWorkspace(workspace);
            m_mcp->setWorkspace(workspace);
        }
    });
    connect(m_ui->plainTextCheck, &QCheckBox::toggled, this, &SettingsDialog::updateKeyStorage);
    connect(m_ui->browseButton, &QPushButton::clicked, this, &SettingsDialog::chooseWorkspace);
    connect(m_ui->testButton, &QPushButton::clicked, this, &SettingsDialog::testConnection);
    connect(m_ui->applySuggestionsButton,
            &QPushButton::clicked,
            this,
            &SettingsDialog::applySuggestions);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    connect(m_check, &AgentLoop::CapabilityCheck::progress, this, [this](const QString &step) {
        if (m_testing)
            showMessage(m_ui->testResult, AgentLoop::displayedLine(step, 300), Tone::Note);
    });
    connect(m_check,
            &AgentLoop::CapabilityCheck::finished,
            this,
            &SettingsDialog::showCapabilityReport);
    connect(m_ui->profileCombo, &QComboBox::currentIndexChanged, this, &SettingsDialog::showProfile);
    connect(m_ui->duplicateProfileButton,
            &QToolButton::clicked,
            this,
            &SettingsDialog::duplicateProfile);
    connect(m_ui->renameProfileButton, &QToolButton::clicked, this, &SettingsDialog::askForNewName);
    connect(m_ui->removeProfileButton,
            &QToolButton::clicked,
            this,
            &SettingsDialog::askToRemoveProfile);
    connect(m_ui->keyPageLabel, &QLabel::linkActivated, this, [](const QString &link) {
        QDesktopServices::openUrl(QUrl(link));
    });
    connect(m_ui->advancedToggle, &QToolButton::toggled, this, &SettingsDialog::setAdvancedVisible);

    if (m_keyStore) {
        connect(m_keyStore, &KeyStore::availabilityChanged, this, &SettingsDialog::updateKeyStorage);
        m_keyStore->checkAvailability();
    }
    fillProfileCombo();
    int current = 0;
    for (int i = 0; i < m_profiles.size(); ++i) {
        if (m_profiles.at(i).id == settings.currentProfile().id)
            current = i;
    }
    {
        const QSignalBlocker blocker(m_ui->profileCombo);
        m_ui->profileCombo->setCurrentIndex(current);
    }
    showProfile(current);
    // Open when the profile in use has something there the user changed.
    const ProviderProfile shown = m_profiles.at(current);
    setAdvancedVisible(shown.auth != AuthStyle::Bearer || !shown.extraHeaders.isEmpty()
                       || !shown.stream || !shown.streamUsage || shown.maxTokens > 0);
}

SettingsDialog::~SettingsDialog() = default;

AppSettings SettingsDialog::settings() const
{
    AppSettings settings = m_initial;
    settings.demoMode = m_ui->demoCheck->isChecked();
    settings.maxTurns = m_ui->maxTurnsSpin->value();
    settings.requestTimeoutSeconds = m_ui->timeoutSpin->value();
    settings.maxRetries = m_ui->retriesSpin->value();
    settings.maxResponseMegabytes = m_ui->maxResponseSpin->value();
    settings.maxAnswerMinutes = m_ui->maxAnswerTimeSpin->value();
    settings.storeKeyInPlainText = m_ui->plainTextCheck->isChecked();
    settings.readOnlyCommands = m_permissions->readOnlyCommands();
    m_context->apply(settings);
    const QString workspace = m_ui->workspaceEdit->text().trimmed();
    settings.workspace = workspace.isEmpty()
                                 ? QString()
                                 : QDir::cleanPath(QDir::fromNativeSeparators(workspace));

    const QList<ProviderProfile> edited = profiles();
    settings.profiles = edited.mid(1);
    settings.updateProfile(edited.first());
    settings.profileKeys.clear();
    for (auto it = m_keys.cbegin(); it != m_keys.cend(); ++it)
        settings.setKeyOf(it.key(), it.value().trimmed());
    const ProviderProfile shown = enteredProfile();
    const QString key = enteredKey();
    if (!key.isEmpty() || m_keys.contains(shown.id))
        settings.setKeyOf(shown.id, key);
    settings.currentProfileId = shown.isDefault() ? QString() : shown.id;
    return settings;
}

QList<ProviderProfile> SettingsDialog::profiles() const
{
    QList<ProviderProfile> profiles = m_profiles;
    if (m_shown >= 0 && m_shown < profiles.size())
        profiles[m_shown] = enteredProfile();
    return profiles;
}

QString SettingsDialog::selectedProfileId() const
{
    return m_shown >= 0 ? m_profiles.at(m_shown).id : QString();
}

void SettingsDialog::selectProfile(const QString &id)
{
    for (int i = 0; i < m_profiles.size(); ++i) {
        if (m_profiles.at(i).id == id)
            m_ui->profileCombo->setCurrentIndex(i);
    }
}

ProviderProfile SettingsDialog::enteredProfile() const
{
    ProviderProfile profile = m_shown >= 0 ? m_profiles.at(m_shown) : ProviderProfile{};
    profile.baseUrl = m_ui->baseUrlEdit->text().trimmed();
    profile.model = modelIdOf(m_ui->modelCombo).trimmed();
    profile.auth = AuthStyle(m_ui->authCombo->currentData().toInt());
    profile.extraHeaders = AgentLoop::parseExtraHeaders(m_ui->extraHeadersEdit->toPlainText());
    profile.stream = m_ui->streamCheck->isChecked();
    profile.streamUsage = m_ui->streamUsageCheck->isChecked();
    profile.maxTokens = m_ui->maxTokensSpin->value();
    profile.maxTokensField = AgentLoop::MaxTokensField(
            m_ui->maxTokensFieldCombo->currentData().toInt());
    return profile;
}

QString SettingsDialog::enteredKey() const
{
    return m_ui->apiKeyEdit->text().trimmed();
}

void SettingsDialog::storeFields()
{
    if (m_shown < 0 || m_shown >= m_profiles.size())
        return;
    const ProviderProfile profile = enteredProfile();
    m_profiles[m_shown] = profile;
    if (!enteredKey().isEmpty() || m_keys.contains(profile.id))
        m_keys.insert(profile.id, enteredKey());
}

void SettingsDialog::fillProfileCombo()
{
    const QSignalBlocker blocker(m_ui->profileCombo);
    m_ui->profileCombo->clear();
    for (const ProviderProfile &profile : std::as_const(m_profiles))
        m_ui->profileCombo->addItem(AgentLoop::displayedLine(profile.name, 100), profile.id);
    if (m_shown >= 0)
        m_ui->profileCombo->setCurrentIndex(m_shown);
}

// What the form (.ui) does not know: the auth styles, the presets, the default profile's name.
void SettingsDialog::retranslateProfiles()
{
    m_ui->authCombo->setItemText(0, tr("Bearer token (Authorization header)"));
    m_ui->authCombo->setItemText(1, tr("api-key header (Azure)"));
    m_ui->authCombo->setItemText(2, tr("None (a local server)"));
    m_ui->maxTokensSpin->setSpecialValueText(tr("Provider default"));
    if (!m_profiles.isEmpty())
        m_profiles.first().name = AppSettings().defaultProfile().name;
    fillPresetMenu();
}

void SettingsDialog::fillPresetMenu()
{
    m_presetMenu->clear();
    for (const AgentLoop::ProviderPreset &preset : AgentLoop::providerPresets()) {
        //: A preset in the "New from preset" menu: its name, then its base URL
        QString text = tr("%1 — %2").arg(preset.name, preset.baseUrl);
        if (preset.local) {
            text += u' ' + (preset.auth == AuthStyle::None ? tr("(local, no key)") : tr("(local)"));
        }
        QAction *action = m_presetMenu->addAction(text);
        action->setData(preset.id);
        const QString id = preset.id;
        connect(action, &QAction::triggered, this, [this, id] { addProfileFromPreset(id); });
    }
}

void SettingsDialog::showProfile(int index)
{
    if (index < 0 || index >= m_profiles.size())
        return;
    if (index != m_shown)
        storeFields();
    m_shown = index;
    const ProviderProfile profile = m_profiles.at(index);
    {
        const QSignalBlocker urlBlocker(m_ui->baseUrlEdit);
        const QSignalBlocker keyBlocker(m_ui->apiKeyEdit);
        const QSignalBlocker modelBlocker(m_ui->modelCombo);
        const QSignalBlocker authBlocker(m_ui->authCombo);
        m_ui->baseUrlEdit->setText(profile.baseUrl);
        m_ui->apiKeyEdit->setText(m_keys.value(profile.id));
        m_ui->modelCombo->clear();
        m_ui->modelCombo->setEditText(profile.model);
        m_ui->authCombo->setCurrentIndex(m_ui->authCombo->findData(int(profile.auth)));
        m_ui->extraHeadersEdit->setPlainText(AgentLoop::extraHeadersText(profile.extraHeaders));
        m_ui->streamCheck->setChecked(profile.stream);
        m_ui->streamUsageCheck->setChecked(profile.streamUsage);
        m_ui->maxTokensSpin->setValue(profile.maxTokens);
        m_ui->maxTokensFieldCombo->setCurrentIndex(
                m_ui->maxTokensFieldCombo->findData(int(profile.maxTokensField)));
    }
    m_context->setModel(profile.model);
    // The environment overrides only the default profile.
    const auto note = [&](const char *variable) {
        return profile.isDefault() ? m_initial.overrideNote(variable) : QString();
    };
    showMessage(m_ui->baseUrlNote, note(AgentLoop::baseUrlVariable), Tone::Note);
    showMessage(m_ui->apiKeyNote, note(AgentLoop::apiKeyVariable), Tone::Note);
    showMessage(m_ui->modelNote, note(AgentLoop::modelVariable), Tone::Note);
    showMessage(m_ui->testResult, {}, Tone::None);
    m_ui->applySuggestionsButton->hide();
    if (!m_keys.contains(profile.id))
        readKeyOf(profile.id);
    updateProfileButtons();
    updateKeyPage();
    validate();
}

void SettingsDialog::readKeyOf(const QString &profileId)
{
    if (!m_keyStore || m_ui->plainTextCheck->isChecked())
        return;
    KeyStore &store = AppSettings::keyStoreFor(*m_keyStore, profileId);
    connect(
            &store,
            &KeyStore::keyRead,
            this,
            [this, profileId](const QString &key) {
                if (m_keys.contains(profileId))
                    return; // typed meanwhile
                m_keys.insert(profileId, key);
                if (selectedProfileId() == profileId && enteredKey().isEmpty())
                    m_ui->apiKeyEdit->setText(key);
            },
            Qt::SingleShotConnection);
    store.readKey();
}

void SettingsDialog::updateProfileButtons()
{
    const bool isDefault = m_shown <= 0;
    m_ui->renameProfileButton->setEnabled(!isDefault);
    m_ui->removeProfileButton->setEnabled(!isDefault);
}

void SettingsDialog::updateKeyPage()
{
    const ProviderProfile profile = m_shown >= 0 ? m_profiles.at(m_shown) : ProviderProfile{};
    const AgentLoop::ProviderPreset preset = AgentLoop::providerPreset(profile.presetId);
    if (preset.keyPage.isEmpty()) {
        showMessage(m_ui->keyPageLabel, {}, Tone::None);
        return;
    }
    const QString url = preset.keyPage.toString(QUrl::FullyEncoded);
    const QString link = u"<a href=\"%1\">%2</a>"_s
                                 .arg(url.toHtmlEscaped(),
                                      preset.keyPage.toDisplayString().toHtmlEscaped());
    //: %1 is a link to the provider's page where keys are made
    showMessage(m_ui->keyPageLabel, tr("Get a key at %1").arg(link), Tone::None);
    m_ui->keyPageLabel->setToolTip(url);
}

QString SettingsDialog::addProfileFromPreset(const QString &presetId)
{
    const AgentLoop::ProviderPreset preset = AgentLoop::providerPreset(presetId);
    storeFields();
    const QList<ProviderProfile> existing = m_profiles;
    ProviderProfile profile;
    profile.id = AgentLoop::newProfileId(existing);
    profile.name = AgentLoop::uniqueProfileName(existing,
                                                preset.id.isEmpty() ? tr("Custom") : preset.name);
    profile.presetId = preset.id;
    profile.baseUrl = preset.baseUrl;
    profile.model = preset.model;
    profile.auth = preset.auth;
    profile.stream = preset.stream;
    profile.streamUsage = preset.streamUsage;
    profile.maxTokensField = preset.maxTokensField;
    m_profiles.append(profile);
    m_keys.insert(profile.id, QString());
    fillProfileCombo();
    m_ui->profileCombo->setCurrentIndex(int(m_profiles.size()) - 1);
    if (preset.needsEditing()) {
        m_ui->baseUrlEdit->setFocus();
        m_ui->baseUrlEdit->setSelection(int(preset.baseUrl.indexOf(u'<')),
                                        int(preset.baseUrl.indexOf(u'>')
                                            - preset.baseUrl.indexOf(u'<') + 1));
    } else if (profile.auth != AuthStyle::None) {
        m_ui->apiKeyEdit->setFocus();
    }
    return profile.id;
}

void SettingsDialog::duplicateProfile()
{
    storeFields();
    ProviderProfile copy = m_profiles.at(m_shown);
    const QString from = copy.id;
    copy.id = AgentLoop::newProfileId(m_profiles);
    //: The name of a duplicated profile: %1 is the original's
    copy.name = AgentLoop::uniqueProfileName(m_profiles, tr("%1 (copy)").arg(copy.name));
    m_profiles.append(copy);
    if (m_keys.contains(from))
        m_keys.insert(copy.id, m_keys.value(from));
    fillProfileCombo();
    m_ui->profileCombo->setCurrentIndex(int(m_profiles.size()) - 1);
}

void SettingsDialog::renameProfile(const QString &name)
{
    const QString trimmed = name.trimmed();
    if (m_shown <= 0 || trimmed.isEmpty())
        return;
    QList<ProviderProfile> others = m_profiles;
    others.removeAt(m_shown);
    m_profiles[m_shown].name = AgentLoop::uniqueProfileName(others, trimmed);
    fillProfileCombo();
}

void SettingsDialog::askForNewName()
{
    if (m_shown <= 0)
        return;
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Rename Profile"));
    dialog->setLabelText(tr("New name:"));
    dialog->setTextValue(m_profiles.at(m_shown).name);
    connect(dialog, &QInputDialog::textValueSelected, this, &SettingsDialog::renameProfile);
    dialog->open();
}

void SettingsDialog::removeProfile()
{
    if (m_shown <= 0)
        return;
    const int removed = m_shown;
    m_keys.remove(m_profiles.at(removed).id);
    m_profiles.removeAt(removed);
    m_shown = -1; // nothing of the removed one's fields is kept
    fillProfileCombo();
    m_ui->profileCombo->setCurrentIndex(removed - 1);
    showProfile(removed - 1);
}

void SettingsDialog::askToRemoveProfile()
{
    if (m_shown <= 0)
        return;
    auto *box = new QMessageBox(QMessageBox::Question,
                                tr("Remove Profile"),
                                tr("Remove the profile “%1” and its key?")
                                        .arg(AgentLoop::displayedLine(m_profiles.at(m_shown).name,
                                                                      100)),
                                QMessageBox::Yes | QMessageBox::Cancel,
                                this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    box->button(QMessageBox::Yes)->setText(tr("Remove"));
    connect(box->button(QMessageBox::Yes),
            &QPushButton::clicked,
            this,
            &SettingsDialog::removeProfile);
    box->open();
}

void SettingsDialog::setAdvancedVisible(bool visible)
{
    {
        const QSignalBlocker blocker(m_ui->advancedToggle);
        m_ui->advancedToggle->setChecked(visible);
    }
    m_ui->advancedToggle->setArrowType(visible ? Qt::DownArrow : Qt::RightArrow);
    m_ui->advancedPanel->setVisible(visible);
    scheduleFit();
}

void SettingsDialog::validate()
{
    const AppSettings entered = settings();
    const ProviderProfile profile = enteredProfile();
    const bool demo = entered.demoMode;
    m_ui->providerGroup->setEnabled(!demo);

    const QString baseUrl = profile.baseUrl;
    QString baseUrlProblem;
    Tone baseUrlTone = Tone::None;
    if (!baseUrl.isEmpty()) {
        // A preset's <resource> and <deployment> are for the user to fill in.
        baseUrlProblem = baseUrl.contains(u'<') || baseUrl.contains(u'>')
                                 ? tr("Replace the parts in <angle brackets> of the base URL with "
                                      "your own values.")
                                 : AgentLoop::baseUrlError(baseUrl);
        baseUrlTone = Tone::Error;
        if (baseUrlProblem.isEmpty()) {
            baseUrlProblem = AgentLoop::baseUrlWarning(baseUrl);
            baseUrlTone = Tone::Warning;
        }
    }
    m_ui->baseUrlMessage->setTextFormat(Qt::PlainText);
    showMessage(m_ui->baseUrlMessage, baseUrlProblem, baseUrlTone);
    const bool baseUrlValid = !baseUrl.isEmpty() && baseUrlTone != Tone::Error;

    const bool needsKey = profile.auth != AuthStyle::None;
    m_ui->apiKeyEdit->setEnabled(needsKey);
    QStringList missing;
    if (baseUrl.isEmpty())
        missing << QString::fromLatin1(AgentLoop::baseUrlVariable);
    if (needsKey && enteredKey().isEmpty())
        missing << QString::fromLatin1(AgentLoop::apiKeyVariable);
    if (profile.model.isEmpty() || profile.model.contains(u'<'))
        missing << QString::fromLatin1(AgentLoop::modelVariable);
    QString missingText;
    if (!missing.isEmpty() && !demo) {
        // Word for word the core's message (config.cpp, same translation context), so that the
        // dialog, the CLI and the docs name a missing setting the same way.
        missingText = QCoreApplication::translate("Config", "Missing required settings: %1")
                              .arg(missing.join(u", "_s));
    }
    showMessage(m_ui->summaryLabel, missingText, Tone::Error);

    QString workspaceProblem;
    if (entered.workspace.isEmpty())
        workspaceProblem = tr("Choose the folder the agent works in.");
    else if (!QFileInfo(entered.workspace).isDir())
        workspaceProblem = tr("The folder %1 does not exist.")
                                   .arg(QDir::toNativeSeparators(entered.workspace));
    showMessage(m_ui->workspaceMessage, workspaceProblem, Tone::Error);

    m_valid = workspaceProblem.isEmpty() && (demo || (missing.isEmpty() && baseUrlValid));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(m_valid);
    m_ui->testButton->setEnabled(!demo && baseUrlValid && !m_testing);
    updateKeyStorage();
}

void SettingsDialog::updateKeyStorage()
{
    const AppSettings entered = settings();
    const QString settingsFile = QDir::toNativeSeparators(AppSettings::settingsFilePath());
    const KeyStore::Availability availability = m_keyStore ? m_keyStore->availability()
                                                           : KeyStore::Availability::Unavailable;
    const bool plainText = entered.storeKeyInPlainText;
    // A key larger than the store keeps (Credential Manager: 2560 bytes) would be kept for this
    // session only: said before OK, not after.
    const QString refusal = m_keyStore && !plainText ? m_keyStore->refusalOf(enteredKey())
                                                     : QString();

    // Plain text is offered only when there is no safe place: with a working credential store it
    // would only add a copy of the key that backups, synced dotfiles and screenshots can leak.
    const bool offerPlainText = plainText || availability == KeyStore::Availability::Unavailable
                                || !refusal.isEmpty();
    m_ui->plainTextCheck->setEnabled(offerPlainText);

    QString location;
    QString details;
    if (enteredProfile().isDefault()
        && entered.isInherited(AgentLoop::apiKeyVariable, entered.apiKey)) {
        location = tr("Key storage: not stored; %1 supplies it at every start.")
                           .arg(QString::fromLatin1(AgentLoop::apiKeyVariable));
    } else if (plainText) {
        location = tr("Key storage: Settings file (plain text)");
        details = settingsFile;
    } else if (!refusal.isEmpty()) {
        location = tr("Key storage: %1").arg(refusal);
    } else if (availability == KeyStore::Availability::Available) {
        location = tr("Key storage: System credential store");
    } else if (availability == KeyStore::Availability::Unavailable) {
        location = tr("Key storage: This session only — no credential store is reachable");
        details = m_keyStore ? m_keyStore->unavailableReason() : QString();
    } else {
        location = tr("Key storage: checking the system credential store…");
    }
    showMessage(m_ui->keyLocationLabel, location, refusal.isEmpty() ? Tone::Note : Tone::Warning);
    m_ui->keyLocationLabel->setToolTip(details);

    if (offerPlainText) {
        showMessage(m_ui->plainTextWarning,
                    tr("Warning: anyone who can read %1 can read the key. Use it only on a "
                       "machine you trust.")
                            .arg(settingsFile),
                    Tone::Warning);
    } else if (availability == KeyStore::Availability::Available) {
        showMessage(m_ui->plainTextWarning,
                    tr("Not needed: the system credential store keeps the key safe."),
                    Tone::Note);
    } else {
        showMessage(m_ui->plainTextWarning, {}, Tone::None);
    }
}

void SettingsDialog::setKeyVisible(bool visible)
{
    m_ui->apiKeyEdit->setEchoMode(visible ? QLineEdit::Normal : QLineEdit::Password);
    const QString text = visible ? tr("Hide the key") : tr("Show the key");
    m_showKeyAction->setText(text);
    m_showKeyAction->setToolTip(text);
    m_ui->showKeyButton->setAccessibleName(text);
}

void SettingsDialog::chooseWorkspace()
{
    auto *dialog = new QFileDialog(this,
                                   tr("Choose the workspace folder"),
                                   QDir::fromNativeSeparators(
                                           m_ui->workspaceEdit->text().trimmed()));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &folder) {
        m_ui->workspaceEdit->setText(QDir::toNativeSeparators(folder));
    });
    dialog->open();
}

void SettingsDialog::testConnection()
{
    const AppSettings entered = settings();
    if (entered.demoMode || !m_ui->testButton->isEnabled())
        return;
    AgentLoop::ProviderSettings shared;
    shared.requestTimeout = std::chrono::seconds(entered.requestTimeoutSeconds);
    shared.maxResponseBytes = qint64(entered.maxResponseMegabytes) * 1024 * 1024;
    shared.maxAnswerTime = std::chrono::minutes(entered.maxAnswerMinutes);
    shared.retry.maxRetries = 0; // a test says what is, at once
    const AgentLoop::ProviderSettings provider = enteredProfile().settings(enteredKey(), shared);

    m_testing = true;
    m_ui->testButton->setEnabled(false);
    m_ui->applySuggestionsButton->hide();
    m_ui->testProgress->show();
    showMessage(m_ui->testResult,
                tr("Testing %1…")
                        .arg(AgentLoop::ChatClient::endpoint(provider.baseUrl, {}).toDisplayString()),
                Tone::Note);
    m_check->start(provider);
}

void SettingsDialog::showCapabilityReport(const AgentLoop::CapabilityReport &report)
{
    m_report = report;
    const QString key = enteredKey();
    AgentLoop::DisplayOptions shown;
    shown.maxLength = 2000;
    QStringList lines;
    for (const AgentLoop::CapabilityFinding &finding : report.findings) {
        const QString mark = finding.outcome == AgentLoop::CapabilityFinding::Yes  ? u"✓"_s
                             : finding.outcome == AgentLoop::CapabilityFinding::No ? u"✗"_s
                                                                                   : u"?"_s;
        QString line = mark + u' ' + AgentLoop::displayedLine(finding.summary, 300);
        if (!finding.detail.isEmpty()) {
            // The provider's own words: escaped, without the key, indented under the summary.
            QString detail = AgentLoop::displayed(AgentLoop::redacted(finding.detail, key), shown);
            line += u"\n    "_s + detail.replace(u'\n', u"\n    "_s);
        }
        lines << line;
    }
    const bool errorShown = report.error
                            && std::any_of(report.findings.cbegin(),
                                           report.findings.cend(),
                                           [&](const AgentLoop::CapabilityFinding &finding) {
                                               return finding.detail == report.error->toString();
                                           });
    if (report.error && !errorShown)
        lines << AgentLoop::displayed(AgentLoop::redacted(report.error->toString(), key), shown);

    if (!report.models.isEmpty()) {
        const QString typed = modelIdOf(m_ui->modelCombo);
        const QSignalBlocker blocker(m_ui->modelCombo);
        m_ui->modelCombo->clear();
        for (const QString &model : report.models)
            m_ui->modelCombo->addItem(AgentLoop::displayedLine(model, 200), model);
        if (const int index = m_ui->modelCombo->findData(typed); index >= 0)
            m_ui->modelCombo->setCurrentIndex(index);
        else
            m_ui->modelCombo->setEditText(typed);
        // Two sources rather than %n: English has no catalogue to pick a plural form from.
        lines << (report.models.size() == 1 ? tr("1 model listed")
                                            : tr("%1 models listed").arg(report.models.size()));
    }
    m_ui->applySuggestionsButton->setVisible(report.hasSuggestions());
    finishTest(report.ok, lines.join(u'\n'));
}

void SettingsDialog::takeSwitches(const AgentLoop::ProviderProfile &learned)
{
    for (qsizetype index = 0; index < m_profiles.size(); ++index) {
        AgentLoop::ProviderProfile &profile = m_profiles[index];
        if (profile.id != learned.id)
            continue;
        profile.stream = profile.stream && learned.stream;
        profile.streamUsage = profile.streamUsage && learned.streamUsage;
        if (index == m_shown) {
            m_ui->streamCheck->setChecked(m_ui->streamCheck->isChecked() && learned.stream);
            m_ui->streamUsageCheck->setChecked(m_ui->streamUsageCheck->isChecked()
                                               && learned.streamUsage);
        }
    }
}

void SettingsDialog::applySuggestions()
{
    if (m_report.suggestedStream)
        m_ui->streamCheck->setChecked(*m_report.suggestedStream);
    if (m_report.suggestedStreamUsage)
        m_ui->streamUsageCheck->setChecked(*m_report.suggestedStreamUsage);
    m_ui->applySuggestionsButton->hide();
    setAdvancedVisible(true);
    validate();
}

void SettingsDialog::finishTest(bool ok, const QString &message)
{
    m_testing = false;
    m_ui->testProgress->hide();
    m_ui->testResult->setTextFormat(Qt::PlainText); // a provider's "<b>" is no markup here
    showMessage(m_ui->testResult, message, ok ? Tone::Success : Tone::Error);
    validate();
    emit connectionTested(ok, message);
}

void SettingsDialog::accept()
{
    validate();
    if (!m_valid)
        return;
    if (!m_permissions->save()) {
        showPermissions();
        return;
    }
    const AppSettings chosen = settings();
    if (m_keyStore)
        chosen.save(*m_keyStore);
    else
        chosen.save();
    emit settingsApplied(chosen);
    QDialog::accept();
}

// The Context tab edits the window of the model entered on the first tab, whichever it is.
void SettingsDialog::addContextPage(const AppSettings &settings,
                                    const AgentLoop::AgentSession *session)
{
    m_context = new ContextPage(settings, session, this);
    m_ui->settingsTabs->addTab(m_context, tr("Context"));
    // The combo's text is the id as shown (control characters made visible): the id is its data.
    connect(m_ui->modelCombo, &QComboBox::editTextChanged, m_context, [this] {
        m_context->setModel(modelIdOf(m_ui->modelCombo));
    });
}

void SettingsDialog::showPermissions()
{
    m_ui->settingsTabs->setCurrentWidget(m_permissions);
}

void SettingsDialog::showMcpServers()
{
    m_ui->settingsTabs->setCurrentWidget(m_mcp);
}

void SettingsDialog::done(int result)
{
    if (m_testing) {
        m_check->cancel();
        m_testing = false;
        m_ui->testProgress->hide();
    }
    QDialog::done(result);
}

void SettingsDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::LanguageChange) {
        m_ui->retranslateUi(this);
        m_ui->settingsTabs->setTabText(m_ui->settingsTabs->indexOf(m_permissions),
                                       tr("Permissions"));
        m_ui->settingsTabs->setTabText(m_ui->settingsTabs->indexOf(m_context), tr("Context"));
        m_ui->settingsTabs->setTabText(m_ui->settingsTabs->indexOf(m_mcp), tr("MCP servers"));
        retranslateProfiles();
        fillProfileCombo();
        updateKeyPage();
        setKeyVisible(m_showKeyAction->isChecked());
        validate();
    } else if (event->type() == QEvent::PaletteChange) {
        for (QLabel *label : findChildren<QLabel *>()) {
            if (label->property(toneProperty).isValid())
                applyTone(label);
        }
    }
}

void SettingsDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    scheduleFit();
}

void SettingsDialog::showMessage(QLabel *label, const QString &text, Tone tone)
{
    if (label->text() != text || label->isVisibleTo(this) == text.isEmpty())
        scheduleFit();
    label->setText(text);
    label->setVisible(!text.isEmpty());
    label->setProperty(toneProperty, int(tone));
    applyTone(label);
}

void SettingsDialog::scheduleFit()
{
    if (m_fitPending)
        return;
    m_fitPending = true;
    QTimer::singleShot(0, this, [this] {
        m_fitPending = false;
        fitToContents();
    });
}

// A window's minimum size ignores height-for-width, so wrapped messages that appear after the
// first show would be squeezed: give the dialog the height its layout needs at its width.
void SettingsDialog::fitToContents()
{
    if (!isVisible() || !layout())
        return;
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width())
                                                     : layout()->totalSizeHint().height();
    if (height() != needed)
        resize(width(), needed);
}

void SettingsDialog::applyTone(QLabel *label)
{
    const auto tone = Tone(label->property(toneProperty).toInt());
    const QPalette base = palette();
    const bool dark = isDark(base);
    QColor color = base.color(QPalette::WindowText);
    switch (tone) {
    case Tone::Error:
        color = dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
        break;
    case Tone::Warning:
        color = dark ? QColor(0xff, 0xcc, 0x66) : QColor(0x8a, 0x52, 0x00);
        break;
    case Tone::Success:
        color = dark ? QColor(0x81, 0xc9, 0x95) : QColor(0x1e, 0x7b, 0x34);
        break;
    case Tone::Note:
        color = base.color(QPalette::PlaceholderText);
        break;
    case Tone::None:
        break;
    }
    QPalette palette = label->palette();
    palette.setColor(QPalette::Active, QPalette::WindowText, color);
    palette.setColor(QPalette::Inactive, QPalette::WindowText, color);
    label->setPalette(palette);
}

} // namespace Gui
