#include "chat/chatstyle.h"

#include <QPainter>
#include <QPainterPath>
#include <QRect>

namespace Gui {

ChatColors::ChatColors(const QPalette &palette)
    : dark(isDark(palette))
    , base(palette.color(QPalette::Base))
    , text(palette.color(QPalette::Text))
{
    const QColor highlight = palette.color(QPalette::Highlight);
    dimText = blend(text, base, 0.35);
    cardBackground = blend(base, text, dark ? 0.06 : 0.035);
    cardBorder = blend(base, text, dark ? 0.18 : 0.14);
    userBackground = blend(base, highlight, dark ? 0.30 : 0.16);
    userBorder = blend(base, highlight, dark ? 0.55 : 0.40);
    codeBackground = blend(base, text, dark ? 0.10 : 0.06);
    toolAccent = dark ? highlight.lighter(140) : highlight;
    success = dark ? QColor(0x7b, 0xd8, 0x8f) : QColor(0x1b, 0x7f, 0x37);
    failure = dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28);
    warning = dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xa8, 0x50, 0x00);
    neutral = blend(text, base, 0.45);
}

bool ChatColors::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

QColor ChatColors::blend(const QColor &from, const QColor &to, qreal amount)
{
    const auto mix = [amount](float a, float b) {
        return a + (b - a) * float(amount);
    };
    return QColor::fromRgbF(mix(from.redF(), to.redF()),
                            mix(from.greenF(), to.greenF()),
                            mix(from.blueF(), to.blueF()));
}

void ChatColors::drawBadge(QPainter *painter, const QRect &rect, Badge badge, const QColor &color)
{
    if (badge == Badge::None || rect.isEmpty())
        return;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const QRectF r = QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5);
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawEllipse(r);

    const qreal w = r.width();
    const QPointF c = r.center();
    // The glyph is drawn in the disc's contrast colour.
    QPen pen(color.lightness() > 150 ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white));
    pen.setWidthF(qMax(1.5, w / 8.0));
    pen.setCapStyle(Qt::RoundCap);
    pen.setJoinStyle(Qt::RoundJoin);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    const qreal k = w * 0.22;
    switch (badge) {
    case Badge::None:
        break;
    case Badge::Call: { // ">" of a prompt
        QPainterPath path;
        path.moveTo(c.x() - k * 0.6, c.y() - k);
        path.lineTo(c.x() + k * 0.6, c.y());
        path.lineTo(c.x() - k * 0.6, c.y() + k);
        painter->drawPath(path);
        break;
    }
    case Badge::Success: {
        QPainterPath path;
        path.moveTo(c.x() - k, c.y());
        path.lineTo(c.x() - k * 0.25, c.y() + k * 0.75);
        path.lineTo(c.x() + k * 1.05, c.y() - k * 0.7);
        painter->drawPath(path);
        break;
    }
    case Badge::Failure:
        painter->drawLine(QPointF(c.x() - k, c.y() - k), QPointF(c.x() + k, c.y() + k));
        painter->drawLine(QPointF(c.x() - k, c.y() + k), QPointF(c.x() + k, c.y() - k));
        break;
    case Badge::Cancelled:
        painter->setBrush(pen.color());
        painter->drawRect(QRectF(c.x() - k * 0.7, c.y() - k * 0.7, k * 1.4, k * 1.4));
        break;
    case Badge::Denied:
        painter->drawLine(QPointF(c.x() - k * 1.1, c.y()), QPointF(c.x() + k * 1.1, c.y()));
        break;
    case Badge::Warning:
        painter->drawLine(QPointF(c.x(), c.y() - k * 1.1), QPointF(c.x(), c.y() + k * 0.25));
        painter->drawPoint(QPointF(c.x(), c.y() + k * 1.05));
        break;
    }
    painter->restore();
}

} // namespace Gui
