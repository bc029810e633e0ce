// redacted(): the key in every encoding a command or a provider commonly writes it in is masked
// wherever output is recorded or shown; everything else is left as it is, and not copied.

#include "base/redaction.h"
#include "leaksearch.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

// Shaped like a real key: letters, digits, '-' and '_'.
const QString key = u"sk-proj-4fQ9zR_t7Kp2LmX8vWbN3cYhJ6dGsA1e"_s;
// Its base64 has '+' and '/' at every alignment ('~' and '?' end in 111110 and 111111), so that
// base64url is a different text.
const QString urlKey = u"sk-url~~~???_0123456789abcdef"_s;
// For \/ and for characters outside ASCII.
const QString slashKey = u"sk-a/b/c-0123456789"_s;
const QString accentKey = u"clé-secrète-€-0123456789"_s;

QByteArray utf8(const QString &text)
{
    return text.toUtf8();
}

QByteArray utf16(const QString &text, bool littleEndian)
{
    QByteArray bytes;
    for (const QChar c : text) {
        const char low = char(c.unicode() & 0xff);
        const char high = char(c.unicode() >> 8);
        if (littleEndian)
            bytes.append(low).append(high);
        else
            bytes.append(high).append(low);
    }
    return bytes;
}

QByteArray hex4(uint unit, bool upper)
{
    const QByteArray digits = QByteArray::number(unit, 16).rightJustified(4, '0');
    return upper ? digits.toUpper() : digits;
}

// Every UTF-16 unit of text as \uXXXX, or only those at odd positions.
QByteArray jsonEscaped(const QString &text, bool upper, bool everyOther = false)
{
    QByteArray escaped;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (everyOther && i % 2 == 0 && c.unicode() < 0x80)
            escaped.append(char(c.unicode()));
        else
            escaped.append("\\u").append(hex4(c.unicode(), upper));
    }
    return escaped;
}

// Every byte as %xx, or only those at odd positions.
QByteArray urlEncoded(const QByteArray &bytes, bool upper, bool everyOther = false)
{
    QByteArray encoded;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        if (everyOther && i % 2 == 0 && uchar(bytes.at(i)) < 0x80) {
            encoded.append(bytes.at(i));
            continue;
        }
        const QByteArray digits = QByteArray(1, bytes.at(i)).toHex();
        encoded.append('%').append(upper ? digits.toUpper() : digits);
    }
    return encoded;
}

// The key inside a longer base64 text: three bytes of "lead" (the first four characters, which
// must survive), `alignment` more bytes, the key, then a tail.
QByteArray base64Around(const QString &secret, int alignment, bool url)
{
    const QByteArray input = "lea" + QByteArray("xy").left(alignment) + secret.toUtf8()
                             + " and the rest of the text";
    return input.toBase64(url ? QByteArray::Base64UrlEncoding : QByteArray::Base64Encoding);
}

QByteArray marker16(bool littleEndian)
{
    return utf16(QString::fromLatin1(redactedMarker), littleEndian);
}

QString hitsOf(const QByteArray &bytes, const QString &secret)
{
    return keyHits(bytes, u"result"_s, keyNeedles(secret)).join(u'\n');
}

} // namespace

class tst_Redaction : public QObject
{
    Q_OBJECT

private slots:
    void bytes_data();
    void bytes();
    void text_data();
    void text();
    void exactResult_data();
    void exactResult();
    void unauthorizedBodyWithEscapedKey();
    void withoutTheKeyNothingChanges_data();
    void withoutTheKeyNothingChanges();
    void shortKeysAreNotRedacted_data();
    void shortKeysAreNotRedacted();
    void maskedTextLeadsBackToTheOriginal();
};

void tst_Redaction::bytes_data()
{
    QTest::addColumn<QString>("secret");
    QTest::addColumn<QByteArray>("input");
    // What must still be there, and how many markers replace the key.
    QTest::addColumn<QByteArrayList>("kept");
    QTest::addColumn<QByteArray>("marker");
    QTest::addColumn<int>("markers");

    const QByteArray plain(redactedMarker);
    const QByteArrayList around{"before ", " after"};
    QTest::newRow("plain") << key << "before " + utf8(key) + " after" << around << plain << 1;
    QTest::newRow("plain, whole text") << key << utf8(key) << QByteArrayList{} << plain << 1;
    QTest::newRow("twice") << key << "a " + utf8(key) + " b " + utf8(key) + " c"
                           << QByteArrayList{"a ", " b ", " c"} << plain << 2;
    QTest::newRow("back to back") << key << utf8(key) + utf8(key) << QByteArrayList{} << plain << 2;
    QTest::newRow("plain and base64")
            << key << "env: " + utf8(key) + "\nb64: " + utf8(key).toBase64() + "\n"
            << QByteArrayList{"env: ", "\nb64: "} << plain << 2;

    for (int alignment = 0; alignment < 3; ++alignment) {
        for (const bool url : {false, true}) {
            const QString &secret = url ? urlKey : key;
            const QByteArray encoded = base64Around(secret, alignment, url);
            QTest::addRow("base64%s, key at offset %d mod 3", url ? "url" : "", alignment)
                    << secret << "data: " + encoded + "\n"
                    << QByteArrayList{"data: " + encoded.left(4)} << plain << 1;
        }
    }
    QTest::newRow("base64 -w0 of the whole key, padded") << key << utf8(key).toBase64() + "\n"
                                                         << QByteArrayList{"\n"} << plain << 1;
    QTest::newRow("base64url, standard alphabet differs")
            << urlKey << utf8(urlKey).toBase64(QByteArray::Base64UrlEncoding) << QByteArrayList{}
            << plain << 1;

    QTest::newRow("URL-encoded, lower case hex")
            << key << "q=" + urlEncoded(utf8(key), false) + "&x=1" << QByteArrayList{"q=", "&x=1"}
            << plain << 1;
    QTest::newRow("URL-encoded, upper case hex")
            << key << "q=" + urlEncoded(utf8(key), true) + "&x=1" << QByteArrayList{"q=", "&x=1"}
            << plain << 1;
    QTest::newRow("URL-encoded, mixed with literal characters")
            << key << "q=" + urlEncoded(utf8(key), true, true) + "&x=1"
            << QByteArrayList{"q=", "&x=1"} << plain << 1;
    QByteArray mixedCase = urlEncoded(utf8(key), false);
    for (qsizetype i = 0; i < mixedCase.size(); i += 6)
        mixedCase[i + 2] = QChar::toUpper(mixedCase.at(i + 2));
    QTest::newRow("URL-encoded, hex case mixed")
            << key << mixedCase << QByteArrayList{} << plain << 1;
    QTest::newRow("URL-encoded, outside ASCII")
            << accentKey << "q=" + urlEncoded(utf8(accentKey), false, true) << QByteArrayList{"q="}
            << plain << 1;

    QTest::newRow("hex, lower case")
            << key << "0x" + utf8(key).toHex() + "." << QByteArrayList{"0x", "."} << plain << 1;
    QTest::newRow("hex, upper case") << key << "0x" + utf8(key).toHex().toUpper() + "."
                                     << QByteArrayList{"0x", "."} << plain << 1;

    const QByteArrayList quoted{R"({"message":")", R"("})"};
    QTest::newRow("JSON, every character \\u, lower case hex")
            << key << R"({"message":")" + jsonEscaped(key, false) + R"("})" << quoted << plain << 1;
    QTest::newRow("JSON, every character \\u, upper case hex")
            << key << R"({"message":")" + jsonEscaped(key, true) + R"("})" << quoted << plain << 1;
    QTest::newRow("JSON, every other character \\u")
            << key << R"({"message":")" + jsonEscaped(key, false, true) + R"("})" << quoted << plain
            << 1;
    QTest::newRow("JSON, \\/") << slashKey
                               << R"({"message":")" + utf8(slashKey).replace("/", "\\/") + R"("})"
                               << quoted << plain << 1;
    QTest::newRow("JSON, \\/ and \\u mixed")
            << slashKey
            << R"({"message":")" + jsonEscaped(slashKey, true, true).replace("\\u002F", "\\/")
                       + R"("})"
            << quoted << plain << 1;
    QTest::newRow("JSON, outside ASCII, literal and \\u")
            << accentKey << R"({"message":")" + jsonEscaped(accentKey, false, true) + R"("})"
            << quoted << plain << 1;
    QTest::newRow("JSON and URL escapes in one key")
            << key << "x" + jsonEscaped(key.left(10), false) + urlEncoded(utf8(key.mid(10)), true)
            << QByteArrayList{"x"} << plain << 1;

    QTest::newRow("UTF-16LE") << key << utf16(u"before "_s + key + u" after"_s, true)
                              << QByteArrayList{utf16(u"before "_s, true), utf16(u" after"_s, true)}
                              << marker16(true) << 1;
    QTest::newRow("UTF-16BE") << key << utf16(u"before "_s + key + u" after"_s, false)
                              << QByteArrayList{utf16(u"before "_s, false),
                                                utf16(u" after"_s, false)}
                              << marker16(false) << 1;
    QTest::newRow("UTF-16LE, at an odd offset")
            << key << "x" + utf16(key + u" after"_s, true)
            << QByteArrayList{utf16(u" after"_s, true)} << marker16(true) << 1;
    QTest::newRow("UTF-16LE, outside ASCII")
            << accentKey << utf16(accentKey, true) << QByteArrayList{} << marker16(true) << 1;
}

void tst_Redaction::bytes()
{
    QFETCH(QString, secret);
    QFETCH(QByteArray, input);
    QFETCH(QByteArrayList, kept);
    QFETCH(QByteArray, marker);
    QFETCH(int, markers);
    // The row is meaningful: the key is in the input, in the encoding the row names.
    QVERIFY(!hitsOf(input, secret).isEmpty());

    const QByteArray result = redacted(input, secret);
    QVERIFY2(hitsOf(result, secret).isEmpty(), qPrintable(hitsOf(result, secret)));
    QCOMPARE(result.count(marker), markers);
    for (const QByteArray &piece : std::as_const(kept))
        QVERIFY2(result.contains(piece), piece.constData());
}

void tst_Redaction::text_data()
{
    QTest::addColumn<QString>("secret");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QStringList>("kept");
    QTest::addColumn<int>("markers");

    const QStringList around{u"before "_s, u" after"_s};
    const auto text = [](const QByteArray &bytes) {
        return QString::fromUtf8(bytes);
    };
    QTest::newRow("plain") << key << u"before "_s + key + u" after"_s << around << 1;
    QTest::newRow("plain, outside ASCII")
            << accentKey << u"before "_s + accentKey + u" after"_s << around << 1;
    QTest::newRow("twice") << key << key + u" and "_s + key << QStringList{u" and "_s} << 2;
    for (int alignment = 0; alignment < 3; ++alignment) {
        for (const bool url : {false, true}) {
            const QString &secret = url ? urlKey : key;
            const QByteArray encoded = base64Around(secret, alignment, url);
            QTest::addRow("base64%s, key at offset %d mod 3", url ? "url" : "", alignment)
                    << secret << text("$ cat | base64 -w0\n" + encoded)
                    << QStringList{text("$ cat | base64 -w0\n" + encoded.left(4))} << 1;
        }
    }
    QTest::newRow("URL-encoded, mixed") << key << text("?k=" + urlEncoded(utf8(key), false, true))
                                        << QStringList{u"?k="_s} << 1;
    // As %C3%A9 stands for é in a URL: a QString holds é as one character.
    QTest::newRow("URL-encoded, outside ASCII")
            << accentKey << text("?k=" + urlEncoded(utf8(accentKey), true)) << QStringList{u"?k="_s}
            << 1;
    QTest::newRow("URL-encoded, outside ASCII, mixed")
            << accentKey << text("?k=" + urlEncoded(utf8(accentKey), false, true))
            << QStringList{u"?k="_s} << 1;
    QTest::newRow("hex, lower case") << key << text(utf8(key).toHex()) << QStringList{} << 1;
    QTest::newRow("hex, upper case")
            << key << text(utf8(key).toHex().toUpper()) << QStringList{} << 1;
    QTest::newRow("JSON \\u, mixed")
            << key << text("\"" + jsonEscaped(key, true, true) + "\"") << QStringList{u"\""_s} << 1;
    QTest::newRow("JSON \\u, outside ASCII")
            << accentKey << text(jsonEscaped(accentKey, false)) << QStringList{} << 1;
    QTest::newRow("JSON \\/") << slashKey << QString(slashKey).replace(u"/"_s, u"\\/"_s)
                              << QStringList{} << 1;
    // A command's UTF-16 output, read as the command runner reads bytes (each one a character).
    QTest::newRow("UTF-16LE, read as Latin-1")
            << key << QString::fromLatin1(utf16(u"before "_s + key + u" after"_s, true))
            << QStringList{QString::fromLatin1(utf16(u"before "_s, true))} << 1;
    QTest::newRow("UTF-16BE, read as UTF-8")
            << key << QString::fromUtf8(utf16(u"before "_s + key + u" after"_s, false))
            << QStringList{QString::fromUtf8(utf16(u" after"_s, false))} << 1;
}

void tst_Redaction::text()
{
    QFETCH(QString, secret);
    QFETCH(QString, input);
    QFETCH(QStringList, kept);
    QFETCH(int, markers);
    QVERIFY(!hitsOf(input.toUtf8(), secret).isEmpty()
            || !hitsOf(input.toLatin1(), secret).isEmpty());

    const QString result = redacted(input, secret);
    // As it is shown, and as it is written: UTF-8, or one byte per character.
    QVERIFY2(hitsOf(result.toUtf8(), secret).isEmpty(), qPrintable(hitsOf(result.toUtf8(), secret)));
    QVERIFY2(hitsOf(result.toLatin1(), secret).isEmpty(),
             qPrintable(hitsOf(result.toLatin1(), secret)));
    QCOMPARE(result.count(QString::fromLatin1(redactedMarker)), markers);
    for (const QString &piece : std::as_const(kept))
        QVERIFY2(result.contains(piece), qPrintable(piece));
}

void tst_Redaction::exactResult_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");

    const QByteArray marker(redactedMarker);
    QTest::newRow("plain") << "key=" + utf8(key) + ";"
                           << "key=" + marker + ";";
    QTest::newRow("URL-encoded") << "key=" + urlEncoded(utf8(key), false, true) + "&"
                                 << "key=" + marker + "&";
    QTest::newRow("JSON") << R"({"k":")" + jsonEscaped(key, true) + R"("})"
                          << R"({"k":")" + marker + R"("})";
    QTest::newRow("hex") << "[" + utf8(key).toHex() + "]"
                         << "[" + marker + "]";
    QTest::newRow("UTF-16LE") << utf16(u"<"_s + key + u">"_s, true)
                              << utf16(u"<"_s, true) + marker16(true) + utf16(u">"_s, true);
    QTest::newRow("UTF-16BE") << utf16(u"<"_s + key + u">"_s, false)
                              << utf16(u"<"_s, false) + marker16(false) + utf16(u">"_s, false);
    // Base64 of "abc" + key: "YWJj" stands for "abc" alone and stays; the key's 40 bytes are 53
    // characters of their own, then "Q", which shares its bits with the padding.
    QTest::newRow("base64") << ("abc" + utf8(key)).toBase64() << "YWJj" + marker + "Q==";
}

void tst_Redaction::exactResult()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    QCOMPARE(redacted(input, key), expected);
}

void tst_Redaction::unauthorizedBodyWithEscapedKey()
{
    // A provider that writes the key back in its 401, every character as \uXXXX: what the
    // transcript and the inspector get must not decode to it.
    const QByteArray body = R"({"error":{"message":"Incorrect API key provided: )"
                            + jsonEscaped(key, false)
                            + R"(.","type":"invalid_request_error","code":"invalid_api_key"}})";
    QVERIFY(QJsonDocument::fromJson(body)[u"error"_s][u"message"_s].toString().contains(key));

    const QByteArray masked = redacted(body, key);
    const QJsonDocument document = QJsonDocument::fromJson(masked);
    QVERIFY2(document.isObject(), masked.constData());
    const QString message = document[u"error"_s][u"message"_s].toString();
    QCOMPARE(message, u"Incorrect API key provided: [REDACTED]."_s);
    QVERIFY(hitsOf(document.toJson(), key).isEmpty());
}

void tst_Redaction::withoutTheKeyNothingChanges_data()
{
    QTest::addColumn<QByteArray>("input");

    QByteArray stream;
    for (int i = 0; i < 2000; ++i) {
        stream += R"(data: {"choices":[{"delta":{"content":"line \"quoted\"\n\té \u00e9 %20 )"
                  + QByteArray::number(i)
                  + R"("}}]})"
                    "\n\n";
    }
    QTest::newRow("a streamed answer with escapes") << stream;
    QTest::newRow("the key with one character changed")
            << utf8(key).replace('z', 'y') + "\n" + urlEncoded(utf8(key).replace('z', 'y'), false);
    QTest::newRow("the key without its last character") << utf8(key.chopped(1));
    QTest::newRow("base64 of other text") << QByteArray("another secret entirely").toBase64();
    QTest::newRow("escapes of the key's characters, apart")
            << "\\u0073 %6b \\u002d" + QByteArray(400, ' ') + "\\u0070";
    QTest::newRow("binary") << QByteArray("\0\xff\xfe%\\u\\", 7).repeated(50);
    QTest::newRow("empty") << QByteArray();
}

void tst_Redaction::withoutTheKeyNothingChanges()
{
    QFETCH(QByteArray, input);
    const QByteArray bytes = redacted(input, key);
    QCOMPARE(bytes, input);
    // Not copied: a 64 MB body without the key costs a search, not a second 64 MB.
    QCOMPARE(bytes.constData(), input.constData());

    const QString text = QString::fromUtf8(input);
    const QString redactedText = redacted(text, key);
    QCOMPARE(redactedText, text);
    QCOMPARE(redactedText.constData(), text.constData());
}

void tst_Redaction::shortKeysAreNotRedacted_data()
{
    QTest::addColumn<QString>("secret");
    QTest::newRow("empty") << QString();
    QTest::newRow("one character") << u"x"_s;
    QTest::newRow("three characters") << u"abc"_s;
    QTest::newRow("three characters and spaces") << u"  ab  "_s;
}

void tst_Redaction::shortKeysAreNotRedacted()
{
    QFETCH(QString, secret);
    const QByteArray input = "x abc " + secret.toUtf8() + " " + secret.toUtf8().toBase64() + " "
                             + secret.toUtf8().toHex() + " %61%62%63";
    QCOMPARE(redacted(input, secret), input);
    QCOMPARE(redacted(QString::fromUtf8(input), secret), QString::fromUtf8(input));
}

void tst_Redaction::maskedTextLeadsBackToTheOriginal()
{
    const QString other = u"ghp_0123456789abcdefghij"_s;
    const QString original = u"a="_s + key + u" b="_s + other + u"\nc="_s + key + u"%2F end"_s;
    const MaskedText masked(original, {key, other});
    QCOMPARE(masked.text(), u"a=[REDACTED] b=[REDACTED]\nc=[REDACTED]%2F end"_s);
    // Every position outside a marker leads to the same character of the original.
    for (qsizetype at = 0; at < masked.text().size(); ++at) {
        if (masked.touchesSecret(at, at + 1))
            continue;
        QCOMPARE(original.at(masked.originalPosition(at)), masked.text().at(at));
    }
    // A marker's ends lead to the secret's ends.
    const qsizetype first = masked.text().indexOf(u"[REDACTED]"_s);
    QCOMPARE(masked.originalPosition(first), 2);
    QCOMPARE(masked.originalPosition(first + 10), 2 + key.size());
    QCOMPARE(masked.originalPosition(masked.text().size()), original.size());
    QVERIFY(masked.touchesSecret(0, first + 1));
    QVERIFY(!masked.touchesSecret(0, first));
    QVERIFY(!masked.touchesSecret(first + 10, first + 13));
    // Without a secret the text is itself.
    const MaskedText plain(u"nothing here"_s, {key});
    QCOMPARE(plain.text(), u"nothing here"_s);
    QCOMPARE(plain.originalPosition(5), 5);
    QVERIFY(!plain.touchesSecret(0, 12));
    QCOMPARE(redacted(original, QStringList{key, other}), masked.text());
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Redaction)

#include "tst_redaction.moc"
