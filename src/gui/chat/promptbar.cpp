#include "chat/promptbar.h"

#include "agent/agentcontroller.h"
#include "chat/promptedit.h"

#include <QApplication>
#include <QFrame>
#include <QHBoxLayout>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

PromptBar::PromptBar(AgentLoop::AgentController &controller, QWidget *parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_edit(new PromptEdit(this))
    , m_send(new QPushButton(tr("&Send"), this))
    , m_stop(new QPushButton(tr("S&top"), this))
{
    setObjectName(u"promptBar"_s);
    m_edit->setObjectName(u"promptEdit"_s);
    m_edit->setAccessibleName(tr("Prompt"));
    m_edit->setPlaceholderText(
            tr("Tell the agent what to do. Enter sends, Shift+Enter starts a new line."));
    m_send->setObjectName(u"sendButton"_s);
    m_send->setAccessibleName(tr("Send prompt"));
    m_send->setToolTip(sendToolTip());
    m_send->setDefault(false);
    m_send->setAutoDefault(false);
    m_stop->setObjectName(u"stopButton"_s);
    m_stop->setAccessibleName(tr("Stop the run"));
    m_stop->setToolTip(tr("Stop the run: abort the request or kill the running command (Esc)"));
    m_stop->setAutoDefault(false);
    const int buttonWidth = qMax(m_send->sizeHint().width(), m_stop->sizeHint().width()) + 16;
    m_send->setMinimumWidth(buttonWidth);
    m_stop->setMinimumWidth(buttonWidth);
    connect(m_send, &QPushButton::clicked, this, &PromptBar::send);
    connect(m_stop, &QPushButton::clicked, this, &PromptBar::stop);
    connect(m_edit, &PromptEdit::submitted, this, &PromptBar::send);
    connect(m_edit, &QPlainTextEdit::textChanged, this, &PromptBar::updateButtons);
    connect(&controller, &AgentLoop::AgentController::stateChanged, this, &PromptBar::updateButtons);
    // Esc anywhere in the window, but in the approval box it means "no", never "stop everything".
    auto *stopShortcut = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    stopShortcut->setContext(Qt::WindowShortcut);
    connect(stopShortcut, &QShortcut::activated, this, [this] {
        if (!QApplication::activeModalWidget())
            stop();
    });

    auto *buttons = new QVBoxLayout;
    buttons->setSpacing(6);
    buttons->addWidget(m_send);
    buttons->addWidget(m_stop);
    buttons->addStretch();
    auto *row = new QHBoxLayout;
    row->setContentsMargins(10, 8, 10, 8);
    row->setSpacing(8);
    row->addWidget(m_edit, 1);
    row->addLayout(buttons);
    // A line between the chat above and the prompt.
    auto *line = new QFrame(this);
    line->setFrameShape(QFrame::HLine);
    line->setFrameShadow(QFrame::Sunken);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(line);
    layout->addLayout(row);
    setTabOrder(m_edit, m_send);
    setTabOrder(m_send, m_stop);
    updateButtons();
}

QString PromptBar::text() const
{
    return m_edit->toPlainText();
}

void PromptBar::setText(const QString &text)
{
    m_edit->setPlainText(text);
}

void PromptBar::clear()
{
    m_edit->clear();
}

void PromptBar::send()
{
    if (text().trimmed().isEmpty() || m_controller.isRunning() || m_opening)
        return;
    if (!m_ready) {
        emit settingsNeeded();
        return;
    }
    if (m_controller.run(text()))
        clear();
}

void PromptBar::stop()
{
    if (m_controller.isRunning())
        m_controller.cancel(); // an open approval box closes with the run (Approvals)
}

QString PromptBar::sendToolTip()
{
    return tr("Send the prompt (Enter)");
}

void PromptBar::setOpening(bool opening)
{
    m_opening = opening;
    m_send->setToolTip(opening ? tr("Waiting for the conversation being opened") : sendToolTip());
    updateButtons();
}

void PromptBar::updateButtons()
{
    const bool running = m_controller.isRunning();
    m_send->setEnabled(!running && !m_opening && !text().trimmed().isEmpty());
    m_stop->setEnabled(running);
}

} // namespace Gui
