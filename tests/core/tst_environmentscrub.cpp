// removeFromOwnEnvironment(): afterwards neither this process's environment functions, nor what
// it starts, nor what another process reads of it (/proc/<pid>/environ, the Windows environment
// block) has the value; other variables keep theirs.

#include "base/environmentscrub.h"
#include "testmain.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#ifdef Q_OS_WIN
#include <windows.h>

#include <cstdlib>
#include <cwchar>
#endif

using namespace AgentLoop;
using namespace Qt::StringLiterals;

namespace {

constexpr char probeName[] = "AGENTLOOP_SCRUB_PROBE";
// Its name begins with the probe's: a match on the prefix alone would take it too.
constexpr char neighbourName[] = "AGENTLOOP_SCRUB_PROBE_NEIGHBOUR";
const QByteArray probeValue = "scrub-probe-6f1d0c9a2b7e4d3c";
const QByteArray neighbourValue = "neighbour-value-0d9e";

// With a '\0' before the first entry too, so that every entry is "\0NAME=value\0".
[[maybe_unused]] QByteArray procSelfEnviron()
{
    QFile file(u"/proc/self/environ"_s);
    return file.open(QIODevice::ReadOnly) ? '\0' + file.readAll() : QByteArray();
}

} // namespace

class tst_EnvironmentScrub : public QObject
{
    Q_OBJECT

private slots:
    void variableSetInProcessIsGone();
    void procSelfEnvironNoLongerShowsIt();
    void windowsEnvironmentBlockNoLongerHasIt();
};

void tst_EnvironmentScrub::variableSetInProcessIsGone()
{
    qputenv(probeName, probeValue);
    qputenv(neighbourName, neighbourValue);
    QCOMPARE(qgetenv(probeName), probeValue);

    removeFromOwnEnvironment(probeName);
    QVERIFY(qgetenv(probeName).isEmpty());
    QVERIFY(!qEnvironmentVariableIsSet(probeName));
    // What QProcess gives the processes it starts.
    QVERIFY(!QProcessEnvironment::systemEnvironment().contains(QString::fromLatin1(probeName)));
    QCOMPARE(qgetenv(neighbourName), neighbourValue);
#ifdef Q_OS_UNIX
    // And what a real child sees.
    QProcess child;
    child.start(
            u"/bin/sh"_s,
            {u"-c"_s,
             u"printf '<%s|%s>' \"$AGENTLOOP_SCRUB_PROBE\" \"$AGENTLOOP_SCRUB_PROBE_NEIGHBOUR\""_s});
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(child.readAllStandardOutput(), "<|" + neighbourValue + ">");
#endif
    qunsetenv(neighbourName);
}

void tst_EnvironmentScrub::procSelfEnvironNoLongerShowsIt()
{
#ifdef Q_OS_LINUX
    if (qEnvironmentVariableIsEmpty(probeName)) {
        // /proc/<pid>/environ shows the environment a process was started with, not what
        // qputenv() adds later: the test runs again, in a process started with the variable.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QString::fromLatin1(probeName), QString::fromLatin1(probeValue));
        environment.insert(QString::fromLatin1(neighbourName), QString::fromLatin1(neighbourValue));
        QProcess child;
        child.setProcessEnvironment(environment);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(),
                    {Testing::runningTestName(), u"procSelfEnvironNoLongerShowsIt"_s});
        QVERIFY(child.waitForFinished(60000));
        const QByteArray output = child.readAll();
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 output.constData());
        QVERIFY2(output.contains("PASS   : tst_EnvironmentScrub::procSelfEnvironNoLongerShowsIt()"),
                 output.constData());
        return;
    }

    // Here the variable is in the bytes the kernel wrote at exec.
    const QByteArray entry = QByteArray(probeName) + '=' + probeValue;
    QVERIFY2(procSelfEnviron().contains('\0' + entry + '\0'), "the test would prove nothing");
    QCOMPARE(qgetenv(probeName), probeValue);

    removeFromOwnEnvironment(probeName);
    const QByteArray shown = procSelfEnviron();
    QVERIFY2(!shown.contains(probeValue), "the value is still in /proc/self/environ");
    QVERIFY2(!shown.contains(QByteArray(probeName) + '='), "the name is still there");
    QVERIFY(qgetenv(probeName).isEmpty());
    // The others are untouched, and every entry still reads as NAME=value.
    QVERIFY(shown.contains('\0' + QByteArray(neighbourName) + '=' + neighbourValue + '\0'));
    QCOMPARE(qgetenv(neighbourName), neighbourValue);
    const QList<QByteArray> entries = shown.sliced(1).chopped(1).split('\0');
    for (const QByteArray &each : entries)
        QVERIFY2(each.indexOf('=') > 0, each.constData());
#else
    QSKIP("This platform has no /proc/self/environ (see windowsEnvironmentBlockNoLongerHasIt).");
#endif
}

void tst_EnvironmentScrub::windowsEnvironmentBlockNoLongerHasIt()
{
#ifdef Q_OS_WIN
    const wchar_t *name = L"AGENTLOOP_SCRUB_PROBE";
    qputenv(probeName, probeValue); // the C runtime's copy and the process environment block
    QVERIFY(GetEnvironmentVariableW(name, nullptr, 0) > 0);
    QVERIFY(_wgetenv(name) != nullptr);

    removeFromOwnEnvironment(probeName);
    wchar_t buffer[256];
    SetLastError(ERROR_SUCCESS);
    QCOMPARE(GetEnvironmentVariableW(name, buffer, 256), DWORD(0));
    QCOMPARE(GetLastError(), DWORD(ERROR_ENVVAR_NOT_FOUND));
    QVERIFY(_wgetenv(name) == nullptr);
    QVERIFY(qgetenv(probeName).isEmpty());
    // The whole block, as another process reading it would see it.
    wchar_t *block = GetEnvironmentStringsW();
    QVERIFY(block);
    QString text;
    for (const wchar_t *entry = block; *entry; entry += wcslen(entry) + 1)
        text += QString::fromWCharArray(entry) + u'\n';
    FreeEnvironmentStringsW(block);
    QVERIFY(!text.contains(QString::fromLatin1(probeValue)));
#else
    QSKIP("The process environment block and GetEnvironmentVariableW are Windows's.");
#endif
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_EnvironmentScrub)

#include "tst_environmentscrub.moc"
