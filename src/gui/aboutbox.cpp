#include "aboutbox.h"

#include <QCoreApplication>
#include <QMessageBox>
#include <QWidget>

namespace Gui {

void showAboutBox(QWidget *parent)
{
    auto *box = new QMessageBox(parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowTitle(QCoreApplication::translate("Gui::MainWindow", "About Agent Loop"));
    box->setIconPixmap(parent->windowIcon().pixmap(64, 64));
    box->setTextFormat(Qt::RichText);
    box->setText(
            QCoreApplication::translate(
                    "Gui::MainWindow",
                    "<h3>Agent Loop %1</h3>"
                    "<p>A desktop coding agent for OpenAI-compatible Chat Completions "
                    "endpoints.</p>"
                    "<p>It sends your task with its tools to the model, shows you every command "
                    "the model wants to run, runs it only after your yes, and feeds the result "
                    "back, until the model answers. Every request and response is in the "
                    "inspector.</p>"
                    "<p>Built with Qt %2.</p>")
                    .arg(QStringLiteral(AGENTLOOP_VERSION), QString::fromLatin1(qVersion())));
    box->setStandardButtons(QMessageBox::Ok);
    box->open();
}

} // namespace Gui
