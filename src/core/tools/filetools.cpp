#include "tools/filetools.h"

#include "base/background.h"
#include "files/textcodec.h"
#include "files/unifieddiff.h"
#include "tools/fileedits.h"
#include "tools/pathpatterns.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFutureWatcher>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

// The texts in this file go to the model: English, with a stable code first on failures.

void FileReadLedger::record(const QString &absolutePath, const Entry &entry)
{
    const QMutexLocker locker(&m_mutex);
    m_entries.insert(ledgerKey(absolutePath), entry);
}

std::optional<FileReadLedger::Entry> FileReadLedger::find(const QString &absolutePath) const
{
    const QMutexLocker locker(&m_mutex);
    const auto it = m_entries.constFind(ledgerKey(absolutePath));
    if (it == m_entries.cend())
        return std::nullopt;
    return *it;
}

void FileReadLedger::clear()
{
    const QMutexLocker locker(&m_mutex);
    m_entries.clear();
}

QString FileReadLedger::ledgerKey(const QString &absolutePath)
{
#ifdef Q_OS_WIN
    return absolutePath.toCaseFolded(); // one file, however the model spells its case
#else
    return absolutePath;
#endif
}

namespace {

// ---- Running off the caller's thread ----------------------------------------------------------

// A tool call running on the thread pool. Read tools stop at once when cancelled (their work
// checks the promise and its result is dropped); a write is never interrupted halfway: its
// true result follows, written or not.
class BackgroundToolRun final : public ToolRun
{
public:
    BackgroundToolRun(QFuture<ToolResult> future, bool interruptible, QObject *parent)
        : ToolRun(parent)
        , m_future(future)
        , m_interruptible(interruptible)
    {
        connect(&m_watcher, &QFutureWatcherBase::finished, this, [this] {
            if (m_future.isValid() && m_future.resultCount() > 0)
                deliver(m_future.result());
            else
                deliver(cancelledResult());
        });
        m_watcher.setFuture(future);
    }

    void cancel() override
    {
        if (!m_interruptible || m_delivered)
            return;
        m_future.cancel();
        QTimer::singleShot(0, this, [this] { deliver(cancelledResult()); });
    }

private:
    static ToolResult cancelledResult()
    {
        return ToolResult::failure(u"cancelled"_s, u"the user stopped the run."_s);
    }

    void deliver(const ToolResult &result)
    {
        if (std::exchange(m_delivered, true))
            return;
        emit finished(result);
    }

    QFuture<ToolResult> m_future;
    QFutureWatcher<ToolResult> m_watcher;
    bool m_interruptible = true;
    bool m_delivered = false;
};

// ---- Shared pieces --------------------------------------------------------------------------

ToolResult refusal(const PathRefusal &refusal)
{
    return ToolResult::failure(refusal.code, refusal.detail);
}

JsonSchema objectSchema(const QJsonObject &properties, const QStringList &required)
{
    return JsonSchema(QJsonObject{
            {u"type"_s, u"object"_s},
            {u"properties"_s, properties},
            {u"required"_s, QJsonArray::fromStringList(required)},
            {u"additionalProperties"_s, false},
    });
}

QJsonObject stringProperty(const QString &description)
{
    return {{u"type"_s, u"string"_s}, {u"description"_s, description}};
}

QJsonObject pathProperty(const QString &description)
{
    QJsonObject property = stringProperty(description);
    property.insert(u"minLength"_s, 1);
    return property;
}

QJsonObject integerProperty(const QString &description, int minimum, int maximum = -1)
{
    QJsonObject property{{u"type"_s, u"integer"_s},
                         {u"minimum"_s, minimum},
                         {u"description"_s, description}};
    if (maximum >= 0)
        property.insert(u"maximum"_s, maximum);
    return property;
}

QJsonObject booleanProperty(const QString &description)
{
    return {{u"type"_s, u"boolean"_s}, {u"description"_s, description}};
}

// The search folder of list_dir, glob and grep: the workspace when the model named none.
std::variant<WorkspacePath, ToolResult> searchFolder(const FileToolContext &context,
                                                     const QJsonObject &arguments)
{
    const QString path = arguments.value(u"path"_s).toString(u"."_s);
    const PathResolution resolution = context.boundary.resolve(path,
                                                               WorkspaceBoundary::Access::Read);
    if (const auto *refused = std::get_if<PathRefusal>(&resolution))
        return refusal(*refused);
    const WorkspacePath &folder = std::get<WorkspacePath>(resolution);
    if (!folder.exists) {
        return ToolResult::failure(u"file_not_found"_s,
                                   u"%1 does not exist in the workspace. Use list_dir to see what "
                                   u"is there."_s.arg(path));
    }
    return folder;
}

// ---- read_file --------------------------------------------------------------------------------

// One numbered line as `cat -n` shows it.
void appendNumberedLine(QString &out,
                        qsizetype number,
                        QStringView line,
                        int characterLimit,
                        QList<qsizetype> &cutLines)
{
    out += u"%1\t"_s.arg(number, 6);
    if (line.size() > characterLimit) {
        out += line.first(characterLimit);
        out += u"... [line cut]"_s;
        cutLines.append(number);
    } else {
        out += line;
    }
    out += u'\n';
}

QString lineListText(const QList<qsizetype> &numbers)
{
    QStringList texts;
    for (qsizetype i = 0; i < std::min<qsizetype>(numbers.size(), 10); ++i)
        texts.append(QString::number(numbers[i]));
    if (numbers.size() > 10)
        texts.append(u"and %1 more"_s.arg(numbers.size() - 10));
    return texts.join(u", "_s);
}

ToolResult readFile(const FileToolContext &context,
                    const QJsonObject &arguments,
                    const QPromise<ToolResult> &)
{
    const FileToolLimits &limits = context.limits;
    const qsizetype offset = arguments.value(u"offset"_s).toInteger(1);
    const qsizetype limit = arguments.value(u"limit"_s).toInteger(limits.readLineLimit);
    // Only the beginning of a file too large to read whole: a 100 MB log answers at once.
    auto opened = openTextFile(context,
                               arguments.value(u"path"_s).toString(),
                               WorkspaceBoundary::Access::Read,
                               limits.readByteLimit);
    if (auto *failure = std::get_if<ToolResult>(&opened))
        return *failure;
    const OpenedTextFile &file = std::get<OpenedTextFile>(opened);
    // A secret never has a line break: masking keeps the lines and their numbers.
    const QString text = redacted(file.decoded.text, context.secrets.list());

    QString body;
    QList<qsizetype> cutLines;
    qsizetype number = 0; // of the line last taken from the text
    qsizetype shown = 0;
    qsizetype shownCharacters = 0;
    enum { AtEnd, AtLimit, AtBytes, AtUnreadPart } stop = AtEnd;
    for (qsizetype position = 0; position < text.size();) {
        qsizetype end = text.indexOf(u'\n', position);
        if (end < 0 && !file.wholeFileDecoded) {
            stop = AtUnreadPart; // the last line goes on past what was read
            break;
        }
        if (end < 0)
            end = text.size();
        if (number + 1 >= offset) {
            if (shown == limit) {
                stop = AtLimit;
                break;
            }
            QStringView line = QStringView(text).sliced(position, end - position);
            if (line.endsWith(u'\r'))
                line.chop(1);
            shownCharacters += std::min<qsizetype>(line.size(), limits.lineCharacterLimit) + 1;
            if (shownCharacters > limits.readByteLimit && shown > 0) {
                stop = AtBytes;
                break;
            }
            appendNumberedLine(body, number + 1, line, limits.lineCharacterLimit, cutLines);
            ++shown;
        }
        ++number;
        position = end + 1;
    }
    if (stop == AtEnd && !file.wholeFileDecoded)
        stop = AtUnreadPart;

    const TextFormat &format = file.decoded.format;
    QString content = u"encoding: %1, line endings: %2, "_s.arg(format.encodingName(),
                                                                format.lineEndingsName());
    if (file.wholeFileDecoded)
        content += u"%1 lines\n"_s.arg(file.lineCount);
    else
        content += u"more than %1 lines (the file is %2; only its first %3 were read)\n"_s
                           .arg(number)
                           .arg(sizeText(file.size), sizeText(limits.readByteLimit));
    content += body;

    const qsizetype next = number + 1;
    if (text.isEmpty() && file.wholeFileDecoded)
        content += u"[The file is empty.]\n"_s;
    else if (shown == 0 && stop == AtEnd)
        content += u"[offset %1 is past the end of the file (%2 lines).]\n"_s.arg(offset).arg(
                file.lineCount);
    if (stop == AtLimit)
        content += u"[Stopped after %1 lines (the limit); read on with offset=%2.]\n"_s.arg(shown)
                           .arg(next);
    else if (stop == AtBytes)
        content += u"[Stopped after %1 of text; read on with offset=%2.]\n"_s
                           .arg(sizeText(limits.readByteLimit))
                           .arg(next);
    else if (stop == AtUnreadPart)
        content += u"[Stopped at line %1: files over %2 are read only as far as their first %3; "
                   u"use grep or the shell for the rest.]\n"_s.arg(number)
                           .arg(sizeText(limits.editByteLimit), sizeText(limits.readByteLimit));
    if (!cutLines.isEmpty())
        content += u"[Lines longer than %1 characters were cut: %2.]\n"_s
                           .arg(limits.lineCharacterLimit)
                           .arg(lineListText(cutLines));

    // What the model has now seen: edit_file may change this file until it changes on disk.
    if (!file.bytes.isNull())
        context.ledger.record(file.path.absolute, file.fingerprint);
    return ToolResult::success(content);
}

// ---- list_dir ---------------------------------------------------------------------------------

ToolResult listDirectory(const FileToolContext &context,
                         const QJsonObject &arguments,
                         const QPromise<ToolResult> &)
{
    const auto found = searchFolder(context, arguments);
    if (const auto *failure = std::get_if<ToolResult>(&found))
        return *failure;
    const WorkspacePath &folder = std::get<WorkspacePath>(found);
    if (!folder.isDirectory) {
        return ToolResult::failure(u"not_a_directory"_s,
                                   u"%1 is a file; read it with read_file."_s.arg(folder.relative));
    }
    QFileInfoList entries = QDir(folder.absolute)
                                    .entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot
                                                           | QDir::Hidden | QDir::System,
                                                   QDir::Name | QDir::IgnoreCase);
    QString content = u"%1 (%2 entries)\n"_s
                              .arg(folder.relative == u"."_s ? u"the workspace"_s
                                                             : folder.relative + u'/')
                              .arg(entries.size());
    const qsizetype shown = std::min<qsizetype>(entries.size(), context.limits.listEntryLimit);
    for (qsizetype i = 0; i < shown; ++i) {
        const QFileInfo &entry = entries[i];
        content += entry.fileName();
        if (entry.isSymLink() || entry.isJunction()) {
            // Where a link leads, only when that is inside the workspace too.
            const QString relative = folder.relative == u"."_s
                                             ? entry.fileName()
                                             : folder.relative + u'/' + entry.fileName();
            const PathResolution target = context.boundary.resolve(relative,
                                                                   WorkspaceBoundary::Access::Read);
            if (const auto *inside = std::get_if<WorkspacePath>(&target))
                content += (inside->isDirectory ? u"/ -> "_s : u" -> "_s) + inside->relative;
            else if (std::get<PathRefusal>(target).code == u"outside_workspace"_s)
                content += u" -> (a link out of the workspace, not followed)"_s;
            else
                content += u" -> (a link that cannot be followed)"_s;
        } else if (entry.isDir()) {
            content += u'/';
        } else if (entry.isFile()) {
            content += u"  (%1)"_s.arg(sizeText(entry.size()));
        } else {
            content += u"  (not a regular file)"_s;
        }
        content += u'\n';
    }
    if (shown < entries.size())
        content += u"[%1 of %2 entries shown; use glob to find files by name.]\n"_s.arg(shown).arg(
                entries.size());
    return ToolResult::success(redacted(content, context.secrets.list()));
}

// ---- glob -------------------------------------------------------------------------------------

ToolResult globFiles(const FileToolContext &context,
                     const QJsonObject &arguments,
                     const QPromise<ToolResult> &promise)
{
    const auto found = searchFolder(context, arguments);
    if (const auto *failure = std::get_if<ToolResult>(&found))
        return *failure;
    const WorkspacePath &folder = std::get<WorkspacePath>(found);
    const QString pattern = arguments.value(u"pattern"_s).toString();
#ifdef Q_OS_WIN
    const bool caseSensitive = false;
#else
    const bool caseSensitive = true;
#endif
    const QRegularExpression expression = globExpression(pattern, caseSensitive);
    const QString prefix = folder.relative == u"."_s ? QString() : folder.relative + u'/';

    struct Match
    {
        QString relative;
        QDateTime modified;
    };
    QList<Match> matches;
    // Names are matched as they are listed, masked: a pattern never tells a secret's characters.
    const QStringList secrets = context.secrets.list();
    visitWorkspaceFiles(context.boundary.root(),
                        folder.absolute,
                        [&](const QFileInfo &file, const QString &relative) {
                            if (promise.isCanceled())
                                return false;
                            const QString name = redacted(relative.sliced(prefix.size()), secrets);
                            if (expression.match(name).hasMatch())
                                matches.append({prefix + name, file.lastModified()});
                            return true;
                        });
    std::stable_sort(matches.begin(), matches.end(), [](const Match &a, const Match &b) {
        return a.modified > b.modified;
    });
    if (matches.isEmpty())
        return ToolResult::success(u"No files match %1 in %2.\n"_s.arg(pattern, folder.relative));
    QString content;
    const qsizetype shown = std::min<qsizetype>(matches.size(), context.limits.globResultLimit);
    for (qsizetype i = 0; i < shown; ++i)
        content += matches[i].relative + u'\n';
    if (shown < matches.size())
        content += u"[%1 of %2 files shown, the newest first; narrow the pattern or the path.]\n"_s
                           .arg(shown)
                           .arg(matches.size());
    return ToolResult::success(content);
}

// ---- grep -------------------------------------------------------------------------------------

constexpr qsizetype grepLineLimit = 500;      // characters of one result line
constexpr qsizetype grepContentLimit = 60000; // characters of the whole result

struct GrepState
{
    QString out;
    int matches = 0;
    int maxMatches = 0;
    int context = 0;
    int skippedLarge = 0;
    int skippedUndecodable = 0;
    int skippedOutside = 0;    // links that lead out of the workspace
    int skippedNotRegular = 0; // FIFOs, sockets, devices
    int skippedUnreadable = 0;
    bool full = false;
};

void appendGrepLine(
        GrepState &state, const QString &path, qsizetype number, QStringView line, QChar separator)
{
    if (state.out.size() > grepContentLimit) {
        state.full = true;
        return;
    }
    state.out += path;
    state.out += separator;
    state.out += QString::number(number);
    state.out += separator;
    if (line.size() > grepLineLimit) {
        state.out += line.first(grepLineLimit);
        state.out += u"..."_s;
    } else {
        state.out += line;
    }
    state.out += u'\n';
}

// The matching lines of one decoded file, with context lines around them as grep -C shows them.
void grepText(GrepState &state,
              const QString &path,
              const QString &text,
              const QRegularExpression &expression)
{
    // The lines that match, found with one pass of the expression over the whole text.
    QList<qsizetype> lineStarts{0};
    const auto lineOf = [&](qsizetype position) {
        while (lineStarts.last() <= position) {
            const qsizetype next = text.indexOf(u'\n', lineStarts.last());
            if (next < 0)
                break;
            lineStarts.append(next + 1);
        }
        return qsizetype(std::upper_bound(lineStarts.cbegin(), lineStarts.cend(), position)
                         - lineStarts.cbegin())
               - 1;
    };
    QList<qsizetype> matchingLines;
    QRegularExpressionMatchIterator it = expression.globalMatch(text);
    while (it.hasNext() && state.matches + matchingLines.size() < state.maxMatches) {
        const qsizetype line = lineOf(it.next().capturedStart());
        if (matchingLines.isEmpty() || matchingLines.last() != line)
            matchingLines.append(line);
    }
    if (matchingLines.isEmpty())
        return;
    if (state.context > 0 && !state.out.isEmpty())
        state.out += u"--\n"_s;

    lineOf(text.size()); // every line start, for the context lines
    const qsizetype lineCount = lineStarts.last() == text.size() && text.endsWith(u'\n')
                                        ? lineStarts.size() - 1
                                        : lineStarts.size();
    const auto lineText = [&](qsizetype index) {
        const qsizetype start = lineStarts[index];
        const qsizetype end = index + 1 < lineStarts.size() ? lineStarts[index + 1] - 1
                                                            : text.size();
        QStringView line = QStringView(text).sliced(start, end - start);
        if (line.endsWith(u'\r'))
            line.chop(1);
        return line;
    };
    qsizetype printedUpTo = -1; // the last line index printed
    for (qsizetype m = 0; m < matchingLines.size(); ++m) {
        const qsizetype line = matchingLines[m];
        const qsizetype from = std::max(line - state.context, printedUpTo + 1);
        if (printedUpTo >= 0 && state.context > 0 && from > printedUpTo + 1)
            state.out += u"--\n"_s;
        for (qsizetype i = from; i < line; ++i)
            appendGrepLine(state, path, i + 1, lineText(i), u'-');
        appendGrepLine(state, path, line + 1, lineText(line), u':');
        ++state.matches;
        printedUpTo = line;
        // Context after, up to the next match (which is printed as a match).
        const qsizetype nextMatch = m + 1 < matchingLines.size() ? matchingLines[m + 1] : lineCount;
        for (qsizetype i = line + 1;
             i <= std::min(line + state.context, lineCount - 1) && i < nextMatch;
             ++i) {
            appendGrepLine(state, path, i + 1, lineText(i), u'-');
            printedUpTo = i;
        }
        if (state.full)
            return;
    }
}

// The ASCII text that every match of a case-sensitive pattern contains, when the pattern starts
// with plain characters (after an optional `^`) and has no alternative: "frobnicate_" for
// `frobnicate_[0-9]+\(`, "TOD" for `^TODO?`. Empty when there is nothing to rely on.
QByteArray requiredLiteral(QStringView pattern)
{
    if (pattern.contains(u'|'))
        return {};
    if (pattern.startsWith(u'^'))
        pattern = pattern.sliced(1);
    QByteArray literal;
    for (const QChar c : pattern) {
        const bool plain = c.unicode() >= 0x20 && c.unicode() < 0x7f
                           && !QStringView(u"\\^$.|?*+()[]{}").contains(c);
        if (!plain) {
            // A quantifier that allows none of the character before it.
            if (c == u'?' || c == u'*' || c == u'{')
                literal.chop(1);
            break;
        }
        literal += char(c.unicode());
    }
    return literal;
}

ToolResult grepFiles(const FileToolContext &context,
                     const QJsonObject &arguments,
                     const QPromise<ToolResult> &promise)
{
    const auto found = searchFolder(context, arguments);
    if (const auto *failure = std::get_if<ToolResult>(&found))
        return *failure;
    const WorkspacePath &start = std::get<WorkspacePath>(found);
    const QString pattern = arguments.value(u"pattern"_s).toString();
    const bool ignoreCase = arguments.value(u"ignore_case"_s).toBool();
    QRegularExpression::PatternOptions options = QRegularExpression::MultilineOption;
    if (ignoreCase)
        options |= QRegularExpression::CaseInsensitiveOption;
    QRegularExpression expression(pattern, options);
    expression.optimize();
    // Most files of a tree cannot match, and are left without decoding them: a file that is valid
    // UTF-8 is read as UTF-8 (UTF-16's BOM is never valid UTF-8), where an ASCII character is its
    // own byte, so without the literal's bytes its text has no match. Not when ignoring case:
    // Unicode case folding matches `k` with U+212A KELVIN SIGN and `s` with U+017F LONG S.
    // Masked text can hold what the file does not: the marker. A literal within the marker
    // ("REDACTED") is no reason to skip a file (one outside it cannot hold '[' or ']').
    const QStringList secrets = context.secrets.list();
    QByteArray literal = ignoreCase ? QByteArray() : requiredLiteral(pattern);
    if (QByteArrayView(redactedMarker).contains(literal))
        literal.clear();

    const QString globText = arguments.value(u"glob"_s).toString();
    // A glob without a slash matches file names at any depth, as in ripgrep's --glob.
    const bool globOnName = !globText.contains(u'/');
    const QRegularExpression glob = globExpression(globText.isEmpty() ? u"*"_s : globText);

    GrepState state;
    state.maxMatches = arguments.value(u"max_results"_s).toInt(context.limits.grepResultLimit);
    state.context = arguments.value(u"context"_s).toInt(0);
    const QString prefix = start.relative == u"."_s ? QString() : start.relative + u'/';

    const auto searchFile = [&](const QFileInfo &file, const QString &relative) {
        if (promise.isCanceled() || state.matches >= state.maxMatches || state.full)
            return false;
        if (!globText.isEmpty()
            && !glob.match(redacted(globOnName ? file.fileName() : relative.sliced(prefix.size()),
                                    secrets))
                        .hasMatch())
            return true;
        // Through the boundary, as read_file reads: a link out of the workspace, a FIFO or a
        // device is skipped (and counted), never opened.
        const PathResolution resolution = context.boundary.resolve(relative,
                                                                   WorkspaceBoundary::Access::Read);
        auto opened = std::holds_alternative<WorkspacePath>(resolution)
                              ? context.boundary.openForReading(std::get<WorkspacePath>(resolution))
                              : std::get<PathRefusal>(resolution);
        if (const auto *refused = std::get_if<PathRefusal>(&opened)) {
            if (refused->code == u"outside_workspace"_s)
                ++state.skippedOutside;
            else if (refused->code == u"not_regular_file"_s)
                ++state.skippedNotRegular;
            else
                ++state.skippedUnreadable;
            return true;
        }
        QFile &input = *std::get<std::unique_ptr<QFile>>(opened);
        if (input.size() > context.limits.editByteLimit) {
            ++state.skippedLarge;
            return true;
        }
        const QByteArray bytes = input.read(context.limits.editByteLimit);
        if (looksBinary(bytes))
            return true;
        if (!literal.isEmpty() && !bytes.contains(literal) && bytes.isValidUtf8())
            return true;
        const DecodedText decoded = decodeText(bytes);
        if (!decoded.ok()) {
            ++state.skippedUndecodable;
            return true;
        }
        // Matched on the masked text: whether a pattern matches never depends on a secret's
        // characters, so no sequence of greps can spell one out.
        grepText(state, redacted(relative, secrets), redacted(decoded.text, secrets), expression);
        return true;
    };
    if (start.isDirectory)
        visitWorkspaceFiles(context.boundary.root(), start.absolute, searchFile);
    else
        searchFile(QFileInfo(start.absolute), start.relative);

    QString content = state.out;
    if (state.matches == 0)
        content = u"No matches for %1 in %2.\n"_s.arg(pattern, start.relative);
    if (state.matches >= state.maxMatches)
        content += u"[Stopped at %1 matches; narrow the pattern, the path or the glob, or raise "
                   u"max_results.]\n"_s.arg(state.matches);
    else if (state.full)
        content += u"[Stopped after %1 characters of results; narrow the search.]\n"_s.arg(
                grepContentLimit);
    if (state.skippedLarge > 0)
        content += u"[%1 files larger than %2 were not searched.]\n"_s.arg(state.skippedLarge)
                           .arg(sizeText(context.limits.editByteLimit));
    if (state.skippedUndecodable > 0)
        content += u"[%1 files in no known text encoding were not searched.]\n"_s.arg(
                state.skippedUndecodable);
    if (state.skippedOutside > 0)
        content += u"[%1 links that lead out of the workspace were not followed.]\n"_s.arg(
                state.skippedOutside);
    if (state.skippedNotRegular > 0)
        content += u"[%1 FIFOs, sockets or devices were not read.]\n"_s.arg(state.skippedNotRegular);
    if (state.skippedUnreadable > 0)
        content += u"[%1 files could not be opened.]\n"_s.arg(state.skippedUnreadable);
    return ToolResult::success(content);
}

struct FileToolText
{
    Q_DECLARE_TR_FUNCTIONS(FileTool)
};

// ---- The tools --------------------------------------------------------------------------------

using Work = std::function<
        ToolResult(const FileToolContext &, const QJsonObject &, const QPromise<ToolResult> &)>;

class FileTool final : public Tool
{
public:
    FileTool(QString name,
             QString description,
             JsonSchema parameters,
             SideEffect sideEffect,
             std::shared_ptr<FileToolContext> context,
             Work work)
        : Tool(std::move(name), std::move(description), std::move(parameters), sideEffect)
        , m_context(std::move(context))
        , m_work(std::move(work))
    {}

    QString approvalReason() const override
    {
        // Shown to the user only (the model never sees it), so it is translated.
        return FileToolText::tr("Changing a file requires explicit approval.");
    }

    void forgetConversation() const override { m_context->ledger.clear(); }

    // The file or folder the call names; list_dir, glob and grep default to the workspace.
    RuleSubject ruleSubject(const QJsonObject &arguments) const override
    {
        RuleSubject subject;
        subject.kind = RuleSubject::Path;
        subject.text = arguments.value(u"path"_s).toString(u"."_s);
        return subject;
    }

    QFuture<Review> review(const PreparedCall &call) const override
    {
        if (sideEffect() == SideEffect::Read)
            return Tool::review(call);
        return runInBackground<Review>([context = m_context,
                                        name = name(),
                                        arguments = call.arguments](const QPromise<Review> &) {
            return reviewFileEdit(*context, name, arguments);
        });
    }

    ToolRun *invoke(const PreparedCall &call, QObject *parent) const override
    {
        const bool interruptible = sideEffect() == SideEffect::Read;
        QFuture<ToolResult> future;
        if (interruptible) {
            future = runInBackground<ToolResult>(
                    [context = m_context, work = m_work, arguments = call.arguments](
                            const QPromise<ToolResult> &promise) {
                        return work(*context, arguments, promise);
                    });
        } else {
            future = runInBackground<ToolResult>(
                    [context = m_context,
                     name = name(),
                     arguments = call.arguments,
                     basis = call.approvedBasis](const QPromise<ToolResult> &) {
                        return applyFileEdit(*context, name, arguments, basis);
                    });
        }
        return new BackgroundToolRun(future, interruptible, parent);
    }

protected:
    QString checkArguments(const QJsonObject &arguments) const override
    {
        if (name() == u"edit_file"_s
            && arguments.value(u"old_string"_s) == arguments.value(u"new_string"_s))
            return u"old_string and new_string are the same; an edit must change the text."_s;
        if (name() == u"grep"_s) {
            const QRegularExpression expression(arguments.value(u"pattern"_s).toString());
            if (!expression.isValid())
                return u"the pattern is not a valid regular expression: %1 at offset %2."_s
                        .arg(expression.errorString())
                        .arg(expression.patternErrorOffset());
        }
        return {};
    }

private:
    std::shared_ptr<FileToolContext> m_context;
    Work m_work;
};

} // namespace

QList<std::shared_ptr<const Tool>> fileTools(std::shared_ptr<FileToolContext> context)
{
    const FileToolLimits &limits = context->limits;
    const QString pathHelp = u"Relative to the workspace, or absolute inside it."_s;
    QList<std::shared_ptr<const Tool>> tools;
    const auto add = [&](const QString &name,
                         const QString &description,
                         const JsonSchema &schema,
                         SideEffect sideEffect,
                         Work work) {
        tools.append(std::make_shared<FileTool>(name,
                                                description,
                                                schema,
                                                sideEffect,
                                                context,
                                                std::move(work)));
    };

    add(u"read_file"_s,
        u"Read a text file of the workspace. Returns a first line with the encoding, the line "
        u"endings and the number of lines, then the lines numbered like `cat -n` (number, tab, "
        u"text). Reads %1 lines from `offset` by default, at most %2 of text, and cuts lines "
        u"longer than %3 characters, saying so. Decodes UTF-8 (with or without BOM), UTF-16 with "
        u"BOM and GB18030/GBK. Refuses binary files. Prefer it to shell commands such as cat, "
        u"type or Get-Content; read a file before you edit it."_s.arg(limits.readLineLimit)
                .arg(sizeText(limits.readByteLimit))
                .arg(limits.lineCharacterLimit),
        objectSchema({{u"path"_s, pathProperty(u"The file. "_s + pathHelp)},
                      {u"offset"_s, integerProperty(u"The first line to read, 1-based."_s, 1)},
                      {u"limit"_s, integerProperty(u"How many lines to read."_s, 1)}},
                     {u"path"_s}),
        SideEffect::Read,
        readFile);

    add(u"list_dir"_s,
        u"List a folder of the workspace: entries sorted by name, folders with a trailing `/`, "
        u"files with their size; at most %1 entries."_s.arg(limits.listEntryLimit),
        objectSchema({{u"path"_s,
                       pathProperty(u"The folder; the workspace when left out. "_s + pathHelp)}},
                     {}),
        SideEffect::Read,
        listDirectory);

    add(u"glob"_s,
        u"Find files by name with a glob pattern such as `src/**/*.cpp` or `**/*.{h,cpp}` "
        u"(`**/` crosses folders, `*` and `?` stay within one). Returns paths relative to the "
        u"workspace, the most recently modified first, at most %1; skips what .gitignore files "
        u"ignore and .git/. Prefer it to dir, ls or find."_s.arg(limits.globResultLimit),
        objectSchema({{u"pattern"_s, pathProperty(u"The glob, relative to `path`."_s)},
                      {u"path"_s,
                       pathProperty(u"The folder to search; the workspace when left out. "_s
                                    + pathHelp)}},
                     {u"pattern"_s}),
        SideEffect::Read,
        globFiles);

    add(u"grep"_s,
        u"Search the text files of the workspace for a regular expression (Perl-compatible "
        u"syntax, as Qt's QRegularExpression reads it; `^` and `$` match at line starts and ends). "
        u"Returns matching lines as `path:line:text` (context lines as `path-line-text`), at "
        u"most `max_results` matches (default %1). Skips binary files and what .gitignore files "
        u"ignore; decodes each file like read_file, so GBK sources are searched too. Prefer it "
        u"to grep, findstr or Select-String."_s.arg(limits.grepResultLimit),
        objectSchema({{u"pattern"_s, pathProperty(u"The regular expression."_s)},
                      {u"path"_s,
                       pathProperty(u"The folder or file to search; the workspace when left out. "_s
                                    + pathHelp)},
                      {u"glob"_s,
                       pathProperty(u"Only files matching this glob, e.g. `*.cpp` (matched "
                                    u"against the file name) or `src/**/*.h`."_s)},
                      {u"ignore_case"_s, booleanProperty(u"Match case-insensitively."_s)},
                      {u"context"_s,
                       integerProperty(u"Lines of context before and after each match."_s, 0, 20)},
                      {u"max_results"_s,
                       integerProperty(u"At most this many matching lines."_s, 1, 2000)}},
                     {u"pattern"_s}),
        SideEffect::Read,
        grepFiles);

    add(u"write_file"_s,
        u"Create a file, or replace a whole file, in the workspace (written atomically; missing "
        u"folders are created). A replaced file keeps its encoding, BOM and line endings unless "
        u"the content has CRLF line endings of its own; a new file is UTF-8 without BOM. The user "
        u"sees the change as a diff and approves it. To change part of a file, use edit_file."_s,
        objectSchema({{u"path"_s, pathProperty(u"The file. "_s + pathHelp)},
                      {u"content"_s, stringProperty(u"The whole new content of the file."_s)}},
                     {u"path"_s, u"content"_s}),
        SideEffect::Write,
        {});

    add(u"edit_file"_s,
        u"Replace exact text in a file of the workspace. `old_string` must occur exactly once "
        u"(or set `replace_all`) and differ from `new_string`; include enough surrounding lines "
        u"to make it unique. CRLF and LF count as the same when matching, and the file keeps its "
        u"line endings, encoding and BOM. Read the file with read_file first in this "
        u"conversation; if it changed since, read it again. The user sees the change as a diff "
        u"and approves it. Prefer it to editing files with shell commands."_s,
        objectSchema({{u"path"_s, pathProperty(u"The file. "_s + pathHelp)},
                      {u"old_string"_s,
                       pathProperty(u"The exact text to replace, as read_file showed it "
                                    u"(without the line numbers)."_s)},
                      {u"new_string"_s, stringProperty(u"The text to put in its place."_s)},
                      {u"replace_all"_s,
                       booleanProperty(u"Replace every occurrence instead of exactly one."_s)}},
                     {u"path"_s, u"old_string"_s, u"new_string"_s}),
        SideEffect::Write,
        {});
    return tools;
}

} // namespace AgentLoop
