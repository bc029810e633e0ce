#include "terminalapprover.h"

#include "base/displaytext.h"
#include "terminalwriter.h"

#include <QCoreApplication>
#include <QPointer>
#include <QRegularExpression>
#include <QSocketNotifier>
#include <QStringList>

#ifdef Q_OS_WIN
#include <qt_windows.h>

#include <iostream>
#include <string>
#include <thread>
#else
#include <unistd.h>
#endif

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Cli {

namespace {

// Every line of what will run starts with it: no line of a command can pose as one of ours.
const QString gutter = u"  \u2502 "_s; // "  │ "
// How much of what will run is printed, escapes included: more than anyone reads, less than
// floods a terminal. What is left out is counted, never dropped silently.
constexpr qsizetype shownPreviewLength = 64 * 1024;
constexpr int listedLookAlikes = 5;

// Characters as a user counts them: a surrogate pair is one.
qsizetype characterCount(QStringView text)
{
    qsizetype count = text.size();
    for (qsizetype i = 1; i < text.size(); ++i) {
        if (text.at(i).isLowSurrogate() && text.at(i - 1).isHighSurrogate())
            --count;
    }
    return count;
}

// The start of text as it is shown, at most shownPreviewLength characters of the shown text;
// cutCharacters counts the rest. Only that start is made into display text.
DisplayText boundedDisplay(const QString &text, const DisplayOptions &options)
{
    qsizetype taken = std::min(text.size(), shownPreviewLength);
    for (;;) {
        if (taken > 0 && taken < text.size() && text.at(taken - 1).isHighSurrogate())
            --taken; // never half a character
        DisplayText shown = displayText(text.first(taken), options);
        shown.cutCharacters = text.size() - taken;
        if (shown.text.size() <= shownPreviewLength || taken == 0)
            return shown;
        // Escapes are longer than what they stand for: take less until it fits.
        taken = std::min(taken - 1, taken * shownPreviewLength / shown.text.size());
    }
}

struct MarkCounts
{
    qsizetype escaped = 0;
    qsizetype lookAlikes = 0;
};

// What displayText() would count in the whole text, a piece at a time, so that a long text is
// never held whole with its escapes.
MarkCounts countMarks(const QString &text, const DisplayOptions &options)
{
    MarkCounts counts;
    for (qsizetype start = 0; start < text.size();) {
        qsizetype end = std::min(text.size(), start + shownPreviewLength);
        if (end < text.size() && text.at(end - 1).isHighSurrogate())
            --end;
        const DisplayText piece = displayText(text.sliced(start, end - start), options);
        counts.escaped += piece.escapedCharacters;
        counts.lookAlikes += piece.lookAlikes;
        start = end;
    }
    return counts;
}

struct LineAndColumn
{
    qsizetype line = 1;
    qsizetype column = 1;
};

// Where a position of the shown text is, as the user sees it: 1-based, in characters.
LineAndColumn lineAndColumn(const QString &shown, qsizetype position)
{
    const QStringView before = QStringView(shown).first(position);
    const qsizetype lineStart = before.lastIndexOf(u'\n') + 1;
    return {before.count(u'\n') + 1, characterCount(before.sliced(lineStart)) + 1};
}

} // namespace

TerminalApprover::TerminalApprover(TerminalWriter &terminal, QObject *parent)
    : QObject(parent)
    , m_terminal(terminal)
{}

TerminalApprover::~TerminalApprover() = default;

bool TerminalApprover::standardInputIsInteractive()
{
#ifdef Q_OS_WIN
    // Not _isatty: it is true for every character device, NUL too, so "agentloop-cli < NUL"
    // would prompt. Only a console has a console mode.
    DWORD mode = 0;
    return GetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), &mode) != 0;
#else
    return isatty(STDIN_FILENO) == 1;
#endif
}

void TerminalApprover::ask(const ApprovalRequest &request)
{
    m_terminal.writeLine(tr("Tool call needs approval: %1")
                                 .arg(m_terminal.line(request.toolName, shownNameLength)));
    const QStringList reasonLines = request.reason.split(u'\n');
    if (reasonLines.size() == 1) {
        m_terminal.writeLine(tr("Reason: %1").arg(m_terminal.line(request.reason)));
    } else {
        // An MCP tool's reason quotes the server's description, lines and all: behind the gutter,
        // like what will run, so that none of its lines can pose as ours.
        m_terminal.writeLine(tr("Reason:"));
        QString block;
        for (const QString &line : reasonLines.first(std::min<qsizetype>(reasonLines.size(), 60)))
            block += gutter + m_terminal.line(line) + u'\n';
        if (reasonLines.size() > 60)
            block += gutter + tr("… %n more lines", nullptr, int(reasonLines.size() - 60)) + u'\n';
        m_terminal.write(block);
    }
    if (request.preview.kind == CallPreview::Command)
        m_terminal.writeLine(tr("Commands are not confined to the workspace: a command can read "
                                "and change anything your account can."));
    writePreview(request.preview);
    writeWhyAsked(request.check);
    m_requestId = request.id;
    if (!standardInputIsInteractive()) {
        m_terminal.writeLine(tr("No interactive input; the call is denied by default."));
        emit decided(request.id, ApprovalAnswer::deny());
        return;
    }
    m_terminal.write(tr("Allow this call? [y/a/N] "));
    m_waiting = true;
    m_line.clear();
    startReading();
}

// What will run, line by line behind the gutter, then what the user must know to read it right.
void TerminalApprover::writePreview(const CallPreview &preview)
{
    const bool isCommand = preview.kind == CallPreview::Command;
    const bool isFileEdit = preview.kind == CallPreview::FileEdit && !preview.fileChange.isEmpty();
    // What runs is what the shell receives; what is shown has the key blanked out.
    QString text = m_terminal.redacted(preview.text);
    if (isFileEdit) {
        // The file, how it is stored, and what changes in it: the unified diff, without colour.
        const FileChange &change = preview.fileChange;
        const QString path = m_terminal.line(change.path, shownMessageLength);
        const QString encoding = m_terminal.line(change.encoding, shownNameLength);
        if (encoding.isEmpty())
            m_terminal.writeLine(change.newFile ? tr("Create %1").arg(path)
                                                : tr("Edit %1").arg(path));
        else
            m_terminal.writeLine(change.newFile ? tr("Create %1 (%2)").arg(path, encoding)
                                                : tr("Edit %1 (%2)").arg(path, encoding));
        while (text.endsWith(u'\n'))
            text.chop(1);
        if (text.isEmpty()) {
            m_terminal.writeLine(tr("Changes: none"));
            return;
        }
        m_terminal.writeLine(tr("Changes (+%1 \u2212%2 lines):")
                                     .arg(QString::number(change.addedLines),
                                          QString::number(change.removedLines)));
    } else if (isCommand) {
        // English has no catalogue to pick a plural form from: a source for one, %n for more.
        const int lines = int(preview.text.count(u'\n') + 1);
        const int characters = int(characterCount(preview.text));
        m_terminal.writeLine(
                tr("Command (%1, %2):")
                        .arg(lines == 1 ? tr("1 line") : tr("%n lines", nullptr, lines),
                             characters == 1 ? tr("1 character")
                                             : tr("%n characters", nullptr, characters)));
    } else {
        m_terminal.writeLine(tr("Arguments:"));
    }

    DisplayOptions options;
    options.markLookAlikes = true;
    const DisplayText shown = boundedDisplay(text, options);
    // The warnings count the whole text, the part not shown too.
    const MarkCounts whole = shown.cutCharacters == 0
                                     ? MarkCounts{shown.escapedCharacters, shown.lookAlikes}
                                     : countMarks(text, options);
    QString block;
    for (const QStringView line : QStringView(shown.text).split(u'\n')) {
        block += gutter;
        block += line;
        block += u'\n';
    }
    m_terminal.write(block);
    if (isFileEdit && preview.fileChange.diffTruncated)
        m_terminal.writeLine(u"  "_s + tr("\u2026 the rest of the change is not shown"));
    if (shown.cutCharacters > 0) {
        const auto notShown = characterCount(QStringView(text).last(shown.cutCharacters));
        m_terminal.writeLine(
                u"  "_s
                + (notShown == 1
                           ? tr("\u2026 1 more character not shown")
                           : tr("\u2026 %n more characters not shown", nullptr, int(notShown))));
    }

    if (const int count = int(whole.escaped); count == 1) {
        m_terminal.writeLine(isCommand ? tr("Warning: this command contains 1 invisible or control "
                                            "character, shown as \u27E8U+\u2026\u27E9.")
                             : isFileEdit
                                     ? tr("Warning: this change contains 1 invisible or control "
                                          "character, shown as \u27E8U+\u2026\u27E9.")
                                     : tr("Warning: these arguments contain 1 invisible or "
                                          "control character, shown as \u27E8U+\u2026\u27E9."));
    } else if (count > 1) {
        m_terminal.writeLine(
                isCommand    ? tr("Warning: this command contains %n invisible or control "
                                  "characters, shown as \u27E8U+\u2026\u27E9.",
                               nullptr,
                               count)
                : isFileEdit ? tr("Warning: this change contains %n invisible or control "
                                  "characters, shown as \u27E8U+\u2026\u27E9.",
                                  nullptr,
                                  count)
                             : tr("Warning: these arguments contain %n invisible or "
                                  "control characters, shown as \u27E8U+\u2026\u27E9.",
                                  nullptr,
                                  count));
    }
    if (whole.lookAlikes > 0) {
        const bool severalLines = shown.text.contains(u'\n');
        QStringList letters;
        for (const DisplayMark &mark : shown.marks) {
            if (mark.kind != DisplayMark::LookAlike)
                continue;
            if (letters.size() == listedLookAlikes)
                break;
            const LineAndColumn at = lineAndColumn(shown.text, mark.position);
            const QString letter = shown.text.mid(mark.position, mark.length);
            const QString code
                    = u"U+"_s
                      + QString::number(uint(mark.codePoint), 16).toUpper().rightJustified(4, u'0');
            const QString latin = QString(QLatin1Char(mark.lookalikeOf));
            letters.append(severalLines
                                   ? tr("'%1' (%2) looks like '%3' at line %4, column %5")
                                             .arg(letter,
                                                  code,
                                                  latin,
                                                  QString::number(at.line),
                                                  QString::number(at.column))
                                   : tr("'%1' (%2) looks like '%3' at column %4")
                                             .arg(letter, code, latin, QString::number(at.column)));
        }
        QString list = letters.join(u", "_s);
        if (const qsizetype more = whole.lookAlikes - letters.size(); more > 0)
            list = tr("%1 and %n more", nullptr, int(more)).arg(list);
        m_terminal.writeLine(
                tr("Warning: letters from another script that look like Latin ones: %1.").arg(list));
    }
}

// The rules' reasons quote the model's command: each line behind the gutter, like the command.
void TerminalApprover::writeWhyAsked(const PermissionCheck &check)
{
    if (check.explanation.isEmpty() && check.details.isEmpty())
        return;
    m_terminal.writeLine(tr("Asked because:"));
    QString block;
    for (const QString &text : QStringList{check.explanation} + check.details) {
        if (text.isEmpty())
            continue;
        for (const QString &line : text.split(u'\n')) {
            block += gutter;
            block += m_terminal.line(line);
            block += u'\n';
        }
    }
    m_terminal.write(block);
}

ApprovalAnswer TerminalApprover::answerFor(const QString &typed)
{
    const QString word = typed.trimmed().toLower();
    if (word == u"y"_s || word == u"yes"_s)
        return ApprovalAnswer::allowOnce();
    if (word == u"a"_s)
        return {ApprovalAnswer::AllowForConversation, {}, {}};
    static const QRegularExpression
            denialWithReason(u"^\\s*no?\\s*:(.*)$"_s,
                             QRegularExpression::CaseInsensitiveOption
                                     | QRegularExpression::DotMatchesEverythingOption);
    const QRegularExpressionMatch match = denialWithReason.match(typed);
    if (!match.hasMatch())
        return ApprovalAnswer::deny();
    // The reason goes to the model: nothing in it may act on a terminal or a log, and a pasted
    // file must not become the model's next prompt.
    QString reason;
    for (const QChar c : match.captured(1)) {
        const QChar::Category category = c.category();
        if (category != QChar::Other_Control && category != QChar::Other_Format)
            reason += c;
    }
    reason = reason.trimmed();
    if (reason.size() > maxReasonLength) {
        qsizetype end = maxReasonLength;
        if (reason.at(end - 1).isHighSurrogate())
            --end; // never half a character
        reason.truncate(end);
    }
    return ApprovalAnswer::deny(reason);
}

// What the answer does, said once: the user may have typed more than one word.
void TerminalApprover::confirm(const ApprovalAnswer &answer)
{
    switch (answer.choice) {
    case ApprovalAnswer::AllowOnce:
        return;
    case ApprovalAnswer::AllowForConversation:
        m_terminal.writeLine(tr("Allowed for the rest of this conversation: this tool with "
                                "these exact arguments."));
        return;
    case ApprovalAnswer::Deny:
        if (answer.reason.isEmpty())
            m_terminal.writeLine(tr("Denied."));
        else
            m_terminal.writeLine(tr("Denied. The model is told: %1")
                                         .arg(m_terminal.line(answer.reason, maxReasonLength)));
        return;
    }
}

void TerminalApprover::finishWith(const QByteArray &typed, bool endOfInput)
{
    if (!m_waiting)
        return;
    m_waiting = false;
    if (m_notifier)
        m_notifier->setEnabled(false);
    if (endOfInput) {
        m_terminal.write(u'\n' + tr("No answer; the call is denied.") + u'\n');
        emit decided(m_requestId, ApprovalAnswer::deny());
        return;
    }
    const ApprovalAnswer answer = answerFor(QString::fromUtf8(typed));
    confirm(answer);
    emit decided(m_requestId, answer);
}

#ifdef Q_OS_WIN

// The Windows console cannot be watched by a socket notifier; one short-lived thread reads the
// line and hands it back to the event loop.
void TerminalApprover::startReading()
{
    std::thread([this, guard = QPointer<TerminalApprover>(this)] {
        std::string line;
        const bool gotLine = static_cast<bool>(std::getline(std::cin, line));
        QMetaObject::invokeMethod(
                qApp,
                [guard, line = QByteArray::fromStdString(line), gotLine] {
                    if (guard)
                        guard->finishWith(line, !gotLine);
                },
                Qt::QueuedConnection);
    }).detach();
}

void TerminalApprover::onInputReady() {}

#else

void TerminalApprover::startReading()
{
    if (!m_notifier) {
        m_notifier = new QSocketNotifier(STDIN_FILENO, QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &TerminalApprover::onInputReady);
    }
    m_notifier->setEnabled(true);
}

void TerminalApprover::onInputReady()
{
    char buffer[256];
    const ssize_t count = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (count <= 0) {
        finishWith(m_line, true);
        return;
    }
    m_line.append(buffer, count);
    if (const qsizetype newline = m_line.indexOf('\n'); newline >= 0)
        finishWith(m_line.left(newline), false);
}

#endif

} // namespace Cli
