#include "context/contextwindow.h"
#include "context/tokenledger.h"
#include "testmain.h"

#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

using Source = ContextWindow::Source;

// Declared before the test data: moc (6.4) misreads \" inside raw string literals.
class tst_ContextWindow : public QObject
{
    Q_OBJECT

private slots:
    void builtInTable_data();
    void builtInTable();
    void unknownModelsAreNotGuessed();
    void modelListWindows();
    void modelListWithoutWindows_data();
    void modelListWithoutWindows();
    void resolutionOrder();
    void formatTokenCount_data();
    void formatTokenCount();
    void budgetText();
};

void tst_ContextWindow::builtInTable_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<qint64>("tokens");

    QTest::newRow("gpt-4o") << u"gpt-4o"_s << qint64(128'000);
    QTest::newRow("gpt-4o dated") << u"gpt-4o-2024-08-06"_s << qint64(128'000);
    QTest::newRow("gpt-4o-mini") << u"gpt-4o-mini"_s << qint64(128'000);
    QTest::newRow("gpt-4.1") << u"gpt-4.1"_s << qint64(1'047'576);
    QTest::newRow("gpt-4.1-mini dated") << u"gpt-4.1-mini-2025-04-14"_s << qint64(1'047'576);
    QTest::newRow("gpt-4.1-nano") << u"gpt-4.1-nano"_s << qint64(1'047'576);
    QTest::newRow("gpt-4 is not gpt-4.1") << u"gpt-4-0613"_s << qint64(8'192);
    QTest::newRow("gpt-4-turbo") << u"gpt-4-turbo-2024-04-09"_s << qint64(128'000);
    QTest::newRow("gpt-5") << u"gpt-5"_s << qint64(400'000);
    QTest::newRow("gpt-5-mini") << u"gpt-5-mini"_s << qint64(400'000);
    QTest::newRow("gpt-5-chat-latest") << u"gpt-5-chat-latest"_s << qint64(128'000);
    QTest::newRow("o1") << u"o1-2024-12-17"_s << qint64(200'000);
    QTest::newRow("o1-mini") << u"o1-mini"_s << qint64(128'000);
    QTest::newRow("o3") << u"o3"_s << qint64(200'000);
    QTest::newRow("o3-mini") << u"o3-mini"_s << qint64(200'000);
    QTest::newRow("o4-mini") << u"o4-mini-2025-04-16"_s << qint64(200'000);
    QTest::newRow("OpenRouter openai/gpt-4o") << u"openai/gpt-4o"_s << qint64(128'000);
    QTest::newRow("deepseek-chat") << u"deepseek-chat"_s << qint64(128'000);
    QTest::newRow("deepseek-reasoner") << u"deepseek-reasoner"_s << qint64(128'000);
    QTest::newRow("OpenRouter deepseek/deepseek-chat")
            << u"deepseek/deepseek-chat"_s << qint64(128'000);
    QTest::newRow("qwen-max") << u"qwen-max"_s << qint64(32'768);
    QTest::newRow("qwen-plus-latest") << u"qwen-plus-latest"_s << qint64(131'072);
    QTest::newRow("qwen-turbo") << u"qwen-turbo"_s << qint64(1'000'000);
    QTest::newRow("qwen-long") << u"qwen-long"_s << qint64(10'000'000);
    QTest::newRow("qwen3-235b-a22b") << u"qwen3-235b-a22b"_s << qint64(131'072);
    QTest::newRow("qwen3-max") << u"qwen3-max"_s << qint64(262'144);
    QTest::newRow("qwen3-coder-plus") << u"qwen3-coder-plus"_s << qint64(1'048'576);
    QTest::newRow("qwen3-coder-480b") << u"qwen3-coder-480b-a35b-instruct"_s << qint64(262'144);
    QTest::newRow("Ollama qwen3:8b") << u"qwen3:8b"_s << qint64(131'072);
    QTest::newRow("moonshot-v1-8k") << u"moonshot-v1-8k"_s << qint64(8'192);
    QTest::newRow("moonshot-v1-32k") << u"moonshot-v1-32k"_s << qint64(32'768);
    QTest::newRow("moonshot-v1-128k") << u"moonshot-v1-128k"_s << qint64(131'072);
    QTest::newRow("kimi-k2-0905-preview") << u"kimi-k2-0905-preview"_s << qint64(262'144);
    QTest::newRow("kimi-k2-0711-preview") << u"kimi-k2-0711-preview"_s << qint64(131'072);
    QTest::newRow("kimi-k2-turbo-preview") << u"kimi-k2-turbo-preview"_s << qint64(262'144);
    QTest::newRow("kimi-latest") << u"kimi-latest"_s << qint64(131'072);
    QTest::newRow("OpenRouter moonshotai/kimi-k2") << u"moonshotai/kimi-k2"_s << qint64(262'144);
    QTest::newRow("glm-4.5") << u"glm-4.5"_s << qint64(128'000);
    QTest::newRow("glm-4.5-air") << u"glm-4.5-air"_s << qint64(128'000);
    QTest::newRow("glm-4.6") << u"glm-4.6"_s << qint64(200'000);
    QTest::newRow("glm-4-plus") << u"glm-4-plus"_s << qint64(128'000);
    QTest::newRow("glm-4-flash") << u"glm-4-flash"_s << qint64(128'000);
    QTest::newRow("glm-4-long") << u"glm-4-long"_s << qint64(1'000'000);
    QTest::newRow("OpenRouter z-ai/glm-4.6") << u"z-ai/glm-4.6"_s << qint64(200'000);
    QTest::newRow("claude via a gateway") << u"anthropic/claude-sonnet-4"_s << qint64(200'000);
    QTest::newRow("claude dated") << u"claude-3-5-sonnet-20241022"_s << qint64(200'000);
    QTest::newRow("gemini-2.5-pro") << u"gemini-2.5-pro"_s << qint64(1'048'576);
    QTest::newRow("gemini-2.0-flash") << u"google/gemini-2.0-flash-001"_s << qint64(1'048'576);
    QTest::newRow("llama-3.3-70b") << u"llama-3.3-70b-versatile"_s << qint64(131'072);
    QTest::newRow("Meta-Llama-3.1 any case")
            << u"meta-llama/Meta-Llama-3.1-8B-Instruct"_s << qint64(131'072);
    QTest::newRow("llama3-70b-8192") << u"llama3-70b-8192"_s << qint64(8'192);
    QTest::newRow("mistral-large-latest") << u"mistral-large-latest"_s << qint64(131'072);
    QTest::newRow("codestral") << u"codestral-2501"_s << qint64(256'000);
    QTest::newRow("upper case") << u"GPT-4o"_s << qint64(128'000);
}

void tst_ContextWindow::builtInTable()
{
    QFETCH(QString, model);
    QFETCH(qint64, tokens);
    QCOMPARE(builtInContextWindow(model), std::optional<qint64>(tokens));
    const ContextWindow resolved = resolveContextWindow(model, 0);
    QCOMPARE(resolved.tokens, tokens);
    QCOMPARE(resolved.source, Source::BuiltIn);
}

void tst_ContextWindow::unknownModelsAreNotGuessed()
{
    for (const QString &model : {u"my-finetune"_s, u""_s, u"local/model"_s, u"xgpt-4o"_s}) {
        QCOMPARE(builtInContextWindow(model), std::nullopt);
        QCOMPARE(resolveContextWindow(model, 0), (ContextWindow{128'000, Source::Fallback}));
    }
}

void tst_ContextWindow::modelListWindows()
{
    // As OpenRouter (context_length), vLLM (max_model_len), Groq (context_window) and LM Studio
    // (max_context_length) write them; a model with none is left out.
    const QByteArray body = R"json({"object":"list","data":[
        {"id":"deepseek/deepseek-chat","object":"model","context_length":163840},
        {"id":"Qwen/Qwen3-32B","object":"model","max_model_len":40960},
        {"id":"llama-3.3-70b-versatile","object":"model","context_window":131072.0},
        {"id":"qwen2.5-7b-instruct","object":"model","max_context_length":32768},
        {"id":"gpt-4o","object":"model","owned_by":"openai"},
        {"object":"model","context_length":8192}
    ]})json";
    const QHash<QString, qint64> windows = contextWindowsFromModelList(body);
    const QHash<QString, qint64> expected{{u"deepseek/deepseek-chat"_s, 163'840},
                                          {u"Qwen/Qwen3-32B"_s, 40'960},
                                          {u"llama-3.3-70b-versatile"_s, 131'072},
                                          {u"qwen2.5-7b-instruct"_s, 32'768}};
    QCOMPARE(windows, expected);
}

void tst_ContextWindow::modelListWithoutWindows_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("not JSON") << QByteArray("<html>502</html>");
    QTest::newRow("no data") << QByteArray(R"json({"object":"list"})json");
    QTest::newRow("a string") << QByteArray(
            R"json({"data":[{"id":"m","context_length":"128k"}]})json");
    QTest::newRow("negative") << QByteArray(R"json({"data":[{"id":"m","context_length":-1}]})json");
    QTest::newRow("absurdly small")
            << QByteArray(R"json({"data":[{"id":"m","max_model_len":16}]})json");
    QTest::newRow("absurdly large")
            << QByteArray(R"json({"data":[{"id":"m","context_window":1e15}]})json");
}

void tst_ContextWindow::modelListWithoutWindows()
{
    QFETCH(QByteArray, body);
    QVERIFY(contextWindowsFromModelList(body).isEmpty());
}

void tst_ContextWindow::resolutionOrder()
{
    // The user's setting, then the provider's metadata, then the table, then 128 000.
    QCOMPARE(resolveContextWindow(u"gpt-4o"_s, 32'000, 64'000),
             (ContextWindow{32'000, Source::Setting}));
    QCOMPARE(resolveContextWindow(u"gpt-4o"_s, 0, 64'000),
             (ContextWindow{64'000, Source::Provider}));
    QCOMPARE(resolveContextWindow(u"gpt-4o"_s, 0, std::nullopt),
             (ContextWindow{128'000, Source::BuiltIn}));
    QCOMPARE(resolveContextWindow(u"my-finetune"_s, 0, 40'960),
             (ContextWindow{40'960, Source::Provider}));
    QCOMPARE(resolveContextWindow(u"my-finetune"_s, 0, std::nullopt),
             (ContextWindow{128'000, Source::Fallback}));
    QCOMPARE(resolveContextWindow(u"my-finetune"_s, 8'000, std::nullopt),
             (ContextWindow{8'000, Source::Setting}));
    // A report of nothing is no report.
    QCOMPARE(resolveContextWindow(u"gpt-4o"_s, 0, 0), (ContextWindow{128'000, Source::BuiltIn}));
}

void tst_ContextWindow::formatTokenCount_data()
{
    QTest::addColumn<qint64>("tokens");
    QTest::addColumn<QString>("text");
    QTest::newRow("0") << qint64(0) << u"0"_s;
    QTest::newRow("950") << qint64(950) << u"950"_s;
    QTest::newRow("999") << qint64(999) << u"999"_s;
    QTest::newRow("1000") << qint64(1000) << u"1k"_s;
    QTest::newRow("1234") << qint64(1234) << u"1.2k"_s;
    QTest::newRow("31 200") << qint64(31'200) << u"31.2k"_s;
    QTest::newRow("31 249") << qint64(31'249) << u"31.2k"_s;
    QTest::newRow("99 949") << qint64(99'949) << u"99.9k"_s;
    QTest::newRow("99 950") << qint64(99'950) << u"100k"_s;
    QTest::newRow("128 000") << qint64(128'000) << u"128k"_s;
    QTest::newRow("131 072") << qint64(131'072) << u"131k"_s;
    QTest::newRow("999 499") << qint64(999'499) << u"999k"_s;
    QTest::newRow("999 500") << qint64(999'500) << u"1M"_s;
    QTest::newRow("1 000 000") << qint64(1'000'000) << u"1M"_s;
    QTest::newRow("1 047 576") << qint64(1'047'576) << u"1.05M"_s;
    QTest::newRow("2 097 152") << qint64(2'097'152) << u"2.1M"_s;
    QTest::newRow("10 000 000") << qint64(10'000'000) << u"10M"_s;
    QTest::newRow("262 144") << qint64(262'144) << u"262k"_s;
}

void tst_ContextWindow::formatTokenCount()
{
    QFETCH(qint64, tokens);
    QFETCH(QString, text);
    QCOMPARE(AgentLoop::formatTokenCount(tokens), text);
}

void tst_ContextWindow::budgetText()
{
    ContextBudget budget;
    budget.used = 31'200;
    budget.window = {128'000, Source::BuiltIn};
    budget.estimated = true;
    QCOMPARE(budget.text(), u"≈31.2k / 128k"_s);
    budget.estimated = false;
    QCOMPARE(budget.text(), u"31.2k / 128k"_s);
    QCOMPARE(budget.fraction(), 31'200.0 / 128'000.0);
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ContextWindow)
#include "tst_contextwindow.moc"
