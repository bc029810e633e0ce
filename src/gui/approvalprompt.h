#pragma once

#include "agent/agentcontroller.h"
#include "base/displaytext.h"
#include "ruledialog.h"

#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QObject>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

class QAbstractButton;

namespace AgentLoop {
class Tool;
}

namespace Gui {

// What the approval of an MCP server's tool shows above its arguments: the server, the tool as
// the server names it, its description (the server's words, bounded), and whether its arguments
// were checked against its input schema.
struct McpCallDetails
{
    QString server;
    QString tool;
    QString title;
    QString description;
    bool readOnlyHint = false;
    bool destructiveHint = false;
    // The schema's keywords the validator does not support; not empty: the arguments were not
    // checked (McpTool::validationSkipped()).
    QStringList unsupportedKeywords;

    // The details of an McpTool; nullopt for any other tool.
    static std::optional<McpCallDetails> of(const AgentLoop::Tool *tool);
};

// Asks the user whether one tool call may run: a window-modal QMessageBox (opened with open(),
// never exec()) titled "Approve tool call?", naming the tool and the reason, with what will run
// in a monospace, selectable, read-only view:
//   - the shell: the command line itself, and a line saying that a command is not confined to
//     the workspace;
//   - a file edit: the file, its encoding and the counts ("Edit src/main.cpp (GB18030, CRLF)",
//     "Changes (+3 −1 lines):") over the unified diff, its lines coloured; "Show arguments"
//     switches the view to the arguments and back;
//   - an MCP server's tool: the server, the tool, its description, a line when its arguments were
//     not checked against its schema, and the arguments as indented JSON — all of them, never
//     cut: a long text is filled in whole (as Show all does) before Allow wakes;
//   - any other tool: the arguments as indented JSON.
// Everything shown passes through AgentLoop::displayText(): invisible and control characters
// appear as ⟨U+XXXX⟩ and look-alike letters are marked (in commands and diffs), both highlighted
// and counted in a warning above the view. The view is as tall as the text is laid out, up to
// maximumVisibleLines; beyond that it scrolls and a label says which lines are in sight. Text over
// previewLength characters is shown in part first ("Show all" fills in the rest a slice at a time,
// so that the box stays responsive).
//
// Above the view, why it asks: the rules' explanation and what decided each part of the call (a
// short list; a long one ends with how many more there are).
//
// The choices: Allow once, Allow for this conversation (this tool with these exact arguments),
// Always allow… (RuleDialog: rules to save, or to keep for this conversation; disabled, saying
// why, when no rule could allow the call), Deny, and Deny with a reason… (a short text the model
// reads). Deny is the default and the escape button. The allow buttons cannot be pressed for
// inputDelay after the box is shown, switched between the diff and the arguments, or back from
// one of its dialogs (nor before a long text is checked to its end), so that a click or a key
// meant for something else cannot approve. No button has single-key activation (mnemonics work
// with Alt only), and Enter presses an allow button only when it has the focus. The two buttons
// that open a dialog keep the box open; cancelling that dialog returns to it, undecided.
//
// decided() is emitted exactly once, with the answer chosen; Deny, Esc, closing the box, and the
// box or its parent being destroyed (quitting while it is open) deny without a reason. Fail
// closed: anything but an allow denies.
//
// The prompt is owned by its message box, which deletes itself once answered. When the parent is
// destroyed, decided() is emitted from inside that destruction: connect it to an object that
// outlives the parent or dies before it (the controller), not to the parent itself.
class ApprovalPrompt final : public QObject
{
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds inputDelay{700};
    static constexpr int maximumVisibleLines = 14;
    // Characters of text shown before "Show all". Lines longer than previewLineBreak (and, once
    // Show all has unwrapped them, than showAllLineBreak) are broken with a marker: Qt lays out and
    // shapes a line as a whole, every time it paints it, so no line may be long.
    static constexpr qsizetype previewLength = 64 * 1024;
    static constexpr qsizetype previewLineBreak = 4000;
    static constexpr qsizetype showAllLineBreak = 1000;

    // The reason for a denial is bounded: the model reads it in the tool message.
    static constexpr qsizetype maximumReasonLength = 2000;
    // Characters of a tool's reason shown (an MCP tool's quotes its description).
    static constexpr qsizetype maximumReasonShown = 4000;
    // Lines of the check's details shown; the rest are counted.
    static constexpr int maximumDetailLines = 6;

    // saving: what Always allow… saves with; without addRules, only "This conversation only"
    // can be chosen there.
    // mcp: the details of an MCP tool's call (McpCallDetails::of()).
    static ApprovalPrompt *ask(const AgentLoop::ApprovalRequest &request,
                               QWidget *parent,
                               RuleSaving saving = {},
                               std::optional<McpCallDetails> mcp = std::nullopt);
    ~ApprovalPrompt() override;

    quint64 requestId() const { return m_requestId; }
    bool isDecided() const { return m_decided; }
    // For tests and screenshots; null once the box is gone.
    QMessageBox *messageBox() const { return m_box; }
    QPlainTextEdit *argumentsView() const;
    // FileEdit: switches the view between the diff and the arguments; null for other calls.
    QPushButton *argumentsToggle() const { return m_argumentsToggle; }
    bool isShowingArguments() const { return m_showingArguments; }
    // Allow once.
    QPushButton *allowButton() const { return m_allow; }
    QPushButton *allowForConversationButton() const { return m_allowForConversation; }
    QPushButton *alwaysAllowButton() const { return m_alwaysAllow; }
    QPushButton *denyButton() const { return m_deny; }
    QPushButton *denyWithReasonButton() const { return m_denyWithReason; }
    // The dialog Always allow… or Deny with a reason… opened, while it is open.
    RuleDialog *ruleDialog() const { return m_ruleDialog; }
    QInputDialog *reasonDialog() const { return m_reasonDialog; }

    // What the box shows, before sanitising: the request's preview, or, for a request that has
    // none, its decoded arguments as indented JSON.
    static AgentLoop::CallPreview previewOf(const AgentLoop::ApprovalRequest &request);
    // The decoded arguments as indented JSON (as the model sent them when they are no object).
    static QString argumentsText(const AgentLoop::ApprovalRequest &request);

signals:
    void decided(quint64 requestId, const AgentLoop::ApprovalAnswer &answer);

private:
    class Sanitiser;
    class View;

    ApprovalPrompt(const AgentLoop::ApprovalRequest &request,
                   RuleSaving saving,
                   std::optional<McpCallDetails> mcp,
                   QMessageBox *box);
    bool eventFilter(QObject *watched, QEvent *event) override;
    void addButtons(const AgentLoop::ApprovalRequest &request);
    void onButtonClicked(QAbstractButton *button);
    // Closes the box with this answer (decided() follows from its finished()).
    void answer(const AgentLoop::ApprovalAnswer &answer);
    void decide(const AgentLoop::ApprovalAnswer &answer);
    void openRuleDialog();
    void openReasonDialog();
    // Back from a dialog of the box: what was near the pointer or the keys may have moved.
    void restartDelay();
    QWidget *createWhyAsked(const AgentLoop::PermissionCheck &check, QWidget *parent);
    QWidget *createMcpDetails(QWidget *parent);
    // Everything of the text is in the view (an MCP call's arguments are never shown in part).
    bool isWholeTextShown() const;

    QWidget *createPanel();
    // Shows source in the view (sanitised, its beginning first when it is long), as what kind
    // shows, and checks it to its end before Allow wakes.
    void showText(const QString &source);
    void toggleArguments();
    AgentLoop::CallPreview::Kind shownKind() const;
    void appendToView(QTextCursor &cursor, qsizetype to, qsizetype lineBreak);
    void scanSlice();
    void showAll();
    void fillSlice();
    void fitView();
    void updateWarnings();
    void updateRangeLabel();
    void updatePreviewLabel();
    void updateAllow();
    void applyWarningColours();
    void updateCaption();

    quint64 m_requestId = 0;
    bool m_decided = false;
    std::optional<AgentLoop::ApprovalAnswer> m_answer; // chosen, the box closing
    AgentLoop::ApprovalRequest m_request; // for Always allow…: without arguments or preview
    RuleSaving m_saving;
    std::optional<McpCallDetails> m_mcp;
    AgentLoop::CallPreview::Kind m_kind = AgentLoop::CallPreview::Arguments;
    AgentLoop::CallPreview m_preview; // what the view shows, before sanitising
    QString m_arguments;              // FileEdit: the arguments, the other text of the view
    bool m_showingArguments = false;
    QPointer<QMessageBox> m_box;
    const QObject *m_boxObject; // the same box, for comparisons that must not cast it
    QPointer<QPushButton> m_allow;
    QPointer<QPushButton> m_allowForConversation;
    QPointer<QPushButton> m_alwaysAllow;
    QPointer<QPushButton> m_deny;
    QPointer<QPushButton> m_denyWithReason;
    QPointer<RuleDialog> m_ruleDialog;
    QPointer<QInputDialog> m_reasonDialog;
    QPointer<View> m_view;
    QPointer<QWidget> m_warnings;
    QPointer<QLabel> m_escapedWarning;
    QPointer<QLabel> m_lookAlikeWarning;
    QPointer<QLabel> m_rangeLabel;
    QPointer<QLabel> m_previewLabel;
    QPointer<QPushButton> m_showAll;
    QPointer<QPushButton> m_argumentsToggle;
    QPointer<QLabel> m_caption;
    QPointer<QLabel> m_fileLabel;
    QPointer<QLabel> m_delayLabel;

    // The whole text, sanitised piece by piece (all at once when it is short).
    std::unique_ptr<Sanitiser> m_shown;
    qint64 m_sourceBytes = 0;        // UTF-8
    qint64 m_previewSourceBytes = 0; // UTF-8, of the source the preview shows
    qsizetype m_previewEnd = 0;      // in the sanitised text
    bool m_large = false;
    bool m_showingAll = false;
    qsizetype m_brokeLinesAt = 0; // the line length, when a line had to be broken
    // Where appendToView() goes on: in the sanitised text, its next mark, the shown column.
    qsizetype m_filled = 0;
    qsizetype m_nextMark = 0;
    qsizetype m_column = 0;
    // A diff's lines are coloured as they are filled in: whether the next character starts one,
    // and the format of the line's text.
    bool m_lineStart = true;
    QTextCharFormat m_lineFormat;

    bool m_delayOver = false;
    QTimer m_delayTimer;
    QTimer m_scanTimer;
    QTimer m_fillTimer;
    QTimer m_fitTimer;
};

} // namespace Gui
