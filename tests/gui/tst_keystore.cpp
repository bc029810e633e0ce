// Where the API key ends up when the settings are saved. HOME and every XDG_* directory point
// into a temporary directory, set before the QApplication exists; DBUS_SESSION_BUS_ADDRESS is
// unset there too, so that QtKeychain finds no Secret Service (as on a bare Linux box or in CI).
//
// Without a reachable credential store the key is not written to disk at all; with the
// plain-text opt-in it is in the settings file, and only then; unticking removes it again.
//
// secretServiceRoundTrip runs this executable again under dbus-run-session with a fresh
// gnome-keyring-daemon, when both are installed, to exercise the real Secret Service path.
// On Windows the settings file is redirected with QSettings::setPath (Windows keeps it under the
// AppData known folder, not HOME), and credentialManagerRoundTrip uses the real Credential
// Manager with an entry of its own.

#include "fakecredentialmanager.h"
#include "settings/appsettings.h"
#include "storage/keystore.h"
#include "testmain.h"

#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#ifdef Q_OS_WIN
#include <qt_windows.h>
#include <wincred.h>
#endif

using namespace Qt::StringLiterals;
using AgentLoop::FakeCredentialManager;
using AgentLoop::KeyStore;
using Gui::AppSettings;

class tst_KeyStore : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void sessionOnlyKeepsTheKeyOffDisk();
    void unreachableSystemStoreKeepsTheKeyOffDisk();
    void plainTextOptInWritesTheIniOnlyThen();
    void secretServiceRoundTrip();
    void credentialManagerRoundTrip();
    void keyTooLargeForCredentialManagerFailsThatSaveOnly();

private:
    AppSettings settingsWithKey() const;
    // "relative path: offset" of every copy of the key under the temporary HOME.
    QStringList filesHoldingTheKey() const;
    QByteArray settingsFileBytes() const;

    QString m_key;
};

namespace {

QTemporaryDir *root = nullptr;
// Set in the child run under dbus-run-session.
constexpr char secretServiceChildVariable[] = "AGENTLOOP_KEYSTORE_SECRET_SERVICE_CHILD";

QString randomKey()
{
    QString hex;
    for (int i = 0; i < 24; ++i)
        hex += QString::number(QRandomGenerator::global()->bounded(16), 16);
    return u"sk-storetest-"_s + hex;
}

// A fresh service name per run: a test never touches the user's "Agent Loop" entry.
QString testService()
{
    return u"agentloop-tests-"_s + QString::number(QRandomGenerator::global()->generate(), 16);
}

// The key a new store object (the next start of the app) reads from entries.
QString keyReadBack(const std::shared_ptr<FakeCredentialManager::Entries> &entries,
                    const QString &service)
{
    KeyStore store(std::make_unique<FakeCredentialManager>(entries), service);
    QSignalSpy read(&store, &KeyStore::keyRead);
    store.readKey();
    return read.wait() ? read.first().first().toString() : u"(no answer)"_s;
}

} // namespace

void tst_KeyStore::initTestCase()
{
    QVERIFY(root && root->isValid());
    QVERIFY2(AppSettings::settingsFilePath().startsWith(root->path()),
             qPrintable(AppSettings::settingsFilePath()));
    m_key = randomKey();
}

void tst_KeyStore::init()
{
    QFile::remove(AppSettings::settingsFilePath());
}

AppSettings tst_KeyStore::settingsWithKey() const
{
    AppSettings settings;
    settings.baseUrl = u"https://api.example.test/v1"_s;
    settings.model = u"gpt-test"_s;
    settings.apiKey = m_key;
    settings.workspace = root->path();
    return settings;
}

QStringList tst_KeyStore::filesHoldingTheKey() const
{
    const QByteArray utf8 = m_key.toUtf8();
    const QByteArray utf16(reinterpret_cast<const char *>(m_key.utf16()), m_key.size() * 2);
    const QByteArray base64 = utf8.toBase64(QByteArray::OmitTrailingEquals);
    QStringList found;
    QStringList directories{root->path()};
    // Under dbus-run-session, HOME is the keyring's folder: its files are searched too.
    if (!qEnvironmentVariableIsEmpty(secretServiceChildVariable))
        directories << QDir::homePath();
    for (const QString &directory : std::as_const(directories)) {
        // Regular files (not the keyring daemon's sockets).
        QDirIterator it(directory,
                        QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (it.fileInfo().isSymLink())
                continue;
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly)) {
                found << QDir(root->path()).relativeFilePath(path) + u": unreadable"_s;
                continue;
            }
            const QByteArray bytes = file.readAll();
            for (const QByteArray &needle : {utf8, utf16, base64}) {
                if (const qsizetype at = bytes.indexOf(needle); at >= 0)
                    found << u"%1: %2"_s.arg(QDir(root->path()).relativeFilePath(path)).arg(at);
            }
        }
    }
    return found;
}

QByteArray tst_KeyStore::settingsFileBytes() const
{
    QFile file(AppSettings::settingsFilePath());
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void tst_KeyStore::sessionOnlyKeepsTheKeyOffDisk()
{
    KeyStore store(KeyStore::Backend::SessionOnly, testService());
    QSignalSpy written(&store, &KeyStore::keyWritten);
    settingsWithKey().save(store);
    QTRY_COMPARE(written.size(), 1);
    QCOMPARE(written.first().first().toBool(), false); // this session only
    QCOMPARE(store.availability(), KeyStore::Availability::Unavailable);

    // The settings were saved (the search means something), without the key.
    QVERIFY(settingsFileBytes().contains("gpt-test"));
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));
    const AppSettings loaded = AppSettings::load(QProcessEnvironment(), root->path());
    QVERIFY(loaded.apiKey.isEmpty());
    QVERIFY(loaded.keyIsInStore());

    // It is still there for this session.
    QSignalSpy read(&store, &KeyStore::keyRead);
    store.readKey();
    QTRY_COMPARE(read.size(), 1);
    QCOMPARE(read.first().first().toString(), m_key);
}

void tst_KeyStore::unreachableSystemStoreKeepsTheKeyOffDisk()
{
#ifdef Q_OS_WIN
    QSKIP("Windows' Credential Manager is part of the system and always reachable");
#endif
    if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        QSKIP("a D-Bus session bus is set for this run; the unreachable store is tested without");
    // The real backend, with nothing to talk to.
    KeyStore store(KeyStore::Backend::System, testService());
    store.setTimeout(10000);
    QSignalSpy written(&store, &KeyStore::keyWritten);
    settingsWithKey().save(store);
    QTRY_COMPARE_WITH_TIMEOUT(written.size(), 1, AgentLoop::Testing::hangGuardMs);
    QCOMPARE(written.first().first().toBool(), false);
    QCOMPARE(store.availability(), KeyStore::Availability::Unavailable);
    QVERIFY(!store.unavailableReason().isEmpty());

    QVERIFY(settingsFileBytes().contains("gpt-test"));
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));

    // Saving again once the store is known to be unavailable writes nothing either.
    settingsWithKey().save(store);
    QTRY_COMPARE(written.size(), 2);
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));
}

void tst_KeyStore::plainTextOptInWritesTheIniOnlyThen()
{
    KeyStore store(KeyStore::Backend::SessionOnly, testService());
    QSignalSpy written(&store, &KeyStore::keyWritten);
    QSignalSpy deleted(&store, &KeyStore::keyDeleted);

    // Not ticked: not in the file.
    AppSettings settings = settingsWithKey();
    settings.save(store);
    QTRY_COMPARE(written.size(), 1);
    QVERIFY(!settingsFileBytes().isEmpty());
    QVERIFY(!settingsFileBytes().contains(m_key.toUtf8()));

    // Ticked: in the file, and nowhere else.
    settings.storeKeyInPlainText = true;
    settings.save(store);
    QTRY_COMPARE(deleted.size(), 1);
    QVERIFY2(settingsFileBytes().contains(m_key.toUtf8()), settingsFileBytes().constData());
    const QString iniPath = QDir(root->path()).relativeFilePath(AppSettings::settingsFilePath());
    const QStringList holders = filesHoldingTheKey();
    QCOMPARE(holders.size(), 1);
    QVERIFY2(holders.first().startsWith(iniPath + u':'), qPrintable(holders.join(u'\n')));
#ifdef Q_OS_UNIX
    // On Windows the file is private through its folder's ACL (%APPDATA% is the user's), which
    // Qt's permission bits do not describe.
    QCOMPARE(QFileInfo(AppSettings::settingsFilePath()).permissions()
                     & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
             QFileDevice::Permissions());
#endif
    const AppSettings loaded = AppSettings::load(QProcessEnvironment(), root->path());
    QCOMPARE(loaded.apiKey, m_key);
    QVERIFY(loaded.storeKeyInPlainText);
    QVERIFY(!loaded.keyIsInStore());

    // Unticked again: gone from the file (and back in the session store).
    settings.storeKeyInPlainText = false;
    settings.save(store);
    QTRY_COMPARE(written.size(), 2);
    QVERIFY(settingsFileBytes().contains("gpt-test"));
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));
    QVERIFY(AppSettings::load(QProcessEnvironment(), root->path()).apiKey.isEmpty());

    // A key from the environment is never copied into the file, even when ticked.
    QProcessEnvironment environment;
    environment.insert(u"OPENAI_API_KEY"_s, m_key);
    AppSettings inherited = AppSettings::load(environment, root->path());
    QCOMPARE(inherited.apiKey, m_key);
    inherited.storeKeyInPlainText = true;
    inherited.save(store);
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));
}

void tst_KeyStore::secretServiceRoundTrip()
{
    if (qEnvironmentVariableIsEmpty(secretServiceChildVariable)) {
        // The parent: run this test again in a private session bus with its own keyring.
        const QString dbusRunSession = QStandardPaths::findExecutable(u"dbus-run-session"_s);
        const QString keyringDaemon = QStandardPaths::findExecutable(u"gnome-keyring-daemon"_s);
        if (dbusRunSession.isEmpty() || keyringDaemon.isEmpty())
            QSKIP("dbus-run-session or gnome-keyring-daemon is not installed: the real Secret "
                  "Service path is not tested");
        QTemporaryDir home(root->path() + u"/secret-service-XXXXXX"_s);
        QVERIFY(home.isValid());
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QString::fromLatin1(secretServiceChildVariable), u"1"_s);
        environment.insert(u"HOME"_s, home.path());
        environment.insert(u"XDG_CONFIG_HOME"_s, home.path() + u"/.config"_s);
        environment.insert(u"XDG_DATA_HOME"_s, home.path() + u"/.local/share"_s);
        environment.insert(u"XDG_CACHE_HOME"_s, home.path() + u"/.cache"_s);
        environment.insert(u"XDG_RUNTIME_DIR"_s, home.path() + u"/runtime"_s);
        QVERIFY(QDir().mkpath(home.path() + u"/runtime"_s));
        QFile::setPermissions(home.path() + u"/runtime"_s,
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                      | QFileDevice::ExeOwner);
        environment.remove(u"DBUS_SESSION_BUS_ADDRESS"_s);
        QProcess child;
        child.setProcessEnvironment(environment);
        child.setProcessChannelMode(QProcess::MergedChannels);
        // A login keyring with a throwaway password, unlocked, then this test alone.
        const QString script
                = u"printf 'agentloop-test' | \"$1\" --unlock --components=secrets >/dev/null "
                  "2>&1 || exit 77; exec \"$2\" \"$3\" secretServiceRoundTrip"_s;
        child.start(dbusRunSession,
                    {u"--"_s,
                     u"/bin/sh"_s,
                     u"-c"_s,
                     script,
                     u"sh"_s,
                     keyringDaemon,
                     QCoreApplication::applicationFilePath(),
                     AgentLoop::Testing::runningTestName()});
        QVERIFY(child.waitForStarted());
        if (!child.waitForFinished(60000)) {
            child.kill();
            child.waitForFinished();
            QFAIL("the Secret Service run did not finish within 60 s");
        }
        const QString output = QString::fromUtf8(child.readAll());
        if (child.exitCode() == 77
            || output.contains(u"SKIP   : tst_KeyStore::secretServiceRoundTrip"_s))
            QSKIP(qPrintable(u"no Secret Service could be started here: "_s + output.right(400)));
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 qPrintable(output));
        return;
    }

    // The child, inside dbus-run-session with an unlocked keyring.
    if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        QSKIP("no D-Bus session bus is reachable: the Secret Service path is not tested");
    KeyStore store(KeyStore::Backend::System, testService());
    store.setTimeout(15000);
    QSignalSpy written(&store, &KeyStore::keyWritten);
    AppSettings settings = settingsWithKey();
    settings.save(store);
    QTRY_COMPARE_WITH_TIMEOUT(written.size(), 1, AgentLoop::Testing::hangGuardMs);
    if (store.availability() != KeyStore::Availability::Available)
        QSKIP(qPrintable(u"the Secret Service is not usable here: "_s + store.unavailableReason()));
    QCOMPARE(written.first().first().toBool(), true);

    // Stored, readable by a new store object, and in no file in plain text (the keyring file
    // is encrypted).
    KeyStore other(KeyStore::Backend::System, store.service());
    QSignalSpy read(&other, &KeyStore::keyRead);
    other.readKey();
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, AgentLoop::Testing::hangGuardMs);
    QCOMPARE(read.first().first().toString(), m_key);
    QVERIFY(!settingsFileBytes().contains(m_key.toUtf8()));
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));

    QSignalSpy deleted(&store, &KeyStore::keyDeleted);
    store.deleteKey();
    QTRY_COMPARE_WITH_TIMEOUT(deleted.size(), 1, AgentLoop::Testing::hangGuardMs);
    QSignalSpy readAgain(&other, &KeyStore::keyRead);
    other.readKey();
    QTRY_COMPARE_WITH_TIMEOUT(readAgain.size(), 1, AgentLoop::Testing::hangGuardMs);
    QCOMPARE(readAgain.first().first().toString(), QString());
}

void tst_KeyStore::credentialManagerRoundTrip()
{
#ifndef Q_OS_WIN
    QSKIP("Windows' Credential Manager exists only on Windows");
#else
    KeyStore store(KeyStore::Backend::System, testService());
    QSignalSpy written(&store, &KeyStore::keyWritten);
    settingsWithKey().save(store);
    QTRY_COMPARE(written.size(), 1);
    QVERIFY2(written.first().first().toBool(), qPrintable(store.unavailableReason()));
    QCOMPARE(store.availability(), KeyStore::Availability::Available);

    // What the user sees in Credential Manager: a generic credential "<service>/OPENAI_API_KEY".
    const QString target = store.service() + u"/OPENAI_API_KEY"_s;
    PCREDENTIALW credential = nullptr;
    QVERIFY(CredReadW(reinterpret_cast<LPCWSTR>(target.utf16()), CRED_TYPE_GENERIC, 0, &credential));
    const QByteArray secret(reinterpret_cast<const char *>(credential->CredentialBlob),
                            qsizetype(credential->CredentialBlobSize));
    CredFree(credential);
    QCOMPARE(QString::fromUtf8(secret), m_key);
    QVERIFY(!settingsFileBytes().contains(m_key.toUtf8()));
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));

    // A new store object (the next start of the app) reads it back.
    KeyStore other(KeyStore::Backend::System, store.service());
    QSignalSpy read(&other, &KeyStore::keyRead);
    other.readKey();
    QTRY_COMPARE(read.size(), 1);
    QCOMPARE(read.first().first().toString(), m_key);

    QSignalSpy deleted(&store, &KeyStore::keyDeleted);
    store.deleteKey();
    QTRY_COMPARE(deleted.size(), 1);
    QVERIFY(!CredReadW(reinterpret_cast<LPCWSTR>(target.utf16()), CRED_TYPE_GENERIC, 0, &credential));
    QCOMPARE(GetLastError(), DWORD(ERROR_NOT_FOUND));
    QSignalSpy readAgain(&other, &KeyStore::keyRead);
    other.readKey();
    QTRY_COMPARE(readAgain.size(), 1);
    QCOMPARE(readAgain.first().first().toString(), QString());
#endif
}

// Checked on every platform against a fake with the Credential Manager's limit: the key is counted
// in UTF-8, as both Windows backends write it (a key of 856 characters is 2562 bytes here, and
// would be 1712 in UTF-16).
void tst_KeyStore::keyTooLargeForCredentialManagerFailsThatSaveOnly()
{
    const auto entries = std::make_shared<FakeCredentialManager::Entries>();
    const QString service = testService();
    KeyStore store(std::make_unique<FakeCredentialManager>(entries), service);
    QSignalSpy written(&store, &KeyStore::keyWritten);
    settingsWithKey().save(store);
    QTRY_COMPARE(written.size(), 1);
    QCOMPARE(written.at(0).first().toBool(), true);
    QCOMPARE(store.availability(), KeyStore::Availability::Available);

    AppSettings tooLarge = settingsWithKey();
    tooLarge.apiKey = u"sk-"_s + QString(853, u'密');
    tooLarge.save(store);
    QTRY_COMPARE(written.size(), 2);
    QCOMPARE(written.at(1).first().toBool(), false);
    QCOMPARE(store.refusal(),
             u"The key is 2562 bytes; Windows Credential Manager stores at most 2560 bytes. It is "
             "kept for this session only."_s);
    // That save failed, not the store.
    QCOMPARE(store.availability(), KeyStore::Availability::Available);
    QCOMPARE(store.unavailableReason(), QString());
    QSignalSpy read(&store, &KeyStore::keyRead);
    store.readKey();
    QVERIFY(read.wait());
    QCOMPARE(read.first().first().toString(), tooLarge.apiKey); // for this session
    QCOMPARE(keyReadBack(entries, service), m_key);             // the stored one is untouched
    QVERIFY2(filesHoldingTheKey().isEmpty(), qPrintable(filesHoldingTheKey().join(u'\n')));

    // The next key that fits, to the byte, is stored.
    AppSettings largest = settingsWithKey();
    largest.apiKey = u"sk-"_s + QString(2557, u'k');
    largest.save(store);
    QTRY_COMPARE(written.size(), 3);
    QCOMPARE(written.at(2).first().toBool(), true);
    QCOMPARE(store.refusal(), QString());
    QCOMPARE(store.availability(), KeyStore::Availability::Available);
    QCOMPARE(keyReadBack(entries, service), largest.apiKey);
}

namespace {

// Not QTEST_MAIN: the environment must be set before the QApplication exists.
int runTests(int argc, char *argv[])
{
    const bool child = !qEnvironmentVariableIsEmpty(secretServiceChildVariable);
    QTemporaryDir home(QDir::tempPath() + u"/agentloop-keystore-XXXXXX"_s);
    if (!home.isValid())
        return 1;
    root = &home;
    const QByteArray path = home.path().toLocal8Bit();
    if (child) {
        // The parent set HOME and XDG_* to a folder of its own for the keyring; the settings
        // file goes into this run's temporary folder.
        qputenv("XDG_CONFIG_HOME", path + "/.config");
    } else {
        qputenv("HOME", path);
        qputenv("XDG_CONFIG_HOME", path + "/.config");
        qputenv("XDG_DATA_HOME", path + "/.local/share");
        qputenv("XDG_CACHE_HOME", path + "/.cache");
        qputenv("XDG_STATE_HOME", path + "/.local/state");
        qputenv("XDG_RUNTIME_DIR", path + "/runtime");
        qputenv("TMPDIR", path + "/tmp");
        QDir().mkpath(QString::fromLocal8Bit(path + "/tmp"));
        QDir().mkpath(QString::fromLocal8Bit(path + "/runtime"));
        QFile::setPermissions(QString::fromLocal8Bit(path + "/runtime"),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                      | QFileDevice::ExeOwner);
        // No session bus: QtKeychain cannot reach any Secret Service.
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"AgentLoop"_s);
    QApplication::setApplicationName(u"AgentLoop"_s);
#ifdef Q_OS_WIN
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, home.path());
#endif
    tst_KeyStore test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace

AGENTLOOP_TEST_ENTRY(runTests)

#include "tst_keystore.moc"
