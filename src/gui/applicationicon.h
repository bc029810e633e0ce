#pragma once

#include <QIcon>

namespace Gui {

// The application's icon, from the PNGs under :/icons (16 to 512 px). Each size is decoded when
// a platform first asks for it, not all eight before the first window shows: the offscreen and
// Windows platforms want one or two small ones, and the 512 px one alone takes milliseconds.
QIcon applicationIcon();

} // namespace Gui
