#include "base/i18n.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

using namespace Qt::StringLiterals;

namespace AgentLoop {

void installTranslations(QCoreApplication &application)
{
    const QLocale locale;
    // Qt's own catalogue (standard buttons): the Qt installation's, or the copy windeployqt
    // puts next to a deployed executable.
    auto *qtTranslator = new QTranslator(&application);
    for (const QString &directory : {QLibraryInfo::path(QLibraryInfo::TranslationsPath),
                                     QCoreApplication::applicationDirPath() + u"/translations"_s}) {
        if (qtTranslator->load(locale, u"qtbase"_s, u"_"_s, directory)) {
            QCoreApplication::installTranslator(qtTranslator);
            break;
        }
    }
    auto *appTranslator = new QTranslator(&application);
    if (appTranslator->load(locale, u"agentloop"_s, u"_"_s, u":/i18n"_s))
        QCoreApplication::installTranslator(appTranslator);
}

} // namespace AgentLoop
