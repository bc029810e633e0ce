#include "temporarysettings.h"

#include <QSettings>
#include <QStandardPaths>

namespace AgentLoop {

TemporarySettings::TemporarySettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_folder.path());
}

} // namespace AgentLoop
