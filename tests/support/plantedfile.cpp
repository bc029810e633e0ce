#include "plantedfile.h"

#include <QFile>

#ifndef Q_OS_WIN
#include <sys/stat.h>
#endif

using namespace Qt::StringLiterals;

namespace AgentLoop {

bool plantFile(PlantedFile kind, const QString &path, const QString &outsideFile)
{
#ifdef Q_OS_WIN
    Q_UNUSED(kind);
    Q_UNUSED(path);
    Q_UNUSED(outsideFile);
    return false;
#else
    switch (kind) {
    case PlantedFile::LinkOut:
        return QFile::link(outsideFile, path);
    case PlantedFile::LinkToDevice:
        return QFile::link(u"/dev/zero"_s, path);
    case PlantedFile::Fifo:
        return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
    }
    return false;
#endif
}

} // namespace AgentLoop
