// agentloop-cli: the agent loop without a window, approving each call at the terminal.

#include "clibundle.h"
#include "clicheck.h"
#include "climcp.h"
#include "clioptions.h"
#include "clipermissions.h"
#include "cliprofile.h"
#include "clirun.h"
#include "consolecodepage.h"
#include "terminalwriter.h"

#include "base/elevation.h"
#include "base/environmentscrub.h"
#include "base/i18n.h"
#include "storage/applicationidentity.h"
#include "storage/config.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcessEnvironment>
#include <QSocketNotifier>

#include <memory>

#ifdef Q_OS_WIN
#include <windows.h>
#else
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace {

struct MainText
{
    Q_DECLARE_TR_FUNCTIONS(Cli)
};

// Ctrl+C must not kill the process outright: the run is cancelled so that a running command's
// process tree is killed and the history stays valid, then the process exits with 130.
#ifdef Q_OS_WIN
Cli::CliRun *interruptTarget = nullptr;

BOOL WINAPI onConsoleControl(DWORD type)
{
    if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
        return FALSE;
    QMetaObject::invokeMethod(
            qApp,
            [] {
                if (interruptTarget)
                    interruptTarget->interrupt();
            },
            Qt::QueuedConnection);
    return TRUE;
}

void routeInterruptsTo(Cli::CliRun *run)
{
    interruptTarget = run;
    SetConsoleCtrlHandler(onConsoleControl, TRUE);
}
#else
int interruptPipe[2] = {-1, -1};

void onSigint(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(interruptPipe[1], &byte, 1);
}

void routeInterruptsTo(Cli::CliRun *run)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, interruptPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(interruptPipe[0], QSocketNotifier::Read, run);
    QObject::connect(notifier, &QSocketNotifier::activated, run, [run] {
        char byte;
        [[maybe_unused]] const ssize_t count = ::read(interruptPipe[0], &byte, 1);
        run->interrupt();
    });
    struct sigaction action = {};
    action.sa_handler = onSigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}
#endif

// Every command approved here runs with the rights this process has.
QString elevationWarning()
{
#ifdef Q_OS_WIN
    return MainText::tr("Warning: agentloop-cli is running as administrator: every command you "
                        "approve runs with full rights over this computer.");
#else
    return MainText::tr("Warning: agentloop-cli is running as root: every command you approve "
                        "runs with full rights over this computer.");
#endif
}

void printConfigurationError(Cli::TerminalWriter &err, const AgentLoop::Error &error)
{
    err.writeLine(MainText::tr("Configuration error: %1").arg(err.line(error.message)));
    if (!error.hint.isEmpty())
        err.writeLine(MainText::tr("How to fix: %1").arg(err.line(error.hint)));
}

// Starts the task (a run, or --check) once the provider is known; the application exits with
// its code. task owns it, and is destroyed before the application: nothing of the network or
// the session outlives the event loop.
void startTask(std::unique_ptr<QObject> &task,
               const Cli::CliOptions &options,
               const AgentLoop::ProviderSettings &provider)
{
    if (!options.bundlePath.isEmpty() && options.prompt.isEmpty()) {
        Cli::TerminalWriter out(stdout);
        Cli::TerminalWriter err(stderr);
        out.setSecret(provider.apiKey);
        err.setSecret(provider.apiKey);
        const int code = Cli::bundleConversation(options, provider, out, err);
        QMetaObject::invokeMethod(
                qApp, [code] { QCoreApplication::exit(code); }, Qt::QueuedConnection);
        return;
    }
    if (options.check) {
        auto check = std::make_unique<Cli::CliCheck>(options, provider);
        QObject::connect(check.get(),
                         &Cli::CliCheck::done,
                         qApp,
                         &QCoreApplication::exit,
                         Qt::QueuedConnection);
        QMetaObject::invokeMethod(check.get(), &Cli::CliCheck::start, Qt::QueuedConnection);
        task = std::move(check);
        return;
    }
    auto run = std::make_unique<Cli::CliRun>(options, provider);
    QObject::connect(run.get(),
                     &Cli::CliRun::done,
                     qApp,
                     &QCoreApplication::exit,
                     Qt::QueuedConnection);
    routeInterruptsTo(run.get());
    QMetaObject::invokeMethod(run.get(), &Cli::CliRun::start, Qt::QueuedConnection);
    task = std::move(run);
}

} // namespace

int main(int argc, char *argv[])
{
    // Before anything can be written, Qt's own messages included; put back on every way out,
    // Ctrl+C and a closed console window too (see ConsoleCodePage).
    const Cli::ConsoleCodePage codePage;
    QCoreApplication application(argc, argv);
    // The app's names: its data folder is the CLI's too (conversations, command outputs).
    AgentLoop::setApplicationIdentity();
    AgentLoop::installTranslations(application);

    // Even here nothing reaches the terminal but through the writer: a .env file or an
    // argument may hold escape sequences too.
    Cli::TerminalWriter out(stdout);
    Cli::TerminalWriter err(stderr);

    const Cli::ParsedCommandLine commandLine = Cli::parseCommandLine(application.arguments());
    if (!commandLine.error.isEmpty()) {
        err.writeLine(commandLine.error);
        return Cli::UsageError;
    }
    if (!commandLine.options) {
        out.write(commandLine.output);
        return Cli::Answered;
    }

    const Cli::CliOptions &options = *commandLine.options;
    // The rules alone decide: no provider, no key, no profile.
    if (!options.permissionsCheck.isEmpty())
        return Cli::checkPermissions(options, out, err);
    if (AgentLoop::runsElevated())
        err.writeLine(elevationWarning());
    // The servers alone: no provider, no key (and none in the environment they inherit).
    if (options.mcpList) {
        AgentLoop::removeFromOwnEnvironment(AgentLoop::apiKeyVariable);
        Cli::CliMcpList list(options);
        QObject::connect(&list,
                         &Cli::CliMcpList::done,
                         &application,
                         &QCoreApplication::exit,
                         Qt::QueuedConnection);
        QMetaObject::invokeMethod(&list, &Cli::CliMcpList::start, Qt::QueuedConnection);
        return application.exec();
    }
    std::unique_ptr<QObject> task;
    if (!options.profile.isEmpty()) {
        // Nothing of the environment's key is used: out of it at once (see below).
        AgentLoop::removeFromOwnEnvironment(AgentLoop::apiKeyVariable);
        Cli::ProfileLoader loader;
        QObject::connect(&loader,
                         &Cli::ProfileLoader::loaded,
                         &application,
                         [&task, options](const AgentLoop::ProviderSettings &provider) {
                             startTask(task, options, provider);
                         });
        QObject::connect(&loader,
                         &Cli::ProfileLoader::failed,
                         &application,
                         [&err](const AgentLoop::Error &error) {
                             printConfigurationError(err, error);
                             QCoreApplication::exit(Cli::UsageError);
                         });
        loader.start(options.profile);
        return application.exec();
    }

    const AgentLoop::Result<AgentLoop::LoadedConfig> config
            = AgentLoop::loadConfig(QProcessEnvironment::systemEnvironment(), QDir::currentPath());
    // A bundle of a saved conversation needs no provider, but it must know the key to remove it.
    const bool bundlesOnly = !options.bundlePath.isEmpty() && options.prompt.isEmpty();
    AgentLoop::ProviderSettings keyOnly;
    if (bundlesOnly && !config) {
        keyOnly.apiKey = QProcessEnvironment::systemEnvironment().value(
                QString::fromLatin1(AgentLoop::apiKeyVariable));
        const auto dotEnv = AgentLoop::readDotEnv(QDir(QDir::currentPath()).filePath(u".env"_s));
        if (keyOnly.apiKey.trimmed().isEmpty() && dotEnv)
            keyOnly.apiKey = dotEnv->value(QString::fromLatin1(AgentLoop::apiKeyVariable));
    }
    // The key is copied into config now, and nothing reads it from the environment again: out
    // of it, so that a command cannot read it back from /proc/<this process>/environ.
    AgentLoop::removeFromOwnEnvironment(AgentLoop::apiKeyVariable);
    if (!config && bundlesOnly) {
        startTask(task, options, keyOnly);
        return application.exec();
    }
    if (!config) {
        printConfigurationError(err, config.error());
        return Cli::UsageError;
    }
    err.setSecret(config->provider.apiKey);
    for (const QString &warning : config->warnings)
        err.writeLine(MainText::tr("Warning: %1").arg(err.line(warning)));

    startTask(task, options, config->provider);
    return application.exec();
}
