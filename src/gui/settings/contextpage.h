#pragma once

#include "settings/appsettings.h"

#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace AgentLoop {
class AgentSession;
}

namespace Gui {

// The settings' Context page: the context window of the current model (0: automatic, with what
// automatic resolves to and where that comes from), automatic compaction and its threshold,
// asking before an automatic compaction, the size above which old tool outputs become stubs,
// how many recent exchanges stay verbatim, the model's price per million tokens (for the
// inspector's costs), the workspace's AGENTS.md, and how often a cut-off
// answer is continued, and the fallback models (each with the profile that reaches it), in order.
// Every range is the one SettingsFile declares.
class ContextPage final : public QWidget
{
    Q_OBJECT
public:
    // session: where the provider's reported windows come from (AgentSession::
    // reportedContextWindow); none: automatic means the built-in table or 128 000.
    ContextPage(const AppSettings &settings,
                const AgentLoop::AgentSession *session,
                QWidget *parent = nullptr);

    // The model whose window the page edits (the provider page's model); what was entered for
    // the one before is kept for it.
    void setModel(const QString &model);
    QString model() const { return m_model; }

    // The page's fields into settings: context, confirmCompaction, contextWindows, modelPrices
    // and fallbackModels.
    void apply(AppSettings &settings) const;

    // What the page shows, for the tests and the screenshots.
    QSpinBox *windowSpin() const { return m_window; }
    QDoubleSpinBox *inputPriceSpin() const { return m_inputPrice; }
    QDoubleSpinBox *outputPriceSpin() const { return m_outputPrice; }
    QComboBox *currencyCombo() const { return m_currency; }
    QString automaticText() const;
    QCheckBox *autoCompactCheck() const { return m_autoCompact; }
    QSpinBox *compactAtSpin() const { return m_compactAt; }
    QCheckBox *confirmCheck() const { return m_confirm; }
    QSpinBox *stubAboveSpin() const { return m_stubAbove; }
    QSpinBox *keepRecentSpin() const { return m_keepRecent; }
    QCheckBox *projectInstructionsCheck() const { return m_projectInstructions; }
    QSpinBox *continuationsSpin() const { return m_continuations; }
    QListWidget *fallbackList() const { return m_fallbackList; }
    QLineEdit *fallbackModelEdit() const { return m_fallbackModel; }
    QComboBox *fallbackProfileCombo() const { return m_fallbackProfile; }
    QPushButton *addFallbackButton() const { return m_addFallback; }
    QPushButton *removeFallbackButton() const { return m_removeFallback; }
    QPushButton *fallbackUpButton() const { return m_fallbackUp; }
    QPushButton *fallbackDownButton() const { return m_fallbackDown; }

private:
    void showAutomatic();
    void showPrice();
    void keepPrice();
    void updateEnabled();
    QWidget *newFallbackBox(const AppSettings &settings);
    void addFallback(const FallbackModel &fallback);
    void moveFallback(int offset);
    void updateFallbackButtons();

    const AgentLoop::AgentSession *m_session;
    QString m_model;
    QHash<QString, qint64> m_windows; // as edited, by model id
    AgentLoop::ModelPrices m_prices;  // as edited, by model id

    QLabel *m_windowLabel;
    QSpinBox *m_window;
    QLabel *m_automatic;
    QLabel *m_priceLabel;
    QDoubleSpinBox *m_inputPrice;
    QDoubleSpinBox *m_outputPrice;
    QComboBox *m_currency;
    QCheckBox *m_autoCompact;
    QSpinBox *m_compactAt;
    QCheckBox *m_confirm;
    QSpinBox *m_stubAbove;
    QSpinBox *m_keepRecent;
    QCheckBox *m_projectInstructions;
    QSpinBox *m_continuations;
    QHash<QString, QString> m_profileNames; // by id, for the list's rows
    QListWidget *m_fallbackList = nullptr;
    QLineEdit *m_fallbackModel = nullptr;
    QComboBox *m_fallbackProfile = nullptr;
    QPushButton *m_addFallback = nullptr;
    QPushButton *m_removeFallback = nullptr;
    QPushButton *m_fallbackUp = nullptr;
    QPushButton *m_fallbackDown = nullptr;
};

} // namespace Gui
