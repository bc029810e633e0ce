// The bug bundle (storage/bugbundle.h) and its zip (base/ziparchive.h): the archive opens in
// Python's zipfile, and the key is in no file of it, whatever form it was in and wherever it was.

#include "base/redaction.h"
#include "base/ziparchive.h"
#include "leaksearch.h"
#include "protocol/streamredaction.h"
#include "storage/bugbundle.h"
#include "testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

const QString key = u"sk-bundletest-Q7w9Zr2xK4mP8vL1nB6cT3yH"_s;
const QString otherKey = u"sk-otherprofile-Jd83kLq0Zp5xWv2Nm7Rt"_s;

QByteArray percentEncodedEveryByte(const QByteArray &bytes, bool upper)
{
    QByteArray out;
    for (const char c : bytes) {
        const QByteArray hex = QByteArray(1, c).toHex();
        out.append('%').append(upper ? hex.toUpper() : hex);
    }
    return out;
}

QByteArray jsonEscapedEveryCharacter(const QString &text)
{
    QByteArray out;
    for (const QChar c : text)
        out.append("\\u").append(QByteArray::number(c.unicode(), 16).rightJustified(4, '0'));
    return out;
}

QByteArray utf16(const QString &text, bool littleEndian)
{
    QByteArray out;
    for (const QChar c : text) {
        const char low = char(c.unicode() & 0xFF);
        const char high = char(c.unicode() >> 8);
        littleEndian ? out.append(low).append(high) : out.append(high).append(low);
    }
    return out;
}

// The key everywhere a provider, a command or a gateway could put it, in every form.
BugBundleContents adversarialContents()
{
    BugBundleContents contents;
    contents.application = u"agentloop"_s;
    contents.baseUrl = QUrl(u"https://user:pass@gateway.example/v1"_s);
    contents.model = u"gpt-test"_s;
    contents.conversation.id = u"20261203-101500-3f2a"_s;
    contents.conversation.title = u"Fix the build"_s;
    contents.conversation.created = QDateTime(QDate(2026, 12, 3), QTime(10, 15), Qt::UTC);
    contents.history.append(Message::user(u"Why does the build fail?"_s));
    const ToolCall call{u"call_1"_s,
                        u"shell"_s,
                        u"{\"command\":\"printenv OPENAI_API_KEY | base64\"}"_s};
    contents.history.append(Message::assistant(std::nullopt, {call}));
    // A tool's output: the key as it is, and base64 of text holding it at every offset.
    QString output = u"OPENAI_API_KEY="_s + key + u"\n"_s;
    for (int offset = 0; offset < 3; ++offset) {
        output += QString::fromLatin1(
                          (QByteArray(offset, 'x') + "Bearer " + key.toUtf8()).toBase64())
                  + u'\n';
        output += QString::fromLatin1((QByteArray(offset, 'y') + key.toUtf8())
                                              .toBase64(QByteArray::Base64UrlEncoding))
                  + u'\n';
    }
    contents.history.append(Message::tool(u"call_1"_s, output));
    contents.history.append(Message::assistant(u"Your key is "_s + key, {}));

    QJsonObject auditLine{{u"tool_call_id"_s, u"call_1"_s},
                          {u"tool"_s, u"shell"_s},
                          {u"arguments"_s, u"echo "_s + key},
                          {u"decision"_s, u"allow"_s}};
    contents.audit.append(auditLine);

    Exchange first;
    first.turn = 1;
    first.model = u"gpt-test"_s;
    first.method = "POST";
    // URL-encoded in the query, every byte and in either case.
    first.url = QUrl(u"https://gateway.example/v1/chat/completions?k="_s
                     + QString::fromLatin1(percentEncodedEveryByte(key.toUtf8(), false)) + u"&K="_s
                     + QString::fromLatin1(percentEncodedEveryByte(key.toUtf8(), true)));
    first.requestHeaders = {{"Authorization", "Bearer " + key.toUtf8()},
                            {"X-Api-Key", "gateway-token-that-is-not-the-key"},
                            {"Content-Type", "application/json"}};
    // JSON \u-escaped, and UTF-16 in both byte orders.
    first.requestBody = "{\"messages\":[{\"role\":\"user\",\"content\":\""
                        + jsonEscapedEveryCharacter(key) + "\"}]}";
    first.httpStatus = 401;
    // The provider's error message echoing the key.
    first.responseBody = "{\"error\":{\"message\":\"Incorrect API key provided: " + key.toUtf8()
                         + ". You can find your API key at https://platform.example\"}}";
    // A network error quoting the URL it went to, URL-encoded every byte, in either case.
    first.errorString = u"Host requires authentication: "_s + key + u" (/v1?k="_s
                        + QString::fromLatin1(percentEncodedEveryByte(key.toUtf8(), false))
                        + u"&K="_s
                        + QString::fromLatin1(percentEncodedEveryByte(key.toUtf8(), true)) + u")"_s;
    first.responseHeaders = {{"Set-Cookie", "session=abc123"}};
    contents.exchanges.append({1, first});

    Exchange second = first;
    second.attempt = 2;
    second.streamed = true;
    second.httpStatus = 200;
    second.responseBody = "data: {\"choices\":[{\"delta\":{\"content\":\"" + utf16(key, true) + "|"
                          + utf16(key, false) + "|"
                          + percentEncodedEveryByte(otherKey.toUtf8(), false)
                          + "\"}}]}\n\ndata: [DONE]\n\n";
    second.assembledMessage = "{\"role\":\"assistant\",\"content\":\"" + key.toUtf8() + "\"}";
    contents.exchanges.append({1, second});

    contents.settings = {{u"provider"_s, QJsonObject{{u"model"_s, u"gpt-test"_s}}},
                         {u"note"_s, u"copied "_s + otherKey}};
    contents.secrets = {key, otherKey};
    return contents;
}

QString python()
{
    return QStandardPaths::findExecutable(u"python3"_s);
}

// Extracts the archive with Python's zipfile after its own check (testzip()), independently of
// the reader under test: the files it holds, by name.
QMap<QString, QByteArray> extractWithPython(const QString &archive, const QString &into)
{
    QProcess process;
    process.start(python(),
                  {u"-c"_s,
                   u"import sys, zipfile\n"
                   "z = zipfile.ZipFile(sys.argv[1])\n"
                   "bad = z.testzip()\n"
                   "assert bad is None, bad\n"
                   "for i in z.infolist():\n"
                   "    assert i.compress_type == zipfile.ZIP_STORED\n"
                   "z.extractall(sys.argv[2])\n"
                   "print('\\n'.join(z.namelist()))\n"_s,
                   archive,
                   into});
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        qWarning() << process.readAllStandardError();
        return {};
    }
    QMap<QString, QByteArray> files;
    const QStringList names = QString::fromUtf8(process.readAllStandardOutput())
                                      .split(u'\n', Qt::SkipEmptyParts);
    for (const QString &name : names) {
        QFile file(into + u'/' + name);
        if (file.open(QIODevice::ReadOnly))
            files.insert(name, file.readAll());
    }
    return files;
}

QStringList hitsIn(const QMap<QString, QByteArray> &files)
{
    QStringList hits;
    for (const QString &secret : {key, otherKey}) {
        const KeyNeedles needles = keyNeedles(secret);
        for (auto it = files.cbegin(); it != files.cend(); ++it) {
            hits << keyHits(it.value(), it.key(), needles);
            hits << keyHits(it.key().toUtf8(), u"name of "_s + it.key(), needles);
        }
    }
    return hits;
}

QJsonObject jsonOf(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

} // namespace

class TestBugBundle : public QObject
{
    Q_OBJECT

private slots:
    void crcIsTheStandardOne();
    void archiveOpensInPython();
    void readerRejectsDamage();
    void keyIsInNoFileOfTheBundle();
    void manifestNamesVersionsAndFiles();
    void exchangesHaveTheirFiles();
    void scanRefusesAnArchiveHoldingTheKey();
    void unwritablePathIsAnError();
    void settingsLeaveKeysOut();
    void aKeyStreamedInPiecesIsRemovedJoined();
};

void TestBugBundle::crcIsTheStandardOne()
{
    QCOMPARE(crc32("123456789"), 0xCBF43926u);
    QCOMPARE(crc32(""), 0u);
}

void TestBugBundle::archiveOpensInPython()
{
    if (python().isEmpty())
        QSKIP("python3 is not installed");
    QTemporaryDir dir;
    const QList<ZipEntry> entries{{u"a.txt"_s, "hello\n"},
                                  {u"folder/über ✓.json"_s, "{\"x\":1}"},
                                  {u"empty"_s, QByteArray()}};
    const auto archive = zipArchive(entries, QDateTime(QDate(2026, 12, 3), QTime(18, 0, 4)));
    QVERIFY(archive);
    const QString path = dir.filePath(u"t.zip"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(*archive);
    file.close();
    const QMap<QString, QByteArray> files = extractWithPython(path, dir.filePath(u"out"_s));
    QCOMPARE(files.size(), 3);
    QCOMPARE(files.value(u"a.txt"_s), "hello\n");
    QCOMPARE(files.value(u"folder/über ✓.json"_s), "{\"x\":1}");
    QVERIFY(files.contains(u"empty"_s));

    const auto read = readZipArchive(*archive);
    QVERIFY(read);
    QCOMPARE(read->size(), 3);
    QCOMPARE(read->at(1).name, u"folder/über ✓.json"_s);
    QCOMPARE(read->at(1).data, "{\"x\":1}");
}

void TestBugBundle::readerRejectsDamage()
{
    auto archive = zipArchive({{u"a.txt"_s, "hello world"}}, QDateTime::currentDateTime());
    QVERIFY(archive);
    QByteArray damaged = *archive;
    damaged[damaged.indexOf("hello")] = 'j';
    const auto read = readZipArchive(damaged);
    QVERIFY(!read);
    QVERIFY2(read.error().message.contains(u"CRC-32"_s), qPrintable(read.error().message));
    QVERIFY(!readZipArchive(archive->first(archive->size() - 5)));
}

void TestBugBundle::keyIsInNoFileOfTheBundle()
{
    if (python().isEmpty())
        QSKIP("python3 is not installed");
    const BugBundleContents contents = adversarialContents();
    QTemporaryDir dir;

    // The check can fail: the same files with nothing removed hold the key in every placement.
    BugBundleContents unredacted = contents;
    unredacted.secrets.clear();
    const QString rawPath = dir.filePath(u"raw.zip"_s);
    {
        const auto archive = zipArchive(bugBundleEntries(unredacted), contents.created);
        QVERIFY(archive);
        QFile raw(rawPath);
        QVERIFY(raw.open(QIODevice::WriteOnly));
        raw.write(*archive);
    }
    const QStringList rawHits = hitsIn(extractWithPython(rawPath, dir.filePath(u"raw"_s)));
    for (const char *form : {"UTF-8",
                             "UTF-16LE",
                             "UTF-16BE",
                             "base64",
                             "base64url",
                             "URL-encoded",
                             "URL-ENCODED",
                             "JSON \\u escapes"}) {
        QVERIFY2(rawHits.filter(QString::fromLatin1(form) + u" at"_s).size() > 0, form);
    }
    QVERIFY(rawHits.filter(u"tool-runs.json"_s).size() > 0);
    QVERIFY(rawHits.filter(u"-response.json"_s).size() > 0);
    QVERIFY(rawHits.filter(u"-headers.json"_s).size() > 0);
    QVERIFY(rawHits.filter(u"audit.jsonl"_s).size() > 0);

    const QString path = dir.filePath(u"bundle.zip"_s);
    const QList<ZipEntry> entries = bugBundleEntries(contents);
    const Result<void> written = writeBugBundle(path, entries, contents.secrets);
    QVERIFY2(written, qPrintable(written ? QString() : written.error().message));
    const QMap<QString, QByteArray> files = extractWithPython(path, dir.filePath(u"out"_s));
    QCOMPARE(files.size(), entries.size());
    const QStringList hits = hitsIn(files);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
    // Nor in the archive's raw bytes.
    QFile archive(path);
    QVERIFY(archive.open(QIODevice::ReadOnly));
    const QByteArray bytes = archive.readAll();
    QVERIFY2(keyHits(bytes, u"archive"_s, keyNeedles(key)).isEmpty(),
             qPrintable(keyHits(bytes, u"archive"_s, keyNeedles(key)).join(u'\n')));

    // What is left is still there, with the key's places marked.
    const QByteArray toolRuns = files.value(u"tool-runs.json"_s);
    QVERIFY(toolRuns.contains("OPENAI_API_KEY=[REDACTED]"));
    QVERIFY(files.value(u"responses/001-response.json"_s)
                    .contains("Incorrect API key provided: "
                              "[REDACTED]."));
    const QJsonObject headers = jsonOf(files.value(u"requests/001-headers.json"_s));
    QCOMPARE(headers.value(u"request_headers"_s).toArray().at(1).toArray().at(1).toString(),
             u"[REDACTED]"_s); // X-Api-Key: a credential header, whatever it holds
    QCOMPARE(headers.value(u"request_headers"_s).toArray().at(2).toArray().at(1).toString(),
             u"application/json"_s);
    QCOMPARE(headers.value(u"response_headers"_s).toArray().at(0).toArray().at(1).toString(),
             u"[REDACTED]"_s);
    QVERIFY(!files.value(u"manifest.json"_s).contains("user:pass"));
}

void TestBugBundle::manifestNamesVersionsAndFiles()
{
    const BugBundleContents contents = adversarialContents();
    const QList<ZipEntry> entries = bugBundleEntries(contents);
    QCOMPARE(entries.first().name, u"manifest.json"_s);
    const QJsonObject manifest = jsonOf(entries.first().data);
    QCOMPARE(manifest.value(u"agentloop"_s).toString(), u"bug-bundle"_s);
    QCOMPARE(manifest.value(u"application"_s)[u"version"_s].toString(),
             QStringLiteral(AGENTLOOP_VERSION));
    QCOMPARE(manifest.value(u"application"_s)[u"name"_s].toString(), u"agentloop"_s);
    QCOMPARE(manifest.value(u"qt"_s)[u"runtime"_s].toString(), QString::fromLatin1(qVersion()));
    QCOMPARE(manifest.value(u"qt"_s)[u"build"_s].toString(), QStringLiteral(QT_VERSION_STR));
    QVERIFY(!manifest.value(u"os"_s)[u"name"_s].toString().isEmpty());
    QCOMPARE(manifest.value(u"provider"_s)[u"base_url"_s].toString(),
             u"https://gateway.example/v1"_s);
    QCOMPARE(manifest.value(u"provider"_s)[u"model"_s].toString(), u"gpt-test"_s);
    QCOMPARE(manifest.value(u"conversation"_s)[u"id"_s].toString(), u"20261203-101500-3f2a"_s);
    QCOMPARE(manifest.value(u"created"_s).toString(),
             contents.created.toUTC().toString(Qt::ISODateWithMs));
    const QJsonArray files = manifest.value(u"files"_s).toArray();
    QCOMPARE(files.size(), entries.size() - 1);
    for (qsizetype i = 1; i < entries.size(); ++i) {
        QCOMPARE(files.at(i - 1)[u"name"_s].toString(), entries.at(i).name);
        QCOMPARE(files.at(i - 1)[u"bytes"_s].toInteger(), entries.at(i).data.size());
    }
}

void TestBugBundle::exchangesHaveTheirFiles()
{
    const QList<ZipEntry> entries = bugBundleEntries(adversarialContents());
    QStringList names;
    for (const ZipEntry &entry : entries)
        names << entry.name;
    QCOMPARE(names,
             QStringList({u"manifest.json"_s,
                          u"conversation/messages.json"_s,
                          u"tool-runs.json"_s,
                          u"audit.jsonl"_s,
                          u"requests/001-request.json"_s,
                          u"requests/001-headers.json"_s,
                          u"responses/001-response.json"_s,
                          u"requests/001-attempt2-request.json"_s,
                          u"requests/001-attempt2-headers.json"_s,
                          u"responses/001-attempt2-response.sse"_s,
                          u"responses/001-attempt2-assembled.json"_s,
                          u"settings.json"_s}));
    // The raw events as received, the key's places aside.
    QVERIFY(entries.at(9).data.startsWith("data: {\"choices\""));
    QVERIFY(entries.at(9).data.endsWith("data: [DONE]\n\n"));
    const QJsonArray runs = QJsonDocument::fromJson(entries.at(2).data).array();
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.at(0)[u"tool"_s].toString(), u"shell"_s);
    QCOMPARE(runs.at(0)[u"arguments"_s].toString(),
             u"{\"command\":\"printenv OPENAI_API_KEY | base64\"}"_s);
    QVERIFY(runs.at(0)[u"result"_s].toString().startsWith(u"OPENAI_API_KEY=[REDACTED]\n"_s));
}

void TestBugBundle::scanRefusesAnArchiveHoldingTheKey()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"bundle.zip"_s);
    // Entries that bypassed the removal: the last scan stops them.
    const QByteArray base64 = ("x" + key.toUtf8()).toBase64();
    const Result<void> written = writeBugBundle(path,
                                                {{u"ok.txt"_s, "nothing here"},
                                                 {u"leak.txt"_s, "b64: " + base64}},
                                                {key});
    QVERIFY(!written);
    QVERIFY2(written.error().message.contains(u"leak.txt"_s), qPrintable(written.error().message));
    QVERIFY(!written.error().message.contains(key));
    QVERIFY(!QFile::exists(path));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    // A name holding it is found too.
    QVERIFY(!writeBugBundle(path, {{u"x/"_s + key, "x"}}, {key}));
    QVERIFY(!QFile::exists(path));
}

void TestBugBundle::unwritablePathIsAnError()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"no/such/folder/bundle.zip"_s);
    const Result<void> written = writeBugBundle(path, {{u"a.txt"_s, "a"}}, {key});
    QVERIFY(!written);
    QCOMPARE(written.error().kind, Error::Io);
    QVERIFY2(written.error().message.contains(QDir::toNativeSeparators(path)),
             qPrintable(written.error().message));
}

void TestBugBundle::settingsLeaveKeysOut()
{
    QTemporaryDir dir;
    QSettings file(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
    file.setValue(u"provider/baseUrl"_s, u"https://api.example/v1"_s);
    file.setValue(u"provider/apiKey"_s, key);
    file.setValue(u"provider/maxTokens"_s, 4096);
    file.setValue(u"profiles/p1/apiKey"_s, otherKey);
    file.setValue(u"profiles/p1/extraHeaders"_s,
                  u"X-Api-Key: tenant-token-123\nX-Tenant: acme\nAuthorization: Basic abc"_s);
    file.sync();
    QStringList secrets;
    const QJsonObject settings = settingsFileForBundle(file, &secrets);
    QVERIFY(!settings.contains(u"provider/apiKey"_s));
    QVERIFY(!settings.contains(u"profiles/p1/apiKey"_s));
    QCOMPARE(settings.value(u"provider/baseUrl"_s).toString(), u"https://api.example/v1"_s);
    QCOMPARE(settings.value(u"provider/maxTokens"_s).toVariant().toInt(), 4096);
    QCOMPARE(settings.value(u"profiles/p1/extraHeaders"_s).toString(),
             u"X-Api-Key: [REDACTED]\nX-Tenant: acme\nAuthorization: [REDACTED]"_s);
    QVERIFY(secrets.contains(key));
    QVERIFY(secrets.contains(otherKey));
    const QByteArray json = QJsonDocument(settings).toJson();
    QVERIFY(!json.contains(key.toUtf8()));
    QVERIFY(!json.contains("tenant-token-123"));

    ProviderSettings provider;
    provider.baseUrl = QUrl(u"https://api.example/v1"_s);
    provider.apiKey = key;
    provider.model = u"m"_s;
    provider.extraHeaders = {{"api-key", "azure-secret"}, {"X-Route", "eu"}};
    const QJsonObject shown = providerForBundle(provider);
    QVERIFY(!QJsonDocument(shown).toJson().contains(key.toUtf8()));
    QCOMPARE(shown.value(u"extra_headers"_s)[u"api-key"_s].toString(), u"[REDACTED]"_s);
    QCOMPARE(shown.value(u"extra_headers"_s)[u"X-Route"_s].toString(), u"eu"_s);
    QCOMPARE(shown.value(u"key_set"_s).toBool(), true);
}

// The model repeats the key (a tool printed it) and the provider streams it a few characters per
// event: no line of the raw stream holds it, the text the events join to does.
void TestBugBundle::aKeyStreamedInPiecesIsRemovedJoined()
{
    const QByteArray k = key.toUtf8();
    const auto event = [](const QByteArray &delta) {
        return "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":" + delta + "}]}\r\n\r\n";
    };
    const auto text = [](const char *field, const QByteArray &piece) {
        return "{\"" + QByteArray(field) + "\":\"" + piece + "\"}";
    };
    const auto arguments = [](const QByteArray &piece) {
        return "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"" + piece + "\"}}]}";
    };
    const QByteArray raw = event(text("reasoning_content", "The key is " + k.first(9)))
                           + event(text("reasoning_content", k.sliced(9, 12)))
                           + event(text("reasoning_content", k.sliced(21) + "."))
                           + event(text("content", "Your key: " + k.first(20)))
                           + event(text("content", k.sliced(20) + " - keep it"))
                           + event(arguments("{\\\"command\\\":\\\"curl -H " + k.first(5)))
                           + event(arguments(k.sliced(5) + "\\\"}")) + "data: [DONE]\r\n\r\n";
    QVERIFY(!containsSecret(raw, key)); // in pieces: no line holds it

    // The bundle's own final scan joins the pieces.
    QCOMPARE(entriesHoldingSecrets({{u"responses/001-response.sse"_s, raw}}, {key}),
             QStringList{u"responses/001-response.sse"_s});
    QVERIFY(eventStreamHoldsSecret(raw, {key}));

    BugBundleContents contents;
    Exchange streamed;
    streamed.streamed = true;
    streamed.httpStatus = 200;
    streamed.responseBody = raw;
    contents.exchanges.append({1, streamed});
    contents.secrets = {key};
    const QList<ZipEntry> entries = bugBundleEntries(contents);
    QVERIFY2(entriesHoldingSecrets(entries, {key}).isEmpty(),
             qPrintable(entriesHoldingSecrets(entries, {key}).join(u", "_s)));
    QByteArray written;
    for (const ZipEntry &entry : entries) {
        if (entry.name == u"responses/001-response.sse"_s)
            written = entry.data;
    }
    QVERIFY(!written.isEmpty());

    // What the events join to now: the marker where the key was, the rest as it was.
    QMap<QString, QString> joined;
    for (const QByteArray &line : written.split('\n')) {
        if (!line.startsWith("data: {"))
            continue;
        const QJsonObject delta = QJsonDocument::fromJson(line.sliced(6).trimmed())
                                          .object()[u"choices"_s][0][u"delta"_s]
                                          .toObject();
        for (const QString &field : {u"reasoning_content"_s, u"content"_s})
            joined[field] += delta.value(field).toString();
        joined[u"arguments"_s] += delta[u"tool_calls"_s][0][u"function"_s][u"arguments"_s].toString();
    }
    QCOMPARE(joined.value(u"reasoning_content"_s), u"The key is [REDACTED]."_s);
    QCOMPARE(joined.value(u"content"_s), u"Your key: [REDACTED] - keep it"_s);
    QCOMPARE(joined.value(u"arguments"_s), u"{\"command\":\"curl -H [REDACTED]\"}"_s);
    // Events without a piece of the key keep their bytes, line endings included.
    QVERIFY(written.endsWith("data: [DONE]\r\n\r\n"));
    QCOMPARE(written.count("\r\n\r\n"), raw.count("\r\n\r\n"));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, TestBugBundle)

#include "tst_bugbundle.moc"
