// RunFeed and chatItemsFor(): a message shows the same chat items whether it arrives in a live
// run or is read back from a saved conversation.

#include "agent/agentsession.h"
#include "chat/liveanswer.h"
#include "chat/runfeed.h"
#include "fakechatserver.h"
#include "fakecommandrunner.h"
#include "inspector/turnmodel.h"
#include "testmain.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace AgentLoop;
using namespace Qt::StringLiterals;
using Gui::ChatItem;

namespace {

constexpr int endTimeoutMs = 10000;

// An item as a line a reader can compare: kind, then what the item shows.
QString describe(const ChatItem &item)
{
    static const QStringList kinds{u"prompt"_s,
                                   u"answer"_s,
                                   u"call"_s,
                                   u"result"_s,
                                   u"denial"_s,
                                   u"error"_s,
                                   u"notice"_s,
                                   u"file"_s};
    QString line = kinds.value(item.kind) + u':';
    if (!item.text.isEmpty())
        line += u" text="_s + item.text;
    if (!item.reasoning.isEmpty())
        line += u" reasoning="_s + item.reasoning;
    if (!item.toolName.isEmpty())
        line += u" tool="_s + item.toolName;
    if (!item.toolCallId.isEmpty())
        line += u" id="_s + item.toolCallId;
    if (!item.arguments.isEmpty())
        line += u" arguments="_s + item.arguments;
    if (!item.fileChange.isEmpty())
        line += u" path=%1 encoding=%2 +%3 -%4"_s
                        .arg(item.fileChange.path, item.fileChange.encoding)
                        .arg(item.fileChange.addedLines)
                        .arg(item.fileChange.removedLines);
    if (item.turn != 0)
        line += u" turn="_s + QString::number(item.turn);
    return line;
}

QStringList describe(const QList<ChatItem> &items)
{
    QStringList lines;
    for (const ChatItem &item : items)
        lines.append(describe(item));
    return lines;
}

QStringList describe(const Gui::ChatModel &model, bool withTurns)
{
    QStringList lines;
    for (int row = 0; row < model.rowCount(); ++row) {
        ChatItem item = model.item(row);
        if (!withTurns)
            item.turn = 0;
        lines.append(describe(item));
    }
    return lines;
}

// A session against a fake provider on 127.0.0.1, with commands that only pretend to run.
struct LiveSession
{
    LiveSession()
    {
        SessionConfiguration configuration;
        configuration.provider.baseUrl = server.baseUrl();
        configuration.provider.model = u"model"_s;
        configuration.provider.retry.maxRetries = 0;
        configuration.workspace = dir.path();
        session.configure(configuration);
    }
    AgentController &controller() { return session.controller(); }
    void allowEveryCall()
    {
        AgentController &agent = controller();
        QObject::connect(&agent,
                         &AgentController::approvalRequested,
                         &agent,
                         [&agent](const ApprovalRequest &request) {
                             QTimer::singleShot(0, &agent, [&agent, id = request.id] {
                                 agent.resolveApproval(id, ApprovalAnswer::allowOnce());
                             });
                         });
    }

    QTemporaryDir dir;
    FakeChatServer server;
    FakeCommandRunner runner;
    ConversationStore store{dir.filePath(u"conversations"_s), dir.filePath(u"outputs"_s)};
    AgentSession session{std::make_shared<FakeCommandRunner>(runner), store};
};

// A file tool that changes nothing on disk but says it did: its result carries the change, as
// edit_file's does.
class FakeEditTool final : public Tool
{
public:
    FakeEditTool()
        : Tool(u"edit_file"_s,
               u"Pretend to edit a file."_s,
               JsonSchema(
                       QJsonObject{{u"type"_s, u"object"_s},
                                   {u"properties"_s,
                                    QJsonObject{{u"path"_s, QJsonObject{{u"type"_s, u"string"_s}}}}},
                                   {u"required"_s, QJsonArray{u"path"_s}},
                                   {u"additionalProperties"_s, false}}),
               SideEffect::Write)
    {}

    QString approvalReason() const override { return u"Changing a file needs approval."_s; }

    ToolRun *invoke(const PreparedCall &call, QObject *parent) const override
    {
        class Run final : public ToolRun
        {
        public:
            Run(const QString &path, QObject *owner)
                : ToolRun(owner)
            {
                QTimer::singleShot(0, this, [this, path] {
                    ToolResult result = ToolResult::success(u"Edited %1: +1 -1 lines."_s.arg(path));
                    result.fileChange.path = path;
                    result.fileChange.absolutePath = u"/work/project/"_s + path;
                    result.fileChange.encoding = u"GB18030, CRLF"_s;
                    result.fileChange.diff = u"@@ -1,1 +1,1 @@\n-old\n+new\n"_s;
                    result.fileChange.addedLines = 1;
                    result.fileChange.removedLines = 1;
                    emit finished(result);
                });
            }
            void cancel() override {}
        };
        return new Run(call.arguments.value(u"path"_s).toString(), parent);
    }
};

} // namespace

class tst_RunFeed : public QObject
{
    Q_OBJECT

private slots:
    void chatItemsForMessage_data();
    void chatItemsForMessage();
    void liveRunAndSavedConversationShowTheSameItems();
    void failedRunShowsTheErrorWithItsRequest();
    void changedFileIsShownAsItsChange();
    void aCutOffAnswerGrowsInPlaceWithANotice();
    void newConversationDuringARunClearsOnceItHasStopped();
};

void tst_RunFeed::chatItemsForMessage_data()
{
    QTest::addColumn<Message>("message");
    QTest::addColumn<int>("turn");
    QTest::addColumn<QStringList>("items");

    const ToolCall ls{u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s};
    const ToolCall pwd{u"call_2"_s, u"shell"_s, uR"({"command":"pwd"})"_s};
    QTest::newRow("system shows nothing")
            << Message::system(u"You are an agent."_s) << 0 << QStringList{};
    QTest::newRow("prompt") << Message::user(u"list the files"_s) << 0
                            << QStringList{u"prompt: text=list the files"_s};
    QTest::newRow("answer") << Message::assistant(u"Two files."_s) << 3
                            << QStringList{u"answer: text=Two files. turn=3"_s};
    QTest::newRow("calls without text")
            << Message::assistant(std::nullopt, {ls, pwd}) << 2
            << QStringList{u"call: tool=shell id=call_1 arguments={\"command\":\"ls\"} turn=2"_s,
                           u"call: tool=shell id=call_2 arguments={\"command\":\"pwd\"} turn=2"_s};
    QTest::newRow("text, then its call")
            << Message::assistant(u"Let me look."_s, {ls}) << 1
            << QStringList{u"answer: text=Let me look. turn=1"_s,
                           u"call: tool=shell id=call_1 arguments={\"command\":\"ls\"} turn=1"_s};
    const Message reasoning = Message::assistant(std::nullopt, {ls}, u"The user wants a listing."_s);
    QTest::newRow("reasoning before a call")
            << reasoning << 0
            << QStringList{u"answer: reasoning=The user wants a listing."_s,
                           u"call: tool=shell id=call_1 arguments={\"command\":\"ls\"}"_s};
    QTest::newRow("empty answer shows nothing") << Message::assistant(u""_s) << 0 << QStringList{};
    QTest::newRow("tool result of a known call")
            << Message::tool(u"call_1"_s, u"a.txt"_s) << 0
            << QStringList{u"result: text=a.txt tool=shell id=call_1"_s};
    QTest::newRow("tool result of an unknown call") << Message::tool(u"call_x"_s, u"?"_s) << 0
                                                    << QStringList{u"result: text=? id=call_x"_s};
}

void tst_RunFeed::chatItemsForMessage()
{
    QFETCH(Message, message);
    QFETCH(int, turn);
    QFETCH(QStringList, items);
    const QHash<QString, QString> toolNames{{u"call_1"_s, u"shell"_s}};
    QCOMPARE(describe(Gui::chatItemsFor(message, turn, toolNames)), items);
}

void tst_RunFeed::liveRunAndSavedConversationShowTheSameItems()
{
    LiveSession live;
    Gui::RunFeed feed(live.session);
    live.allowEveryCall();
    live.runner.enqueue(0, u"a.txt\n"_s);
    live.server.script({FakeResponse::toolCall(u"call_1"_s, u"shell"_s, uR"({"command":"ls"})"_s),
                        FakeResponse::streamedAnswer({u"One "_s, u"file."_s})});
    QSignalSpy finished(&live.controller(), &AgentController::finished);
    QVERIFY(live.controller().run(u"list the files"_s));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, endTimeoutMs);

    const QStringList liveItems = describe(*feed.chatModel(), true);
    QCOMPARE(liveItems,
             (QStringList{u"prompt: text=list the files"_s,
                          u"call: tool=shell id=call_1 arguments={\"command\":\"ls\"} turn=1"_s,
                          u"result: text=a.txt tool=shell id=call_1 turn=1"_s,
                          u"answer: text=One file. turn=2"_s}));
    QCOMPARE(feed.turnModel()->rowCount(), 2);
    QCOMPARE(feed.currentRequest(), 2);

    // The same conversation opened in a second session: the same items (saved ones belong to
    // no request of this run).
    AgentSession reopened(std::make_shared<FakeCommandRunner>(), live.store);
    Gui::RunFeed saved(reopened);
    QSignalSpy cleared(&saved, &Gui::RunFeed::cleared);
    QSignalSpy opened(&saved, &Gui::RunFeed::opened);
    QSignalSpy shown(&saved, &Gui::RunFeed::conversationShown);
    saved.openConversation(live.session.recorder().header().id);
    QTRY_COMPARE(shown.size(), 1);
    QCOMPARE(opened.size(), 1);
    QCOMPARE(cleared.size(), 1);
    QCOMPARE(describe(*saved.chatModel(), false), describe(*feed.chatModel(), false));
    QCOMPARE(saved.turnModel()->rowCount(), 0);
}

void tst_RunFeed::aCutOffAnswerGrowsInPlaceWithANotice()
{
    LiveSession live;
    Gui::RunFeed feed(live.session);
    live.server.script({FakeResponse::streamedAnswer({u"Part one, "_s}, u"length"_s),
                        FakeResponse::streamedAnswer({u"part two."_s})});
    QSignalSpy finished(&live.controller(), &AgentController::finished);
    QVERIFY(live.controller().run(u"write it"_s));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, endTimeoutMs);

    // One answer, the parts joined, where the first part was shown; the notice below it.
    const QStringList items = describe(*feed.chatModel(), false);
    QCOMPARE(items.size(), 3);
    QCOMPARE(items.at(0), u"prompt: text=write it"_s);
    QCOMPARE(items.at(1), u"answer: text=Part one, part two."_s);
    QVERIFY2(items.at(2).startsWith(u"notice: text=The answer reached the output token limit"_s),
             qPrintable(items.at(2)));
    // The inspector shows both requests.
    QCOMPARE(feed.turnModel()->rowCount(), 2);
    QCOMPARE(feed.turnModel()->record(1).exchange.purpose, ExchangePurpose::Continuation);
}

void tst_RunFeed::changedFileIsShownAsItsChange()
{
    LiveSession live;
    live.controller().addTool(std::make_shared<FakeEditTool>());
    Gui::RunFeed feed(live.session);
    live.allowEveryCall();
    live.server.script(
            {FakeResponse::toolCall(u"call_1"_s, u"edit_file"_s, uR"({"path":"src/main.cpp"})"_s),
             FakeResponse::answer(u"Done."_s)});
    QSignalSpy finished(&live.controller(), &AgentController::finished);
    QVERIFY(live.controller().run(u"fix main.cpp"_s));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, endTimeoutMs);

    QCOMPARE(describe(*feed.chatModel(), true),
             (QStringList{u"prompt: text=fix main.cpp"_s,
                          u"call: tool=edit_file id=call_1 arguments={\"path\":\"src/main.cpp\"} "
                          u"turn=1"_s,
                          u"file: text=@@ -1,1 +1,1 @@\n-old\n+new tool=edit_file id=call_1 "
                          u"path=src/main.cpp encoding=GB18030, CRLF +1 -1 turn=1"_s,
                          u"answer: text=Done. turn=2"_s}));
    QCOMPARE(feed.chatModel()->item(2).fileChange.absolutePath, u"/work/project/src/main.cpp"_s);
    // The model read what the tool said, not the diff.
    const QList<QJsonObject> toolMessages = live.server.requests().at(1).toolMessages();
    QCOMPARE(toolMessages.first().value(u"content"_s).toString(),
             u"Edited src/main.cpp: +1 -1 lines."_s);
}

void tst_RunFeed::failedRunShowsTheErrorWithItsRequest()
{
    LiveSession live;
    Gui::RunFeed feed(live.session);
    live.server.script({FakeResponse::httpError(401, u"Invalid API key"_s, u"invalid_api_key"_s)});
    QSignalSpy failed(&live.controller(), &AgentController::failed);
    QVERIFY(live.controller().run(u"hello"_s));
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, endTimeoutMs);
    QCOMPARE(feed.chatModel()->rowCount(), 2);
    const ChatItem &error = feed.chatModel()->item(1);
    QCOMPARE(error.kind, ChatItem::ErrorMessage);
    QVERIFY2(error.text.contains(u"401"_s), qPrintable(error.text));
    QVERIFY(!error.hint.isEmpty());
    QCOMPARE(error.turn, 1);
}

void tst_RunFeed::newConversationDuringARunClearsOnceItHasStopped()
{
    LiveSession live;
    Gui::RunFeed feed(live.session);
    live.server.script({FakeResponse::neverAnswer()});
    QVERIFY(live.controller().run(u"hello"_s));
    QTRY_COMPARE_WITH_TIMEOUT(live.server.requests().size(), 1, endTimeoutMs);
    QCOMPARE(feed.chatModel()->rowCount(), 1);

    QSignalSpy cleared(&feed, &Gui::RunFeed::cleared);
    feed.newConversation();
    QTRY_COMPARE_WITH_TIMEOUT(cleared.size(), 1, endTimeoutMs);
    QVERIFY(!live.controller().isRunning());
    QCOMPARE(feed.chatModel()->rowCount(), 0);
    QCOMPARE(feed.turnModel()->rowCount(), 0);
    QVERIFY(live.controller().history().isEmpty());
    QVERIFY(live.session.recorder().header().id.isEmpty());
}

AGENTLOOP_TEST_MAIN(QApplication, tst_RunFeed)
#include "tst_runfeed.moc"
