#include "base/codepage.h"
#include "base/displaytext.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/promptedit.h"
#include "fakechatserver.h"
#include "mainwindowfixture.h"
#include "rawoutputdialog.h"
#include "rawoutputs.h"
#include "testjson.h"
#include "testmain.h"
#include "tools/runrecord.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using Gui::ChatItem;
using Gui::HexDumpModel;
using Gui::RawOutputDialog;

namespace {

// "ok", then "中文" in GBK: no UTF-8, and this system (C.UTF-8) has no code page to try.
const QByteArray gbkBytes("ok\n\xD6\xD0\xCE\xC4\n");

std::shared_ptr<RunRecord> gbkRecord()
{
    auto record = std::make_shared<RunRecord>();
    record->command = u"python report.py"_s;
    record->shellName = u"/bin/sh"_s;
    record->program = u"/bin/sh"_s;
    record->arguments = {u"-c"_s, u"python report.py"_s};
    record->workingDirectory = u"/home/user/project"_s;
    record->environment = {{EnvironmentChange::Removed, u"OPENAI_API_KEY"_s, {}, false},
                           {EnvironmentChange::Added, u"PYTHONUTF8"_s, u"1"_s, false}};
    record->standardOutput.append(3, gbkBytes.first(3), RunRecord::defaultKeptBytes);
    record->standardOutput.append(40, gbkBytes.sliced(3), RunRecord::defaultKeptBytes);
    record->standardOutput.decoding = decodeOutput(gbkBytes, {}).decoding;
    return record;
}

int comboIndex(QComboBox *box, const QString &encoding)
{
    return box->findData(encoding);
}

QString cell(const HexDumpModel *model, int row, int column)
{
    return model->data(model->index(row, column)).toString();
}

} // namespace

// "Show raw output…": the bytes a command printed in hex and as text, "Decode as", and the
// correction that reaches the model.
class tst_RawOutput : public QObject
{
    Q_OBJECT
private slots:
    void init() { rejectVisibleMessageBoxes(); }
    void dialogShowsTheBytesAndDecodesThemAsChosen();
    void launchTabShowsWhatRan();
    void correctionReachesTheNextRequest();
};

void tst_RawOutput::dialogShowsTheBytesAndDecodesThemAsChosen()
{
    RawOutputDialog dialog(gbkRecord(), u"call_1"_s);
    dialog.show();
    QTRY_VERIFY(dialog.isDecoded());
    const HexDumpModel *hex = dialog.hexModel(0);
    QCOMPARE(hex->rowCount(), 1);
    QCOMPARE(cell(hex, 0, HexDumpModel::OffsetColumn), u"00000000"_s);
    QCOMPARE(cell(hex, 0, HexDumpModel::HexColumn), u"6f 6b 0a d6 d0 ce c4 0a"_s);
    // As the model read it: not UTF-8, so replacement characters; the line breaks are visible.
    const QString asRead = cell(hex, 0, HexDumpModel::TextColumn);
    QVERIFY2(asRead.startsWith(u"ok"_s) && asRead.contains(QChar::ReplacementCharacter),
             qPrintable(asRead));
    QVERIFY2(!asRead.contains(u'\n'), qPrintable(asRead));
    QVERIFY(!dialog.correctionButton()->isEnabled()); // nothing to correct yet
    QVERIFY(!dialog.textView(0)->toPlainText().contains(u"中文"_s));

    const int gbk = comboIndex(dialog.encodingBox(), u"CP936"_s);
    if (gbk < 0)
        QSKIP("This system has no CP936 converter");
    dialog.encodingBox()->setCurrentIndex(gbk);
    QTRY_VERIFY(dialog.isDecoded());
    QCOMPARE(cell(hex, 0, HexDumpModel::TextColumn), displayedLine(u"ok\n中文\n"_s));
    QCOMPARE(dialog.textView(0)->toPlainText(), u"ok\n中文\n"_s);
    QVERIFY(dialog.correctionButton()->isEnabled());
    QVERIFY(dialog.correctionText().contains(u"中文"_s));
    QVERIFY(dialog.correctionText().contains(u"call_1"_s));

    // Latin-1 reads the same bytes as four accented letters.
    dialog.encodingBox()->setCurrentIndex(comboIndex(dialog.encodingBox(), u"ISO-8859-1"_s));
    QTRY_VERIFY(dialog.isDecoded());
    QCOMPARE(dialog.textView(0)->toPlainText(), u"ok\n\u00D6\u00D0\u00CE\u00C4\n"_s);
}

void tst_RawOutput::launchTabShowsWhatRan()
{
    RawOutputDialog dialog(gbkRecord(), u"call_1"_s);
    const QString launch = dialog.launchView()->toPlainText();
    QVERIFY2(launch.contains(u"[0] -c\n  [1] python report.py"_s), qPrintable(launch));
    // A directory is shown with this system's separators.
    QVERIFY2(launch.contains(QDir::toNativeSeparators(u"/home/user/project"_s)), qPrintable(launch));
    QVERIFY2(launch.contains(u"- OPENAI_API_KEY"_s), qPrintable(launch));
    QVERIFY2(launch.contains(u"+ PYTHONUTF8=1"_s), qPrintable(launch));
    QCOMPARE(dialog.tabs()->count(), 3); // standard output, standard error, launch
}

void tst_RawOutput::correctionReachesTheNextRequest()
{
#ifdef Q_OS_WIN
    // The app's shell here is cmd.exe or PowerShell, which cannot print these bytes as they are;
    // tst_runrecord decodes the same bytes on this system.
    QSKIP("printf of raw bytes is a POSIX shell's");
#endif
    if (!canConvert(u"CP936"_s))
        QSKIP("This system has no CP936 converter");
    MainWindowFixture f;
    f.openWindow();
    const QString command = u"printf 'ok\\n\\326\\320\\316\\304\\n'"_s;
    f.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, shellArguments(command)),
                     FakeResponse::answer(u"It printed two lines."_s),
                     FakeResponse::answer(u"Thanks, the second line is 中文."_s)});
    f.type(u"Run the report"_s);
    QVERIFY(f.waitForApproval());
    QVERIFY(f.allowPendingCall());
    QVERIFY(f.waitUntilFinished());
    // The model read replacement characters.
    const QList<QJsonObject> toolMessages = f.server.requests().at(1).toolMessages();
    QCOMPARE(toolMessages.size(), 1);
    QVERIFY(!toolMessages.at(0).value(u"content"_s).toString().contains(u"中文"_s));

    // The tool result's context menu offers the raw output.
    const QList<int> rows = f.rows(ChatItem::ToolResult);
    QCOMPARE(rows.size(), 1);
    QVERIFY(f.chat()->item(rows.first()).runRecord);
    Gui::ChatView *view = f.window->chatView();
    view->setCurrentIndex(f.chat()->index(rows.first()));
    const QPoint centre = view->visualRect(view->currentIndex()).center();
    QContextMenuEvent event(QContextMenuEvent::Keyboard,
                            centre,
                            view->viewport()->mapToGlobal(centre));
    QApplication::sendEvent(view->viewport(), &event);
    QTRY_VERIFY(view->contextMenu());
    QAction *showRaw = nullptr;
    for (QAction *action : view->contextMenu()->actions()) {
        if (action->text() == u"Show &raw output…"_s)
            showRaw = action;
    }
    QVERIFY(showRaw);
    QCOMPARE(showRaw->shortcut(), Gui::ChatView::rawOutputShortcut());
    showRaw->trigger();
    view->contextMenu()->close();
    RawOutputDialog *dialog = f.window->rawOutputs()->dialog();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isDecoded());
    // The exact bytes the command wrote.
    QCOMPARE(cell(dialog->hexModel(0), 0, HexDumpModel::HexColumn), u"6f 6b 0a d6 d0 ce c4 0a"_s);

    dialog->encodingBox()->setCurrentIndex(comboIndex(dialog->encodingBox(), u"CP936"_s));
    QTRY_VERIFY(dialog->isDecoded());
    QVERIFY(dialog->correctionButton()->isEnabled());
    dialog->correctionButton()->click();
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = visibleMessageBox()));
    box->button(QMessageBox::Yes)->click();
    QTRY_VERIFY(!f.window->rawOutputs()->dialog());

    // The correction waits in the prompt box, and goes with the next message.
    QVERIFY(f.window->promptEdit()->toPlainText().contains(u"中文"_s));
    QTest::keyClick(f.window->promptEdit(), Qt::Key_Return);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.server.requests().size(), 3);
    const QJsonArray messages = f.server.requests().at(2).messages();
    const QJsonObject last = messages.last().toObject();
    QCOMPARE(last.value(u"role"_s).toString(), u"user"_s);
    const QString sent = last.value(u"content"_s).toString();
    QVERIFY2(sent.contains(u"Correction to the result of the shell call call_1"_s),
             qPrintable(sent));
    QVERIFY2(sent.contains(u"ok\n中文"_s), qPrintable(sent));
    QVERIFY2(sent.contains(u"GBK"_s), qPrintable(sent));
    // The tool message the model already had is sent again as it was: the protocol stays valid.
    QCOMPARE(f.server.requests().at(2).toolMessages().at(0), toolMessages.at(0));
}

AGENTLOOP_TEST_MAIN(QApplication, tst_RawOutput)
#include "tst_rawoutput.moc"
