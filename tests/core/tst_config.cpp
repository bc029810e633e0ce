#include "storage/config.h"
#include "testmain.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;

using StringMap = QMap<QString, QString>;

namespace {

const QString baseUrlName = u"OPENAI_BASE_URL"_s;
const QString apiKeyName = u"OPENAI_API_KEY"_s;
const QString modelName = u"OPENAI_MODEL"_s;

QProcessEnvironment environmentOf(const StringMap &values)
{
    QProcessEnvironment environment;
    // Something unrelated, so that an empty map is not the only thing that works.
    environment.insert(u"PATH"_s, u"/usr/bin:/bin"_s);
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        environment.insert(it.key(), it.value());
    return environment;
}

} // namespace

class tst_Config : public QObject
{
    Q_OBJECT

private slots:
    void readDotEnv_data();
    void readDotEnv();
    void readDotEnvMissingFileIsEmpty();
    void readDotEnvUnreadableIsAnError();

    void loadConfig_data();
    void loadConfig();
    void loadConfigReadsDotEnvOfTheGivenDirectoryOnly();

    void baseUrlError_data();
    void baseUrlError();
    void baseUrlWarning_data();
    void baseUrlWarning();
};

void tst_Config::readDotEnv_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<StringMap>("expected");

    QTest::newRow("plain") << QByteArray("A=1\nB=two\n")
                           << StringMap{{u"A"_s, u"1"_s}, {u"B"_s, u"two"_s}};
    QTest::newRow("no final newline") << QByteArray("A=1") << StringMap{{u"A"_s, u"1"_s}};
    QTest::newRow("empty file") << QByteArray() << StringMap{};
    QTest::newRow("comments and blank lines")
            << QByteArray("# a comment\n\n   # indented comment\nA=1\n\n")
            << StringMap{{u"A"_s, u"1"_s}};
    QTest::newRow("comment after unquoted value")
            << QByteArray("A=value # note\n") << StringMap{{u"A"_s, u"value"_s}};
    QTest::newRow("hash inside a value")
            << QByteArray("A=abc#def\n") << StringMap{{u"A"_s, u"abc#def"_s}};
    QTest::newRow("export") << QByteArray("export A=1\nexport   B=2\n")
                            << StringMap{{u"A"_s, u"1"_s}, {u"B"_s, u"2"_s}};
    QTest::newRow("double quotes")
            << QByteArray("A=\"hello world\"\n") << StringMap{{u"A"_s, u"hello world"_s}};
    QTest::newRow("single quotes")
            << QByteArray("A='x # not a comment'\n") << StringMap{{u"A"_s, u"x # not a comment"_s}};
    QTest::newRow("quoted spaces are kept")
            << QByteArray("A=\"  padded  \"\n") << StringMap{{u"A"_s, u"  padded  "_s}};
    QTest::newRow("spaces around key and value")
            << QByteArray("   A   =   1   \n") << StringMap{{u"A"_s, u"1"_s}};
    QTest::newRow("blank value") << QByteArray("A=\nB=   \n")
                                 << StringMap{{u"A"_s, QString()}, {u"B"_s, QString()}};
    QTest::newRow("equals inside the value")
            << QByteArray("A=b=c\n") << StringMap{{u"A"_s, u"b=c"_s}};
    QTest::newRow("lines without a key are skipped")
            << QByteArray("just text\n=novalue\nA=1\n") << StringMap{{u"A"_s, u"1"_s}};
    QTest::newRow("UTF-8 BOM") << QByteArray("\xEF\xBB\xBFOPENAI_MODEL=gpt-4.1\n")
                               << StringMap{{modelName, u"gpt-4.1"_s}};
    QTest::newRow("CRLF line ends")
            << QByteArray("A=1\r\nB=\"q\"\r\n") << StringMap{{u"A"_s, u"1"_s}, {u"B"_s, u"q"_s}};
    QTest::newRow("later line wins") << QByteArray("A=1\nA=2\n") << StringMap{{u"A"_s, u"2"_s}};
    QTest::newRow("non-ASCII value")
            << QByteArray("A=\xE4\xB8\xAD\xE6\x96\x87\n") << StringMap{{u"A"_s, u"中文"_s}};
    QTest::newRow("seed example") << QByteArray(
            "OPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_API_KEY=sk-...\n"
            "OPENAI_MODEL=gpt-4.1\n")
                                  << StringMap{{baseUrlName, u"https://api.openai.com/v1"_s},
                                               {apiKeyName, u"sk-..."_s},
                                               {modelName, u"gpt-4.1"_s}};
}

void tst_Config::readDotEnv()
{
    QFETCH(QByteArray, content);
    QFETCH(StringMap, expected);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u".env"_s);
    QVERIFY(writeFile(path, content));

    const Result<StringMap> values = AgentLoop::readDotEnv(path);
    QVERIFY2(values.hasValue(), qPrintable(values ? QString() : values.error().message));
    QCOMPARE(*values, expected);
}

void tst_Config::readDotEnvMissingFileIsEmpty()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Result<StringMap> values = AgentLoop::readDotEnv(dir.filePath(u".env"_s));
    QVERIFY(values.hasValue());
    QVERIFY(values->isEmpty());
}

void tst_Config::readDotEnvUnreadableIsAnError()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A folder named .env exists but cannot be read as a file.
    QVERIFY(QDir(dir.path()).mkdir(u".env"_s));
    const Result<StringMap> values = AgentLoop::readDotEnv(dir.filePath(u".env"_s));
    QVERIFY(!values.hasValue());
    QCOMPARE(values.error().kind, Error::Configuration);
    QVERIFY2(values.error().message.contains(u".env"_s), qPrintable(values.error().message));

    const Result<LoadedConfig> config
            = AgentLoop::loadConfig(environmentOf({{baseUrlName, u"https://api.openai.com/v1"_s},
                                                   {apiKeyName, u"sk-env"_s},
                                                   {modelName, u"gpt-4.1"_s}}),
                                    dir.path());
    QVERIFY(!config.hasValue());
    QCOMPARE(config.error().kind, Error::Configuration);
}

void tst_Config::loadConfig_data()
{
    QTest::addColumn<StringMap>("environment");
    QTest::addColumn<QByteArray>("dotEnv"); // no .env file when null
    QTest::addColumn<QString>("error");     // expected error message; empty: success
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<QString>("apiKey");
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("warned");

    const StringMap complete{{baseUrlName, u"https://api.openai.com/v1"_s},
                             {apiKeyName, u"sk-env"_s},
                             {modelName, u"gpt-env"_s}};
    const QByteArray completeDotEnv("OPENAI_BASE_URL=https://dotenv.example/v1\n"
                                    "OPENAI_API_KEY=sk-dotenv\n"
                                    "OPENAI_MODEL=gpt-dotenv\n");
    const QString allMissing
            = u"Missing required settings: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL"_s;

    QTest::newRow("environment only")
            << complete << QByteArray() << QString() << u"https://api.openai.com/v1"_s
            << u"sk-env"_s << u"gpt-env"_s << false;
    QTest::newRow(".env only") << StringMap{} << completeDotEnv << QString()
                               << u"https://dotenv.example/v1"_s << u"sk-dotenv"_s
                               << u"gpt-dotenv"_s << false;
    QTest::newRow("environment wins over .env")
            << complete << completeDotEnv << QString() << u"https://api.openai.com/v1"_s
            << u"sk-env"_s << u"gpt-env"_s << false;
    QTest::newRow("mixed: each value from where it is set")
            << StringMap{{modelName, u"gpt-env"_s}} << completeDotEnv << QString()
            << u"https://dotenv.example/v1"_s << u"sk-dotenv"_s << u"gpt-env"_s << false;
    QTest::newRow("blank environment value falls back to .env")
            << StringMap{{baseUrlName, u"https://api.openai.com/v1"_s},
                         {apiKeyName, u"   "_s},
                         {modelName, u"gpt-env"_s}}
            << completeDotEnv << QString() << u"https://api.openai.com/v1"_s << u"sk-dotenv"_s
            << u"gpt-env"_s << false;
    QTest::newRow("values are trimmed")
            << StringMap{{baseUrlName, u"  https://api.openai.com/v1  "_s},
                         {apiKeyName, u" sk-env "_s},
                         {modelName, u"\tgpt-env "_s}}
            << QByteArray() << QString() << u"https://api.openai.com/v1"_s << u"sk-env"_s
            << u"gpt-env"_s << false;
    QTest::newRow("nothing anywhere") << StringMap{} << QByteArray() << allMissing << QString()
                                      << QString() << QString() << false;
    QTest::newRow("empty .env") << StringMap{} << QByteArray("# nothing\n") << allMissing
                                << QString() << QString() << QString() << false;
    QTest::newRow("all blank") << StringMap{{baseUrlName, u""_s},
                                            {apiKeyName, u"   "_s},
                                            {modelName, u"\t"_s}}
                               << QByteArray("OPENAI_MODEL=   \n") << allMissing << QString()
                               << QString() << QString() << false;
    QTest::newRow("key only missing")
            << StringMap{{baseUrlName, u"https://api.openai.com/v1"_s}, {modelName, u"gpt"_s}}
            << QByteArray() << u"Missing required settings: OPENAI_API_KEY"_s << QString()
            << QString() << QString() << false;
    QTest::newRow("key of spaces in .env")
            << StringMap{{baseUrlName, u"https://api.openai.com/v1"_s}, {modelName, u"gpt"_s}}
            << QByteArray("OPENAI_API_KEY=   \n") << u"Missing required settings: OPENAI_API_KEY"_s
            << QString() << QString() << QString() << false;
    QTest::newRow("quoted blank in .env")
            << StringMap{{baseUrlName, u"https://api.openai.com/v1"_s}, {apiKeyName, u"k"_s}}
            << QByteArray("OPENAI_MODEL=\"  \"\n") << u"Missing required settings: OPENAI_MODEL"_s
            << QString() << QString() << QString() << false;
    QTest::newRow("base URL and model missing, in order")
            << StringMap{{apiKeyName, u"sk-env"_s}} << QByteArray()
            << u"Missing required settings: OPENAI_BASE_URL, OPENAI_MODEL"_s << QString()
            << QString() << QString() << false;
    QTest::newRow("key and model missing, in order")
            << StringMap{{baseUrlName, u"https://api.openai.com/v1"_s}} << QByteArray()
            << u"Missing required settings: OPENAI_API_KEY, OPENAI_MODEL"_s << QString()
            << QString() << QString() << false;
    QTest::newRow("base URL only missing")
            << StringMap{{apiKeyName, u"sk-env"_s}, {modelName, u"gpt"_s}} << QByteArray()
            << u"Missing required settings: OPENAI_BASE_URL"_s << QString() << QString()
            << QString() << false;
    QTest::newRow("base URL ends in /chat/completions")
            << StringMap{{baseUrlName, u"https://api.openai.com/v1/chat/completions"_s},
                         {apiKeyName, u"sk-env"_s},
                         {modelName, u"gpt"_s}}
            << QByteArray()
            << AgentLoop::baseUrlError(u"https://api.openai.com/v1/chat/completions"_s) << QString()
            << QString() << QString() << false;
    QTest::newRow("base URL without scheme in .env")
            << StringMap{{apiKeyName, u"sk-env"_s}, {modelName, u"gpt"_s}}
            << QByteArray("OPENAI_BASE_URL=api.openai.com/v1\n")
            << AgentLoop::baseUrlError(u"api.openai.com/v1"_s) << QString() << QString()
            << QString() << false;
    QTest::newRow("missing settings come before a bad base URL")
            << StringMap{{baseUrlName, u"ftp://x/v1"_s}} << QByteArray()
            << u"Missing required settings: OPENAI_API_KEY, OPENAI_MODEL"_s << QString()
            << QString() << QString() << false;
    QTest::newRow("no /v1 is a warning only")
            << StringMap{{baseUrlName, u"https://api.example.com"_s},
                         {apiKeyName, u"sk-env"_s},
                         {modelName, u"gpt"_s}}
            << QByteArray() << QString() << u"https://api.example.com"_s << u"sk-env"_s << u"gpt"_s
            << true;
}

void tst_Config::loadConfig()
{
    QFETCH(StringMap, environment);
    QFETCH(QByteArray, dotEnv);
    QFETCH(QString, error);
    QFETCH(QString, baseUrl);
    QFETCH(QString, apiKey);
    QFETCH(QString, model);
    QFETCH(bool, warned);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (!dotEnv.isNull())
        QVERIFY(writeFile(dir.filePath(u".env"_s), dotEnv));

    const Result<LoadedConfig> config = AgentLoop::loadConfig(environmentOf(environment),
                                                              dir.path());
    if (!error.isEmpty()) {
        QVERIFY2(!config.hasValue(), "loaded although a setting is missing or invalid");
        QCOMPARE(config.error().kind, Error::Configuration);
        QCOMPARE(config.error().message, error);
        if (error.startsWith(u"Missing"_s)) {
            // The hint says where the settings go and that blanks count as missing.
            QVERIFY2(config.error().hint.contains(u".env"_s), qPrintable(config.error().hint));
            QVERIFY2(config.error().hint.contains(u"spaces"_s), qPrintable(config.error().hint));
        }
        return;
    }
    QVERIFY2(config.hasValue(), qPrintable(config ? QString() : config.error().message));
    QCOMPARE(config->provider.baseUrl, QUrl(baseUrl));
    QCOMPARE(config->provider.apiKey, apiKey);
    QCOMPARE(config->provider.model, model);
    QCOMPARE(config->warnings.size(), warned ? 1 : 0);
    if (warned)
        QCOMPARE(config->warnings.first(), AgentLoop::baseUrlWarning(baseUrl));
}

void tst_Config::loadConfigReadsDotEnvOfTheGivenDirectoryOnly()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(u"sub"_s));
    QVERIFY(writeFile(dir.filePath(u".env"_s),
                      "OPENAI_BASE_URL=https://x/v1\nOPENAI_API_KEY=k\nOPENAI_MODEL=m\n"));

    const Result<LoadedConfig> parent = AgentLoop::loadConfig(environmentOf({}), dir.path());
    QVERIFY(parent.hasValue());
    const Result<LoadedConfig> child = AgentLoop::loadConfig(environmentOf({}),
                                                             dir.filePath(u"sub"_s));
    QVERIFY(!child.hasValue());
    QCOMPARE(child.error().message,
             u"Missing required settings: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL"_s);
}

void tst_Config::baseUrlError_data()
{
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<QString>("expected"); // a fragment of the error; empty: no error

    const QString scheme = u"must be an http:// or https:// URL"_s;
    const QString doubled = u"must not end with /chat/completions"_s;
    QTest::newRow("openai") << u"https://api.openai.com/v1"_s << QString();
    QTest::newRow("trailing slash") << u"https://api.openai.com/v1/"_s << QString();
    QTest::newRow("local http with port") << u"http://127.0.0.1:8080/v1"_s << QString();
    QTest::newRow("no /v1 is not an error") << u"https://example.com"_s << QString();
    QTest::newRow("surrounding spaces") << u"  https://api.openai.com/v1  "_s << QString();
    QTest::newRow("empty") << QString() << scheme;
    QTest::newRow("spaces") << u"   "_s << scheme;
    QTest::newRow("ftp") << u"ftp://example.com/v1"_s << scheme;
    QTest::newRow("no scheme") << u"api.openai.com/v1"_s << scheme;
    QTest::newRow("no host") << u"https:///v1"_s << scheme;
    QTest::newRow("not a URL") << u"http://exa mple.com/v1"_s << scheme;
    QTest::newRow("chat/completions") << u"https://x/v1/chat/completions"_s << doubled;
    QTest::newRow("chat/completions with trailing slash")
            << u"https://x/v1/chat/completions/"_s << doubled;
    QTest::newRow("chat/completions without /v1")
            << u"http://localhost:1234/chat/completions"_s << doubled;
}

void tst_Config::baseUrlError()
{
    QFETCH(QString, baseUrl);
    QFETCH(QString, expected);

    const QString error = AgentLoop::baseUrlError(baseUrl);
    if (expected.isEmpty()) {
        QVERIFY2(error.isEmpty(), qPrintable(error));
        return;
    }
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY2(error.contains(u"OPENAI_BASE_URL"_s), qPrintable(error));
    if (expected.contains(u"/chat/completions"_s)) {
        // It says why: the client appends the path itself.
        QVERIFY2(error.contains(u"appends /chat/completions itself"_s), qPrintable(error));
        QVERIFY2(error.contains(u"https://api.openai.com/v1"_s), qPrintable(error));
    } else {
        QVERIFY2(error.contains(u"(got \"%1\")"_s.arg(baseUrl.trimmed())), qPrintable(error));
    }
}

void tst_Config::baseUrlWarning_data()
{
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<bool>("warned");

    QTest::newRow("/v1") << u"https://api.openai.com/v1"_s << false;
    QTest::newRow("/v1/") << u"https://api.openai.com/v1/"_s << false;
    QTest::newRow("prefix/v1") << u"https://gateway.example/openai/v1"_s << false;
    QTest::newRow("no path") << u"https://api.openai.com"_s << true;
    QTest::newRow("slash only") << u"https://api.openai.com/"_s << true;
    QTest::newRow("other path") << u"http://127.0.0.1:8080/api"_s << true;
    QTest::newRow("/v2") << u"https://example.com/v2"_s << true;
    QTest::newRow("/v1beta") << u"https://example.com/v1beta"_s << true;
    // Known providers whose path is their own.
    QTest::newRow("GLM") << u"https://open.bigmodel.cn/api/paas/v4"_s << false;
    QTest::newRow("Gemini") << u"https://generativelanguage.googleapis.com/v1beta/openai/"_s
                            << false;
    QTest::newRow("Volcengine Ark") << u"https://ark.cn-beijing.volces.com/api/v3"_s << false;
    QTest::newRow("Azure deployment")
            << u"https://contoso.openai.azure.com/openai/deployments/gpt41?api-version=2024-10-21"_s
            << false;
    QTest::newRow("GLM without its path") << u"https://open.bigmodel.cn/"_s << true;
}

void tst_Config::baseUrlWarning()
{
    QFETCH(QString, baseUrl);
    QFETCH(bool, warned);

    const QString warning = AgentLoop::baseUrlWarning(baseUrl);
    if (!warned) {
        QVERIFY2(warning.isEmpty(), qPrintable(warning));
        return;
    }
    QVERIFY2(warning.contains(u"does not end with /v1"_s), qPrintable(warning));
    QVERIFY2(warning.contains(u"404"_s), qPrintable(warning));
    QVERIFY(AgentLoop::baseUrlError(baseUrl).isEmpty()); // a warning, never an error
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_Config)

#include "tst_config.moc"
