#pragma once

#include <QWidget>

class QAction;
class QCheckBox;
class QHBoxLayout;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QTreeView;

namespace AgentLoop {
struct Exchange;
}

namespace Gui {

class AuditModel;
class AuditPage;
class JsonHighlighter;
class JsonTreeModel;
class ProtocolStrip;
class TurnModel;
struct TurnRecord;

// The tool-call inspector: the table of requests (one row per attempt when one was retried),
// and for the selected one the exact request and response bodies (pretty-printed, highlighted;
// a streamed response as the raw events that arrived, with the assembled message the loop acted
// on in a tab of its own), the headers with Authorization redacted, and a tree of the JSON; with
// copy buttons and "Copy as curl". A second page, Audit, lists the conversation's audit trail
// (AuditPage).
class Inspector final : public QWidget
{
    Q_OBJECT
public:
    explicit Inspector(QWidget *parent = nullptr);

    // audit: the conversation's audit trail, for the Audit page; none: the page stays empty.
    void setModel(TurnModel *model, AuditModel *audit = nullptr);
    TurnModel *model() const { return m_model; }
    AuditPage *auditPage() const { return m_auditPage; }
    // The Requests and Audit pages.
    QTabWidget *pages() const { return m_pages; }

    // Selects the request with this number (from 1), its last attempt when it was retried, and
    // shows it.
    void selectTurn(int number);
    // Selects the table's row (one HTTP exchange) and shows it.
    void selectRow(int row);
    // The shown request's number, 0 when none.
    int currentTurn() const;
    // The table row shown, -1 when none.
    int currentRow() const { return m_shownRow; }

    QString requestText() const;
    // Fills the response pages first: they are filled only when shown.
    QString responseText();
    // A streamed response's assembled message, pretty-printed; empty otherwise.
    QString assembledText();
    QString headersText() const;
    QString summaryText() const;
    // The line under the table: the conversation's requests, time, tokens and cost so far.
    QString totalsText() const;
    // The "Assembled" tab's page; its tab is shown for streamed responses only.
    QWidget *assembledPage() const;
    QTableView *table() const { return m_table; }
    // The protocol check of the shown request (hidden when it had none).
    ProtocolStrip *protocolStrip() const { return m_protocolStrip; }
    QTabWidget *tabs() const { return m_tabs; }

    // Request line and headers, a blank line, status line and response headers.
    static QString headersText(const TurnRecord &record);

    // Actions on the request shown: in the request table's context menu, and as buttons under
    // the request (they work with their shortcuts anywhere in the inspector).
    void addRequestActions(const QList<QAction *> &actions);

signals:
    // The request shown changed (row -1: none), or what it shows did.
    void rowShown(int row);

protected:
    void changeEvent(QEvent *event) override;

private:
    void showRow(int row);
    void fillResponsePages(bool evenIfHidden);
    void showTree();
    void showAssembledTab(bool visible);
    void copyRequest();
    void copyResponse();
    void copyCurl();
    void onRowsInserted(int first);
    int selectedRow() const;

    TurnModel *m_model = nullptr;
    QTabWidget *m_pages;
    AuditPage *m_auditPage;
    QTableView *m_table;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_request;
    QPlainTextEdit *m_response;
    QPlainTextEdit *m_assembled;
    QPlainTextEdit *m_headers;
    QTreeView *m_tree;
    QComboBox *m_treeSource;
    JsonTreeModel *m_treeModel;
    JsonHighlighter *m_requestHighlighter;
    JsonHighlighter *m_responseHighlighter;
    JsonHighlighter *m_assembledHighlighter;
    QPushButton *m_copyRequest;
    QPushButton *m_copyResponse;
    QPushButton *m_copyCurl;
    QCheckBox *m_wrap;
    QLabel *m_summary;
    QLabel *m_totals;
    QHBoxLayout *m_buttons;
    ProtocolStrip *m_protocolStrip;
    int m_shownRow = -1;
    int m_shownState = -1;
    // The TurnRecord::State the response pages were last set for, and whether they hold it.
    int m_responsePagesState = -1;
    bool m_responsePagesFilled = false;
};

} // namespace Gui
