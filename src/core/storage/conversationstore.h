#pragma once

#include "base/result.h"
#include "context/compaction.h"
#include "protocol/history.h"

#include <QDateTime>
#include <QFile>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUrl>

namespace AgentLoop {

// What a conversation file's first line says about it.
struct ConversationHeader
{
    QString id;    // the file's base name, e.g. "20261129-224705-3f2a"
    QString title; // from the first prompt; the user may rename it
    QDateTime created;
    QDateTime updated; // the file's last modification
    QString model;
    QString baseUrl; // never with credentials in it
    // As list() found them: the messages saved (not counting header updates and compaction
    // records) and the file's size.
    int messageCount = 0;
    qint64 sizeBytes = 0;

    friend bool operator==(const ConversationHeader &, const ConversationHeader &) = default;
};

// A conversation read back from disk, checked and repaired.
struct LoadedConversation
{
    ConversationHeader header;
    History history;
    // Its compactions not undone, oldest first (the last one decides the next request).
    QList<Compaction> compactions;
    // One sentence per problem found and handled: a torn or corrupt line skipped, tool calls
    // interrupted by a crash answered with an "interrupted" tool message. Shown to the user.
    QStringList repairs;
    // The first message the repair added to history (interrupted calls answered); -1: none.
    qsizetype repairedFrom = -1;
};

// The end of a conversation file, read quickly to show it while the whole file is read
// (ConversationStore::readTail()): the messages of the complete lines in its last bytes, oldest
// first. Nothing is checked or repaired; the whole file decides what the conversation is.
struct ConversationTail
{
    ConversationHeader header; // as its first line says (a later rename is not seen)
    QList<Message> messages;
};

// Conversations as JSON Lines under a folder (by default QStandardPaths::AppLocalDataLocation
// + "/conversations"): a header line {"agentloop":"conversation","version":1,...}, then one Chat
// Completions message object per line, exactly as sent to the provider. Appending writes and
// flushes one line; nothing is ever rewritten in place, so a crash or kill -9 loses at most the
// line being written. The API key is never written.
// The whole outputs of long commands are kept apart, one folder per conversation under
// outputDirectory (by default AppLocalDataLocation + "/outputs": on Windows that stays on this
// machine, where AppDataLocation would roam hundreds of megabytes), and deleted with it.
class ConversationStore final
{
public:
    // An empty directory is the default one.
    explicit ConversationStore(QString directory = {}, QString outputDirectory = {});

    static QString defaultDirectory();
    static QString defaultOutputDirectory();
    const QString &directory() const { return m_directory; }
    const QString &outputDirectory() const { return m_outputDirectory; }
    // The folder of one conversation's command outputs; it exists once a command needed it.
    QString outputDirectoryFor(const QString &id) const;

    // Newest first. Files that cannot be read at all are left out. Reads the files through the
    // index beside them (storage/conversationindex.h): only what changed since the last listing
    // is read, and the index is saved again when it changed.
    QList<ConversationHeader> list() const;

    // Reads and checks a conversation: corrupt lines are skipped (everything before them kept),
    // and an interrupted tail (an assistant message whose tool calls have no results) is
    // answered with tool messages saying the call was interrupted. The repairs are appended to
    // the file, never by rewriting it.
    Result<LoadedConversation> load(const QString &id) const;
    // The same for a file given by path (the CLI's --conversation FILE).
    static Result<LoadedConversation> loadFile(const QString &path);
    // The messages in the file's last maxBytes (and its header), at the cost of reading those.
    static Result<ConversationTail> readTail(const QString &path, qint64 maxBytes);

    // Renames by appending a header update line; the history is untouched.
    Result<void> rename(const QString &id, const QString &title) const;
    // Deletes the conversation's file and its command outputs.
    Result<void> remove(const QString &id) const;

    QString pathFor(const QString &id) const;
    // The audit trail kept with the conversation file at conversationPath (agent/audittrail.h):
    // `<id>.audit` beside `<id>.jsonl`.
    static QString auditPathFor(const QString &conversationPath);

private:
    QString m_directory;
    QString m_outputDirectory;
};

// An open conversation file that grows one flushed line per message.
class ConversationWriter final
{
public:
    // Creates a new file in store's directory with a header (title from the first prompt).
    Result<ConversationHeader> create(const ConversationStore &store,
                                      const QString &title,
                                      const QString &model,
                                      const QUrl &baseUrl);
    // Opens an existing file for appending (continuing a loaded conversation).
    Result<void> open(const QString &path);
    // Writes the message as one line and flushes it to the operating system before returning.
    Result<void> append(const Message &message);
    // Writes a record that is no message ({"agentloop":"compaction",...}) the same way.
    Result<void> appendRecord(const QJsonObject &record);
    bool isOpen() const { return m_file.isOpen(); }
    QString path() const { return m_file.fileName(); }
    void close() { m_file.close(); }

private:
    friend class ConversationStore; // header updates and repairs
    // Writes one complete line and flushes it to the operating system.
    Result<void> writeLine(const QByteArray &line);

    QFile m_file;
};

// The exact `messages` array, ready to paste into a request.
QByteArray exportMessagesJson(const History &history);
// A readable transcript: headings per role, tool calls as fenced JSON, tool results fenced; then,
// when there is one, the audit trail (agent/audittrail.h) as a table under "Audit trail": a row
// per call with its time, turn, tool, call id, decision, who decided, the reason, the result and
// the duration.
QString exportMarkdown(const ConversationHeader &header,
                       const History &history,
                       const QList<QJsonObject> &audit = {});
// The audit trail as its file keeps it: one compact JSON object per line.
QByteArray exportAuditJsonLines(const QList<QJsonObject> &audit);

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ConversationHeader)
