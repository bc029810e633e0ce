#pragma once

#include <QAbstractItemModel>
#include <QJsonValue>

#include <memory>
#include <vector>

namespace Gui {

// A JSON document as a tree: one row per member or element, with its key (or index), its
// value for scalars, and a summary ("{3}", "[12]") for objects and arrays.
class JsonTreeModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, TypeColumn, ColumnCount };

    explicit JsonTreeModel(QObject *parent = nullptr);
    ~JsonTreeModel() override;

    // Shows bytes when they are a JSON document; an empty tree otherwise. Returns whether they
    // were.
    bool setJson(const QByteArray &bytes);
    void clear();

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Node;
    static void build(Node *node, const QJsonValue &value);
    Node *nodeFor(const QModelIndex &index) const;

    std::unique_ptr<Node> m_root;
};

} // namespace Gui
