#pragma once

#include "base/result.h"
#include "storage/conversationstore.h"

#include <QHash>
#include <QSet>
#include <QString>

#include <optional>

namespace AgentLoop {

// What the conversation list knows of one file, and how far it has read it.
struct IndexedConversation
{
    ConversationHeader header; // the title as renamed, messageCount and sizeBytes as read
    QByteArray headerLineSha1; // of the first line: the same conversation, still
    qint64 scannedBytes = 0;   // the complete lines read so far, from the start of the file
    qint64 modifiedMsecs = 0;  // the file's modification time when it was read

    friend bool operator==(const IndexedConversation &, const IndexedConversation &) = default;
};

// The index of conversation headers kept beside the files (index.json in the store's folder), so
// that listing costs the same whatever the conversations' sizes. It is a cache, never trusted
// over the files: ConversationStore::list() uses an entry only while its file has the size and
// modification time it had when read, reads only the lines appended since when the file grew
// (appending is the only change the store makes), and reads a file whole when it is new or
// changed in any other way. A missing, corrupt or foreign index is rebuilt.
class ConversationIndex final
{
public:
    explicit ConversationIndex(QString path);
    static QString fileNameIn(const QString &directory);

    // The saved entries; an index that cannot be read leaves this one empty.
    void load();
    std::optional<IndexedConversation> find(const QString &id) const;
    void put(const IndexedConversation &entry);
    // Forgets the conversations whose files are gone.
    void keepOnly(const QSet<QString> &ids);
    bool isChanged() const { return m_changed; }
    // Written whole through a temporary file, so a crash leaves the old index or the new one.
    Result<void> save();

private:
    QString m_path;
    QHash<QString, IndexedConversation> m_entries;
    bool m_changed = false;
};

} // namespace AgentLoop
