#pragma once

#include <QString>

namespace AgentLoop {

// A folder path that cannot be created, whoever runs the test (root included): it lies below a
// plain file, which this makes in parent. Empty when the file cannot be made.
QString uncreatableFolder(const QString &parent);

} // namespace AgentLoop
