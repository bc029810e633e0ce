#include "longoutput.h"

#include <QDir>
#include <QFile>

using namespace Qt::StringLiterals;

namespace AgentLoop {

QString countingCommand(const QString &workspace, int lines)
{
#ifdef Q_OS_WIN
    QByteArray bytes;
    for (int i = 1; i <= lines; ++i)
        bytes += QByteArray::number(i) + '\n';
    const QString name = u"seq-1-%1.txt"_s.arg(lines);
    QFile file(QDir(workspace).filePath(name));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        return u"echo cannot write %1"_s.arg(name);
    return u"type "_s + name;
#else
    Q_UNUSED(workspace);
    return u"seq 1 %1"_s.arg(lines);
#endif
}

} // namespace AgentLoop
