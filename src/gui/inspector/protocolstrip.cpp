#include "inspector/protocolstrip.h"

#include "base/displaytext.h"
#include "diffstyle.h"
#include "showntext.h"

#include <QEvent>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

constexpr int chipColumns = 3;
constexpr int repairLinesShown = 6;
constexpr qsizetype shownLineLength = 400;

QString chipText(const AgentLoop::ProtocolCheck &check)
{
    const QString name = AgentLoop::ProtocolCheck::ruleName(check.rule);
    if (check.ok)
        return ProtocolStrip::tr("✓ %1").arg(name);
    QStringList where;
    if (check.messageIndex >= 0)
        where << ProtocolStrip::tr("message %1").arg(check.messageIndex + 1);
    if (!check.toolCallId.isEmpty())
        where << AgentLoop::displayedLine(check.toolCallId, 80);
    return where.isEmpty() ? ProtocolStrip::tr("✗ %1").arg(name)
                           : ProtocolStrip::tr("✗ %1: %2").arg(name, where.join(u", "_s));
}

} // namespace

ProtocolStrip::ProtocolStrip(QWidget *parent)
    : QWidget(parent)
    , m_headline(new QLabel(this))
    , m_repairs(new QPlainTextEdit(this))
{
    setObjectName(u"protocolStrip"_s);
    setAccessibleName(tr("Protocol check"));
    m_headline->setObjectName(u"protocolHeadline"_s);
    m_headline->setTextFormat(Qt::PlainText);
    m_headline->setWordWrap(true);

    auto *grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(4);
    grid->setVerticalSpacing(2);
    constexpr int rules = int(AgentLoop::ProtocolCheck::ToolSnapshot) + 1;
    for (int i = 0; i < rules; ++i) {
        auto *chip = new QLabel(this);
        chip->setObjectName(u"protocolChip%1"_s.arg(i));
        chip->setTextFormat(Qt::PlainText);
        chip->setAutoFillBackground(true);
        chip->setContentsMargins(6, 1, 6, 1);
        chip->setFocusPolicy(Qt::TabFocus); // its tooltip and name reach a keyboard user
        m_chips.append(chip);
        grid->addWidget(chip, i / chipColumns, i % chipColumns);
    }
    for (int column = 0; column < chipColumns; ++column)
        grid->setColumnStretch(column, 1);

    m_repairs->setObjectName(u"protocolRepairs"_s);
    m_repairs->setAccessibleName(tr("Repairs of the history"));
    m_repairs->setToolTip(tr("What the app added to the history on its own since the request "
                             "before: lines with + were added"));
    m_repairs->setReadOnly(true);
    m_repairs->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_repairs->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_repairs->setTabChangesFocus(true);
    const int lineHeight = m_repairs->fontMetrics().lineSpacing();
    m_repairs->setMaximumHeight(lineHeight * repairLinesShown + 2 * m_repairs->frameWidth() + 8);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    layout->setSpacing(2);
    layout->addWidget(m_headline);
    layout->addLayout(grid);
    layout->addWidget(m_repairs);
    showReport(std::nullopt);
}

void ProtocolStrip::showReport(const std::optional<AgentLoop::ProtocolReport> &report)
{
    m_report = report;
    setVisible(report.has_value());
    if (!report) {
        m_repairs->clear();
        return;
    }
    const AgentLoop::ProtocolCheck *failure = report->firstFailure();
    if (!failure) {
        m_headline->setText(tr("Protocol check before this request: all %n rules hold.",
                               nullptr,
                               int(report->checks.size())));
    } else if (!report->sent) {
        m_headline->setText(tr("Protocol check failed (%1): nothing was sent.")
                                    .arg(AgentLoop::ProtocolCheck::ruleName(failure->rule)));
    } else {
        m_headline->setText(tr("Protocol check: %1 failed.")
                                    .arg(AgentLoop::ProtocolCheck::ruleName(failure->rule)));
    }
    for (qsizetype i = 0; i < m_chips.size(); ++i) {
        QLabel *chip = m_chips.at(i);
        const bool shown = i < report->checks.size();
        chip->setVisible(shown);
        if (!shown)
            continue;
        const AgentLoop::ProtocolCheck &check = report->checks.at(i);
        chip->setText(chipText(check));
        // The details quote ids and message text the model wrote.
        const QString detail = AgentLoop::displayedLine(check.detail, shownLineLength);
        chip->setToolTip(plainToolTip(detail));
        chip->setAccessibleName(chipText(check));
        chip->setAccessibleDescription(detail);
    }

    m_repairs->setVisible(!report->repairDiff.isEmpty());
    QStringList lines;
    for (const QString &line : report->repairDiff)
        lines << AgentLoop::displayedLine(line, shownLineLength);
    for (const AgentLoop::HistoryRepair &repair : report->repairs) {
        const QString reason = u"  "_s + AgentLoop::displayedLine(repair.reason, shownLineLength);
        if (!lines.contains(reason))
            lines << reason;
    }
    m_repairs->setPlainText(lines.join(u'\n'));
    colour();
}

QString ProtocolStrip::headline() const
{
    return m_headline->text();
}

QString ProtocolStrip::repairText() const
{
    return m_repairs->isVisibleTo(this) ? m_repairs->toPlainText() : QString();
}

void ProtocolStrip::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        colour();
}

void ProtocolStrip::colour()
{
    if (!m_report)
        return;
    const DiffColors colors(palette());
    for (qsizetype i = 0; i < m_chips.size() && i < m_report->checks.size(); ++i) {
        QPalette chipPalette = m_chips.at(i)->palette();
        chipPalette.setColor(QPalette::Window,
                             m_report->checks.at(i).ok ? colors.addedBackground
                                                       : colors.removedBackground);
        chipPalette.setColor(QPalette::WindowText, palette().color(QPalette::Text));
        m_chips.at(i)->setPalette(chipPalette);
    }
    QTextCursor cursor(m_repairs->document());
    for (QTextBlock block = m_repairs->document()->begin(); block.isValid(); block = block.next()) {
        cursor.setPosition(block.position());
        cursor.setBlockFormat(diffBlockFormat(diffLineKind(block.text()), colors));
    }
}

} // namespace Gui
