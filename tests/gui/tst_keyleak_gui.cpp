// The leak test for the desktop app, in process: a distinctive fake key goes through a
// conversation against the fake provider (a command that prints the key, a model that repeats
// it, a 401 whose message echoes it), the conversation is exported, every inspector and chat text
// is copied through the clipboard into files, and the settings are saved. Then everything under
// the temporary HOME (HOME, every XDG_* directory and TMPDIR point into it, set before the
// QApplication exists so that QStandardPaths and QSettings use it), the clipboard texts and every
// qDebug/qWarning line are searched for the key: there must be no hit.
//
// Windows keeps an app's files in known folders (SHGetKnownFolderPath), which no environment
// variable redirects, under Wine or Windows. There the settings file is put in the temporary
// folder with QSettings::setPath, TMP and TEMP point into it, and the app's own folders
// (QStandardPaths in test mode, under an organization name of this run alone) are searched too.

#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "inspector/inspector.h"
#include "inspector/turnmodel.h"
#include "leaksearch.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "settings/appsettings.h"
#include "storage/config.h"
#include "storage/keystore.h"
#include "testjson.h"
#include "testmain.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

#ifdef Q_OS_WIN
#include <windows.h>
#endif

using namespace AgentLoop;
using namespace Qt::StringLiterals;

class tst_KeyLeakGui : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void conversationWithEchoesAndAnError();
    void exportConversation();
    void copyEverythingShown();
    void saveSettingsAndClose();
    // Last: searches what all the steps above left behind.
    void keyIsNowhere();
    void searchWasMeaningful();
    // What the app does at start-up, in a process started with OPENAI_API_KEY as the app is.
    void startUpTakesTheKeyOutOfTheEnvironment();

private:
    bool writeText(const QString &name, const QString &text);

    QString m_key;
    QString m_copies; // where the copied texts are written
    QStringList m_clipboardTexts;
    FakeCommandRunner m_runner;
    std::unique_ptr<MainWindowFixture> m_app; // the window, its fake provider and key store
    QList<RecordedRequest> m_requests;
};

namespace {

// The temporary HOME; made in main() before the QApplication.
QTemporaryDir *root = nullptr;
// Every folder the app may write to: root, and on Windows the app's own folders.
QStringList searchedFolders;

// Every message Qt and the app logged, for the search.
QStringList *loggedMessages = nullptr;
QtMessageHandler previousHandler = nullptr;

void captureMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (loggedMessages)
        loggedMessages->append(message);
    if (previousHandler)
        previousHandler(type, context, message);
}

// Exports the open conversation in both formats into directory.
QStringList exportBothFormats(const Gui::MainWindow &window,
                              const QString &directory,
                              QString *error)
{
    using Format = Gui::MainWindow::ExportFormat;
    QStringList written;
    const QList<QPair<Format, QString>> formats{
            {Format::MessagesJson, u"export.json"_s},
            {Format::Markdown, u"export.md"_s},
    };
    for (const auto &[format, name] : formats) {
        const QString path = QDir(directory).filePath(name);
        const auto result = window.exportConversation(format, path);
        if (!result) {
            *error = result.error().message;
            return {};
        }
        written << path;
    }
    return written;
}

} // namespace

bool tst_KeyLeakGui::writeText(const QString &name, const QString &text)
{
    QFile file(QDir(m_copies).filePath(name));
    const QByteArray bytes = text.toUtf8();
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
           && file.write(bytes) == bytes.size();
}

void tst_KeyLeakGui::initTestCase()
{
    // QTest::qExec() put its own message handler in place of the one main() installed.
    previousHandler = qInstallMessageHandler(captureMessage);
    QVERIFY(root && root->isValid());
    // The app's own paths are in the folders searched at the end.
    for (const auto location : {QStandardPaths::AppLocalDataLocation,
                                QStandardPaths::AppDataLocation,
                                QStandardPaths::AppConfigLocation,
                                QStandardPaths::CacheLocation}) {
        const QString path = QStandardPaths::writableLocation(location);
        QVERIFY2(std::any_of(searchedFolders.cbegin(),
                             searchedFolders.cend(),
                             [&](const QString &folder) { return path.startsWith(folder + u'/'); }),
                 qPrintable(path));
    }
    QVERIFY2(Gui::AppSettings::settingsFilePath().startsWith(root->path()),
             qPrintable(Gui::AppSettings::settingsFilePath()));
    QVERIFY2(QDir::tempPath().startsWith(root->path()), qPrintable(QDir::tempPath()));

    QString hex;
    for (int i = 0; i < 24; ++i)
        hex += QString::number(QRandomGenerator::global()->bounded(16), 16);
    m_key = u"sk-leaktest-"_s + hex;
    m_copies = QDir(root->path()).filePath(u"copies"_s);
    QVERIFY(QDir().mkpath(m_copies));
    QVERIFY(QDir().mkpath(QDir(root->path()).filePath(u"workspace"_s)));

    MainWindowFixture::Options app;
    app.apiKey = m_key;
    app.workspace = QDir(root->path()).filePath(u"workspace"_s);
    m_app = std::make_unique<MainWindowFixture>(app);
    m_app->settings.maxRetries = 0;
    m_app->settings.demoMode = false;
    m_app->settings.storeKeyInPlainText = false;
    m_app->windowOptions.commandRunner = std::make_shared<FakeCommandRunner>(m_runner);
    m_app->windowOptions.persist = true;
    m_app->openWindow();
    QVERIFY(m_app->waitForWindowExposed());
}

void tst_KeyLeakGui::conversationWithEchoesAndAnError()
{
    // A command that prints the environment's key; the model repeats it in its answer.
    m_runner.enqueue(0, u"OPENAI_API_KEY="_s + m_key + u"\n"_s);
    m_app->server.script({FakeResponse::toolCall(u"call_1"_s,
                                                 u"shell"_s,
                                                 shellArguments(u"env | grep OPENAI_API_KEY"_s)),
                          FakeResponse::answer(u"Your key is "_s + m_key + u", keep it safe."_s)});
    m_app->type(u"Which key do I use?"_s);
    QVERIFY(m_app->waitForApproval());
    QVERIFY(m_app->allowPendingCall());
    QVERIFY(m_app->waitUntilFinished());
    QCOMPARE(m_runner.requests().size(), 1);

    // A careless provider: its error message names the whole key.
    m_app->server.setHandler([this](const RecordedRequest &request) {
        return FakeResponse::httpError(401,
                                       u"Incorrect API key provided: %1 (header: %2)"_s
                                               .arg(m_key,
                                                    QString::fromUtf8(
                                                            request.header("Authorization"))),
                                       u"invalid_request_error"_s,
                                       u"invalid_api_key"_s);
    });
    m_app->type(u"And again?"_s);
    QTRY_VERIFY_WITH_TIMEOUT(m_app->window->statusText().startsWith(u"Failed"_s),
                             Testing::hangGuardMs);
    // A settings dialog or message box the error may have opened stays open for the search.

    // The key was really used, and really came back.
    m_requests = m_app->server.requests();
    QCOMPARE(m_requests.size(), 3);
    for (const RecordedRequest &request : std::as_const(m_requests))
        QCOMPARE(request.header("Authorization"), "Bearer " + m_key.toUtf8());
    // The command's output, key blanked out, is what the model was told.
    QVERIFY(m_requests.at(1)
                    .toolMessages()
                    .value(0)
                    .value(u"content"_s)
                    .toString()
                    .startsWith(u"OPENAI_API_KEY=[REDACTED]"_s));
}

void tst_KeyLeakGui::exportConversation()
{
    QString error;
    const QStringList written = exportBothFormats(*m_app->window, m_copies, &error);
    QVERIFY2(error.isEmpty(), qPrintable(QString(error).replace(m_key, u"<KEY>"_s)));
    for (const QString &path : written)
        QVERIFY2(QFileInfo(path).size() > 0, qPrintable(path));
}

void tst_KeyLeakGui::copyEverythingShown()
{
    QClipboard *clipboard = QGuiApplication::clipboard();
    const auto copied = [&](const QString &name) {
        const QString text = clipboard->text();
        m_clipboardTexts << text;
        return writeText(name, text);
    };

    Gui::Inspector *inspector = m_app->window->inspector();
    const int rows = m_app->window->turnModel()->rowCount();
    QVERIFY(rows >= 3);
    for (int row = 0; row < rows; ++row) {
        inspector->selectRow(row);
        const QString prefix = u"row%1-"_s.arg(row);
        QVERIFY(writeText(prefix + u"request.txt"_s, inspector->requestText()));
        QVERIFY(writeText(prefix + u"response.txt"_s, inspector->responseText()));
        QVERIFY(writeText(prefix + u"assembled.txt"_s, inspector->assembledText()));
        QVERIFY(writeText(prefix + u"headers.txt"_s, inspector->headersText()));
        QVERIFY(writeText(prefix + u"summary.txt"_s, inspector->summaryText()));
        QStringList cells;
        for (int column = 0; column < m_app->window->turnModel()->columnCount(); ++column) {
            const QModelIndex index = m_app->window->turnModel()->index(row, column);
            cells << index.data().toString() << index.data(Qt::ToolTipRole).toString();
        }
        QVERIFY(writeText(prefix + u"table.txt"_s, cells.join(u'\n')));
        for (const char *button : {"copyRequestButton", "copyResponseButton", "copyCurlButton"}) {
            auto *copy = inspector->findChild<QPushButton *>(QString::fromLatin1(button));
            QVERIFY2(copy, button);
            clipboard->clear();
            if (!copy->isEnabled())
                continue;
            copy->click();
            QVERIFY(copied(prefix + QString::fromLatin1(button) + u".txt"_s));
        }
    }

    // The chat: everything selected and copied, as Ctrl+A, Ctrl+C would.
    Gui::ChatView *chat = m_app->window->chatView();
    chat->selectAll();
    clipboard->clear();
    chat->copySelection();
    QVERIFY(copied(u"chat.txt"_s));
    QVERIFY2(m_clipboardTexts.constLast().contains(u"Which key do I use?"_s),
             "the chat copy is not the conversation");
    QStringList shown;
    for (int row = 0; row < m_app->window->chatModel()->rowCount(); ++row)
        shown << Gui::ChatModel::plainText(m_app->window->chatModel()->item(row));
    shown << m_app->window->statusText() << m_app->window->windowTitle();
    if (QMessageBox *box = visibleMessageBox())
        shown << box->text() << box->informativeText() << box->detailedText();
    QVERIFY(writeText(u"shown.txt"_s, shown.join(u'\n')));
}

void tst_KeyLeakGui::saveSettingsAndClose()
{
    QSignalSpy written(&m_app->keyStore, &AgentLoop::KeyStore::keyWritten);
    m_app->window->settings().save(m_app->keyStore);
    QTRY_COMPARE(written.size(), 1);
    QCOMPARE(written.first().first().toBool(), false); // kept for this session only
    rejectVisibleMessageBoxes();
    m_app->window->close(); // saves the window's layout too
    m_app->window.reset();
    QVERIFY(QFileInfo::exists(Gui::AppSettings::settingsFilePath()));
}

void tst_KeyLeakGui::keyIsNowhere()
{
    const KeyNeedles needles = keyNeedles(m_key);
    QStringList hits;
    int filesSearched = 0;
    for (const QString &folder : std::as_const(searchedFolders)) {
        QDirIterator it(folder,
                        QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (it.fileInfo().isSymLink())
                continue;
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly),
                     qPrintable(path + u": "_s + file.errorString()));
            hits << keyHits(file.readAll(), path, needles);
            hits << keyHits(path.toUtf8(), u"file name"_s, needles);
            ++filesSearched;
        }
    }
    for (const QString &text : std::as_const(m_clipboardTexts))
        hits << keyHits(text.toUtf8(), u"clipboard"_s, needles);
    const QStringList messages = *loggedMessages; // a copy: QVERIFY2 below logs too
    for (const QString &message : messages)
        hits << keyHits(message.toUtf8(), u"log message"_s, needles);
    qInfo("searched %d files, %d clipboard texts and %d log messages",
          filesSearched,
          int(m_clipboardTexts.size()),
          int(messages.size()));
    for (const QString &hit : std::as_const(hits))
        qWarning("key found in %s", qPrintable(hit.section(u':', 0, 0)));
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
}

void tst_KeyLeakGui::searchWasMeaningful()
{
    QVERIFY2(QFileInfo(Gui::AppSettings::settingsFilePath()).size() > 0,
             qPrintable(Gui::AppSettings::settingsFilePath()));
    QStringList conversations;
    QDirIterator it(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation),
                    QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (it.fileInfo().size() > 0)
            conversations << path;
    }
    QVERIFY2(!conversations.isEmpty(),
             "no conversation file was written under AppLocalDataLocation");
    QVERIFY(!m_clipboardTexts.isEmpty());
}

void tst_KeyLeakGui::startUpTakesTheKeyOutOfTheEnvironment()
{
    constexpr char childMarker[] = "AGENTLOOP_KEYLEAK_STARTUP_CHILD";
    const QByteArray keyEntry = QByteArray(apiKeyVariable) + '=';
    if (!qEnvironmentVariableIsSet(childMarker)) {
        // /proc/<pid>/environ shows the environment a process was started with, not what
        // qputenv() adds later: this test runs again in a process started with the key, as the
        // app is started from a shell that exports it.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QString::fromLatin1(apiKeyVariable), m_key);
        environment.insert(QString::fromLatin1(baseUrlVariable), m_app->server.baseUrl().toString());
        environment.insert(QString::fromLatin1(modelVariable), u"gpt-test"_s);
        environment.insert(QString::fromLatin1(childMarker), u"1"_s);
        QProcess child;
        child.setProcessEnvironment(environment);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(),
                    {Testing::runningTestName(), u"startUpTakesTheKeyOutOfTheEnvironment"_s});
        QVERIFY(child.waitForFinished(120000));
        const QByteArray output = child.readAll();
        QVERIFY2(keyHits(output, u"the child's output"_s, keyNeedles(m_key)).isEmpty(),
                 "the child printed the key");
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 output.constData());
        QVERIFY2(output.contains(
                         "PASS   : tst_KeyLeakGui::startUpTakesTheKeyOutOfTheEnvironment()"),
                 output.constData());
        return;
    }

    // The child: the key is in the environment it was started with.
    const QString key = qEnvironmentVariable(apiKeyVariable);
    QVERIFY(!key.isEmpty());
#ifdef Q_OS_LINUX
    const auto procSelfEnviron = [] {
        QFile file(u"/proc/self/environ"_s);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    QVERIFY2(procSelfEnviron().contains(keyEntry + key.toUtf8()), "the test would prove nothing");
#endif

    // What src/app/main.cpp does before the window exists.
    const Gui::AppSettings settings = Gui::AppSettings::load();

    // The app has the key, knows where it came from, and will not store it...
    QVERIFY(settings.provider().apiKey == key);
    QVERIFY(settings.isOverridden(apiKeyVariable));
    QVERIFY(!settings.keyIsInStore());
    // ...and its environment no longer has it: not for the processes it starts, not for a
    // process that reads it from outside.
    QVERIFY(qgetenv(apiKeyVariable).isEmpty());
    QVERIFY(!QProcessEnvironment::systemEnvironment().contains(QString::fromLatin1(apiKeyVariable)));
#ifdef Q_OS_LINUX
    const QByteArray shown = procSelfEnviron();
    QVERIFY2(keyHits(shown, u"/proc/self/environ"_s, keyNeedles(key)).isEmpty(),
             "the key is still in /proc/self/environ");
    QVERIFY2(!shown.contains(keyEntry), "OPENAI_API_KEY is still in /proc/self/environ");
    QVERIFY(shown.contains(QByteArray(baseUrlVariable) + '=')); // the others stay
#elif defined(Q_OS_WIN)
    QCOMPARE(GetEnvironmentVariableW(L"OPENAI_API_KEY", nullptr, 0), DWORD(0));
#endif
}

namespace {

// Not QTEST_MAIN: the environment must point into the temporary HOME before the QApplication
// (and with it QStandardPaths, QSettings and the temporary folder) is created.
int runTests(int argc, char *argv[])
{
    QTemporaryDir home(QDir::tempPath() + u"/agentloop-keyleak-XXXXXX"_s);
    if (!home.isValid())
        return 1;
    root = &home;
    searchedFolders << home.path();
    const QByteArray path = home.path().toLocal8Bit();
#ifdef Q_OS_WIN
    const QString temporary = QDir::toNativeSeparators(home.path() + u"/tmp"_s);
    qputenv("TMP", temporary.toLocal8Bit());
    qputenv("TEMP", temporary.toLocal8Bit());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, home.path() + u"/config"_s);
    QStandardPaths::setTestModeEnabled(true);
    const QString organization = u"AgentLoop-leaktest-%1"_s
                                         .arg(QRandomGenerator::global()->generate(),
                                              8,
                                              16,
                                              QChar(u'0'));
#else
    const QString organization = u"AgentLoop"_s;
#endif
    qputenv("HOME", path + "/home");
    qputenv("XDG_CONFIG_HOME", path + "/home/.config");
    qputenv("XDG_DATA_HOME", path + "/home/.local/share");
    qputenv("XDG_CACHE_HOME", path + "/home/.cache");
    qputenv("XDG_STATE_HOME", path + "/home/.local/state");
    qputenv("XDG_RUNTIME_DIR", path + "/runtime");
    qputenv("TMPDIR", path + "/tmp");
    for (const char *dir : {"/home/.config", "/home/.local/share", "/runtime", "/tmp"})
        QDir().mkpath(QString::fromLocal8Bit(path + dir));
    QFile::setPermissions(QString::fromLocal8Bit(path + "/runtime"),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QStringList messages;
    loggedMessages = &messages;
    const QtMessageHandler originalHandler = qInstallMessageHandler(captureMessage);
    previousHandler = originalHandler;

    QApplication app(argc, argv);
    QApplication::setOrganizationName(organization);
    QApplication::setApplicationName(u"AgentLoop"_s);
#ifdef Q_OS_WIN
    // The organization's folders under the known folders: this run's alone, removed afterwards.
    QStringList ownFolders;
    for (const auto location :
         {QStandardPaths::AppLocalDataLocation, QStandardPaths::AppDataLocation}) {
        const QString folder = QFileInfo(QStandardPaths::writableLocation(location)).path();
        if (!folder.endsWith(u'/' + organization) || QFileInfo::exists(folder))
            return 1; // not this run's own folder
        ownFolders << folder;
    }
    searchedFolders << ownFolders;
#endif
    app.setAttribute(Qt::AA_Use96Dpi, true);
    tst_KeyLeakGui test;
    const int result = QTest::qExec(&test, argc, argv);
#ifdef Q_OS_WIN
    for (const QString &folder : std::as_const(ownFolders))
        QDir(folder).removeRecursively();
#endif
    qInstallMessageHandler(originalHandler);
    loggedMessages = nullptr;
    return result;
}

} // namespace

AGENTLOOP_TEST_ENTRY(runTests)

#include "tst_keyleak_gui.moc"
