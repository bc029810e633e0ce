// The six file tools as the model uses them: what each returns, what each refuses, and what is on
// disk afterwards, byte for byte. The last tests run whole conversations through the fake
// provider on 127.0.0.1 with the tools the app installs.

#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "base/codepage.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "testmain.h"
#include "tools/filetools.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QStringEncoder>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cstdio>
#include <memory>

#ifdef Q_OS_WIN
#include <windows.h>
#else
#include <sys/stat.h>
#endif

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

constexpr int toolTimeoutMs = Testing::hangGuardMs;

// 你好，世界 / 修改 in GB18030 (GBK's two-byte range).
const QByteArray gbkHello = QByteArray::fromHex("c4e3bac3a3accac0bde7");
const QByteArray gbkChange = QByteArray::fromHex("d0deb8c4");

// What GBK files are read as: GB18030, or CP936 (GBK) where the system has no GB18030 converter
// (Wine, on which the Windows build's tests run).
QString chineseEncoding()
{
    return canConvert(u"GB18030"_s) ? u"GB18030"_s : u"CP936"_s;
}

QByteArray readBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QString argumentsText(const QJsonObject &arguments)
{
    return QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact));
}

// A workspace folder with the tools on it, and a sibling folder outside it.
class Workspace
{
public:
    Workspace()
        : root(temporary.path() + u"/workspace"_s)
        , outside(temporary.path() + u"/outside"_s)
    {
        QDir().mkpath(root);
        QDir().mkpath(outside);
        context = std::make_shared<FileToolContext>(root);
        for (const auto &tool : fileTools(context))
            tools.add(tool);
    }

    QString path(const QString &relative) const { return root + u'/' + relative; }
    bool write(const QString &relative, const QByteArray &bytes) const
    {
        return writeBytes(path(relative), bytes);
    }
    QByteArray read(const QString &relative) const { return readBytes(path(relative)); }

    // Runs one call as the controller would: prepared, reviewed (write tools), approved, run.
    // The review's own result (a call that cannot succeed) is returned as the call's result.
    ToolResult call(const QString &name,
                    const QJsonObject &arguments,
                    CallPreview *preview = nullptr,
                    const std::function<void()> &beforeRun = {})
    {
        const ToolSnapshot snapshot = tools.snapshot();
        const Preparation preparation = snapshot.prepare(
                ToolCall{u"call_1"_s, name, argumentsText(arguments)});
        if (const auto *result = std::get_if<ToolResult>(&preparation))
            return *result;
        PreparedCall prepared = std::get<PreparedCall>(preparation);
        const auto tool = snapshot.find(name);
        if (tool->needsApproval()) {
            QFuture<Review> review = tool->review(prepared);
            review.waitForFinished();
            const Review reviewed = review.result();
            if (const auto *result = std::get_if<ToolResult>(&reviewed))
                return *result;
            const CallPreview &shown = std::get<CallPreview>(reviewed);
            prepared.approvedBasis = shown.basis;
            if (preview)
                *preview = shown;
        }
        if (beforeRun)
            beforeRun();
        QObject owner;
        ToolRun *run = tool->invoke(prepared, &owner);
        QSignalSpy finished(run, &ToolRun::finished);
        if (!finished.wait(toolTimeoutMs))
            return ToolResult::failure(u"test_timeout"_s, u"the tool never finished"_s);
        return finished.first().first().value<ToolResult>();
    }

    ToolResult read(const QString &relative, const QJsonObject &extra)
    {
        QJsonObject arguments = extra;
        arguments.insert(u"path"_s, relative);
        return call(u"read_file"_s, arguments);
    }
    ToolResult edit(const QString &relative,
                    const QString &oldString,
                    const QString &newString,
                    bool replaceAll = false)
    {
        QJsonObject arguments{{u"path"_s, relative},
                              {u"old_string"_s, oldString},
                              {u"new_string"_s, newString}};
        if (replaceAll)
            arguments.insert(u"replace_all"_s, true);
        return call(u"edit_file"_s, arguments);
    }

    QTemporaryDir temporary;
    QString root;
    QString outside;
    std::shared_ptr<FileToolContext> context;
    ToolRegistry tools;
};

// Each evaluates its call once (QVERIFY2 evaluates its message even when the check passes).
#define VERIFY_OK(call) \
    do { \
        const ToolResult result_ = (call); \
        QVERIFY2(result_.ok, qPrintable(result_.content)); \
    } while (false)
#define COMPARE_CODE(call, code) \
    do { \
        const ToolResult result_ = (call); \
        QVERIFY2(result_.errorCode == QStringLiteral(code), qPrintable(result_.content)); \
    } while (false)

} // namespace

class tst_FileTools : public QObject
{
    Q_OBJECT

private slots:
    void definitionsAreTheContract();

    void readFileNumbersLinesLikeCatN();
    void readFileSaysEncodingAndLineEndings();
    void readFileOffsetAndLimit();
    void readFileStopsAtTheLineLimitWithANote();
    void readFileStopsAtTheByteLimitWithANote();
    void readFileCutsLongLines();
    void readFileRefusesBinaryFiles();
    void readFileOfAHugeFileReadsItsBeginning();
    void readFileRefusesWhatIsNotThere();

    void listDirSortsMarksFoldersAndSizes();
    void listDirIsCapped();

    void globMatchesDoubleStarNewestFirst();
    void globHonoursGitignore();
    void globIsCapped();

    void grepFindsLinesAsPathLineText();
    void grepOptions();
    void grepHonoursGitignoreAndSkipsBinaries();
    void grepSearchesGbkSources();
    void grepFindsWhatDecodingEveryFileFinds_data();
    void grepFindsWhatDecodingEveryFileFinds();
    void grepIsCapped();
    void grepRefusesABadExpression();

    void editReplacesAUniqueMatch();
    void editRefusesAnAmbiguousMatch();
    void editReplaceAll();
    void editQuotesTheClosestLine();
    void editNeedsAReadFirst();
    void editRefusesAFileChangedOnDisk();
    void editAcceptsATouchedButUnchangedFile();
    void editRefusesNoChange();
    void editMatchesCrlfAsLf();
    void editKeepsEveryOtherByte_data();
    void editKeepsEveryOtherByte();

    void writeCreatesAFileAndItsFolders();
    void writeKeepsTheFormatOfTheFileItReplaces();
    void writeTakesTheContentsOwnCrlf();
    void aFailedWriteLeavesTheOldFileWhole();
    void aFileChangedAfterTheApprovalIsNotWritten();
    void theReviewShowsADiffAndWritesNothing();

    void theBoundaryHolds();
    void aRepositoryCannotLeadTheReadsOut_data();
    void aRepositoryCannotLeadTheReadsOut();
    void noToolIsAnOracleForASecret_data();
    void noToolIsAnOracleForASecret();
    void anEditBesideASecretKeepsItWhole();

    void conversationReadsEditsAndGreps();
    void fiveReadsAndOneEditInOneMessage();
    void aDeniedEditChangesNothing();
    void aConversationAllowanceForAWriteEndsWhenTheFileChanges();
};

void tst_FileTools::definitionsAreTheContract()
{
    Workspace workspace;
    const QJsonArray definitions = workspace.tools.snapshot().definitions();
    QMap<QString, QStringList> properties;
    for (const QJsonValue &definition : definitions) {
        const QJsonObject function = definition[u"function"_s].toObject();
        const QJsonObject parameters = function[u"parameters"_s].toObject();
        QCOMPARE(parameters[u"additionalProperties"_s], QJsonValue(false));
        properties.insert(function[u"name"_s].toString(),
                          parameters[u"properties"_s].toObject().keys());
    }
    QCOMPARE(properties.value(u"read_file"_s), (QStringList{u"limit"_s, u"offset"_s, u"path"_s}));
    QCOMPARE(properties.value(u"list_dir"_s), QStringList{u"path"_s});
    QCOMPARE(properties.value(u"glob"_s), (QStringList{u"path"_s, u"pattern"_s}));
    QCOMPARE(properties.value(u"grep"_s),
             (QStringList{u"context"_s,
                          u"glob"_s,
                          u"ignore_case"_s,
                          u"max_results"_s,
                          u"path"_s,
                          u"pattern"_s}));
    QCOMPARE(properties.value(u"write_file"_s), (QStringList{u"content"_s, u"path"_s}));
    QCOMPARE(properties.value(u"edit_file"_s),
             (QStringList{u"new_string"_s, u"old_string"_s, u"path"_s, u"replace_all"_s}));
    const ToolSnapshot snapshot = workspace.tools.snapshot();
    for (const QString &name : {u"read_file"_s, u"list_dir"_s, u"glob"_s, u"grep"_s})
        QCOMPARE(snapshot.find(name)->sideEffect(), SideEffect::Read);
    for (const QString &name : {u"write_file"_s, u"edit_file"_s})
        QCOMPARE(snapshot.find(name)->sideEffect(), SideEffect::Write);
}

void tst_FileTools::readFileNumbersLinesLikeCatN()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "alpha\n\tbeta\ngamma\n"));
    const ToolResult result = workspace.read(u"a.txt"_s, {});
    VERIFY_OK(result);
    QCOMPARE(result.content,
             u"encoding: UTF-8, line endings: LF, 3 lines\n"
             u"     1\talpha\n"
             u"     2\t\tbeta\n"
             u"     3\tgamma\n"_s);
}

void tst_FileTools::readFileSaysEncodingAndLineEndings()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"gbk.txt"_s, "// " + gbkHello + "\r\nint x;\r\n"));
    QVERIFY(workspace.write(u"bom.txt"_s, "\xEF\xBB\xBFone\ntwo"));
    QVERIFY(workspace.write(u"utf16.txt"_s, QByteArray::fromHex("fffe6100")));
    ToolResult result = workspace.read(u"gbk.txt"_s, {});
    VERIFY_OK(result);
    QCOMPARE(result.content,
             u"encoding: %1, line endings: CRLF, 2 lines\n"
             u"     1\t// 你好，世界\n"
             u"     2\tint x;\n"_s.arg(chineseEncoding()));
    result = workspace.read(u"bom.txt"_s, {});
    QVERIFY2(result.content.startsWith(u"encoding: UTF-8 with BOM, line endings: LF, 2 lines\n"
                                       u"     1\tone\n     2\ttwo\n"_s),
             qPrintable(result.content));
    result = workspace.read(u"utf16.txt"_s, {});
    QVERIFY2(result.content.startsWith(
                     u"encoding: UTF-16 LE with BOM, line endings: none, 1 lines\n"
                     u"     1\ta\n"_s),
             qPrintable(result.content));
}

void tst_FileTools::readFileOffsetAndLimit()
{
    Workspace workspace;
    QByteArray text;
    for (int i = 1; i <= 10; ++i)
        text += "line " + QByteArray::number(i) + '\n';
    QVERIFY(workspace.write(u"ten.txt"_s, text));
    const ToolResult result = workspace.read(u"ten.txt"_s, {{u"offset"_s, 4}, {u"limit"_s, 2}});
    VERIFY_OK(result);
    QCOMPARE(result.content,
             u"encoding: UTF-8, line endings: LF, 10 lines\n"
             u"     4\tline 4\n"
             u"     5\tline 5\n"
             u"[Stopped after 2 lines (the limit); read on with offset=6.]\n"_s);
    const ToolResult past = workspace.read(u"ten.txt"_s, {{u"offset"_s, 50}});
    QVERIFY2(past.content.endsWith(u"[offset 50 is past the end of the file (10 lines).]\n"_s),
             qPrintable(past.content));
}

void tst_FileTools::readFileStopsAtTheLineLimitWithANote()
{
    Workspace workspace;
    QByteArray text;
    for (int i = 1; i <= 2500; ++i)
        text += QByteArray::number(i) + '\n';
    QVERIFY(workspace.write(u"long.txt"_s, text));
    const ToolResult result = workspace.read(u"long.txt"_s, {});
    VERIFY_OK(result);
    QVERIFY(result.content.contains(u"  2000\t2000\n"_s));
    QVERIFY(!result.content.contains(u"\t2001\n"_s));
    QVERIFY2(result.content.endsWith(
                     u"[Stopped after 2000 lines (the limit); read on with offset=2001.]\n"_s),
             qPrintable(result.content.right(200)));
}

void tst_FileTools::readFileStopsAtTheByteLimitWithANote()
{
    Workspace workspace;
    const QByteArray line(999, 'x');
    QByteArray text;
    for (int i = 0; i < 400; ++i) // 400 KB of 1000-byte lines
        text += line + '\n';
    QVERIFY(workspace.write(u"wide.txt"_s, text));
    const ToolResult result = workspace.read(u"wide.txt"_s, {});
    VERIFY_OK(result);
    QVERIFY2(result.content.size() < 270 * 1024, qPrintable(QString::number(result.content.size())));
    QVERIFY2(result.content.contains(
                     u"[Stopped after 256.0 KB of text; read on with offset=263.]"_s),
             qPrintable(result.content.right(300)));
}

void tst_FileTools::readFileCutsLongLines()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"min.js"_s, "short\n" + QByteArray(5000, 'y') + "\nend\n"));
    const ToolResult result = workspace.read(u"min.js"_s, {});
    VERIFY_OK(result);
    QVERIFY(result.content.contains(u"     2\t"_s + QString(2000, u'y') + u"... [line cut]\n"_s));
    QVERIFY(result.content.contains(u"     3\tend\n"_s));
    QVERIFY2(result.content.endsWith(u"[Lines longer than 2000 characters were cut: 2.]\n"_s),
             qPrintable(result.content.right(200)));
}

void tst_FileTools::readFileRefusesBinaryFiles()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"app.exe"_s, QByteArray("MZ\x90\x00\x03\x00\x00\x00", 8)));
    const ToolResult result = workspace.read(u"app.exe"_s, {});
    COMPARE_CODE(result, "binary_file");
    QVERIFY(result.content.startsWith(u"binary_file: app.exe is a binary file"_s));
}

void tst_FileTools::readFileOfAHugeFileReadsItsBeginning()
{
    Workspace workspace;
    QByteArray chunk;
    for (int i = 0; i < 1000; ++i)
        chunk += "a log line of some length, number " + QByteArray::number(i) + '\n';
    {
        QFile file(workspace.path(u"huge.log"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        while (file.size() < 20 * 1024 * 1024)
            file.write(chunk);
    }
    const ToolResult result = workspace.read(u"huge.log"_s, {});
    VERIFY_OK(result);
    QVERIFY2(result.content.startsWith(u"encoding: UTF-8, line endings: LF, more than "_s),
             qPrintable(result.content.left(200)));
    QVERIFY(result.content.contains(u"     1\ta log line of some length, number 0\n"_s));
    QVERIFY(result.content.contains(u"  2000\t"_s));
    // Not stored as read: the file is too large to edit anyway.
    QVERIFY(!workspace.context->ledger.find(
            QFileInfo(workspace.path(u"huge.log"_s)).canonicalFilePath()));
}

void tst_FileTools::readFileRefusesWhatIsNotThere()
{
    Workspace workspace;
    QDir().mkpath(workspace.path(u"src"_s));
    COMPARE_CODE(workspace.read(u"missing.txt"_s, {}), "file_not_found");
    COMPARE_CODE(workspace.read(u"src"_s, {}), "is_directory");
    COMPARE_CODE(workspace.call(u"read_file"_s, {{u"path"_s, u"a"_s}, {u"offset"_s, 0}}),
                 "invalid_arguments");
    COMPARE_CODE(workspace.call(u"read_file"_s, {{u"path"_s, u"a"_s}, {u"lines"_s, 3}}),
                 "invalid_arguments");
}

void tst_FileTools::listDirSortsMarksFoldersAndSizes()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"b.txt"_s, "12345"));
    QVERIFY(workspace.write(u"A.md"_s, ""));
    QDir().mkpath(workspace.path(u"src"_s));
    const ToolResult result = workspace.call(u"list_dir"_s, {});
    VERIFY_OK(result);
    QCOMPARE(result.content, u"the workspace (3 entries)\nA.md  (0 B)\nb.txt  (5 B)\nsrc/\n"_s);
    const ToolResult nested = workspace.call(u"list_dir"_s, {{u"path"_s, u"src"_s}});
    QCOMPARE(nested.content, u"src/ (0 entries)\n"_s);
    COMPARE_CODE(workspace.call(u"list_dir"_s, {{u"path"_s, u"b.txt"_s}}), "not_a_directory");
}

void tst_FileTools::listDirIsCapped()
{
    Workspace workspace;
    workspace.context->limits.listEntryLimit = 3;
    for (int i = 0; i < 5; ++i)
        QVERIFY(workspace.write(u"f%1.txt"_s.arg(i), "x"));
    const ToolResult result = workspace.call(u"list_dir"_s, {});
    QCOMPARE(result.content.count(u".txt"_s), 3);
    QVERIFY2(result.content.endsWith(u"[3 of 5 entries shown; use glob to find files by name.]\n"_s),
             qPrintable(result.content));
}

void tst_FileTools::globMatchesDoubleStarNewestFirst()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"src/main.cpp"_s, "1"));
    QVERIFY(workspace.write(u"src/net/client.cpp"_s, "2"));
    QVERIFY(workspace.write(u"src/net/client.h"_s, "3"));
    QVERIFY(workspace.write(u"top.cpp"_s, "4"));
    const QDateTime now = QDateTime::currentDateTime();
    const auto age = [&](const QString &relative, int days) {
        QFile file(workspace.path(relative));
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(now.addDays(-days), QFileDevice::FileModificationTime));
    };
    age(u"src/main.cpp"_s, 3);
    age(u"src/net/client.cpp"_s, 1);
    age(u"top.cpp"_s, 2);
    ToolResult result = workspace.call(u"glob"_s, {{u"pattern"_s, u"src/**/*.cpp"_s}});
    VERIFY_OK(result);
    QCOMPARE(result.content, u"src/net/client.cpp\nsrc/main.cpp\n"_s);
    result = workspace.call(u"glob"_s, {{u"pattern"_s, u"**/*.{h,cpp}"_s}});
    QCOMPARE(result.content.split(u'\n', Qt::SkipEmptyParts).size(), 4);
    result = workspace.call(u"glob"_s, {{u"pattern"_s, u"*.cpp"_s}, {u"path"_s, u"src/net"_s}});
    QCOMPARE(result.content, u"src/net/client.cpp\n"_s);
    result = workspace.call(u"glob"_s, {{u"pattern"_s, u"*.rs"_s}});
    QCOMPARE(result.content, u"No files match *.rs in ..\n"_s);
}

void tst_FileTools::globHonoursGitignore()
{
    Workspace workspace;
    QVERIFY(workspace.write(u".gitignore"_s, "build/\n*.log\n!keep.log\n/top-only.txt\n"));
    QVERIFY(workspace.write(u"src/.gitignore"_s, "generated.cpp\n"));
    QVERIFY(workspace.write(u"build/out.cpp"_s, "x"));
    QVERIFY(workspace.write(u"src/a.cpp"_s, "x"));
    QVERIFY(workspace.write(u"src/generated.cpp"_s, "x"));
    QVERIFY(workspace.write(u"src/debug.log"_s, "x"));
    QVERIFY(workspace.write(u"src/keep.log"_s, "x"));
    QVERIFY(workspace.write(u"top-only.txt"_s, "x"));
    QVERIFY(workspace.write(u"src/top-only.txt"_s, "x"));
    QVERIFY(workspace.write(u".git/config"_s, "x"));
    const ToolResult result = workspace.call(u"glob"_s, {{u"pattern"_s, u"**"_s}});
    QStringList files = result.content.split(u'\n', Qt::SkipEmptyParts);
    files.sort();
    QCOMPARE(files,
             (QStringList{u".gitignore"_s,
                          u"src/.gitignore"_s,
                          u"src/a.cpp"_s,
                          u"src/keep.log"_s,
                          u"src/top-only.txt"_s}));
}

void tst_FileTools::globIsCapped()
{
    Workspace workspace;
    workspace.context->limits.globResultLimit = 2;
    for (int i = 0; i < 4; ++i)
        QVERIFY(workspace.write(u"f%1.txt"_s.arg(i), "x"));
    const ToolResult result = workspace.call(u"glob"_s, {{u"pattern"_s, u"*.txt"_s}});
    QCOMPARE(result.content.count(u".txt\n"_s), 2);
    QVERIFY2(result.content.endsWith(
                     u"[2 of 4 files shown, the newest first; narrow the pattern or the path.]\n"_s),
             qPrintable(result.content));
}

void tst_FileTools::grepFindsLinesAsPathLineText()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"src/a.cpp"_s, "int main() {\n    return compute();\n}\n"));
    QVERIFY(workspace.write(u"src/b.cpp"_s, "int compute() { return 42; }\r\n"));
    const ToolResult result = workspace.call(u"grep"_s, {{u"pattern"_s, u"compute\\(\\)"_s}});
    VERIFY_OK(result);
    QCOMPARE(result.content,
             u"src/a.cpp:2:    return compute();\nsrc/b.cpp:1:int compute() { return 42; }\n"_s);
    const ToolResult none = workspace.call(u"grep"_s, {{u"pattern"_s, u"nothing here"_s}});
    QCOMPARE(none.content, u"No matches for nothing here in ..\n"_s);
}

void tst_FileTools::grepOptions()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"notes.md"_s,
                            "one\nTODO first\ntwo\nthree\nfour\ntodo second\nfive\n"));
    QVERIFY(workspace.write(u"code.cpp"_s, "// TODO in code\n"));
    ToolResult result = workspace.call(u"grep"_s,
                                       {{u"pattern"_s, u"^todo"_s},
                                        {u"ignore_case"_s, true},
                                        {u"glob"_s, u"*.md"_s},
                                        {u"context"_s, 1}});
    VERIFY_OK(result);
    QCOMPARE(result.content,
             u"notes.md-1-one\nnotes.md:2:TODO first\nnotes.md-3-two\n--\n"
             u"notes.md-5-four\nnotes.md:6:todo second\nnotes.md-7-five\n"_s);
    result = workspace.call(u"grep"_s, {{u"pattern"_s, u"TODO"_s}, {u"path"_s, u"code.cpp"_s}});
    QCOMPARE(result.content, u"code.cpp:1:// TODO in code\n"_s);
}

void tst_FileTools::grepHonoursGitignoreAndSkipsBinaries()
{
    Workspace workspace;
    QVERIFY(workspace.write(u".gitignore"_s, "node_modules/\n"));
    QVERIFY(workspace.write(u"node_modules/lib/index.js"_s, "needle\n"));
    QVERIFY(workspace.write(u".git/HEAD"_s, "needle\n"));
    QVERIFY(workspace.write(u"image.png"_s, QByteArray("needle\0\0\0", 9)));
    QVERIFY(workspace.write(u"src/found.txt"_s, "needle\n"));
    const ToolResult result = workspace.call(u"grep"_s, {{u"pattern"_s, u"needle"_s}});
    QCOMPARE(result.content, u"src/found.txt:1:needle\n"_s);
}

void tst_FileTools::grepSearchesGbkSources()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"gbk.c"_s, "int a;\r\n/* " + gbkHello + " */\r\n"));
    const ToolResult result = workspace.call(u"grep"_s, {{u"pattern"_s, u"世界"_s}});
    VERIFY_OK(result);
    QCOMPARE(result.content, u"gbk.c:2:/* 你好，世界 */\n"_s);
}

// grep leaves valid UTF-8 files without the pattern's leading literal undecoded; what it answers
// must not show it.
void tst_FileTools::grepFindsWhatDecodingEveryFileFinds_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<bool>("ignoreCase");
    QTest::addColumn<QString>("expected");

    const QString needle = u"needle_[0-9]\\("_s;
    QStringEncoder utf16(QStringConverter::Utf16LE);
    QTest::newRow("UTF-16 with BOM")
            << QByteArray("\xFF\xFE" + QByteArray(utf16(u"x\nneedle_1(y)\n"_s))) << needle << false
            << u"a.txt:2:needle_1(y)\n"_s;
    QTest::newRow("GB18030") << QByteArray("/* " + gbkHello + " */\r\nneedle_2(y)\r\n") << needle
                             << false << u"a.txt:2:needle_2(y)\n"_s;
    QTest::newRow("GB18030 without the literal is no undecodable file")
            << QByteArray("/* " + gbkHello + " */\r\n") << needle << false
            << u"No matches for needle_[0-9]\\( in ..\n"_s;
    if (systemLegacyEncoding().isEmpty()) { // no code page to read it as
        QTest::newRow("undecodable without the literal is still reported")
                << QByteArray("abc\x81\x20z\n") << needle << false
                << u"No matches for needle_[0-9]\\( in ..\n"
                   u"[1 files in no known text encoding were not searched.]\n"_s;
    }
    QTest::newRow("a last character that may be missing")
            << QByteArray("the color\n") << u"colou?r"_s << false << u"a.txt:1:the color\n"_s;
    QTest::newRow("none or more") << QByteArray("tod\n") << u"^todo*"_s << false
                                  << u"a.txt:1:tod\n"_s;
    QTest::newRow("none times") << QByteArray("ab\n") << u"abc{0}"_s << false << u"a.txt:1:ab\n"_s;
    QTest::newRow("alternatives") << QByteArray("a dog\n") << u"cat|dog"_s << false
                                  << u"a.txt:1:a dog\n"_s;
    QTest::newRow("case folding beyond ASCII") << QByteArray("\xE2\x84\xAA"
                                                             "elvin\n")
                                               << u"kelvin"_s << true << u"a.txt:1:\u212Aelvin\n"_s;
}

void tst_FileTools::grepFindsWhatDecodingEveryFileFinds()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, pattern);
    QFETCH(bool, ignoreCase);
    QFETCH(QString, expected);
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, bytes));
    const ToolResult result = workspace.call(u"grep"_s,
                                             {{u"pattern"_s, pattern},
                                              {u"ignore_case"_s, ignoreCase}});
    VERIFY_OK(result);
    QCOMPARE(result.content, expected);
}

void tst_FileTools::grepIsCapped()
{
    Workspace workspace;
    QByteArray text;
    for (int i = 0; i < 50; ++i)
        text += "hit\n";
    QVERIFY(workspace.write(u"hits.txt"_s, text));
    ToolResult result = workspace.call(u"grep"_s, {{u"pattern"_s, u"hit"_s}, {u"max_results"_s, 7}});
    QCOMPARE(result.content.count(u"hits.txt:"_s), 7);
    QVERIFY2(result.content.endsWith(u"[Stopped at 7 matches; narrow the pattern, the path or the "
                                     u"glob, or raise max_results.]\n"_s),
             qPrintable(result.content));
    workspace.context->limits.grepResultLimit = 200;
    result = workspace.call(u"grep"_s, {{u"pattern"_s, u"hit"_s}});
    QCOMPARE(result.content.count(u"hits.txt:"_s), 50);
}

void tst_FileTools::grepRefusesABadExpression()
{
    Workspace workspace;
    const ToolResult result = workspace.call(u"grep"_s, {{u"pattern"_s, u"(unclosed"_s}});
    COMPARE_CODE(result, "invalid_arguments");
    QVERIFY(result.content.contains(u"not a valid regular expression"_s));
}

void tst_FileTools::editReplacesAUniqueMatch()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.py"_s, "def f():\n    return 1\n\nprint(f())\n"));
    VERIFY_OK(workspace.read(u"a.py"_s, {}));
    const ToolResult result = workspace.edit(u"a.py"_s, u"return 1"_s, u"return 2\n    # two"_s);
    VERIFY_OK(result);
    QCOMPARE(workspace.read(u"a.py"_s),
             QByteArray("def f():\n    return 2\n    # two\n\nprint(f())\n"));
    QCOMPARE(result.content,
             u"Edited a.py (UTF-8, LF): replaced 1 occurrence (+2 -1 lines). The changed lines now "
             u"read:\n     2\t    return 2\n     3\t    # two\n"_s);
    QCOMPARE(result.fileChange.path, u"a.py"_s);
    QCOMPARE(result.fileChange.addedLines, 2);
    QCOMPARE(result.fileChange.removedLines, 1);
    QVERIFY2(result.fileChange.diff.contains(u"-    return 1\n+    return 2\n+    # two\n"_s),
             qPrintable(result.fileChange.diff));
}

void tst_FileTools::editRefusesAnAmbiguousMatch()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "x = 1\ny = 2\nx = 1\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    const ToolResult result = workspace.edit(u"a.txt"_s, u"x = 1"_s, u"x = 3"_s);
    COMPARE_CODE(result, "not_unique");
    QVERIFY(result.content.contains(u"occurs 2 times in a.txt (at lines 1, 3)"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("x = 1\ny = 2\nx = 1\n"));
}

void tst_FileTools::editReplaceAll()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "x = 1\ny = 2\nx = 1\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    const ToolResult result = workspace.edit(u"a.txt"_s, u"x = 1"_s, u"x = 3"_s, true);
    VERIFY_OK(result);
    QVERIFY(result.content.contains(u"replaced 2 occurrences"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("x = 3\ny = 2\nx = 3\n"));
}

void tst_FileTools::editQuotesTheClosestLine()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.c"_s, "int main(void)\n{\n    printf(\"hello\");\n}\n"));
    VERIFY_OK(workspace.read(u"a.c"_s, {}));
    const ToolResult result = workspace.edit(u"a.c"_s, u"    printf(\"helo\");"_s, u"x"_s);
    COMPARE_CODE(result, "not_found");
    QVERIFY2(result.content.contains(u"The closest line is 3: `    printf(\"hello\");`."_s),
             qPrintable(result.content));
}

void tst_FileTools::editNeedsAReadFirst()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "old\n"));
    const ToolResult refused = workspace.edit(u"a.txt"_s, u"old"_s, u"new"_s);
    COMPARE_CODE(refused, "not_read");
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("old\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    VERIFY_OK(workspace.edit(u"a.txt"_s, u"old"_s, u"new"_s));
    // The model knows what it wrote: a second edit needs no second read.
    VERIFY_OK(workspace.edit(u"a.txt"_s, u"new"_s, u"newer"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("newer\n"));
    workspace.context->ledger.clear(); // a new conversation
    COMPARE_CODE(workspace.edit(u"a.txt"_s, u"newer"_s, u"x"_s), "not_read");
}

void tst_FileTools::editRefusesAFileChangedOnDisk()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "one\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    QVERIFY(workspace.write(u"a.txt"_s, "one\ntwo\n")); // the user's editor saved
    const ToolResult result = workspace.edit(u"a.txt"_s, u"one"_s, u"1"_s);
    COMPARE_CODE(result, "stale_file");
    QVERIFY(result.content.contains(u"Read it again first"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("one\ntwo\n"));
}

void tst_FileTools::editAcceptsATouchedButUnchangedFile()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "one\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    {
        QFile file(workspace.path(u"a.txt"_s));
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(3600),
                                 QFileDevice::FileModificationTime));
    }
    VERIFY_OK(workspace.edit(u"a.txt"_s, u"one"_s, u"1"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("1\n"));
}

void tst_FileTools::editRefusesNoChange()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "same\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    const ToolResult result = workspace.edit(u"a.txt"_s, u"same"_s, u"same"_s);
    COMPARE_CODE(result, "invalid_arguments");
    QVERIFY(result.content.contains(u"old_string and new_string are the same"_s));
}

void tst_FileTools::editMatchesCrlfAsLf()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "first\r\nsecond\r\nthird\r\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    VERIFY_OK(workspace.edit(u"a.txt"_s, u"first\nsecond"_s, u"1st\n2nd\n2nd and a half"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("1st\r\n2nd\r\n2nd and a half\r\nthird\r\n"));
}

void tst_FileTools::editKeepsEveryOtherByte_data()
{
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QString>("oldString");
    QTest::addColumn<QString>("newString");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<QString>("encoding");

    const QByteArray gbkLine = "/* " + gbkHello + " */";
    QTest::newRow("GB18030, CRLF")
            << QByteArray("#include <stdio.h>\r\n" + gbkLine + "\r\nint a = 1;\r\n")
            << u"int a = 1;"_s << u"int a = 2; // 修改"_s
            << QByteArray("#include <stdio.h>\r\n" + gbkLine + "\r\nint a = 2; // " + gbkChange
                          + "\r\n")
            << chineseEncoding() + u", CRLF"_s;
    if (canConvert(u"GB18030"_s)) { // CP936 has no four-byte sequences
        QTest::newRow("GB18030, four-byte sequence kept")
                << QByteArray("a\n\x95\x32\x82\x36 emoji\nb\n") << u"b"_s << u"c"_s
                << QByteArray("a\n\x95\x32\x82\x36 emoji\nc\n") << u"GB18030, LF"_s;
    }
    QTest::newRow("UTF-8 with BOM")
            << QByteArray("\xEF\xBB\xBFkey = old\nother = 1\n") << u"old"_s << u"新"_s
            << QByteArray("\xEF\xBB\xBFkey = \xE6\x96\xB0\nother = 1\n") << u"UTF-8 with BOM, LF"_s;
    QTest::newRow("UTF-16 LE with BOM, CRLF") << QByteArray::fromHex("fffe"
                                                                     "6100"
                                                                     "0d000a00"
                                                                     "6200"
                                                                     "0d000a00")
                                              << u"b"_s << u"c"_s
                                              << QByteArray::fromHex("fffe"
                                                                     "6100"
                                                                     "0d000a00"
                                                                     "6300"
                                                                     "0d000a00")
                                              << u"UTF-16 LE with BOM, CRLF"_s;
    QTest::newRow("UTF-16 BE with BOM") << QByteArray::fromHex("feff"
                                                               "0061"
                                                               "000a"
                                                               "0062")
                                        << u"a"_s << u"z"_s
                                        << QByteArray::fromHex("feff"
                                                               "007a"
                                                               "000a"
                                                               "0062")
                                        << u"UTF-16 BE with BOM, LF"_s;
    QTest::newRow("mixed line endings")
            << QByteArray("one\r\ntwo\nthree\r\nfour\n") << u"three"_s << u"3"_s
            << QByteArray("one\r\ntwo\n3\r\nfour\n") << u"UTF-8, mixed (CRLF and LF)"_s;
    QTest::newRow("mixed: a new line takes the replaced text's break")
            << QByteArray("one\r\ntwo\nthree\n") << u"two\nthree"_s << u"2\n2.5\n3"_s
            << QByteArray("one\r\n2\n2.5\n3\n") << u"UTF-8, mixed (CRLF and LF)"_s;
    QTest::newRow("no final newline") << QByteArray("a\nlast") << u"last"_s << u"final"_s
                                      << QByteArray("a\nfinal") << u"UTF-8, LF"_s;
}

void tst_FileTools::editKeepsEveryOtherByte()
{
    QFETCH(QByteArray, before);
    QFETCH(QString, oldString);
    QFETCH(QString, newString);
    QFETCH(QByteArray, after);
    QFETCH(QString, encoding);
    Workspace workspace;
    QVERIFY(workspace.write(u"file.txt"_s, before));
    VERIFY_OK(workspace.read(u"file.txt"_s, {}));
    const ToolResult result = workspace.edit(u"file.txt"_s, oldString, newString);
    VERIFY_OK(result);
    QCOMPARE(result.fileChange.encoding, encoding);
    QCOMPARE(workspace.read(u"file.txt"_s).toHex(' '), after.toHex(' '));
}

void tst_FileTools::writeCreatesAFileAndItsFolders()
{
    Workspace workspace;
    CallPreview preview;
    const ToolResult result = workspace.call(u"write_file"_s,
                                             {{u"path"_s, u"docs/guide/intro.md"_s},
                                              {u"content"_s, u"# 标题\nText\n"_s}},
                                             &preview);
    VERIFY_OK(result);
    QCOMPARE(workspace.read(u"docs/guide/intro.md"_s),
             QByteArray("# \xE6\xA0\x87\xE9\xA2\x98\nText\n"));
    QCOMPARE(preview.kind, CallPreview::FileEdit);
    QVERIFY(preview.fileChange.newFile);
    QCOMPARE(preview.fileChange.encoding, u"UTF-8, LF"_s);
    QCOMPARE(preview.fileChange.path, QDir::toNativeSeparators(u"docs/guide/intro.md"_s));
    QVERIFY2(preview.fileChange.diff.contains(u"+# 标题\n+Text"_s),
             qPrintable(preview.fileChange.diff));
    QVERIFY(result.content.startsWith(u"Created docs/guide/intro.md (UTF-8, LF): 2 lines"_s));
}

void tst_FileTools::writeKeepsTheFormatOfTheFileItReplaces()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"gbk.txt"_s, gbkHello + "\r\nold\r\n"));
    const ToolResult result = workspace.call(u"write_file"_s,
                                             {{u"path"_s, u"gbk.txt"_s},
                                              {u"content"_s, u"你好，世界\n修改\n"_s}});
    VERIFY_OK(result);
    QCOMPARE(workspace.read(u"gbk.txt"_s), gbkHello + "\r\n" + gbkChange + "\r\n");
    QCOMPARE(result.fileChange.encoding, chineseEncoding() + u", CRLF"_s);
    QVERIFY(!result.fileChange.newFile);
}

void tst_FileTools::writeTakesTheContentsOwnCrlf()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "lf\n"));
    VERIFY_OK(workspace.call(u"write_file"_s,
                             {{u"path"_s, u"a.txt"_s}, {u"content"_s, u"now\r\ncrlf\r\n"_s}}));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("now\r\ncrlf\r\n"));
    const ToolResult same = workspace.call(u"write_file"_s,
                                           {{u"path"_s, u"a.txt"_s},
                                            {u"content"_s, u"now\ncrlf\n"_s}});
    VERIFY_OK(same);
    QVERIFY2(same.content.contains(u"already has this content; nothing was written"_s),
             qPrintable(same.content));
}

void tst_FileTools::aFailedWriteLeavesTheOldFileWhole()
{
    Workspace workspace;
    const QByteArray original = "line 1\nline 2\n" + QByteArray(100000, 'x') + '\n';
    QVERIFY(workspace.write(u"a.txt"_s, original));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    // The disk fills up halfway: the new bytes never replace the old ones.
    workspace.context->beforeCommit = [](QSaveFile &file) {
        file.cancelWriting();
    };
    const ToolResult result = workspace.edit(u"a.txt"_s, u"line 1"_s, u"changed"_s);
    COMPARE_CODE(result, "write_failed");
    QVERIFY(result.content.contains(u"The file is unchanged"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), original);
    QCOMPARE(QDir(workspace.root).entryList(QDir::Files | QDir::Hidden), QStringList{u"a.txt"_s});
}

void tst_FileTools::aFileChangedAfterTheApprovalIsNotWritten()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "shown\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    const ToolResult result = workspace.call(u"edit_file"_s,
                                             {{u"path"_s, u"a.txt"_s},
                                              {u"old_string"_s, u"shown"_s},
                                              {u"new_string"_s, u"x"_s}},
                                             nullptr,
                                             [&] {
                                                 QVERIFY(workspace.write(u"a.txt"_s,
                                                                         "shown\nby the user\n"));
                                             });
    COMPARE_CODE(result, "stale_file");
    QVERIFY(result.content.contains(u"after the user approved the change"_s));
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("shown\nby the user\n"));

    // The same for a new file that appears while the user looks at the approval.
    const ToolResult created = workspace.call(u"write_file"_s,
                                              {{u"path"_s, u"new.txt"_s}, {u"content"_s, u"mine"_s}},
                                              nullptr,
                                              [&] {
                                                  QVERIFY(workspace.write(u"new.txt"_s, "theirs"));
                                              });
    COMPARE_CODE(created, "stale_file");
    QCOMPARE(workspace.read(u"new.txt"_s), QByteArray("theirs"));
}

void tst_FileTools::theReviewShowsADiffAndWritesNothing()
{
    Workspace workspace;
    QVERIFY(workspace.write(u"a.txt"_s, "1\n2\n3\n4\n5\n6\n7\n8\n"));
    VERIFY_OK(workspace.read(u"a.txt"_s, {}));
    const ToolSnapshot snapshot = workspace.tools.snapshot();
    const auto tool = snapshot.find(u"edit_file"_s);
    const Preparation preparation = snapshot.prepare(
            ToolCall{u"c"_s,
                     u"edit_file"_s,
                     argumentsText({{u"path"_s, u"a.txt"_s},
                                    {u"old_string"_s, u"5"_s},
                                    {u"new_string"_s, u"five"_s}})});
    QFuture<Review> review = tool->review(std::get<PreparedCall>(preparation));
    review.waitForFinished();
    const CallPreview preview = std::get<CallPreview>(review.result());
    QCOMPARE(preview.kind, CallPreview::FileEdit);
    QCOMPARE(preview.text, u"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"_s);
    QCOMPARE(preview.fileChange.encoding, u"UTF-8, LF"_s);
    QCOMPARE(preview.fileChange.addedLines, 1);
    QCOMPARE(workspace.read(u"a.txt"_s), QByteArray("1\n2\n3\n4\n5\n6\n7\n8\n"));
}

void tst_FileTools::theBoundaryHolds()
{
    Workspace workspace;
    QVERIFY(writeBytes(workspace.outside + u"/secret.txt"_s, "secret\n"));
    QVERIFY(workspace.write(u".git/config"_s, "[core]\n"));
    COMPARE_CODE(workspace.read(u"../outside/secret.txt"_s, {}), "outside_workspace");
    COMPARE_CODE(workspace.read(workspace.outside + u"/secret.txt"_s, {}), "outside_workspace");
    COMPARE_CODE(workspace.call(u"grep"_s, {{u"pattern"_s, u"secret"_s}, {u"path"_s, u".."_s}}),
                 "outside_workspace");
    COMPARE_CODE(workspace.call(u"write_file"_s,
                                {{u"path"_s, u"../outside/secret.txt"_s}, {u"content"_s, u"x"_s}}),
                 "outside_workspace");
    COMPARE_CODE(workspace.call(u"write_file"_s,
                                {{u"path"_s, u".git/config"_s}, {u"content"_s, u"x"_s}}),
                 "read_only_path");
    VERIFY_OK(workspace.read(u".git/config"_s, {}));
    QCOMPARE(readBytes(workspace.outside + u"/secret.txt"_s), QByteArray("secret\n"));
    QCOMPARE(workspace.read(u".git/config"_s), QByteArray("[core]\n"));
}

namespace {

// What a cloned repository plants, before the tools run: links out to the user's key or to a
// device, FIFOs where a file is expected.
enum class Planted {
    FileLinkToKey,   // docs/notes.txt -> ../../outside/id_ed25519
    LinkToDevZero,   // docs/zero -> /dev/zero
    Fifo,            // docs/pipe, a FIFO
    GitignoreFifo,   // .gitignore, a FIFO
    AgentsMdLinkOut, // AGENTS.md -> ../outside/id_ed25519
    AgentsMdFifo,    // AGENTS.md, a FIFO
};

bool plant(const Workspace &workspace, Planted planted)
{
    const QByteArray key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n";
    if (!writeBytes(workspace.outside + u"/id_ed25519"_s, key)
        || !workspace.write(u"docs/readme.txt"_s, "read me\n"))
        return false;
#ifdef Q_OS_WIN
    Q_UNUSED(planted);
    return false; // symbolic links need a privilege, FIFOs do not exist
#else
    const auto fifo = [&](const QString &relative) {
        return ::mkfifo(QFile::encodeName(workspace.path(relative)).constData(), 0600) == 0;
    };
    switch (planted) {
    case Planted::FileLinkToKey:
        return QFile::link(u"../../outside/id_ed25519"_s, workspace.path(u"docs/notes.txt"_s));
    case Planted::LinkToDevZero:
        return QFile::link(u"/dev/zero"_s, workspace.path(u"docs/zero"_s));
    case Planted::Fifo:
        return fifo(u"docs/pipe"_s);
    case Planted::GitignoreFifo:
        return fifo(u".gitignore"_s);
    case Planted::AgentsMdLinkOut:
        return QFile::link(u"../outside/id_ed25519"_s, workspace.path(u"AGENTS.md"_s));
    case Planted::AgentsMdFifo:
        return fifo(u"AGENTS.md"_s);
    }
    return false;
#endif
}

} // namespace

// Each row plants something, makes one call as the model would (or builds the system prompt, for
// AGENTS.md) and checks what the model gets: never a byte of what lies outside, no hang on a
// FIFO or a device, and a word about what was skipped.
void tst_FileTools::aRepositoryCannotLeadTheReadsOut_data()
{
    QTest::addColumn<Planted>("planted");
    QTest::addColumn<QString>("tool"); // "" for the system prompt's AGENTS.md section
    QTest::addColumn<QJsonObject>("arguments");
    QTest::addColumn<QString>("errorCode"); // "" for a result the model reads
    QTest::addColumn<QString>("said");      // in the result (or the section)

    const QJsonObject grepAll{{u"pattern"_s, u"."_s}, {u"path"_s, u"."_s}};
    QTest::newRow("grep over a file link to the key")
            << Planted::FileLinkToKey << u"grep"_s << grepAll << QString()
            << u"[1 links that lead out of the workspace were not followed.]"_s;
    QTest::newRow("grep of the link itself")
            << Planted::FileLinkToKey << u"grep"_s
            << QJsonObject{{u"pattern"_s, u"KEY"_s}, {u"path"_s, u"docs/notes.txt"_s}}
            << u"outside_workspace"_s << u"outside the workspace"_s;
    QTest::newRow("read_file of a file link to the key")
            << Planted::FileLinkToKey << u"read_file"_s
            << QJsonObject{{u"path"_s, u"docs/notes.txt"_s}} << u"outside_workspace"_s
            << u"outside the workspace"_s;
    QTest::newRow("list_dir shows the link, not where it leads")
            << Planted::FileLinkToKey << u"list_dir"_s << QJsonObject{{u"path"_s, u"docs"_s}}
            << QString() << u"notes.txt -> (a link out of the workspace, not followed)"_s;
    QTest::newRow("grep over a link to /dev/zero")
            << Planted::LinkToDevZero << u"grep"_s << grepAll << QString()
            << u"[1 links that lead out of the workspace were not followed.]"_s;
    QTest::newRow("read_file of a link to /dev/zero")
            << Planted::LinkToDevZero << u"read_file"_s << QJsonObject{{u"path"_s, u"docs/zero"_s}}
            << u"outside_workspace"_s << u"outside the workspace"_s;
    QTest::newRow("grep over a FIFO") << Planted::Fifo << u"grep"_s << grepAll << QString()
                                      << u"[1 FIFOs, sockets or devices were not read.]"_s;
    QTest::newRow("read_file of a FIFO")
            << Planted::Fifo << u"read_file"_s << QJsonObject{{u"path"_s, u"docs/pipe"_s}}
            << u"not_regular_file"_s << u"not a regular file"_s;
    QTest::newRow("list_dir marks a FIFO")
            << Planted::Fifo << u"list_dir"_s << QJsonObject{{u"path"_s, u"docs"_s}} << QString()
            << u"pipe  (not a regular file)"_s;
    QTest::newRow("a .gitignore that is a FIFO") << Planted::GitignoreFifo << u"grep"_s << grepAll
                                                 << QString() << u"docs/readme.txt:1:read me"_s;
    QTest::newRow("AGENTS.md, a link to the key")
            << Planted::AgentsMdLinkOut << QString() << QJsonObject() << QString()
            << u"[The workspace's AGENTS.md was not read: it leads out of the workspace (a link).]"_s;
    QTest::newRow("AGENTS.md, a FIFO")
            << Planted::AgentsMdFifo << QString() << QJsonObject() << QString()
            << u"[The workspace's AGENTS.md was not read: it is not a regular file.]"_s;
}

void tst_FileTools::aRepositoryCannotLeadTheReadsOut()
{
    QFETCH(Planted, planted);
    QFETCH(QString, tool);
    QFETCH(QJsonObject, arguments);
    QFETCH(QString, errorCode);
    QFETCH(QString, said);
#ifdef Q_OS_WIN
    QSKIP("symbolic links need a privilege on Windows and FIFOs do not exist there; the junction "
          "and device-name cases are theBoundaryHolds' and tst_workspace's");
#endif
    Workspace workspace;
    QVERIFY(plant(workspace, planted));
    QString seen;
    if (tool.isEmpty()) {
        seen = projectInstructionsSection(workspace.root);
    } else {
        const ToolResult result = workspace.call(tool, arguments);
        QVERIFY2(result.errorCode != u"test_timeout"_s, "the tool waited on what was planted");
        QCOMPARE(result.errorCode, errorCode);
        seen = result.content;
    }
    QVERIFY2(seen.contains(said), qPrintable(seen));
    QVERIFY2(!seen.contains(u"PRIVATE KEY"_s) && !seen.contains(u"b3BlbnNzaC1rZXkt"_s),
             qPrintable(seen));
    // A refusal names where the link leads, so that the model can tell the user; what a call
    // reads or lists does not.
    if (errorCode.isEmpty())
        QVERIFY2(!seen.contains(workspace.outside), qPrintable(seen));
}

namespace {

// The agent as the app builds it (installStandardTools), talking to a scripted model.
class Conversation
{
public:
    Conversation()
    {
        ProviderSettings settings;
        settings.baseUrl = server.baseUrl();
        settings.apiKey = u"sk-test"_s;
        settings.model = u"gpt-4.1"_s;
        agent.setProvider(settings);
        ShellToolOptions options;
        options.workspace = workspace.root;
        installStandardTools(agent, std::make_shared<FakeCommandRunner>(), options);
    }

    void decide(ApprovalAnswer decision)
    {
        QObject::connect(&agent,
                         &AgentController::approvalRequested,
                         &agent,
                         [this, decision](const ApprovalRequest &request) {
                             approvals.append(request);
                             QTimer::singleShot(0, &agent, [this, request, decision] {
                                 agent.resolveApproval(request.id, decision);
                             });
                         });
    }

    // Runs the prompt; true when the run finished, and did not fail, within the hang guard.
    bool runToTheEnd(const QString &prompt)
    {
        const qsizetype before = finished.size();
        return agent.run(prompt)
               && QTest::qWaitFor([&] { return finished.size() > before || !failed.isEmpty(); },
                                  toolTimeoutMs)
               && finished.size() > before && failed.isEmpty();
    }

    Workspace workspace;
    FakeChatServer server;
    AgentController agent;
    QSignalSpy finished{&agent, &AgentController::finished};
    QSignalSpy failed{&agent, &AgentController::failed};
    QList<ApprovalRequest> approvals;
};

} // namespace

// An attacker's model knows how the key begins (sk-proj-) and where it is (.env): it guesses
// the next character with a pattern, an old_string or a file name, and watches for the one
// answer that differs. Every guess, right or wrong, must get the same answer.
namespace {
const QString oracleKey = u"sk-proj-Q7fTzK2mWc9LxR4vBn8YdJ3hGs6PaE1u"_s;
const QString otherProfileKey = u"sk-other-profile-0123456789abcdefXYZ"_s;
} // namespace

void tst_FileTools::noToolIsAnOracleForASecret_data()
{
    QTest::addColumn<QString>("tool");
    // %1: a guess of the key's next character (after "sk-proj-"), right or wrong
    QTest::addColumn<QString>("argumentsTemplate");

    QTest::newRow("grep, the next character")
            << u"grep"_s << uR"({"pattern":"^OPENAI_API_KEY=sk-proj-%1","path":"."})"_s;
    QTest::newRow("grep, a class at an offset")
            << u"grep"_s << uR"({"pattern":"^OPENAI_API_KEY=sk-proj-.{0}[%1]","path":"."})"_s;
    QTest::newRow("grep, ignoring case")
            << u"grep"_s
            << uR"({"pattern":"OPENAI_API_KEY=SK-PROJ-%1","path":".","ignore_case":true})"_s;
    QTest::newRow("grep, the other profile's key")
            << u"grep"_s << uR"({"pattern":"sk-other-profile-%1","path":"."})"_s;
    QTest::newRow("grep, a glob on the file name")
            << u"grep"_s << uR"({"pattern":"x","path":".","glob":"sk-proj-%1*"})"_s;
    QTest::newRow("edit_file, old_string guesses on")
            << u"edit_file"_s
            << uR"({"path":".env","old_string":"OPENAI_API_KEY=sk-proj-%1","new_string":"x"})"_s;
    QTest::newRow("edit_file, the other profile's key")
            << u"edit_file"_s
            << uR"({"path":".env","old_string":"OTHER=sk-other-profile-%1","new_string":"x"})"_s;
    QTest::newRow("glob, a file named after the key")
            << u"glob"_s << uR"({"pattern":"names/sk-proj-%1*","path":"."})"_s;
}

void tst_FileTools::noToolIsAnOracleForASecret()
{
    QFETCH(QString, tool);
    QFETCH(QString, argumentsTemplate);
    Workspace workspace;
    workspace.context->secrets.set({oracleKey, otherProfileKey});
    QVERIFY(workspace.write(u".env"_s,
                            "# local settings\nOPENAI_API_KEY=" + oracleKey.toUtf8()
                                    + "\nOTHER=" + otherProfileKey.toUtf8() + "\nDEBUG=1\n"));
    QVERIFY(workspace.write(u"names/"_s + oracleKey + u".txt"_s, "x\n"));
    VERIFY_OK(workspace.read(u".env"_s, {}));

    // Every character a key can hold, the right one (Q, s) among them.
    const QString alphabet = u"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"_s;
    const QJsonObject asWritten = QJsonDocument::fromJson(argumentsTemplate.toUtf8()).object();
    QString firstAnswer;
    for (const QChar guess : alphabet) {
        const QString text = QString(argumentsTemplate).replace(u"%1"_s, QString(guess));
        const QJsonObject arguments = QJsonDocument::fromJson(text.toUtf8()).object();
        QVERIFY2(!arguments.isEmpty(), qPrintable(text));
        const ToolResult result = workspace.call(tool, arguments);
        QVERIFY2(!result.content.contains(oracleKey.mid(8, 4)), qPrintable(result.content));
        QVERIFY2(!result.content.contains(otherProfileKey.mid(17, 4)), qPrintable(result.content));
        // The answer may quote the guess itself ("No matches for <pattern>"): that is put back
        // as written, the rest must be the same.
        QString answer = (result.ok ? u"ok: "_s : u"failed: "_s) + result.content;
        for (auto it = arguments.constBegin(); it != arguments.constEnd(); ++it) {
            if (it->isString() && it->toString() != asWritten.value(it.key()).toString())
                answer.replace(it->toString(), asWritten.value(it.key()).toString());
        }
        if (firstAnswer.isNull())
            firstAnswer = answer;
        QVERIFY2(answer == firstAnswer,
                 qPrintable(u"the guess %1 got another answer:\n%2\nthan the others:\n%3"_s
                                    .arg(guess, answer, firstAnswer)));
    }
    // The file was not changed by any of the edits.
    QVERIFY(workspace.read(u".env"_s).contains(oracleKey.toUtf8()));
}

void tst_FileTools::anEditBesideASecretKeepsItWhole()
{
    Workspace workspace;
    workspace.context->secrets.set({oracleKey});
    const QByteArray env = "OPENAI_API_KEY=" + oracleKey.toUtf8() + " # the key\r\nDEBUG=1\r\n";
    QVERIFY(workspace.write(u".env"_s, env));

    // What the model sees, and what it can match on, is the masked line.
    const ToolResult read = workspace.read(u".env"_s, {});
    VERIFY_OK(read);
    QVERIFY2(read.content.contains(u"1\tOPENAI_API_KEY=[REDACTED] # the key"_s),
             qPrintable(read.content));
    QVERIFY(!read.content.contains(oracleKey));
    const ToolResult grep = workspace.call(u"grep"_s,
                                           {{u"pattern"_s, u"KEY=\\[REDACTED\\] #"_s},
                                            {u"path"_s, u"."_s}});
    VERIFY_OK(grep);
    QCOMPARE(grep.content, u".env:1:OPENAI_API_KEY=[REDACTED] # the key\n"_s);
    const ToolResult listed = workspace.call(u"grep"_s,
                                             {{u"pattern"_s, u"REDACTED"_s}, {u"path"_s, u"."_s}});
    QCOMPARE(listed.content, grep.content); // the marker is text like any other

    // An edit beside the key changes what it names and keeps the key's bytes.
    VERIFY_OK(workspace.edit(u".env"_s, u" # the key"_s, u" # rotated monthly"_s));
    QCOMPARE(workspace.read(u".env"_s),
             "OPENAI_API_KEY=" + oracleKey.toUtf8() + " # rotated monthly\r\nDEBUG=1\r\n");
    VERIFY_OK(workspace.read(u".env"_s, {}));
    VERIFY_OK(workspace.edit(u".env"_s, u"DEBUG=1"_s, u"DEBUG=0"_s));
    QVERIFY(workspace.read(u".env"_s).endsWith("\r\nDEBUG=0\r\n"));

    // An edit of the masked value itself is refused, and says why.
    VERIFY_OK(workspace.read(u".env"_s, {}));
    const ToolResult replaced = workspace.edit(u".env"_s,
                                               u"OPENAI_API_KEY=[REDACTED]"_s,
                                               u"OPENAI_API_KEY=sk-attacker"_s);
    QCOMPARE(replaced.errorCode, u"masked_secret"_s);
    QVERIFY2(replaced.content.contains(u"[REDACTED]"_s), qPrintable(replaced.content));
    QVERIFY(workspace.read(u".env"_s).contains(oracleKey.toUtf8()));
}

void tst_FileTools::conversationReadsEditsAndGreps()
{
    Conversation conversation;
    const QByteArray before = "int total(void)\r\n{\r\n    return 1; /* " + gbkHello
                              + " */\r\n}\r\n";
    QVERIFY(conversation.workspace.write(u"src/total.c"_s, before));
    conversation.server.script({
            FakeResponse::toolCall(u"call_read"_s, u"read_file"_s, uR"({"path":"src/total.c"})"_s),
            FakeResponse::toolCall(
                    u"call_edit"_s,
                    u"edit_file"_s,
                    uR"({"path":"src/total.c","old_string":"return 1;","new_string":"return 2;"})"_s),
            FakeResponse::toolCall(u"call_grep"_s, u"grep"_s, uR"({"pattern":"return 2"})"_s),
            FakeResponse::answer(u"Changed total() to return 2."_s),
    });
    conversation.decide(ApprovalAnswer::allowOnce());
    QVERIFY(conversation.runToTheEnd(u"Make total() return 2"_s));

    // One approval, for the edit, showing its diff; the reads ran without asking.
    QCOMPARE(conversation.approvals.size(), 1);
    const ApprovalRequest &approval = conversation.approvals.first();
    QCOMPARE(approval.toolName, u"edit_file"_s);
    QCOMPARE(approval.preview.kind, CallPreview::FileEdit);
    QCOMPARE(approval.preview.fileChange.encoding, chineseEncoding() + u", CRLF"_s);
    QVERIFY(approval.preview.text.contains(
            u"-    return 1; /* 你好，世界 */\n+    return 2; /* 你好，世界 */"_s));

    // What the provider received: every result paired with its call, in order.
    const QList<RecordedRequest> requests = conversation.server.requests();
    QCOMPARE(requests.size(), 4);
    const QList<QJsonObject> tools = requests.last().toolMessages();
    QCOMPARE(tools.size(), 3);
    QCOMPARE(tools[0][u"tool_call_id"_s].toString(), u"call_read"_s);
    QVERIFY(tools[0][u"content"_s].toString().startsWith(
            u"encoding: %1, line endings: CRLF, 4 lines\n"_s.arg(chineseEncoding())));
    QVERIFY(tools[0][u"content"_s].toString().contains(
            u"     3\t    return 1; /* 你好，世界 */\n"_s));
    QCOMPARE(tools[1][u"tool_call_id"_s].toString(), u"call_edit"_s);
    QVERIFY(tools[1][u"content"_s].toString().startsWith(
            u"Edited src/total.c (%1, CRLF)"_s.arg(chineseEncoding())));
    QCOMPARE(tools[2][u"tool_call_id"_s].toString(), u"call_grep"_s);
    QCOMPARE(tools[2][u"content"_s].toString(), u"src/total.c:3:    return 2; /* 你好，世界 */\n"_s);

    QByteArray after = before;
    after.replace("return 1;", "return 2;");
    QCOMPARE(conversation.workspace.read(u"src/total.c"_s).toHex(' '), after.toHex(' '));
}

// Five reads and one edit in one message, as an exploring model sends them: the reads need no
// approval and run together, the edit is asked once, after them, and the tool messages keep the
// order of the calls.
void tst_FileTools::fiveReadsAndOneEditInOneMessage()
{
    Conversation conversation;
    QList<FakeToolCall> calls;
    for (const QString &name : {u"a"_s, u"b"_s, u"c"_s, u"d"_s, u"e"_s}) {
        QVERIFY(conversation.workspace.write(u"src/"_s + name + u".txt"_s, name.toUtf8() + "\n"));
        calls.append({u"read_"_s + name, u"read_file"_s, uR"({"path":"src/%1.txt"})"_s.arg(name)});
    }
    calls.append({u"edit_a"_s,
                  u"edit_file"_s,
                  uR"({"path":"src/a.txt","old_string":"a","new_string":"A"})"_s});
    conversation.server.script({FakeResponse::toolCalls(calls), FakeResponse::answer(u"Done."_s)});
    conversation.decide(ApprovalAnswer::allowOnce());
    QVERIFY(conversation.runToTheEnd(u"Read everything, then capitalise a"_s));

    QCOMPARE(conversation.approvals.size(), 1);
    QCOMPARE(conversation.approvals.first().toolCallId, u"edit_a"_s);
    const QList<QJsonObject> tools = conversation.server.requests().last().toolMessages();
    QCOMPARE(tools.size(), calls.size());
    for (qsizetype i = 0; i < calls.size(); ++i)
        QCOMPARE(tools[i][u"tool_call_id"_s].toString(), calls[i].id);
    QVERIFY2(tools[1][u"content"_s].toString().contains(u"b"_s),
             qPrintable(tools[1][u"content"_s].toString()));
    QCOMPARE(conversation.workspace.read(u"src/a.txt"_s), QByteArray("A\n"));
}

void tst_FileTools::aDeniedEditChangesNothing()
{
    Conversation conversation;
    QVERIFY(conversation.workspace.write(u"a.txt"_s, "keep me\n"));
    conversation.server.script({
            FakeResponse::toolCall(u"call_read"_s, u"read_file"_s, uR"({"path":"a.txt"})"_s),
            FakeResponse::toolCall(
                    u"call_edit"_s,
                    u"edit_file"_s,
                    uR"({"path":"a.txt","old_string":"keep me","new_string":"gone"})"_s),
            FakeResponse::answer(u"Understood."_s),
    });
    conversation.decide(ApprovalAnswer::deny());
    QVERIFY(conversation.runToTheEnd(u"Change a.txt"_s));
    QCOMPARE(conversation.workspace.read(u"a.txt"_s), QByteArray("keep me\n"));
    const QList<QJsonObject> tools = conversation.server.requests().last().toolMessages();
    QCOMPARE(tools.size(), 2);
    QCOMPARE(tools[1][u"tool_call_id"_s].toString(), u"call_edit"_s);
    QVERIFY(tools[1][u"content"_s].toString().startsWith(u"denied: "_s));
}

// "Allow for this conversation" on write_file allowed a change of the file as the user knew it:
// the same call may write it again while it is as the agent left it, but not over the user's own
// edit made since.
void tst_FileTools::aConversationAllowanceForAWriteEndsWhenTheFileChanges()
{
    Conversation conversation;
    QVERIFY(conversation.workspace.write(u"notes.md"_s, "original\n"));
    const QString write = uR"({"path":"notes.md","content":"generated\n"})"_s;
    conversation.server.script({
            FakeResponse::toolCall(u"call_1"_s, u"write_file"_s, write),
            FakeResponse::toolCall(u"call_2"_s, u"write_file"_s, write),
            FakeResponse::answer(u"Written twice."_s),
            FakeResponse::toolCall(u"call_3"_s, u"write_file"_s, write),
            FakeResponse::answer(u"Written again."_s),
    });
    conversation.decide(ApprovalAnswer{ApprovalAnswer::AllowForConversation, {}, {}});
    QVERIFY(conversation.runToTheEnd(u"Generate notes.md"_s));
    // Asked once: the second call found the file as the first one left it.
    QCOMPARE(conversation.approvals.size(), 1);
    QCOMPARE(conversation.approvals.first().toolCallId, u"call_1"_s);
    QCOMPARE(conversation.workspace.read(u"notes.md"_s), QByteArray("generated\n"));

    // The user edits the file by hand; the same call is then asked about again.
    QVERIFY(conversation.workspace.write(u"notes.md"_s, "generated\nmy own line\n"));
    QVERIFY(conversation.runToTheEnd(u"Again"_s));
    QCOMPARE(conversation.approvals.size(), 2);
    QCOMPARE(conversation.approvals.last().toolCallId, u"call_3"_s);
    // What the user saw was the change of the file with the user's line in it.
    QVERIFY2(conversation.approvals.last().preview.text.contains(u"-my own line"_s),
             qPrintable(conversation.approvals.last().preview.text));
}

namespace {

int runTests(int argc, char *argv[])
{
    int result = 0;
    {
        QCoreApplication app(argc, argv);
        tst_FileTools test;
        result = QTest::qExec(&test, argc, argv);
    }
#ifdef Q_OS_WIN
    // Wine 8 now and then never finishes tearing this process down after the conversations (in
    // about one run in three on a loaded machine, with every test passed and the Windows process
    // already gone from Wine's process list), and CTest then reports a timeout. The verdict is
    // in: under Wine, leave at once.
    if (GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version")) {
        std::fflush(nullptr);
        TerminateProcess(GetCurrentProcess(), UINT(result));
    }
#endif
    return result;
}

} // namespace

AGENTLOOP_TEST_ENTRY(runTests)

#include "tst_filetools.moc"
