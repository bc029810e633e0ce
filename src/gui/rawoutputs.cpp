#include "rawoutputs.h"

#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/promptbar.h"
#include "chat/promptedit.h"
#include "rawoutputdialog.h"

#include <QAction>

using namespace Qt::StringLiterals;

namespace Gui {

RawOutputs::RawOutputs(ChatView *chat, PromptBar *prompt, QWidget *window)
    : QObject(window)
    , m_chat(chat)
    , m_prompt(prompt)
    , m_window(window)
    , m_show(new QAction(tr("Show &raw output…"), this))
{
    m_show->setObjectName(u"showRawOutputAction"_s);
    m_show->setShortcut(ChatView::rawOutputShortcut());
    m_show->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_show->setStatusTip(tr("Show what the selected command launched and the bytes it printed"));
    chat->addAction(m_show); // the shortcut, on the chat's current item
    connect(m_show, &QAction::triggered, this, [this] { show(m_chat->currentIndex()); });
    connect(chat, &ChatView::rawOutputRequested, this, &RawOutputs::show);
}

RawOutputDialog *RawOutputs::dialog() const
{
    return m_dialog;
}

bool RawOutputs::show(const QModelIndex &index)
{
    ChatModel *model = m_chat->chatModel();
    if (!model || !index.isValid() || index.model() != model)
        return false;
    const ChatItem &item = model->item(index.row());
    if (!item.runRecord)
        return false;
    if (m_dialog)
        m_dialog->close();
    m_dialog = new RawOutputDialog(item.runRecord, item.toolCallId, m_window);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_dialog, &RawOutputDialog::correctionRequested, this, &RawOutputs::putIntoPrompt);
    m_dialog->show();
    return true;
}

void RawOutputs::putIntoPrompt(const QString &correction)
{
    const QString draft = m_prompt->text();
    m_prompt->setText(draft.trimmed().isEmpty() ? correction : draft + u"\n\n"_s + correction);
    m_prompt->edit()->setFocus();
}

} // namespace Gui
