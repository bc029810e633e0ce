#pragma once

#include <QWidget>

class QAction;
class QLineEdit;
class QListView;
class QModelIndex;
class QSortFilterProxyModel;

namespace Gui {

class ConversationListModel;

// The saved conversations, for the side panel: a search field over the list (title and date,
// newest first, the open one in bold). Enter or a double-click opens one, F2 renames it in place,
// Del asks to delete it; the context menu offers the same.
class ConversationPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit ConversationPanel(ConversationListModel *model, QWidget *parent = nullptr);

    QLineEdit *searchField() const { return m_search; }
    QListView *listView() const { return m_list; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    QAction *openAction() const { return m_open; }
    QAction *renameAction() const { return m_rename; }
    QAction *deleteAction() const { return m_delete; }

    // Opening is not possible while a run is in progress.
    void setOpenEnabled(bool enabled);
    // The conversation's id under the list's current item, or empty.
    QString currentId() const;
    // Makes that conversation the list's current item, when it is shown.
    void selectConversation(const QString &id);

signals:
    void openRequested(const QString &id);
    void deleteRequested(const QString &id, const QString &title);

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void retranslate();
    void updateActions();
    void activate(const QModelIndex &index);

    ConversationListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_search;
    QListView *m_list;
    QAction *m_open;
    QAction *m_rename;
    QAction *m_delete;
    bool m_openEnabled = true;
};

} // namespace Gui
