#include "chat/rowstack.h"
#include "testmain.h"

#include <QTest>

using Gui::RowStack;

namespace {

// Heights by row content: the test's "model" is a list of heights the stack must measure.
void measure(RowStack &stack, const QList<int> &heights, int *measured = nullptr)
{
    stack.update([&](int row) {
        if (measured)
            ++*measured;
        return heights.at(row);
    });
}

QList<int> tops(const RowStack &stack)
{
    QList<int> result;
    for (int row = 0; row < stack.count(); ++row)
        result << stack.top(row);
    return result;
}

} // namespace

class tst_RowStack : public QObject
{
    Q_OBJECT

private slots:
    void stacksRowsTopToBottom();
    void appendingMeasuresOnlyTheNewRow();
    void insertAndRemoveMoveTheRowsBelow();
    void forgetAllMeasuresEveryRowAgain();
};

void tst_RowStack::stacksRowsTopToBottom()
{
    RowStack stack;
    QCOMPARE(stack.rowAt(0), -1);
    QCOMPARE(stack.totalHeight(), 0);
    stack.reset(4);
    QVERIFY(!stack.isUpToDate());
    measure(stack, {10, 0, 20, 5});
    QVERIFY(stack.isUpToDate());
    QCOMPARE(tops(stack), (QList<int>{0, 10, 10, 30}));
    QCOMPARE(stack.totalHeight(), 35);
    QCOMPARE(stack.rowAt(0), 0);
    QCOMPARE(stack.rowAt(9), 0);
    QCOMPARE(stack.rowAt(10), 2); // row 1 has no height: nothing of it is anywhere
    QCOMPARE(stack.rowAt(34), 3);
    QCOMPARE(stack.rowAt(35), -1);
    QCOMPARE(stack.rowAt(-1), -1);
    QCOMPARE(stack.takeChangedFrom(), 0);
    QCOMPARE(stack.takeChangedFrom(), -1);
}

void tst_RowStack::appendingMeasuresOnlyTheNewRow()
{
    RowStack stack;
    QList<int> heights;
    for (int row = 0; row < 10000; ++row)
        heights << 10 + row % 7;
    stack.reset(int(heights.size()));
    measure(stack, heights);
    stack.takeChangedFrom();
    const int total = stack.totalHeight();

    heights << 42;
    stack.insert(stack.count(), 1);
    int measured = 0;
    measure(stack, heights, &measured);
    QCOMPARE(measured, 1);
    QCOMPARE(stack.top(10000), total);
    QCOMPARE(stack.totalHeight(), total + 42);
    QCOMPARE(stack.takeChangedFrom(), 10000);

    // The last row grows (a streamed answer).
    heights.last() = 60;
    stack.forget(10000);
    measured = 0;
    measure(stack, heights, &measured);
    QCOMPARE(measured, 1);
    QCOMPARE(stack.totalHeight(), total + 60);
    QCOMPARE(stack.rowAt(total + 59), 10000);
}

void tst_RowStack::insertAndRemoveMoveTheRowsBelow()
{
    RowStack stack;
    QList<int> heights{10, 20, 30};
    stack.reset(3);
    measure(stack, heights);

    // Two rows put at the top, one before the last; a row forgotten in between is measured too.
    heights = {1, 2, 10, 20, 5, 30};
    stack.insert(0, 2);
    stack.forget(3);
    stack.insert(4, 1);
    int measured = 0;
    measure(stack, heights, &measured);
    QCOMPARE(measured, 4);
    QCOMPARE(tops(stack), (QList<int>{0, 1, 3, 13, 33, 38}));
    QCOMPARE(stack.takeChangedFrom(), 0);

    heights = {1, 2, 30};
    stack.remove(2, 3);
    measured = 0;
    measure(stack, heights, &measured);
    QCOMPARE(measured, 0);
    QCOMPARE(tops(stack), (QList<int>{0, 1, 3}));
    QCOMPARE(stack.totalHeight(), 33);
    QCOMPARE(stack.takeChangedFrom(), 2);

    // An unmeasured row removed before it was measured is not measured.
    stack.insert(1, 1);
    stack.remove(1, 1);
    measured = 0;
    measure(stack, heights, &measured);
    QCOMPARE(measured, 0);
    QCOMPARE(tops(stack), (QList<int>{0, 1, 3}));
}

void tst_RowStack::forgetAllMeasuresEveryRowAgain()
{
    RowStack stack;
    stack.reset(3);
    measure(stack, {10, 20, 30});
    stack.takeChangedFrom();
    stack.forgetAll();
    int measured = 0;
    measure(stack, {5, 5, 5}, &measured);
    QCOMPARE(measured, 3);
    QCOMPARE(tops(stack), (QList<int>{0, 5, 10}));
    QCOMPARE(stack.takeChangedFrom(), 0);
}

AGENTLOOP_TEST_MAIN(QApplication, tst_RowStack)
#include "tst_rowstack.moc"
