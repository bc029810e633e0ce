#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QModelIndex;

namespace Gui {

class ChatView;
class PromptBar;
class RawOutputDialog;

// The window's side of "Show raw output…": the chat's context menu entry and the shortcut
// (Ctrl+Shift+R, on the current tool result) open a RawOutputDialog for the command behind the
// item; a correction the user sends from it goes into the prompt box, after what is typed there,
// so that it reaches the model as the next user message (a tool message cannot change once sent).
class RawOutputs final : public QObject
{
    Q_OBJECT
public:
    RawOutputs(ChatView *chat, PromptBar *prompt, QWidget *window);

    QAction *showAction() const { return m_show; }
    // The dialog while it is open, or null.
    RawOutputDialog *dialog() const;
    // Opens the dialog for the tool result at index; false when it has no record of a command.
    bool show(const QModelIndex &index);

private:
    void putIntoPrompt(const QString &correction);

    ChatView *m_chat;
    PromptBar *m_prompt;
    QWidget *m_window;
    QAction *m_show;
    QPointer<RawOutputDialog> m_dialog;
};

} // namespace Gui
