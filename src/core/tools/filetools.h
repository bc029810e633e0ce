#pragma once

#include "base/redaction.h"
#include "files/workspace.h"
#include "tools/tool.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QMutex>
#include <QSaveFile>

#include <functional>
#include <memory>

namespace AgentLoop {

// The limits of the file tools; the defaults are the contract the tool descriptions state.
struct FileToolLimits
{
    int readLineLimit = 2000;                // read_file's default `limit`
    qint64 readByteLimit = 256 * 1024;       // read_file returns at most this much of the file
    int lineCharacterLimit = 2000;           // longer lines are cut, with a note
    int listEntryLimit = 1000;               // list_dir
    int globResultLimit = 1000;              // glob
    int grepResultLimit = 200;               // grep's default `max_results`
    qint64 editByteLimit = 16 * 1024 * 1024; // edit_file, write_file and grep skip larger files
};

// What the model last read of a file in this conversation: edit_file refuses a file that was
// never read, or whose content changed since (decided by the content hash; size and time only
// skip the hashing when they did not change). Shared by the file tools of one conversation, used
// from the worker threads they run on.
class FileReadLedger final
{
public:
    struct Entry
    {
        QByteArray sha256; // of the whole file's bytes
        qint64 size = -1;
        QDateTime modified;
    };

    void record(const QString &absolutePath, const Entry &entry);
    std::optional<Entry> find(const QString &absolutePath) const;
    // A new conversation starts knowing nothing.
    void clear();

private:
    static QString ledgerKey(const QString &absolutePath);

    mutable QMutex m_mutex;
    QHash<QString, Entry> m_entries;
};

// What the six file tools share: the workspace boundary, the ledger, the secrets and the limits.
struct FileToolContext
{
    explicit FileToolContext(const QString &root)
        : workspace(root)
        , boundary(root)
    {}

    const QString workspace; // as it was given
    WorkspaceBoundary boundary;
    mutable FileReadLedger ledger; // the only thing a tool call changes in its context
    // Masked in what the tools return, and what they match on is the masked text: whether a grep
    // matched or an edit found its old_string never depends on a secret's characters.
    KnownSecrets secrets;
    FileToolLimits limits;
    // Called with the written file right before it replaces the old one; tests make a write fail
    // there (cancelWriting()) to show that the old file stays whole.
    std::function<void(QSaveFile &file)> beforeCommit;
};

// read_file, list_dir, glob, grep (read: no approval inside the workspace), write_file and
// edit_file (write: the approval shows the diff). Every path goes through context->boundary;
// the work runs on the global thread pool, never on the caller's thread.
QList<std::shared_ptr<const Tool>> fileTools(std::shared_ptr<FileToolContext> context);

} // namespace AgentLoop
