#pragma once

#include <QByteArray>
#include <QFileInfo>
#include <QList>
#include <QRegularExpression>
#include <QString>

#include <functional>

namespace AgentLoop {

// A `**`-style glob (`src/**/*.cpp`, `*.{h,cpp}`, `docs/?.md`, `[ab]*`) as a regular expression
// over '/'-separated relative paths: `*` and `?` stay within one folder, `**/` crosses any number
// of folders (none included), `{a,b}` is either. Case-insensitive when caseSensitive is false.
QRegularExpression globExpression(const QString &pattern, bool caseSensitive = true);

// The rules of the .gitignore files of one tree, as git reads them: a pattern without a slash
// matches a name at any depth below its file's folder, one with a slash matches from that folder,
// a trailing slash matches folders only, `!` re-includes, and the last matching rule wins (a
// deeper file's rules come later). What a parent folder ignores is never looked into, so nothing
// below it can be re-included, as in git.
class GitIgnoreRules final
{
public:
    // The rules of `<folder>/.gitignore` (or of .git/info/exclude for the root, folder ""), folder
    // relative to the tree's root with '/' separators.
    void add(const QString &folder, const QByteArray &content);
    bool isIgnored(const QString &relativePath, bool isDirectory) const;
    bool isEmpty() const { return m_rules.isEmpty(); }

private:
    struct Rule
    {
        QRegularExpression expression;
        bool negated = false;
        bool directoryOnly = false;
    };
    QList<Rule> m_rules;
};

// Visits the files under start (an absolute folder inside root) in path order, skipping `.git`
// folders, what the tree's .gitignore files (and .git/info/exclude) ignore, and links to
// folders (never followed: they may lead out of the workspace or in a circle). relative is the
// file's path relative to root. visit returns false to stop the walk.
void visitWorkspaceFiles(
        const QString &root,
        const QString &start,
        const std::function<bool(const QFileInfo &file, const QString &relative)> &visit);

} // namespace AgentLoop
