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

} // namespace AgentLoop
