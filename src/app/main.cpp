#include "applicationicon.h"
#include "appsettings.h"
#include "i18n.h"
#include "mainwindow.h"

#include <QApplication>
#include <QStyleHints>
#include <QTimer>

using namespace Qt::StringLiterals;

int main(int argc, char *argv[])
{
    // Fractional scale factors (125 %, 150 %) as the system sets them, not rounded.
    QGuiApplication::setHighDpiScaleFactorRoundingPolicy(
            Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"AgentLoop"_s);
    QApplication::setApplicationName(u"AgentLoop"_s);
    QApplication::setApplicationVersion(QStringLiteral(AGENTLOOP_VERSION));
    // Wayland matches the window to packaging/linux/agentloop.desktop by this name.
    QGuiApplication::setDesktopFileName(u"agentloop"_s);
    QApplication::setWindowIcon(Gui::applicationIcon());
#if defined(Q_OS_WIN) && QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    // The classic Windows style has no dark variant; Fusion follows the system's dark palette.
    if (QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark
        && QApplication::style()->name() == u"windowsvista")
        QApplication::setStyle(u"Fusion"_s);
#endif
    AgentLoop::installTranslations(app);

    Gui::MainWindow window(Gui::AppSettings::load());
    window.show();
    QTimer::singleShot(0, &window, &Gui::MainWindow::start);
    return app.exec();
}
