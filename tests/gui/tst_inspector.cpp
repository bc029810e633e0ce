#include "base/displaytext.h"
#include "base/redaction.h"
#include "fakechatserver.h"
#include "inspector/auditmodel.h"
#include "inspector/auditpage.h"
#include "inspector/inspector.h"
#include "inspector/jsonformat.h"
#include "inspector/jsonhighlighter.h"
#include "inspector/jsontreemodel.h"
#include "inspector/turnmodel.h"
#include "protocol/completion.h"
#include "provider/chatclient.h"
#include "testmain.h"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QTreeView>

#include <functional>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using Gui::TurnModel;

namespace {

const QByteArray secretKey = "sk-inspector-secret-0123456789abcdef";

// What ChatClient records for one round trip with a server that checks the key.
struct RecordedRoundTrip
{
    Exchange sent;
    Exchange received;
    Completion completion;
};

std::optional<RecordedRoundTrip> roundTrip(FakeChatServer &server, const QByteArray &body)
{
    ChatClient client;
    ProviderSettings settings;
    settings.baseUrl = server.baseUrl();
    settings.apiKey = QString::fromLatin1(secretKey);
    settings.model = u"gpt-test"_s;
    client.setSettings(settings);
    RecordedRoundTrip trip;
    QObject::connect(&client, &ChatClient::requestSent, &client, [&](const Exchange &e) {
        trip.sent = e;
    });
    QObject::connect(&client, &ChatClient::responseReceived, &client, [&](const Exchange &e) {
        trip.received = e;
    });
    QSignalSpy completed(&client, &ChatClient::completed);
    client.postChatCompletion(1, body);
    if (!completed.wait(10000))
        return std::nullopt;
    trip.completion = completed.at(0).at(0).value<Completion>();
    return trip;
}

Exchange exchange(const QByteArray &requestBody, const QByteArray &responseBody, int status = 200)
{
    Exchange e;
    e.turn = 1;
    e.method = "POST";
    e.url = QUrl(u"http://127.0.0.1:9/v1/chat/completions"_s);
    e.requestHeaders = {{"Content-Type", "application/json"},
                        {"Authorization", QByteArray("Bearer ") + redactedMarker}};
    e.requestBody = requestBody;
    e.httpStatus = status;
    e.responseHeaders = {{"content-type", "application/json"}};
    e.responseBody = responseBody;
    e.durationMs = 1234;
    e.startedAt = QDateTime::currentDateTimeUtc();
    return e;
}

} // namespace

class tst_Inspector : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    // The Audit page: the conversation's calls, appended as they finish, each entry's JSON.
    void auditPageListsTheCallsAndShowsTheirJson();
    void prettyJsonOnlyChangesWhitespace_data();
    void prettyJsonOnlyChangesWhitespace();
    void turnRowsFollowTheExchange();
    // Per turn: first byte, total time, tokens and (with a price) cost; a running total.
    void latencyTokensAndCostPerTurn();
    void retriedAttemptsShareTheRequestNumber();
    void streamedResponseIsShownRawWithTheAssembledMessage();
    void requestTabShowsTheExactBytesPrettyPrinted();
    void responseThatIsNotJsonIsShownRaw();
    void headersAreRedacted();
    void copyAsCurlSendsTheSameBytesWithoutTheKey();
    void jsonTreeModel();
    void highlighterColoursKeysAndValues();
    void bidiInsideJsonStringsIsShownEscaped();
    void providerTextInTheTableIsShownEscaped();
};

void tst_Inspector::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void tst_Inspector::prettyJsonOnlyChangesWhitespace_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty containers")
            << QByteArray(R"({"a":{},"b":[]})") << u"{\n  \"a\": {},\n  \"b\": []\n}"_s;
    QTest::newRow("key order kept")
            << QByteArray(R"({"z":1,"a":2})") << u"{\n  \"z\": 1,\n  \"a\": 2\n}"_s;
    QTest::newRow("numbers and escapes as sent")
            << QByteArray(R"([1.50,2e3,"caf\u00e9 \/ \"{[,:]}\""])")
            << u"[\n  1.50,\n  2e3,\n  \"caf\\u00e9 \\/ \\\"{[,:]}\\\"\"\n]"_s;
    QTest::newRow("re-indented") << QByteArray("{ \"a\" :\n [ true , null ] }")
                                 << u"{\n  \"a\": [\n    true,\n    null\n  ]\n}"_s;
    QTest::newRow("not JSON") << QByteArray("<html>502 Bad Gateway</html>")
                              << u"<html>502 Bad Gateway</html>"_s;
    QTest::newRow("truncated") << QByteArray(R"({"a":)") << u"{\"a\":"_s;
}

void tst_Inspector::prettyJsonOnlyChangesWhitespace()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, expected);
    const QString pretty = Gui::prettyJson(input);
    QCOMPARE(pretty, expected);
    if (Gui::isJsonDocument(input))
        QCOMPARE(Gui::compactJson(pretty), Gui::compactJson(QString::fromUtf8(input)));
}

void tst_Inspector::turnRowsFollowTheExchange()
{
    TurnModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Exchange sent = exchange(R"({"model":"m"})", {});
    sent.httpStatus = 0;
    QCOMPARE(model.addRequest(sent), 1);
    QCOMPARE(model.rowCount(), 1);
    const auto cell = [&](int row, int column) {
        return model.index(row, column).data().toString();
    };
    QCOMPARE(cell(0, TurnModel::NumberColumn), u"1"_s);
    QCOMPARE(cell(0, TurnModel::StatusColumn), u"waiting"_s);

    model.setResponse(exchange(R"({"model":"m"})", R"({"choices":[]})"));
    Completion completion;
    completion.finishReason = u"tool_calls"_s;
    completion.usage = Usage{120, 30, 150};
    model.setCompletion(completion);
    QCOMPARE(cell(0, TurnModel::StatusColumn), u"200"_s);
    QCOMPARE(cell(0, TurnModel::DurationColumn), u"1.2 s"_s);
    QCOMPARE(cell(0, TurnModel::FinishReasonColumn), u"tool_calls"_s);
    QCOMPARE(cell(0, TurnModel::TokensColumn), u"120 + 30 = 150"_s);
    QCOMPARE(model.index(0, TurnModel::TokensColumn).data(TurnModel::TotalTokensRole).toLongLong(),
             150);

    // A synonym is read as the standard value; the table shows both (what came, what it meant).
    QCOMPARE(model.addRequest(sent), 2);
    model.setResponse(exchange(R"({"model":"m"})", R"({"choices":[]})"));
    completion.finishReason = u"stop"_s;
    completion.providerFinishReason = u"end_turn"_s;
    model.setCompletion(completion);
    QCOMPARE(cell(1, TurnModel::FinishReasonColumn), u"end_turn → stop"_s);
    model.clear();

    QCOMPARE(model.addRequest(sent), 1);
    QCOMPARE(model.addRequest(sent), 2);
    model.abortPending();
    QCOMPARE(cell(1, TurnModel::StatusColumn), u"stopped"_s);
    QCOMPARE(cell(1, TurnModel::TokensColumn), QString());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void tst_Inspector::latencyTokensAndCostPerTurn()
{
    FakeChatServer server;
    const auto answerWithUsage = [](qint64 prompt, qint64 completion) {
        return FakeResponse::json({{u"object"_s, u"chat.completion"_s},
                                   {u"choices"_s,
                                    QJsonArray{QJsonObject{{u"index"_s, 0},
                                                           {u"message"_s,
                                                            QJsonObject{{u"role"_s, u"assistant"_s},
                                                                        {u"content"_s, u"ok"_s}}},
                                                           {u"finish_reason"_s, u"stop"_s}}}},
                                   {u"usage"_s,
                                    QJsonObject{{u"prompt_tokens"_s, prompt},
                                                {u"completion_tokens"_s, completion},
                                                {u"total_tokens"_s, prompt + completion}}}});
    };
    server.script({answerWithUsage(120'000, 3'000).withDelay(250), answerWithUsage(20, 10)});

    TurnModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Gui::Inspector inspector;
    inspector.setModel(&model);
    QCOMPARE(inspector.totalsText(), u"No requests yet"_s);
    const auto play = [&](const QString &model_) {
        const std::optional<RecordedRoundTrip> trip = roundTrip(server, R"({"model":"m"})");
        QVERIFY(trip);
        Exchange sent = trip->sent;
        Exchange received = trip->received;
        sent.model = received.model = model_;
        model.addRequest(sent);
        model.setResponse(received);
        model.setCompletion(trip->completion);
    };
    play(u"deepseek-chat"_s);
    const auto cell = [&](int row, int column) {
        return model.index(row, column).data().toString();
    };
    // The server waited 250 ms before answering: that is the first byte, and the time is at
    // least as long.
    const Exchange first = model.record(0).exchange;
    QVERIFY2(first.firstByteMs >= 240, qPrintable(QString::number(first.firstByteMs)));
    QVERIFY(first.durationMs >= first.firstByteMs);
    QCOMPARE(cell(0, TurnModel::FirstByteColumn), u"%1 ms"_s.arg(first.firstByteMs));
    QCOMPARE(cell(0, TurnModel::TokensColumn), u"120,000 + 3,000 = 123,000"_s);
    // No price yet: no cost, and the column is not shown.
    QCOMPARE(cell(0, TurnModel::CostColumn), QString());
    QVERIFY(inspector.table()->isColumnHidden(TurnModel::CostColumn));

    // 120 000 × 0.27 / M + 3 000 × 1.10 / M = 0.0324 + 0.0033
    model.setPrices({{u"deepseek-chat"_s, ModelPrice{0.27, 1.10, u"$"_s}}});
    QVERIFY(!inspector.table()->isColumnHidden(TurnModel::CostColumn));
    QCOMPARE(cell(0, TurnModel::CostColumn), u"$0.04"_s);
    QCOMPARE(inspector.totalsText(),
             u"1 request · %1 waiting for the model · 120,000 tokens in · 3,000 out · $0.04"_s.arg(
                     cell(0, TurnModel::DurationColumn)));

    // A retry of the next request, then its answer from a model without a price: the total
    // counts one more request and one retry, and its cost is a lower bound.
    Exchange retried = exchange(R"({"model":"m"})", {}, 429);
    retried.model = u"qwen-plus"_s;
    retried.durationMs = 40;
    retried.retryNotice = u"Rate limited; retrying in 1 s"_s;
    model.addRequest(retried);
    model.setResponse(retried);
    retried.attempt = 2;
    retried.retryNotice.clear();
    model.addRequest(retried);
    const qint64 before = model.totals().modelMs;
    QCOMPARE(before, first.durationMs + 40); // the failed attempt's time counts too
    QCOMPARE(model.totals().requests, 2);
    QCOMPARE(model.totals().retries, 1);
    model.abortPending();
    play(u"qwen-plus"_s);
    QCOMPARE(model.totals().requests, 3);
    QCOMPARE(model.totals().promptTokens, 120'020);
    QCOMPARE(model.totals().completionTokens, 3'010);
    QCOMPARE(model.totals().modelMs, before + model.record(3).exchange.durationMs);
    QCOMPARE(cell(3, TurnModel::CostColumn), QString());
    QVERIFY(model.index(3, TurnModel::CostColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(u"No price for qwen-plus"_s));
    QVERIFY2(inspector.totalsText().startsWith(u"3 requests · 1 retry · "_s),
             qPrintable(inspector.totalsText()));
    QVERIFY2(inspector.totalsText().endsWith(u" · 120,020 tokens in · 3,010 out · ≥ $0.04"_s),
             qPrintable(inspector.totalsText()));

    // A fraction of a cent is not shown as nothing.
    QCOMPARE(formatCost(0.00048, u"$"_s), u"$0.00048"_s);
    QCOMPARE(formatCost(12.4, u"¥"_s), u"¥12.40"_s);
    QCOMPARE(formatCost(0.5, u"CNY"_s), u"CNY 0.50"_s);

    model.clear();
    QCOMPARE(inspector.totalsText(), u"No requests yet"_s);
}

void tst_Inspector::retriedAttemptsShareTheRequestNumber()
{
    TurnModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Gui::Inspector inspector;
    inspector.setModel(&model);
    const QByteArray request = R"({"model":"m"})";
    Exchange first = exchange(request, {});
    QCOMPARE(model.addRequest(first), 1);
    model.setResponse(exchange(request, R"({"choices":[]})"));
    // Request 2 is rate-limited twice, then answered.
    for (int attempt = 1; attempt <= 3; ++attempt) {
        Exchange sent = exchange(request, {});
        sent.turn = 2;
        sent.attempt = attempt;
        QCOMPARE(model.addRequest(sent), 2);
        Exchange received = exchange(request,
                                     attempt < 3 ? R"({"error":{"message":"slow down"}})"
                                                 : R"({"choices":[]})",
                                     attempt < 3 ? 429 : 200);
        received.turn = 2;
        received.attempt = attempt;
        if (attempt < 3)
            received.retryNotice = u"Retrying in 1 s (attempt %1 of 4)."_s.arg(attempt + 1);
        model.setResponse(received);
    }
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.addRequest(first), 3); // the next request
    const auto cell = [&](int row, int column) {
        return model.index(row, column).data().toString();
    };
    QCOMPARE(cell(0, TurnModel::NumberColumn), u"1"_s);
    QCOMPARE(cell(1, TurnModel::NumberColumn), u"2 · attempt 1"_s);
    QCOMPARE(cell(2, TurnModel::NumberColumn), u"2 · attempt 2"_s);
    QCOMPARE(cell(3, TurnModel::NumberColumn), u"2 · attempt 3"_s);
    QCOMPARE(cell(1, TurnModel::StatusColumn), u"429 · Retrying in 1 s (attempt 2 of 4)."_s);
    QVERIFY(model.index(1, TurnModel::StatusColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(u"Retrying in 1 s"_s));
    QCOMPARE(cell(3, TurnModel::StatusColumn), u"200"_s);
    QCOMPARE(model.rowOfRequest(1), 0);
    QCOMPARE(model.rowOfRequest(2), 3);
    QCOMPARE(model.rowOfRequest(3), 4);
    QCOMPARE(model.rowOfRequest(4), -1);
    QCOMPARE(model.rowOfRequest(0), -1);

    // The chat names request 2: the inspector shows its last attempt.
    inspector.selectTurn(2);
    QCOMPARE(inspector.currentRow(), 3);
    QCOMPARE(inspector.currentTurn(), 2);
    QVERIFY(inspector.summaryText().startsWith(u"Request 2 · attempt 3 · POST"_s));
    inspector.selectRow(1);
    QCOMPARE(inspector.currentTurn(), 2);
    QVERIFY(inspector.summaryText().endsWith(u"· HTTP 429 · Retrying in 1 s (attempt 2 of 4)."_s));
    QVERIFY(inspector.responseText().contains(u"slow down"_s));
}

void tst_Inspector::streamedResponseIsShownRawWithTheAssembledMessage()
{
    TurnModel model;
    Gui::Inspector inspector;
    inspector.setModel(&model);
    // Split lines, a keep-alive comment and CRLF: shown as they came, not cleaned up.
    const QByteArray events
            = ": keep-alive\r\n\r\ndata: "
              "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}"
              "\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
              "data: [DONE]\n\n";
    Exchange streamed = exchange(R"({"model":"m","stream":true})", events);
    streamed.streamed = true;
    streamed.responseHeaders = {{"content-type", "text/event-stream"}};
    streamed.assembledMessage = R"({"role":"assistant","content":"Hi"})";
    model.addRequest(streamed);
    model.setResponse(streamed);
    // (The text view shows CRLF as a line break; Copy response copies the exact bytes.)
    QCOMPARE(inspector.responseText(), QString::fromUtf8(events).replace(u"\r\n"_s, u"\n"_s));
    inspector.findChild<QPushButton *>(u"copyResponseButton"_s)->click();
    QCOMPARE(QGuiApplication::clipboard()->text(), QString::fromUtf8(events));
    const int tab = inspector.tabs()->indexOf(inspector.assembledPage());
    QVERIFY(inspector.tabs()->isTabVisible(tab));
    QCOMPARE(inspector.assembledText(),
             u"{\n  \"role\": \"assistant\",\n  \"content\": \"Hi\"\n}"_s);
    // The event stream's field names are coloured, its JSON too.
    auto *response = inspector.tabs()->widget(1)->findChild<QPlainTextEdit *>();
    if (!response)
        response = qobject_cast<QPlainTextEdit *>(inspector.tabs()->widget(1));
    QVERIFY(response);
    const auto colourAt = [&](int line, int column) {
        const QTextBlock block = response->document()->findBlockByNumber(line);
        for (const QTextLayout::FormatRange &range : block.layout()->formats()) {
            if (column >= range.start && column < range.start + range.length)
                return range.format.foreground().color();
        }
        return QColor();
    };
    QCOMPARE(response->document()->findBlockByNumber(2).text().left(11), u"data: {\"cho"_s);
    QTRY_VERIFY(colourAt(2, 1).isValid()); // highlighting runs from the event loop
    const QColor field = colourAt(2, 1);   // data:
    const QColor key = colourAt(2, 8);     // "choices"
    const QColor comment = colourAt(0, 3); // : keep-alive
    QVERIFY(field.isValid() && key.isValid() && comment.isValid());
    QVERIFY(field != key);

    // Plain JSON next: no Assembled tab.
    model.addRequest(exchange(R"({"model":"m"})", {}));
    model.setResponse(exchange(R"({"model":"m"})", R"({"choices":[]})"));
    QCOMPARE(inspector.currentRow(), 1);
    QVERIFY(!inspector.tabs()->isTabVisible(tab));
    QCOMPARE(inspector.responseText(), u"{\n  \"choices\": []\n}"_s);
}

void tst_Inspector::requestTabShowsTheExactBytesPrettyPrinted()
{
    FakeChatServer server;
    server.setRequiredApiKey(secretKey);
    server.script({FakeResponse::answer(u"Hi"_s)});
    // Keys out of alphabetical order, an escape and a number a re-serialisation would change.
    const QByteArray body
            = R"({"model":"gpt-test","messages":[{"role":"user","content":"caf\u00e9 1.0"}],"temperature":0.50})";
    const auto trip = roundTrip(server, body);
    QVERIFY(trip);
    QCOMPARE(server.requests().size(), 1);
    QCOMPARE(server.requests().at(0).body, body);

    TurnModel model;
    Gui::Inspector inspector;
    inspector.setModel(&model);
    model.addRequest(trip->sent);
    model.setResponse(trip->received);
    model.setCompletion(trip->completion);
    QCOMPARE(inspector.currentTurn(), 1); // the newest request is shown
    QCOMPARE(model.record(0).exchange.requestBody, server.requests().at(0).body);
    QCOMPARE(inspector.requestText(), Gui::prettyJson(server.requests().at(0).body));
    QCOMPARE(Gui::compactJson(inspector.requestText()), QString::fromUtf8(body));
    QVERIFY(inspector.requestText().indexOf(u"\"model\""_s)
            < inspector.requestText().indexOf(u"\"messages\""_s));
    QVERIFY(inspector.requestText().contains(u"\"temperature\": 0.50"_s));
    QCOMPARE(inspector.responseText(), Gui::prettyJson(trip->received.responseBody));
    QVERIFY(inspector.responseText().contains(u"\"content\": \"Hi\""_s));
    QCOMPARE(model.index(0, TurnModel::FinishReasonColumn).data().toString(), u"stop"_s);
}

void tst_Inspector::responseThatIsNotJsonIsShownRaw()
{
    TurnModel model;
    Gui::Inspector inspector;
    inspector.setModel(&model);
    const QByteArray html = "<html>\n<body>502 Bad Gateway</body>\n</html>\n";
    model.addRequest(exchange("{}", {}));
    model.setResponse(exchange("{}", html, 502));
    QCOMPARE(inspector.responseText(), QString::fromUtf8(html));
    QCOMPARE(model.index(0, TurnModel::StatusColumn).data().toString(), u"502"_s);
}

void tst_Inspector::headersAreRedacted()
{
    FakeChatServer server;
    server.setRequiredApiKey(secretKey);
    server.script({FakeResponse::answer(u"Hi"_s)});
    const auto trip = roundTrip(server, R"({"model":"gpt-test","messages":[]})");
    QVERIFY(trip);
    // The key did go to the provider...
    QCOMPARE(server.requests().at(0).header("Authorization"), "Bearer " + secretKey);

    TurnModel model;
    Gui::Inspector inspector;
    inspector.setModel(&model);
    model.addRequest(trip->sent);
    model.setResponse(trip->received);
    // ...and is nowhere in what the inspector shows.
    const QString headers = inspector.headersText();
    QVERIFY2(headers.contains(u"Authorization: Bearer [REDACTED]"_s), qPrintable(headers));
    QVERIFY(headers.contains(u"POST %1/chat/completions"_s.arg(server.baseUrl().toString())));
    QVERIFY(headers.contains(u"HTTP 200"_s));
    QVERIFY(headers.contains(u"Content-Type: application/json"_s, Qt::CaseInsensitive));
    for (const QString &text : {headers,
                                inspector.requestText(),
                                inspector.responseText(),
                                AgentLoop::curlCommand(trip->sent)})
        QVERIFY(!text.contains(QString::fromLatin1(secretKey)));
}

void tst_Inspector::copyAsCurlSendsTheSameBytesWithoutTheKey()
{
    const QString curl = QStandardPaths::findExecutable(u"curl"_s);
    const QString sh = QStandardPaths::findExecutable(u"sh"_s);
    if (curl.isEmpty() || sh.isEmpty())
        QSKIP("needs curl and a POSIX shell");
    FakeChatServer server;
    server.setRequiredApiKey(secretKey);
    server.script({FakeResponse::answer(u"first"_s), FakeResponse::answer(u"again"_s)});
    const QByteArray body
            = R"({"model":"gpt-test","messages":[{"role":"user","content":"it's \"quoted\" $HOME `x` \n"}]})";
    const auto trip = roundTrip(server, body);
    QVERIFY(trip);

    const QString command = AgentLoop::curlCommand(trip->sent);
    QVERIFY(command.contains(u"$OPENAI_API_KEY"_s));
    QVERIFY(!command.contains(QString::fromLatin1(secretKey)));

    QProcess shell;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"OPENAI_API_KEY"_s, QString::fromLatin1(secretKey));
    environment.remove(u"http_proxy"_s);
    environment.remove(u"HTTP_PROXY"_s);
    environment.remove(u"all_proxy"_s);
    environment.remove(u"ALL_PROXY"_s);
    shell.setProcessEnvironment(environment);
    shell.start(sh, {u"-c"_s, command});
    // The fake server answers from this thread's event loop.
    QTRY_COMPARE_WITH_TIMEOUT(shell.state(), QProcess::NotRunning, Testing::hangGuardMs);
    QCOMPARE(shell.exitCode(), 0);
    QCOMPARE(server.requests().size(), 2);
    QCOMPARE(server.requests().at(1).body, body);
    QCOMPARE(server.requests().at(1).header("Authorization"), "Bearer " + secretKey);
    QVERIFY(shell.readAllStandardOutput().contains("again"));
}

void tst_Inspector::jsonTreeModel()
{
    Gui::JsonTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.setJson(R"({"model":"m","messages":[{"role":"user"},{"role":"tool"}],"n":2})"));
    QCOMPARE(model.rowCount(), 3);
    const QModelIndex messages = model.index(0, 0); // keys sorted: messages, model, n
    QCOMPARE(messages.data().toString(), u"messages"_s);
    QCOMPARE(model.index(0, Gui::JsonTreeModel::ValueColumn).data().toString(), u"[2]"_s);
    QCOMPARE(model.rowCount(messages), 2);
    const QModelIndex second = model.index(1, 0, messages);
    QCOMPARE(model.parent(second), messages);
    QCOMPARE(model.index(0, Gui::JsonTreeModel::ValueColumn, second).data().toString(), u"tool"_s);
    QCOMPARE(model.index(2, Gui::JsonTreeModel::ValueColumn).data().toString(), u"2"_s);
    QVERIFY(!model.setJson("not json"));
    QCOMPARE(model.rowCount(), 0);
}

void tst_Inspector::highlighterColoursKeysAndValues()
{
    QTextDocument document;
    document.setPlainText(u"{\n  \"key\": \"value\",\n  \"n\": 12,\n  \"b\": true\n}"_s);
    Gui::JsonHighlighter highlighter(&document);
    highlighter.rehighlight();
    const auto colourAt = [&](int line, int column) {
        const QTextBlock block = document.findBlockByNumber(line);
        for (const QTextLayout::FormatRange &range : block.layout()->formats()) {
            if (column >= range.start && column < range.start + range.length)
                return range.format.foreground().color();
        }
        return QColor();
    };
    const QColor key = colourAt(1, 3);
    const QColor string = colourAt(1, 11);
    const QColor number = colourAt(2, 8);
    const QColor keyword = colourAt(3, 8);
    QVERIFY(key.isValid() && string.isValid() && number.isValid() && keyword.isValid());
    QVERIFY(key != string);
    QVERIFY(string != number);
    QVERIFY(number != keyword);
    QCOMPARE(colourAt(2, 3), key);
}

void tst_Inspector::bidiInsideJsonStringsIsShownEscaped()
{
    TurnModel model;
    Gui::Inspector inspector;
    inspector.setModel(&model);
    // Raw characters inside the strings (valid JSON): an override in what was sent, isolates, a
    // zero-width space and a line separator in what came back, one in a header too.
    const QByteArray request
            = u"{\"messages\":[{\"role\":\"user\",\"content\":\"open \u202Etxt.exe\"}]}"_s.toUtf8();
    const QByteArray response = u"{\"choices\":[{\"message\":{\"content\":"
                                u"\"\u2066a\u2069\u2067b\u2069\u2068c\u2069\","
                                u"\"k\u200Bey\":\"x\u2028y\"}}]}"_s.toUtf8();
    Exchange answered = exchange(request, response);
    answered.responseHeaders.append({"x-note", u"in \u202Eside"_s.toUtf8()});
    model.addRequest(answered);
    model.setResponse(answered);

    QVERIFY2(inspector.requestText().contains(u"\"content\": \"open ⟨U+202E⟩txt.exe\""_s),
             qPrintable(inspector.requestText()));
    const QString shownResponse = inspector.responseText();
    QVERIFY2(shownResponse.contains(
                     u"\"content\": \"⟨U+2066⟩a⟨U+2069⟩⟨U+2067⟩b⟨U+2069⟩⟨U+2068⟩c⟨U+2069⟩\""_s),
             qPrintable(shownResponse));
    QVERIFY(shownResponse.contains(u"\"k⟨U+200B⟩ey\": \"x⟨U+2028⟩y\""_s));
    QVERIFY(inspector.headersText().contains(u"x-note: in ⟨U+202E⟩side"_s));
    for (const QString &text : {inspector.requestText(), shownResponse, inspector.headersText()}) {
        for (const char16_t c :
             {u'\x202E', u'\x2066', u'\x2067', u'\x2068', u'\x2069', u'\x200B', u'\x2028'})
            QVERIFY2(!text.contains(QChar(c)), qPrintable(text));
    }

    // The Tree page: what the tree view shows of keys and values, in its cells and tooltips.
    auto *tree = inspector.findChild<QTreeView *>(u"jsonTree"_s);
    QVERIFY(tree);
    auto *source = inspector.findChild<QComboBox *>(u"treeSource"_s);
    QVERIFY(source);
    QStringList cells;
    const std::function<void(const QModelIndex &)> collect = [&](const QModelIndex &parent) {
        const QAbstractItemModel *treeModel = tree->model();
        for (int row = 0; row < treeModel->rowCount(parent); ++row) {
            for (int column = 0; column < treeModel->columnCount(parent); ++column) {
                const QModelIndex cell = treeModel->index(row, column, parent);
                cells << cell.data(Qt::DisplayRole).toString()
                      << cell.data(Qt::ToolTipRole).toString()
                      << cell.data(Qt::AccessibleTextRole).toString();
            }
            collect(treeModel->index(row, 0, parent));
        }
    };
    collect({});
    QVERIFY2(cells.contains(u"open ⟨U+202E⟩txt.exe"_s), qPrintable(cells.join(u" | "_s)));
    source->setCurrentIndex(1);
    cells.clear();
    collect({});
    QVERIFY2(cells.contains(u"k⟨U+200B⟩ey"_s), qPrintable(cells.join(u" | "_s)));
    QVERIFY(cells.contains(u"x⟨U+2028⟩y"_s));
    QVERIFY(cells.contains(u"⟨U+2066⟩a⟨U+2069⟩⟨U+2067⟩b⟨U+2069⟩⟨U+2068⟩c⟨U+2069⟩"_s));
    for (const QString &cell : std::as_const(cells))
        QVERIFY2(!cell.contains(QChar(u'\x2066')) && !cell.contains(QChar(u'\x202E'))
                         && !cell.contains(QChar(u'\x200B')),
                 qPrintable(cell));

    // What is not a screen keeps the exact bytes: Copy as curl sends them again, Copy copies them.
    QVERIFY(AgentLoop::curlCommand(model.record(0).exchange).contains(QString::fromUtf8(request)));
    inspector.findChild<QPushButton *>(u"copyRequestButton"_s)->click();
    QCOMPARE(QGuiApplication::clipboard()->text(), Gui::prettyJson(request));
    QVERIFY(QGuiApplication::clipboard()->text().contains(u"\u202E"_s));
    inspector.findChild<QPushButton *>(u"copyResponseButton"_s)->click();
    QCOMPARE(QGuiApplication::clipboard()->text(), Gui::prettyJson(response));
}

void tst_Inspector::providerTextInTheTableIsShownEscaped()
{
    TurnModel model;
    Gui::Inspector inspector;
    inspector.setModel(&model);
    Exchange sent = exchange("{}", {});
    model.addRequest(sent);
    Exchange refused = exchange("{}", R"({"error":{"message":"slow"}})", 429);
    refused.retryNotice = u"Retrying: <b>slow</b> \u202Edown"_s;
    refused.errorString = u"<i>Server</i> said \x1b[31mno"_s;
    model.setResponse(refused);
    Completion completion;
    completion.finishReason = u"stop\u200B"_s;
    model.setCompletion(completion);

    const QModelIndex status = model.index(0, TurnModel::StatusColumn);
    QCOMPARE(status.data().toString(), u"429 · Retrying: <b>slow</b> ⟨U+202E⟩down"_s);
    // A tooltip that looks like HTML is shown as its characters, not rendered.
    const QString tip = status.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(u"&lt;i&gt;Server&lt;/i&gt; said ⟨U+001B⟩[31mno"_s), qPrintable(tip));
    QVERIFY2(tip.contains(u"&lt;b&gt;slow&lt;/b&gt;"_s), qPrintable(tip));
    QCOMPARE(model.index(0, TurnModel::FinishReasonColumn).data().toString(), u"stop⟨U+200B⟩"_s);
    QVERIFY2(inspector.summaryText().endsWith(u"· Retrying: <b>slow</b> ⟨U+202E⟩down"_s),
             qPrintable(inspector.summaryText()));
    auto *summary = inspector.findChild<QLabel *>(u"inspectorSummary"_s);
    QVERIFY(summary);
    QCOMPARE(summary->textFormat(), Qt::PlainText);
}

void tst_Inspector::auditPageListsTheCallsAndShowsTheirJson()
{
    TurnModel turns;
    Gui::AuditModel audit;
    QAbstractItemModelTester tester(&audit, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Gui::Inspector inspector;
    inspector.setModel(&turns, &audit);
    QCOMPARE(inspector.pages()->tabText(1), u"&Audit"_s);
    Gui::AuditPage *page = inspector.auditPage();
    const QJsonObject allowed{{u"time"_s, u"2026-12-02T10:15:03.120Z"_s},
                              {u"conversation"_s, u"20261202-101500-3f2a"_s},
                              {u"turn"_s, 2},
                              {u"tool_call_id"_s, u"call_1"_s},
                              {u"tool"_s, u"shell"_s},
                              {u"arguments"_s, u"{\"command\":\"git status\"}"_s},
                              {u"decision"_s, u"allow"_s},
                              {u"asked"_s, false},
                              {u"decided_by"_s, u"shell(git status)"_s},
                              {u"ok"_s, true},
                              {u"exit_code"_s, 0},
                              {u"duration_ms"_s, 12}};
    audit.setEntries({allowed});
    QCOMPARE(page->table()->model()->rowCount(), 1);
    const auto shown = [&audit](int row, int column) {
        return audit.index(row, column).data().toString();
    };
    QCOMPARE(shown(0, Gui::AuditModel::TurnColumn), u"2"_s);
    QCOMPARE(shown(0, Gui::AuditModel::CallColumn), u"call_1"_s);
    QCOMPARE(shown(0, Gui::AuditModel::DecidedByColumn), u"shell(git status)"_s);
    QCOMPARE(shown(0, Gui::AuditModel::ResultColumn), u"exit 0"_s);
    QCOMPARE(shown(0, Gui::AuditModel::DurationColumn), u"12 ms"_s);

    // A call that finishes while the newest is selected is followed.
    page->selectRow(0);
    QVERIFY(page->entryText().contains(u"\"decided_by\": \"shell(git status)\""_s));
    QJsonObject denied = allowed;
    denied[u"tool_call_id"_s] = u"call_2"_s;
    denied[u"arguments"_s] = u"{\"command\":\"rm -rf ~\"}"_s;
    denied[u"decision"_s] = u"deny"_s;
    denied[u"asked"_s] = true;
    denied[u"decided_by"_s] = u"user"_s;
    denied[u"reason"_s] = u"not my home\u202e"_s;
    denied[u"ok"_s] = false;
    denied[u"exit_code"_s] = -1;
    denied[u"error_code"_s] = u"denied"_s;
    audit.append(denied);
    QCOMPARE(page->currentRow(), 1);
    QCOMPARE(shown(1, Gui::AuditModel::DecisionColumn), u"Deny (asked)"_s);
    QCOMPARE(shown(1, Gui::AuditModel::DecidedByColumn), u"You"_s);
    QCOMPARE(shown(1, Gui::AuditModel::ResultColumn), u"denied"_s);
    // The user's reason is shown escaped, in the table and in the JSON.
    QCOMPARE(shown(1, Gui::AuditModel::ReasonColumn),
             AgentLoop::displayedLine(u"not my home\u202e"_s));
    QVERIFY(!page->entryText().contains(QChar(0x202e)));
    QVERIFY(page->entryText().contains(u"rm -rf ~"_s));

    // Another conversation: its own trail.
    audit.setEntries({});
    QCOMPARE(page->currentRow(), -1);
    QVERIFY(page->entryText().isEmpty());
}

AGENTLOOP_TEST_MAIN(QApplication, tst_Inspector)
#include "tst_inspector.moc"
