#pragma once

#include <QColor>
#include <QPalette>

class QPainter;
class QRect;

namespace Gui {

// The chat's colours, derived from the palette so that they follow the system's light or dark
// theme: status colours are chosen for contrast against the palette's base colour.
struct ChatColors final
{
    enum class Badge { None, Call, Success, Failure, Cancelled, Denied, Warning };

    explicit ChatColors(const QPalette &palette);

    static bool isDark(const QPalette &palette);
    static QColor blend(const QColor &from, const QColor &to, qreal amount);
    // A small round status icon drawn with the painter, so it is sharp at any scale.
    static void drawBadge(QPainter *painter, const QRect &rect, Badge badge, const QColor &color);

    bool dark = false;
    QColor base;
    QColor text;
    QColor dimText;
    QColor cardBackground;
    QColor cardBorder;
    QColor userBackground;
    QColor userBorder;
    QColor codeBackground;
    QColor toolAccent;
    QColor success;
    QColor failure;
    QColor warning;
    QColor neutral;
};

} // namespace Gui
