#include "tools/fileedits.h"

#include "files/unifieddiff.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace AgentLoop {

// The texts in this file go to the model: English, with a stable code first on failures.

namespace {

// The basis of a review of a file that does not exist yet.
const QByteArray absentFileBasis = QByteArrayLiteral("absent");
constexpr int newFilePreviewLines = 40;
constexpr int shownChangedLines = 60;

QString formatText(const TextFormat &format)
{
    if (format.lineEndings == TextFormat::LineEndings::None)
        return format.encodingName();
    return format.encodingName() + u", "_s + format.lineEndingsName();
}

qsizetype lineCountOf(const DecodedText &decoded)
{
    const qsizetype breaks = decoded.text.count(u'\n');
    return decoded.text.isEmpty() || decoded.format.finalNewline ? breaks : breaks + 1;
}

// ---- Planning a change ------------------------------------------------------------------------

struct EditPlan
{
    WorkspacePath path;
    QByteArray basis;    // sha256 of the file's bytes now, or absentFileBasis
    QByteArray newBytes; // what the file will hold
    FileChange change;
    QString summary; // the model's result after the write
};

using Plan = std::variant<EditPlan, ToolResult>;

FileChange changeOf(const FileToolContext &context,
                    const WorkspacePath &path,
                    const TextFormat &format,
                    const QString &before,
                    const QString &after,
                    bool newFile)
{
    FileChange change;
    change.path = context.boundary.displayPath(path);
    change.absolutePath = QDir::toNativeSeparators(path.absolute);
    change.encoding = formatText(format);
    change.newFile = newFile;
    const UnifiedDiff diff = unifiedDiff(newFile ? QStringList() : splitLines(before),
                                         splitLines(after),
                                         3,
                                         newFile ? newFilePreviewLines : 2000);
    change.diff = diff.text;
    change.addedLines = diff.addedLines;
    change.removedLines = diff.removedLines;
    change.diffTruncated = diff.truncated;
    return change;
}

// The lines from..to (1-based, inclusive) of text, numbered like read_file shows them.
QString numberedLines(const QString &text, qsizetype from, qsizetype to)
{
    const QStringList lines = splitLines(text);
    QString out;
    to = std::min<qsizetype>(to, lines.size());
    for (qsizetype number = std::max<qsizetype>(from, 1); number <= to; ++number)
        out += u"%1\t%2\n"_s.arg(number, 6).arg(lines[number - 1]);
    return out;
}

// The line most like `wanted` (the first line of old_string that has text), for not_found.
QString closestLine(const QString &text, const QString &oldString)
{
    QString wanted;
    for (const QString &line : splitLines(oldString)) {
        if (!line.trimmed().isEmpty()) {
            wanted = line.trimmed();
            break;
        }
    }
    if (wanted.isEmpty())
        return {};
    const QStringList lines = splitLines(text);
    // Pairs of characters in common, as a share of both lines' pairs (Dice's coefficient).
    const auto pairsOf = [](QStringView line) {
        QList<quint32> pairs;
        for (qsizetype i = 0; i + 1 < line.size(); ++i)
            pairs.append(quint32(line[i].unicode()) << 16 | line[i + 1].unicode());
        std::sort(pairs.begin(), pairs.end());
        return pairs;
    };
    const QList<quint32> wantedPairs = pairsOf(wanted);
    double best = 0;
    qsizetype bestLine = -1;
    for (qsizetype i = 0; i < std::min<qsizetype>(lines.size(), 200000); ++i) {
        const QString line = lines[i].trimmed();
        if (line == wanted)
            return u"Line %1 has that text but the lines around it differ: `%2`."_s.arg(i + 1).arg(
                    lines[i].left(200));
        if (line.isEmpty())
            continue;
        const QList<quint32> pairs = pairsOf(line);
        QList<quint32> common;
        std::set_intersection(wantedPairs.cbegin(),
                              wantedPairs.cend(),
                              pairs.cbegin(),
                              pairs.cend(),
                              std::back_inserter(common));
        const double score = 2.0 * common.size() / double(wantedPairs.size() + pairs.size());
        if (score > best) {
            best = score;
            bestLine = i;
        }
    }
    if (bestLine < 0 || best < 0.3)
        return {};
    return u"The closest line is %1: `%2`."_s.arg(bestLine + 1).arg(lines[bestLine].left(200));
}

// The text of the file with every "\r\n" as "\n", and where the '\r's were (for positions back).
struct NormalisedText
{
    QString text;
    QList<qsizetype> removedReturns; // indices in text of the '\n's that followed a removed '\r'

    qsizetype originalPosition(qsizetype position) const
    {
        return position
               + (std::lower_bound(removedReturns.cbegin(), removedReturns.cend(), position)
                  - removedReturns.cbegin());
    }
};

NormalisedText normalised(const QString &text)
{
    NormalisedText result;
    result.text.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i] == u'\r' && i + 1 < text.size() && text[i + 1] == u'\n') {
            result.removedReturns.append(result.text.size());
            continue;
        }
        result.text += text[i];
    }
    return result;
}

std::variant<OpenedTextFile, ToolResult> openForChange(const FileToolContext &context,
                                                       const QString &path)
{
    auto opened = openTextFile(context,
                               path,
                               WorkspaceBoundary::Access::Write,
                               context.limits.editByteLimit);
    if (auto *file = std::get_if<OpenedTextFile>(&opened); file && !file->wholeFileDecoded) {
        return ToolResult::failure(u"too_large"_s,
                                   u"%1 is %2; edit_file and write_file change files up to %3. "
                                   u"Use the shell for this file."_s
                                           .arg(file->path.relative,
                                                sizeText(file->size),
                                                sizeText(context.limits.editByteLimit)));
    }
    return opened;
}

// The result of a change whose file is no longer the one the user approved the diff of.
ToolResult changedAfterApproval(const QString &relative)
{
    return ToolResult::failure(u"stale_file"_s,
                               u"%1 changed on disk after the user approved the change, so "
                               u"nothing was written. Read it again first."_s.arg(relative));
}

Plan planWrite(const FileToolContext &context,
               const QJsonObject &arguments,
               const QByteArray &approvedBasis)
{
    const QString path = arguments.value(u"path"_s).toString();
    QString content = arguments.value(u"content"_s).toString();
    const PathResolution resolution = context.boundary.resolve(path,
                                                               WorkspaceBoundary::Access::Write);
    if (const auto *refused = std::get_if<PathRefusal>(&resolution))
        return ToolResult::failure(refused->code, refused->detail);
    const WorkspacePath &where = std::get<WorkspacePath>(resolution);
    if (where.isDirectory) {
        return ToolResult::failure(u"is_directory"_s,
                                   u"%1 is a folder; give the path of a file."_s.arg(path));
    }

    EditPlan plan;
    plan.path = where;
    if (!where.exists && !approvedBasis.isEmpty() && approvedBasis != absentFileBasis)
        return changedAfterApproval(where.relative);
    if (!where.exists) {
        TextFormat format;
        if (content.startsWith(QChar(0xFEFF))) { // the content asks for a BOM
            content.remove(0, 1);
            format.bom = true;
        }
        format.lineEndings = lineEndingsOf(content);
        plan.basis = absentFileBasis;
        plan.newBytes = encodeText(content, format).bytes;
        plan.change = changeOf(context, where, format, {}, content, true);
        plan.summary = u"Created %1 (%2): %3 lines, %4 bytes.\n"_s
                               .arg(where.relative, formatText(format))
                               .arg(splitLines(content).size())
                               .arg(plan.newBytes.size());
        return plan;
    }

    auto opened = openForChange(context, path);
    if (auto *failure = std::get_if<ToolResult>(&opened))
        return *failure;
    const OpenedTextFile &file = std::get<OpenedTextFile>(opened);
    if (!approvedBasis.isEmpty() && approvedBasis != file.fingerprint.sha256)
        return changedAfterApproval(where.relative);
    TextFormat format = file.decoded.format;
    const bool unicode = format.encoding == TextFormat::Encoding::Utf8
                         || format.encoding == TextFormat::Encoding::Utf16LE
                         || format.encoding == TextFormat::Encoding::Utf16BE;
    if (unicode && content.startsWith(QChar(0xFEFF))) {
        content.remove(0, 1);
        format.bom = true;
    }
    // The content's own CRLF wins; LF-only content takes the file's line endings.
    if (!content.contains(u"\r\n"_s) && format.newline() == u"\r\n"_s)
        content = withLineEndings(content, u"\r\n"_s);
    format.lineEndings = lineEndingsOf(content);
    const EncodedText encoded = encodeText(content, format);
    if (!encoded.unencodable.isEmpty()) {
        return ToolResult::failure(u"unencodable"_s,
                                   u"%1 is stored as %2, which cannot hold %3. Keep to characters "
                                   u"of that encoding, or ask the user to convert the file."_s
                                           .arg(where.relative,
                                                format.encodingName(),
                                                encoded.unencodable));
    }
    if (encoded.bytes == file.bytes) {
        return ToolResult::success(
                u"%1 already has this content; nothing was written.\n"_s.arg(where.relative));
    }
    plan.basis = file.fingerprint.sha256;
    plan.newBytes = encoded.bytes;
    plan.change = changeOf(context, where, format, file.decoded.text, content, false);
    plan.summary = u"Replaced %1 (%2): %3 lines, %4 bytes (+%5 -%6 lines).\n"_s
                           .arg(where.relative, formatText(format))
                           .arg(splitLines(content).size())
                           .arg(plan.newBytes.size())
                           .arg(plan.change.addedLines)
                           .arg(plan.change.removedLines);
    return plan;
}

Plan planEdit(const FileToolContext &context,
              const QJsonObject &arguments,
              const QByteArray &approvedBasis)
{
    const QString path = arguments.value(u"path"_s).toString();
    const bool replaceAll = arguments.value(u"replace_all"_s).toBool();
    auto opened = openForChange(context, path);
    if (auto *failure = std::get_if<ToolResult>(&opened)) {
        if (failure->errorCode == u"file_not_found"_s)
            failure->content += u" To create a file, use write_file."_s;
        return *failure;
    }
    const OpenedTextFile &file = std::get<OpenedTextFile>(opened);
    const QString &relative = file.path.relative;
    if (!approvedBasis.isEmpty() && approvedBasis != file.fingerprint.sha256)
        return changedAfterApproval(relative);

    const std::optional<FileReadLedger::Entry> read = context.ledger.find(file.path.absolute);
    if (!read) {
        return ToolResult::failure(u"not_read"_s,
                                   u"%1 was not read in this conversation. Read it with read_file "
                                   u"first, then edit it."_s.arg(relative));
    }
    // The content decides: an editor or a virus scanner that only touches the time is no change.
    if (read->sha256 != file.fingerprint.sha256) {
        return ToolResult::failure(u"stale_file"_s,
                                   u"%1 changed on disk since you last read it. Read it again "
                                   u"first, then edit it."_s.arg(relative));
    }

    const QString &original = file.decoded.text;
    const NormalisedText normal = normalised(original);
    // old_string is looked for in the text as read_file shows it, secrets masked: whether it is
    // found never depends on a secret's characters (guessing one character at a time would).
    const MaskedText masked(normal.text, context.secrets.list());
    const QString oldString = withLineEndings(arguments.value(u"old_string"_s).toString(), u"\n"_s);
    const QString newString = withLineEndings(arguments.value(u"new_string"_s).toString(), u"\n"_s);
    QList<qsizetype> found;
    for (qsizetype at = masked.text().indexOf(oldString); at >= 0;
         at = masked.text().indexOf(oldString, at + oldString.size()))
        found.append(at);
    if (found.isEmpty()) {
        QString detail = u"old_string does not occur in %1."_s.arg(relative);
        if (const QString closest = closestLine(masked.text(), oldString); !closest.isEmpty())
            detail += u' ' + closest;
        detail += u" Copy the text exactly as read_file shows it (without the line numbers and "
                  u"the tab after them), or read the file again."_s;
        return ToolResult::failure(u"not_found"_s, detail);
    }
    if (found.size() > 1 && !replaceAll) {
        QList<qsizetype> lines;
        for (qsizetype at : found)
            lines.append(QStringView(masked.text()).first(at).count(u'\n') + 1);
        QStringList lineTexts;
        for (qsizetype i = 0; i < std::min<qsizetype>(lines.size(), 10); ++i)
            lineTexts.append(QString::number(lines[i]));
        return ToolResult::failure(u"not_unique"_s,
                                   u"old_string occurs %1 times in %2 (at lines %3). Include more "
                                   u"of the surrounding lines to make it unique, or set "
                                   u"replace_all to change every occurrence."_s.arg(found.size())
                                           .arg(relative, lineTexts.join(u", "_s)));
    }

    // Spliced into the original text: everything outside the matches stays as it was, line
    // endings included; the new text takes the line breaks of the text it replaces.
    QString edited;
    edited.reserve(original.size() + found.size() * (newString.size() - oldString.size()) + 16);
    QList<std::pair<qsizetype, qsizetype>> changedRanges; // in edited, [start, end)
    qsizetype copied = 0;
    for (qsizetype at : found) {
        if (masked.touchesSecret(at, at + oldString.size())) {
            return ToolResult::failure(u"masked_secret"_s,
                                       u"old_string includes a value masked as %1 in %2: the file "
                                       u"tools do not change secrets. Choose old_string around it, "
                                       u"or ask the user to change it."_s
                                               .arg(QString::fromLatin1(redactedMarker), relative));
        }
        const qsizetype start = normal.originalPosition(masked.originalPosition(at));
        const qsizetype end = normal.originalPosition(
                masked.originalPosition(at + oldString.size()));
        const QStringView replaced = QStringView(original).sliced(start, end - start);
        const QString newline = replaced.contains(u"\r\n"_s) ? u"\r\n"_s
                                : replaced.contains(u'\n')   ? u"\n"_s
                                                             : file.decoded.format.newline();
        edited += QStringView(original).sliced(copied, start - copied);
        const qsizetype changedStart = edited.size();
        edited += withLineEndings(newString, newline);
        changedRanges.append({changedStart, edited.size()});
        copied = end;
    }
    edited += QStringView(original).sliced(copied);

    const TextFormat &format = file.decoded.format;
    const EncodedText encoded = encodeText(edited, format);
    if (!encoded.unencodable.isEmpty()) {
        return ToolResult::failure(u"unencodable"_s,
                                   u"%1 is stored as %2, which cannot hold %3. Keep to characters "
                                   u"of that encoding."_s.arg(relative,
                                                              format.encodingName(),
                                                              encoded.unencodable));
    }

    EditPlan plan;
    plan.path = file.path;
    plan.basis = file.fingerprint.sha256;
    plan.newBytes = encoded.bytes;
    plan.change = changeOf(context, file.path, format, original, edited, false);
    plan.summary = u"Edited %1 (%2): replaced %3 occurrence%4 (+%5 -%6 lines). The changed lines "
                   u"now read:\n"_s.arg(relative, formatText(format))
                           .arg(found.size())
                           .arg(found.size() == 1 ? u""_s : u"s"_s)
                           .arg(plan.change.addedLines)
                           .arg(plan.change.removedLines);
    qsizetype shown = 0;
    for (const auto &[start, end] : changedRanges) {
        if (shown >= shownChangedLines) {
            plan.summary += u"[... more changes; read the file to see them.]\n"_s;
            break;
        }
        const qsizetype first = QStringView(edited).first(start).count(u'\n') + 1;
        const qsizetype last = first + QStringView(edited).sliced(start, end - start).count(u'\n');
        const qsizetype to = std::min(last, first + shownChangedLines - 1);
        plan.summary += numberedLines(edited, first, to);
        shown += to - first + 1;
    }
    plan.summary = redacted(plan.summary, context.secrets.list());
    return plan;
}

// approvedBasis: the file the user saw (empty before the approval).
Plan planChange(const FileToolContext &context,
                const QString &tool,
                const QJsonObject &arguments,
                const QByteArray &approvedBasis = {})
{
    return tool == u"write_file"_s ? planWrite(context, arguments, approvedBasis)
                                   : planEdit(context, arguments, approvedBasis);
}

// Writes the plan's bytes in place of the file: all or nothing (QSaveFile writes a temporary
// file next to it and renames it over the old one).
std::optional<ToolResult> writeAtomically(const FileToolContext &context, const EditPlan &plan)
{
    const QString folder = QFileInfo(plan.path.absolute).absolutePath();
    const QString relative = plan.path.relative;
    if (!QDir().mkpath(folder)) {
        return ToolResult::failure(u"write_failed"_s,
                                   u"could not create the folder of %1; nothing was written."_s.arg(
                                           relative));
    }
    // A folder swapped for a link between the review and now leads the write elsewhere.
    if (const auto refused = context.boundary.recheck(plan.path, WorkspaceBoundary::Access::Write))
        return ToolResult::failure(refused->code, refused->detail);
    QSaveFile file(plan.path.absolute);
    if (!file.open(QIODevice::WriteOnly)) {
        return ToolResult::failure(u"write_failed"_s,
                                   u"could not write %1: %2. The file is unchanged."_s
                                           .arg(relative, file.errorString()));
    }
    file.write(plan.newBytes);
    if (context.beforeCommit)
        context.beforeCommit(file);
    if (const auto refused = context.boundary.recheck(plan.path, WorkspaceBoundary::Access::Write)) {
        file.cancelWriting();
        return ToolResult::failure(refused->code, refused->detail);
    }
    if (!file.commit()) {
        return ToolResult::failure(u"write_failed"_s,
                                   u"could not write %1: %2. The file is unchanged."_s
                                           .arg(relative, file.errorString()));
    }
    return std::nullopt;
}

} // namespace

QString sizeText(qint64 bytes)
{
    if (bytes < 1024)
        return u"%1 B"_s.arg(bytes);
    if (bytes < 1024 * 1024)
        return u"%1 KB"_s.arg(double(bytes) / 1024, 0, 'f', 1);
    return u"%1 MB"_s.arg(double(bytes) / (1024 * 1024), 0, 'f', 1);
}

std::variant<OpenedTextFile, ToolResult> openTextFile(const FileToolContext &context,
                                                      const QString &path,
                                                      WorkspaceBoundary::Access access,
                                                      qint64 headBytes)
{
    const PathResolution resolution = context.boundary.resolve(path, access);
    if (const auto *refused = std::get_if<PathRefusal>(&resolution))
        return ToolResult::failure(refused->code, refused->detail);
    OpenedTextFile file;
    file.path = std::get<WorkspacePath>(resolution);
    if (!file.path.exists) {
        return ToolResult::failure(u"file_not_found"_s,
                                   u"%1 does not exist in the workspace. Use glob or list_dir to "
                                   u"find the file."_s.arg(path));
    }
    if (file.path.isDirectory) {
        return ToolResult::failure(u"is_directory"_s,
                                   u"%1 is a folder; list it with list_dir."_s.arg(path));
    }
    auto opened = context.boundary.openForReading(file.path);
    if (const auto *refused = std::get_if<PathRefusal>(&opened))
        return ToolResult::failure(refused->code, refused->detail);
    QFile &input = *std::get<std::unique_ptr<QFile>>(opened);
    file.size = input.size();
    const bool whole = file.size <= context.limits.editByteLimit;
    const QByteArray bytes = input.read(whole ? file.size : headBytes);
    if (input.error() != QFileDevice::NoError) {
        return ToolResult::failure(u"read_failed"_s,
                                   u"could not read %1: %2"_s.arg(path, input.errorString()));
    }
    if (looksBinary(bytes)) {
        return ToolResult::failure(u"binary_file"_s,
                                   u"%1 is a binary file (it has NUL bytes); the file tools read "
                                   u"and change text files only."_s.arg(path));
    }
    file.wholeFileDecoded = whole || bytes.size() >= file.size;
    file.decoded = decodeText(bytes, file.wholeFileDecoded);
    if (!file.decoded.ok())
        return ToolResult::failure(file.decoded.errorCode,
                                   u"%1: %2"_s.arg(path, file.decoded.errorDetail));
    if (file.wholeFileDecoded) {
        file.lineCount = lineCountOf(file.decoded);
        file.bytes = bytes;
        file.fingerprint.sha256 = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
        file.fingerprint.size = file.size;
        file.fingerprint.modified = QFileInfo(file.path.absolute).lastModified();
    }
    return file;
}

Review reviewFileEdit(const FileToolContext &context,
                      const QString &tool,
                      const QJsonObject &arguments)
{
    Plan plan = planChange(context, tool, arguments);
    if (auto *result = std::get_if<ToolResult>(&plan))
        return *result;
    const EditPlan &edit = std::get<EditPlan>(plan);
    CallPreview preview;
    preview.kind = CallPreview::FileEdit;
    preview.text = edit.change.diff;
    preview.fileChange = edit.change;
    preview.basis = edit.basis;
    return preview;
}

ToolResult applyFileEdit(const FileToolContext &context,
                         const QString &tool,
                         const QJsonObject &arguments,
                         const QByteArray &approvedBasis)
{
    Plan plan = planChange(context, tool, arguments, approvedBasis);
    if (auto *result = std::get_if<ToolResult>(&plan))
        return *result;
    const EditPlan &edit = std::get<EditPlan>(plan);
    if (const std::optional<ToolResult> failure = writeAtomically(context, edit))
        return *failure;
    // The model knows what the file holds now: it may edit it again without reading it.
    FileReadLedger::Entry written;
    written.sha256 = QCryptographicHash::hash(edit.newBytes, QCryptographicHash::Sha256);
    written.size = edit.newBytes.size();
    written.modified = QFileInfo(edit.path.absolute).lastModified();
    context.ledger.record(edit.path.absolute, written);
    ToolResult result = ToolResult::success(edit.summary);
    result.fileChange = edit.change;
    result.writtenBasis = written.sha256;
    return result;
}

} // namespace AgentLoop
