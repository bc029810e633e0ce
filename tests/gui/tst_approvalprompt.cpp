#include "approvalprompt.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace AgentLoop;
using namespace Gui;

namespace {

ApprovalRequest requestFor(const QString &command)
{
    ApprovalRequest request;
    request.id = 42;
    request.turn = 1;
    request.toolCallId = u"call_1"_s;
    request.toolName = u"shell"_s;
    request.reason = u"POSIX shell (/bin/sh) command execution requires explicit approval."_s;
    request.argumentsObject = QJsonObject{{u"command"_s, command}};
    request.arguments = QString::fromUtf8(
            QJsonDocument(request.argumentsObject).toJson(QJsonDocument::Compact));
    return request;
}

// A command of exactly `length` characters that needs no JSON escaping, so that it must appear
// verbatim in what the box shows.
QString longCommand(qsizetype length)
{
    QString command;
    for (int step = 1; command.size() < length; ++step)
        command += u"echo step-%1 && "_s.arg(step);
    command.truncate(length - 4);
    return command + u"true"_s;
}

} // namespace

class tst_ApprovalPrompt : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void showsToolReasonAndArguments();
    void yesAllows();
    void noDenies();
    void escapeDenies();
    void returnPressesTheDefaultNo();
    void closingDenies();
    void destroyingTheParentDenies();
    void destroyingTheBoxDenies();
    void decidedIsEmittedExactlyOnce();
    void longCommandIsFullyReadable();

private:
    std::unique_ptr<QWidget> m_window;
};

void tst_ApprovalPrompt::init()
{
    m_window = std::make_unique<QWidget>();
    m_window->resize(800, 600);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void tst_ApprovalPrompt::cleanup()
{
    m_window.reset();
}

void tst_ApprovalPrompt::showsToolReasonAndArguments()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QMessageBox *box = prompt->messageBox();
    QVERIFY(box);
    QVERIFY(QTest::qWaitForWindowExposed(box));
    QCOMPARE(box->windowTitle(), u"Approve tool call?"_s);
    QCOMPARE(box->icon(), QMessageBox::Warning);
    QCOMPARE(box->windowModality(), Qt::WindowModal);
    QVERIFY(!box->accessibleName().isEmpty());
    QVERIFY(box->text().contains(u"<b>shell</b>"_s));
    QVERIFY(box->text().contains(u"requires explicit approval"_s));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::No));
    QCOMPARE(box->escapeButton(), box->button(QMessageBox::No));
    QVERIFY(box->button(QMessageBox::Yes));

    QPlainTextEdit *arguments = prompt->argumentsView();
    QVERIFY(arguments && arguments->isVisible());
    QVERIFY(arguments->isReadOnly());
    QVERIFY(arguments->textInteractionFlags() & Qt::TextSelectableByMouse);
    const QFontMetricsF metrics(arguments->font());
    QCOMPARE(metrics.horizontalAdvance(u"iiii"_s), metrics.horizontalAdvance(u"MMMM"_s));
    QVERIFY(!arguments->accessibleName().isEmpty());
    QCOMPARE(arguments->toPlainText(), u"{\n    \"command\": \"echo 42\"\n}"_s);
    // Between the text and the buttons.
    QVERIFY(arguments->geometry().bottom()
            <= box->button(QMessageBox::No)->mapTo(box, QPoint(0, 0)).y());
    box->close();
}

void tst_ApprovalPrompt::yesAllows()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);
    QPointer<QMessageBox> box = prompt->messageBox();

    box->button(QMessageBox::Yes)->click();

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(0).value<quint64>(), quint64(42));
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Allow);
    QTRY_VERIFY(box.isNull());
    QCOMPARE(decided.size(), 1);
}

void tst_ApprovalPrompt::noDenies()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);

    prompt->messageBox()->button(QMessageBox::No)->click();

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Deny);
}

void tst_ApprovalPrompt::escapeDenies()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);
    QVERIFY(QTest::qWaitForWindowExposed(prompt->messageBox()));

    QTest::keyClick(prompt->messageBox(), Qt::Key_Escape);

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Deny);
}

void tst_ApprovalPrompt::returnPressesTheDefaultNo()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);
    QVERIFY(QTest::qWaitForWindowExposed(prompt->messageBox()));

    QTest::keyClick(prompt->messageBox(), Qt::Key_Return);

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Deny);
}

void tst_ApprovalPrompt::closingDenies()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);

    QVERIFY(prompt->messageBox()->close());

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Deny);
}

void tst_ApprovalPrompt::destroyingTheParentDenies()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);

    m_window.reset(); // quitting the app while the box is open

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Deny);
}

void tst_ApprovalPrompt::destroyingTheBoxDenies()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);

    delete prompt->messageBox();

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Deny);
}

void tst_ApprovalPrompt::decidedIsEmittedExactlyOnce()
{
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(u"echo 42"_s), m_window.get());
    QSignalSpy decided(prompt, &ApprovalPrompt::decided);
    QPointer<QMessageBox> box = prompt->messageBox();

    box->button(QMessageBox::Yes)->click();
    box->close();
    QTest::keyClick(box, Qt::Key_Escape);
    QTRY_VERIFY(box.isNull());
    m_window.reset();

    QCOMPARE(decided.size(), 1);
    QCOMPARE(decided.first().at(1).value<Decision>(), Decision::Allow);
}

void tst_ApprovalPrompt::longCommandIsFullyReadable()
{
    const QString command = longCommand(2000);
    QCOMPARE(command.size(), 2000);
    ApprovalPrompt *prompt = ApprovalPrompt::ask(requestFor(command), m_window.get());
    QMessageBox *box = prompt->messageBox();
    QVERIFY(QTest::qWaitForWindowExposed(box));

    QPlainTextEdit *arguments = prompt->argumentsView();
    QVERIFY(arguments->isVisible());
    QVERIFY(arguments->toPlainText().contains(command));
    // Wrapped, not cut off at the right edge: no horizontal scrolling needed, and the vertical
    // scroll bar reaches every line.
    QCOMPARE(arguments->lineWrapMode(), QPlainTextEdit::WidgetWidth);
    QVERIFY(!arguments->horizontalScrollBar()->isVisible());
    QVERIFY(arguments->height() >= arguments->fontMetrics().lineSpacing() * 8);
    // The box fits on the screen.
    const QRect screen = box->screen()->availableGeometry();
    QVERIFY2(box->width() <= screen.width(), qPrintable(QString::number(box->width())));
    QVERIFY2(box->height() <= screen.height(), qPrintable(QString::number(box->height())));
    box->close();
}

QTEST_MAIN(tst_ApprovalPrompt)
#include "tst_approvalprompt.moc"
