#pragma once

#include "base/result.h"

#include <QObject>
#include <QPointer>

class QAction;
class QFileDialog;
class QMenu;
class QWidget;

namespace AgentLoop {
class AgentSession;
struct ConversationHeader;
} // namespace AgentLoop

namespace Gui {

class ConversationListModel;
class ConversationPanel;

// What the user does with saved conversations, besides opening one: rename (by editing the
// list), delete (after a question), export the one shown. Keeps the list in step with the
// session's recorder: a new conversation appears at the top when its first prompt is saved,
// and moves on each message.
class ConversationActions final : public QObject
{
    Q_OBJECT
public:
    // MessagesJson: the provider's messages array, ready to paste into a request (nothing else,
    // so that it stays that); Markdown: the transcript, then the audit trail as a table;
    // AuditJsonLines: the audit trail as its file keeps it, one JSON object per call.
    enum class ExportFormat { MessagesJson, Markdown, AuditJsonLines };

    ConversationActions(AgentLoop::AgentSession &session,
                        ConversationListModel *list,
                        ConversationPanel *panel,
                        QWidget *dialogParent);

    // Reads the saved list again, on another thread; listed() follows.
    void reload();
    bool isListing() const { return m_listed != m_listing; }
    void rename(const QString &id, const QString &title);
    // Asks, then deletes the conversation's file; currentDeleted() follows if it was open.
    void remove(const QString &id);
    // Asks where, then writes the conversation shown.
    void exportAs(ExportFormat format);
    // Writes the conversation shown to path in format.
    AgentLoop::Result<void> exportTo(ExportFormat format, const QString &path) const;
    // Fills File › Export conversation with one action per format.
    void addExportActions(QMenu *menu);
    // Enables the export actions while there is something to export.
    void updateExportActions();
    // The file dialog of the export in progress, or null.
    QFileDialog *exportDialog() const;
    void closeDialogs();

signals:
    // The conversation shown was deleted: the window starts a new one.
    void currentDeleted();
    void exported(const QString &path);
    // The list shows what the folder holds.
    void listed();

private:
    void showCreated(const AgentLoop::ConversationHeader &header);

    AgentLoop::AgentSession &m_session;
    ConversationListModel *m_list;
    ConversationPanel *m_panel;
    QWidget *m_dialogParent;
    QPointer<QFileDialog> m_exportDialog;
    QList<QAction *> m_exportActions;
    quint64 m_listing = 0; // the latest reload()
    quint64 m_listed = 0;  // the reload() whose list is shown
};

} // namespace Gui
