#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace AgentLoop {

// JSON helpers the tests share for building and reading wire-format bodies.

// Compact JSON text of an object or array.
QByteArray compact(const QJsonValue &value);
// The object in json; test data that is not a JSON object stops the test run loudly.
QJsonObject parseObject(const QByteArray &json);
// {"id","type":"function","function":{"name","arguments"}}; arguments is usually the JSON text,
// but a test may pass an object to play a provider that sends one.
QJsonObject toolCallJson(const QString &id, const QString &name, const QJsonValue &arguments);
// The shell tool's arguments as a model writes them: {"command": command} as compact JSON text.
QString shellArguments(const QString &command);

} // namespace AgentLoop
