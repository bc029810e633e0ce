#include "conversations/conversationactions.h"

#include "agent/agentsession.h"
#include "base/background.h"
#include "conversations/conversationlistmodel.h"
#include "conversations/conversationpanel.h"
#include "showntext.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// A file name from a title: what the export dialog suggests.
QString fileNameFor(const QString &title, const QString &suffix)
{
    QString name;
    for (const QChar c : title) {
        if (c.isLetterOrNumber())
            name += c;
        else if (!name.isEmpty() && !name.endsWith(u'-'))
            name += u'-';
    }
    while (name.endsWith(u'-'))
        name.chop(1);
    return (name.isEmpty() ? u"conversation"_s : name.left(60)) + u'.' + suffix;
}

QString suffixOf(ConversationActions::ExportFormat format)
{
    switch (format) {
    case ConversationActions::ExportFormat::MessagesJson:
        return u"json"_s;
    case ConversationActions::ExportFormat::Markdown:
        return u"md"_s;
    case ConversationActions::ExportFormat::AuditJsonLines:
        return u"audit.jsonl"_s;
    }
    return {};
}

} // namespace

ConversationActions::ConversationActions(AgentLoop::AgentSession &session,
                                         ConversationListModel *list,
                                         ConversationPanel *panel,
                                         QWidget *dialogParent)
    : QObject(dialogParent)
    , m_session(session)
    , m_list(list)
    , m_panel(panel)
    , m_dialogParent(dialogParent)
{
    const AgentLoop::ConversationRecorder &recorder = session.recorder();
    connect(&recorder,
            &AgentLoop::ConversationRecorder::created,
            this,
            &ConversationActions::showCreated);
    connect(&recorder, &AgentLoop::ConversationRecorder::saved, this, [this](const QString &id) {
        m_list->setSaved(id,
                         QDateTime::currentDateTime(),
                         int(m_session.controller().history().size()),
                         QFileInfo(m_session.recorder().filePath()).size());
    });
    connect(m_list, &ConversationListModel::titleEdited, this, &ConversationActions::rename);
    connect(m_panel,
            &ConversationPanel::deleteRequested,
            this,
            [this](const QString &id, const QString &) { remove(id); });
    reload();
}

void ConversationActions::reload()
{
    // Read on another thread (the index makes it quick, but stat-ing a thousand files is still
    // file work): the window shows at once, the list a moment later.
    const quint64 listing = ++m_listing;
    AgentLoop::whenFinished(AgentLoop::runInBackground<QList<AgentLoop::ConversationHeader>>(
                                    [store = m_session.recorder().store()](const auto &) {
                                        return store.list();
                                    }),
                            this,
                            [this, listing](const QList<AgentLoop::ConversationHeader> &headers) {
                                if (listing != m_listing)
                                    return; // a later reload is on its way
                                m_listed = m_listing;
                                m_list->setConversations(headers);
                                // A conversation whose file was made while the list was read stays listed.
                                const AgentLoop::ConversationHeader &current = m_session.recorder()
                                                                                       .header();
                                if (!current.id.isEmpty() && m_list->rowOf(current.id) < 0)
                                    m_list->prepend(current);
                                m_list->setCurrentId(current.id);
                                emit listed();
                            });
}

void ConversationActions::showCreated(const AgentLoop::ConversationHeader &header)
{
    m_list->prepend(header);
    m_list->setCurrentId(header.id);
    m_panel->selectConversation(header.id);
}

void ConversationActions::rename(const QString &id, const QString &title)
{
    if (const auto renamed = m_session.recorder().store().rename(id, title); !renamed) {
        showWarning(m_dialogParent, renamed.error().message);
        return;
    }
    m_list->setTitle(id, title);
    if (id == m_session.recorder().header().id)
        m_session.recorder().setTitle(title);
}

void ConversationActions::remove(const QString &id)
{
    const int row = m_list->rowOf(id);
    if (row < 0)
        return;
    const QString title = m_list->header(row).title;
    auto *box = new QMessageBox(QMessageBox::Question,
                                tr("Delete Conversation"),
                                tr("Delete “%1”? This cannot be undone.").arg(title),
                                QMessageBox::Yes | QMessageBox::No,
                                m_dialogParent);
    box->setObjectName(u"deleteConversationBox"_s);
    box->setTextFormat(Qt::PlainText); // the title is as the list shows it, and no HTML
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::No);
    box->setEscapeButton(QMessageBox::No);
    connect(box, &QMessageBox::finished, this, [this, box, id] {
        if (box->clickedButton() != box->button(QMessageBox::Yes))
            return;
        const bool current = id == m_session.recorder().header().id;
        if (current)
            m_session.recorder().stopWriting(); // nothing more goes into the file about to go
        if (const auto removed = m_session.recorder().store().remove(id); !removed) {
            showWarning(m_dialogParent, removed.error().message);
            return;
        }
        m_list->remove(id);
        if (current)
            emit currentDeleted();
    });
    box->open();
}

void ConversationActions::addExportActions(QMenu *menu)
{
    const auto add = [this, menu](const QString &text, const QString &tip, ExportFormat format) {
        QAction *action = menu->addAction(text, this, [this, format] { exportAs(format); });
        action->setStatusTip(tip);
        m_exportActions << action;
    };
    add(tr("Messages as &JSON…"),
        tr("Save the conversation as the messages array of a request, ready to paste"),
        ExportFormat::MessagesJson);
    add(tr("&Markdown…"),
        tr("Save the conversation, with its audit trail, as a readable Markdown file"),
        ExportFormat::Markdown);
    add(tr("&Audit trail as JSON Lines…"),
        tr("Save every call's decision and outcome, one JSON object per line"),
        ExportFormat::AuditJsonLines);
    updateExportActions();
}

void ConversationActions::updateExportActions()
{
    const bool hasMessages = !m_session.controller().history().isEmpty();
    for (QAction *action : std::as_const(m_exportActions))
        action->setEnabled(hasMessages);
}

void ConversationActions::exportAs(ExportFormat format)
{
    const AgentLoop::History &history = m_session.controller().history();
    if (history.isEmpty())
        return;
    if (m_exportDialog)
        m_exportDialog->reject();
    const QString title = m_session.recorder().titledHeader(history).title;
    QString caption = tr("Export Messages as JSON");
    QString filter = tr("JSON files (*.json)");
    if (format == ExportFormat::Markdown) {
        caption = tr("Export Conversation as Markdown");
        filter = tr("Markdown files (*.md)");
    } else if (format == ExportFormat::AuditJsonLines) {
        caption = tr("Export the Audit Trail as JSON Lines");
        filter = tr("JSON Lines files (*.jsonl)");
    }
    auto *dialog = new QFileDialog(m_dialogParent, caption);
    dialog->setObjectName(u"exportDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    dialog->setNameFilter(filter);
    dialog->setDefaultSuffix(suffixOf(format).section(u'.', -1));
    dialog->selectFile(fileNameFor(title, suffixOf(format)));
    m_exportDialog = dialog;
    connect(dialog, &QFileDialog::fileSelected, this, [this, format](const QString &path) {
        if (const auto written = exportTo(format, path); !written)
            showWarning(m_dialogParent, written.error().message);
        else
            emit exported(path);
    });
    dialog->open();
}

AgentLoop::Result<void> ConversationActions::exportTo(ExportFormat format, const QString &path) const
{
    const AgentLoop::History &history = m_session.controller().history();
    const QList<QJsonObject> &audit = m_session.auditTrail();
    QByteArray bytes;
    switch (format) {
    case ExportFormat::MessagesJson:
        bytes = AgentLoop::exportMessagesJson(history);
        break;
    case ExportFormat::Markdown:
        bytes = AgentLoop::exportMarkdown(m_session.recorder().titledHeader(history), history, audit)
                        .toUtf8();
        break;
    case ExportFormat::AuditJsonLines:
        bytes = AgentLoop::exportAuditJsonLines(audit);
        break;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        return AgentLoop::Error{AgentLoop::Error::Io,
                                tr("Cannot export the conversation to %1: %2")
                                        .arg(QDir::toNativeSeparators(path), file.errorString())};
    }
    return {};
}

QFileDialog *ConversationActions::exportDialog() const
{
    return m_exportDialog;
}

void ConversationActions::closeDialogs()
{
    if (m_exportDialog)
        m_exportDialog->reject();
}

} // namespace Gui
