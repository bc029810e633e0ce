// The floor of the start-up case: a bare QMainWindow of the main window's size, shown the same
// way. Prints "shown" once its first frame is up and "rss <kB>" after a second of idling.

#include "benchcommon.h"

#include <QApplication>
#include <QMainWindow>

int main(int argc, char *argv[])
{
    QGuiApplication::setHighDpiScaleFactorRoundingPolicy(
            Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QMainWindow window;
    window.resize(1100, 700);
    new Bench::ShownReporter(&window);
    window.show();
    return app.exec();
}
