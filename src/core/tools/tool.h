#pragma once

#include "protocol/jsonschema.h"
#include "protocol/message.h"
#include "tools/outputfile.h"
#include "tools/runrecord.h"
#include "tools/shellsyntax.h"

#include <QFuture>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <variant>

namespace AgentLoop {

// What running a tool can do to the world; anything but Read needs the user's approval.
enum class SideEffect { Read, Write, Execute };

// Tools from MCP servers are named "mcp__<server>__<tool>" (mcpToolName(), mcp/mcpconfig.h).
inline constexpr QStringView mcpToolNamePrefix = u"mcp__";

// What permission rules match a call against (permissions/permissionrules.h): the command of a
// shell call, the path of a file call; a tool with neither is matched by its name only.
struct RuleSubject
{
    enum Kind { None, Command, Path };
    Kind kind = None;
    QString text; // the command line, or the path exactly as the model sent it
    ShellSyntax syntax = ShellSyntax::Posix; // Command: the language of the shell that runs it
};

// A change a file tool makes (or would make) to one file, as the approval and the chat show it.
struct FileChange
{
    QString path;         // as the user sees it: native separators, relative to the workspace
    QString absolutePath; // for "Open file" / "Open folder"
    QString encoding;     // "GB18030, CRLF" / "UTF-8, LF": how the file is and stays stored
    bool newFile = false;
    QString diff; // unified hunks (`@@ -a,b +c,d @@`); for a new file, its first lines as added
    int addedLines = 0;
    int removedLines = 0;
    bool diffTruncated = false;

    bool isEmpty() const { return path.isEmpty(); }
};

// What the model reads back in the tool message. Tool failures are data, never exceptions:
// a failed, denied or cancelled call is a ToolResult with ok == false and a stable error code
// at the start of its content ("shell_failed: exit code 1", "denied: ...").
struct ToolResult
{
    QString content; // exactly the text sent as the tool message
    bool ok = true;
    QString errorCode; // empty when ok; unknown_tool, invalid_arguments, denied, cancelled, ...
    int exitCode = -1; // the command's exit code, -1 when the tool ran no process
    qint64 durationMs = 0;
    OutputFile outputFile; // the whole output, when content has only part of it
    FileChange fileChange; // what a write_file or edit_file call changed, for the chat
    // write_file and edit_file: the file's content hash after the write (CallPreview::basis as a
    // review of the file would compute it now).
    QByteArray writtenBasis;
    // A command's launch and raw output, for the user's "Show raw output"; never sent.
    std::shared_ptr<const RunRecord> runRecord;

    static ToolResult success(const QString &content)
    {
        return {content, true, {}, -1, 0, {}, {}, {}, {}};
    }
    // content becomes "<code>: <detail>"
    static ToolResult failure(const QString &code, const QString &detail);
};

// A call that passed lookup, JSON parsing and schema validation: it can be shown for approval
// and then invoked. Nothing has run yet.
struct PreparedCall
{
    ToolCall call;
    QJsonObject arguments;
    // What the approved preview was computed from (CallPreview::basis): the tool refuses to run
    // when that has changed since, so what runs is what the user saw.
    QByteArray approvedBasis;
};

// What an approval shows as "what will run": decoded from the arguments, never the model's JSON
// text (whose escapes and duplicate keys would show something else than what runs).
struct CallPreview
{
    enum Kind { Command, Arguments, FileEdit };
    Kind kind = Arguments;
    // Command: the command line itself; Arguments: the arguments as indented JSON; FileEdit: the
    // unified diff (fileChange.diff)
    QString text;
    FileChange fileChange; // FileEdit: the file, its encoding and the diff
    QByteArray basis;      // FileEdit: the file's content hash the diff was computed from
};

// A call that could not be prepared gets its ToolResult instead (unknown_tool, invalid_arguments).
using Preparation = std::variant<PreparedCall, ToolResult>;

// What an approval would show, or the result of a call that cannot succeed as it stands (the
// file is missing, the text to replace is not in it, ...): that is answered without asking.
using Review = std::variant<CallPreview, ToolResult>;

// How far a running tool has come, as it says (an MCP server's notifications/progress).
struct ToolProgress
{
    double progress = 0;
    double total = 0; // 0: unknown
    QString message;  // the tool's own words: hostile, shown only through displayedLine()
    // For the user, translated: "2 of 5 · message", or "2 · message" without a total; the
    // message cut at 200 characters.
    QString text() const;
};

// One running invocation. Emits finished() exactly once, asynchronously.
class ToolRun : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Stop now; finished() follows with a "cancelled" result.
    virtual void cancel() = 0;

signals:
    // Any number of times before finished(), from tools that report how far they are.
    void progressed(const AgentLoop::ToolProgress &progress);
    void finished(const AgentLoop::ToolResult &result);
};

class Tool
{
public:
    Tool(QString name, QString description, JsonSchema parameters, SideEffect sideEffect);
    virtual ~Tool() = default;
    Tool(const Tool &) = delete;
    Tool &operator=(const Tool &) = delete;

    const QString &name() const { return m_name; }
    const QString &description() const { return m_description; }
    const JsonSchema &parameters() const { return m_parameters; }
    SideEffect sideEffect() const { return m_sideEffect; }
    bool needsApproval() const { return m_sideEffect != SideEffect::Read; }
    // Why this tool asks before it runs, shown with every approval request.
    virtual QString approvalReason() const = 0;

    // What will run, for the approval; by default the decoded arguments as indented JSON.
    virtual CallPreview preview(const QJsonObject &arguments) const;
    // The approval's preview, computed off the GUI thread when it needs files; by default a
    // finished future with preview(). The result may also answer the call without asking.
    virtual QFuture<Review> review(const PreparedCall &call) const;

    // What its rules are matched against for these (validated) arguments; by default nothing.
    virtual RuleSubject ruleSubject(const QJsonObject &arguments) const;

    // What the tool remembers of the conversation (the files the model read) no longer holds: the
    // controller started another one or continues a saved one.
    virtual void forgetConversation() const {}

    // {"type":"function","function":{"name","description","parameters"}}
    QJsonObject definition() const;

    // Whether prepare() checks the arguments against parameters(). False for a tool whose schema
    // uses keywords JsonSchema ignores although they change its meaning (an MCP server's $ref,
    // if/then, prefixItems): checking would refuse valid calls or pass invalid ones as checked.
    // Such a tool says so in its approvalReason().
    virtual bool validatesArguments() const { return true; }
    // Parses and validates the model's arguments text; never has a side effect.
    Preparation prepare(const ToolCall &call) const;
    // Runs a prepared call; the run is a child of parent.
    virtual ToolRun *invoke(const PreparedCall &call, QObject *parent) const = 0;

protected:
    // A tool's own checks beyond its schema; returns a sentence for the model, or nothing.
    virtual QString checkArguments(const QJsonObject &arguments) const;

private:
    const QString m_name;
    const QString m_description;
    const JsonSchema m_parameters;
    const SideEffect m_sideEffect;
};

// The tool set frozen for one request: the definitions sent to the model and the tools that
// validate and run its calls are the same objects.
class ToolSnapshot final
{
public:
    ToolSnapshot() = default;
    explicit ToolSnapshot(QList<std::shared_ptr<const Tool>> tools);

    const QList<std::shared_ptr<const Tool>> &tools() const { return m_tools; }
    bool isEmpty() const { return m_tools.isEmpty(); }
    std::shared_ptr<const Tool> find(const QString &name) const;
    QJsonArray definitions() const;

    // Looks the tool up (unknown_tool if absent) and prepares the call.
    Preparation prepare(const ToolCall &call) const;

private:
    QList<std::shared_ptr<const Tool>> m_tools;
};

// The tools the agent may use. Changing it never affects a request already sent.
class ToolRegistry final
{
public:
    // Replaces a tool of the same name.
    void add(std::shared_ptr<const Tool> tool);
    void remove(const QString &name);
    QStringList names() const;
    ToolSnapshot snapshot() const { return ToolSnapshot(m_tools); }

private:
    QList<std::shared_ptr<const Tool>> m_tools;
};

} // namespace AgentLoop

Q_DECLARE_METATYPE(AgentLoop::ToolResult)
Q_DECLARE_METATYPE(AgentLoop::ToolProgress)
