#pragma once

class QWidget;

namespace Gui {

// Help › About: the version, what the app does, the Qt it was built with. Does not block.
void showAboutBox(QWidget *parent);

} // namespace Gui
