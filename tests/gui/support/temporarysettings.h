#pragma once

#include <QString>
#include <QTemporaryDir>

namespace AgentLoop {

// Qt's standard paths in test mode and the app's settings file (QSettings' user scope) in a
// temporary folder, for as long as this lives: a GUI test neither reads nor changes the user's
// settings, nor those of a test running beside it. Make it before anything reads the settings:
// as a member of the test object it is made after the QApplication and before initTestCase().
class TemporarySettings
{
public:
    TemporarySettings();

    QString path() const { return m_folder.path(); }

private:
    QTemporaryDir m_folder;
};

} // namespace AgentLoop
