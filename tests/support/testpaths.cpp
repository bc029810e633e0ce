#include "testpaths.h"

#include <QDir>
#include <QFile>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QString uncreatableFolder(const QString &parent)
{
    QFile blocker(QDir(parent).filePath(u"not-a-folder"_s));
    if (!blocker.open(QIODevice::WriteOnly))
        return {};
    return blocker.fileName() + u"/folder"_s;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
           && file.write(bytes) == bytes.size();
}

QString sharedVectorsPath(const QString &relativePath)
{
    // Set by tests/CMakeLists.txt for this file alone.
    const QString root = QStringLiteral(AGENTLOOP_SHARED_VECTORS_DIR);
    return QDir::cleanPath(relativePath.isEmpty() ? root : root + u'/' + relativePath);
}

} // namespace AgentLoop
