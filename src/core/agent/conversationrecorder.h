#pragma once

#include "protocol/providersettings.h"
#include "storage/conversationstore.h"

#include <QObject>

namespace AgentLoop {

// A conversation opened for continuing: what was read back, and whether new messages can be
// saved (the file may be read-only, or gone since it was listed).
struct ContinuedConversation
{
    LoadedConversation conversation;
    std::optional<Error> notSaved;
};

// Keeps the conversation on disk as it grows: every message the loop appends is written, and
// flushed, before the next request goes out (connect record() directly to
// AgentController::messageAppended). A new conversation gets its file at its first user message,
// named after it; a system message before it waits for it. A saved one is opened, repaired and
// continued. The first failure to write is returned, once: the run goes on, and nothing more is
// written until the next conversation starts.
class ConversationRecorder final : public QObject
{
    Q_OBJECT
public:
    explicit ConversationRecorder(ConversationStore store, QObject *parent = nullptr);

    const ConversationStore &store() const { return m_store; }
    // The conversation being recorded; id empty until its file exists.
    const ConversationHeader &header() const { return m_header; }
    // Whether a new conversation gets a file at its first prompt (the app) or is not saved
    // at all unless one was opened (the CLI). On by default.
    void setSavesNewConversations(bool saves) { m_savesNew = saves; }
    bool savesNewConversations() const { return m_savesNew; }
    bool hasFailed() const { return m_failed; }
    // The conversation's file, once it has one (also when it cannot be written).
    const QString &filePath() const { return m_path; }

    // Writes the message; the provider names the model and endpoint of a file it creates. An
    // error is returned once, at the first failure.
    Result<void> record(const Message &message, const ProviderSettings &provider);
    // Writes a line that is no message (a compaction, its undo) to the conversation's file; none
    // is written before the file exists. An error is returned once, as for messages.
    Result<void> recordLine(const QJsonObject &line);

    // The saved conversation with this id, or the file at path (the CLI's --conversation),
    // loaded and repaired; later messages are appended to it.
    Result<ContinuedConversation> open(const QString &id);
    Result<ContinuedConversation> openFile(const QString &path);
    // The same for a conversation loaded from path already (on another thread).
    Result<ContinuedConversation> continueFrom(Result<LoadedConversation> loaded,
                                               const QString &path);
    // Forgets the current conversation: the next record() starts a new one.
    void startNew();
    // The conversation's file is about to go: nothing more is written to it.
    void stopWriting();
    // The title changed in the store.
    void setTitle(const QString &title) { m_header.title = title; }

    // The list's name for a conversation: the first line of its first prompt, cut to fit.
    static QString titleFor(const QString &prompt);
    // The header with a title even before the first prompt was saved (for exports).
    ConversationHeader titledHeader(const History &history) const;

signals:
    // The first prompt created the conversation's file.
    void created(const AgentLoop::ConversationHeader &header);
    // A message of the conversation with this id was written.
    void saved(const QString &id);

private:
    Result<void> failed(const Error &error);

    ConversationStore m_store;
    ConversationWriter m_writer;
    ConversationHeader m_header;
    QString m_path;
    QList<Message> m_waiting; // a system message waiting for the first prompt
    bool m_savesNew = true;
    bool m_failed = false;
};

} // namespace AgentLoop
