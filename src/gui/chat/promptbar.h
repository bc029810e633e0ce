#pragma once

#include <QWidget>

class QPushButton;

namespace Gui {

class PromptEdit;

// Below the chat: the prompt box with Send and Stop beside it. Enter (or Send) asks to send, Esc
// anywhere in the window (or Stop) asks to stop; the window decides whether it can.
class PromptBar final : public QWidget
{
    Q_OBJECT
public:
    explicit PromptBar(QWidget *parent = nullptr);

    PromptEdit *edit() const { return m_edit; }
    QPushButton *sendButton() const { return m_send; }
    QPushButton *stopButton() const { return m_stop; }
    QString text() const;
    void setText(const QString &text);
    void clear();

    // Send is enabled while idle with something to send; Stop while a run goes on.
    void setRunning(bool running);

signals:
    void sendRequested();
    void stopRequested();

private:
    void updateButtons();

    PromptEdit *m_edit;
    QPushButton *m_send;
    QPushButton *m_stop;
    bool m_running = false;
};

} // namespace Gui
