#include "tools/pathpatterns.h"

#include "files/workspace.h"

#include <QDir>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

// The regular expression for one glob or gitignore pattern (no anchors); braces only for globs.
QString globToRegex(QStringView pattern, bool braces)
{
    QString regex;
    int braceDepth = 0;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern[i];
        if (c == u'*') {
            const bool doubleStar = i + 1 < pattern.size() && pattern[i + 1] == u'*';
            const bool startsComponent = i == 0 || pattern[i - 1] == u'/';
            if (doubleStar && startsComponent) {
                const qsizetype after = i + 2;
                if (after == pattern.size()) { // "**" at the end: everything below
                    regex += u".*"_s;
                    i = after - 1;
                    continue;
                }
                if (pattern[after] == u'/') { // "**/": any folders, none included
                    regex += u"(?:[^/]*/)*"_s;
                    i = after;
                    continue;
                }
            }
            regex += u"[^/]*"_s;
            while (i + 1 < pattern.size() && pattern[i + 1] == u'*')
                ++i;
        } else if (c == u'?') {
            regex += u"[^/]"_s;
        } else if (c == u'[') {
            const qsizetype close = pattern.indexOf(u']', i + 2);
            if (close < 0) {
                regex += u"\\["_s;
                continue;
            }
            QString set = pattern.sliced(i + 1, close - i - 1).toString();
            if (set.startsWith(u'!'))
                set[0] = u'^';
            set.replace(u"\\"_s, u"\\\\"_s);
            regex += u'[' + set + u']';
            i = close;
        } else if (c == u'\\' && i + 1 < pattern.size()) {
            regex += QRegularExpression::escape(pattern[++i]);
        } else if (braces && c == u'{') {
            ++braceDepth;
            regex += u"(?:"_s;
        } else if (braces && c == u'}' && braceDepth > 0) {
            --braceDepth;
            regex += u')';
        } else if (braces && c == u',' && braceDepth > 0) {
            regex += u'|';
        } else {
            regex += QRegularExpression::escape(c);
        }
    }
    while (braceDepth-- > 0)
        regex += u')';
    return regex;
}

QString childPath(const QString &folder, const QString &name)
{
    return folder.isEmpty() ? name : folder + u'/' + name;
}

// The rules of an ignore file of the repository (relative to the workspace), read as the file
// tools read: one that is a link out of the workspace, a FIFO or a device adds nothing.
void addRulesOf(GitIgnoreRules &rules,
                const QString &folder,
                const WorkspaceBoundary &boundary,
                const QString &file)
{
    const WorkspaceFileRead read = readWorkspaceFile(boundary, file, 1024 * 1024);
    if (read.outcome == WorkspaceFileRead::Read)
        rules.add(folder, read.bytes);
}

} // namespace

QRegularExpression globExpression(const QString &pattern, bool caseSensitive)
{
    QRegularExpression::PatternOptions options = QRegularExpression::DontCaptureOption;
    if (!caseSensitive)
        options |= QRegularExpression::CaseInsensitiveOption;
    QRegularExpression expression(QRegularExpression::anchoredPattern(globToRegex(pattern, true)),
                                  options);
    expression.optimize();
    return expression;
}

void GitIgnoreRules::add(const QString &folder, const QByteArray &content)
{
    const QStringList lines = QString::fromUtf8(content).split(u'\n');
    for (QString line : lines) {
        if (line.endsWith(u'\r'))
            line.chop(1);
        // Trailing spaces are not part of the pattern unless escaped.
        while (line.endsWith(u' ') && !line.endsWith(u"\\ "_s))
            line.chop(1);
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        Rule rule;
        if (line.startsWith(u'!')) {
            rule.negated = true;
            line.remove(0, 1);
        }
        if (line.endsWith(u'/')) {
            rule.directoryOnly = true;
            line.chop(1);
        }
        if (line.isEmpty())
            continue;
        const bool anchored = line.contains(u'/');
        if (line.startsWith(u'/'))
            line.remove(0, 1);
        QString regex = globToRegex(line, false);
        if (!anchored)
            regex = u"(?:[^/]*/)*"_s + regex;
        if (!folder.isEmpty())
            regex = QRegularExpression::escape(folder + u'/') + regex;
        rule.expression = QRegularExpression(QRegularExpression::anchoredPattern(regex),
                                             QRegularExpression::DontCaptureOption);
        if (!rule.expression.isValid())
            continue; // git skips what it cannot read, too
        rule.expression.optimize();
        m_rules.append(std::move(rule));
    }
}

bool GitIgnoreRules::isIgnored(const QString &relativePath, bool isDirectory) const
{
    for (auto rule = m_rules.crbegin(); rule != m_rules.crend(); ++rule) {
        if (rule->directoryOnly && !isDirectory)
            continue;
        if (rule->expression.match(relativePath).hasMatch())
            return !rule->negated;
    }
    return false;
}

void visitWorkspaceFiles(
        const QString &root,
        const QString &start,
        const std::function<bool(const QFileInfo &file, const QString &relative)> &visit)
{
    const QDir rootDir(root);
    const WorkspaceBoundary boundary(root);
    GitIgnoreRules rules;
    addRulesOf(rules, QString(), boundary, u".git/info/exclude"_s);
    // The .gitignore files of the folders from the root down to start apply to start, too.
    const QString startRelative = rootDir.relativeFilePath(start);
    QString folder;
    addRulesOf(rules, folder, boundary, u".gitignore"_s);
    if (startRelative != u"."_s) {
        for (const QString &name : startRelative.split(u'/')) {
            folder = childPath(folder, name);
            addRulesOf(rules, folder, boundary, folder + u"/.gitignore"_s);
        }
    }

    struct Pending
    {
        QString relative; // "" for the root
        GitIgnoreRules rules;
    };
    QList<Pending> stack{{startRelative == u"."_s ? QString() : startRelative, rules}};
    while (!stack.isEmpty()) {
        Pending current = stack.takeLast();
        const QString absolute = current.relative.isEmpty() ? root : root + u'/' + current.relative;
        if (current.relative != startRelative && !current.relative.isEmpty())
            addRulesOf(current.rules,
                       current.relative,
                       boundary,
                       current.relative + u"/.gitignore"_s);
        const QFileInfoList entries = QDir(absolute).entryInfoList(QDir::AllEntries
                                                                           | QDir::NoDotAndDotDot
                                                                           | QDir::Hidden
                                                                           | QDir::System,
                                                                   QDir::Name);
        QList<Pending> folders;
        for (const QFileInfo &entry : entries) {
            const QString relative = childPath(current.relative, entry.fileName());
            const bool isFolder = entry.isDir();
            if (isFolder && (entry.isSymLink() || entry.isJunction()))
                continue;
            if (isFolder && entry.fileName().compare(u".git"_s, Qt::CaseInsensitive) == 0)
                continue;
            if (current.rules.isIgnored(relative, isFolder))
                continue;
            if (isFolder) {
                folders.append({relative, current.rules});
                continue;
            }
            if (!visit(entry, relative))
                return;
        }
        // Depth first, in name order: the last pushed is visited first.
        for (auto it = folders.crbegin(); it != folders.crend(); ++it)
            stack.append(*it);
    }
}

} // namespace AgentLoop
