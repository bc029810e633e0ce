#include "settings/contextpage.h"

#include "agent/agentsession.h"
#include "base/displaytext.h"
#include "context/contextwindow.h"
#include "showntext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

QSpinBox *newSpin(const SettingSpec<int> &setting, int value, QWidget *parent)
{
    auto *spin = new QSpinBox(parent);
    spin->setRange(setting.minimum, setting.maximum);
    spin->setValue(setting.bounded(value));
    return spin;
}

QDoubleSpinBox *newPriceSpin(const QString &prefix, QWidget *parent)
{
    auto *spin = new QDoubleSpinBox(parent);
    spin->setRange(0, 99'999);
    spin->setDecimals(4);
    spin->setSingleStep(0.1);
    spin->setPrefix(prefix);
    //: A price field at 0: no cost is shown
    spin->setSpecialValueText(ContextPage::tr("None"));
    return spin;
}

// What an automatic window resolves to, and where the figure comes from.
QString automaticWindowText(const AgentLoop::ContextWindow &window)
{
    using Source = AgentLoop::ContextWindow::Source;
    const QString tokens = QLocale().toString(window.tokens);
    switch (window.source) {
    case Source::Setting:
        break;
    case Source::Provider:
        return ContextPage::tr("Automatic: %1 tokens, as the provider's model list says.")
                .arg(tokens);
    case Source::BuiltIn:
        return ContextPage::tr("Automatic: %1 tokens, from the built-in table of common models.")
                .arg(tokens);
    case Source::Fallback:
        break;
    }
    return ContextPage::tr("Automatic: %1 tokens, the default (the model is not in the built-in "
                           "table, and the provider does not say).")
            .arg(tokens);
}

} // namespace

ContextPage::ContextPage(const AppSettings &settings,
                         const AgentLoop::AgentSession *session,
                         QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_windows(settings.contextWindows)
    , m_prices(settings.modelPrices)
    , m_windowLabel(new QLabel(this))
    , m_window(newSpin(SettingsFile::contextWindow, 0, this))
    , m_automatic(newNoteLabel({}, this))
    , m_priceLabel(new QLabel(this))
    //: Prefix of the price per million prompt tokens
    , m_inputPrice(newPriceSpin(tr("In "), this))
    //: Prefix of the price per million completion tokens
    , m_outputPrice(newPriceSpin(tr("Out "), this))
    , m_currency(new QComboBox(this))
    , m_autoCompact(new QCheckBox(tr("Compact the conversation &automatically"), this))
    , m_compactAt(newSpin(SettingsFile::compactAtPercent,
                          int(std::lround(settings.context.compactAt * 100)),
                          this))
    , m_confirm(
              new QCheckBox(tr("As&k before an automatic compaction (show what it will do)"), this))
    , m_stubAbove(newSpin(SettingsFile::stubAboveChars, settings.context.stubAboveChars, this))
    , m_keepRecent(
              newSpin(SettingsFile::keepRecentExchanges, settings.context.keepRecentExchanges, this))
    , m_projectInstructions(
              new QCheckBox(tr("Add the workspace's &AGENTS.md to the system prompt"), this))
    , m_continuations(
              newSpin(SettingsFile::maxContinuations, settings.context.maxContinuations, this))
{
    setObjectName(u"contextPage"_s);
    m_window->setObjectName(u"contextWindowSpin"_s);
    //: The context window field when it is 0: the provider's metadata or the built-in table
    m_window->setSpecialValueText(tr("Automatic"));
    m_window->setSuffix(tr(" tokens"));
    m_window->setSingleStep(1024);
    m_window->setAccelerated(true);
    m_windowLabel->setBuddy(m_window);
    m_automatic->setObjectName(u"automaticWindowText"_s);
    m_autoCompact->setChecked(settings.context.autoCompact);
    m_compactAt->setSuffix(tr(" %"));
    m_confirm->setChecked(settings.confirmCompaction);
    m_stubAbove->setSuffix(tr(" characters"));
    m_stubAbove->setSingleStep(500);
    m_projectInstructions->setChecked(settings.context.projectInstructions);

    auto *windowBox = new QGroupBox(tr("Context window"), this);
    auto *windowForm = new QFormLayout(windowBox);
    windowForm->addRow(m_windowLabel, m_window);
    windowForm->addRow(QString(), m_automatic);
    auto *windowNote = newNoteLabel({}, windowBox);
    windowNote->setText(tr("How many tokens the model reads in one request. The status bar shows "
                           "how much of it the next request uses."));
    windowForm->addRow(windowNote);
    m_inputPrice->setObjectName(u"inputPriceSpin"_s);
    m_inputPrice->setAccessibleName(tr("Price per million prompt tokens"));
    m_inputPrice->setToolTip(tr("What the provider charges per million prompt (input) tokens"));
    m_outputPrice->setObjectName(u"outputPriceSpin"_s);
    m_outputPrice->setAccessibleName(tr("Price per million completion tokens"));
    m_outputPrice->setToolTip(
            tr("What the provider charges per million completion (output) tokens"));
    m_currency->setObjectName(u"currencyCombo"_s);
    m_currency->setAccessibleName(tr("Currency"));
    m_currency->setEditable(true);
    m_currency->addItems({u"$"_s, u"¥"_s, u"€"_s, u"£"_s});
    m_currency->lineEdit()->setMaxLength(8);
    m_priceLabel->setBuddy(m_inputPrice);
    auto *priceRow = new QHBoxLayout;
    priceRow->addWidget(m_inputPrice, 1);
    priceRow->addWidget(m_outputPrice, 1);
    priceRow->addWidget(m_currency);
    windowForm->addRow(m_priceLabel, priceRow);
    auto *priceNote = newNoteLabel({}, windowBox);
    priceNote->setText(tr("Per million tokens, from your provider's price list: the inspector "
                          "then shows what each request cost. None: no cost is shown."));
    windowForm->addRow(priceNote);

    auto *compactionBox = new QGroupBox(tr("Compaction"), this);
    auto *compactionForm = new QFormLayout(compactionBox);
    compactionForm->addRow(m_autoCompact);
    compactionForm->addRow(tr("Compact &when the next request would pass"), m_compactAt);
    compactionForm->addRow(m_confirm);
    compactionForm->addRow(tr("Replace old tool outputs &longer than"), m_stubAbove);
    compactionForm->addRow(tr("Keep the last &exchanges verbatim"), m_keepRecent);
    auto *compactionNote = newNoteLabel({}, compactionBox);
    compactionNote->setText(
            tr("Old tool outputs are replaced in the request by their first and last lines and "
               "where the whole output is saved; if that is not enough, older turns are "
               "summarised by one extra request to the model. The conversation file keeps "
               "every original message."));
    compactionForm->addRow(compactionNote);

    auto *otherBox = new QGroupBox(tr("Instructions and cut-off answers"), this);
    auto *otherForm = new QFormLayout(otherBox);
    otherForm->addRow(m_projectInstructions);
    otherForm->addRow(tr("&Continue a cut-off answer up to"), m_continuations);
    m_continuations->setSuffix(tr(" times"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(windowBox);
    layout->addWidget(compactionBox);
    layout->addWidget(otherBox);
    layout->addWidget(newFallbackBox(settings));
    layout->addStretch(1);

    connect(m_window, &QSpinBox::valueChanged, this, [this](int tokens) {
        if (tokens > 0)
            m_windows.insert(m_model, tokens);
        else
            m_windows.remove(m_model);
        showAutomatic();
    });
    connect(m_inputPrice, &QDoubleSpinBox::valueChanged, this, &ContextPage::keepPrice);
    connect(m_outputPrice, &QDoubleSpinBox::valueChanged, this, &ContextPage::keepPrice);
    connect(m_currency, &QComboBox::currentTextChanged, this, &ContextPage::keepPrice);
    connect(m_autoCompact, &QCheckBox::toggled, this, &ContextPage::updateEnabled);
    setModel(settings.currentProfile().model);
    updateEnabled();
}

namespace {

constexpr int modelRole = Qt::UserRole;
constexpr int profileRole = Qt::UserRole + 1;

} // namespace

QWidget *ContextPage::newFallbackBox(const AppSettings &settings)
{
    auto *box = new QGroupBox(tr("Fallback models"), this);
    m_fallbackList = new QListWidget(box);
    m_fallbackList->setObjectName(u"fallbackList"_s);
    m_fallbackList->setAccessibleName(tr("Fallback models"));
    m_fallbackModel = new QLineEdit(box);
    m_fallbackModel->setObjectName(u"fallbackModelEdit"_s);
    m_fallbackModel->setPlaceholderText(tr("Model id, e.g. gpt-4.1-mini"));
    m_fallbackModel->setAccessibleName(tr("Fallback model"));
    m_fallbackProfile = new QComboBox(box);
    m_fallbackProfile->setObjectName(u"fallbackProfileCombo"_s);
    m_fallbackProfile->setAccessibleName(tr("Profile of the fallback model"));
    //: The fallback model is reached with the provider profile in use
    m_fallbackProfile->addItem(tr("Profile in use"), QString());
    for (const AgentLoop::ProviderProfile &profile : settings.allProfiles()) {
        const QString name = AgentLoop::displayedLine(profile.name, 60);
        m_profileNames.insert(profile.id, name);
        m_fallbackProfile->addItem(name, profile.id);
    }
    m_addFallback = new QPushButton(tr("A&dd"), box);
    m_removeFallback = new QPushButton(tr("&Remove"), box);
    m_fallbackUp = new QPushButton(tr("&Up"), box);
    m_fallbackDown = new QPushButton(tr("Do&wn"), box);

    auto *entry = new QHBoxLayout;
    entry->addWidget(m_fallbackModel, 1);
    entry->addWidget(m_fallbackProfile);
    entry->addWidget(m_addFallback);
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(m_removeFallback);
    buttons->addWidget(m_fallbackUp);
    buttons->addWidget(m_fallbackDown);
    buttons->addStretch(1);
    auto *list = new QHBoxLayout;
    list->addWidget(m_fallbackList, 1);
    list->addLayout(buttons);
    auto *note = newNoteLabel({}, box);
    note->setText(tr("When the model is not found, or is still rate-limited or failing after the "
                     "retries, the request goes to the next model of this list, and the run "
                     "stays with it. The next run starts with the profile's own model again."));
    auto *layout = new QVBoxLayout(box);
    layout->addLayout(entry);
    layout->addLayout(list);
    layout->addWidget(note);

    for (const FallbackModel &fallback : settings.fallbackModels)
        addFallback(fallback);
    connect(m_addFallback, &QPushButton::clicked, this, [this] {
        const QString model = m_fallbackModel->text().trimmed();
        if (model.isEmpty())
            return;
        addFallback({model, m_fallbackProfile->currentData().toString()});
        m_fallbackList->setCurrentRow(m_fallbackList->count() - 1);
        m_fallbackModel->clear();
    });
    connect(m_fallbackModel, &QLineEdit::returnPressed, m_addFallback, &QPushButton::click);
    connect(m_fallbackModel, &QLineEdit::textChanged, this, &ContextPage::updateFallbackButtons);
    connect(m_removeFallback, &QPushButton::clicked, this, [this] {
        delete m_fallbackList->takeItem(m_fallbackList->currentRow());
        updateFallbackButtons();
    });
    connect(m_fallbackUp, &QPushButton::clicked, this, [this] { moveFallback(-1); });
    connect(m_fallbackDown, &QPushButton::clicked, this, [this] { moveFallback(1); });
    connect(m_fallbackList,
            &QListWidget::currentRowChanged,
            this,
            &ContextPage::updateFallbackButtons);
    updateFallbackButtons();
    return box;
}

void ContextPage::addFallback(const FallbackModel &fallback)
{
    const QString model = AgentLoop::displayedLine(fallback.model, 80);
    //: A fallback model in the list: %1 is the model id, %2 the profile's name
    const QString text = fallback.profileId.isEmpty()
                                 ? model
                                 : tr("%1 (%2)").arg(model,
                                                     m_profileNames.value(fallback.profileId,
                                                                          fallback.profileId));
    auto *item = new QListWidgetItem(text, m_fallbackList);
    item->setData(modelRole, fallback.model);
    item->setData(profileRole, fallback.profileId);
}

void ContextPage::moveFallback(int offset)
{
    const int row = m_fallbackList->currentRow();
    const int target = row + offset;
    if (row < 0 || target < 0 || target >= m_fallbackList->count())
        return;
    QListWidgetItem *item = m_fallbackList->takeItem(row);
    m_fallbackList->insertItem(target, item);
    m_fallbackList->setCurrentRow(target);
}

void ContextPage::updateFallbackButtons()
{
    const int row = m_fallbackList->currentRow();
    m_addFallback->setEnabled(!m_fallbackModel->text().trimmed().isEmpty());
    m_removeFallback->setEnabled(row >= 0);
    m_fallbackUp->setEnabled(row > 0);
    m_fallbackDown->setEnabled(row >= 0 && row < m_fallbackList->count() - 1);
}

void ContextPage::setModel(const QString &model)
{
    m_model = model.trimmed();
    //: The context window field's label; %1 is the model id
    m_windowLabel->setText(
            m_model.isEmpty() ? tr("&Window")
                              : tr("&Window for %1").arg(AgentLoop::displayedLine(m_model, 80)));
    {
        const QSignalBlocker blocker(m_window);
        m_window->setValue(SettingsFile::contextWindow.bounded(int(m_windows.value(m_model, 0))));
    }
    showAutomatic();
    showPrice();
}

void ContextPage::showPrice()
{
    //: The price fields' label; %1 is the model id
    m_priceLabel->setText(m_model.isEmpty()
                                  ? tr("&Price")
                                  : tr("&Price of %1").arg(AgentLoop::displayedLine(m_model, 80)));
    const AgentLoop::ModelPrice price = m_prices.value(m_model);
    const QSignalBlocker blockInput(m_inputPrice);
    const QSignalBlocker blockOutput(m_outputPrice);
    const QSignalBlocker blockCurrency(m_currency);
    m_inputPrice->setValue(price.inputPerMillion);
    m_outputPrice->setValue(price.outputPerMillion);
    // A new price is in the currency of the last one entered: one provider, one currency.
    if (price.isSet())
        m_currency->setCurrentText(price.currency);
}

void ContextPage::keepPrice()
{
    const AgentLoop::ModelPrice price{m_inputPrice->value(),
                                      m_outputPrice->value(),
                                      m_currency->currentText().trimmed()};
    if (price.isSet())
        m_prices.insert(m_model, price);
    else
        m_prices.remove(m_model);
}

QString ContextPage::automaticText() const
{
    return m_automatic->text();
}

void ContextPage::showAutomatic()
{
    const std::optional<qint64> reported = m_session ? m_session->reportedContextWindow(m_model)
                                                     : std::nullopt;
    const QString automatic = automaticWindowText(
            AgentLoop::resolveContextWindow(m_model, 0, reported));
    m_automatic->setText(m_window->value() > 0
                                 ? tr("Your setting is used instead.") + u' ' + automatic
                                 : automatic);
}

void ContextPage::updateEnabled()
{
    m_compactAt->setEnabled(m_autoCompact->isChecked());
    m_confirm->setEnabled(m_autoCompact->isChecked());
}

void ContextPage::apply(AppSettings &settings) const
{
    AgentLoop::ContextOptions &context = settings.context;
    context.autoCompact = m_autoCompact->isChecked();
    context.compactAt = m_compactAt->value() / 100.0;
    context.stubAboveChars = m_stubAbove->value();
    context.keepRecentExchanges = m_keepRecent->value();
    context.projectInstructions = m_projectInstructions->isChecked();
    context.maxContinuations = m_continuations->value();
    settings.confirmCompaction = m_confirm->isChecked();
    settings.contextWindows = m_windows;
    settings.contextWindows.remove(QString());
    settings.modelPrices = m_prices;
    settings.modelPrices.remove(QString());
    settings.fallbackModels.clear();
    for (int row = 0; row < m_fallbackList->count(); ++row) {
        const QListWidgetItem *item = m_fallbackList->item(row);
        settings.fallbackModels.append(
                {item->data(modelRole).toString(), item->data(profileRole).toString()});
    }
}

} // namespace Gui
