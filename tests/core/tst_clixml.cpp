// PowerShell's CLIXML error records decoded back into the lines a console shows, and output
// streams decoded line by line as UTF-8 or in the system's legacy code page.

#include "base/codepage.h"
#include "testmain.h"
#include "tools/clixml.h"
#include "tools/outputcapture.h"

#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

// What Windows PowerShell 5.1 and pwsh wrote to a redirected standard error for `throw 'boom'`,
// as PowerShell/PowerShell#5912 recorded it. (The report's excerpt ends inside the last record;
// its last two records are written here the way 5.1 ends every error record.)
const QString throwBoom
        = u"#< CLIXML\r\n"
          u"<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/2004/04\">"
          u"<S S=\"Error\">boom_x000D__x000A_</S>"
          u"<S S=\"Error\">At line:1 char:1_x000D__x000A_</S>"
          u"<S S=\"Error\">+ throw 'boom'_x000D__x000A_</S>"
          u"<S S=\"Error\">+ ~~~~~~~~~~~~_x000D__x000A_</S>"
          u"<S S=\"Error\">+ CategoryInfo          : OperationStopped: (boom:String) [], "
          u"RuntimeException_x000D__x000A_</S>"
          u"<S S=\"Error\">+ FullyQualifiedErrorId : boom_x000D__x000A_</S>"
          u"<S S=\"Error\"> _x000D__x000A_</S></Objs>"_s;
const QString throwBoomPlain = u"boom\r\n"
                               u"At line:1 char:1\r\n"
                               u"+ throw 'boom'\r\n"
                               u"+ ~~~~~~~~~~~~\r\n"
                               u"+ CategoryInfo          : OperationStopped: (boom:String) [], "
                               u"RuntimeException\r\n"
                               u"+ FullyQualifiedErrorId : boom\r\n"
                               u" \r\n"_s;

// pwsh 7 for `Write-Error boomed` started with -EncodedCommand over ssh -T, with ANSI colours
// inside the record, as PowerShell/PowerShell#16678 recorded it.
const QString writeErrorColoured
        = u"#< CLIXML\n"
          u"<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/2004/04\">"
          u"<S S=\"Error\">_x001B_[91mWrite-Error: _x001B_[91mboomed_x001B_[0m_x000A_</S></Objs>"_s;

// A progress record ("Preparing modules for first use.") followed by no error, as Ansible's
// #67964 showed it on a WinRM connection's standard error.
const QString progressOnly
        = u"#< CLIXML\r\n"
          u"<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/2004/04\">"
          u"<Obj S=\"progress\" RefId=\"0\"><TN RefId=\"0\"><T>System.Management.Automation."
          u"PSCustomObject</T><T>System.Object</T></TN><MS><I64 N=\"SourceId\">1</I64>"
          u"<PR N=\"Record\"><AV>Preparing modules for first use.</AV><AI>0</AI><Nil />"
          u"<PI>-1</PI><PC>-1</PC><T>Completed</T><SR>-1</SR><SD> </SD></PR></MS></Obj>"
          u"</Objs>"_s;

QString filtered(const QStringList &pieces)
{
    ClixmlFilter filter;
    QString text;
    for (const QString &piece : pieces)
        text += filter.feed(piece);
    return text + filter.finish();
}

// Every character a read of its own: the worst a pipe can do.
QStringList characterByCharacter(const QString &text)
{
    QStringList pieces;
    for (QChar c : text)
        pieces << QString(c);
    return pieces;
}

CapturedText captured(const QList<QByteArray> &reads, const CaptureOptions &options)
{
    OutputCapture capture(options);
    for (const QByteArray &read : reads)
        capture.append(read);
    return capture.finish();
}

} // namespace

class tst_Clixml : public QObject
{
    Q_OBJECT

private slots:
    void recordedSamplesDecode_data();
    void recordedSamplesDecode();
    void aDocumentSplitAcrossReadsDecodesTheSame();
    void plainTextAroundDocumentsPassesUnchanged();
    void twoDocumentsInARow();
    void otherStreamsGetTheirConsolePrefix();
    void escapes_data();
    void escapes();
    void whatIsNoDocumentIsKeptAsItCame_data();
    void whatIsNoDocumentIsKeptAsItCame();

    void legacyLinesAreDecodedLineByLine();
    void aCharacterSplitAcrossReadsIsWhole();
    void withoutALegacyEncodingBadBytesShowAsReplacement();
    void aLongLineWithoutBreaksIsDecodedInPieces();
    void captureDecodesClixmlOnlyWhenAsked();
};

void tst_Clixml::recordedSamplesDecode_data()
{
    QTest::addColumn<QString>("written");
    QTest::addColumn<QString>("plain");
    QTest::newRow("5.1 throw (#5912)") << throwBoom << throwBoomPlain;
    QTest::newRow("7 coloured (#16678)") << writeErrorColoured << u"Write-Error: boomed\n"_s;
    QTest::newRow("progress only (ansible#67964)") << progressOnly << QString();
}

void tst_Clixml::recordedSamplesDecode()
{
    QFETCH(QString, written);
    QFETCH(QString, plain);
    QCOMPARE(filtered({written}), plain);
    ClixmlFilter filter;
    filter.feed(written);
    QVERIFY(filter.decodedAny());
}

void tst_Clixml::aDocumentSplitAcrossReadsDecodesTheSame()
{
    QCOMPARE(filtered(characterByCharacter(throwBoom)), throwBoomPlain);
    // Split inside the marker, inside an escape and inside the closing tag.
    QCOMPARE(filtered({throwBoom.left(4),
                       throwBoom.mid(4, 70),
                       throwBoom.mid(74, 13),
                       throwBoom.mid(87, throwBoom.size() - 87 - 3),
                       throwBoom.right(3)}),
             throwBoomPlain);
}

void tst_Clixml::plainTextAroundDocumentsPassesUnchanged()
{
    // A native program's own stderr line before PowerShell's records, and one after.
    const QString mixed = u"warning: LF will be replaced by CRLF in a.txt\r\n"_s
                          + writeErrorColoured + u"fatal: not a git repository\n"_s;
    const QString expected = u"warning: LF will be replaced by CRLF in a.txt\r\n"
                             u"Write-Error: boomed\n"
                             u"fatal: not a git repository\n"_s;
    QCOMPARE(filtered({mixed}), expected);
    QCOMPARE(filtered(characterByCharacter(mixed)), expected);
    // Plain text alone is not held back once it cannot start a marker.
    ClixmlFilter filter;
    QCOMPARE(filter.feed(u"compiling #1 of 3\n#"_s), u"compiling #1 of 3\n"_s);
    QCOMPARE(filter.feed(u" done\n"_s), u"# done\n"_s);
    QVERIFY(!filter.decodedAny());
}

void tst_Clixml::twoDocumentsInARow()
{
    // PowerShell writes a second document without a second marker (ansible's tests record it).
    const QString two
            = u"#< CLIXML\r\n"
              u"<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/"
              u"2004/04\"><S S=\"Error\">Error 1</S></Objs>"
              u"<Objs Version=\"1.1.0.1\" xmlns=\"http://schemas.microsoft.com/powershell/"
              u"2004/04\"><S S=\"Error\">Error 2</S></Objs>"_s;
    QCOMPARE(filtered({two}), u"Error 1\r\nError 2\r\n"_s);
    QCOMPARE(filtered(characterByCharacter(two)), u"Error 1\r\nError 2\r\n"_s);
}

void tst_Clixml::otherStreamsGetTheirConsolePrefix()
{
    const QString document = u"<Objs Version=\"1.1.0.1\" "
                             u"xmlns=\"http://schemas.microsoft.com/powershell/2004/04\">"
                             u"<S S=\"warning\">disk almost full</S>"
                             u"<S S=\"verbose\">VERBOSE: copying a.txt</S>"
                             u"<S S=\"debug\">x = 1_x000D__x000A_</S>"
                             u"<S S=\"Information\">done_x000A_</S></Objs>"_s;
    QCOMPARE(ClixmlFilter::decodeDocument(document),
             u"WARNING: disk almost full\r\n"
             u"VERBOSE: copying a.txt\r\n"
             u"DEBUG: x = 1\r\n"
             u"done\n"_s);
}

void tst_Clixml::escapes_data()
{
    QTest::addColumn<QString>("escaped");
    QTest::addColumn<QString>("plain");
    QTest::newRow("line break") << u"a_x000D__x000A_b"_s << u"a\r\nb"_s;
    QTest::newRow("lower-case hex") << u"_x263a_"_s << u"☺"_s;
    QTest::newRow("surrogate pair") << u"_xD83D__xDE00_"_s << u"😀"_s;
    QTest::newRow("underscore") << u"_x005F_x0041_"_s << u"_x0041_"_s;
    QTest::newRow("no hex") << u"_x005G_"_s << u"_x005G_"_s;
    QTest::newRow("too short") << u"a_x00_"_s << u"a_x00_"_s;
    QTest::newRow("Chinese as is") << u"找不到文件_x000A_"_s << u"找不到文件\n"_s;
}

void tst_Clixml::escapes()
{
    QFETCH(QString, escaped);
    QFETCH(QString, plain);
    QCOMPARE(ClixmlFilter::unescape(escaped), plain);
}

void tst_Clixml::whatIsNoDocumentIsKeptAsItCame_data()
{
    QTest::addColumn<QString>("written");
    QTest::newRow("marker in a sentence") << u"the #< CLIXML marker starts it\n"_s;
    QTest::newRow("not XML") << u"#< CLIXML\r\n<Objs <S>broken</Objs>\n"_s;
    QTest::newRow("never ends") << u"#< CLIXML\r\n<Objs Version=\"1.1.0.1\"><S S=\"Error\">cut"_s;
    QTest::newRow("marker at the end") << u"text\n#< CLIXML"_s;
}

void tst_Clixml::whatIsNoDocumentIsKeptAsItCame()
{
    QFETCH(QString, written);
    QCOMPARE(filtered({written}), written);
    ClixmlFilter filter;
    filter.feed(written);
    filter.finish();
    QVERIFY(!filter.decodedAny());
    QCOMPARE(filtered(characterByCharacter(written)), written);
}

void tst_Clixml::legacyLinesAreDecodedLineByLine()
{
    if (!LegacyDecoder(u"CP936"_s).isValid())
        QSKIP("this system cannot decode CP936");
    // A pwsh cmdlet's UTF-8 line between two lines Python wrote in CP936.
    const CapturedText text = captured({"\xD6\xD0\xCE\xC4\r\n"            // 中文
                                        "\xE5\x86\x99\xE5\x85\xA5 ok\r\n" // 写入 ok
                                        "\xB2\xE2\xCA\xD4"},              // 测试, no line break
                                       {1000, u"CP936"_s, false});
    QCOMPARE(text.head, u"中文\r\n写入 ok\r\n测试"_s);
    QCOMPARE(text.legacyEncoding, u"CP936"_s);

    const CapturedText utf8 = captured({"\xE5\x86\x99\xE5\x85\xA5\n"}, {1000, u"CP936"_s, false});
    QCOMPARE(utf8.head, u"写入\n"_s);
    QCOMPARE(utf8.legacyEncoding, QString());
}

void tst_Clixml::aCharacterSplitAcrossReadsIsWhole()
{
    // UTF-8 split inside a character, and a CP936 character split between lead and trail byte.
    QCOMPARE(captured({"\xE5\x86", "\x99 a\n"}, {1000, u"CP936"_s, false}).head, u"写 a\n"_s);
    if (!LegacyDecoder(u"CP936"_s).isValid())
        QSKIP("this system cannot decode CP936");
    QCOMPARE(captured({"\xD6", "\xD0\xCE", "\xC4\n"}, {1000, u"CP936"_s, false}).head, u"中文\n"_s);
    LegacyDecoder decoder(u"CP936"_s);
    QCOMPARE(decoder.decode("\xD6\xD0\xCE"), u"中"_s);
    QCOMPARE(decoder.decode("\xC4"), u"文"_s);
    QCOMPARE(decoder.decode("\xD6"), QString());
    QCOMPARE(decoder.finish(), u"\uFFFD"_s); // the stream ended inside a character
}

void tst_Clixml::withoutALegacyEncodingBadBytesShowAsReplacement()
{
    const CapturedText text = captured({"ok\n\xD6\xD0 x\n\xE5\x86"}, {1000, QString(), false});
    QVERIFY2(text.head.startsWith(u"ok\n\uFFFD"_s), qPrintable(text.head));
    QVERIFY(text.head.contains(u" x\n"_s));
    QVERIFY(text.head.endsWith(u'\uFFFD')); // a character the stream ended inside of
    QCOMPARE(text.legacyEncoding, QString());
    // An encoding this system does not know is no fallback.
    QCOMPARE(captured({"\xD6\xD0\n"}, {1000, u"no-such-encoding"_s, false}).legacyEncoding,
             QString());
}

void tst_Clixml::aLongLineWithoutBreaksIsDecodedInPieces()
{
    // 200 000 characters of UTF-8 in reads that cut through characters, no line break.
    const QByteArray line = QString(100000, u'行').toUtf8() + QByteArray(100000, 'a');
    QList<QByteArray> reads;
    for (qsizetype at = 0; at < line.size(); at += 4093)
        reads << line.mid(at, 4093);
    const CapturedText text = captured(reads, {400000, u"CP936"_s, false});
    QCOMPARE(text.totalChars, 200000);
    QCOMPARE(text.head + text.tail, QString(100000, u'行') + QString(100000, u'a'));
    QCOMPARE(text.legacyEncoding, QString());
}

void tst_Clixml::captureDecodesClixmlOnlyWhenAsked()
{
    const QByteArray bytes = writeErrorColoured.toUtf8();
    QList<QByteArray> reads;
    for (qsizetype at = 0; at < bytes.size(); at += 7)
        reads << bytes.mid(at, 7);
    const CapturedText decoded = captured(reads, {1000, QString(), true});
    QCOMPARE(decoded.head, u"Write-Error: boomed\n"_s);
    QVERIFY(decoded.clixmlDecoded);
    const CapturedText asIs = captured(reads, {1000, QString(), false});
    QCOMPARE(asIs.head, writeErrorColoured);
    QVERIFY(!asIs.clixmlDecoded);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Clixml)
#include "tst_clixml.moc"
