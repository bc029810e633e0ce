#include "agent/agentcontroller.h"
#include "agent/agentsetup.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "protocol/history.h"
#include "provider/demoprovider.h"
#include "testmain.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using namespace std::chrono_literals;

namespace {

constexpr int runTimeoutMs = 10000;
const QString demoOutput = u"Hello from the Agent Loop demo\nSat Nov 29 12:00:00 UTC 2025\n"_s;

// A controller wired like the desktop app's demo: the standard tools on a fake runner, and the
// demo's network access manager answering the model's requests.
struct DemoRun
{
    explicit DemoRun(const FakeCommandRunner &commands, ApprovalAnswer decision)
        : runner(commands)
    {
        ShellToolOptions options;
        options.workspace = workspace.path();
        installStandardTools(controller, std::make_shared<FakeCommandRunner>(runner), options);
        auto *network = new DemoNetworkAccessManager;
        network->setLatency(0ms, 20ms);
        controller.setNetworkAccessManager(network);
        controller.setProvider(demoProviderSettings());
        QObject::connect(&controller,
                         &AgentController::approvalRequested,
                         &controller,
                         [this, decision](const ApprovalRequest &request) {
                             approvals.append(request);
                             controller.resolveApproval(request.id, decision);
                         });
        QObject::connect(&controller,
                         &AgentController::responseReceived,
                         &controller,
                         [this](const Exchange &exchange) { exchanges.append(exchange); });
    }

    QString run(const QString &prompt)
    {
        QSignalSpy finished(&controller, &AgentController::finished);
        QSignalSpy failed(&controller, &AgentController::failed);
        controller.run(prompt);
        if (!QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); },
                             runTimeoutMs)) {
            return u"(timed out)"_s;
        }
        if (!failed.isEmpty())
            return u"(failed) "_s + failed.first().first().value<Error>().toString();
        return finished.first().first().toString();
    }

    QTemporaryDir workspace;
    FakeCommandRunner runner;
    AgentController controller;
    QList<ApprovalRequest> approvals;
    QList<Exchange> exchanges;
};

QString commandOf(const ApprovalRequest &request)
{
    return request.argumentsObject.value(u"command"_s).toString();
}

QJsonArray messagesOf(const Exchange &exchange)
{
    return QJsonDocument::fromJson(exchange.requestBody).object().value(u"messages"_s).toArray();
}

} // namespace

class tst_DemoProvider : public QObject
{
    Q_OBJECT

private slots:
    void approvedCallRunsAndTheAnswerQuotesItsOutput();
    void deniedCallMeansNothingRan();
    void everyRequestPassesThePairingCheck_data();
    void everyRequestPassesThePairingCheck();
    void powerShellGetsAPowerShellCommand();
    void chinesePromptGetsAChineseAnswer();
    void secondPromptStartsAnotherRound();
    void modelListNamesTheDemoModel();
    void repliesLookLikeHttp();
    void otherUrlsGoToTheNetwork();
};

void tst_DemoProvider::approvedCallRunsAndTheAnswerQuotesItsOutput()
{
    FakeCommandRunner commands;
    commands.enqueue(0, demoOutput);
    DemoRun demo(commands, ApprovalAnswer::allowOnce());

    const QString answer = demo.run(u"Show me how the loop works"_s);

    QCOMPARE(demo.approvals.size(), 1);
    QCOMPARE(demo.approvals.first().toolName, u"shell"_s);
    QCOMPARE(commandOf(demo.approvals.first()), u"echo \"Hello from the Agent Loop demo\"; date"_s);
    QCOMPARE(commands.requests().size(), 1);
    QCOMPARE(commands.requests().first().command, commandOf(demo.approvals.first()));
    QVERIFY2(answer.contains(u"Hello from the Agent Loop demo\nSat Nov 29 12:00:00 UTC 2025"_s),
             qPrintable(answer));
    QVERIFY2(answer.contains(u"approved"_s), qPrintable(answer));
    QVERIFY2(!answer.contains(u"Nothing ran"_s), qPrintable(answer));
    QCOMPARE(demo.exchanges.size(), 2);
}

void tst_DemoProvider::deniedCallMeansNothingRan()
{
    FakeCommandRunner commands;
    DemoRun demo(commands, ApprovalAnswer::deny());

    const QString answer = demo.run(u"Show me how the loop works"_s);

    QCOMPARE(demo.approvals.size(), 1);
    QCOMPARE(commands.requests().size(), 0);
    QVERIFY2(answer.startsWith(u"Nothing ran"_s), qPrintable(answer));
    QVERIFY2(answer.contains(u"you chose No"_s), qPrintable(answer));
    QCOMPARE(demo.exchanges.size(), 2);
    const QJsonArray sent = messagesOf(demo.exchanges.last());
    QCOMPARE(sent.last()[u"role"_s].toString(), u"tool"_s);
    QVERIFY(sent.last()[u"content"_s].toString().startsWith(u"denied"_s));
}

void tst_DemoProvider::everyRequestPassesThePairingCheck_data()
{
    QTest::addColumn<bool>("allow");
    QTest::newRow("approved") << true;
    QTest::newRow("denied") << false;
}

void tst_DemoProvider::everyRequestPassesThePairingCheck()
{
    QFETCH(bool, allow);
    FakeCommandRunner commands;
    commands.enqueue(0, demoOutput);
    DemoRun demo(commands, allow ? ApprovalAnswer::allowOnce() : ApprovalAnswer::deny());

    demo.run(u"Show me how the loop works"_s);

    QCOMPARE(demo.exchanges.size(), 2);
    for (const Exchange &exchange : std::as_const(demo.exchanges)) {
        const Result<History> history = History::fromJson(messagesOf(exchange));
        if (!history)
            QFAIL(qPrintable(history.error().toString()));
        const Result<void> pairing = history->checkPairing();
        if (!pairing)
            QFAIL(qPrintable(pairing.error().toString()));
    }
    // The second request carries the call and its one result, right after it.
    const QJsonArray second = messagesOf(demo.exchanges.last());
    const QJsonObject call = second.at(second.size() - 2).toObject();
    QCOMPARE(call[u"tool_calls"_s][0][u"id"_s].toString(),
             second.last()[u"tool_call_id"_s].toString());
}

void tst_DemoProvider::powerShellGetsAPowerShellCommand()
{
    FakeCommandRunner commands(
            ShellInfo{ShellInfo::PowerShellCore, u"pwsh"_s, u"PowerShell 7 (pwsh)"_s});
    commands.enqueue(0, demoOutput);
    DemoRun demo(commands, ApprovalAnswer::allowOnce());

    demo.run(u"Show me how the loop works"_s);

    QCOMPARE(demo.approvals.size(), 1);
    QVERIFY2(commandOf(demo.approvals.first())
                     .startsWith(u"Write-Output \"Hello from the Agent Loop demo\""_s),
             qPrintable(commandOf(demo.approvals.first())));
}

void tst_DemoProvider::chinesePromptGetsAChineseAnswer()
{
    FakeCommandRunner commands;
    commands.enqueue(0, demoOutput);
    DemoRun demo(commands, ApprovalAnswer::allowOnce());

    const QString answer = demo.run(u"演示一下智能体循环"_s);

    QVERIFY2(answer.startsWith(u"命令已经运行"_s), qPrintable(answer));
    QVERIFY(answer.contains(u"Hello from the Agent Loop demo"_s));
    const QJsonArray first = messagesOf(demo.exchanges.first());
    QCOMPARE(first.last()[u"content"_s].toString(), u"演示一下智能体循环"_s);
}

void tst_DemoProvider::secondPromptStartsAnotherRound()
{
    FakeCommandRunner commands;
    commands.enqueue(0, demoOutput);
    commands.enqueue(0, demoOutput);
    DemoRun demo(commands, ApprovalAnswer::allowOnce());

    demo.run(u"first"_s);
    const QString answer = demo.run(u"again"_s);

    QCOMPARE(demo.approvals.size(), 2);
    QVERIFY(demo.approvals.at(0).toolCallId != demo.approvals.at(1).toolCallId);
    QVERIFY2(answer.contains(u"Hello from the Agent Loop demo"_s), qPrintable(answer));
    QCOMPARE(demo.exchanges.size(), 4);
}

void tst_DemoProvider::modelListNamesTheDemoModel()
{
    ChatClient client;
    auto *network = new DemoNetworkAccessManager;
    network->setLatency(0ms, 0ms);
    client.setNetworkAccessManager(network);
    client.setSettings(demoProviderSettings());
    QSignalSpy listed(&client, &ChatClient::modelsListed);
    QSignalSpy failed(&client, &ChatClient::modelsFailed);

    client.listModels();

    QVERIFY(listed.isEmpty()); // asynchronous, like the network
    QTRY_COMPARE(listed.size(), 1);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(listed.first().first().toStringList(), QStringList{QString::fromLatin1(demoModelName)});
}

void tst_DemoProvider::repliesLookLikeHttp()
{
    FakeCommandRunner commands;
    commands.enqueue(0, demoOutput);
    DemoRun demo(commands, ApprovalAnswer::allowOnce());

    demo.run(u"Show me how the loop works"_s);

    QCOMPARE(demo.exchanges.size(), 2);
    for (const Exchange &exchange : std::as_const(demo.exchanges)) {
        QCOMPARE(exchange.httpStatus, 200);
        QCOMPARE(exchange.url, ChatClient::endpoint(demoBaseUrl(), u"/chat/completions"_s));
        bool json = false;
        for (const auto &header : exchange.responseHeaders) {
            if (header.first.compare("content-type", Qt::CaseInsensitive) == 0)
                json = header.second.startsWith("application/json");
        }
        QVERIFY(json);
        const QJsonObject body = QJsonDocument::fromJson(exchange.responseBody).object();
        QCOMPARE(body[u"object"_s].toString(), u"chat.completion"_s);
        QCOMPARE(body[u"model"_s].toString(), QString::fromLatin1(demoModelName));
        QVERIFY(body[u"usage"_s][u"total_tokens"_s].toInt() > 0);
    }
    const QJsonObject first = QJsonDocument::fromJson(demo.exchanges.first().responseBody).object();
    QCOMPARE(first[u"choices"_s][0][u"finish_reason"_s].toString(), u"tool_calls"_s);
    const QJsonObject last = QJsonDocument::fromJson(demo.exchanges.last().responseBody).object();
    QCOMPARE(last[u"choices"_s][0][u"finish_reason"_s].toString(), u"stop"_s);
}

void tst_DemoProvider::otherUrlsGoToTheNetwork()
{
    FakeChatServer server;
    server.setModels({u"real-model"_s});
    ChatClient client;
    client.setNetworkAccessManager(new DemoNetworkAccessManager);
    ProviderSettings settings;
    settings.baseUrl = server.baseUrl();
    settings.model = u"real-model"_s;
    client.setSettings(settings);
    QSignalSpy listed(&client, &ChatClient::modelsListed);

    client.listModels();

    QTRY_COMPARE(listed.size(), 1);
    QCOMPARE(listed.first().first().toStringList(), QStringList{u"real-model"_s});
    QCOMPARE(server.allRequests().size(), 1);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_DemoProvider)
#include "tst_demoprovider.moc"
