#include "chat/chatmodel.h"
#include "conversations/conversationlistmodel.h"
#include "fakechatserver.h"
#include "inspector/inspector.h"
#include "inspector/replayactions.h"
#include "inspector/replaydialog.h"
#include "inspector/turnmodel.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "storage/conversationstore.h"
#include "temporarysettings.h"
#include "testmain.h"

#include <QAbstractButton>
#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <algorithm>

using namespace AgentLoop;
using namespace Gui;
using namespace Qt::StringLiterals;

// "Edit and resend" and "Fork from here" in the inspector, as a user drives them against the
// fake provider: what the provider receives, what the dialog shows, and what stays untouched.
class tst_Replay : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void editedResendSendsTheBodyAndLeavesTheConversation();
    void editorReportsProblemsAsYouType();
    void streamedReplyIsComparedByItsMessageAndShownEscaped();
    void largeBodyIsCheckedToo();
    void forkStartsANewConversationFromTheRequest();
    void forkWaitsForTheRun();

private:
    TemporarySettings m_settings;
};

namespace {

// A request whose temperature is out of range.
const QString hotRequest = uR"({"model": "gpt-test", "temperature": 9,
                          "messages": [{"role": "user", "content": "hi"}]})"_s;
// A request with a tool call nobody answered.
const QString unansweredCall = uR"({"model": "gpt-test", "messages": [
  {"role": "user", "content": "list files"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "shell", "arguments": "{\"command\":\"ls\"}"}}]},
  {"role": "user", "content": "well?"}]})"_s;

MainWindowFixture::Options savingInTheWorkspace()
{
    MainWindowFixture::Options options;
    options.savesInWorkspace = true;
    return options;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString currentPath(const MainWindowFixture &f)
{
    return f.window->conversationStore().pathFor(f.window->currentConversationId());
}

// One finished turn: "What is 2 + 2?" answered "Four.".
bool runFirstTurn(MainWindowFixture &f)
{
    f.server.script({FakeResponse::answer(u"Four."_s)});
    f.openWindow();
    f.sendPasted(u"What is 2 + 2?"_s);
    return f.waitUntilFinished() && f.window->turnModel()->rowCount() == 1;
}

ReplayDialog *openReplay(MainWindowFixture &f)
{
    f.window->inspector()->selectRow(0);
    ReplayActions *actions = f.window->replayActions();
    if (!actions->editAndResendAction()->isEnabled())
        return nullptr;
    actions->editAndResendAction()->trigger();
    return actions->dialog();
}

// Puts text in the editor, as a paste does, and waits for its check.
bool typeBody(ReplayDialog *dialog, const QString &text)
{
    QSignalSpy checked(dialog, &ReplayDialog::checked);
    dialog->editor()->setPlainText(text);
    return checked.wait(5000) && dialog->check().has_value();
}

QStringList diffRow(const QAbstractItemModel *model, int row)
{
    QStringList cells;
    for (int column = 0; column < model->columnCount(); ++column)
        cells << model->index(row, column).data().toString();
    return cells;
}

} // namespace

void tst_Replay::init()
{
    QFile::remove(Gui::AppSettings::settingsFilePath());
}

void tst_Replay::editedResendSendsTheBodyAndLeavesTheConversation()
{
    MainWindowFixture f(savingInTheWorkspace());
    QVERIFY(runFirstTurn(f));
    const QString path = currentPath(f);
    const QByteArray fileBefore = readFile(path);
    QVERIFY(!fileBefore.isEmpty());
    const QJsonArray historyBefore = f.window->controller().history().toJson();
    const int chatRows = f.window->chatModel()->rowCount();

    ReplayDialog *dialog = openReplay(f);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->check().has_value());
    QCOMPARE(dialog->problemsLabel()->text(), u"The body is a valid request."_s);
    // The editor holds the request that was sent, the original response beside it.
    const QString original = dialog->editor()->toPlainText();
    QCOMPARE(QJsonDocument::fromJson(original.toUtf8()),
             QJsonDocument::fromJson(f.server.requests().at(0).body));
    QVERIFY(dialog->originalView()->toPlainText().contains(u"\"Four.\""_s));

    QString edited = original;
    edited.replace(u"What is 2 + 2?"_s, u"What is 3 + 3?"_s);
    QVERIFY(edited != original);
    QVERIFY(typeBody(dialog, edited));
    QVERIFY(dialog->check()->isValid());

    f.server.script({FakeResponse::answer(u"Six."_s)});
    QSignalSpy shown(dialog, &ReplayDialog::replyShown);
    QVERIFY(dialog->sendButton()->isEnabled());
    QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);
    QVERIFY(shown.wait(10000));

    // Exactly the edited body went out, with the conversation's key.
    QCOMPARE(f.server.requests().size(), 2);
    QCOMPARE(f.server.requests().at(1).body, edited.toUtf8());
    QCOMPARE(f.server.requests().at(1).header("Authorization"), "Bearer " + f.apiKey.toUtf8());

    // The new answer beside the original, and what differs.
    QVERIFY(dialog->resendView()->toPlainText().contains(u"\"Six.\""_s));
    const QAbstractItemModel *diff = dialog->diffTable()->model();
    QStringList rows;
    for (int row = 0; row < diff->rowCount(); ++row)
        rows << diffRow(diff, row).join(u" | "_s);
    QVERIFY2(rows.contains(u"choices[0].message.content | Changed | \"Four.\" | \"Six.\""_s),
             qPrintable(rows.join(u'\n')));
    QVERIFY2(rows.filter(u"id | Changed"_s).size() == 1, qPrintable(rows.join(u'\n'))); // ids differ
    QVERIFY(dialog->resultLabel()->text().startsWith(u"HTTP 200"_s));

    // The conversation knows nothing of it.
    QCOMPARE(readFile(path), fileBefore);
    QCOMPARE(f.window->controller().history().toJson(), historyBefore);
    QCOMPARE(f.window->turnModel()->rowCount(), 1);
    QCOMPARE(f.window->chatModel()->rowCount(), chatRows);
    QVERIFY(!f.window->chatModel()->item(chatRows - 1).text.contains(u"Six."_s));

    // Closing while a side request waits abandons it.
    f.server.script({FakeResponse::neverAnswer()});
    QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);
    QTRY_COMPARE(f.server.requests().size(), 3);
    QVERIFY(dialog->isSending());
    QVERIFY(dialog->stopButton()->isEnabled());
    QTest::mouseClick(dialog->stopButton(), Qt::LeftButton);
    QVERIFY(!dialog->isSending());
    QCOMPARE(dialog->resultLabel()->text(), u"Stopped: the side request was abandoned."_s);
    dialog->close();
    QTRY_VERIFY(!f.window->replayActions()->dialog());
    QCOMPARE(readFile(path), fileBefore);
}

void tst_Replay::editorReportsProblemsAsYouType()
{
    MainWindowFixture f(savingInTheWorkspace());
    QVERIFY(runFirstTurn(f));
    ReplayDialog *dialog = openReplay(f);
    QVERIFY(dialog);

    // Not JSON: where the error is, and nothing can be sent.
    QVERIFY(typeBody(dialog, u"{\n  \"model\": \"gpt-test\",\n  \"messages\": [}\n"_s));
    QVERIFY2(dialog->problemsLabel()->text().startsWith(
                     u"Not JSON, cannot be sent: Line 3, column"_s),
             qPrintable(dialog->problemsLabel()->text()));
    QVERIFY(!dialog->sendButton()->isEnabled());

    // A schema violation.
    QVERIFY(typeBody(dialog, hotRequest));
    QVERIFY2(dialog->problemsLabel()->text().contains(u"/temperature: "_s),
             qPrintable(dialog->problemsLabel()->text()));
    QVERIFY(dialog->sendButton()->isEnabled());

    // A tool call nobody answered: sent only after a warning, which can be declined.
    QVERIFY(typeBody(dialog, unansweredCall));
    QVERIFY2(dialog->problemsLabel()->text().contains(
                     uR"(Pairing rule: missing tool results for ids: ["call_1"])"_s),
             qPrintable(dialog->problemsLabel()->text()));
    QVERIFY(dialog->sendButton()->isEnabled());
    QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);
    QTRY_VERIFY(dialog->pendingWarning() && dialog->pendingWarning()->isVisible());
    QVERIFY(dialog->pendingWarning()->text().contains(u"call_1"_s));
    dialog->pendingWarning()->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!dialog->pendingWarning());
    QTest::qWait(100);
    QCOMPARE(f.server.requests().size(), 1);

    // "Send anyway" sends it as it is, and shows the provider's refusal.
    f.server.script(
            {FakeResponse::httpError(400, u"tool_call_ids did not have response messages"_s)});
    QSignalSpy shown(dialog, &ReplayDialog::replyShown);
    QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);
    QTRY_VERIFY(dialog->pendingWarning() && dialog->pendingWarning()->isVisible());
    const QList<QAbstractButton *> buttons = dialog->pendingWarning()->buttons();
    const auto anyway = std::find_if(buttons.begin(), buttons.end(), [](QAbstractButton *b) {
        return b->text() == u"Send &Anyway"_s;
    });
    QVERIFY(anyway != buttons.end());
    (*anyway)->click();
    QVERIFY(shown.wait(10000));
    QCOMPARE(f.server.requests().size(), 2);
    QCOMPARE(f.server.requests().at(1).body, dialog->editor()->toPlainText().toUtf8());
    QVERIFY2(dialog->resultLabel()->text().startsWith(u"The side request failed: "_s),
             qPrintable(dialog->resultLabel()->text()));
    QVERIFY(dialog->resendView()->toPlainText().contains(u"did not have response messages"_s));
    dialog->close();
}

void tst_Replay::streamedReplyIsComparedByItsMessageAndShownEscaped()
{
    MainWindowFixture f(savingInTheWorkspace());
    QVERIFY(runFirstTurn(f));
    ReplayDialog *dialog = openReplay(f);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->check().has_value());

    // The answer hides a right-to-left override in its text.
    f.server.script({FakeResponse::streamedAnswer({u"Fo"_s, u"ur\u202E!"_s})});
    QSignalSpy shown(dialog, &ReplayDialog::replyShown);
    QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);
    QVERIFY(shown.wait(10000));

    // Compared by the assembled message, not by the events: the content changed, and the
    // original's `refusal: null` is not in the assembled message.
    const QAbstractItemModel *diff = dialog->diffTable()->model();
    QStringList rows;
    for (int row = 0; row < diff->rowCount(); ++row)
        rows << diffRow(diff, row).join(u" | "_s);
    QCOMPARE(rows.size(), 2);
    QVERIFY2(rows.at(0).startsWith(u"content | Changed | \"Four.\" | \"Four⟨U+202E⟩!\""_s),
             qPrintable(rows.join(u'\n')));
    QCOMPARE(rows.at(1), u"refusal | Removed | null | "_s);
    QVERIFY(!rows.join(u'\n').contains(QChar(0x202E)));
    QVERIFY(dialog->resultLabel()->text().contains(u"compared by its assembled message"_s));
    QVERIFY(dialog->resendView()->toPlainText().contains(u"⟨U+202E⟩"_s));
    QVERIFY(!dialog->resendView()->toPlainText().contains(QChar(0x202E)));
    dialog->close();
}

void tst_Replay::largeBodyIsCheckedToo()
{
    MainWindowFixture f(savingInTheWorkspace());
    QVERIFY(runFirstTurn(f));
    ReplayDialog *dialog = openReplay(f);
    QVERIFY(dialog);
    // Over the size checked on another thread, with a tool result nobody asked for at its end.
    const QString big = QString(ReplayDialog::backgroundCheckBytes, u'x');
    const QString body = uR"({"model": "gpt-test", "messages": [{"role": "user", "content": "%1"},
        {"role": "tool", "tool_call_id": "call_9", "content": "?"}]})"_s.arg(big);
    QVERIFY(typeBody(dialog, body));
    QVERIFY2(dialog->problemsLabel()->text().contains(uR"(["call_9"])"_s),
             qPrintable(dialog->problemsLabel()->text().left(300)));
    QVERIFY(dialog->sendButton()->isEnabled());
    dialog->close();
}

void tst_Replay::forkStartsANewConversationFromTheRequest()
{
    MainWindowFixture f(savingInTheWorkspace());
    QVERIFY(runFirstTurn(f));
    const QString oldId = f.window->currentConversationId();
    const QString oldPath = currentPath(f);
    const QByteArray oldFile = readFile(oldPath);
    const QJsonArray requestMessages = f.server.requests().at(0).messages();
    QCOMPARE(requestMessages.size(), 2); // the system prompt and the question

    f.window->inspector()->selectRow(0);
    QAction *fork = f.window->replayActions()->forkAction();
    QVERIFY(fork->isEnabled());
    fork->trigger();
    QTRY_VERIFY(!f.window->currentConversationId().isEmpty()
                && f.window->currentConversationId() != oldId);
    const QString newId = f.window->currentConversationId();
    QVERIFY(f.waitUntilOpened(newId));

    // The new file holds exactly the request's messages; the old one is as it was.
    const Result<LoadedConversation> loaded = f.window->conversationStore().load(newId);
    QVERIFY(loaded);
    QCOMPARE(loaded->history.toJson(), requestMessages);
    QCOMPARE(loaded->header.title, u"What is 2 + 2? (fork)"_s);
    QCOMPARE(readFile(oldPath), oldFile);
    QCOMPARE(f.window->controller().history().toJson(), requestMessages);
    const QList<ChatItem> prompts = f.items(ChatItem::UserPrompt);
    QCOMPARE(prompts.size(), 1);
    QCOMPARE(prompts.at(0).text, u"What is 2 + 2?"_s);
    QVERIFY(f.items(ChatItem::AssistantText).isEmpty());
    QTRY_COMPARE(f.window->conversationListModel()->rowCount(), 2);

    // The next prompt continues from the forked messages, in the new file.
    f.server.script({FakeResponse::answer(u"Still four."_s)});
    f.sendPasted(u"Are you sure?"_s);
    QVERIFY(f.waitUntilFinished());
    const QJsonArray sent = f.server.requests().at(1).messages();
    QCOMPARE(sent.size(), 3);
    QCOMPARE(sent.at(0), requestMessages.at(0));
    QCOMPARE(sent.at(1), requestMessages.at(1));
    QCOMPARE(sent.at(2).toObject().value(u"content"_s).toString(), u"Are you sure?"_s);
    QCOMPARE(f.window->currentConversationId(), newId);
    QCOMPARE(readFile(oldPath), oldFile);
}

void tst_Replay::forkWaitsForTheRun()
{
    MainWindowFixture f(savingInTheWorkspace());
    f.server.script({FakeResponse::neverAnswer()});
    f.openWindow();
    f.sendPasted(u"Take your time"_s);
    QTRY_COMPARE(f.server.requests().size(), 1);
    QTRY_COMPARE(f.window->turnModel()->rowCount(), 1);
    f.window->inspector()->selectRow(0);
    QAction *fork = f.window->replayActions()->forkAction();
    QVERIFY(f.window->controller().isRunning());
    QVERIFY(!fork->isEnabled());
    QVERIFY(fork->toolTip().startsWith(u"Not while the agent is running"_s));
    // A side request may still be made while the run goes on.
    QVERIFY(f.window->replayActions()->editAndResendAction()->isEnabled());
    f.window->stop();
    QTRY_VERIFY(!f.window->controller().isRunning());
    QVERIFY(fork->isEnabled());
}

AGENTLOOP_TEST_MAIN(QApplication, tst_Replay)
#include "tst_replay.moc"
