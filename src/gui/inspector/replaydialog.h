#pragma once

#include "protocol/exchange.h"
#include "protocol/jsondiff.h"
#include "protocol/providersettings.h"
#include "protocol/requestcheck.h"

#include <QAbstractTableModel>
#include <QDialog>
#include <QPointer>
#include <QTimer>

#include <optional>

class QLabel;
class QMessageBox;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace AgentLoop {
class ChatClient;
struct Error;
} // namespace AgentLoop

namespace Gui {

class JsonHighlighter;

// The rows of a structural JSON diff: path, change, old value, new value (compact JSON, on one
// line, shown through displayedLine()); a last row "… and N more" when the diff was capped.
class JsonDiffModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { PathColumn, ChangeColumn, BeforeColumn, AfterColumn, ColumnCount };

    explicit JsonDiffModel(QObject *parent = nullptr);

    void setDiff(const AgentLoop::JsonDiff &diff);
    const AgentLoop::JsonDiff &diff() const { return m_diff; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // A value as a cell shows it: compact JSON, at most this many characters.
    static constexpr qsizetype maxValueLength = 300;

private:
    AgentLoop::JsonDiff m_diff;
};

// "Edit and resend" (the inspector's request, Ctrl+E): the request's exact body in an editor,
// checked as it is typed (JSON syntax, the request's schema, the pairing rule), sent as a side
// request to the conversation's provider by a ChatClient of its own, which nothing of the
// conversation hears: not its history, its file, the chat or the inspector's list. The new
// response is shown beside the original, with a table of what differs, path by path. Closing
// the dialog, or Stop, abandons the side request.
class ReplayDialog final : public QDialog
{
    Q_OBJECT
public:
    // demo: the provider is the built-in demo (answers come from it, nothing goes out).
    ReplayDialog(const AgentLoop::Exchange &original,
                 const AgentLoop::ProviderSettings &provider,
                 bool demo,
                 QWidget *parent = nullptr);
    ~ReplayDialog() override;

    // Bodies larger than this are checked on another thread.
    static constexpr qsizetype backgroundCheckBytes = 64 * 1024;
    // The wait after a keystroke before the body is checked again.
    static constexpr int checkDelayMs = 300;

    QPlainTextEdit *editor() const { return m_editor; }
    QLabel *problemsLabel() const { return m_problems; }
    QPushButton *sendButton() const { return m_send; }
    QPushButton *stopButton() const { return m_stop; }
    QPlainTextEdit *originalView() const { return m_original; }
    QPlainTextEdit *resendView() const { return m_resent; }
    QTableView *diffTable() const { return m_diffTable; }
    JsonDiffModel *diffModel() const { return m_diffModel; }
    QLabel *resultLabel() const { return m_result; }
    // The check of the editor's text, once done (checked() says when).
    const std::optional<AgentLoop::RequestCheck> &check() const { return m_check; }
    bool isSending() const;
    // The box asking whether to send a body that breaks the schema or pairing rule, or null.
    QMessageBox *pendingWarning() const;

public slots:
    // Sends the editor's body; asks first when it breaks the schema or the pairing rule (a body
    // that is no JSON is never sent).
    void send();
    void stop();

signals:
    // The editor's text has been checked (check()).
    void checked();
    // The side request ended: answered (the diff is shown) or failed (the result says why).
    void replyShown();

protected:
    void done(int result) override;
    void changeEvent(QEvent *event) override;

private:
    void scheduleCheck();
    void startCheck();
    void showCheck(AgentLoop::RequestCheck check);
    void sendNow();
    void showReply();
    void showFailure(const AgentLoop::Error &error);
    void updateButtons();

    AgentLoop::Exchange m_originalExchange;
    AgentLoop::ChatClient *m_client;
    QPlainTextEdit *m_editor;
    JsonHighlighter *m_editorHighlighter;
    QLabel *m_problems;
    QPushButton *m_send;
    QPushButton *m_stop;
    QPlainTextEdit *m_original;
    QPlainTextEdit *m_resent;
    JsonHighlighter *m_originalHighlighter;
    JsonHighlighter *m_resentHighlighter;
    QLabel *m_result;
    QTableView *m_diffTable;
    JsonDiffModel *m_diffModel;
    QTimer m_checkTimer;
    quint64 m_checkSerial = 0; // the latest check started; older results are stale
    std::optional<AgentLoop::RequestCheck> m_check;
    std::optional<AgentLoop::Exchange> m_reply; // the side request's last response
    QPointer<QMessageBox> m_warning;
};

} // namespace Gui
