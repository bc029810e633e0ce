#pragma once

#include <QByteArray>
#include <QString>

namespace Gui {

// True when bytes are one JSON document (object or array), as QJsonDocument reads it.
bool isJsonDocument(const QByteArray &bytes);

// The same JSON text re-indented with two spaces: only whitespace between tokens changes, so
// keys keep their order and numbers and escapes stay exactly as they were sent. Anything that
// is not a JSON document comes back unchanged (decoded as UTF-8).
QString prettyJson(const QByteArray &bytes);
QString prettyJson(const QString &text);

// The JSON text without whitespace between tokens; for comparing texts that differ only in
// indentation.
QString compactJson(const QString &text);

} // namespace Gui
