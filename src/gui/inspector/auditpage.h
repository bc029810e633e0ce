#pragma once

#include <QWidget>

class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace Gui {

class AuditModel;
class JsonHighlighter;

// The inspector's Audit page: the conversation's audit trail, a row per finished call (what was
// decided, by whom, and how it ended), and the selected call's whole audit line as JSON.
class AuditPage final : public QWidget
{
    Q_OBJECT
public:
    explicit AuditPage(QWidget *parent = nullptr);

    void setModel(AuditModel *model);
    AuditModel *model() const { return m_model; }

    void selectRow(int row);
    // The selected row, -1 when none.
    int currentRow() const { return m_shownRow; }
    QString entryText() const;
    QTableView *table() const { return m_table; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void showRow(int row);
    void followNewest(int first);

    AuditModel *m_model = nullptr;
    QTableView *m_table;
    QPlainTextEdit *m_entry;
    JsonHighlighter *m_highlighter;
    QPushButton *m_copy;
    int m_shownRow = -1;
};

} // namespace Gui
