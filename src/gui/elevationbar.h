#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace Gui {

// A warning across the top of the window while the app runs elevated (as administrator on
// Windows, as root elsewhere): every command the user approves runs with those rights. Nothing
// but its Hide button hides it, and only for this session: the next start shows it again.
class ElevationBar final : public QWidget
{
    Q_OBJECT
public:
    explicit ElevationBar(QWidget *parent = nullptr);

    QString text() const;
    QPushButton *hideButton() const { return m_hideButton; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QLabel *m_icon;
    QLabel *m_text;
    QPushButton *m_hideButton;
};

} // namespace Gui
