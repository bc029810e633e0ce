#include "protocol/sseparser.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

using Events = QList<SseEvent>;

namespace AgentLoop {
char *toString(const SseEvent &event)
{
    return qstrdup("{event=\"" + event.event + "\" data=\""
                   + event.data.toPercentEncoding(" {}\":,[]") + "\" id=\"" + event.id + "\"}");
}
} // namespace AgentLoop

class tst_SseParser : public QObject
{
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void finishFlushesThePendingEventOnly();
    void finishResetsForANewStream();
    void reconnectionFields();
    void lineOverTheLimitIsAnError_data();
    void lineOverTheLimitIsAnError();
    void memoryStaysBoundedWithoutNewlines();
    void recordedStreams_data();
    void recordedStreams();
};

namespace {

SseEvent data(const QByteArray &payload, const QByteArray &id = {})
{
    return SseEvent{{}, payload, id};
}

// Feeds the chunks, then finishes; fails the test on an error.
Events parseChunks(const QList<QByteArrayView> &chunks, qsizetype *beforeFinish = nullptr)
{
    SseParser parser;
    Events events;
    for (const QByteArrayView chunk : chunks) {
        Result<Events> fed = parser.feed(chunk);
        if (!fed) {
            qWarning("feed failed: %s", qPrintable(fed.error().message));
            return {};
        }
        events += *fed;
    }
    if (beforeFinish)
        *beforeFinish = events.size();
    Result<Events> rest = parser.finish();
    if (!rest) {
        qWarning("finish failed: %s", qPrintable(rest.error().message));
        return {};
    }
    return events + *rest;
}

Events parseWhole(QByteArrayView input, qsizetype *beforeFinish = nullptr)
{
    return parseChunks({input}, beforeFinish);
}

Events parseBytewise(QByteArrayView input)
{
    QList<QByteArrayView> chunks;
    for (qsizetype i = 0; i < input.size(); ++i)
        chunks.append(input.sliced(i, 1));
    return parseChunks(chunks);
}

Events parseSplit(QByteArrayView input, qsizetype at)
{
    return parseChunks({input.first(at), input.sliced(at)});
}

// What a recorded stream must give, read without the parser: the files are "data: {json}" lines
// separated by blank lines.
Events expectedFromRecording(const QByteArray &bytes)
{
    Events events;
    for (const QByteArray &block : bytes.split('\n')) {
        if (block.startsWith("data: "))
            events.append(data(block.mid(6)));
    }
    return events;
}

} // namespace

void tst_SseParser::parses_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<Events>("expected");
    QTest::addColumn<int>("onlyOnFinish"); // how many of the events only finish() delivers

    QTest::newRow("LF") << "data: a\n\ndata: b\n\n"_ba << Events{data("a"), data("b")} << 0;
    QTest::newRow("CRLF") << "data: a\r\n\r\ndata: b\r\n\r\n"_ba << Events{data("a"), data("b")}
                          << 0;
    QTest::newRow("CR") << "data: a\r\rdata: b\r\r"_ba << Events{data("a"), data("b")} << 0;
    QTest::newRow("mixed endings") << "data: a\r\n\ndata: b\n\r\ndata: c\r\r\n"_ba
                                   << Events{data("a"), data("b"), data("c")} << 0;
    QTest::newRow("CRLF is one line ending, not two")
            << "data: a\r\ndata: b\r\n\r\n"_ba << Events{data("a\nb")} << 0;
    QTest::newRow("comment lines and keep-alives")
            << ": keep-alive\n\n:\n\ndata: a\n: in between\ndata: b\n\n: ping\n\n"_ba
            << Events{data("a\nb")} << 0;
    QTest::newRow("multi-line data joined with LF")
            << "data: first\ndata: second\ndata: third\n\n"_ba
            << Events{data("first\nsecond\nthird")} << 0;
    QTest::newRow("no space after the colon") << "data:a\n\n"_ba << Events{data("a")} << 0;
    QTest::newRow("only one space is dropped") << "data:  a \n\n"_ba << Events{data(" a ")} << 0;
    QTest::newRow("colon in the value")
            << "data: {\"a\":1}\n\n"_ba << Events{data("{\"a\":1}")} << 0;
    QTest::newRow("field without a colon") << "data\n\n"_ba << Events{data("")} << 0;
    QTest::newRow("empty data") << "data:\n\n"_ba << Events{data("")} << 0;
    QTest::newRow("two empty data lines") << "data\ndata\n\n"_ba << Events{data("\n")} << 0;
    QTest::newRow("named event") << "event: error\ndata: {}\n\n"_ba
                                 << Events{SseEvent{"error", "{}", {}}} << 0;
    QTest::newRow("event name does not carry over")
            << "event: x\ndata: 1\n\ndata: 2\n\n"_ba << Events{SseEvent{"x", "1", {}}, data("2")}
            << 0;
    QTest::newRow("event without data is not dispatched")
            << "event: ping\n\ndata: a\n\n"_ba << Events{data("a")} << 0;
    QTest::newRow("id carries over") << "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"_ba
                                     << Events{data("a", "7"), data("b", "7"), data("c")} << 0;
    QTest::newRow("id with NUL is ignored")
            << "id: 1\n\nid: 2\0x\ndata: a\n\n"_ba << Events{data("a", "1")} << 0;
    QTest::newRow("retry and unknown fields are ignored")
            << "retry: 1000\nfoo: bar\nDATA: no\ndata: a\n\n"_ba << Events{data("a")} << 0;
    QTest::newRow("DONE") << "data: [DONE]\n\n"_ba << Events{data("[DONE]")} << 0;
    QTest::newRow("leading blank lines") << "\n\n\r\n\rdata: a\n\n"_ba << Events{data("a")} << 0;
    QTest::newRow("only blank lines") << "\n\n\n"_ba << Events{} << 0;
    QTest::newRow("empty stream") << QByteArray() << Events{} << 0;
    QTest::newRow("byte order mark") << "\xEF\xBB\xBF"
                                        "data: a\n\n"_ba
                                     << Events{data("a")} << 0;
    QTest::newRow("only one byte order mark is skipped") << "\xEF\xBB\xBF\xEF\xBB\xBF"
                                                            "data: a\n\n"_ba
                                                         << Events{} << 0;
    QTest::newRow("byte order mark alone") << "\xEF\xBB\xBF"_ba << Events{} << 0;
    QTest::newRow("part of a byte order mark is data")
            << "data: \xEF\xBB\n\n"_ba << Events{data("\xEF\xBB")} << 0;
    QTest::newRow("stream starting with part of a byte order mark") << "\xEF\xBB"
                                                                       "data: a\n\n"_ba
                                                                    << Events{} << 0;
    QTest::newRow("byte order mark later is data")
            << "data: \xEF\xBB\xBF\n\n"_ba << Events{data("\xEF\xBB\xBF")} << 0;
    QTest::newRow("missing final blank line")
            << "data: a\n\ndata: b\n"_ba << Events{data("a"), data("b")} << 1;
    QTest::newRow("missing final line ending")
            << "data: a\n\ndata: b"_ba << Events{data("a"), data("b")} << 1;
    QTest::newRow("missing final LF after CR") << "data: a\r"_ba << Events{data("a")} << 1;
    QTest::newRow("UTF-8 passes through") << "data: {\"content\":\"命令执行成功\"}\n\n"_ba
                                          << Events{data("{\"content\":\"命令执行成功\"}")} << 0;
    QTest::newRow("NUL in data") << "data: a\0b\n\n"_ba << Events{data("a\0b"_ba)} << 0;
}

void tst_SseParser::parses()
{
    QFETCH(QByteArray, input);
    QFETCH(Events, expected);
    QFETCH(int, onlyOnFinish);

    qsizetype beforeFinish = -1;
    QCOMPARE(parseWhole(input, &beforeFinish), expected);
    QCOMPARE(beforeFinish, expected.size() - onlyOnFinish);
    QCOMPARE(parseBytewise(input), expected);
    for (qsizetype at = 0; at <= input.size(); ++at) {
        const Events split = parseSplit(input, at);
        if (split != expected)
            QFAIL(qPrintable(u"split at byte %1 gives different events"_s.arg(at)));
    }
}

void tst_SseParser::finishFlushesThePendingEventOnly()
{
    SseParser parser;
    Result<Events> fed = parser.feed("data: a\n\ndata: b\ndata: c");
    QVERIFY(fed);
    QCOMPARE(*fed, Events{data("a")});
    Result<Events> rest = parser.finish();
    QVERIFY(rest);
    QCOMPARE(*rest, Events{data("b\nc")});
}

void tst_SseParser::finishResetsForANewStream()
{
    SseParser parser;
    QVERIFY(parser.feed("id: 1\nevent: x\ndata: a"));
    QVERIFY(parser.finish());
    Result<Events> fed = parser.feed("\xEF\xBB\xBF"
                                     "data: b\n\n");
    QVERIFY(fed);
    QCOMPARE(*fed, Events{data("b")});
}

// What a client that reconnects needs: the last id (also from an event without data, which is
// not dispatched) and the last well-formed retry time; a malformed one is ignored.
void tst_SseParser::reconnectionFields()
{
    SseParser parser;
    QCOMPARE(parser.lastEventId(), QByteArray());
    QCOMPARE(parser.reconnectionTimeMs(), std::nullopt);
    Result<Events> fed = parser.feed("id: e-1\nretry: 500\n\nretry: 1x\n\nretry:\n\n"
                                     "retry: 9999999999\n\nid: e-2\n\n");
    QVERIFY(fed);
    QCOMPARE(*fed, Events{});
    QCOMPARE(parser.lastEventId(), QByteArray("e-2"));
    QCOMPARE(parser.reconnectionTimeMs(), std::optional<qint64>(500));
    QVERIFY(parser.feed("retry: 2000\ndata: x\n\n"));
    QCOMPARE(parser.reconnectionTimeMs(), std::optional<qint64>(2000));
    QVERIFY(parser.finish());
    QCOMPARE(parser.lastEventId(), QByteArray());
    QCOMPARE(parser.reconnectionTimeMs(), std::nullopt);
}

void tst_SseParser::lineOverTheLimitIsAnError_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<bool>("fits");

    QTest::newRow("line at the limit") << "data: 0123456789"_ba << true;
    QTest::newRow("line over the limit") << "data: 0123456789A"_ba << false;
    QTest::newRow("comment over the limit") << ": 0123456789ABCDEF"_ba << false;
    QTest::newRow("data of one event over the limit")
            << "data: 0123456\ndata: 7890123\ndata: 4\n"_ba << false;
    QTest::newRow("many short events")
            << "data: 0123456\n\ndata: 7890123\n\ndata: 4\n\n"_ba << true;
}

void tst_SseParser::lineOverTheLimitIsAnError()
{
    QFETCH(QByteArray, input);
    QFETCH(bool, fits);
    constexpr qsizetype limit = 16;

    for (const qsizetype chunkSize : {input.size(), qsizetype(1), qsizetype(3)}) {
        SseParser parser(limit);
        bool failed = false;
        for (qsizetype at = 0; at < input.size() && !failed; at += chunkSize)
            failed = !parser.feed(
                    QByteArrayView(input).sliced(at).first(std::min(chunkSize, input.size() - at)));
        if (!failed) {
            Result<Events> rest = parser.finish();
            failed = !rest;
            if (failed)
                QVERIFY(rest.error().message.contains(u"16 bytes"_s));
        }
        QCOMPARE(failed, !fits);
        if (failed) {
            // The error sticks: the stream is not read on as if nothing happened.
            Result<Events> after = parser.feed("\n\ndata: b\n\n");
            QVERIFY(!after);
            QCOMPARE(after.error().kind, Error::Protocol);
        }
    }
}

void tst_SseParser::memoryStaysBoundedWithoutNewlines()
{
    SseParser parser(1024 * 1024);
    const QByteArray chunk(64 * 1024, 'x');
    int accepted = 0;
    while (accepted < 100 && parser.feed(chunk))
        ++accepted;
    QCOMPARE(accepted, 16); // 16 × 64 KiB fit in 1 MiB; the 17th chunk is refused
}

void tst_SseParser::recordedStreams_data()
{
    QTest::addColumn<QString>("path");
    const QDir root(sharedVectorsPath());
    if (!root.exists()) {
        QTest::newRow("missing") << QString(); // skipped, with a message, by the test itself
        return;
    }
    for (const QString &folder : {u"openai-python-streams"_s, u"openai-node-streams"_s}) {
        const QDir dir(root.filePath(folder));
        for (const QString &name : dir.entryList({u"*.sse"_s}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(folder + u'/' + name)) << dir.filePath(name);
    }
}

void tst_SseParser::recordedStreams()
{
    if (!QDir(sharedVectorsPath()).exists())
        QSKIP(qPrintable(u"shared vectors not found at %1"_s.arg(sharedVectorsPath())));
    QFETCH(QString, path);
    QFile file(path);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
    const QByteArray bytes = file.readAll();
    const Events expected = expectedFromRecording(bytes);
    QVERIFY(expected.size() > 2);
    QCOMPARE(expected.last(), data("[DONE]"));

    QCOMPARE(parseWhole(bytes), expected);
    QCOMPARE(parseBytewise(bytes), expected);
    // Every split point for the small recordings; a stride (still > 1000 splits) for larger ones.
    const qsizetype stride = bytes.size() <= 10 * 1024 ? 1 : bytes.size() / 1000 + 1;
    for (qsizetype at = 0; at <= bytes.size(); at += stride) {
        if (parseSplit(bytes, at) != expected)
            QFAIL(qPrintable(u"split at byte %1 gives different events"_s.arg(at)));
    }
    // The same stream with the other line endings a server may use.
    QByteArray crlf = bytes;
    crlf.replace("\n", "\r\n");
    QCOMPARE(parseWhole(crlf), expected);
    QCOMPARE(parseBytewise(crlf), expected);
    QByteArray cr = bytes;
    cr.replace('\n', '\r');
    QCOMPARE(parseBytewise(cr), expected);
    // Leading newline chunks and keep-alive comments, as some proxies add.
    QCOMPARE(parseChunks({"\n", "\r\n", ": keep-alive\n\n", bytes}), expected);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_SseParser)
#include "tst_sseparser.moc"
