#include "clirun.h"

#include "agentsetup.h"
#include "commandrunner.h"
#include "redaction.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocale>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

int exitCodeFor(const Error &error)
{
    switch (error.kind) {
    case Error::None:
        return Answered;
    case Error::Configuration:
    case Error::Io:
        return UsageError;
    case Error::Contract:
    case Error::Agent:
        return AgentFailure;
    case Error::Protocol:
    case Error::Http:
    case Error::Network:
    case Error::Timeout:
        return ProviderError;
    case Error::Cancelled:
        return Interrupted;
    }
    return AgentFailure;
}

namespace {

QString firstLine(const QString &text, qsizetype limit = 120)
{
    QString line = text.section(u'\n', 0, 0);
    if (line.size() > limit)
        line = line.left(limit - 1) + u"…"_s;
    else if (text.contains(u'\n'))
        line += u" …"_s;
    return line;
}

} // namespace

CliRun::CliRun(const CliOptions &options, const ProviderSettings &provider, QObject *parent)
    : QObject(parent)
    , m_options(options)
    // The key is blanked out of everything printed: a command that prints the environment, a
    // model that repeats the key, arguments that contain it.
    , m_approver([this](const QString &text) {
        m_err << redacted(text, m_controller.provider().apiKey) << Qt::flush;
    })
    , m_out(stdout)
    , m_err(stderr)
{
    ProviderSettings settings = provider;
    settings.requestTimeout = std::chrono::seconds(options.requestTimeoutSeconds);
    settings.stream = options.stream;
    settings.retry.maxRetries = options.maxRetries;
    m_controller.setProvider(settings);
    AgentOptions agentOptions;
    agentOptions.maxTurns = options.maxTurns;
    m_controller.setOptions(agentOptions);
    ShellToolOptions shellOptions;
    shellOptions.workspace = options.workspace;
    // Long outputs go where the app keeps them: with a continued conversation, in its folder
    // (deleted with it in the app), else in one folder per run.
    const QString outputFolder = options.conversationPath.isEmpty()
                                         ? u"cli-"_s
                                                   + QDateTime::currentDateTime().toString(
                                                           u"yyyyMMdd-HHmmss"_s)
                                         : QFileInfo(options.conversationPath).completeBaseName();
    shellOptions.outputDirectory = [outputFolder] {
        return ConversationStore().outputDirectoryFor(outputFolder);
    };
    installStandardTools(m_controller, std::make_shared<ProcessCommandRunner>(), shellOptions);

    connect(&m_controller, &AgentController::turnStarted, this, [this](int turn, int maxTurns) {
        printProgress(tr("[turn %1/%2] asking %3…")
                              .arg(turn)
                              .arg(maxTurns)
                              .arg(m_controller.provider().model));
    });
    connect(&m_controller, &AgentController::retryScheduled, this, [this](const QString &notice) {
        printProgress(notice);
    });
    connect(&m_controller, &AgentController::approvalRequested, &m_approver, &TerminalApprover::ask);
    connect(&m_approver,
            &TerminalApprover::decided,
            &m_controller,
            &AgentController::resolveApproval);
    connect(&m_controller, &AgentController::toolStarted, this, [this](const ToolCall &call) {
        printProgress(tr("Running %1…").arg(call.name));
    });
    connect(&m_controller,
            &AgentController::toolFinished,
            this,
            [this](const ToolCall &call, const ToolResult &result) {
                if (result.ok) {
                    printProgress(tr("%1 finished: %2").arg(call.name, firstLine(result.content)));
                } else {
                    printProgress(
                            tr("%1 did not succeed: %2").arg(call.name, firstLine(result.content)));
                }
                printOutputFile(result.outputFile);
            });
    connect(&m_controller, &AgentController::responseReceived, this, &CliRun::writeTranscript);
    // Direct and synchronous: the controller emits before it sends the next request, so each
    // message is on disk before the provider is asked anything that depends on it.
    connect(&m_controller, &AgentController::messageAppended, this, &CliRun::saveMessage);
    connect(&m_controller, &AgentController::finished, this, [this](const QString &answer) {
        m_out << redacted(answer, m_controller.provider().apiKey) << Qt::endl;
        emit done(Answered);
    });
    connect(&m_controller, &AgentController::failed, this, [this](const Error &error) {
        if (error.kind == Error::Cancelled || m_interrupted) {
            printProgress(tr("Interrupted."));
            emit done(Interrupted);
            return;
        }
        const QString label = error.kind == Error::Configuration ? tr("Configuration error: %1")
                                                                 : tr("Run failed: %1");
        const QString &key = m_controller.provider().apiKey;
        m_err << redacted(label.arg(error.message), key) << u'\n';
        if (!error.hint.isEmpty())
            m_err << redacted(tr("How to fix: %1").arg(error.hint), key) << u'\n';
        m_err << Qt::flush;
        emit done(exitCodeFor(error));
    });
}

void CliRun::start()
{
    if (!m_options.transcriptPath.isEmpty()) {
        if (const Result<void> opened = m_transcript.open(m_options.transcriptPath); !opened) {
            m_err << tr("Configuration error: %1").arg(opened.error().message) << u'\n'
                  << Qt::flush;
            emit done(UsageError);
            return;
        }
    }
    if (!m_options.conversationPath.isEmpty() && !openConversation()) {
        emit done(UsageError);
        return;
    }
    printProgress(tr("Workspace: %1").arg(QDir::toNativeSeparators(m_options.workspace)));
    m_controller.run(m_options.prompt);
}

void CliRun::interrupt()
{
    m_interrupted = true;
    if (m_controller.isRunning())
        m_controller.cancel(); // failed(Cancelled) follows, then done(130)
    else
        emit done(Interrupted);
}

// Loads the saved conversation (reporting what was repaired) and keeps its file open for
// appending. False, with the reason printed, when it cannot be continued.
bool CliRun::openConversation()
{
    const QString path = m_options.conversationPath;
    Result<LoadedConversation> loaded = ConversationStore::loadFile(path);
    Result<void> opened = loaded ? m_conversation.open(path) : Result<void>(loaded.error());
    if (!opened) {
        m_err << tr("Configuration error: %1").arg(opened.error().message) << u'\n';
        if (!opened.error().hint.isEmpty())
            m_err << tr("How to fix: %1").arg(opened.error().hint) << u'\n';
        m_err << Qt::flush;
        return false;
    }
    for (const QString &repair : loaded->repairs)
        printProgress(tr("Conversation repaired: %1").arg(repair));
    printProgress(tr("Continuing %1 (%n message(s)).", nullptr, int(loaded->history.size()))
                          .arg(QDir::toNativeSeparators(path)));
    m_controller.setHistory(loaded->history);
    return true;
}

void CliRun::saveMessage(const Message &message)
{
    if (!m_conversation.isOpen())
        return;
    if (const Result<void> written = m_conversation.append(message); !written)
        printProgress(tr("Warning: %1").arg(written.error().message));
}

void CliRun::printOutputFile(const OutputFile &file)
{
    if (file.isEmpty())
        return;
    if (file.path.isEmpty()) {
        printProgress(tr("The full output could not be saved: %1").arg(file.problem));
        return;
    }
    const QString size = QLocale().formattedDataSize(file.bytes, 1, QLocale::DataSizeSIFormat);
    const QString path = QDir::toNativeSeparators(file.path);
    if (file.complete)
        printProgress(tr("Full output (%1): %2").arg(size, path));
    else
        printProgress(tr("Output file (incomplete, %1): %2 (%3)").arg(size, path, file.problem));
}

void CliRun::printProgress(const QString &line)
{
    m_err << redacted(line, m_controller.provider().apiKey) << u'\n' << Qt::flush;
}

// Each exchange is written once it is answered (or failed), as one complete line.
void CliRun::writeTranscript(const Exchange &exchange)
{
    if (!m_transcript.isOpen())
        return;
    if (const Result<void> written = m_transcript.write(exchange); !written)
        printProgress(written.error().message);
}

} // namespace Cli
