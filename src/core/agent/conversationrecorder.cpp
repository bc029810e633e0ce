#include "agent/conversationrecorder.h"

#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

constexpr qsizetype titleLength = 60;

} // namespace

ConversationRecorder::ConversationRecorder(ConversationStore store, QObject *parent)
    : QObject(parent)
    , m_store(std::move(store))
{}

QString ConversationRecorder::titleFor(const QString &prompt)
{
    QString title = prompt.trimmed().section(u'\n', 0, 0).simplified();
    if (title.size() > titleLength)
        title = title.left(titleLength - 1).trimmed() + u'…';
    return title;
}

ConversationHeader ConversationRecorder::titledHeader(const History &history) const
{
    ConversationHeader header = m_header;
    if (!header.title.isEmpty())
        return header;
    for (const Message &message : history.messages()) {
        if (message.role() == Role::User) {
            header.title = titleFor(message.content());
            break;
        }
    }
    return header;
}

Result<void> ConversationRecorder::record(const Message &message, const ProviderSettings &provider)
{
    if (m_failed)
        return {};
    if (m_writer.isOpen()) {
        if (const Result<void> written = m_writer.append(message); !written)
            return failed(written.error());
        emit saved(m_header.id);
        return {};
    }
    if (!m_savesNew)
        return {};
    // The first prompt names the conversation and creates its file; what came before it waits
    // (both are written before the request goes out).
    m_waiting.append(message);
    if (message.role() != Role::User)
        return {};
    const Result<ConversationHeader> file = m_writer.create(m_store,
                                                            titleFor(message.content()),
                                                            provider.model,
                                                            provider.baseUrl);
    if (!file)
        return failed(file.error());
    m_header = *file;
    m_path = m_store.pathFor(m_header.id);
    for (const Message &waiting : std::exchange(m_waiting, {})) {
        if (const Result<void> written = m_writer.append(waiting); !written)
            return failed(written.error());
    }
    emit created(m_header);
    return {};
}

Result<void> ConversationRecorder::recordLine(const QJsonObject &line)
{
    if (m_failed || !m_writer.isOpen())
        return {};
    if (const Result<void> written = m_writer.appendRecord(line); !written)
        return failed(written.error());
    emit saved(m_header.id);
    return {};
}

Result<void> ConversationRecorder::failed(const Error &error)
{
    m_failed = true;
    m_waiting.clear();
    m_writer.close();
    return error;
}

Result<ContinuedConversation> ConversationRecorder::open(const QString &id)
{
    return continueFrom(m_store.load(id), m_store.pathFor(id));
}

Result<ContinuedConversation> ConversationRecorder::openFile(const QString &path)
{
    return continueFrom(ConversationStore::loadFile(path), path);
}

Result<ContinuedConversation> ConversationRecorder::continueFrom(Result<LoadedConversation> loaded,
                                                                 const QString &path)
{
    if (!loaded)
        return loaded.error();
    startNew();
    ContinuedConversation continued{std::move(*loaded), std::nullopt};
    m_header = continued.conversation.header;
    m_path = path;
    if (const Result<void> opened = m_writer.open(path); !opened) {
        m_failed = true;
        continued.notSaved = opened.error();
    }
    return continued;
}

void ConversationRecorder::startNew()
{
    m_writer.close();
    m_header = {};
    m_path.clear();
    m_waiting.clear();
    m_failed = false;
}

void ConversationRecorder::stopWriting()
{
    m_writer.close();
    m_waiting.clear();
    m_failed = true;
}

} // namespace AgentLoop
