#include "files/workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <io.h>

#include <string>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#endif

using namespace Qt::StringLiterals;

// A path is judged three times before it is allowed: as a string (the forms Windows reads
// differently from what they look like), lexically ('.' and '..' cleaned against the root, before
// anything on disk is looked at), and for real (what exists of it, with its links, junctions and
// short names resolved, must still be inside the canonical root). The names it is made of are
// checked in both the lexical and the real path.

namespace AgentLoop {

namespace {

// Windows compares names without case. Elsewhere a case-sensitive comparison can only refuse too
// much (a real path spelt in another case), never let a path out.
#ifdef Q_OS_WIN
constexpr Qt::CaseSensitivity pathCase = Qt::CaseInsensitive;
#else
constexpr Qt::CaseSensitivity pathCase = Qt::CaseSensitive;
#endif

PathRefusal outsideWorkspace(const QString &detail)
{
    return {u"outside_workspace"_s, detail};
}

PathRefusal invalidPath(const QString &detail)
{
    return {u"invalid_path"_s, detail};
}

PathRefusal readOnlyPath(const QString &detail)
{
    return {u"read_only_path"_s, detail};
}

QString native(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

// The model's path as a detail repeats it (control characters are refused before): a long one is
// cut, never inside a surrogate pair.
QString shown(const QString &path)
{
    qsizetype limit = 200;
    if (path.size() <= limit)
        return path;
    if (path.at(limit - 1).isHighSurrogate())
        --limit;
    return path.left(limit) + u"\u2026"_s;
}

bool isSeparator(QChar c)
{
    return c == u'/' || c == u'\\';
}

bool startsWithDrive(const QString &path)
{
    if (path.size() < 2 || path.at(1) != u':')
        return false;
    const QChar letter = path.at(0);
    return (letter >= u'a' && letter <= u'z') || (letter >= u'A' && letter <= u'Z');
}

QString withSlash(const QString &folder)
{
    return folder.endsWith(u'/') ? folder : folder + u'/';
}

// folder + '/' + rest; folder itself when rest is empty or ".".
QString joined(const QString &folder, const QString &rest)
{
    if (rest.isEmpty() || rest == u".")
        return folder;
    return withSlash(folder) + rest;
}

bool samePath(const QString &a, const QString &b)
{
    return a.compare(b, pathCase) == 0;
}

// With a trailing separator, so that /repo2 is not inside /repo.
bool isUnder(const QString &path, const QString &folder)
{
    return samePath(path, folder) || path.startsWith(withSlash(folder), pathCase);
}

// For a path isUnder(path, folder): the rest below folder, "." for folder itself.
QString relativeTo(const QString &path, const QString &folder)
{
    const qsizetype prefix = withSlash(folder).size();
    return path.size() <= prefix ? u"."_s : path.mid(prefix);
}

// "/ws/a" for "/ws/a/b"; a root ("/", "C:/") keeps its separator and is its own parent.
QString parentPath(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(u'/');
    if (slash <= 0)
        return u"/"_s;
    if (slash == 2 && path.at(1) == u':')
        return path.left(3);
    return path.left(slash);
}

#ifdef Q_OS_WIN
// GetFinalPathNameByHandleW answers \\?\C:\dir or \\?\UNC\server\share\dir.
QString fromFinalPathName(const std::wstring &name)
{
    const QString path = QDir::fromNativeSeparators(QString::fromStdWString(name));
    if (path.startsWith(u"//?/UNC/"_s, Qt::CaseInsensitive))
        return u"//"_s + path.mid(8);
    if (path.startsWith(u"//?/"_s))
        return path.mid(4);
    return path;
}

// The real path of an open handle: links, junctions and mount points resolved, long names in the
// case they have on disk. Empty when Windows cannot say.
QString finalPathOfHandle(HANDLE handle)
{
    const DWORD flags = FILE_NAME_NORMALIZED | VOLUME_NAME_DOS;
    const DWORD size = GetFinalPathNameByHandleW(handle, nullptr, 0, flags); // with the NUL
    if (size == 0)
        return {};
    std::wstring name(size, L'\0');
    const DWORD length = GetFinalPathNameByHandleW(handle, name.data(), size, flags);
    if (length == 0 || length >= size)
        return {};
    name.resize(length);
    return fromFinalPathName(name);
}

// The same for a path that exists: opened without any access (a file or a folder), which reads
// nothing of it.
QString finalPathOfName(const QString &path)
{
    const std::wstring name = QDir::toNativeSeparators(path).toStdWString();
    const HANDLE handle = CreateFileW(name.c_str(),
                                      0,
                                      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                      nullptr,
                                      OPEN_EXISTING,
                                      FILE_FLAG_BACKUP_SEMANTICS,
                                      nullptr);
    if (handle == INVALID_HANDLE_VALUE)
        return {};
    const QString finalPath = finalPathOfHandle(handle);
    CloseHandle(handle);
    return finalPath;
}

// 8.3 short names (PROGRA~1, GIT~1 for .git) expanded to the long names they stand for, in the
// part of the path that exists; the rest stays as written.
QString withLongNames(const QString &path)
{
    QString existing = path;
    QStringList missing;
    while (!QFileInfo::exists(existing)) {
        const QString parent = parentPath(existing);
        if (parent == existing)
            return path;
        missing.prepend(existing.mid(withSlash(parent).size()));
        existing = parent;
    }
    const std::wstring name = QDir::toNativeSeparators(existing).toStdWString();
    const DWORD size = GetLongPathNameW(name.c_str(), nullptr, 0); // with the NUL
    if (size == 0)
        return path;
    std::wstring longName(size, L'\0');
    const DWORD length = GetLongPathNameW(name.c_str(), longName.data(), size);
    if (length == 0 || length >= size)
        return path;
    longName.resize(length);
    return joined(QDir::fromNativeSeparators(QString::fromStdWString(longName)), missing.join(u'/'));
}
#endif

// The real path of something that exists, '/'-separated; empty when it cannot be had.
QString realPath(const QString &existing)
{
#ifdef Q_OS_WIN
    // The call checkOpened() makes on the opened handle, so that both compare alike. When the
    // handle cannot be had, the file tool's own open fails as well; Qt's canonical path with long
    // names stands in.
    const QString finalPath = finalPathOfName(existing);
    if (!finalPath.isEmpty())
        return finalPath;
    const QString canonical = QFileInfo(existing).canonicalFilePath();
    return canonical.isEmpty() ? canonical : withLongNames(canonical);
#else
    return QFileInfo(existing).canonicalFilePath();
#endif
}

// Where the open file really is, '/'-separated; empty when it cannot be read.
QString openedPath(const QFileDevice &file)
{
    const int descriptor = file.handle();
    if (descriptor < 0)
        return {};
#if defined(Q_OS_WIN)
    // Qt's handle() is a C runtime descriptor over its Win32 handle.
    const intptr_t handle = _get_osfhandle(descriptor);
    if (handle == -1)
        return {};
    return finalPathOfHandle(reinterpret_cast<HANDLE>(handle));
#elif defined(Q_OS_LINUX)
    const QByteArray link = "/proc/self/fd/" + QByteArray::number(descriptor);
    QByteArray target(256, Qt::Uninitialized);
    while (target.size() <= 65536) {
        const ssize_t length = ::readlink(link.constData(), target.data(), size_t(target.size()));
        if (length < 0)
            return {};
        if (length < target.size()) {
            target.truncate(length);
            return QFile::decodeName(target);
        }
        target.resize(target.size() * 2);
    }
    return {};
#else
    return QFileInfo(file.fileName()).canonicalFilePath();
#endif
}

// CON, PRN, AUX, NUL, COM0-9, LPT0-9 (also with the superscripts ¹ ² ³), CONIN$, CONOUT$: Windows
// opens the device whatever the extension (nul.txt, con.tar.gz) and whatever the folder.
bool isReservedDeviceName(const QString &name)
{
    qsizetype end = 0;
    while (end < name.size() && name.at(end) != u'.' && name.at(end) != u':')
        ++end;
    QString base = name.left(end);
    while (base.endsWith(u' '))
        base.chop(1);
    static const QStringList devices{u"CON"_s,
                                     u"PRN"_s,
                                     u"AUX"_s,
                                     u"NUL"_s,
                                     u"CONIN$"_s,
                                     u"CONOUT$"_s};
    if (devices.contains(base, Qt::CaseInsensitive))
        return true;
    if (base.size() != 4
        || !(base.startsWith("COM"_L1, Qt::CaseInsensitive)
             || base.startsWith("LPT"_L1, Qt::CaseInsensitive)))
        return false;
    const QChar digit = base.at(3);
    return (digit >= u'0' && digit <= u'9') || digit == u'\u00B9' || digit == u'\u00B2'
           || digit == u'\u00B3';
}

// Why Windows would take one of the names of relative ('/'-separated, below the root) for
// something else than the file or folder it looks like. where says which path it is.
std::optional<PathRefusal> refusedName(const QString &where, const QString &relative)
{
    for (const QString &name : relative.split(u'/', Qt::SkipEmptyParts)) {
        if (name == u"." || name == u"..")
            continue;
        if (isReservedDeviceName(name))
            return invalidPath(
                    u"%1: \"%2\" is a reserved device name on Windows (CON, PRN, AUX, NUL, COM0 to "
                    "COM9, LPT0 to LPT9, CONIN$, CONOUT$), whatever its extension and folder: it "
                    "would open the device, not a file. Choose another name."_s.arg(where, name));
        if (const qsizetype colon = name.indexOf(u':'); colon >= 0)
            return invalidPath(u"%1: \"%2\" names the alternate data stream \"%3\" of \"%4\" on "
                               "Windows, not a file of its own. Use a name without ':'."_s
                                       .arg(where, name, name.mid(colon + 1), name.left(colon)));
        if (name.endsWith(u'.') || name.endsWith(u' ')) {
            QString trimmed = name;
            while (trimmed.endsWith(u'.') || trimmed.endsWith(u' '))
                trimmed.chop(1);
            const QString meant = trimmed.isEmpty() ? u"the folder it is in"_s
                                                    : u"\"%1\""_s.arg(trimmed);
            return invalidPath(u"%1: Windows drops the dots and spaces at the end of \"%2\", so it "
                               "would name %3 instead. Remove them."_s.arg(where, name, meant));
        }
    }
    return std::nullopt;
}

// The repository's own files, at the root and in every submodule, in any case (.GIT is .git on
// Windows and macOS, and the same checkout is used there).
bool isInGitDirectory(const QString &relative)
{
    for (const QString &name : relative.split(u'/', Qt::SkipEmptyParts)) {
        if (name.compare(".git"_L1, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

PathRefusal gitDirectoryRefusal(const QString &where)
{
    return readOnlyPath(u"%1 is inside a Git directory (.git), which the file tools may read but "
                        "not write: a change there could rewrite the repository's history, hooks "
                        "or configuration. Use git commands to change the repository."_s.arg(where));
}

// What the file tools may read but never write: the repository's own files, and the workspace's
// permission rules (a call that could write them could grant itself every permission).
std::optional<PathRefusal> writeProtection(const QString &relative, const QString &where)
{
    if (isInGitDirectory(relative))
        return gitDirectoryRefusal(where);
    if (relative.section(u'/', 0, 0).compare(".agentloop"_L1, Qt::CaseInsensitive) == 0)
        return readOnlyPath(u"%1 is inside .agentloop, which holds this workspace's permission "
                            "rules: the file tools may read it but not write it, so that no call "
                            "can change what is allowed. Ask the user to change the rules in "
                            "Agent Loop."_s.arg(where));
    return std::nullopt;
}

PathRefusal missingWorkspaceRefusal(const QString &givenRoot)
{
    if (givenRoot.isEmpty())
        return outsideWorkspace(u"No workspace folder is set, so no path can be resolved. Ask the "
                                "user to choose the folder to work in."_s);
    return outsideWorkspace(u"The workspace %1 does not exist (or is not a folder), so no path can "
                            "be resolved in it. Ask the user to choose an existing folder."_s.arg(
                                    native(givenRoot)));
}

} // namespace

WorkspaceBoundary::WorkspaceBoundary(const QString &root)
{
    if (root.trimmed().isEmpty())
        return;
    const QFileInfo info(QDir::fromNativeSeparators(root));
    m_givenRoot = QDir::cleanPath(info.absoluteFilePath());
    if (info.isDir())
        m_root = realPath(m_givenRoot);
}

PathResolution WorkspaceBoundary::resolve(const QString &path, Access access) const
{
    if (!isValid())
        return missingWorkspaceRefusal(m_givenRoot);
    if (const auto refusal = refusedForm(path))
        return *refusal;
    return resolveChecked(shown(path), path, access);
}

// The forms that mean something else than they look like, whatever the platform.
std::optional<PathRefusal> WorkspaceBoundary::refusedForm(const QString &path) const
{
    if (path.isEmpty())
        return invalidPath(u"The path is empty. Name a file or folder relative to the workspace, "
                           "or \".\" for the workspace itself."_s);
    for (qsizetype i = 0; i < path.size(); ++i) {
        if (path.at(i).category() == QChar::Other_Control)
            return invalidPath(
                    u"The path has the control character U+%1 at position %2: a path may not "
                    "contain NUL, line breaks, escapes or other control characters."_s
                            .arg(QString::number(int(path.at(i).unicode()), 16)
                                         .toUpper()
                                         .rightJustified(4, u'0'),
                                 QString::number(i + 1)));
    }
    const QString p = shown(path);
    const QString workspace = native(m_root);
    // \\?\ and \\.\ (either separator) pass the path to the kernel unchecked and reach any file or
    // device; \??\ is the kernel's own form.
    if (path.size() >= 4 && isSeparator(path.at(0)) && isSeparator(path.at(3))
        && ((isSeparator(path.at(1)) && (path.at(2) == u'?' || path.at(2) == u'.'))
            || (path.at(1) == u'?' && path.at(2) == u'?')))
        return outsideWorkspace(u"%1 is a Windows device path (\\\\?\\, \\\\.\\ or \\??\\), which "
                                "bypasses the usual path rules and can reach any file or device. "
                                "Use a path relative to the workspace %2."_s.arg(p, workspace));
    if (path.size() >= 2 && isSeparator(path.at(0)) && isSeparator(path.at(1)))
        return outsideWorkspace(
                u"%1 is a UNC path: it names a network share (\\\\server\\share), "
                "outside the workspace %2. Use a path relative to the workspace."_s.arg(p,
                                                                                        workspace));
    if (startsWithDrive(path)) {
        if (path.size() == 2 || !isSeparator(path.at(2)))
            return outsideWorkspace(
                    u"%1 is a drive-relative path: Windows resolves it against the current folder "
                    "of drive %2, not against the workspace %3. Use a path relative to the "
                    "workspace."_s.arg(p, path.left(2), workspace));
#ifndef Q_OS_WIN
        return outsideWorkspace(
                u"%1 is a Windows drive path, and the workspace %2 is on a system "
                "without drive letters. Use a path relative to the workspace."_s.arg(p, workspace));
#endif
    }
#ifdef Q_OS_WIN
    if (isSeparator(path.at(0)))
        return outsideWorkspace(u"%1 starts at the root of the current drive, not at the workspace "
                                "%2. Use a path relative to the workspace, or a full path with its "
                                "drive letter."_s.arg(p, workspace));
#else
    // Not a separator here but an ordinary character of a name. The model almost certainly meant
    // a Windows separator, and a file named "src\main.cpp" is a trap for whoever checks the
    // repository out on Windows: refused rather than taken as one name or guessed as a separator.
    if (path.contains(u'\\'))
        return invalidPath(u"%1 contains a backslash, which is not a folder separator here but "
                           "would become part of a name. Use '/' between folders: %2"_s
                                   .arg(p, QString(path).replace(u'\\', u'/')));
#endif
    return std::nullopt;
}

PathResolution WorkspaceBoundary::resolveChecked(const QString &shownPath,
                                                 const QString &path,
                                                 Access access) const
{
    const QString workspace = native(m_root);

    // Lexically, before anything on disk is looked at.
    const QString slashed = QDir::fromNativeSeparators(path);
    const bool absolute = slashed.startsWith(u'/') || startsWithDrive(slashed);
    QString lexical = QDir::cleanPath(absolute ? slashed : joined(m_root, slashed));
#ifdef Q_OS_WIN
    // Every generated short name has a '~'.
    if (lexical.contains(u'~'))
        lexical = withLongNames(lexical);
#endif
    // The root as the constructor got it (through a link, or in short names) is the workspace too.
    if (!isUnder(lexical, m_root) && isUnder(lexical, m_givenRoot))
        lexical = joined(m_root, relativeTo(lexical, m_givenRoot));
    // cleanPath keeps a '..' that climbs above the root of the file system ("/../x").
    if (!isUnder(lexical, m_root) || lexical.split(u'/').contains(u".."_s)) {
        if (native(lexical) == shownPath)
            return outsideWorkspace(u"%1 is outside the workspace %2. Use a path inside it: "
                                    "relative to the workspace (e.g. src/main.cpp) or absolute "
                                    "below %2."_s.arg(shownPath, workspace));
        return outsideWorkspace(u"%1 resolves to %2, outside the workspace %3. Use a path inside "
                                "it: relative to the workspace (e.g. src/main.cpp) or absolute "
                                "below %3."_s.arg(shownPath, native(lexical), workspace));
    }
    const QString lexicalRelative = relativeTo(lexical, m_root);
    if (const auto refusal = refusedName(shownPath, lexicalRelative))
        return *refusal;
    if (access == Access::Write) {
        if (const auto refusal = writeProtection(lexicalRelative, shownPath))
            return *refusal;
    }

    // For real: the nearest part that exists, with what is missing below it.
    QString existing = lexical;
    QStringList missing;
    for (;;) {
        const QFileInfo info(existing);
        if (info.exists())
            break;
        if (info.isSymLink() || info.isJunction()) {
            const QString target = QDir::cleanPath(info.isJunction() ? info.junctionTarget()
                                                                     : info.symLinkTarget());
            const QString detail = u"%1 goes through %2, a link to %3, which does not exist. A "
                                   "link whose target is missing is not followed: writing "
                                   "through it would create the target wherever it points. Name "
                                   "a path that exists, or the target itself"_s.arg(shownPath,
                                                                                    native(existing),
                                                                                    native(target));
            if (!isUnder(target, m_root))
                return outsideWorkspace(
                        u"%1; the target is outside the workspace %2."_s.arg(detail, workspace));
            return invalidPath(detail + u"."_s);
        }
        if (samePath(existing, m_root) || !isUnder(existing, m_root))
            return outsideWorkspace(u"The workspace %1 does not exist any more, so %2 cannot be "
                                    "resolved in it."_s.arg(workspace, shownPath));
        missing.prepend(info.fileName());
        existing = parentPath(existing);
    }
    const QString real = realPath(existing);
    if (real.isEmpty())
        return outsideWorkspace(u"%1 cannot be resolved: the real location of %2 cannot be read, "
                                "so it cannot be confirmed to be inside the workspace %3."_s
                                        .arg(shownPath, native(existing), workspace));
    const QString resolved = joined(real, missing.join(u'/'));
    if (!isUnder(resolved, m_root))
        return outsideWorkspace(u"%1 resolves to %2 through a symbolic link, junction or mount "
                                "point, outside the workspace %3. Links that lead out of the "
                                "workspace are not followed; use a path whose real location is "
                                "inside it."_s.arg(shownPath, native(resolved), workspace));
    const QString relative = relativeTo(resolved, m_root);
    if (relative != lexicalRelative) {
        const QString where = u"%1 (which resolves to %2)"_s.arg(shownPath, native(relative));
        if (const auto refusal = refusedName(where, relative))
            return *refusal;
        if (access == Access::Write) {
            if (const auto refusal = writeProtection(relative, where))
                return *refusal;
        }
    }

    WorkspacePath allowed;
    allowed.absolute = resolved;
    allowed.relative = relative;
    allowed.exists = missing.isEmpty();
    allowed.isDirectory = allowed.exists && QFileInfo(resolved).isDir();
    return allowed;
}

std::optional<PathRefusal> WorkspaceBoundary::checkOpened(const QFileDevice &file,
                                                          const WorkspacePath &path) const
{
    if (!isValid())
        return missingWorkspaceRefusal(m_givenRoot);
    const QString where = path.relative.isEmpty() ? native(path.absolute) : native(path.relative);
    const QString workspace = native(m_root);
    const QString opened = openedPath(file);
    if (opened.isEmpty())
        return outsideWorkspace(
                u"%1 was opened, but where the open file really lies cannot be "
                "read, so it cannot be confirmed to be inside the workspace %2."_s.arg(where,
                                                                                       workspace));
    if (!isUnder(opened, m_root))
        return outsideWorkspace(u"%1 changed between the check and the use: the file opened is "
                                "%2, outside the workspace %3 (a link or junction was put in its "
                                "way). It was not used."_s.arg(where, native(opened), workspace));
    if (!samePath(opened, path.absolute))
        return invalidPath(u"%1 changed between the check and the use: the file opened is %2, not "
                           "%3. It was not used; try again."_s.arg(where,
                                                                   native(opened),
                                                                   native(path.absolute)));
    return std::nullopt;
}

std::variant<std::unique_ptr<QFile>, PathRefusal> WorkspaceBoundary::openForReading(
        const WorkspacePath &path) const
{
    const QString where = native(path.relative);
    const auto notRegular = [&where] {
        return PathRefusal{u"not_regular_file"_s,
                           u"%1 is not a regular file (a FIFO, socket or device): the file tools "
                           "read only regular files."_s.arg(where)};
    };
    auto file = std::make_unique<QFile>(path.absolute);
#ifdef Q_OS_WIN
    if (!file->open(QIODevice::ReadOnly))
        return PathRefusal{u"read_failed"_s,
                           u"could not open %1: %2"_s.arg(where, file->errorString())};
    // Devices are refused by name (refusedName); a handle to anything but a file on a disk is
    // refused here.
    const intptr_t handle = _get_osfhandle(file->handle());
    if (handle == -1 || GetFileType(reinterpret_cast<HANDLE>(handle)) != FILE_TYPE_DISK)
        return notRegular();
#else
    // Without blocking: opening a FIFO for reading would wait for a writer. What was opened is
    // then looked at through the descriptor, whatever was at the path a moment before.
    const int descriptor = ::open(QFile::encodeName(path.absolute).constData(),
                                  O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (descriptor < 0)
        return PathRefusal{u"read_failed"_s,
                           u"could not open %1: %2"_s.arg(where,
                                                          QString::fromLocal8Bit(
                                                                  std::strerror(errno)))};
    struct stat status;
    const bool statted = ::fstat(descriptor, &status) == 0;
    if (!statted || !S_ISREG(status.st_mode)) {
        ::close(descriptor);
        if (statted && S_ISDIR(status.st_mode))
            return PathRefusal{u"is_directory"_s, u"%1 is a folder."_s.arg(where)};
        return notRegular();
    }
    if (!file->open(descriptor, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(descriptor);
        return PathRefusal{u"read_failed"_s,
                           u"could not open %1: %2"_s.arg(where, file->errorString())};
    }
#endif
    if (const auto refused = checkOpened(*file, path))
        return *refused;
    return file;
}

std::optional<PathRefusal> WorkspaceBoundary::recheck(const WorkspacePath &path, Access access) const
{
    const PathResolution again = resolve(path.relative, access);
    if (const auto *refusal = std::get_if<PathRefusal>(&again))
        return *refusal;
    const QString now = std::get<WorkspacePath>(again).absolute;
    if (!samePath(now, path.absolute))
        return invalidPath(u"%1 changed since it was checked: it resolved to %2 and now resolves "
                           "to %3 (a link or junction was changed). Try again."_s
                                   .arg(native(path.relative), native(path.absolute), native(now)));
    return std::nullopt;
}

WorkspaceFileRead readWorkspaceFile(const WorkspaceBoundary &boundary,
                                    const QString &relativePath,
                                    qint64 limit)
{
    WorkspaceFileRead read;
    const PathResolution resolution = boundary.resolve(relativePath,
                                                       WorkspaceBoundary::Access::Read);
    const auto *path = std::get_if<WorkspacePath>(&resolution);
    if (path && !path->exists)
        return read;
    auto opened = path ? boundary.openForReading(*path) : std::get<PathRefusal>(resolution);
    if (const auto *refused = std::get_if<PathRefusal>(&opened)) {
        read.outcome = WorkspaceFileRead::Refused;
        read.refusal = *refused;
        return read;
    }
    QFile &file = *std::get<std::unique_ptr<QFile>>(opened);
    read.bytes = file.read(limit);
    if (file.error() != QFileDevice::NoError) {
        read.outcome = WorkspaceFileRead::Refused;
        read.refusal = {u"read_failed"_s,
                        u"could not read %1: %2"_s.arg(native(relativePath), file.errorString())};
        return read;
    }
    read.outcome = WorkspaceFileRead::Read;
    read.complete = file.atEnd();
    return read;
}

QString WorkspaceBoundary::displayPath(const WorkspacePath &path) const
{
    if (isValid() && !path.absolute.isEmpty() && isUnder(path.absolute, m_root))
        return native(relativeTo(path.absolute, m_root));
    return native(path.absolute.isEmpty() ? path.relative : path.absolute);
}

} // namespace AgentLoop
