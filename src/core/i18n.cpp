#include "i18n.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

using namespace Qt::StringLiterals;

namespace AgentLoop {

void installTranslations(QCoreApplication &application)
{
    const QLocale locale;
    auto *qtTranslator = new QTranslator(&application);
    if (qtTranslator->load(locale, u"qtbase"_s, u"_"_s,
                           QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qtTranslator);
    auto *appTranslator = new QTranslator(&application);
    if (appTranslator->load(locale, u"agentloop"_s, u"_"_s, u":/i18n"_s))
        QCoreApplication::installTranslator(appTranslator);
}

} // namespace AgentLoop
