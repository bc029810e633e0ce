#include "settings/settingsdialog.h"

#include "ui_settingsdialog.h"

#include "provider/chatclient.h"
#include "storage/config.h"
#include "base/displaytext.h"
#include "base/error.h"
#include "base/redaction.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QIconEngine>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QTimer>

using namespace Qt::StringLiterals;
using AgentLoop::KeyStore;

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

SettingsDialog::SettingsDialog(const AppSettings &settings, KeyStore *keyStore, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::SettingsDialog>())
    , m_initial(settings)
    , m_keyStore(keyStore)
    , m_client(new AgentLoop::ChatClient(this))
{
    m_ui->setupUi(this);
    setMinimumWidth(fontMetrics().averageCharWidth() * 72);
    resize(fontMetrics().averageCharWidth() * 96, height());

    m_showKeyAction = new QAction(QIcon(new EyeIconEngine), tr("Show the key"), this);
    m_showKeyAction->setCheckable(true);
    m_ui->showKeyButton->setDefaultAction(m_showKeyAction);
    connect(m_showKeyAction, &QAction::toggled, this, &SettingsDialog::setKeyVisible);
    setKeyVisible(false);

    m_ui->demoCheck->setChecked(settings.demoMode);
    m_ui->baseUrlEdit->setText(settings.baseUrl);
    m_ui->apiKeyEdit->setText(settings.apiKey);
    m_ui->modelCombo->setEditText(settings.model);
    offer(m_ui->maxTurnsSpin, SettingsFile::maxTurns, settings.maxTurns);
    offer(m_ui->timeoutSpin, SettingsFile::requestTimeoutSeconds, settings.requestTimeoutSeconds);
    offer(m_ui->retriesSpin, SettingsFile::maxRetries, settings.maxRetries);
    offer(m_ui->maxResponseSpin, SettingsFile::maxResponseMegabytes, settings.maxResponseMegabytes);
    offer(m_ui->maxAnswerTimeSpin, SettingsFile::maxAnswerMinutes, settings.maxAnswerMinutes);
    m_ui->streamCheck->setChecked(settings.stream);
    m_ui->workspaceEdit->setText(QDir::toNativeSeparators(settings.workspace));
    m_ui->plainTextCheck->setChecked(settings.storeKeyInPlainText);
    m_ui->testProgress->hide();

    showMessage(m_ui->baseUrlNote, settings.overrideNote(AgentLoop::baseUrlVariable), Tone::Note);
    showMessage(m_ui->apiKeyNote, settings.overrideNote(AgentLoop::apiKeyVariable), Tone::Note);
    showMessage(m_ui->modelNote, settings.overrideNote(AgentLoop::modelVariable), Tone::Note);
    showMessage(m_ui->testResult, {}, Tone::None);
    showMessage(m_ui->demoNote, m_ui->demoNote->text(), Tone::Note);
    showMessage(m_ui->streamNote, m_ui->streamNote->text(), Tone::Note);

    connect(m_ui->demoCheck, &QCheckBox::toggled, this, &SettingsDialog::validate);
    connect(m_ui->baseUrlEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->apiKeyEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    // A test result speaks of the values it was made with; it goes once they change.
    for (QLineEdit *edit : {m_ui->baseUrlEdit, m_ui->apiKeyEdit}) {
        connect(edit, &QLineEdit::textChanged, this, [this] {
            if (!m_testing)
                showMessage(m_ui->testResult, {}, Tone::None);
        });
    }
    connect(m_ui->modelCombo, &QComboBox::editTextChanged, this, &SettingsDialog::validate);
    connect(m_ui->workspaceEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->plainTextCheck, &QCheckBox::toggled, this, &SettingsDialog::updateKeyStorage);
    connect(m_ui->browseButton, &QPushButton::clicked, this, &SettingsDialog::chooseWorkspace);
    connect(m_ui->testButton, &QPushButton::clicked, this, &SettingsDialog::testConnection);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    connect(m_client, &AgentLoop::ChatClient::modelsListed, this, &SettingsDialog::onModelsListed);
    connect(m_client, &AgentLoop::ChatClient::modelsFailed, this, &SettingsDialog::onModelsFailed);

    if (m_keyStore) {
        connect(m_keyStore, &KeyStore::availabilityChanged, this, &SettingsDialog::updateKeyStorage);
        m_keyStore->checkAvailability();
    }
    validate();
}

SettingsDialog::~SettingsDialog() = default;

AppSettings SettingsDialog::settings() const
{
    AppSettings settings = m_initial;
    settings.demoMode = m_ui->demoCheck->isChecked();
    settings.baseUrl = m_ui->baseUrlEdit->text().trimmed();
    settings.apiKey = m_ui->apiKeyEdit->text().trimmed();
    settings.model = modelIdOf(m_ui->modelCombo).trimmed();
    settings.maxTurns = m_ui->maxTurnsSpin->value();
    settings.requestTimeoutSeconds = m_ui->timeoutSpin->value();
    settings.maxRetries = m_ui->retriesSpin->value();
    settings.maxResponseMegabytes = m_ui->maxResponseSpin->value();
    settings.maxAnswerMinutes = m_ui->maxAnswerTimeSpin->value();
    settings.stream = m_ui->streamCheck->isChecked();
    settings.storeKeyInPlainText = m_ui->plainTextCheck->isChecked();
    const QString workspace = m_ui->workspaceEdit->text().trimmed();
    settings.workspace = workspace.isEmpty()
                                 ? QString()
                                 : QDir::cleanPath(QDir::fromNativeSeparators(workspace));
    return settings;
}

void SettingsDialog::validate()
{
    const AppSettings entered = settings();
    const bool demo = entered.demoMode;
    m_ui->providerGroup->setEnabled(!demo);

    QString baseUrlProblem;
    Tone baseUrlTone = Tone::None;
    if (!entered.baseUrl.isEmpty()) {
        baseUrlProblem = AgentLoop::baseUrlError(entered.baseUrl);
        baseUrlTone = Tone::Error;
        if (baseUrlProblem.isEmpty()) {
            baseUrlProblem = AgentLoop::baseUrlWarning(entered.baseUrl);
            baseUrlTone = Tone::Warning;
        }
    }
    showMessage(m_ui->baseUrlMessage, baseUrlProblem, baseUrlTone);
    const bool baseUrlValid = !entered.baseUrl.isEmpty()
                              && AgentLoop::baseUrlError(entered.baseUrl).isEmpty();

    QStringList missing;
    if (entered.baseUrl.isEmpty())
        missing << QString::fromLatin1(AgentLoop::baseUrlVariable);
    if (entered.apiKey.isEmpty())
        missing << QString::fromLatin1(AgentLoop::apiKeyVariable);
    if (entered.model.isEmpty())
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

    // Plain text is offered only when there is no safe place: with a working credential store it
    // would only add a copy of the key that backups, synced dotfiles and screenshots can leak.
    const bool offerPlainText = plainText || availability == KeyStore::Availability::Unavailable;
    m_ui->plainTextCheck->setEnabled(offerPlainText);

    QString location;
    QString details;
    if (entered.isInherited(AgentLoop::apiKeyVariable, entered.apiKey)) {
        location = tr("Key storage: not stored; %1 supplies it at every start.")
                           .arg(QString::fromLatin1(AgentLoop::apiKeyVariable));
    } else if (plainText) {
        location = tr("Key storage: Settings file (plain text)");
        details = settingsFile;
    } else if (availability == KeyStore::Availability::Available) {
        location = tr("Key storage: System credential store");
    } else if (availability == KeyStore::Availability::Unavailable) {
        location = tr("Key storage: This session only — no credential store is reachable");
        details = m_keyStore ? m_keyStore->unavailableReason() : QString();
    } else {
        location = tr("Key storage: checking the system credential store…");
    }
    showMessage(m_ui->keyLocationLabel, location, Tone::Note);
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
    if (entered.demoMode || !AgentLoop::baseUrlError(entered.baseUrl).isEmpty()
        || entered.baseUrl.isEmpty())
        return;
    AgentLoop::ProviderSettings provider;
    provider.baseUrl = QUrl(entered.baseUrl);
    provider.apiKey = entered.apiKey;
    provider.model = entered.model;
    provider.requestTimeout = std::chrono::seconds(entered.requestTimeoutSeconds);
    provider.maxResponseBytes = qint64(entered.maxResponseMegabytes) * 1024 * 1024;
    provider.maxAnswerTime = std::chrono::minutes(entered.maxAnswerMinutes);
    m_client->setSettings(provider);

    m_testing = true;
    m_ui->testButton->setEnabled(false);
    m_ui->testProgress->show();
    showMessage(m_ui->testResult,
                tr("Asking %1 for its models…")
                        .arg(AgentLoop::ChatClient::endpoint(provider.baseUrl, u"/models"_s)
                                     .toDisplayString()),
                Tone::Note);
    m_client->listModels();
}

void SettingsDialog::onModelsListed(const QStringList &models)
{
    const QString typed = modelIdOf(m_ui->modelCombo);
    {
        const QSignalBlocker blocker(m_ui->modelCombo);
        m_ui->modelCombo->clear();
        for (const QString &model : models)
            m_ui->modelCombo->addItem(AgentLoop::displayedLine(model, 200), model);
        if (const int index = m_ui->modelCombo->findData(typed); index >= 0)
            m_ui->modelCombo->setCurrentIndex(index);
        else
            m_ui->modelCombo->setEditText(typed);
    }
    // Two sources rather than %n: English has no catalogue to pick a plural form from.
    QString message = models.size() == 1 ? tr("Connected: 1 model")
                                         : tr("Connected: %1 models").arg(models.size());
    if (!typed.isEmpty() && !models.contains(typed))
        message += u' ' + tr("(%1 is not among them.)").arg(AgentLoop::displayedLine(typed, 200));
    finishTest(true, message);
}

void SettingsDialog::onModelsFailed(const AgentLoop::Error &error)
{
    // The provider's own words are in it.
    AgentLoop::DisplayOptions shown;
    shown.maxLength = 4000;
    finishTest(false,
               AgentLoop::displayed(AgentLoop::redacted(error.toString(),
                                                        m_client->settings().apiKey),
                                    shown));
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
    const AppSettings chosen = settings();
    if (m_keyStore)
        chosen.save(*m_keyStore);
    else
        chosen.save();
    emit settingsApplied(chosen);
    QDialog::accept();
}

void SettingsDialog::done(int result)
{
    if (m_testing) {
        m_client->abort();
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
