#pragma once

#include <QByteArray>
#include <QString>

namespace AgentLoop {

// Files and folders the tests read, write and point the code under test at.

// A folder path that cannot be created, whoever runs the test (root included): it lies below a
// plain file, which this makes in parent. Empty when the file cannot be made.
QString uncreatableFolder(const QString &parent);

// Everything in the file, or an empty array when it cannot be read.
QByteArray readFile(const QString &path);
// Writes bytes as the whole file; false when any of it could not be written.
bool writeFile(const QString &path, const QByteArray &bytes);

// The shared test vectors (recorded provider answers and streams, the OpenAI OpenAPI document):
// ../shared/vectors beside the source tree, with relativePath appended when given. A test that
// finds nothing there skips and says why.
QString sharedVectorsPath(const QString &relativePath = {});

} // namespace AgentLoop
