// The console's code pages around a run of the CLI, on a console of the test's making: it starts
// at CP936 (a Chinese Windows), and one list records, in order, what was asked of it and what
// was written to it through the writer the CLI writes with.

#include "consolecodepage.h"
#include "terminalwriter.h"
#include "testmain.h"

#include <QIODevice>
#include <QStringList>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using Cli::ConsoleCodePage;

namespace {

constexpr unsigned chineseCodePage = 936;

class FakeConsole final
{
public:
    explicit FakeConsole(unsigned codePage = chineseCodePage)
        : m_output(codePage)
        , m_input(codePage)
    {}

    ConsoleCodePage::Console functions()
    {
        ConsoleCodePage::Console console;
        console.outputCodePage = [this] {
            m_calls << u"read output code page"_s;
            return m_output;
        };
        console.inputCodePage = [this] {
            m_calls << u"read input code page"_s;
            return m_input;
        };
        console.setOutputCodePage = [this](unsigned codePage) {
            m_calls << u"output code page %1"_s.arg(codePage);
            m_output = codePage;
        };
        console.setInputCodePage = [this](unsigned codePage) {
            m_calls << u"input code page %1"_s.arg(codePage);
            m_input = codePage;
        };
        console.setEndHandler = [this](std::function<void()> atEnd) {
            m_calls << (atEnd ? u"end handler installed"_s : u"end handler removed"_s);
            m_endHandler = std::move(atEnd);
        };
        return console;
    }

    // What the console does on Ctrl+C (or Ctrl+Break, or its window closing) before it ends the
    // process.
    void interrupt()
    {
        if (m_endHandler)
            m_endHandler();
    }

    void recordWrite(const QByteArray &bytes)
    {
        m_calls << u"written in code page %1: %2"_s.arg(m_output).arg(QString::fromUtf8(bytes));
    }

    QStringList calls() const { return m_calls; }
    unsigned outputCodePage() const { return m_output; }
    unsigned inputCodePage() const { return m_input; }
    bool hasEndHandler() const { return bool(m_endHandler); }

private:
    unsigned m_output;
    unsigned m_input;
    std::function<void()> m_endHandler;
    QStringList m_calls;
};

// The console's screen: each write is recorded with the code page it was written in.
class ConsoleScreen final : public QIODevice
{
public:
    explicit ConsoleScreen(FakeConsole &console)
        : m_console(console)
    {
        open(QIODevice::WriteOnly);
    }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override
    {
        m_console.recordWrite(QByteArray(data, size));
        return size;
    }

private:
    FakeConsole &m_console;
};

const QStringList switched{u"read output code page"_s,
                           u"read input code page"_s,
                           u"end handler installed"_s,
                           u"output code page 65001"_s,
                           u"input code page 65001"_s};
const QStringList restored{u"output code page 936"_s, u"input code page 936"_s};

} // namespace

class tst_ConsoleCodePage : public QObject
{
    Q_OBJECT

private slots:
    void savesAndSwitchesBeforeTheFirstWrite();
    void restoresWhenDestroyed();
    void restoresOnInterruptBeforeTheProcessEnds();
    void restoresOnlyOnce();
    void doesNothingWithoutAConsole();
};

void tst_ConsoleCodePage::savesAndSwitchesBeforeTheFirstWrite()
{
    FakeConsole console;
    ConsoleScreen screen(console);
    const ConsoleCodePage codePage(console.functions());
    Cli::TerminalWriter(&screen).writeLine(u"用法：agentloop-cli --prompt <text>"_s);

    QCOMPARE(console.calls(),
             switched
                     + QStringList{u"written in code page 65001: 用法：agentloop-cli --prompt "
                                   u"<text>\n"_s});
    QCOMPARE(console.outputCodePage(), ConsoleCodePage::utf8);
    QCOMPARE(console.inputCodePage(), ConsoleCodePage::utf8);
}

void tst_ConsoleCodePage::restoresWhenDestroyed()
{
    FakeConsole console;
    {
        const ConsoleCodePage codePage(console.functions());
        QCOMPARE(console.calls(), switched);
    }
    QCOMPARE(console.calls(), switched + QStringList{u"end handler removed"_s} + restored);
    QCOMPARE(console.outputCodePage(), chineseCodePage);
    QCOMPARE(console.inputCodePage(), chineseCodePage);
    QVERIFY(!console.hasEndHandler());
}

void tst_ConsoleCodePage::restoresOnInterruptBeforeTheProcessEnds()
{
    FakeConsole console;
    auto codePage = std::make_unique<ConsoleCodePage>(console.functions());
    console.interrupt();
    // The process may end now: the user's console is as it was.
    QCOMPARE(console.calls(), switched + restored);
    QCOMPARE(console.outputCodePage(), chineseCodePage);
    QCOMPARE(console.inputCodePage(), chineseCodePage);

    // Main's return (if it gets there) does not set them a second time.
    codePage.reset();
    QCOMPARE(console.calls(), switched + restored + QStringList{u"end handler removed"_s});
}

void tst_ConsoleCodePage::restoresOnlyOnce()
{
    FakeConsole console;
    {
        ConsoleCodePage codePage(console.functions());
        codePage.restore();
        codePage.restore();
        console.interrupt();
    }
    QCOMPARE(console.calls(), switched + restored + QStringList{u"end handler removed"_s});
}

void tst_ConsoleCodePage::doesNothingWithoutAConsole()
{
    // GetConsoleOutputCP is 0 when output goes to a pipe or a file with no console at all.
    FakeConsole console(0);
    ConsoleScreen screen(console);
    {
        const ConsoleCodePage codePage(console.functions());
        Cli::TerminalWriter(&screen).write(u"piped"_s);
        console.interrupt();
    }
    QCOMPARE(console.calls(),
             (QStringList{u"read output code page"_s, u"written in code page 0: piped"_s}));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_ConsoleCodePage)

#include "tst_consolecodepage.moc"
