// The context window from the provider: when the configuration sets none and the front end lets
// it (discoverContextWindows()), the session asks the provider's /models once, in the background, and a window reported for the configured model
// becomes the controller's (source Provider), with budgetChanged to say so.

#include "agent/agentsession.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "testmain.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

using Source = ContextWindow::Source;

namespace {

constexpr int answerTimeoutMs = Testing::hangGuardMs;

// vLLM's answer: the served model with its max_model_len.
FakeResponse vllmModels()
{
    return FakeResponse::json(QJsonObject{{u"object"_s, u"list"_s},
                                          {u"data"_s,
                                           QJsonArray{QJsonObject{{u"id"_s, u"Qwen/Qwen3-32B"_s},
                                                                  {u"object"_s, u"model"_s},
                                                                  {u"max_model_len"_s, 40960}},
                                                      QJsonObject{{u"id"_s, u"gpt-4o"_s},
                                                                  {u"object"_s, u"model"_s}}}}});
}

} // namespace

class tst_ContextDiscovery : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void reportedWindowBecomesTheControllersWindow();
    void askedOncePerProvider();
    void theUsersSettingAsksNothing();
    void demoModeAsksNothing();
    void aModelTheListDoesNotSizeKeepsTheTable();
    void aFailedListKeepsTheTable();
    void configuringAloneSendsNothing();

private:
    // As the app does: a configuration applied, then the provider asked.
    static void configureAndDiscover(AgentSession &session, const SessionConfiguration &c);
    SessionConfiguration configuration(const QString &model = u"Qwen/Qwen3-32B"_s) const;
    int modelListRequests() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeChatServer> m_server;
};

void tst_ContextDiscovery::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void tst_ContextDiscovery::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<FakeChatServer>();
    m_server->setHandler([](const RecordedRequest &request) {
        if (request.method == "GET" && request.path == "/v1/models")
            return vllmModels();
        return FakeResponse::answer(u"ok"_s);
    });
}

SessionConfiguration tst_ContextDiscovery::configuration(const QString &model) const
{
    SessionConfiguration configuration;
    configuration.provider.baseUrl = m_server->baseUrl();
    configuration.provider.apiKey = u"sk-discovery-test"_s;
    configuration.provider.model = model;
    configuration.workspace = m_dir->path();
    return configuration;
}

void tst_ContextDiscovery::configureAndDiscover(AgentSession &session, const SessionConfiguration &c)
{
    session.configure(c);
    session.discoverContextWindows();
}

int tst_ContextDiscovery::modelListRequests() const
{
    int count = 0;
    for (const RecordedRequest &request : m_server->allRequests())
        count += request.path == "/v1/models" ? 1 : 0;
    return count;
}

void tst_ContextDiscovery::reportedWindowBecomesTheControllersWindow()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    QSignalSpy budgets(&session.controller(), &AgentController::budgetChanged);
    configureAndDiscover(session, configuration());
    // Until the provider answers: the table's figure for Qwen3 (the provider serves it with less).
    QCOMPARE(session.controller().options().contextWindow,
             (ContextWindow{131'072, Source::BuiltIn}));

    QTRY_COMPARE_WITH_TIMEOUT(session.controller().options().contextWindow,
                              (ContextWindow{40'960, Source::Provider}),
                              answerTimeoutMs);
    QVERIFY(!budgets.isEmpty());
    const auto last = budgets.last().first().value<ContextBudget>();
    QCOMPARE(last.window, (ContextWindow{40'960, Source::Provider}));
    QCOMPARE(session.reportedContextWindow(u"qwen/qwen3-32b"_s), std::optional<qint64>(40'960));
    QCOMPARE(modelListRequests(), 1);
    // The provider was asked with the key, as for every request.
    const RecordedRequest asked = m_server->allRequests().first();
    QCOMPARE(asked.header("Authorization"), QByteArray("Bearer sk-discovery-test"));
}

void tst_ContextDiscovery::askedOncePerProvider()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    configureAndDiscover(session, configuration());
    QTRY_COMPARE_WITH_TIMEOUT(session.controller().options().contextWindow.source,
                              Source::Provider,
                              answerTimeoutMs);

    // Another turn limit, another model of the same provider: the list is known.
    SessionConfiguration changed = configuration(u"gpt-4o"_s);
    changed.maxTurns = 5;
    configureAndDiscover(session, changed);
    QCOMPARE(session.controller().options().contextWindow,
             (ContextWindow{128'000, Source::BuiltIn}));
    configureAndDiscover(session, configuration());
    QCOMPARE(session.controller().options().contextWindow,
             (ContextWindow{40'960, Source::Provider}));
    QTest::qWait(100);
    QCOMPARE(modelListRequests(), 1);

    // Another key may see other models: asked again.
    SessionConfiguration otherKey = configuration();
    otherKey.provider.apiKey = u"sk-another-key"_s;
    configureAndDiscover(session, otherKey);
    QTRY_COMPARE_WITH_TIMEOUT(modelListRequests(), 2, answerTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(session.controller().options().contextWindow,
                              (ContextWindow{40'960, Source::Provider}),
                              answerTimeoutMs);
}

void tst_ContextDiscovery::theUsersSettingAsksNothing()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    SessionConfiguration set = configuration();
    set.context.contextWindow = 16'000;
    configureAndDiscover(session, set);
    QCOMPARE(session.controller().options().contextWindow, (ContextWindow{16'000, Source::Setting}));
    QTest::qWait(200);
    QCOMPARE(modelListRequests(), 0);
    QCOMPARE(session.controller().options().contextWindow, (ContextWindow{16'000, Source::Setting}));
}

void tst_ContextDiscovery::demoModeAsksNothing()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    SessionConfiguration demo = configuration();
    demo.demoMode = true;
    configureAndDiscover(session, demo);
    QTest::qWait(200);
    QVERIFY(m_server->allRequests().isEmpty());
}

void tst_ContextDiscovery::aModelTheListDoesNotSizeKeepsTheTable()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    configureAndDiscover(session, configuration(u"gpt-4o"_s));
    QTRY_COMPARE_WITH_TIMEOUT(modelListRequests(), 1, answerTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(session.reportedContextWindow(u"Qwen/Qwen3-32B"_s).has_value(),
                             answerTimeoutMs);
    QCOMPARE(session.reportedContextWindow(u"gpt-4o"_s), std::nullopt);
    QCOMPARE(session.controller().options().contextWindow,
             (ContextWindow{128'000, Source::BuiltIn}));
}

void tst_ContextDiscovery::aFailedListKeepsTheTable()
{
    m_server->setHandler(
            [](const RecordedRequest &) { return FakeResponse::httpError(404, u"Not found"_s); });
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    configureAndDiscover(session, configuration(u"deepseek-chat"_s));
    QTRY_COMPARE_WITH_TIMEOUT(modelListRequests(), 1, answerTimeoutMs);
    QTest::qWait(100);
    QCOMPARE(session.controller().options().contextWindow,
             (ContextWindow{128'000, Source::BuiltIn}));
}

// The CLI configures its session before it has checked its files: a usage error found then must
// leave the provider unasked.
void tst_ContextDiscovery::configuringAloneSendsNothing()
{
    AgentSession session(std::make_shared<FakeCommandRunner>(), ConversationStore(m_dir->path()));
    session.configure(configuration());
    QTest::qWait(200);
    QVERIFY(m_server->allRequests().isEmpty());
    QCOMPARE(session.controller().options().contextWindow,
             (ContextWindow{131'072, Source::BuiltIn}));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ContextDiscovery)
#include "tst_contextdiscovery.moc"
