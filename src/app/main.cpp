#include "applicationicon.h"
#include "base/i18n.h"
#include "mainwindow.h"
#include "settings/appsettings.h"
#include "storage/applicationidentity.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QStyleHints>
#include <QTimer>

using namespace Qt::StringLiterals;

int main(int argc, char *argv[])
{
    // Fractional scale factors (125 %, 150 %) as the system sets them, not rounded.
    QGuiApplication::setHighDpiScaleFactorRoundingPolicy(
            Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    AgentLoop::setApplicationIdentity(); // the CLI's too: one data folder for both
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

    QCommandLineParser parser;
    parser.setApplicationDescription(
            QCoreApplication::translate("main", "Agent Loop: a desktop coding agent."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
            QCoreApplication::translate("main", "task"),
            QCoreApplication::translate("main",
                                        "A task to send as soon as the window is ready (it waits "
                                        "in the prompt box while the settings are incomplete)."),
            QCoreApplication::translate("main", "[task]"));
    parser.process(app);
    const QString task = parser.positionalArguments().join(u' ');

    // Reads the OPENAI_* variables, then takes the key out of this process's environment.
    Gui::MainWindow window(Gui::AppSettings::load());
    window.show();
    QTimer::singleShot(0, &window, [&window, task] { window.start(task); });
    return app.exec();
}
