#include "base/codepage.h"
#include "testmain.h"
#include "tools/outputcapture.h"
#include "tools/runrecord.h"

#include <QProcessEnvironment>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using Basis = StreamDecoding::Basis;

namespace {

QByteArray utf16LE(const QString &text)
{
    QByteArray bytes;
    for (const QChar c : text) {
        bytes.append(char(c.unicode() & 0xFF));
        bytes.append(char(c.unicode() >> 8));
    }
    return bytes;
}

// "中文" in GBK.
const QByteArray gbkChinese("\xD6\xD0\xCE\xC4");

} // namespace

// How a stream's bytes become the text the model reads, and the reason the record gives.
class tst_RunRecord : public QObject
{
    Q_OBJECT
private slots:
    void gbkLinesDecodeWithTheCodePage();
    void utf16LEWithBomDecodes();
    void utf16LEWithoutBomIsRecognisedByItsZeros();
    void utf16ArrivingByteByByteDecodes();
    void nulSeparatedNamesAreNotUtf16();
    void utf8WithBomDropsTheMark();
    void validUtf8IsUtf8();
    void invalidUtf8WithoutACodePageShowsReplacements();
    void noOutputHasNoEncoding();
    void decodeAsUsesTheChosenEncoding();
    void rowsPutACharacterWhereItsLastByteIs();
    void rowsOfTheRunnersDecodingFollowItsLines();
    void rawStreamKeepsItsLimitAndCountsTheRest();
    void environmentChangesHideSecretValues();
};

void tst_RunRecord::gbkLinesDecodeWithTheCodePage()
{
    if (!canConvert(u"CP936"_s))
        QSKIP("This system has no CP936 converter");
    const DecodedOutput decoded = decodeOutput("ok\n" + gbkChinese + "\n", u"CP936"_s);
    QCOMPARE(decoded.text, u"ok\n中文\n"_s);
    QCOMPARE(decoded.decoding.basis, Basis::LegacyLines);
    QCOMPARE(decoded.decoding.encoding, u"CP936"_s);
}

void tst_RunRecord::utf16LEWithBomDecodes()
{
    const DecodedOutput decoded = decodeOutput("\xFF\xFE" + utf16LE(u"héllo 中文\r\n"_s),
                                               u"CP936"_s);
    QCOMPARE(decoded.text, u"héllo 中文\r\n"_s); // the BOM is not text
    QCOMPARE(decoded.decoding.basis, Basis::Utf16Bom);
    QCOMPARE(decoded.decoding.encoding, u"UTF-16LE"_s);
}

void tst_RunRecord::utf16LEWithoutBomIsRecognisedByItsZeros()
{
    // wsl.exe --list writes to a pipe like this.
    const DecodedOutput decoded = decodeOutput(utf16LE(u"Ubuntu-22.04\r\n"_s), {});
    QCOMPARE(decoded.text, u"Ubuntu-22.04\r\n"_s);
    QCOMPARE(decoded.decoding.basis, Basis::Utf16Zeros);
    QCOMPARE(decoded.decoding.encoding, u"UTF-16LE"_s);
}

void tst_RunRecord::utf16ArrivingByteByByteDecodes()
{
    OutputCapture capture({1000, {}, false});
    const QByteArray bytes = "\xFF\xFE" + utf16LE(u"a中\U0001F600"_s);
    for (const char byte : bytes)
        capture.append(QByteArray(1, byte));
    const CapturedText text = capture.finish();
    QCOMPARE(text.render(), u"a中\U0001F600"_s);
    QCOMPARE(text.decoding.basis, Basis::Utf16Bom);
}

void tst_RunRecord::nulSeparatedNamesAreNotUtf16()
{
    // find -print0, git ls-files -z: NULs, but not every other byte.
    const QByteArray bytes("./src/main.cpp\0./README.md\0./a\0", 31);
    const DecodedOutput decoded = decodeOutput(bytes, {});
    QCOMPARE(decoded.text, QString::fromUtf8(bytes));
    QCOMPARE(decoded.decoding.basis, Basis::ValidUtf8);
}

void tst_RunRecord::utf8WithBomDropsTheMark()
{
    const DecodedOutput decoded = decodeOutput("\xEF\xBB\xBF"
                                               "café 中文\n",
                                               u"CP936"_s);
    QCOMPARE(decoded.text, u"café 中文\n"_s);
    QCOMPARE(decoded.decoding.basis, Basis::Utf8Bom);
    QCOMPARE(decoded.decoding.encoding, u"UTF-8"_s);
}

void tst_RunRecord::validUtf8IsUtf8()
{
    const DecodedOutput decoded = decodeOutput("中文\n", u"CP936"_s);
    QCOMPARE(decoded.text, u"中文\n"_s);
    QCOMPARE(decoded.decoding.basis, Basis::ValidUtf8);
    QCOMPARE(decoded.decoding.encoding, u"UTF-8"_s);
}

void tst_RunRecord::invalidUtf8WithoutACodePageShowsReplacements()
{
    const DecodedOutput decoded = decodeOutput(gbkChinese + "\n", {});
    QVERIFY2(decoded.text.contains(QChar::ReplacementCharacter), qPrintable(decoded.text));
    QVERIFY(!decoded.text.contains(u"中"_s));
    QCOMPARE(decoded.decoding.basis, Basis::InvalidUtf8);
    QCOMPARE(decoded.decoding.encoding, u"UTF-8"_s);
}

void tst_RunRecord::noOutputHasNoEncoding()
{
    const DecodedOutput decoded = decodeOutput({}, u"CP936"_s);
    QVERIFY(decoded.text.isEmpty());
    QCOMPARE(decoded.decoding.basis, Basis::NoOutput);
    QVERIFY(decoded.decoding.encoding.isEmpty());
}

void tst_RunRecord::decodeAsUsesTheChosenEncoding()
{
    QCOMPARE(decodeAs(gbkChinese, u"ISO-8859-1"_s), u"\u00D6\u00D0\u00CE\u00C4"_s);
    QCOMPARE(decodeAs("\xFF\xFE" + utf16LE(u"ab"_s), u"UTF-16LE"_s), u"\uFEFFab"_s); // shown
    QCOMPARE(decodeAs("\xE4\xB8", u"UTF-8"_s), QString(QChar::ReplacementCharacter));
    if (!canConvert(u"CP936"_s))
        QSKIP("This system has no CP936 converter");
    QCOMPARE(decodeAs(gbkChinese, u"CP936"_s), u"中文"_s);
    // Wine has code page 936 but not 54936 (GB18030): then GB18030 is not offered either.
    if (canConvert(u"GB18030"_s))
        QCOMPARE(decodeAs(gbkChinese, u"GB18030"_s), u"中文"_s);
    bool offered = false;
    for (const EncodingChoice &choice : availableEncodings())
        offered = offered || choice.encoding == u"CP936"_s;
    QVERIFY(offered);
}

void tst_RunRecord::rowsPutACharacterWhereItsLastByteIs()
{
    if (!canConvert(u"CP936"_s))
        QSKIP("This system has no CP936 converter");
    // 15 ASCII bytes, then 中 across the row boundary, then 文.
    const QByteArray bytes = "0123456789abcde" + gbkChinese;
    const DecodedRows rows = decodeRows(bytes, 16, u"CP936"_s);
    QCOMPARE(rows.rowStarts.size(), 3);
    QCOMPARE(rows.row(0).toString(), u"0123456789abcde"_s);
    QCOMPARE(rows.row(1).toString(), u"中文"_s);
    QCOMPARE(rows.text, u"0123456789abcde中文"_s);
    // The same in UTF-8: 中 is E4 B8 AD.
    const DecodedRows utf8 = decodeRows("0123456789abcd\xE4\xB8\xAD!", 16, u"UTF-8"_s);
    QCOMPARE(utf8.row(0).toString(), u"0123456789abcd"_s);
    QCOMPARE(utf8.row(1).toString(), u"中!"_s);
}

void tst_RunRecord::rowsOfTheRunnersDecodingFollowItsLines()
{
    if (!canConvert(u"CP936"_s))
        QSKIP("This system has no CP936 converter");
    // A UTF-8 line and a GBK line, as a Python script on Chinese Windows mixes them.
    const QByteArray bytes = "utf8 \xE4\xB8\xAD\n" + gbkChinese + "\n";
    const DecodedOutput runner = decodeOutput(bytes, u"CP936"_s);
    const DecodedRows rows = decodeRows(bytes, 16, {}, runner.decoding, u"CP936"_s);
    QCOMPARE(rows.text, u"utf8 中\n中文\n"_s);
    QCOMPARE(rows.text, runner.text);
}

void tst_RunRecord::rawStreamKeepsItsLimitAndCountsTheRest()
{
    RawStream stream;
    stream.append(5, "0123", 10);
    stream.append(9, "456789abcd", 10);
    stream.append(12, "ef", 10);
    QCOMPARE(stream.bytes(), "0123456789");
    QCOMPARE(stream.totalBytes, 16);
    QCOMPARE(stream.droppedBytes, 6);
    QCOMPARE(stream.chunks.size(), 2);
    QCOMPARE(stream.chunks.at(1).atMs, 9);
    QCOMPARE(stream.chunks.at(1).bytes, "456789");
}

void tst_RunRecord::environmentChangesHideSecretValues()
{
    QProcessEnvironment base;
    base.insert(u"PATH"_s, u"/usr/bin"_s);
    base.insert(u"LANG"_s, u"C"_s);
    base.insert(u"OPENAI_API_KEY"_s, u"sk-env-test-secret"_s);
    base.insert(u"GITHUB_TOKEN"_s, u"ghp_oldsecretvalue"_s);
    QProcessEnvironment command = base;
    command.remove(u"OPENAI_API_KEY"_s);
    command.insert(u"LANG"_s, u"C.UTF-8"_s);
    command.insert(u"PYTHONUTF8"_s, u"1"_s);
    command.insert(u"GITHUB_TOKEN"_s, u"ghp_newsecretvalue"_s);
    const QList<EnvironmentChange> changes = environmentChanges(base, command);
    QCOMPARE(changes.size(), 4); // PATH is the same
    QCOMPARE(changes.at(0).name, u"GITHUB_TOKEN"_s);
    QCOMPARE(changes.at(0).kind, EnvironmentChange::Changed);
    QVERIFY(changes.at(0).valueHidden);
    QVERIFY(changes.at(0).value.isEmpty());
    QCOMPARE(changes.at(1).name, u"LANG"_s);
    QCOMPARE(changes.at(1).kind, EnvironmentChange::Changed);
    QCOMPARE(changes.at(1).value, u"C.UTF-8"_s);
    QCOMPARE(changes.at(2).name, u"OPENAI_API_KEY"_s);
    QCOMPARE(changes.at(2).kind, EnvironmentChange::Removed);
    QVERIFY(changes.at(2).value.isEmpty());
    QCOMPARE(changes.at(3).name, u"PYTHONUTF8"_s);
    QCOMPARE(changes.at(3).kind, EnvironmentChange::Added);
    QCOMPARE(changes.at(3).value, u"1"_s);
    QVERIFY(!changes.at(3).valueHidden);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_RunRecord)
#include "tst_runrecord.moc"
