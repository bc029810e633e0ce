#pragma once

#include "tools/outputfile.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <chrono>

namespace AgentLoop {

// The shell the shell tool really runs, so its description can name it to the model.
struct ShellInfo
{
    enum Kind { PowerShellCore, WindowsPowerShell, Cmd, PosixShell };

    Kind kind = PosixShell;
    QString program;     // absolute path or program name given to QProcess
    QString displayName; // "PowerShell 7 (pwsh)", "Windows PowerShell", "cmd.exe", "/bin/sh"
};

// Which shell this machine offers: pwsh on PATH, else powershell.exe on Windows (but not under
// Wine, whose powershell.exe is a stub), else cmd.exe on Windows, else /bin/sh.
ShellInfo detectShell();

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
};

// Text of one output stream, bounded in memory however much the command prints: the first and
// last outputLimit/2 characters are kept, and the total is counted.
struct CapturedText
{
    QString head;          // the whole text when nothing was cut
    QString tail;          // empty when nothing was cut
    qint64 totalChars = 0; // characters the command printed on this stream

    bool isTruncated() const { return totalChars > head.size() + tail.size(); }
    qint64 cutChars() const { return totalChars - head.size() - tail.size(); }
    // The whole text, or head + "\n[... N characters cut; the stream had M characters in
    // total ...]\n" + tail. English: it is what the model reads.
    QString render() const;
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
};

// One running command. Emits finished() exactly once, asynchronously (never from inside start()
// or cancel()), and is deleted by its owner afterwards.
class CommandRun : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Stop the whole process tree now (Unix: SIGTERM, SIGKILL after a short grace); finished()
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

// Runs commands with QProcess through detectShell()'s shell. Each command runs in its own process
// group (Unix) or Job Object (Windows) so that a timeout or cancel kills grandchildren too, and
// whatever the command left running in the background is killed when it ends. Standard input is
// closed. On Windows, PowerShell gets the command as -EncodedCommand (UTF-16LE, base64) and is
// told to write UTF-8; output is decoded as UTF-8.
class ProcessCommandRunner final : public CommandRunner
{
public:
    ProcessCommandRunner();
    explicit ProcessCommandRunner(ShellInfo shell);

    ShellInfo shell() const override { return m_shell; }
    CommandRun *start(const CommandRequest &request, QObject *parent) override;

    // The arguments the shell program gets for a command: sh -c; PowerShell -EncodedCommand with
    // a UTF-8 prelude; cmd /d /s /c with chcp 65001 (given to QProcess as native arguments on
    // Windows, so that QProcess does not quote the command a second time).
    static QStringList argumentsFor(const ShellInfo &shell, const QString &command);

private:
    ShellInfo m_shell;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::CommandOutcome)
