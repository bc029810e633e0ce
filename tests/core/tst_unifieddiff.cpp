// The line diff the edit approval shows: hunks as GNU diff -u writes them, large files kept fast,
// long diffs cut with whole counts.

#include "files/unifieddiff.h"
#include "testmain.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

// "1".."count", one line each.
QStringList numbered(int count, const QString &prefix = u"line "_s)
{
    QStringList lines;
    for (int i = 1; i <= count; ++i)
        lines.append(prefix + QString::number(i));
    return lines;
}

QStringList replaced(QStringList lines, int index, const QString &line)
{
    lines[index] = line;
    return lines;
}

} // namespace

class tst_UnifiedDiff : public QObject
{
    Q_OBJECT

private slots:
    void hunks_data();
    void hunks();
    void matchesGnuDiff_data();
    void matchesGnuDiff();
    void lineEndingsAreNoLines();
    void oneLineEditOfLargeFileIsFast();
    void largeMiddleIsRemovedThenAdded();
    void truncationKeepsWholeCounts();
    void splitLines_data();
    void splitLines();
};

void tst_UnifiedDiff::hunks_data()
{
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<QStringList>("after");
    QTest::addColumn<int>("context");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("added");
    QTest::addColumn<int>("removed");

    const QStringList ten = numbered(10);
    QTest::newRow("no change") << ten << ten << 3 << QString() << 0 << 0;
    QTest::newRow("both empty") << QStringList() << QStringList() << 3 << QString() << 0 << 0;
    QTest::newRow("one line changed") << ten << replaced(ten, 4, u"five"_s) << 3
                                      << u"@@ -2,7 +2,7 @@\n"
                                         " line 2\n line 3\n line 4\n"
                                         "-line 5\n+five\n"
                                         " line 6\n line 7\n line 8\n"_s
                                      << 1 << 1;
    QTest::newRow("one line changed, context 1")
            << ten << replaced(ten, 4, u"five"_s) << 1
            << u"@@ -4,3 +4,3 @@\n line 4\n-line 5\n+five\n line 6\n"_s << 1 << 1;
    QTest::newRow("one line changed, context 0") << ten << replaced(ten, 4, u"five"_s) << 0
                                                 << u"@@ -5 +5 @@\n-line 5\n+five\n"_s << 1 << 1;
    QTest::newRow("insertion at the start")
            << ten << (QStringList{u"new"_s} + ten) << 3
            << u"@@ -1,3 +1,4 @@\n+new\n line 1\n line 2\n line 3\n"_s << 1 << 0;
    QTest::newRow("insertion, context 0")
            << ten << (ten.first(5) + QStringList{u"new"_s} + ten.sliced(5)) << 0
            << u"@@ -5,0 +6 @@\n+new\n"_s << 1 << 0;
    QTest::newRow("deletion at the end")
            << ten << ten.first(9) << 3
            << u"@@ -7,4 +7,3 @@\n line 7\n line 8\n line 9\n-line 10\n"_s << 0 << 1;
    QTest::newRow("deletion, context 0") << ten << (ten.first(2) + ten.sliced(3)) << 0
                                         << u"@@ -3 +2,0 @@\n-line 3\n"_s << 0 << 1;
    QTest::newRow("into an empty file") << QStringList() << QStringList{u"a"_s, u"b"_s} << 3
                                        << u"@@ -0,0 +1,2 @@\n+a\n+b\n"_s << 2 << 0;
    QTest::newRow("everything removed") << QStringList{u"a"_s, u"b"_s} << QStringList() << 3
                                        << u"@@ -1,2 +0,0 @@\n-a\n-b\n"_s << 0 << 2;
    QTest::newRow("an empty line added") << QStringList{u"a"_s} << QStringList{u"a"_s, QString()}
                                         << 3 << u"@@ -1 +1,2 @@\n a\n+\n"_s << 1 << 0;
    // Six same lines between two changes (2 * context) still make one hunk, seven make two.
    const QStringList twenty = numbered(20);
    QTest::newRow("changes 6 lines apart: one hunk")
            << twenty << replaced(replaced(twenty, 4, u"five"_s), 11, u"twelve"_s) << 3
            << u"@@ -2,14 +2,14 @@\n"
               " line 2\n line 3\n line 4\n-line 5\n+five\n"
               " line 6\n line 7\n line 8\n line 9\n line 10\n line 11\n"
               "-line 12\n+twelve\n line 13\n line 14\n line 15\n"_s
            << 2 << 2;
    QTest::newRow("changes 7 lines apart: two hunks")
            << twenty << replaced(replaced(twenty, 4, u"five"_s), 12, u"thirteen"_s) << 3
            << u"@@ -2,7 +2,7 @@\n"
               " line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8\n"
               "@@ -10,7 +10,7 @@\n"
               " line 10\n line 11\n line 12\n-line 13\n+thirteen\n line 14\n line 15\n line 16\n"_s
            << 2 << 2;
    QTest::newRow("replaced by more lines")
            << QStringList{u"a"_s, u"b"_s, u"c"_s} << QStringList{u"a"_s, u"x"_s, u"y"_s, u"c"_s}
            << 3 << u"@@ -1,3 +1,4 @@\n a\n-b\n+x\n+y\n c\n"_s << 2 << 1;
}

void tst_UnifiedDiff::hunks()
{
    QFETCH(QStringList, before);
    QFETCH(QStringList, after);
    QFETCH(int, context);
    QFETCH(QString, text);
    QFETCH(int, added);
    QFETCH(int, removed);

    const UnifiedDiff diff = unifiedDiff(before, after, context);
    QCOMPARE(diff.text, text);
    QCOMPARE(diff.addedLines, added);
    QCOMPARE(diff.removedLines, removed);
    QVERIFY(!diff.truncated);
}

// The same inputs through /usr/bin/diff -u: the hunks after its two header lines are the same.
void tst_UnifiedDiff::matchesGnuDiff_data()
{
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<QStringList>("after");
    QTest::addColumn<int>("context");

    const QStringList forty = numbered(40);
    QStringList scattered = forty;
    scattered[0] = u"first"_s;
    scattered[9] = u"tenth"_s;
    scattered.insert(20, u"inserted"_s);
    scattered.removeAt(30);
    scattered.removeLast();
    QTest::newRow("scattered edits") << forty << scattered << 3;
    QTest::newRow("scattered edits, context 0") << forty << scattered << 0;
    QTest::newRow("scattered edits, context 5") << forty << scattered << 5;
    QTest::newRow("one line changed") << forty << replaced(forty, 19, u"twenty"_s) << 3;
    QTest::newRow("all different") << numbered(5, u"a"_s) << numbered(7, u"b"_s) << 3;
    QTest::newRow("block moved") << forty
                                 << (forty.sliced(10, 10) + forty.first(10) + forty.sliced(20))
                                 << 3;
    QTest::newRow("from nothing") << QStringList() << numbered(3) << 3;
    QTest::newRow("to nothing") << numbered(3) << QStringList() << 3;
}

void tst_UnifiedDiff::matchesGnuDiff()
{
    QFETCH(QStringList, before);
    QFETCH(QStringList, after);
    QFETCH(int, context);
#ifdef Q_OS_WIN
    QSKIP("GNU diff is the Linux build's reference");
#endif
    if (!QFile::exists(u"/usr/bin/diff"_s))
        QSKIP("/usr/bin/diff is not installed");

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString &name, const QStringList &lines) {
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (const QString &line : lines)
            file.write(line.toUtf8() + '\n');
    };
    write(u"before"_s, before);
    write(u"after"_s, after);
    QProcess diffProcess;
    diffProcess.setWorkingDirectory(dir.path());
    diffProcess.start(u"/usr/bin/diff"_s, {u"-U%1"_s.arg(context), u"before"_s, u"after"_s});
    QVERIFY(diffProcess.waitForFinished(10000));
    QCOMPARE(diffProcess.exitCode(), 1); // the files differ
    QStringList gnu = QString::fromUtf8(diffProcess.readAllStandardOutput()).split(u'\n');
    QVERIFY(gnu.size() > 2 && gnu.at(0).startsWith(u"--- "_s) && gnu.at(1).startsWith(u"+++ "_s));
    const QString expected = gnu.sliced(2).join(u'\n');

    QCOMPARE(unifiedDiff(before, after, context).text, expected);
}

void tst_UnifiedDiff::lineEndingsAreNoLines()
{
    const QStringList lf = AgentLoop::splitLines(u"a\nb\nc\n");
    const QStringList crlf = AgentLoop::splitLines(u"a\r\nb\r\nc");
    const UnifiedDiff diff = unifiedDiff(lf, crlf);
    QCOMPARE(diff.text, QString());
    QCOMPARE(diff.addedLines + diff.removedLines, 0);
}

// The common head and tail are cut off before dtl sees the middle: whole, 100 000 lines a side
// would be too big for an edit script and be shown as all removed, then added.
void tst_UnifiedDiff::oneLineEditOfLargeFileIsFast()
{
    const QStringList before = numbered(100000);
    const QStringList after = replaced(before, 49999, u"changed"_s);
    const UnifiedDiff diff = unifiedDiff(before, after);
    QCOMPARE(diff.text,
             u"@@ -49997,7 +49997,7 @@\n"
             " line 49997\n line 49998\n line 49999\n"
             "-line 50000\n+changed\n"
             " line 50001\n line 50002\n line 50003\n"_s);
}

// 6 000 lines on each side with nothing in common would cost dtl 6 000 * 12 000 steps.
void tst_UnifiedDiff::largeMiddleIsRemovedThenAdded()
{
    const QStringList before = QStringList{u"head"_s} + numbered(6000, u"old "_s)
                               + QStringList{u"tail"_s};
    const QStringList after = QStringList{u"head"_s} + numbered(6000, u"new "_s)
                              + QStringList{u"tail"_s};
    const UnifiedDiff diff = unifiedDiff(before, after, 3, 20000);
    QCOMPARE(diff.removedLines, 6000);
    QCOMPARE(diff.addedLines, 6000);
    QVERIFY(!diff.truncated);
    const QStringList lines = diff.text.split(u'\n');
    QCOMPARE(lines.size(), 1 + 1 + 6000 + 6000 + 1 + 1); // header, head, -, +, tail, ""
    QCOMPARE(lines.at(0), u"@@ -1,6002 +1,6002 @@"_s);
    QCOMPARE(lines.at(1), u" head"_s);
    QCOMPARE(lines.at(2), u"-old 1"_s);
    QCOMPARE(lines.at(6001), u"-old 6000"_s);
    QCOMPARE(lines.at(6002), u"+new 1"_s);
    QCOMPARE(lines.at(12001), u"+new 6000"_s);
    QCOMPARE(lines.at(12002), u" tail"_s);
}

void tst_UnifiedDiff::truncationKeepsWholeCounts()
{
    const QStringList before = numbered(10);
    const QStringList after = numbered(10, u"new "_s);
    const UnifiedDiff diff = unifiedDiff(before, after, 3, 5);
    QVERIFY(diff.truncated);
    QCOMPARE(diff.text, u"@@ -1,10 +1,10 @@\n-line 1\n-line 2\n-line 3\n-line 4\n"_s);
    QCOMPARE(diff.removedLines, 10);
    QCOMPARE(diff.addedLines, 10);

    // Exactly maxLines lines is all of it.
    const UnifiedDiff whole = unifiedDiff(before, after, 3, 21);
    QVERIFY(!whole.truncated);
    QCOMPARE(whole.text.count(u'\n'), 21);
}

void tst_UnifiedDiff::splitLines_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("lines");

    QTest::newRow("empty") << QString() << QStringList();
    QTest::newRow("no line break") << u"a"_s << QStringList{u"a"_s};
    QTest::newRow("final line break") << u"a\n"_s << QStringList{u"a"_s};
    QTest::newRow("CRLF") << u"a\r\nb\r\n"_s << QStringList{u"a"_s, u"b"_s};
    QTest::newRow("mixed, no final") << u"a\r\nb\nc"_s << QStringList{u"a"_s, u"b"_s, u"c"_s};
    QTest::newRow("empty lines") << u"\n\na\n\n"_s
                                 << QStringList{QString(), QString(), u"a"_s, QString()};
    QTest::newRow("lone CR is a character") << u"a\rb\r\n"_s << QStringList{u"a\rb"_s};
}

void tst_UnifiedDiff::splitLines()
{
    QFETCH(QString, text);
    QFETCH(QStringList, lines);
    QCOMPARE(AgentLoop::splitLines(text), lines);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_UnifiedDiff)
#include "tst_unifieddiff.moc"
