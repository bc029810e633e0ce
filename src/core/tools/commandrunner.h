#pragma once

#include "base/codepage.h"
#include "tools/outputcapture.h"
#include "tools/outputfile.h"
#include "tools/runrecord.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <utility>

namespace AgentLoop {

// The shell the shell tool really runs, so its description can name it to the model.
struct ShellInfo
{
    enum Kind { PowerShellCore, WindowsPowerShell, Cmd, PosixShell };

    Kind kind = PosixShell;
    QString program;     // absolute path or program name given to QProcess
    QString displayName; // "PowerShell 7 (pwsh)", "Windows PowerShell", "cmd.exe", "/bin/sh"

    bool isPowerShell() const { return kind == PowerShellCore || kind == WindowsPowerShell; }
};

// Which shell this machine offers: pwsh on PATH, else powershell.exe on Windows (but not under
// Wine, whose powershell.exe is a stub), else cmd.exe on Windows, else /bin/sh.
ShellInfo detectShell();

// The shell's search path without the folders a repository could put a program of its own in:
// empty entries and '.', relative entries, and folders inside the workspace. A command word
// without a folder ("git") then runs the program a rule naming it means (permissions/
// permissionrules.h), never the workspace's own script of that name. pathValue is the PATH
// variable's value, with the platform's separator; an empty workspace drops only the first two.
QString searchPathOutside(const QString &pathValue, const QString &workspace);

struct CommandRequest
{
    QString command;          // passed to the shell unchanged (no quoting by the caller)
    QString workingDirectory; // the workspace
    std::chrono::milliseconds timeout{std::chrono::seconds(120)}; // zero or less: none
    qsizetype outputLimit = 30000; // characters kept per stream: head and tail halves
    // Where the whole output goes once stdout and stderr together print more than outputLimit
    // characters: <outputDirectory>/<outputFileStem>.log, written up to outputFileLimit bytes.
    // Empty directory: nowhere.
    QString outputDirectory;
    QString outputFileStem;
    qint64 outputFileLimit = qint64(1) << 30;
    // Bytes of each stream the run's record keeps as they arrived (the rest is only counted).
    qint64 recordLimit = RunRecord::defaultKeptBytes;
};

struct CommandOutcome
{
    enum Status {
        Exited,        // the shell exited; see exitCode
        Crashed,       // killed by a signal it did not ask for
        TimedOut,      // ran past the timeout; its process tree was killed
        Cancelled,     // cancel() was called; its process tree was killed
        FailedToStart, // the shell could not be started; see errorString
    };

    Status status = Exited;
    int exitCode = -1; // Crashed: the signal (Unix) or the exception code (Windows)
    CapturedText standardOutput;
    CapturedText standardError;
    OutputFile outputFile; // the whole output, when it was longer than the captures
    QString errorString;   // why, for every status but Exited
    qint64 durationMs = 0;
    // What was launched and the bytes that came back, for the user; null for runners that start
    // no process (fakes).
    std::shared_ptr<const RunRecord> record;
};

// One running command. Emits finished() exactly once, asynchronously (never from inside start()
// or cancel()), and is deleted by its owner afterwards.
class CommandRun : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Stop the whole process tree now (Unix: SIGTERM, SIGKILL after a short grace; Windows:
    // Ctrl+Break where this process can send it, then the job is terminated); finished()
    // follows with status Cancelled. Does nothing once the outcome is known.
    virtual void cancel() = 0;
    // The operating system's id of the shell process, 0 before it started or for fakes.
    virtual qint64 processId() const = 0;

signals:
    void finished(const AgentLoop::CommandOutcome &outcome);
};

class CommandRunner
{
public:
    virtual ~CommandRunner() = default;

    virtual ShellInfo shell() const = 0;
    // Starts the command; the returned run is a child of parent. Deleting a run that has not
    // finished kills its process tree.
    virtual CommandRun *start(const CommandRequest &request, QObject *parent) = 0;
};

// How the shell program is started for one command.
struct ShellLaunch
{
    QStringList arguments;
    // PowerShell runs the command from a script file (see ProcessCommandRunner): its contents,
    // to be written to the scriptPath given to launchFor() before the start. Empty for the others.
    QByteArray scriptFile;
    // Variables set for the command unless the user's environment already has them.
    QList<std::pair<QString, QString>> defaultEnvironment;
};

// Runs commands with QProcess through detectShell()'s shell. Each command runs in its own process
// group (Unix) or Job Object (Windows) so that a timeout or cancel kills grandchildren too, and
// whatever the command left running in the background is killed when it ends. Standard input is
// closed. Output is decoded line by line as UTF-8, or with the system's legacy code page where a
// line is not UTF-8 (see OutputCapture); PowerShell's CLIXML error records become plain lines.
class ProcessCommandRunner final : public CommandRunner
{
public:
    explicit ProcessCommandRunner(ShellInfo shell = detectShell(),
                                  QString legacyEncoding = systemLegacyEncoding());

    ShellInfo shell() const override { return m_shell; }
    CommandRun *start(const CommandRequest &request, QObject *parent) override;

    // The start of a command in each shell:
    // - sh -c COMMAND.
    // - PowerShell: -NoProfile -NonInteractive -ExecutionPolicy Bypass -File SCRIPT, the script
    //   (UTF-8 with a byte order mark, which Windows PowerShell needs to read it as UTF-8) being a
    //   prelude that makes output UTF-8 and plain, the command, and an epilogue that keeps a
    //   native command's exit code. The policy applies to this process only, so that npm.ps1
    //   and other scripts run where the machine's policy is Restricted. A file, unlike
    //   -EncodedCommand, has no 32767-character limit, makes PowerShell write plain text, and
    //   does not look like the encoded launches endpoint protection flags.
    // - cmd /d /s /c with chcp 65001 (given to QProcess as native arguments on Windows, so that
    //   QProcess does not quote the command a second time).
    // The Windows shells also get PYTHONUTF8=1 and PYTHONIOENCODING=utf-8, so that Python writes
    // UTF-8 to the pipe instead of the ANSI code page (and cannot fail on characters outside it).
    // Every shell gets searchPathOutside() as its PATH and, on Windows,
    // NoDefaultCurrentDirectoryInExePath=1, without which cmd.exe (and CreateProcess) would look
    // for a bare program name in the working directory, the workspace, first.
    static ShellLaunch launchFor(const ShellInfo &shell,
                                 const QString &command,
                                 const QString &scriptPath);

private:
    ShellInfo m_shell;
    QString m_legacyEncoding;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::CommandOutcome)
