// The conversation list reads through an index beside the files: what it shows is what the files
// say (titles as renamed, message counts, sizes), an unchanged file is not read again, a grown one
// only from where the index stopped, and an index that is missing, corrupt or stale is rebuilt
// from the files, never believed over them.

#include "storage/conversationindex.h"
#include "storage/conversationstore.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_ConversationIndex : public QObject
{
    Q_OBJECT

private slots:
    void init();

    void listShowsWhatTheFilesSay();
    void listingWritesTheIndex();
    void anUnchangedFileIsNotReadAgain();
    void aGrownFileIsReadFromWhereTheIndexStopped();
    void aChangedFileIsReadWhole();
    void aLineBeingWrittenCountsOnceComplete();
    void aMissingOrCorruptIndexIsRebuilt_data();
    void aMissingOrCorruptIndexIsRebuilt();
    void deletedConversationsLeaveTheIndex();
    void anUnreadableFileIsLeftOut();

private:
    QString path(const QString &id) const { return m_store->pathFor(id); }
    QString indexPath() const { return ConversationIndex::fileNameIn(m_dir->path()); }
    // A conversation with `exchanges` user/assistant pairs; returns its id.
    QString save(const QString &title, int exchanges);
    ConversationHeader listed(const QString &id) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConversationStore> m_store;
};

namespace {

bool appendBytes(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Append) && file.write(bytes) == bytes.size();
}

// Rewrites the file's bytes in place and gives it back its modification time: a change that only
// a reader of the whole file could see.
bool rewriteKeepingTime(const QString &path, const QByteArray &from, const QByteArray &to)
{
    Q_ASSERT(from.size() == to.size());
    QFile file(path);
    if (!file.open(QIODevice::ReadWrite))
        return false;
    const QDateTime modified = QFileInfo(path).lastModified();
    QByteArray bytes = file.readAll();
    if (!bytes.contains(from))
        return false;
    bytes.replace(from, to);
    return file.seek(0) && file.write(bytes) == bytes.size() && file.flush()
           && file.setFileTime(modified, QFileDevice::FileModificationTime);
}

// Moves the file's modification time on: a change the listing must see.
bool touchLater(const QString &path, int seconds)
{
    QFile file(path);
    return file.open(QIODevice::ReadWrite)
           && file.setFileTime(QDateTime::currentDateTime().addSecs(seconds),
                               QFileDevice::FileModificationTime);
}

} // namespace

void tst_ConversationIndex::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_store = std::make_unique<ConversationStore>(m_dir->path(), m_dir->filePath(u"outputs"_s));
}

QString tst_ConversationIndex::save(const QString &title, int exchanges)
{
    ConversationWriter writer;
    const Result<ConversationHeader> header = writer.create(*m_store,
                                                            title,
                                                            u"deepseek-chat"_s,
                                                            QUrl(u"http://127.0.0.1:1/v1"_s));
    if (!header)
        return {};
    for (int i = 1; i <= exchanges; ++i) {
        if (!writer.append(Message::user(u"question %1"_s.arg(i)))
            || !writer.append(Message::assistant(u"answer %1"_s.arg(i)))) {
            return {};
        }
    }
    return header->id;
}

ConversationHeader tst_ConversationIndex::listed(const QString &id) const
{
    const QList<ConversationHeader> headers = m_store->list();
    for (const ConversationHeader &header : headers) {
        if (header.id == id)
            return header;
    }
    return {};
}

void tst_ConversationIndex::listShowsWhatTheFilesSay()
{
    const QString first = save(u"fix the build"_s, 3);
    const QString second = save(u"修复构建"_s, 1);
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    QVERIFY(m_store->rename(first, u"Fix the Windows build"_s));

    const QList<ConversationHeader> headers = m_store->list();
    QCOMPARE(headers.size(), 2);
    for (const ConversationHeader &header : headers) {
        const Result<LoadedConversation> loaded = m_store->load(header.id);
        QVERIFY(loaded);
        QCOMPARE(header.title, loaded->header.title);
        QCOMPARE(header.messageCount, int(loaded->history.size()));
        QCOMPARE(header.sizeBytes, QFileInfo(path(header.id)).size());
        QCOMPARE(header.model, u"deepseek-chat"_s);
        QCOMPARE(header.created, loaded->header.created);
        QCOMPARE(header.updated, QFileInfo(path(header.id)).lastModified());
    }
    QCOMPARE(listed(first).title, u"Fix the Windows build"_s);
    QCOMPARE(listed(first).messageCount, 6);
    QCOMPARE(listed(second).title, u"修复构建"_s);
}

void tst_ConversationIndex::listingWritesTheIndex()
{
    const QString id = save(u"fix the build"_s, 2);
    QVERIFY(!QFile::exists(indexPath()));
    QCOMPARE(m_store->list().size(), 1);
    QFile file(indexPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject index = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(index[u"agentloop"_s].toString(), u"conversation-index"_s);
    QCOMPARE(index[u"conversations"_s][0][u"id"_s].toString(), id);
    QCOMPARE(index[u"conversations"_s][0][u"messages"_s].toInt(), 4);
    // The index is no conversation.
    QCOMPARE(m_store->list().size(), 1);
}

// The proof that a listing did not read the file: a change only a reader could see is not seen.
void tst_ConversationIndex::anUnchangedFileIsNotReadAgain()
{
    const QString id = save(u"fix the build"_s, 2);
    QCOMPARE(listed(id).title, u"fix the build"_s);
    QVERIFY(rewriteKeepingTime(path(id), "\"fix the build\"", "\"fix the BUILD\""));
    QCOMPARE(listed(id).title, u"fix the build"_s);
    // Once its time says it changed, the file is believed.
    QVERIFY(touchLater(path(id), 5));
    QCOMPARE(listed(id).title, u"fix the BUILD"_s);
}

void tst_ConversationIndex::aGrownFileIsReadFromWhereTheIndexStopped()
{
    const QString id = save(u"fix the build"_s, 2);
    QCOMPARE(listed(id).messageCount, 4);
    // Hidden from a reader of the tail only: a message line turned into a record.
    QVERIFY(rewriteKeepingTime(path(id),
                               "{\"content\":\"answer 1\"",
                               "{\"agentloop\":\"xy\",\"a\""));
    QVERIFY(m_store->rename(id, u"renamed later"_s));
    ConversationWriter writer;
    QVERIFY(writer.open(path(id)));
    QVERIFY(writer.append(Message::user(u"question 3"_s)));
    writer.close();

    const ConversationHeader header = listed(id);
    QCOMPARE(header.title, u"renamed later"_s);
    QCOMPARE(header.messageCount, 5); // 4 as indexed, 1 appended: the start was not read again
    QCOMPARE(header.sizeBytes, QFileInfo(path(id)).size());
}

void tst_ConversationIndex::aChangedFileIsReadWhole()
{
    const QString id = save(u"fix the build"_s, 3);
    QCOMPARE(listed(id).messageCount, 6);
    // Another conversation under the same name (copied over it): another header line.
    const QString other = save(u"another task"_s, 1);
    QVERIFY(QFile::remove(path(id)));
    QVERIFY(QFile::copy(path(other), path(id)));
    QVERIFY(touchLater(path(id), 5));
    // Shorter than what was read: read whole.
    QCOMPARE(listed(id).title, u"another task"_s);
    QCOMPARE(listed(id).messageCount, 2);

    // Longer, with another header: read whole too, not from where the old one stopped.
    const QString longer = save(u"a long one"_s, 9);
    QVERIFY(QFile::remove(path(id)));
    QVERIFY(QFile::copy(path(longer), path(id)));
    QVERIFY(touchLater(path(id), 10));
    QCOMPARE(listed(id).title, u"a long one"_s);
    QCOMPARE(listed(id).messageCount, 18);
}

void tst_ConversationIndex::aLineBeingWrittenCountsOnceComplete()
{
    const QString id = save(u"fix the build"_s, 1);
    QVERIFY(appendBytes(path(id), "{\"content\":\"half a mess"));
    QCOMPARE(listed(id).messageCount, 2);
    QVERIFY(appendBytes(path(id), "age\",\"role\":\"user\"}\n"));
    QCOMPARE(listed(id).messageCount, 3);
    QCOMPARE(m_store->load(id)->history.size(), 3);
}

void tst_ConversationIndex::aMissingOrCorruptIndexIsRebuilt_data()
{
    QTest::addColumn<QByteArray>("index");
    QTest::newRow("missing") << QByteArray();
    QTest::newRow("not JSON") << QByteArray("{\"agentloop\":\"conversation-in");
    QTest::newRow("another version")
            << QByteArray(R"({"agentloop":"conversation-index","version":99,"conversations":[]})");
    QTest::newRow("an entry without its fields")
            << QByteArray(R"({"agentloop":"conversation-index","version":1,)"
                          R"("conversations":[{"id":"x","title":"wrong"}]})");
}

void tst_ConversationIndex::aMissingOrCorruptIndexIsRebuilt()
{
    QFETCH(QByteArray, index);
    const QString id = save(u"fix the build"_s, 2);
    const QList<ConversationHeader> expected = m_store->list();
    QFile::remove(indexPath());
    if (!index.isEmpty()) {
        QFile file(indexPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(index.replace("\"x\"", "\"" + id.toUtf8() + "\""));
    }
    QCOMPARE(m_store->list(), expected);
    QCOMPARE(listed(id).title, u"fix the build"_s);
    // And it is whole again.
    QFile file(indexPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(file.readAll())[u"conversations"_s][0][u"messages"_s].toInt(),
             4);
}

void tst_ConversationIndex::deletedConversationsLeaveTheIndex()
{
    const QString kept = save(u"kept"_s, 1);
    const QString deleted = save(u"deleted"_s, 1);
    QCOMPARE(m_store->list().size(), 2);
    QVERIFY(m_store->remove(deleted));
    const QList<ConversationHeader> headers = m_store->list();
    QCOMPARE(headers.size(), 1);
    QCOMPARE(headers.first().id, kept);
    QFile file(indexPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains(deleted.toUtf8()));
}

void tst_ConversationIndex::anUnreadableFileIsLeftOut()
{
    const QString kept = save(u"kept"_s, 1);
    QFile notOurs(path(u"20260101-000000-0000"_s));
    QVERIFY(notOurs.open(QIODevice::WriteOnly));
    notOurs.write("{\"not\":\"a conversation\"}\n");
    notOurs.close();
    const QList<ConversationHeader> headers = m_store->list();
    QCOMPARE(headers.size(), 1);
    QCOMPARE(headers.first().id, kept);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ConversationIndex)
#include "tst_conversationindex.moc"
