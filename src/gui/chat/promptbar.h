#pragma once

#include <QWidget>

class QPushButton;

namespace AgentLoop {
class AgentController;
}

namespace Gui {

class PromptEdit;

// Below the chat: the prompt box with Send and Stop beside it. Enter (or Send) runs the prompt,
// Esc anywhere in the window (or Stop) stops the run. Send and Stop are enabled as the
// controller's state allows.
class PromptBar final : public QWidget
{
    Q_OBJECT
public:
    explicit PromptBar(AgentLoop::AgentController &controller, QWidget *parent = nullptr);

    PromptEdit *edit() const { return m_edit; }
    QPushButton *sendButton() const { return m_send; }
    QPushButton *stopButton() const { return m_stop; }
    QString text() const;
    void setText(const QString &text);
    void clear();

    // Whether a prompt can be sent: a provider is configured, or the demo answers. When it
    // cannot, send() asks for the settings instead.
    void setReady(bool ready) { m_ready = ready; }
    // While a saved conversation is being read, nothing is sent: the prompt waits for it.
    void setOpening(bool opening);

    // Runs the prompt and clears the box (not while a run goes on, not an empty prompt).
    void send();
    // Stops the run wherever it is.
    void stop();

signals:
    void settingsNeeded();

private:
    static QString sendToolTip();
    void updateButtons();

    AgentLoop::AgentController &m_controller;
    PromptEdit *m_edit;
    QPushButton *m_send;
    QPushButton *m_stop;
    bool m_ready = true;
    bool m_opening = false;
};

} // namespace Gui
