#pragma once

#include "protocol/protocolcheck.h"

#include <QList>
#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;

namespace Gui {

// Above a request's body in the inspector: the protocol's rules as the loop checked them on the
// exact history and tool snapshot the request sent, one chip per rule (a green tick, or a red
// cross naming the rule and the message that breaks it; the details in its tooltip), and the
// repairs the app made to the history since the request before, as a diff (added lines green).
// Hidden for requests that were not checked (a compaction's summary, a continuation).
class ProtocolStrip final : public QWidget
{
    Q_OBJECT
public:
    explicit ProtocolStrip(QWidget *parent = nullptr);

    void showReport(const std::optional<AgentLoop::ProtocolReport> &report);

    // What the strip says: its line, each chip's text and tooltip, the repair diff.
    QString headline() const;
    const QList<QLabel *> &chips() const { return m_chips; }
    QString repairText() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void colour();

    std::optional<AgentLoop::ProtocolReport> m_report;
    QLabel *m_headline;
    QList<QLabel *> m_chips;
    QPlainTextEdit *m_repairs;
};

} // namespace Gui
