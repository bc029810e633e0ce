#pragma once

#include <QFile>
#include <QString>

#include <memory>
#include <optional>
#include <variant>

namespace AgentLoop {

// A path inside the workspace, as the file tools use it.
struct WorkspacePath
{
    QString absolute; // '/' separators; the real (canonical) path of what exists of it
    QString relative; // to the workspace root, '/' separators, "." for the root itself
    bool exists = false;
    bool isDirectory = false;
};

// Why a path was refused. Nothing was read or written. Both texts are English, for the model.
struct PathRefusal
{
    // outside_workspace, invalid_path, read_only_path; from openForReading() also
    // not_regular_file (a FIFO, socket or device) and read_failed
    QString code;
    QString detail; // "src/../../x resolves to /home/u/x, outside the workspace /home/u/repo"
};

using PathResolution = std::variant<WorkspacePath, PathRefusal>;

// The boundary every file tool goes through: a path the model names is resolved against the
// workspace and refused, before anything touches it, when it leads outside: `..` escapes,
// absolute paths elsewhere, symbolic links, junctions and mount points that point out, and the
// forms that are hard to see on Windows (UNC and device paths, drive-relative paths, reserved
// device names, alternate data streams, 8.3 short names, trailing dots and spaces, case tricks on
// case-insensitive file systems). Those Windows forms are refused on every platform: the same
// repository is often checked out on both. `.git/` may be read but not written.
class WorkspaceBoundary final
{
public:
    enum class Access { Read, Write };

    explicit WorkspaceBoundary(const QString &root);

    // The workspace's canonical path; empty when it does not exist.
    const QString &root() const { return m_root; }
    bool isValid() const { return !m_root.isEmpty(); }

    // Resolves a path the model sent: relative to the root, or absolute inside it. A path that
    // does not exist yet (a new file for Write) is resolved through its nearest existing parent.
    PathResolution resolve(const QString &path, Access access) const;

    // At the moment of use: the file just opened is still the one resolve() allowed (its handle's
    // final path is inside the workspace and is that path). A refusal means a link or junction
    // was swapped in between the check and the use: outside_workspace when the file now lies
    // outside, invalid_path when it is another file inside.
    std::optional<PathRefusal> checkOpened(const QFileDevice &file, const WorkspacePath &path) const;

    // Opens for reading the existing file resolve() allowed, the one way every tool (and
    // AGENTS.md) reads a workspace file: only a regular file, never a FIFO, socket or device (a
    // reader would wait on it for ever, or read without end), refused without waiting even when
    // one is swapped in after the check; and the handle must still be the checked file
    // (checkOpened()).
    std::variant<std::unique_ptr<QFile>, PathRefusal> openForReading(const WorkspacePath &path) const;

    // Resolves path.relative again and refuses if it now resolves elsewhere (right before a write
    // is committed): the refusal resolve() gives, or invalid_path when it now leads to another
    // place inside the workspace.
    std::optional<PathRefusal> recheck(const WorkspacePath &path, Access access) const;

    // The path as the user sees it: native separators, relative to the workspace when inside.
    QString displayPath(const WorkspacePath &path) const;

private:
    std::optional<PathRefusal> refusedForm(const QString &path) const;
    PathResolution resolveChecked(const QString &shown, const QString &path, Access access) const;

    QString m_root;
    QString m_givenRoot; // as the constructor got it, absolute and clean: the model may use it
};

// A file a repository can ship that the app itself reads (.gitignore, AGENTS.md, the files in
// .agentloop/), read the way the file tools read: through the boundary, only a regular file whose
// real location is inside the workspace, at most limit bytes.
struct WorkspaceFileRead
{
    enum Outcome { Read, Missing, Refused } outcome = Missing;
    QByteArray bytes;
    bool complete = false; // bytes is the whole file
    PathRefusal refusal;   // when Refused: why (a link out, not a regular file, unreadable)
};
WorkspaceFileRead readWorkspaceFile(const WorkspaceBoundary &boundary,
                                    const QString &relativePath,
                                    qint64 limit);

} // namespace AgentLoop
