#pragma once

#include "protocol/exchange.h"

#include <QJsonValue>
#include <QList>
#include <QString>

namespace AgentLoop {

// One difference between two JSON documents, at a path written as code would reach it:
// `choices[0].message.content`, a key that is not a plain name quoted (`headers["x-id"]`), the
// whole document as "" (a root of different types or values).
struct JsonChange
{
    enum Kind { Added, Removed, Changed };

    Kind kind = Changed;
    QString path;
    QJsonValue before = QJsonValue(QJsonValue::Undefined); // Undefined for Added
    QJsonValue after = QJsonValue(QJsonValue::Undefined);  // Undefined for Removed

    friend bool operator==(const JsonChange &, const JsonChange &) = default;
};

// The structural differences of two documents, in document order (an object's keys sorted, an
// array's items by index), at most a cap of them; the rest only counted.
struct JsonDiff
{
    QList<JsonChange> changes;
    qsizetype omitted = 0; // differences past the cap

    bool isEmpty() const { return changes.isEmpty() && omitted == 0; }
};

// What changed from before to after. Objects are compared key by key, arrays item by item by
// index (an item added at the front changes every later index: what a reader of two responses
// sees too); two values of different types, or unequal scalars, are one Changed entry. A key
// whose value is an object or array on one side only is one Added or Removed entry with the
// whole value.
JsonDiff diffJson(const QJsonValue &before, const QJsonValue &after, qsizetype maxChanges = 500);

// `message.content`, `choices[0]`, `["a b"]`: key appended to path.
QString jsonPathWithKey(const QString &path, const QString &key);
QString jsonPathWithIndex(const QString &path, qsizetype index);

// The two responses as a user compares them: both whole bodies when neither was streamed;
// otherwise the assistant messages (a stream's assembled message, a body's
// choices[0].message), since raw events differ in every id and timestamp. A body that is no
// JSON (or a stream that assembled nothing) is compared as its text.
struct ComparedResponses
{
    QJsonValue before;
    QJsonValue after;
    bool messagesOnly = false; // the assistant messages were compared
};
ComparedResponses comparableResponses(const Exchange &before, const Exchange &after);

} // namespace AgentLoop
