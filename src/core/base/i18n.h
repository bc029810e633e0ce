#pragma once

class QCoreApplication;

namespace AgentLoop {

// Loads the application's catalogue (embedded under :/i18n) and Qt's own for the system locale.
// English needs no catalogue; a locale without one stays English.
void installTranslations(QCoreApplication &application);

} // namespace AgentLoop
