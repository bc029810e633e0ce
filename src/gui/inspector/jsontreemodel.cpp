#include "inspector/jsontreemodel.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QFontDatabase>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

constexpr qsizetype shownKeyLength = 200;
constexpr qsizetype shownValueLength = 500;    // in the tree's row
constexpr qsizetype shownToolTipLength = 4000; // in its tooltip

// A string value in its tooltip: its lines kept, the rest as in the row.
QString toolTipText(const QString &text)
{
    AgentLoop::DisplayOptions options;
    options.keepTabs = false;
    const ShownText shown = shownText(text, shownToolTipLength, options);
    return plainToolTip(shown.cutBytes > 0 ? shown.text + u'\x2026' : shown.text);
}

} // namespace

struct JsonTreeModel::Node
{
    QString key;      // as shown: one line, escaped and bounded
    QJsonValue value; // scalars only; containers keep their children instead
    QJsonValue::Type type = QJsonValue::Null;
    int childCount = 0;
    Node *parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;
};

JsonTreeModel::JsonTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
{}

JsonTreeModel::~JsonTreeModel() = default;

void JsonTreeModel::build(Node *node, const QJsonValue &value)
{
    node->type = value.type();
    const auto addChild = [node](const QString &key, const QJsonValue &childValue) {
        auto child = std::make_unique<Node>();
        child->key = AgentLoop::displayedLine(key, shownKeyLength);
        child->parent = node;
        child->row = int(node->children.size());
        build(child.get(), childValue);
        node->children.push_back(std::move(child));
    };
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            addChild(it.key(), it.value());
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            addChild(QString::number(i), array.at(i));
    } else {
        node->value = value;
    }
    node->childCount = int(node->children.size());
}

bool JsonTreeModel::setJson(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    beginResetModel();
    m_root = std::make_unique<Node>();
    const bool ok = error.error == QJsonParseError::NoError && !document.isNull();
    if (ok)
        build(m_root.get(),
              document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array()));
    endResetModel();
    return ok;
}

void JsonTreeModel::clear()
{
    beginResetModel();
    m_root = std::make_unique<Node>();
    endResetModel();
}

JsonTreeModel::Node *JsonTreeModel::nodeFor(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : m_root.get();
}

QModelIndex JsonTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column, nodeFor(parent)->children.at(size_t(row)).get());
}

QModelIndex JsonTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    Node *parent = nodeFor(child)->parent;
    if (!parent || parent == m_root.get())
        return {};
    return createIndex(parent->row, 0, parent);
}

int JsonTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    return nodeFor(parent)->childCount;
}

int JsonTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant JsonTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    const Node *node = nodeFor(index);
    if (role == Qt::FontRole && index.column() == ValueColumn)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::AccessibleTextRole)
        return {};
    switch (Column(index.column())) {
    case KeyColumn:
        return role == Qt::ToolTipRole ? plainToolTip(node->key) : node->key;
    case ValueColumn:
        switch (node->type) {
        case QJsonValue::Object:
            return u"{%1}"_s.arg(node->childCount);
        case QJsonValue::Array:
            return u"[%1]"_s.arg(node->childCount);
        case QJsonValue::String: {
            // What the model or the provider wrote, escaped; a tool output of thousands of lines
            // would make a useless row: the tooltip has more of it, the Response tab all.
            const QString text = node->value.toString();
            if (role == Qt::ToolTipRole)
                return toolTipText(text);
            return AgentLoop::displayedLine(text, shownValueLength);
        }
        case QJsonValue::Double:
            return QString::number(node->value.toDouble(), 'g', QLocale::FloatingPointShortest);
        case QJsonValue::Bool:
            return node->value.toBool() ? u"true"_s : u"false"_s;
        case QJsonValue::Null:
            return u"null"_s;
        case QJsonValue::Undefined:
            break;
        }
        return {};
    case TypeColumn:
        switch (node->type) {
        case QJsonValue::Object:
            return tr("object");
        case QJsonValue::Array:
            return tr("array");
        case QJsonValue::String:
            return tr("string");
        case QJsonValue::Double:
            return tr("number");
        case QJsonValue::Bool:
            return tr("boolean");
        case QJsonValue::Null:
            return tr("null");
        case QJsonValue::Undefined:
            break;
        }
        return {};
    case ColumnCount:
        break;
    }
    return {};
}

QVariant JsonTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case KeyColumn:
        return tr("Key");
    case ValueColumn:
        return tr("Value");
    case TypeColumn:
        return tr("Type");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace Gui
