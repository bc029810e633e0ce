#include "chat/markdownbody.h"
#include "testmain.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QPalette>
#include <QTest>
#include <QTextDocument>

using namespace Qt::StringLiterals;
using Gui::MarkdownBody;

namespace {

constexpr qreal width = 420;

QImage rendered(const MarkdownBody &body)
{
    QImage image(int(width), int(std::ceil(body.height())) + 1, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    body.draw(&painter, QApplication::palette(), QRectF(0, 0, image.width(), image.height()));
    return image;
}

const QString answer = u"# Plan\n\nFirst a paragraph with **bold**, `code` and a "
                       "[link](https://example.com).\n\n- one\n- two\n\n  still two\n\n- three\n\n"
                       "1. first\n\n2. second\n\n```cpp\nint main()\n{\n\n    return 0;\n}\n```\n\n"
                       "> A quote\n\n    indented code\n\n    more of it\n\nThe end."_s;

} // namespace

class tst_MarkdownBody : public QObject
{
    Q_OBJECT

private slots:
    void sectionsEndOnlyWhereBlocksEnd_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("sections");
        QTest::newRow("paragraphs") << u"a\n\nb\n\nc\n"_s << 3;
        QTest::newRow("last line still arriving") << u"a\n\nb"_s << 1;
        QTest::newRow("blank line in a code fence") << u"```\nx\n\ny\n```\n\nz\n"_s << 2;
        QTest::newRow("tilde fence") << u"~~~~\nx\n\n```\n\ny\n~~~~\n\nz\n"_s << 2;
        QTest::newRow("loose list") << u"- a\n\n- b\n\nc\n"_s << 2;
        QTest::newRow("ordered list") << u"1. a\n\n2) b\n"_s << 1;
        QTest::newRow("list item continued") << u"- a\n\n  more\n"_s << 1;
        QTest::newRow("indented code") << u"    code\n\n    more\n"_s << 1;
        QTest::newRow("link reference") << u"see [x]\n\nmore\n\n[x]: https://example.com\n"_s << 1;
    }

    void sectionsEndOnlyWhereBlocksEnd()
    {
        QFETCH(QString, text);
        QFETCH(int, sections);
        MarkdownBody body(QApplication::font(), Qt::lightGray);
        body.setText(text);
        QCOMPARE(body.sectionCount(), sections);
    }

    // What the user sees of a streamed answer is what they see when it is loaded whole.
    void growingTextLooksAsWhenSetAtOnce()
    {
        MarkdownBody whole(QApplication::font(), Qt::lightGray);
        whole.setTextWidth(width);
        whole.setText(answer);
        QCOMPARE(whole.sectionCount(), 4); // no cut before a list item, or inside the fence

        MarkdownBody streamed(QApplication::font(), Qt::lightGray);
        streamed.setTextWidth(width);
        for (qsizetype end = 0; end < answer.size(); end += 7)
            streamed.setText(answer.first(end));
        streamed.setText(answer);

        QCOMPARE(streamed.sectionCount(), whole.sectionCount());
        QCOMPARE(streamed.height(), whole.height());
        QCOMPARE(rendered(streamed), rendered(whole));
    }

    // Sections stack as the blocks of one document do: the larger margin between them counts.
    void sectionsStackAsOneDocument()
    {
        const QString text = u"Intro\n\n# Title\n\nA *paragraph*.\n\n- a\n- b\n\n1. one\n2. two\n\n"
                             "```\nint x;\n\nint y;\n```\n\n> quote\n\n## End\n\nlast"_s;
        MarkdownBody body(QApplication::font(), Qt::lightGray);
        body.setTextWidth(width);
        body.setText(text);
        QVERIFY(body.sectionCount() > 5);
        QCOMPARE(body.height(), body.wholeDocument()->size().height());
    }

    void textThatIsNotAContinuationStartsAgain()
    {
        MarkdownBody body(QApplication::font(), Qt::lightGray);
        body.setTextWidth(width);
        body.setText(u"a\n\nb\n\nc\n"_s);
        body.setText(u"x\n\ny\n"_s);
        QCOMPARE(body.text(), u"x\n\ny\n"_s);
        QCOMPARE(body.sectionCount(), 2);
        QVERIFY(body.wholeDocument()->toPlainText().startsWith(u"x"_s));
    }
};

AGENTLOOP_TEST_MAIN(QApplication, tst_MarkdownBody)
#include "tst_markdownbody.moc"
