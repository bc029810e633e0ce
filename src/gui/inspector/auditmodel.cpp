#include "inspector/auditmodel.h"

#include "base/displaytext.h"
#include "showntext.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// What one cell shows at most: the view elides the rest, the tooltip and the JSON show it all.
constexpr qsizetype cellLength = 300;

QString resultText(const QJsonObject &entry)
{
    const int exitCode = entry.value(u"exit_code"_s).toInt(-1);
    const QString exit = exitCode >= 0 ? AuditModel::tr("exit %1").arg(exitCode) : QString();
    if (entry.value(u"ok"_s).toBool(true))
        return exit.isEmpty() ? AuditModel::tr("ok") : exit;
    const QString code = AgentLoop::displayedLine(entry.value(u"error_code"_s).toString(), 80);
    return exit.isEmpty() ? code : AuditModel::tr("%1 · %2").arg(code, exit);
}

QString durationText(const QJsonObject &entry)
{
    if (!entry.contains(u"duration_ms"_s))
        return {};
    const qint64 ms = entry.value(u"duration_ms"_s).toInteger();
    if (ms < 1000)
        return AuditModel::tr("%1 ms").arg(ms);
    return AuditModel::tr("%1 s").arg(QLocale().toString(double(ms) / 1000.0, 'f', 1));
}

QDateTime timeOf(const QJsonObject &entry)
{
    return QDateTime::fromString(entry.value(u"time"_s).toString(), Qt::ISODateWithMs);
}

} // namespace

AuditModel::AuditModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject &entry = m_entries.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return text(entry, index.column());
    case Qt::ToolTipRole:
        if (index.column() == TimeColumn)
            return QLocale().toString(timeOf(entry).toLocalTime(), QLocale::LongFormat);
        return plainToolTip(text(entry, index.column()));
    case Qt::TextAlignmentRole:
        if (index.column() == TurnColumn || index.column() == DurationColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QString AuditModel::text(const QJsonObject &entry, int column) const
{
    switch (Column(column)) {
    case TimeColumn:
        return timeOf(entry).toLocalTime().toString(u"HH:mm:ss"_s);
    case TurnColumn:
        return entry.contains(u"turn"_s) ? QString::number(entry.value(u"turn"_s).toInt())
                                         : QString();
    case ToolColumn:
        return AgentLoop::displayedLine(entry.value(u"tool"_s).toString(), 80);
    case CallColumn:
        return AgentLoop::displayedLine(entry.value(u"tool_call_id"_s).toString(), 80);
    case WhatRanColumn:
        return AgentLoop::displayedLine(subjectOf(entry), cellLength);
    case DecisionColumn:
        return decisionText(entry);
    case DecidedByColumn:
        return decidedByText(entry);
    case ReasonColumn:
        return AgentLoop::displayedLine(entry.value(u"reason"_s).toString(), cellLength);
    case ResultColumn:
        return resultText(entry);
    case DurationColumn:
        return durationText(entry);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case TimeColumn:
        return tr("Time");
    case TurnColumn:
        return tr("Turn");
    case ToolColumn:
        return tr("Tool");
    case CallColumn:
        return tr("Call");
    case WhatRanColumn:
        return tr("What ran");
    case DecisionColumn:
        return tr("Decision");
    case DecidedByColumn:
        return tr("Decided by");
    case ReasonColumn:
        return tr("Reason");
    case ResultColumn:
        return tr("Result");
    case DurationColumn:
        return tr("Duration");
    case ColumnCount:
        break;
    }
    return {};
}

void AuditModel::setEntries(const QList<QJsonObject> &entries)
{
    beginResetModel();
    m_entries = entries;
    endResetModel();
}

void AuditModel::append(const QJsonObject &entry)
{
    const int row = int(m_entries.size());
    beginInsertRows({}, row, row);
    m_entries.append(entry);
    endInsertRows();
}

QString AuditModel::subjectOf(const QJsonObject &entry)
{
    const QString arguments = entry.value(u"arguments"_s).toString();
    const QJsonObject object = QJsonDocument::fromJson(arguments.toUtf8()).object();
    for (const QString &key : {u"command"_s, u"path"_s}) {
        if (object.value(key).isString())
            return object.value(key).toString();
    }
    return arguments;
}

QString AuditModel::decisionText(const QJsonObject &entry)
{
    const QString decision = entry.value(u"decision"_s).toString();
    QString text;
    if (decision == u"allow")
        text = tr("Allow");
    else if (decision == u"allow_conversation")
        text = tr("Allow for this conversation");
    else if (decision == u"deny")
        text = tr("Deny");
    else
        return tr("Not decided");
    //: A decision the user was asked for: "Allow (asked)"
    return entry.value(u"asked"_s).toBool() ? tr("%1 (asked)").arg(text) : text;
}

QString AuditModel::decidedByText(const QJsonObject &entry)
{
    const QString decidedBy = entry.value(u"decided_by"_s).toString();
    if (decidedBy == u"user")
        return tr("You");
    if (decidedBy == u"default")
        return tr("Default");
    return AgentLoop::displayedLine(decidedBy, cellLength);
}

} // namespace Gui
