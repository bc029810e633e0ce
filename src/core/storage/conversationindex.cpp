#include "storage/conversationindex.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr int indexVersion = 1;

QJsonObject toJson(const IndexedConversation &entry)
{
    const ConversationHeader &header = entry.header;
    return QJsonObject{{u"id"_s, header.id},
                       {u"title"_s, header.title},
                       {u"created"_s, header.created.toString(Qt::ISODateWithMs)},
                       {u"model"_s, header.model},
                       {u"baseUrl"_s, header.baseUrl},
                       {u"messages"_s, header.messageCount},
                       {u"size"_s, header.sizeBytes},
                       {u"headerSha1"_s, QString::fromLatin1(entry.headerLineSha1.toHex())},
                       {u"scanned"_s, entry.scannedBytes},
                       {u"modified"_s, entry.modifiedMsecs}};
}

std::optional<IndexedConversation> fromJson(const QJsonObject &object)
{
    IndexedConversation entry;
    ConversationHeader &header = entry.header;
    header.id = object.value(u"id"_s).toString();
    header.title = object.value(u"title"_s).toString();
    header.created = QDateTime::fromString(object.value(u"created"_s).toString(), Qt::ISODateWithMs);
    header.model = object.value(u"model"_s).toString();
    header.baseUrl = object.value(u"baseUrl"_s).toString();
    header.messageCount = object.value(u"messages"_s).toInt(-1);
    header.sizeBytes = object.value(u"size"_s).toInteger(-1);
    entry.headerLineSha1 = QByteArray::fromHex(object.value(u"headerSha1"_s).toString().toLatin1());
    entry.scannedBytes = object.value(u"scanned"_s).toInteger(-1);
    entry.modifiedMsecs = object.value(u"modified"_s).toInteger(-1);
    if (header.id.isEmpty() || header.messageCount < 0 || header.sizeBytes < 0
        || entry.scannedBytes < 0 || entry.scannedBytes > header.sizeBytes
        || entry.modifiedMsecs < 0 || entry.headerLineSha1.size() != 20) {
        return std::nullopt; // read again from its file
    }
    header.updated = QDateTime::fromMSecsSinceEpoch(entry.modifiedMsecs);
    return entry;
}

} // namespace

ConversationIndex::ConversationIndex(QString path)
    : m_path(std::move(path))
{}

QString ConversationIndex::fileNameIn(const QString &directory)
{
    return QDir(directory).filePath(u"index.json"_s);
}

void ConversationIndex::load()
{
    m_entries.clear();
    m_changed = false;
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly))
        return;
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    if (root.value(u"agentloop"_s).toString() != u"conversation-index"
        || root.value(u"version"_s).toInt() != indexVersion) {
        return;
    }
    const QJsonArray conversations = root.value(u"conversations"_s).toArray();
    for (const QJsonValue &value : conversations) {
        if (std::optional<IndexedConversation> entry = fromJson(value.toObject()))
            m_entries.insert(entry->header.id, std::move(*entry));
    }
}

std::optional<IndexedConversation> ConversationIndex::find(const QString &id) const
{
    if (const auto it = m_entries.constFind(id); it != m_entries.cend())
        return *it;
    return std::nullopt;
}

void ConversationIndex::put(const IndexedConversation &entry)
{
    auto it = m_entries.find(entry.header.id);
    if (it != m_entries.end() && *it == entry)
        return;
    m_entries.insert(entry.header.id, entry);
    m_changed = true;
}

void ConversationIndex::keepOnly(const QSet<QString> &ids)
{
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (ids.contains(it.key())) {
            ++it;
        } else {
            it = m_entries.erase(it);
            m_changed = true;
        }
    }
}

Result<void> ConversationIndex::save()
{
    QJsonArray conversations;
    for (const IndexedConversation &entry : std::as_const(m_entries))
        conversations.append(toJson(entry));
    const QJsonObject root{{u"agentloop"_s, u"conversation-index"_s},
                           {u"version"_s, indexVersion},
                           {u"conversations"_s, conversations}};
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(QJsonDocument(root).toJson(QJsonDocument::Compact)) < 0 || !file.commit()) {
        return Error{Error::Io,
                     QCoreApplication::translate("ConversationStore",
                                                 "Cannot save the conversation index %1: %2")
                             .arg(QDir::toNativeSeparators(m_path), file.errorString()),
                     {}};
    }
    m_changed = false;
    return {};
}

} // namespace AgentLoop
