#pragma once

#include <QFileDevice>
#include <QString>

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
    QString code;   // outside_workspace, invalid_path, read_only_path
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

} // namespace AgentLoop
