#include "applicationicon.h"

#include <QApplication>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPixmap>
#include <QStyle>
#include <QStyleOption>

#include <array>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

constexpr std::array iconSizes{16, 24, 32, 48, 64, 128, 256, 512};

class ApplicationIconEngine final : public QIconEngine
{
public:
    QSize actualSize(const QSize &size, QIcon::Mode, QIcon::State) override
    {
        const int side = fileSizeFor(size);
        return QSize(side, side).scaled(size, Qt::KeepAspectRatio);
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State) override
    {
        QPixmap pixmap = fileFor(fileSizeFor(size));
        if (pixmap.size() != size && !size.isEmpty())
            pixmap = pixmap.scaled(size, Qt::KeepAspectRatio, Qt::SmoothTransformation);
        if (mode != QIcon::Normal) {
            QStyleOption option;
            option.palette = QGuiApplication::palette();
            pixmap = QApplication::style()->generatedIconPixmap(mode, pixmap, &option);
        }
        return pixmap;
    }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        const qreal ratio = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
        QPixmap pm = pixmap(rect.size() * ratio, mode, state);
        pm.setDevicePixelRatio(ratio);
        painter->drawPixmap(rect, pm);
    }

    QList<QSize> availableSizes(QIcon::Mode, QIcon::State) override
    {
        QList<QSize> sizes;
        for (const int side : iconSizes)
            sizes.append(QSize(side, side));
        return sizes;
    }

    QIconEngine *clone() const override { return new ApplicationIconEngine(*this); }
    QString key() const override { return u"agentloop"_s; }

private:
    // The smallest file at least as large as size, or the largest.
    static int fileSizeFor(const QSize &size)
    {
        const int wanted = qMax(size.width(), size.height());
        for (const int side : iconSizes) {
            if (side >= wanted)
                return side;
        }
        return iconSizes.back();
    }

    QPixmap fileFor(int side)
    {
        auto loaded = m_files.constFind(side);
        if (loaded == m_files.cend())
            loaded = m_files.insert(side, QPixmap(u":/icons/agentloop-%1.png"_s.arg(side)));
        return *loaded;
    }

    QHash<int, QPixmap> m_files;
};

} // namespace

QIcon applicationIcon()
{
    return QIcon(new ApplicationIconEngine);
}

} // namespace Gui
