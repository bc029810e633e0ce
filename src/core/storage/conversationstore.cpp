#include "storage/conversationstore.h"

#include "storage/conversationindex.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QStandardPaths>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct ConversationText
{
    Q_DECLARE_TR_FUNCTIONS(ConversationStore)
};

constexpr int formatVersion = 1;
constexpr qsizetype maxTitleLength = 80;

const QString interruptedContent
        = u"interrupted: the app stopped before this call finished; it may or may not have run."_s;

QString nativePath(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

QByteArray jsonLine(const QJsonObject &object)
{
    // Compact JSON escapes every newline inside strings, so one object is exactly one line.
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

// One line of text, whitespace collapsed, short enough for a list.
QString titleFrom(const QString &text)
{
    QString title = text.trimmed().section(u'\n', 0, 0).simplified();
    if (title.size() > maxTitleLength)
        title = title.left(maxTitleLength - 1) + u"…"_s;
    return title;
}

// The provider's address without anything that could be a credential.
QString safeBaseUrl(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment).toString();
}

Error readError(const QString &path, const QString &reason)
{
    return Error{Error::Io,
                 ConversationText::tr("Cannot read the conversation %1: %2")
                         .arg(nativePath(path), reason),
                 ConversationText::tr("Choose a conversation file saved by Agent Loop.")};
}

Result<ConversationHeader> parseHeader(const QString &path, const QByteArray &line)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
    const QJsonObject object = document.object();
    if (parseError.error != QJsonParseError::NoError || !document.isObject()
        || object.value(u"agentloop"_s).toString() != u"conversation") {
        return readError(path, ConversationText::tr("the first line is not a conversation header"));
    }
    const int version = object.value(u"version"_s).toInt();
    if (version < 1 || version > formatVersion) {
        return Error{Error::Io,
                     ConversationText::tr("Cannot read the conversation %1: format version %2 is "
                                          "not supported")
                             .arg(nativePath(path))
                             .arg(version),
                     ConversationText::tr("It was written by a newer Agent Loop; update the app.")};
    }
    ConversationHeader header;
    const QFileInfo info(path);
    header.id = info.completeBaseName();
    header.title = object.value(u"title"_s).toString();
    header.created = QDateTime::fromString(object.value(u"created"_s).toString(), Qt::ISODateWithMs);
    header.updated = info.lastModified();
    header.model = object.value(u"model"_s).toString();
    header.baseUrl = object.value(u"baseUrl"_s).toString();
    return header;
}

// The lines of a file with their 1-based numbers; the last one may lack its '\n' (a torn write).
struct Line
{
    int number = 0;
    QByteArray bytes;
};

QList<Line> splitLines(const QByteArray &bytes)
{
    QList<Line> lines;
    int number = 0;
    qsizetype start = 0;
    while (start < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', start);
        if (end < 0)
            end = bytes.size();
        ++number;
        QByteArray line = bytes.mid(start, end - start);
        if (line.endsWith('\r'))
            line.chop(1);
        if (!line.trimmed().isEmpty())
            lines.append(Line{number, line});
        start = end + 1;
    }
    return lines;
}

Result<QByteArray> readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return readError(path, file.errorString());
    return file.readAll();
}

// The file's lines, the first already read as the header.
struct ConversationFile
{
    ConversationHeader header;
    QList<Line> lines; // all of them, the header line first
};

Result<ConversationFile> readConversationFile(const QString &path)
{
    Result<QByteArray> bytes = readAll(path);
    if (!bytes)
        return bytes.error();
    QList<Line> lines = splitLines(*bytes);
    if (lines.isEmpty())
        return readError(path, ConversationText::tr("the file is empty"));
    Result<ConversationHeader> header = parseHeader(path, lines.first().bytes);
    if (!header)
        return header.error();
    return ConversationFile{*header, std::move(lines)};
}

constexpr qint64 scanBlockBytes = qint64(1) << 20;

QByteArray sha1Of(QByteArrayView bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha1);
}

// The first non-blank line of the file (the header), without its line end; empty when the file
// cannot be read or has no complete first line.
QByteArray firstLineOf(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    while (!file.atEnd()) {
        QByteArray line = file.readLine(scanBlockBytes);
        if (!line.endsWith('\n'))
            return {};
        line.chop(line.endsWith("\r\n") ? 2 : 1);
        if (!line.trimmed().isEmpty())
            return line;
    }
    return {};
}

// Brings the entry up to the file's end, reading only from entry.scannedBytes on (0: the whole
// file, whose first line is the header). Renames set the title; every other object line is a
// message, except compaction records. Only complete lines count: one still being written is
// read by the next listing.
Result<void> scanConversation(const QString &path, IndexedConversation &entry)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(entry.scannedBytes))
        return readError(path, file.errorString());
    QByteArray pending;
    while (true) {
        const QByteArray block = file.read(scanBlockBytes);
        if (block.isEmpty())
            break;
        pending += block;
        qsizetype start = 0;
        for (qsizetype end = pending.indexOf('\n'); end >= 0;
             start = end + 1, end = pending.indexOf('\n', start)) {
            QByteArrayView line = QByteArrayView(pending).sliced(start, end - start);
            if (line.endsWith('\r'))
                line.chop(1);
            if (line.trimmed().isEmpty())
                continue;
            if (entry.headerLineSha1.isEmpty()) {
                Result<ConversationHeader> header = parseHeader(path, line.toByteArray());
                if (!header)
                    return header.error();
                entry.header = *header;
                entry.headerLineSha1 = sha1Of(line);
            } else if (line.startsWith("{\"agentloop\":")) {
                // Records are written compact with sorted keys, so "agentloop" comes first.
                const QJsonObject object = QJsonDocument::fromJson(line.toByteArray()).object();
                if (object.value(u"agentloop"_s).toString() == u"rename")
                    entry.header.title = object.value(u"title"_s).toString();
            } else if (line.startsWith('{')) {
                ++entry.header.messageCount;
            }
        }
        entry.scannedBytes += start;
        pending.remove(0, start);
    }
    if (entry.headerLineSha1.isEmpty())
        return readError(path, ConversationText::tr("the file is empty"));
    return {};
}

// The index's entry for the file, read again where the file changed since (see
// ConversationIndex); nullopt when the file cannot be read as a conversation.
std::optional<IndexedConversation> currentEntry(const QFileInfo &file,
                                                std::optional<IndexedConversation> entry)
{
    const qint64 modified = file.lastModified().toMSecsSinceEpoch();
    if (entry && entry->header.sizeBytes == file.size() && entry->modifiedMsecs == modified)
        return entry;
    const QString path = file.absoluteFilePath();
    const bool grew = entry && file.size() >= entry->scannedBytes
                      && sha1Of(firstLineOf(path)) == entry->headerLineSha1;
    IndexedConversation read = grew ? *entry : IndexedConversation{};
    if (!scanConversation(path, read))
        return std::nullopt;
    // Size and time from before reading: lines appended meanwhile make the next listing read on.
    read.header.sizeBytes = file.size();
    read.modifiedMsecs = modified;
    return read;
}

// The compaction records: a compaction adds one, an undo takes the latest of that id away again.
// A record that does not parse is reported and left out, like a corrupt message line.
void readCompactionRecord(const QJsonObject &record, int lineNumber, LoadedConversation &loaded)
{
    const QString kind = record.value(u"agentloop"_s).toString();
    if (kind == u"compaction-undone") {
        const QString id = record.value(u"id"_s).toString();
        for (qsizetype i = loaded.compactions.size() - 1; i >= 0; --i) {
            if (loaded.compactions.at(i).id == id) {
                loaded.compactions.removeAt(i);
                break;
            }
        }
        return;
    }
    if (kind != u"compaction")
        return;
    Result<Compaction> compaction = Compaction::fromJson(record);
    if (!compaction) {
        loaded.repairs.append(
                ConversationText::tr("Line %1 could not be read and was skipped (%2).")
                        .arg(lineNumber)
                        .arg(compaction.error().message));
        return;
    }
    loaded.compactions.append(std::move(compaction).value());
}

// Compactions that do not fit the history as read (lines lost to a crash) are left out.
void dropUnfitCompactions(LoadedConversation &loaded)
{
    for (qsizetype i = loaded.compactions.size() - 1; i >= 0; --i) {
        if (const Result<void> fits = checkCompaction(loaded.compactions.at(i), loaded.history);
            !fits) {
            loaded.repairs.append(fits.error().message);
            loaded.compactions.removeAt(i);
        }
    }
}

} // namespace

ConversationStore::ConversationStore(QString directory, QString outputDirectory)
    : m_directory(directory.isEmpty() ? defaultDirectory() : std::move(directory))
    , m_outputDirectory(outputDirectory.isEmpty() ? defaultOutputDirectory()
                                                  : std::move(outputDirectory))
{}

QString ConversationStore::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)
           + u"/conversations"_s;
}

QString ConversationStore::defaultOutputDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + u"/outputs"_s;
}

QString ConversationStore::outputDirectoryFor(const QString &id) const
{
    return QDir(m_outputDirectory).filePath(id);
}

QString ConversationStore::auditPathFor(const QString &conversationPath)
{
    const QFileInfo conversation(conversationPath);
    return conversation.dir().filePath(conversation.completeBaseName() + u".audit"_s);
}

QString ConversationStore::pathFor(const QString &id) const
{
    return QDir(m_directory).filePath(id + u".jsonl"_s);
}

QList<ConversationHeader> ConversationStore::list() const
{
    ConversationIndex index(ConversationIndex::fileNameIn(m_directory));
    index.load();
    QList<ConversationHeader> headers;
    QSet<QString> listed;
    const QFileInfoList files
            = QDir(m_directory).entryInfoList({u"*.jsonl"_s}, QDir::Files | QDir::Readable);
    for (const QFileInfo &file : files) {
        const QString id = file.completeBaseName();
        const std::optional<IndexedConversation> entry = currentEntry(file, index.find(id));
        if (!entry)
            continue;
        index.put(*entry);
        listed.insert(id);
        ConversationHeader header = entry->header;
        header.updated = file.lastModified();
        headers.append(header);
    }
    index.keepOnly(listed);
    // A cache: when it cannot be written, the next listing only takes longer.
    if (index.isChanged())
        (void) index.save();
    std::sort(headers.begin(),
              headers.end(),
              [](const ConversationHeader &a, const ConversationHeader &b) {
                  if (a.updated != b.updated)
                      return a.updated > b.updated;
                  return a.id > b.id; // the name starts with the creation time
              });
    return headers;
}

Result<LoadedConversation> ConversationStore::load(const QString &id) const
{
    return loadFile(pathFor(id));
}

Result<LoadedConversation> ConversationStore::loadFile(const QString &path)
{
    Result<ConversationFile> file = readConversationFile(path);
    if (!file)
        return file.error();
    const QList<Line> &lines = file->lines;

    LoadedConversation loaded;
    loaded.header = file->header;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const Line &line = lines.at(i);
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(line.bytes, &parseError);
        QString problem;
        if (parseError.error != QJsonParseError::NoError) {
            problem = parseError.errorString();
        } else if (!document.isObject()) {
            problem = ConversationText::tr("not a JSON object");
        } else if (const QJsonObject object = document.object(); object.contains(u"agentloop"_s)) {
            // A header update or a compaction; kinds this version does not know are left alone.
            if (object.value(u"agentloop"_s).toString() == u"rename")
                loaded.header.title = object.value(u"title"_s).toString();
            readCompactionRecord(object, line.number, loaded);
            continue;
        } else if (const Result<Message> message = Message::fromJson(object); !message) {
            problem = message.error().message;
        } else {
            loaded.history.append(*message);
            continue;
        }
        loaded.repairs.append(
                ConversationText::tr("Line %1 could not be read and was skipped (%2).")
                        .arg(line.number)
                        .arg(problem));
    }

    dropUnfitCompactions(loaded);
    if (loaded.history.checkPairing())
        return loaded;

    // A run stopped between an assistant message and the results of its calls: answer each open
    // call, in order, with a result that says what is known. Anything else is not a crash this
    // repair understands, and the file stays exactly as it is.
    const QList<ToolCall> unanswered = loaded.history.unansweredToolCalls();
    History repaired = loaded.history;
    for (const ToolCall &call : unanswered)
        repaired.append(Message::tool(call.id, interruptedContent));
    if (unanswered.isEmpty() || !repaired.checkPairing())
        return loaded.history.checkPairing().error();

    ConversationWriter writer;
    Result<void> written = writer.open(path);
    for (qsizetype i = loaded.history.size(); written && i < repaired.size(); ++i)
        written = writer.append(repaired.at(i));
    loaded.repairedFrom = loaded.history.size();
    loaded.history = repaired;
    loaded.repairs.append(
            ConversationText::tr("The app stopped while %n tool call(s) had no result; each was "
                                 "answered as interrupted.",
                                 nullptr,
                                 int(unanswered.size())));
    if (!written) {
        loaded.repairs.append(ConversationText::tr("The repair could not be saved: %1")
                                      .arg(written.error().message));
    }
    return loaded;
}

Result<ConversationTail> ConversationStore::readTail(const QString &path, qint64 maxBytes)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return readError(path, file.errorString());
    const QByteArray first = file.readLine(scanBlockBytes);
    Result<ConversationHeader> header = parseHeader(path, first.trimmed());
    if (!header)
        return header.error();
    const qint64 from = std::max<qint64>(first.size(), file.size() - maxBytes);
    if (!file.seek(from))
        return readError(path, file.errorString());
    QByteArray bytes = file.read(file.size() - from);
    // A line cut by the start of the read is not one.
    if (from > first.size()) {
        const qsizetype newline = bytes.indexOf('\n');
        bytes.remove(0, newline < 0 ? bytes.size() : newline + 1);
    }
    ConversationTail tail{*header, {}};
    for (const Line &line : splitLines(bytes)) {
        const QJsonObject object = QJsonDocument::fromJson(line.bytes).object();
        if (object.isEmpty() || object.contains(u"agentloop"_s))
            continue;
        if (Result<Message> message = Message::fromJson(object))
            tail.messages.append(*message);
    }
    return tail;
}

Result<void> ConversationStore::rename(const QString &id, const QString &title) const
{
    ConversationWriter writer;
    if (Result<void> opened = writer.open(pathFor(id)); !opened)
        return opened;
    return writer.writeLine(
            jsonLine(QJsonObject{{u"agentloop"_s, u"rename"_s}, {u"title"_s, titleFrom(title)}}));
}

Result<void> ConversationStore::remove(const QString &id) const
{
    // Outputs first: if they cannot go, the conversation stays listed and the user can retry.
    QDir outputs(outputDirectoryFor(id));
    if (!id.isEmpty() && outputs.exists() && !outputs.removeRecursively()) {
        return Error{Error::Io,
                     ConversationText::tr("Cannot delete the command outputs of the conversation "
                                          "in %1.")
                             .arg(nativePath(outputs.path())),
                     {}};
    }
    QFile audit(auditPathFor(pathFor(id)));
    if (audit.exists() && !audit.remove()) {
        return Error{Error::Io,
                     ConversationText::tr("Cannot delete the audit trail of the conversation %1: "
                                          "%2")
                             .arg(nativePath(audit.fileName()), audit.errorString()),
                     {}};
    }
    QFile file(pathFor(id));
    if (!file.remove()) {
        return Error{Error::Io,
                     ConversationText::tr("Cannot delete the conversation %1: %2")
                             .arg(nativePath(file.fileName()), file.errorString()),
                     {}};
    }
    return {};
}

Result<ConversationHeader> ConversationWriter::create(const ConversationStore &store,
                                                      const QString &title,
                                                      const QString &model,
                                                      const QUrl &baseUrl)
{
    m_file.close();
    const auto cannotCreate = [&](const QString &path, const QString &reason) {
        return Error{Error::Io,
                     ConversationText::tr("Cannot save the conversation in %1: %2")
                             .arg(nativePath(path), reason),
                     ConversationText::tr("Check that the folder exists and can be written to.")};
    };
    if (!QDir().mkpath(store.directory()))
        return cannotCreate(store.directory(), ConversationText::tr("cannot create the folder"));

    ConversationHeader header;
    header.created = QDateTime::currentDateTime();
    header.title = titleFrom(title);
    header.model = model;
    header.baseUrl = safeBaseUrl(baseUrl);
    const QString stamp = header.created.toString(u"yyyyMMdd-HHmmss"_s);
    for (int attempt = 0; attempt < 100 && !m_file.isOpen(); ++attempt) {
        header.id = stamp + u'-'
                    + u"%1"_s.arg(QRandomGenerator::global()->bounded(0x10000u), 4, 16, QChar(u'0'));
        m_file.setFileName(store.pathFor(header.id));
        // NewOnly: two conversations started in the same second never share a file.
        if (!m_file.open(QIODevice::WriteOnly | QIODevice::NewOnly | QIODevice::Unbuffered)
            && !QFileInfo::exists(m_file.fileName())) {
            return cannotCreate(m_file.fileName(), m_file.errorString());
        }
    }
    if (!m_file.isOpen())
        return cannotCreate(store.directory(), m_file.errorString());

    const QJsonObject line{{u"agentloop"_s, u"conversation"_s},
                           {u"version"_s, formatVersion},
                           {u"title"_s, header.title},
                           {u"created"_s, header.created.toString(Qt::ISODateWithMs)},
                           {u"model"_s, header.model},
                           {u"baseUrl"_s, header.baseUrl}};
    if (Result<void> written = writeLine(jsonLine(line)); !written) {
        m_file.close();
        m_file.remove();
        return written.error();
    }
    header.updated = QFileInfo(m_file.fileName()).lastModified();
    return header;
}

Result<void> ConversationWriter::open(const QString &path)
{
    m_file.close();
    m_file.setFileName(path);
    const auto cannotOpen = [&] {
        return Error{Error::Io,
                     ConversationText::tr("Cannot write to the conversation %1: %2")
                             .arg(nativePath(path), m_file.errorString()),
                     ConversationText::tr("Check that the file exists and can be written to.")};
    };
    // Append mode: every write lands at the end, whatever else has the file open, and nothing
    // already in it can be overwritten or cut off.
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::ExistingOnly
                     | QIODevice::Unbuffered)) {
        return cannotOpen();
    }
    // A torn last line (a kill mid-write) must not swallow the next line: start a new one.
    QFile reader(path);
    if (reader.open(QIODevice::ReadOnly) && reader.size() > 0) {
        reader.seek(reader.size() - 1);
        char last = 0;
        if (reader.getChar(&last) && last != '\n') {
            if (Result<void> written = writeLine(QByteArrayLiteral("\n")); !written) {
                m_file.close();
                return written;
            }
        }
    }
    return {};
}

Result<void> ConversationWriter::append(const Message &message)
{
    return writeLine(jsonLine(message.toStoredJson()));
}

Result<void> ConversationWriter::appendRecord(const QJsonObject &record)
{
    return writeLine(jsonLine(record));
}

// One write() of a whole line, then flush(). What survives a crash or kill -9 of this process is
// what the operating system has been given, not what has reached the disk: the kernel writes its
// page cache out on its own after the process is gone. So handing each line to the OS at once
// (the file is unbuffered, and flush() is kept for any buffering Qt may add) is what makes a
// message durable against the process dying; fsync() per message would only add protection
// against a power cut or kernel crash, at the cost of a disk round trip per message.
Result<void> ConversationWriter::writeLine(const QByteArray &line)
{
    if (!m_file.isOpen()) {
        return Error{Error::Io, ConversationText::tr("The conversation file is not open."), {}};
    }
    if (m_file.write(line) != line.size() || !m_file.flush()) {
        return Error{Error::Io,
                     ConversationText::tr("Cannot write to the conversation %1: %2")
                             .arg(nativePath(m_file.fileName()), m_file.errorString()),
                     ConversationText::tr("Check the free disk space and the file's permissions.")};
    }
    return {};
}

QByteArray exportMessagesJson(const History &history)
{
    return QJsonDocument(history.toJson()).toJson(QJsonDocument::Indented);
}

namespace {

// A fence longer than any run of backticks in the text, so the text cannot close it.
QString fenced(const QString &text, const QString &language = {})
{
    qsizetype longest = 0;
    qsizetype run = 0;
    for (const QChar c : text) {
        run = c == u'`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const QString fence(std::max<qsizetype>(3, longest + 1), u'`');
    QString body = text;
    if (!body.endsWith(u'\n'))
        body += u'\n';
    return fence + language + u'\n' + body + fence + u"\n\n"_s;
}

QString prettyArguments(const QString &arguments)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(arguments.toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return arguments; // exactly what the model wrote
    return QString::fromUtf8(document.toJson(QJsonDocument::Indented));
}

// A table cell: a `|` would end it and a line break the row.
QString cell(QString text)
{
    text.replace(u'\\', u"\\\\"_s).replace(u'|', u"\\|"_s);
    text.replace(u"\r\n"_s, u" "_s).replace(u'\n', u' ').replace(u'\r', u' ');
    return text;
}

QString auditDecision(const QJsonObject &entry)
{
    const QString decision = entry.value(u"decision"_s).toString();
    QString text = decision == u"allow" ? ConversationText::tr("allow")
                   : decision == u"allow_conversation"
                           ? ConversationText::tr("allow for this conversation")
                   : decision == u"deny" ? ConversationText::tr("deny")
                                         : ConversationText::tr("none");
    if (entry.value(u"asked"_s).toBool())
        text = ConversationText::tr("%1 (asked)").arg(text);
    return text;
}

QString auditResult(const QJsonObject &entry)
{
    const int exitCode = entry.value(u"exit_code"_s).toInt(-1);
    QStringList parts;
    if (!entry.value(u"ok"_s).toBool(true))
        parts << entry.value(u"error_code"_s).toString();
    if (exitCode >= 0)
        parts << ConversationText::tr("exit %1").arg(exitCode);
    if (parts.isEmpty())
        parts << ConversationText::tr("ok");
    return parts.join(u", "_s);
}

QString auditMarkdown(const QList<QJsonObject> &audit)
{
    QString text = u"## "_s + ConversationText::tr("Audit trail") + u"\n\n"_s;
    const QStringList headings{ConversationText::tr("Time"),
                               ConversationText::tr("Turn"),
                               ConversationText::tr("Tool"),
                               ConversationText::tr("Call"),
                               ConversationText::tr("Decision"),
                               ConversationText::tr("Decided by"),
                               ConversationText::tr("Reason"),
                               ConversationText::tr("Result"),
                               ConversationText::tr("Duration")};
    text += u"| "_s + headings.join(u" | "_s) + u" |\n"_s;
    text += u"|"_s + u"---|"_s.repeated(headings.size()) + u'\n';
    for (const QJsonObject &entry : audit) {
        const QStringList cells{
                entry.value(u"time"_s).toString(),
                QString::number(entry.value(u"turn"_s).toInt()),
                entry.value(u"tool"_s).toString(),
                entry.value(u"tool_call_id"_s).toString(),
                auditDecision(entry),
                entry.value(u"decided_by"_s).toString(),
                entry.value(u"reason"_s).toString(),
                auditResult(entry),
                entry.contains(u"duration_ms"_s) ? ConversationText::tr("%1 ms").arg(
                        entry.value(u"duration_ms"_s).toInteger())
                                                 : QString(),
        };
        QStringList escaped;
        for (const QString &value : cells)
            escaped << cell(value);
        text += u"| "_s + escaped.join(u" | "_s) + u" |\n"_s;
    }
    return text + u'\n';
}

} // namespace

QByteArray exportAuditJsonLines(const QList<QJsonObject> &audit)
{
    QByteArray lines;
    for (const QJsonObject &entry : audit)
        lines += QJsonDocument(entry).toJson(QJsonDocument::Compact) + '\n';
    return lines;
}

QString exportMarkdown(const ConversationHeader &header,
                       const History &history,
                       const QList<QJsonObject> &audit)
{
    QString text;
    const QString title = header.title.isEmpty() ? ConversationText::tr("Conversation")
                                                 : header.title;
    text += u"# "_s + title + u"\n\n"_s;
    if (header.created.isValid()) {
        text += ConversationText::tr("- Date: %1").arg(header.created.toString(Qt::ISODate))
                + u'\n';
    }
    if (!header.model.isEmpty())
        text += ConversationText::tr("- Model: %1").arg(header.model) + u'\n';
    text += u'\n';

    for (const Message &message : history.messages()) {
        switch (message.role()) {
        case Role::System:
            text += u"## "_s + ConversationText::tr("System") + u"\n\n"_s + message.content()
                    + u"\n\n"_s;
            break;
        case Role::User:
            text += u"## "_s + ConversationText::tr("User") + u"\n\n"_s + message.content()
                    + u"\n\n"_s;
            break;
        case Role::Assistant:
            text += u"## "_s + ConversationText::tr("Assistant") + u"\n\n"_s;
            if (message.hasText())
                text += message.content() + u"\n\n"_s;
            for (const ToolCall &call : message.toolCalls()) {
                text += u"### "_s + ConversationText::tr("Tool call `%1`").arg(call.name)
                        + u"\n\n"_s + fenced(prettyArguments(call.arguments), u"json"_s);
            }
            break;
        case Role::Tool:
            text += u"### "_s + ConversationText::tr("Tool result") + u"\n\n"_s
                    + fenced(message.content());
            break;
        }
    }
    if (!audit.isEmpty())
        text += auditMarkdown(audit);
    return text;
}

} // namespace AgentLoop
