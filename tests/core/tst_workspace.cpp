#include "files/workspace.h"
#include "testmain.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_WIN
#include <QProcess>

#include <qt_windows.h>

#include <string>
#endif

using namespace AgentLoop;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(AgentLoop::WorkspaceBoundary::Access)

namespace {

constexpr auto Read = WorkspaceBoundary::Access::Read;
constexpr auto Write = WorkspaceBoundary::Access::Write;

QString native(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

bool makeFile(const QString &path, const QByteArray &bytes)
{
    if (!QDir().mkpath(QFileInfo(path).path()))
        return false;
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
           && file.write(bytes) == bytes.size();
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A folder link as the platform makes one: a symbolic link, or on Windows a junction (mklink /J
// needs no privilege, a symbolic link does). Empty when made, else why not.
QString makeFolderLink(const QString &link, const QString &target)
{
#ifdef Q_OS_WIN
    QProcess mklink;
    mklink.start(u"cmd"_s, {u"/c"_s, u"mklink"_s, u"/J"_s, native(link), native(target)});
    if (!mklink.waitForFinished(30000))
        return u"cmd /c mklink /J did not finish: "_s + mklink.errorString();
    const QFileInfo made(link);
    if (mklink.exitCode() != 0 || !made.exists() || !made.isJunction())
        return u"cmd /c mklink /J failed (exit code %1): %2"_s
                .arg(QString::number(mklink.exitCode()),
                     QString::fromLocal8Bit(mklink.readAllStandardError()
                                            + mklink.readAllStandardOutput())
                             .trimmed());
    return {};
#else
    return QFile::link(target, link) ? QString() : u"cannot make the symbolic link "_s + link;
#endif
}

bool removeFolderLink(const QString &link)
{
#ifdef Q_OS_WIN
    return QDir().rmdir(link); // removes the junction, not its target
#else
    return QFile::remove(link);
#endif
}

// For a failure message: the refusal's code and detail, or nothing.
QString describe(const std::optional<PathRefusal> &refusal)
{
    return refusal ? refusal->code + u": "_s + refusal->detail : QString();
}

// What a file tool does to write: resolve, create the folders, open without truncating, check
// that the file opened is the one allowed, recheck, and only then replace its contents. The
// refusal's code, or an empty string when written.
QString writeThroughBoundary(const WorkspaceBoundary &boundary,
                             const QString &path,
                             const QByteArray &bytes)
{
    const PathResolution resolution = boundary.resolve(path, Write);
    if (const auto *refusal = std::get_if<PathRefusal>(&resolution))
        return refusal->code;
    const WorkspacePath &target = std::get<WorkspacePath>(resolution);
    if (!QDir().mkpath(QFileInfo(target.absolute).path()))
        return u"cannot create the folder of "_s + target.absolute;
    QFile file(target.absolute);
    if (!file.open(QIODevice::ReadWrite))
        return u"cannot open "_s + target.absolute + u": "_s + file.errorString();
    if (const auto refusal = boundary.checkOpened(file, target))
        return refusal->code;
    if (const auto refusal = boundary.recheck(target, Write))
        return refusal->code;
    if (!file.resize(0) || file.write(bytes) != bytes.size())
        return u"cannot write "_s + target.absolute;
    return {};
}

} // namespace

// The boundary every file tool goes through. The temporary folder holds the workspace and, beside
// it, what must never be touched: outside/ (with secret.txt) and workspace2/ (a sibling whose
// name starts with the workspace's). After every row the canary compares everything there with
// how it was.
class tst_Workspace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();

    void rootIsCanonical();
    void missingWorkspaceRefusesEverything();
    void refused_data();
    void refused();
    void outsideDetailSaysWhereItLeads();
    void allowed_data();
    void allowed();
    void writesGoThroughTheBoundary_data();
    void writesGoThroughTheBoundary();
    void rootGivenThroughALink();
    void openedFileIsTheResolvedOne();
    void folderSwappedForALinkIsRefused();
    void fileSwappedForALinkIsRefused();
    void displayPathIsNativeAndRelative();
    // Windows only.
    void junctionLeadingOutIsRefused();
    void shortNamesAreExpandedBeforeTheCheck();

private:
    // Everything outside the workspace: path, type, size, contents and time of each entry.
    QStringList outsideSnapshot() const;

    QTemporaryDir m_temporary;
    QString m_top;       // the temporary folder, canonical
    QString m_workspace; // m_top/workspace, canonical
    QString m_outside;   // m_top/outside
    QString m_alias;     // m_top/workspace-alias, a link to the workspace; empty if none
    QString m_aliasWhyNot;
    QStringList m_outsideBefore;
};

QStringList tst_Workspace::outsideSnapshot() const
{
    QStringList entries;
    QDirIterator it(m_top,
                    QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = QDir(m_top).relativeFilePath(path);
        // The workspace, and the link to it, change as the rows write.
        if (relative == u"workspace" || relative.startsWith(u"workspace/")
            || relative == u"workspace-alias" || relative.startsWith(u"workspace-alias/"))
            continue;
        const QFileInfo info = it.fileInfo();
        if (info.isSymLink()) {
            entries << u"%1 link to %2"_s.arg(relative, info.symLinkTarget());
            continue;
        }
        const QByteArray hash = info.isFile() ? QCryptographicHash::hash(contents(path),
                                                                         QCryptographicHash::Sha256)
                                                        .toHex()
                                              : QByteArray();
        entries << u"%1 dir=%2 size=%3 sha256=%4 modified=%5"_s.arg(relative,
                                                                    info.isDir() ? u"1"_s : u"0"_s,
                                                                    QString::number(info.size()),
                                                                    QString::fromLatin1(hash),
                                                                    info.lastModified().toString(
                                                                            Qt::ISODateWithMs));
    }
    entries.sort();
    return entries;
}

void tst_Workspace::initTestCase()
{
    QVERIFY2(m_temporary.isValid(), qPrintable(m_temporary.errorString()));
    m_top = QFileInfo(m_temporary.path()).canonicalFilePath();
    QVERIFY(QDir(m_top).mkdir(u"workspace"_s));
    m_workspace = m_top + u"/workspace"_s;
    m_outside = m_top + u"/outside"_s;

    QVERIFY(makeFile(m_workspace + u"/src/main.cpp"_s, "int main() { return 0; }\n"));
    QVERIFY(makeFile(m_workspace + u"/sub/inner.txt"_s, "inner\n"));
    QVERIFY(makeFile(m_workspace + u"/.git/config"_s, "[core]\n\tbare = false\n"));
    QVERIFY(makeFile(m_workspace + u"/.git/HEAD"_s, "ref: refs/heads/main\n"));
    QVERIFY(makeFile(m_workspace + u"/vendor/lib/.git/config"_s, "[core]\n"));
    QVERIFY(makeFile(m_workspace + u"/decoy/data.txt"_s, "decoy\n"));

    QVERIFY(makeFile(m_outside + u"/secret.txt"_s, "secret\n"));
    QVERIFY(makeFile(m_outside + u"/data.txt"_s, "outside\n"));
    QVERIFY(makeFile(m_outside + u"/A folder with a long name/secret.txt"_s, "long\n"));
    QVERIFY(makeFile(m_top + u"/workspace2/file.txt"_s, "sibling\n"));

#ifndef Q_OS_WIN
    // Links inside the workspace: out to a file, out to a folder, inside, to nothing outside, to
    // .git, to themselves, and up to the parent.
    const QString ws = m_workspace + u'/';
    QVERIFY(QFile::link(m_outside + u"/secret.txt"_s, ws + u"link-out-file"_s));
    QVERIFY(QFile::link(m_outside, ws + u"link-out-dir"_s));
    QVERIFY(QFile::link(u"sub"_s, ws + u"link-in"_s));
    QVERIFY(QFile::link(m_outside + u"/created-through-link.txt"_s, ws + u"link-dangling-out"_s));
    QVERIFY(QFile::link(u".git"_s, ws + u"link-to-git"_s));
    QVERIFY(QFile::link(ws + u"link-loop"_s, ws + u"link-loop"_s));
    QVERIFY(QFile::link(u".."_s, ws + u"link-up"_s));
#endif

    // Outside the workspace, so made before the canary's snapshot.
    m_aliasWhyNot = makeFolderLink(m_top + u"/workspace-alias"_s, m_workspace);
    if (m_aliasWhyNot.isEmpty())
        m_alias = m_top + u"/workspace-alias"_s;

    m_outsideBefore = outsideSnapshot();
    QVERIFY(m_outsideBefore.size() >= 6);
}

// The canary: whatever the row did, nothing outside the workspace was created, changed or
// removed.
void tst_Workspace::cleanup()
{
    QCOMPARE(outsideSnapshot(), m_outsideBefore);
}

void tst_Workspace::rootIsCanonical()
{
    const WorkspaceBoundary boundary(m_workspace + u"/src/.."_s);
    QVERIFY(boundary.isValid());
#ifdef Q_OS_WIN
    QCOMPARE(boundary.root().compare(m_workspace, Qt::CaseInsensitive), 0);
#else
    QCOMPARE(boundary.root(), m_workspace);
#endif
    QVERIFY(!boundary.root().contains(u'\\'));
}

void tst_Workspace::missingWorkspaceRefusesEverything()
{
    for (const QString &root : {m_top + u"/no-such-folder"_s,
                                m_workspace + u"/src/main.cpp"_s, // a file, not a folder
                                QString()}) {
        const WorkspaceBoundary boundary(root);
        QVERIFY2(!boundary.isValid(), qPrintable(root));
        QVERIFY(boundary.root().isEmpty());
        for (const QString &path : {u"src/main.cpp"_s, u"."_s, m_workspace}) {
            const PathResolution resolution = boundary.resolve(path, Read);
            const auto *refusal = std::get_if<PathRefusal>(&resolution);
            QVERIFY2(refusal, qPrintable(path));
            QCOMPARE(refusal->code, u"outside_workspace"_s);
            QVERIFY2(refusal->detail.contains(root.isEmpty() ? u"No workspace"_s
                                                             : u"does not exist"_s),
                     qPrintable(refusal->detail));
        }
        QFile file(m_workspace + u"/src/main.cpp"_s);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto opened = boundary.checkOpened(file,
                                                 {m_workspace + u"/src/main.cpp"_s,
                                                  u"src/main.cpp"_s,
                                                  true,
                                                  false});
        QVERIFY(opened);
        QCOMPARE(opened->code, u"outside_workspace"_s);
    }
}

void tst_Workspace::refused_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<WorkspaceBoundary::Access>("access");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("detailSays"); // what the model is told, in part

    const QString outside = u"outside_workspace"_s;
    const QString invalid = u"invalid_path"_s;
    const QString readOnly = u"read_only_path"_s;
    const QString out = u"outside the workspace"_s;

    // Up and out.
    QTest::newRow("..") << u".."_s << Read << outside << out;
    QTest::newRow("../ a sibling's file") << u"../outside/secret.txt"_s << Read << outside << out;
    QTest::newRow("in and up twice") << u"src/../../outside/secret.txt"_s << Read << outside << out;
    QTest::newRow("up past the file system's root")
            << u"../../../../../../../../../../../../etc/passwd"_s << Read << outside << out;
    QTest::newRow("up to create a file") << u"../created.txt"_s << Write << outside << out;
    QTest::newRow("dots and slashes") << u"./sub/.././../outside"_s << Read << outside << out;
    // Absolute paths elsewhere.
    QTest::newRow("absolute outside") << m_outside + u"/secret.txt"_s << Read << outside << out;
    QTest::newRow("absolute parent") << m_top << Read << outside << out;
    QTest::newRow("sibling whose name starts with the workspace's")
            << m_workspace + u"2/file.txt"_s << Write << outside << out;
    QTest::newRow("../ to that sibling") << u"../workspace2/file.txt"_s << Read << outside << out;
#ifdef Q_OS_WIN
    QTest::newRow("rooted without a drive")
            << u"/etc/passwd"_s << Read << outside << u"root of the current drive"_s;
    QTest::newRow("another drive's absolute path")
            << u"Q:/Windows/System32/drivers/etc/hosts"_s << Read << outside << out;
#else
    QTest::newRow("/etc/passwd") << u"/etc/passwd"_s << Read << outside << out;
    QTest::newRow("a Windows drive path") << u"C:/Windows/System32/drivers/etc/hosts"_s << Read
                                          << outside << u"Windows drive path"_s;
#endif
    // UNC, device and drive-relative forms.
    QTest::newRow("UNC") << u"\\\\server\\share\\file.txt"_s << Read << outside << u"UNC"_s;
    QTest::newRow("UNC with slashes")
            << u"//server/share/file.txt"_s << Read << outside << u"UNC"_s;
    QTest::newRow("UNC to this machine")
            << u"\\\\localhost\\C$\\Windows\\win.ini"_s << Read << outside << u"UNC"_s;
    QTest::newRow("device \\\\?\\")
            << u"\\\\?\\C:\\Windows\\win.ini"_s << Read << outside << u"device path"_s;
    QTest::newRow("device \\\\.\\")
            << u"\\\\.\\PhysicalDrive0"_s << Read << outside << u"device path"_s;
    QTest::newRow("device //?/") << u"//?/C:/Windows/win.ini"_s << Read << outside
                                 << u"device path"_s;
    QTest::newRow("device //./") << u"//./COM1"_s << Write << outside << u"device path"_s;
    QTest::newRow("NT path \\??\\")
            << u"\\??\\C:\\Windows\\win.ini"_s << Read << outside << u"device path"_s;
    QTest::newRow("drive-relative C:foo") << u"C:foo"_s << Write << outside << u"drive-relative"_s;
    QTest::newRow("drive-relative c:..") << u"c:..\\x"_s << Read << outside << u"drive-relative"_s;
    QTest::newRow("a drive alone") << u"D:"_s << Read << outside << u"drive-relative"_s;
    // Reserved device names, with any extension, in any folder, in any case.
    QTest::newRow("nul.txt") << u"nul.txt"_s << Write << invalid << u"reserved device name"_s;
    QTest::newRow("src/Con.cpp") << u"src/Con.cpp"_s << Write << invalid
                                 << u"reserved device name"_s;
    QTest::newRow("AUX") << u"AUX"_s << Read << invalid << u"reserved device name"_s;
    QTest::newRow("prn.tar.gz") << u"prn.tar.gz"_s << Write << invalid << u"reserved device name"_s;
    QTest::newRow("com1.log") << u"logs/com1.log"_s << Write << invalid
                              << u"reserved device name"_s;
    QTest::newRow("LPT9") << u"LPT9"_s << Write << invalid << u"reserved device name"_s;
    QTest::newRow("COM superscript one")
            << u"COM\u00B9.txt"_s << Write << invalid << u"reserved device name"_s;
    QTest::newRow("lpt superscript three")
            << u"lpt\u00B3"_s << Write << invalid << u"reserved device name"_s;
    QTest::newRow("a device as a folder")
            << u"nul/file.txt"_s << Write << invalid << u"reserved device name"_s;
    QTest::newRow("CONOUT$") << u"CONOUT$"_s << Write << invalid << u"reserved device name"_s;
    // Alternate data streams.
    QTest::newRow("file.txt:stream") << u"file.txt:stream"_s << Write << invalid
                                     << u"alternate data stream \"stream\" of \"file.txt\""_s;
    QTest::newRow("::$DATA") << u"src/main.cpp::$DATA"_s << Read << invalid
                             << u"alternate data stream"_s;
    QTest::newRow("a stream of a folder")
            << u"src:hidden/x.txt"_s << Write << invalid << u"alternate data stream"_s;
    // Trailing dots and spaces, which Windows drops.
    QTest::newRow("foo.") << u"foo."_s << Write << invalid << u"would name \"foo\""_s;
    QTest::newRow("foo space") << u"foo "_s << Write << invalid << u"would name \"foo\""_s;
    QTest::newRow("a folder with a trailing dot")
            << u"src./main.cpp"_s << Write << invalid << u"would name \"src\""_s;
    QTest::newRow("three dots") << u"..."_s << Read << invalid << u"the folder it is in"_s;
    QTest::newRow("dot dot space")
            << u".. /outside/secret.txt"_s << Read << invalid << u"drops the dots and spaces"_s;
    QTest::newRow(".git. to dodge the .git rule")
            << u".git./config"_s << Write << invalid << u"would name \".git\""_s;
    // Control characters and nothing at all.
    QTest::newRow("empty") << QString() << Read << invalid << u"empty"_s;
    QTest::newRow("NUL") << u"src/main.cpp\0.txt"_s << Write << invalid
                         << u"control character U+0000 at position 13"_s;
    QTest::newRow("line break") << u"src/a\nb.txt"_s << Write << invalid << u"U+000A"_s;
    QTest::newRow("escape sequence") << u"\x1b[8mhidden.txt"_s << Write << invalid << u"U+001B"_s;
    QTest::newRow("DEL") << u"a\x7f.txt"_s << Write << invalid << u"U+007F"_s;
    QTest::newRow("C1 control") << u"a\u0085b.txt"_s << Write << invalid << u"U+0085"_s;
    // Backslashes: separators on Windows; elsewhere refused rather than made part of a name.
#ifdef Q_OS_WIN
    QTest::newRow("..\\ with backslashes")
            << u"..\\outside\\secret.txt"_s << Read << outside << out;
#else
    QTest::newRow("..\\ with backslashes")
            << u"..\\outside\\secret.txt"_s << Read << invalid << u"backslash"_s;
    QTest::newRow("a backslash in a name")
            << u"src\\main.cpp"_s << Write << invalid << u"Use '/' between folders: src/main.cpp"_s;
#endif
    // .git, at the root and in submodules, in any case: read, never written.
    QTest::newRow(".git/config") << u".git/config"_s << Write << readOnly << u".git"_s;
    QTest::newRow(".GIT/config") << u".GIT/config"_s << Write << readOnly << u".git"_s;
    QTest::newRow("a new hook") << u".Git/hooks/pre-commit"_s << Write << readOnly << u".git"_s;
    QTest::newRow(".git itself") << u".git"_s << Write << readOnly << u".git"_s;
    QTest::newRow("a submodule's .git")
            << u"vendor/lib/.git/config"_s << Write << readOnly << u".git"_s;
    QTest::newRow("into .git by way of ..")
            << u"src/../.git/HEAD"_s << Write << readOnly << u".git"_s;
    QTest::newRow("absolute into .git")
            << m_workspace + u"/.git/HEAD"_s << Write << readOnly << u".git"_s;
#ifndef Q_OS_WIN
    // Symbolic links that lead out.
    const QString outsideSecret = native(m_outside + u"/secret.txt"_s);
    QTest::newRow("link to a file outside")
            << u"link-out-file"_s << Read << outside << outsideSecret;
    QTest::newRow("link to a file outside, for writing")
            << u"link-out-file"_s << Write << outside << outsideSecret;
    QTest::newRow("link to a folder outside")
            << u"link-out-dir/secret.txt"_s << Read << outside << outsideSecret;
    QTest::newRow("the link to a folder outside itself")
            << u"link-out-dir"_s << Read << outside << u"through a symbolic link"_s;
    QTest::newRow("a new file through a link to a folder outside")
            << u"link-out-dir/new/created.txt"_s << Write << outside
            << u"through a symbolic link"_s;
    QTest::newRow("a link to nothing outside")
            << u"link-dangling-out"_s << Write << outside << u"which does not exist"_s;
    QTest::newRow("a link to its parent")
            << u"link-up/outside/secret.txt"_s << Read << outside << outsideSecret;
    QTest::newRow("a link that loops")
            << u"link-loop"_s << Read << invalid << u"which does not exist"_s;
    QTest::newRow("a link into .git")
            << u"link-to-git/config"_s << Write << readOnly << u"resolves to .git/config"_s;
#endif
}

void tst_Workspace::refused()
{
    QFETCH(QString, path);
    QFETCH(WorkspaceBoundary::Access, access);
    QFETCH(QString, code);
    QFETCH(QString, detailSays);

    const WorkspaceBoundary boundary(m_workspace);
    const PathResolution resolution = boundary.resolve(path, access);
    const auto *refusal = std::get_if<PathRefusal>(&resolution);
    QVERIFY2(refusal,
             qPrintable(refusal ? QString()
                                : u"allowed as "_s + std::get<WorkspacePath>(resolution).absolute));
    QCOMPARE(refusal->code, code);
    QVERIFY2(refusal->detail.contains(detailSays), qPrintable(refusal->detail));
}

// The example the header gives, word for word: where it leads, and where the workspace is.
void tst_Workspace::outsideDetailSaysWhereItLeads()
{
    const WorkspaceBoundary boundary(m_workspace);
    const QString top = boundary.root().left(boundary.root().lastIndexOf(u'/'));
    const PathResolution resolution = boundary.resolve(u"src/../../outside/x"_s, Read);
    QVERIFY(std::holds_alternative<PathRefusal>(resolution));
    const QString expected = u"src/../../outside/x resolves to %1, outside the workspace %2."_s
                                     .arg(native(top + u"/outside/x"_s), native(boundary.root()));
    QVERIFY2(std::get<PathRefusal>(resolution).detail.startsWith(expected),
             qPrintable(std::get<PathRefusal>(resolution).detail));
}

void tst_Workspace::allowed_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<WorkspaceBoundary::Access>("access");
    QTest::addColumn<QString>("relative");
    QTest::addColumn<bool>("exists");
    QTest::addColumn<bool>("isDirectory");

    QTest::newRow("plain relative")
            << u"src/main.cpp"_s << Read << u"src/main.cpp"_s << true << false;
    QTest::newRow("dot segments and doubled slashes")
            << u"./src//./main.cpp"_s << Read << u"src/main.cpp"_s << true << false;
    QTest::newRow("down, up and down")
            << u"src/../src/main.cpp"_s << Read << u"src/main.cpp"_s << true << false;
    QTest::newRow("out and straight back in")
            << u"../workspace/src/main.cpp"_s << Read << u"src/main.cpp"_s << true << false;
    QTest::newRow("absolute inside")
            << m_workspace + u"/src/main.cpp"_s << Write << u"src/main.cpp"_s << true << false;
    QTest::newRow("absolute root") << m_workspace << Read << u"."_s << true << true;
    QTest::newRow("the root") << u"."_s << Read << u"."_s << true << true;
    QTest::newRow("the root with a slash") << u"./"_s << Read << u"."_s << true << true;
    QTest::newRow("a folder") << u"src/"_s << Read << u"src"_s << true << true;
    QTest::newRow("a new file in new folders")
            << u"new/deeper/file.txt"_s << Write << u"new/deeper/file.txt"_s << false << false;
    QTest::newRow("a new file") << u"src/new.cpp"_s << Write << u"src/new.cpp"_s << false << false;
    QTest::newRow(".git is readable")
            << u".git/config"_s << Read << u".git/config"_s << true << false;
    QTest::newRow(".git can be listed") << u".git"_s << Read << u".git"_s << true << true;
    QTest::newRow("a submodule's .git is readable")
            << u"vendor/lib/.git/config"_s << Read << u"vendor/lib/.git/config"_s << true << false;
    QTest::newRow(".gitignore is not .git")
            << u".gitignore"_s << Write << u".gitignore"_s << false << false;
    QTest::newRow(".github is not .git") << u".github/workflows/ci.yml"_s << Write
                                         << u".github/workflows/ci.yml"_s << false << false;
    QTest::newRow("a name ending in .git")
            << u"my.git/x"_s << Write << u"my.git/x"_s << false << false;
    QTest::newRow("console.log is not CON")
            << u"console.log"_s << Write << u"console.log"_s << false << false;
    QTest::newRow("null.txt is not NUL")
            << u"null.txt"_s << Write << u"null.txt"_s << false << false;
    QTest::newRow("COM10 is no device")
            << u"com10.txt"_s << Write << u"com10.txt"_s << false << false;
    QTest::newRow("LPT alone is no device") << u"lpt"_s << Write << u"lpt"_s << false << false;
    QTest::newRow("xnul is no device")
            << u"src/xnul.c"_s << Write << u"src/xnul.c"_s << false << false;
    QTest::newRow("dots inside a name")
            << u"foo..bar"_s << Write << u"foo..bar"_s << false << false;
    QTest::newRow("a hidden file") << u".hidden"_s << Write << u".hidden"_s << false << false;
    QTest::newRow("spaces inside names")
            << u"a b/c d.txt"_s << Write << u"a b/c d.txt"_s << false << false;
    QTest::newRow("a leading space") << u" lead.txt"_s << Write << u" lead.txt"_s << false << false;
    QTest::newRow("non-ASCII names")
            << u"\u6587\u6863/\u30D5\u30A1\u30A4\u30EB.txt"_s << Write
            << u"\u6587\u6863/\u30D5\u30A1\u30A4\u30EB.txt"_s << false << false;
    QTest::newRow("~ is a name, not home")
            << u"~/notes.txt"_s << Write << u"~/notes.txt"_s << false << false;
#ifdef Q_OS_WIN
    QTest::newRow("backslashes are separators")
            << u"src\\main.cpp"_s << Read << u"src/main.cpp"_s << true << false;
    // Case-insensitive: the real path, in the case it has on disk.
    QTest::newRow("another case") << u"SRC/Main.CPP"_s << Read << u"src/main.cpp"_s << true
                                  << false;
    QTest::newRow("the root in another case") << m_workspace.toUpper() + u"/src/main.cpp"_s << Read
                                              << u"src/main.cpp"_s << true << false;
#else
    QTest::newRow("a link inside to inside")
            << u"link-in/inner.txt"_s << Read << u"sub/inner.txt"_s << true << false;
    QTest::newRow("the link inside itself") << u"link-in"_s << Read << u"sub"_s << true << true;
    QTest::newRow("a new file through a link inside")
            << u"link-in/new.txt"_s << Write << u"sub/new.txt"_s << false << false;
    QTest::newRow("up through a link and back in")
            << u"link-up/workspace/src/main.cpp"_s << Read << u"src/main.cpp"_s << true << false;
#endif
}

void tst_Workspace::allowed()
{
    QFETCH(QString, path);
    QFETCH(WorkspaceBoundary::Access, access);
    QFETCH(QString, relative);
    QFETCH(bool, exists);
    QFETCH(bool, isDirectory);

    const WorkspaceBoundary boundary(m_workspace);
    const PathResolution resolution = boundary.resolve(path, access);
    const auto *refusal = std::get_if<PathRefusal>(&resolution);
    QVERIFY2(!refusal, qPrintable(refusal ? refusal->code + u": "_s + refusal->detail : QString()));
    const WorkspacePath &allowed = std::get<WorkspacePath>(resolution);
    QCOMPARE(allowed.relative, relative);
    QCOMPARE(allowed.absolute,
             relative == u"." ? boundary.root() : boundary.root() + u'/' + relative);
    QCOMPARE(allowed.exists, exists);
    QCOMPARE(allowed.isDirectory, isDirectory);
    const auto again = boundary.recheck(allowed, access);
    QVERIFY2(!again, qPrintable(describe(again)));
}

void tst_Workspace::writesGoThroughTheBoundary_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("code");      // empty: written
    QTest::addColumn<QString>("landsAt");   // written: the file it is, relative to the workspace
    QTest::addColumn<QString>("unchanged"); // refused: a file inside that must keep its bytes

    QTest::newRow("a new file in new folders")
            << u"written/new/file.txt"_s << QString() << u"written/new/file.txt"_s << QString();
    QTest::newRow("an existing file")
            << u"decoy/data.txt"_s << QString() << u"decoy/data.txt"_s << QString();
    QTest::newRow("up and out") << u"../created.txt"_s << u"outside_workspace"_s << QString()
                                << QString();
    QTest::newRow("over the secret")
            << u"../outside/secret.txt"_s << u"outside_workspace"_s << QString() << QString();
    QTest::newRow("absolute outside")
            << m_outside + u"/created.txt"_s << u"outside_workspace"_s << QString() << QString();
    QTest::newRow("the sibling") << m_workspace + u"2/file.txt"_s << u"outside_workspace"_s
                                 << QString() << QString();
    QTest::newRow(".git/config") << u".git/config"_s << u"read_only_path"_s << QString()
                                 << u".git/config"_s;
    QTest::newRow("a new hook") << u".GIT/hooks/post-checkout"_s << u"read_only_path"_s << QString()
                                << QString();
    QTest::newRow("the workspace's permission rules")
            << u".agentloop/permissions.json"_s << u"read_only_path"_s << QString() << QString();
    QTest::newRow("the permission rules, in another case")
            << u"./.AgentLoop/permissions.json"_s << u"read_only_path"_s << QString() << QString();
    QTest::newRow("a folder named .agentloop deeper down")
            << u"sub/.agentloop/notes.txt"_s << QString() << u"sub/.agentloop/notes.txt"_s
            << QString();
    QTest::newRow("nul.txt") << u"nul.txt"_s << u"invalid_path"_s << QString() << QString();
    QTest::newRow("a stream") << u"src/main.cpp:evil"_s << u"invalid_path"_s << QString()
                              << u"src/main.cpp"_s;
#ifndef Q_OS_WIN
    QTest::newRow("over the secret through a link")
            << u"link-out-file"_s << u"outside_workspace"_s << QString() << QString();
    QTest::newRow("into a folder outside through a link")
            << u"link-out-dir/created.txt"_s << u"outside_workspace"_s << QString() << QString();
    QTest::newRow("a link to nothing outside")
            << u"link-dangling-out"_s << u"outside_workspace"_s << QString() << QString();
    QTest::newRow("into .git through a link")
            << u"link-to-git/config"_s << u"read_only_path"_s << QString() << u".git/config"_s;
    QTest::newRow("through a link inside")
            << u"link-in/written.txt"_s << QString() << u"sub/written.txt"_s << QString();
#endif
}

void tst_Workspace::writesGoThroughTheBoundary()
{
    QFETCH(QString, path);
    QFETCH(QString, code);
    QFETCH(QString, landsAt);
    QFETCH(QString, unchanged);

    const WorkspaceBoundary boundary(m_workspace);
    const QByteArray bytes = "written by " + QByteArray(QTest::currentDataTag()) + '\n';
    const QByteArray before = unchanged.isEmpty() ? QByteArray()
                                                  : contents(m_workspace + u'/' + unchanged);
    QCOMPARE(writeThroughBoundary(boundary, path, bytes), code);
    if (!landsAt.isEmpty())
        QCOMPARE(contents(m_workspace + u'/' + landsAt), bytes);
    if (!unchanged.isEmpty())
        QCOMPARE(contents(m_workspace + u'/' + unchanged), before);
    // ... and the canary (cleanup) finds everything outside as it was.
}

void tst_Workspace::rootGivenThroughALink()
{
    if (m_alias.isEmpty())
        QSKIP(qPrintable(m_aliasWhyNot));
    const WorkspaceBoundary boundary(m_alias);
    QVERIFY(boundary.isValid());
    QCOMPARE(boundary.root(), WorkspaceBoundary(m_workspace).root());

    // The model may use the workspace as it was named to it.
    const PathResolution inside = boundary.resolve(m_alias + u"/src/main.cpp"_s, Write);
    QVERIFY(std::holds_alternative<WorkspacePath>(inside));
    QCOMPARE(std::get<WorkspacePath>(inside).absolute, boundary.root() + u"/src/main.cpp"_s);
    QCOMPARE(std::get<WorkspacePath>(inside).relative, u"src/main.cpp"_s);

    const PathResolution out = boundary.resolve(m_alias + u"/../outside/secret.txt"_s, Read);
    QVERIFY(std::holds_alternative<PathRefusal>(out));
    QCOMPARE(std::get<PathRefusal>(out).code, u"outside_workspace"_s);
}

void tst_Workspace::openedFileIsTheResolvedOne()
{
    const WorkspaceBoundary boundary(m_workspace);

    const PathResolution existing = boundary.resolve(u"src/main.cpp"_s, Read);
    QVERIFY(std::holds_alternative<WorkspacePath>(existing));
    QFile file(std::get<WorkspacePath>(existing).absolute);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto opened = boundary.checkOpened(file, std::get<WorkspacePath>(existing));
    QVERIFY2(!opened, qPrintable(describe(opened)));

    // A new file: allowed before it exists, the same file once opened.
    const PathResolution created = boundary.resolve(u"created/by/open.txt"_s, Write);
    QVERIFY(std::holds_alternative<WorkspacePath>(created));
    const WorkspacePath &target = std::get<WorkspacePath>(created);
    QVERIFY(!target.exists);
    QVERIFY(QDir().mkpath(QFileInfo(target.absolute).path()));
    QFile newFile(target.absolute);
    QVERIFY(newFile.open(QIODevice::ReadWrite));
    const auto openedNew = boundary.checkOpened(newFile, target);
    QVERIFY2(!openedNew, qPrintable(describe(openedNew)));
    const auto again = boundary.recheck(target, Write);
    QVERIFY2(!again, qPrintable(describe(again)));

    // Not open: nothing to confirm, so refused.
    QFile closed(std::get<WorkspacePath>(existing).absolute);
    const auto refusal = boundary.checkOpened(closed, std::get<WorkspacePath>(existing));
    QVERIFY(refusal);
    QCOMPARE(refusal->code, u"outside_workspace"_s);
}

// Between resolve() and the use, the folder is replaced by a link: to outside, then to another
// folder inside. Both the opened handle and the recheck see it.
void tst_Workspace::folderSwappedForALinkIsRefused()
{
    const QString swap = m_workspace + u"/swap"_s;
    QVERIFY(makeFile(swap + u"/data.txt"_s, "inside\n"));
    const WorkspaceBoundary boundary(m_workspace);

    const PathResolution existing = boundary.resolve(u"swap/data.txt"_s, Read);
    const PathResolution created = boundary.resolve(u"swap/new.txt"_s, Write);
    QVERIFY(std::holds_alternative<WorkspacePath>(existing));
    QVERIFY(std::holds_alternative<WorkspacePath>(created));
    const WorkspacePath &data = std::get<WorkspacePath>(existing);
    const WorkspacePath &newFile = std::get<WorkspacePath>(created);

    QVERIFY(QDir(m_workspace).rename(u"swap"_s, u"swap-moved"_s));
    const QString whyNot = makeFolderLink(swap, m_outside);
    if (!whyNot.isEmpty()) {
        QVERIFY(QDir(m_workspace).rename(u"swap-moved"_s, u"swap"_s));
        QSKIP(qPrintable(whyNot));
    }
    {
        QFile file(data.absolute); // now outside/data.txt, through the link
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto opened = boundary.checkOpened(file, data);
        QVERIFY(opened);
        QCOMPARE(opened->code, u"outside_workspace"_s);
        QVERIFY2(opened->detail.contains(u"data.txt, outside the workspace"_s),
                 qPrintable(opened->detail));
    }
    auto again = boundary.recheck(data, Read);
    QVERIFY(again);
    QCOMPARE(again->code, u"outside_workspace"_s);
    again = boundary.recheck(newFile, Write); // before anything is created
    QVERIFY(again);
    QCOMPARE(again->code, u"outside_workspace"_s);
    QVERIFY(!QFileInfo::exists(m_outside + u"/new.txt"_s));

    // Swapped for a link to another folder inside: not outside, but not the file allowed either.
    QVERIFY(removeFolderLink(swap));
    QCOMPARE(makeFolderLink(swap, m_workspace + u"/decoy"_s), QString());
    {
        QFile file(data.absolute);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto opened = boundary.checkOpened(file, data);
        QVERIFY(opened);
        QCOMPARE(opened->code, u"invalid_path"_s);
    }
    again = boundary.recheck(data, Read);
    QVERIFY(again);
    QCOMPARE(again->code, u"invalid_path"_s);

    QVERIFY(removeFolderLink(swap));
    QVERIFY(QDir(m_workspace).rename(u"swap-moved"_s, u"swap"_s));
    again = boundary.recheck(data, Read);
    QVERIFY2(!again, qPrintable(describe(again)));
}

void tst_Workspace::fileSwappedForALinkIsRefused()
{
#ifdef Q_OS_WIN
    QSKIP("symbolic links to files need a privilege on Windows; the junction rows cover it");
#else
    const QString swapped = m_workspace + u"/swapped.txt"_s;
    QVERIFY(makeFile(swapped, "inside\n"));
    const WorkspaceBoundary boundary(m_workspace);
    const PathResolution resolution = boundary.resolve(u"swapped.txt"_s, Write);
    QVERIFY(std::holds_alternative<WorkspacePath>(resolution));
    const WorkspacePath &target = std::get<WorkspacePath>(resolution);

    QVERIFY(QFile::remove(swapped));
    QVERIFY(QFile::link(m_outside + u"/secret.txt"_s, swapped));
    QFile file(target.absolute);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto opened = boundary.checkOpened(file, target);
    QVERIFY(opened);
    QCOMPARE(opened->code, u"outside_workspace"_s);
    const auto again = boundary.recheck(target, Write);
    QVERIFY(again);
    QCOMPARE(again->code, u"outside_workspace"_s);
    QVERIFY(QFile::remove(swapped));
#endif
}

void tst_Workspace::displayPathIsNativeAndRelative()
{
    const WorkspaceBoundary boundary(m_workspace);
    const PathResolution file = boundary.resolve(m_workspace + u"/src/main.cpp"_s, Read);
    QVERIFY(std::holds_alternative<WorkspacePath>(file));
    QCOMPARE(boundary.displayPath(std::get<WorkspacePath>(file)),
             QDir::toNativeSeparators(u"src/main.cpp"_s));

    const PathResolution root = boundary.resolve(u"."_s, Read);
    QVERIFY(std::holds_alternative<WorkspacePath>(root));
    QCOMPARE(boundary.displayPath(std::get<WorkspacePath>(root)), u"."_s);

    const WorkspacePath elsewhere{m_outside + u"/secret.txt"_s, QString(), true, false};
    QCOMPARE(boundary.displayPath(elsewhere), native(m_outside + u"/secret.txt"_s));
}

void tst_Workspace::junctionLeadingOutIsRefused()
{
#ifndef Q_OS_WIN
    QSKIP("junctions exist on Windows only; the symbolic link rows cover the rest");
#else
    const QString junction = m_workspace + u"/junction-out"_s;
    const QString whyNot = makeFolderLink(junction, m_outside);
    if (!whyNot.isEmpty())
        QSKIP(qPrintable(u"cannot create a junction here: "_s + whyNot));
    const WorkspaceBoundary boundary(m_workspace);
    const QList<std::pair<QString, WorkspaceBoundary::Access>> paths{
            {u"junction-out/secret.txt"_s, Read},
            {u"junction-out/new.txt"_s, Write},
            {u"junction-out"_s, Read},
            {u"JUNCTION-OUT/Secret.TXT"_s, Read},
    };
    for (const auto &[path, access] : paths) {
        const PathResolution resolution = boundary.resolve(path, access);
        const auto *refusal = std::get_if<PathRefusal>(&resolution);
        QVERIFY2(refusal, qPrintable(path));
        QCOMPARE(refusal->code, u"outside_workspace"_s);
    }
    QCOMPARE(writeThroughBoundary(boundary, u"junction-out/created.txt"_s, "x"),
             u"outside_workspace"_s);
    QVERIFY(removeFolderLink(junction));
#endif
}

void tst_Workspace::shortNamesAreExpandedBeforeTheCheck()
{
#ifndef Q_OS_WIN
    QSKIP("8.3 short names exist on Windows only");
#else
    const auto shortName = [](const QString &path) {
        const std::wstring name = QDir::toNativeSeparators(path).toStdWString();
        const DWORD size = GetShortPathNameW(name.c_str(), nullptr, 0);
        if (size == 0)
            return QString();
        std::wstring shortened(size, L'\0');
        const DWORD length = GetShortPathNameW(name.c_str(), shortened.data(), size);
        if (length == 0 || length >= size)
            return QString();
        shortened.resize(length);
        return QDir::fromNativeSeparators(QString::fromStdWString(shortened));
    };
    const QString longFolder = m_outside + u"/A folder with a long name"_s;
    const QString shortFolder = shortName(longFolder);
    if (shortFolder.isEmpty() || !shortFolder.contains(u'~'))
        QSKIP("this volume gives no 8.3 short names");

    const WorkspaceBoundary boundary(m_workspace);
    const PathResolution out = boundary.resolve(shortFolder + u"/secret.txt"_s, Read);
    const auto *refusal = std::get_if<PathRefusal>(&out);
    QVERIFY(refusal);
    QCOMPARE(refusal->code, u"outside_workspace"_s);
    QVERIFY2(refusal->detail.contains(u"A folder with a long name"_s), qPrintable(refusal->detail));

    // .git's short name (GIT~1) is still .git.
    const QString gitShort = shortName(m_workspace + u"/.git"_s);
    if (!gitShort.contains(u'~'))
        QSKIP(".git has no short name here");
    const QString relative = gitShort.mid(gitShort.lastIndexOf(u'/') + 1) + u"/config"_s;
    const PathResolution write = boundary.resolve(relative, Write);
    QVERIFY2(std::holds_alternative<PathRefusal>(write), qPrintable(relative));
    QCOMPARE(std::get<PathRefusal>(write).code, u"read_only_path"_s);
    const PathResolution read = boundary.resolve(relative, Read);
    QVERIFY2(std::holds_alternative<WorkspacePath>(read), qPrintable(relative));
    QCOMPARE(std::get<WorkspacePath>(read).relative.compare(u".git/config"_s, Qt::CaseInsensitive),
             0);
#endif
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Workspace)
#include "tst_workspace.moc"
