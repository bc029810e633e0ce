#include "elevationbar.h"

#include "chat/chatstyle.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyle>

using namespace Qt::StringLiterals;

namespace Gui {

ElevationBar::ElevationBar(QWidget *parent)
    : QWidget(parent)
    , m_icon(new QLabel(this))
    , m_text(new QLabel(this))
    , m_hideButton(new QPushButton(tr("Hide"), this))
{
    setObjectName(u"elevationBar"_s);
    setAccessibleName(tr("Warning"));
#ifdef Q_OS_WIN
    m_text->setText(tr("Agent Loop is running as administrator: every command you approve runs "
                       "with full rights over this computer. Close it and start it normally."));
#else
    m_text->setText(tr("Agent Loop is running as root: every command you approve runs with full "
                       "rights over this computer. Close it and start it as your own user."));
#endif
    m_text->setObjectName(u"elevationText"_s);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    QFont bold = m_text->font();
    bold.setBold(true);
    m_text->setFont(bold);
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize);
    m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize));
    m_hideButton->setObjectName(u"elevationHide"_s);
    m_hideButton->setToolTip(tr("Hide this warning until Agent Loop is started again"));
    // Enter in the prompt box or a stray Space must not hide it: only a click, or Space once
    // the user has tabbed to the button.
    m_hideButton->setAutoDefault(false);
    m_hideButton->setFocusPolicy(Qt::TabFocus);
    connect(m_hideButton, &QPushButton::clicked, this, &QWidget::hide);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_hideButton, 0, Qt::AlignVCenter);
}

QString ElevationBar::text() const
{
    return m_text->text();
}

void ElevationBar::paintEvent(QPaintEvent *)
{
    // The chat's warning colour: faint behind the text, which keeps the palette's contrast, and
    // full in the line that sets the bar off from the conversation.
    const ChatColors colours(palette());
    QPainter painter(this);
    painter.fillRect(rect(),
                     ChatColors::blend(palette().color(QPalette::Window),
                                       colours.warning,
                                       colours.dark ? 0.30 : 0.18));
    painter.fillRect(QRect(0, height() - 2, width(), 2), colours.warning);
}

} // namespace Gui
