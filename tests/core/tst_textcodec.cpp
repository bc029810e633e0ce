// Text files decoded and written back: encodings detected in order (BOM, UTF-8, GB18030, the
// legacy code page), strict refusal of what would not come back byte for byte, partial decoding
// of a file's beginning, and line endings.

#include "base/codepage.h"
#include "files/textcodec.h"
#include "testmain.h"

#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

// UTF-16 code units as bytes, written out by hand so that Qt's encoder is not its own oracle.
QByteArray utf16(QStringView text, bool littleEndian)
{
    QByteArray bytes;
    for (const QChar c : text) {
        const char low = char(c.unicode() & 0xFF);
        const char high = char(c.unicode() >> 8);
        bytes.append(littleEndian ? low : high);
        bytes.append(littleEndian ? high : low);
    }
    return bytes;
}

QByteArray utf16LE(QStringView text)
{
    return utf16(text, true);
}

QByteArray utf16BE(QStringView text)
{
    return utf16(text, false);
}

const QByteArray utf16LEBom("\xFF\xFE");
const QByteArray utf16BEBom("\xFE\xFF");
const QByteArray utf8Bom("\xEF\xBB\xBF");

// Wine 8 has no code page 54936: the Windows build under Wine cannot decode GB18030.
bool skipWithout(const QString &encoding)
{
    return !canConvert(encoding);
}

} // namespace

class tst_TextCodec : public QObject
{
    Q_OBJECT

private slots:
    void editKeepsEveryOtherByte_data();
    void editKeepsEveryOtherByte();
    void detection_data();
    void detection();
    void undecodable_data();
    void undecodable();
    void undecodableWithoutLegacyCodePage();
    void binary_data();
    void binary();
    void lineEndings_data();
    void lineEndings();
    void withLineEndings_data();
    void withLineEndings();
    void encodeWritesBom_data();
    void encodeWritesBom();
    void encodeRefusesUnencodable_data();
    void encodeRefusesUnencodable();
    void strictConversion_data();
    void strictConversion();
    void beginningOfLargeFile_data();
    void beginningOfLargeFile();
};

// A file of head + line + tail is decoded, the line is changed in the text, and the text is
// encoded again: the head's and the tail's bytes are exactly the file's.
void tst_TextCodec::editKeepsEveryOtherByte_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QByteArray>("tail");
    QTest::addColumn<QString>("legacy");
    QTest::addColumn<QString>("oldText");
    QTest::addColumn<QString>("newText");
    QTest::addColumn<QByteArray>("newLine");
    QTest::addColumn<QString>("encodingName");
    QTest::addColumn<QString>("lineEndings");

    // 中文 D6D0 CEC4 (GBK's two bytes), U+20000 95328236 and 😀 9439FC36 (four bytes), é A8A6,
    // ¥ 81308436 (four bytes in the BMP).
    QTest::newRow("GB18030, CRLF")
            << QByteArray("// \xD6\xD0\xCE\xC4 (GBK)\r\n") << QByteArray("x = \x95\x32\x82\x36;")
            << QByteArray("\r\nprint(\"\x94\x39\xFC\x36 caf\xA8\xA6\")\r\n") << QString()
            << u"x = \U00020000;"_s << u"y = 中文😀 é;"_s
            << QByteArray("y = \xD6\xD0\xCE\xC4\x94\x39\xFC\x36 \xA8\xA6;") << u"GB18030"_s
            << u"CRLF"_s;
    QTest::newRow("GB18030, LF, no final newline")
            << QByteArray("line 1 \xD6\xD0\n") << QByteArray("\xCE\xC4") << QByteArray()
            << QString() << u"文"_s << u"文 ¥ 𠀀"_s
            << QByteArray("\xCE\xC4 \x81\x30\x84\x36 \x95\x32\x82\x36") << u"GB18030"_s << u"LF"_s;
    // Thousands of lines around the edit: a stateless encoding writes each one back as it was.
    QByteArray manyLines;
    for (int i = 0; i < 2500; ++i)
        manyLines += "\xD6\xD0\xCE\xC4 " + QByteArray::number(i) + " \x94\x39\xFC\x36\r\n";
    QTest::newRow("GB18030, 5 000 lines around the edit")
            << manyLines << QByteArray("\x95\x32\x82\x36") << ("\r\n" + manyLines) << QString()
            << u"\U00020000"_s << u"中"_s << QByteArray("\xD6\xD0") << u"GB18030"_s << u"CRLF"_s;
    QTest::newRow("UTF-8, LF") << QByteArray("first\n") << QByteArray("caf\xC3\xA9")
                               << QByteArray("\nlast\n") << QString() << u"café"_s << u"café 中文"_s
                               << QByteArray("caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87") << u"UTF-8"_s
                               << u"LF"_s;
    QTest::newRow("UTF-8 with BOM, CRLF")
            << (utf8Bom + "a\r\n") << QByteArray("b") << QByteArray("\r\nc\r\n") << QString()
            << u"b"_s << u"B😀"_s << QByteArray("B\xF0\x9F\x98\x80") << u"UTF-8 with BOM"_s
            << u"CRLF"_s;
    QTest::newRow("UTF-16 LE with BOM, surrogate pairs")
            << (utf16LEBom + utf16LE(u"a😀\r\n")) << utf16LE(u"x😀") << utf16LE(u"\r\nz\r\n")
            << QString() << u"x😀"_s << u"y𠀀"_s << utf16LE(u"y𠀀") << u"UTF-16 LE with BOM"_s
            << u"CRLF"_s;
    QTest::newRow("UTF-16 BE with BOM, surrogate pairs")
            << (utf16BEBom + utf16BE(u"a\n")) << utf16BE(u"x😀") << utf16BE(u"\nz") << QString()
            << u"x😀"_s << u"y𠀀"_s << utf16BE(u"y𠀀") << u"UTF-16 BE with BOM"_s << u"LF"_s;
    QTest::newRow("mixed line endings")
            << QByteArray("a\r\n") << QByteArray("b") << QByteArray("\nc\r\nd\n") << QString()
            << u"b"_s << u"B"_s << QByteArray("B") << u"UTF-8"_s << u"mixed (CRLF and LF)"_s;
    QTest::newRow("no final newline")
            << QByteArray("a\n") << QByteArray("b") << QByteArray() << QString() << u"b"_s
            << u"bb"_s << QByteArray("bb") << u"UTF-8"_s << u"LF"_s;
    // "\xE9\n" is no GB18030 (its second byte must be 0x30 or more): the legacy code page decodes.
    QTest::newRow("CP1252 after GB18030 fails")
            << QByteArray("caf\xE9\n") << QByteArray("na\xEFve") << QByteArray("\n") << u"CP1252"_s
            << u"naïve"_s << u"naïve €"_s << QByteArray("na\xEFve \x80") << u"CP1252"_s << u"LF"_s;
}

void tst_TextCodec::editKeepsEveryOtherByte()
{
    QFETCH(QByteArray, head);
    QFETCH(QByteArray, line);
    QFETCH(QByteArray, tail);
    QFETCH(QString, legacy);
    QFETCH(QString, oldText);
    QFETCH(QString, newText);
    QFETCH(QByteArray, newLine);
    QFETCH(QString, encodingName);
    QFETCH(QString, lineEndings);
    if (encodingName == u"GB18030"_s && skipWithout(u"GB18030"_s))
        QSKIP("This system has no GB18030 converter (Wine 8 has no code page 54936)");
    if (!legacy.isEmpty() && skipWithout(legacy))
        QSKIP("This system has no converter for the legacy code page");

    const QByteArray file = head + line + tail;
    const DecodedText decoded = decodeText(file, true, legacy);
    QVERIFY2(decoded.ok(), qPrintable(decoded.errorDetail));
    QCOMPARE(decoded.format.encodingName(), encodingName);
    QCOMPARE(decoded.format.lineEndingsName(), lineEndings);
    QCOMPARE(decoded.decodedBytes, file.size());
    QCOMPARE(decoded.text.count(oldText), 1);

    // Unchanged, the text is the file again.
    const EncodedText same = encodeText(decoded.text, decoded.format);
    QCOMPARE(same.unencodable, QString());
    QCOMPARE(same.bytes, file);

    QString edited = decoded.text;
    edited.replace(oldText, newText);
    const EncodedText written = encodeText(edited, decoded.format);
    QCOMPARE(written.unencodable, QString());
    QCOMPARE(written.bytes.size(), head.size() + newLine.size() + tail.size());
    QCOMPARE(written.bytes.first(head.size()), head);
    QCOMPARE(written.bytes.sliced(head.size(), newLine.size()), newLine);
    QCOMPARE(written.bytes.sliced(head.size() + newLine.size()), tail);
}

void tst_TextCodec::detection_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("legacy");
    QTest::addColumn<bool>("complete");
    QTest::addColumn<QString>("encodingName");
    QTest::addColumn<QString>("text");
    QTest::addColumn<qsizetype>("decodedBytes");

    QTest::newRow("empty file") << QByteArray() << QString() << true << u"UTF-8"_s << QString()
                                << qsizetype(0);
    QTest::newRow("UTF-8 BOM only")
            << utf8Bom << QString() << true << u"UTF-8 with BOM"_s << QString() << qsizetype(3);
    QTest::newRow("UTF-16 LE BOM only") << utf16LEBom << QString() << true
                                        << u"UTF-16 LE with BOM"_s << QString() << qsizetype(2);
    QTest::newRow("a second BOM is text") << (utf8Bom + utf8Bom + "a") << QString() << true
                                          << u"UTF-8 with BOM"_s << u"\uFEFFa"_s << qsizetype(7);
    QTest::newRow("ASCII") << QByteArray("int main() {}\n") << u"CP1252"_s << true << u"UTF-8"_s
                           << u"int main() {}\n"_s << qsizetype(14);
    QTest::newRow("UTF-8 before GB18030") << QByteArray("\xE4\xB8\xAD\xE6\x96\x87") << QString()
                                          << true << u"UTF-8"_s << u"中文"_s << qsizetype(6);
    QTest::newRow("GBK is GB18030") << QByteArray("\xD6\xD0\xCE\xC4") << QString() << true
                                    << u"GB18030"_s << u"中文"_s << qsizetype(4);
    // The order decides: bytes GB18030 can read are GB18030, even when CP1252 meant "cafés".
    QTest::newRow("GB18030 before the legacy code page")
            << QByteArray("caf\xE9s") << u"CP1252"_s << true << u"GB18030"_s << u"caf閟"_s
            << qsizetype(5);
    QTest::newRow("legacy code page last") << QByteArray("caf\xE9") << u"CP1252"_s << true
                                           << u"CP1252"_s << u"café"_s << qsizetype(4);
    QTest::newRow("the legacy code page GB18030 is not tried twice")
            << QByteArray("caf\xE9") << u"GB18030"_s << true << QString() << QString()
            << qsizetype(0);
    // A UTF-8 file cut inside a character is other text as a whole file.
    QTest::newRow("complete: a cut UTF-8 character is GB18030")
            << QByteArray("ab\xE4\xB8") << QString() << true << u"GB18030"_s << u"ab涓"_s
            << qsizetype(4);
    QTest::newRow("UTF-16 LE with a surrogate pair")
            << (utf16LEBom + utf16LE(u"a😀")) << QString() << true << u"UTF-16 LE with BOM"_s
            << u"a😀"_s << qsizetype(8);
    QTest::newRow("UTF-16 BE with a surrogate pair")
            << (utf16BEBom + utf16BE(u"a😀")) << QString() << true << u"UTF-16 BE with BOM"_s
            << u"a😀"_s << qsizetype(8);

    // The beginning of a longer file: a character cut at the end is left out.
    QTest::newRow("beginning: whole characters")
            << QByteArray("abc") << QString() << false << u"UTF-8"_s << u"abc"_s << qsizetype(3);
    QTest::newRow("beginning: cut UTF-8 character")
            << QByteArray("ab\xE4\xB8") << QString() << false << u"UTF-8"_s << u"ab"_s
            << qsizetype(2);
    QTest::newRow("beginning: cut UTF-8 emoji")
            << QByteArray("\xF0\x9F\x98\x80\xF0\x9F\x98") << QString() << false << u"UTF-8"_s
            << u"😀"_s << qsizetype(4);
    QTest::newRow("beginning: BOM and a cut character")
            << (utf8Bom + "\xE4") << QString() << false << u"UTF-8 with BOM"_s << QString()
            << qsizetype(3);
    QTest::newRow("beginning: cut GB18030 two-byte character")
            << QByteArray("\xD6\xD0\xCE") << QString() << false << u"GB18030"_s << u"中"_s
            << qsizetype(2);
    QTest::newRow("beginning: GB18030 four-byte character cut after 1")
            << QByteArray("\xD6\xD0\x95") << QString() << false << u"GB18030"_s << u"中"_s
            << qsizetype(2);
    QTest::newRow("beginning: GB18030 four-byte character cut after 2")
            << QByteArray("\xD6\xD0\x95\x32") << QString() << false << u"GB18030"_s << u"中"_s
            << qsizetype(2);
    QTest::newRow("beginning: GB18030 four-byte character cut after 3")
            << QByteArray("\xD6\xD0\x95\x32\x82") << QString() << false << u"GB18030"_s << u"中"_s
            << qsizetype(2);
    QTest::newRow("beginning: UTF-16 LE cut inside a code unit")
            << (utf16LEBom + utf16LE(u"ab") + "c") << QString() << false << u"UTF-16 LE with BOM"_s
            << u"ab"_s << qsizetype(6);
    QTest::newRow("beginning: UTF-16 LE cut inside a surrogate pair")
            << (utf16LEBom + utf16LE(u"a😀").chopped(2)) << QString() << false
            << u"UTF-16 LE with BOM"_s << u"a"_s << qsizetype(4);
    QTest::newRow("beginning: UTF-16 BE cut inside a surrogate pair")
            << (utf16BEBom + utf16BE(u"a😀").chopped(1)) << QString() << false
            << u"UTF-16 BE with BOM"_s << u"a"_s << qsizetype(4);
}

void tst_TextCodec::detection()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, legacy);
    QFETCH(bool, complete);
    QFETCH(QString, encodingName);
    QFETCH(QString, text);
    QFETCH(qsizetype, decodedBytes);
    if ((encodingName == u"GB18030"_s || legacy == u"GB18030"_s) && skipWithout(u"GB18030"_s))
        QSKIP("This system has no GB18030 converter (Wine 8 has no code page 54936)");
    if (!legacy.isEmpty() && skipWithout(legacy))
        QSKIP("This system has no converter for the legacy code page");

    const DecodedText decoded = decodeText(bytes, complete, legacy);
    if (encodingName.isEmpty()) {
        QCOMPARE(decoded.errorCode, u"undecodable"_s);
        return;
    }
    QVERIFY2(decoded.ok(), qPrintable(decoded.errorDetail));
    QCOMPARE(decoded.format.encodingName(), encodingName);
    QCOMPARE(decoded.text, text);
    QCOMPARE(decoded.decodedBytes, decodedBytes);
    if (complete) {
        const EncodedText back = encodeText(decoded.text, decoded.format);
        QCOMPARE(back.unencodable, QString());
        QCOMPARE(back.bytes, bytes);
    }
}

void tst_TextCodec::undecodable_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("legacy");
    QTest::addColumn<bool>("complete");
    QTest::addColumn<QString>("utf8Failure");
    QTest::addColumn<QString>("otherFailure"); // GB18030's, when this system has it; or legacy's

    QTest::newRow("neither UTF-8 nor GB18030") << QByteArray("abc\x81\x20z") << QString() << true
                                               << u"UTF-8 fails at byte offset 3 (81 20 7A)"_s
                                               << u"GB18030 fails at byte offset 3 (81 20 7A)"_s;
    QTest::newRow("ends inside a GB18030 character")
            << QByteArray("\xD6\xD0\xCE") << QString() << true
            << u"UTF-8 fails at byte offset 0 (D6 D0 CE)"_s
            << u"GB18030 fails at byte offset 2: the file ends inside a character (CE)"_s;
    QTest::newRow("ends inside a character of both")
            << QByteArray("ab\xE4") << QString() << true
            << u"UTF-8 fails at byte offset 2: the file ends inside a character (E4)"_s
            << u"GB18030 fails at byte offset 2: the file ends inside a character (E4)"_s;
    QTest::newRow("a bad byte is no cut character, not even at the beginning")
            << QByteArray("abc\x81\x20z") << QString() << false
            << u"UTF-8 fails at byte offset 3 (81 20 7A)"_s
            << u"GB18030 fails at byte offset 3 (81 20 7A)"_s;
    // NEC's ≒ (87 90) reads as U+2252, which CP932 writes as JIS's 81 E0.
    QTest::newRow("not written back byte for byte")
            << QByteArray("\x87\x90\xB1") << u"CP932"_s << true
            << u"UTF-8 fails at byte offset 0 (87 90 B1)"_s
            << u"CP932 decodes it, but it would not be written back byte for byte (the bytes from "
               "offset 0, 87 90 B1, would be written as 81 E0 B1)"_s;
    QTest::newRow("UTF-8 BOM, then no UTF-8")
            << (utf8Bom + "a\xFF") << u"CP1252"_s << true
            << u"UTF-8 with BOM fails at byte offset 4 (FF)"_s << QString();
    QTest::newRow("UTF-16 LE, lone surrogate")
            << (utf16LEBom
                + QByteArray("a\0\0\xD8"
                             "b\0",
                             6))
            << QString() << true << u"UTF-16 LE with BOM fails at byte offset 4 (00 D8 62 00)"_s
            << QString();
    QTest::newRow("UTF-16 BE, odd length")
            << (utf16BEBom + utf16BE(u"a") + "b") << QString() << true
            << u"UTF-16 BE with BOM fails at byte offset 4: the file ends inside a character (62)"_s
            << QString();
    QTest::newRow("UTF-16 LE, ends inside a surrogate pair")
            << (utf16LEBom + utf16LE(u"a😀").chopped(2)) << QString() << true
            << u"UTF-16 LE with BOM fails at byte offset 4: the file ends inside a character (3D D8)"_s
            << QString();
}

void tst_TextCodec::undecodable()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, legacy);
    QFETCH(bool, complete);
    QFETCH(QString, utf8Failure);
    QFETCH(QString, otherFailure);
    if (!legacy.isEmpty() && skipWithout(legacy))
        QSKIP("This system has no converter for the legacy code page");

    const DecodedText decoded = decodeText(bytes, complete, legacy);
    QCOMPARE(decoded.errorCode, u"undecodable"_s);
    QCOMPARE(decoded.text, QString());
    QCOMPARE(decoded.decodedBytes, qsizetype(0));
    QVERIFY2(decoded.errorDetail.startsWith(u"The file is not text in any encoding tried: "_s),
             qPrintable(decoded.errorDetail));
    QVERIFY2(decoded.errorDetail.contains(utf8Failure), qPrintable(decoded.errorDetail));
    // Without a GB18030 converter (Wine) GBK sources are tried as CP936, which fails alike here.
    if (otherFailure.startsWith(u"GB18030"_s) && skipWithout(u"GB18030"_s))
        otherFailure.replace(u"GB18030"_s, u"CP936"_s);
    QVERIFY2(decoded.errorDetail.contains(otherFailure), qPrintable(decoded.errorDetail));
}

// The public decodeText() tries the system's legacy code page, which the C.UTF-8 locale the
// tests run in has not.
void tst_TextCodec::undecodableWithoutLegacyCodePage()
{
    if (!systemLegacyEncoding().isEmpty())
        QSKIP("This system has a legacy code page (on Windows there always is one)");
    const DecodedText decoded = decodeText("\x81\x20");
    QCOMPARE(decoded.errorCode, u"undecodable"_s);
    QVERIFY2(decoded.errorDetail.contains(u"UTF-8 fails at byte offset 0 (81 20)"_s),
             qPrintable(decoded.errorDetail));
}

void tst_TextCodec::binary_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("errorDetail"); // empty: text

    QTest::newRow("NUL in the first 8 KiB")
            << QByteArray("abc\0def", 7)
            << u"The file looks binary: it has a NUL byte at offset 3."_s;
    QTest::newRow("UTF-8 BOM and a NUL")
            << (utf8Bom + QByteArray("a\0", 2))
            << u"The file looks binary: it has a NUL byte at offset 4."_s;
    QTest::newRow("NUL after 8 KiB") << (QByteArray(8192, 'a') + QByteArray(1, '\0')) << QString();
    QTest::newRow("UTF-16 LE with BOM") << (utf16LEBom + utf16LE(u"a\nb")) << QString();
    QTest::newRow("UTF-16 BE with BOM") << (utf16BEBom + utf16BE(u"a\nb")) << QString();
}

void tst_TextCodec::binary()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, errorDetail);

    QCOMPARE(looksBinary(bytes), !errorDetail.isEmpty());
    const DecodedText decoded = decodeText(bytes, true, QString());
    if (errorDetail.isEmpty()) {
        QVERIFY2(decoded.ok(), qPrintable(decoded.errorDetail));
        QCOMPARE(decoded.decodedBytes, bytes.size());
        return;
    }
    QCOMPARE(decoded.errorCode, u"binary_file"_s);
    QCOMPARE(decoded.errorDetail, errorDetail);
    QCOMPARE(decoded.text, QString());
}

void tst_TextCodec::lineEndings_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("lineEndings");
    QTest::addColumn<bool>("finalNewline");
    QTest::addColumn<QString>("newline");

    QTest::newRow("empty") << QByteArray() << u"none"_s << false << u"\n"_s;
    QTest::newRow("one line, no break") << QByteArray("abc") << u"none"_s << false << u"\n"_s;
    QTest::newRow("LF") << QByteArray("a\nb\n") << u"LF"_s << true << u"\n"_s;
    QTest::newRow("CRLF") << QByteArray("a\r\nb\r\n") << u"CRLF"_s << true << u"\r\n"_s;
    QTest::newRow("CRLF, no final newline")
            << QByteArray("a\r\nb") << u"CRLF"_s << false << u"\r\n"_s;
    QTest::newRow("mixed, more CRLF")
            << QByteArray("a\r\nb\nc\r\n") << u"mixed (CRLF and LF)"_s << true << u"\r\n"_s;
    QTest::newRow("mixed, more LF")
            << QByteArray("a\nb\nc\r\n") << u"mixed (CRLF and LF)"_s << true << u"\n"_s;
    QTest::newRow("mixed, as many of each")
            << QByteArray("a\nb\r\n") << u"mixed (CRLF and LF)"_s << true << u"\n"_s;
    // Classic Mac OS line breaks are no line breaks here: "\r" is a character of its line.
    QTest::newRow("lone CR") << QByteArray("a\rb\r") << u"none"_s << false << u"\n"_s;
    QTest::newRow("lone CR beside LF") << QByteArray("a\rb\n") << u"LF"_s << true << u"\n"_s;
}

void tst_TextCodec::lineEndings()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, lineEndings);
    QFETCH(bool, finalNewline);
    QFETCH(QString, newline);

    const DecodedText decoded = decodeText(bytes, true, QString());
    QVERIFY2(decoded.ok(), qPrintable(decoded.errorDetail));
    QCOMPARE(decoded.format.lineEndingsName(), lineEndings);
    QCOMPARE(decoded.format.finalNewline, finalNewline);
    QCOMPARE(decoded.format.newline(), newline);
    QCOMPARE(lineEndingsOf(decoded.text), decoded.format.lineEndings);
}

void tst_TextCodec::withLineEndings_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("newline");
    QTest::addColumn<QString>("expected");

    QTest::newRow("mixed to CRLF") << u"a\nb\r\nc"_s << u"\r\n"_s << u"a\r\nb\r\nc"_s;
    QTest::newRow("mixed to LF") << u"a\nb\r\nc\r\n"_s << u"\n"_s << u"a\nb\nc\n"_s;
    QTest::newRow("lone CR stays") << u"a\rb\n"_s << u"\r\n"_s << u"a\rb\r\n"_s;
    QTest::newRow("CR before CRLF") << u"a\r\r\n"_s << u"\n"_s << u"a\r\n"_s;
    QTest::newRow("empty lines") << u"\n\n"_s << u"\r\n"_s << u"\r\n\r\n"_s;
    QTest::newRow("no line break") << u"abc"_s << u"\r\n"_s << u"abc"_s;
}

void tst_TextCodec::withLineEndings()
{
    QFETCH(QString, text);
    QFETCH(QString, newline);
    QFETCH(QString, expected);
    QCOMPARE(AgentLoop::withLineEndings(text, newline), expected);
}

void tst_TextCodec::encodeWritesBom_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("encoding");
    QTest::addColumn<bool>("bom");
    QTest::addColumn<QByteArray>("bytes");

    using Encoding = TextFormat::Encoding;
    QTest::newRow("UTF-8 BOM alone") << QString() << int(Encoding::Utf8) << true << utf8Bom;
    QTest::newRow("UTF-8 with BOM")
            << u"é"_s << int(Encoding::Utf8) << true << (utf8Bom + "\xC3\xA9");
    QTest::newRow("UTF-8 without BOM")
            << u"é"_s << int(Encoding::Utf8) << false << QByteArray("\xC3\xA9");
    QTest::newRow("UTF-16 LE BOM alone")
            << QString() << int(Encoding::Utf16LE) << true << utf16LEBom;
    QTest::newRow("UTF-16 LE with BOM") << u"a😀"_s << int(Encoding::Utf16LE) << true
                                        << QByteArray("\xFF\xFE"
                                                      "a\0\x3D\xD8\x00\xDE",
                                                      8);
    QTest::newRow("UTF-16 BE with BOM") << u"a😀"_s << int(Encoding::Utf16BE) << true
                                        << QByteArray("\xFE\xFF\0a\xD8\x3D\xDE\x00", 8);
}

void tst_TextCodec::encodeWritesBom()
{
    QFETCH(QString, text);
    QFETCH(int, encoding);
    QFETCH(bool, bom);
    QFETCH(QByteArray, bytes);

    TextFormat format;
    format.encoding = TextFormat::Encoding(encoding);
    format.bom = bom;
    const EncodedText encoded = encodeText(text, format);
    QCOMPARE(encoded.unencodable, QString());
    QCOMPARE(encoded.bytes, bytes);
    const DecodedText decoded = decodeText(encoded.bytes, true, QString());
    QCOMPARE(decoded.format.encodingName(), format.encodingName());
    QCOMPARE(decoded.text, text);
}

void tst_TextCodec::encodeRefusesUnencodable_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("encoding");
    QTest::addColumn<QString>("legacyName");
    QTest::addColumn<QString>("unencodable");

    using Encoding = TextFormat::Encoding;
    const QString loneSurrogate = u"ok\nab"_s + QChar(0xD800) + u"c"_s;
    QTest::newRow("CP1252 has no Chinese") << u"a €\n中b"_s << int(Encoding::Legacy) << u"CP1252"_s
                                           << u"\"中\" (U+4E2D) on line 2"_s;
    QTest::newRow("CP1252 has no emoji")
            << u"ok 😀"_s << int(Encoding::Legacy) << u"CP1252"_s << u"\"😀\" (U+1F600) on line 1"_s;
    QTest::newRow("lone surrogate, UTF-8") << loneSurrogate << int(Encoding::Utf8) << QString()
                                           << u"U+D800 (half of a surrogate pair) on line 2"_s;
    QTest::newRow("lone surrogate, UTF-16 LE")
            << loneSurrogate << int(Encoding::Utf16LE) << QString()
            << u"U+D800 (half of a surrogate pair) on line 2"_s;
    QTest::newRow("lone surrogate, GB18030") << loneSurrogate << int(Encoding::Gb18030) << QString()
                                             << u"U+D800 (half of a surrogate pair) on line 2"_s;
}

void tst_TextCodec::encodeRefusesUnencodable()
{
    QFETCH(QString, text);
    QFETCH(int, encoding);
    QFETCH(QString, legacyName);
    QFETCH(QString, unencodable);
    if (!legacyName.isEmpty() && skipWithout(legacyName))
        QSKIP("This system has no converter for the legacy code page");

    TextFormat format;
    format.encoding = TextFormat::Encoding(encoding);
    format.legacyName = legacyName;
    const EncodedText encoded = encodeText(text, format);
    QCOMPARE(encoded.unencodable, unencodable);
    QCOMPARE(encoded.bytes, QByteArray());
}

// base/codepage's strict conversions, which the legacy encodings go through: where a decoding
// fails, and whether only the end came too early. CP936 runs under Wine too (Windows' walk).
void tst_TextCodec::strictConversion_data()
{
    QTest::addColumn<QString>("encoding");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("text"); // when it decodes
    QTest::addColumn<qsizetype>("offset");
    QTest::addColumn<bool>("cut");

    QTest::newRow("GB18030, two- and four-byte characters")
            << u"GB18030"_s << QByteArray("\xD6\xD0\x95\x32\x82\x36") << u"中\U00020000"_s
            << qsizetype(-1) << false;
    QTest::newRow("GB18030, bad pair") << u"GB18030"_s
                                       << QByteArray("ab\x81\x20"
                                                     "cdef")
                                       << QString() << qsizetype(2) << false;
    QTest::newRow("GB18030, 0x80 is no character") << u"GB18030"_s
                                                   << QByteArray("a\x80"
                                                                 "bcd")
                                                   << QString() << qsizetype(1) << false;
    QTest::newRow("GB18030, cut four-byte character")
            << u"GB18030"_s << QByteArray("ab\x95\x32\x82") << QString() << qsizetype(2) << true;
    QTest::newRow("CP936, two-byte characters")
            << u"CP936"_s << QByteArray("\xD6\xD0\xCE\xC4") << u"中文"_s << qsizetype(-1) << false;
    QTest::newRow("CP936, bad pair") << u"CP936"_s
                                     << QByteArray("ab\x81\x20"
                                                   "cd")
                                     << QString() << qsizetype(2) << false;
    QTest::newRow("CP936, cut character")
            << u"CP936"_s << QByteArray("ab\xD6") << QString() << qsizetype(2) << true;
    QTest::newRow("CP936, bad pair far in")
            << u"CP936"_s << (QByteArray(100000, 'a') + "\x81\x20" + QByteArray(10, 'b'))
            << QString() << qsizetype(100000) << false;
}

void tst_TextCodec::strictConversion()
{
    QFETCH(QString, encoding);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, text);
    QFETCH(qsizetype, offset);
    QFETCH(bool, cut);
    if (skipWithout(encoding))
        QSKIP("This system has no converter for the encoding (Wine 8 has no code page 54936)");

    DecodingFailure failure;
    const std::optional<QString> decoded = decodeStrictly(encoding, bytes, &failure);
    QCOMPARE(decoded.has_value(), !text.isEmpty());
    if (decoded) {
        QCOMPARE(*decoded, text);
        const std::optional<QByteArray> encoded = encodeStrictly(encoding, *decoded);
        QVERIFY(encoded);
        QCOMPARE(*encoded, bytes);
        return;
    }
    QCOMPARE(failure.offset, offset);
    QCOMPARE(failure.cut, cut);
}

// read_file decodes only the first 256 KiB of a large file, cut wherever they end.
void tst_TextCodec::beginningOfLargeFile_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<qsizetype>("cutAt"); // inside the line's last character but the line break
    QTest::addColumn<qsizetype>("lastCharacter");
    QTest::addColumn<QString>("encodingName");
    QTest::addColumn<QString>("lastLineStart");

    // x 中文 😀 CRLF
    QTest::newRow("GB18030") << QByteArray("x \xD6\xD0\xCE\xC4 \x94\x39\xFC\x36\r\n")
                             << qsizetype(9) << qsizetype(7) << u"GB18030"_s << u"x 中文 "_s;
    QTest::newRow("UTF-8") << QByteArray("x \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80\r\n")
                           << qsizetype(12) << qsizetype(9) << u"UTF-8"_s << u"x 中文 "_s;
}

void tst_TextCodec::beginningOfLargeFile()
{
    QFETCH(QByteArray, line);
    QFETCH(qsizetype, cutAt);
    QFETCH(qsizetype, lastCharacter);
    QFETCH(QString, encodingName);
    QFETCH(QString, lastLineStart);
    if (encodingName == u"GB18030"_s && skipWithout(u"GB18030"_s))
        QSKIP("This system has no GB18030 converter (Wine 8 has no code page 54936)");

    const qsizetype lines = 256 * 1024 / line.size();
    const QByteArray beginning = line.repeated(lines) + line.first(cutAt);
    // Its speed is bench/'s to measure (case 8, read_file of a 100 MB file).
    const DecodedText decoded = decodeText(beginning, false, QString());
    QVERIFY2(decoded.ok(), qPrintable(decoded.errorDetail));
    QCOMPARE(decoded.format.encodingName(), encodingName);
    QCOMPARE(decoded.format.lineEndingsName(), u"CRLF"_s);
    QCOMPARE(decoded.decodedBytes, lines * line.size() + lastCharacter);
    QCOMPARE(decoded.text.count(u"\r\n"_s), lines);
    QVERIFY(decoded.text.endsWith(u"😀\r\n"_s + lastLineStart));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_TextCodec)
#include "tst_textcodec.moc"
