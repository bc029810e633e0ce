// The core's rooms depend only downwards (src/core/CMakeLists.txt): every #include in src/core
// is read from the real source tree and checked against the rooms its file may see. The checker
// is itself checked on lines written here, so that a broken reader cannot pass by finding nothing.

#include "testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QLibraryInfo>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <optional>

using namespace Qt::StringLiterals;

namespace {

// Set by tests/core/CMakeLists.txt.
const QString coreSourceDir = QStringLiteral(AGENTLOOP_CORE_SOURCE_DIR);

const QStringList rooms{u"base"_s,
                        u"files"_s,
                        u"protocol"_s,
                        u"context"_s,
                        u"provider"_s,
                        u"tools"_s,
                        u"permissions"_s,
                        u"mcp"_s,
                        u"storage"_s,
                        u"agent"_s};

// The rooms whose headers a file in room may include.
QStringList allowedRooms(const QString &room)
{
    static const QHash<QString, QStringList> allowed{
            {u"base"_s, {u"base"_s}},
            {u"files"_s, {u"base"_s, u"files"_s}},
            {u"protocol"_s, {u"base"_s, u"protocol"_s}},
            {u"context"_s, {u"base"_s, u"protocol"_s, u"context"_s}},
            {u"provider"_s, {u"base"_s, u"protocol"_s, u"provider"_s}},
            {u"tools"_s, {u"base"_s, u"files"_s, u"protocol"_s, u"tools"_s}},
            {u"permissions"_s, {u"base"_s, u"files"_s, u"protocol"_s, u"tools"_s, u"permissions"_s}},
            {u"mcp"_s, {u"base"_s, u"files"_s, u"protocol"_s, u"tools"_s, u"mcp"_s}},
            {u"storage"_s, {u"base"_s, u"protocol"_s, u"context"_s, u"storage"_s}},
            {u"agent"_s, rooms},
    };
    return allowed.value(room);
}

// The headers of Qt Widgets: the module's own, and each class header of the Qt this test runs
// with, where its headers are installed.
bool isWidgetsHeader(const QString &name)
{
    static const QSet<QString> classHeaders = [] {
        QSet<QString> names{u"QApplication"_s, u"QWidget"_s};
        const QDir installed(QLibraryInfo::path(QLibraryInfo::HeadersPath) + u"/QtWidgets"_s);
        for (const QString &file : installed.entryList(QDir::Files))
            names.insert(file);
        return names;
    }();
    return name == u"QtWidgets" || name.startsWith(u"QtWidgets/") || classHeaders.contains(name);
}

struct Include
{
    int line = 0;        // 1-based
    QString directive;   // the line as written
    bool quoted = false; // "..." rather than <...>
    QString header;      // what is between the quotes or brackets
};

// The #include directives of a source file's text.
QList<Include> includesIn(const QString &text)
{
    static const QRegularExpression directive(u"^\\s*#\\s*include\\s*([<\"])([^>\"]*)[>\"]"_s);
    QList<Include> found;
    const QStringList lines = text.split(u'\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QRegularExpressionMatch match = directive.match(lines.at(i));
        if (match.hasMatch())
            found.append({int(i + 1),
                          lines.at(i).trimmed(),
                          match.captured(1) == u"\"",
                          match.captured(2)});
    }
    return found;
}

// Why a file in room may not have this include, or nothing when it may.
std::optional<QString> violation(const QString &room, const Include &include)
{
    if (!include.quoted) {
        if (isWidgetsHeader(include.header))
            return u"a Qt Widgets header: the core is Qt Core and Network only"_s;
        return std::nullopt;
    }
    const QString headerRoom = include.header.section(u'/', 0, 0);
    if (!rooms.contains(headerRoom))
        return u"names no room of the core (%1/)"_s.arg(rooms.join(u"/, "_s));
    if (!allowedRooms(room).contains(headerRoom))
        return u"%1 may include only %2"_s.arg(room, allowedRooms(room).join(u", "_s));
    return std::nullopt;
}

// "src/core/tools/shelltool.cpp:12: #include "provider/chatclient.h": tools may include only ..."
QStringList violationsIn(const QString &room, const QString &path, const QString &text)
{
    QStringList found;
    for (const Include &include : includesIn(text)) {
        if (const auto why = violation(room, include))
            found << u"%1:%2: %3: %4"_s.arg(path).arg(include.line).arg(include.directive, *why);
    }
    return found;
}

// The C++ sources of src/core below folder (relative paths), in order.
QStringList sourcesBelow(const QString &folder)
{
    QStringList found;
    QDirIterator it(QDir(coreSourceDir).filePath(folder),
                    {u"*.h"_s, u"*.cpp"_s},
                    QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        found << QDir(coreSourceDir).relativeFilePath(it.next());
    found.sort();
    return found;
}

QString readText(const QString &relativePath)
{
    QFile file(QDir(coreSourceDir).filePath(relativePath));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s: %s", qPrintable(file.fileName()), qPrintable(file.errorString()));
    return QString::fromUtf8(file.readAll());
}

} // namespace

class tst_IncludeRules : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    // The checker on lines written here.
    void checkerJudgesALine_data();
    void checkerJudgesALine();
    void checkerNamesFileLineAndInclude();
    // The real tree.
    void roomKeepsToItsRules_data();
    void roomKeepsToItsRules();
    void everyFileIsInARoom();
};

void tst_IncludeRules::initTestCase()
{
    QVERIFY2(QDir(coreSourceDir).exists(), qPrintable(coreSourceDir));
}

void tst_IncludeRules::checkerJudgesALine_data()
{
    QTest::addColumn<QString>("room");
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("allowed");

    QTest::newRow("base: its own room") << u"base"_s << u"#include \"base/error.h\""_s << true;
    QTest::newRow("base: protocol is above it")
            << u"base"_s << u"#include \"protocol/message.h\""_s << false;
    QTest::newRow("protocol: base") << u"protocol"_s << u"#include \"base/result.h\""_s << true;
    QTest::newRow("protocol: provider is above it")
            << u"protocol"_s << u"#include \"provider/chatclient.h\""_s << false;
    QTest::newRow("provider: protocol")
            << u"provider"_s << u"#include \"protocol/exchange.h\""_s << true;
    QTest::newRow("provider: tools is beside it")
            << u"provider"_s << u"#include \"tools/tool.h\""_s << false;
    QTest::newRow("tools: provider is beside it")
            << u"tools"_s << u"#include \"provider/chatclient.h\""_s << false;
    QTest::newRow("tools: storage is beside it")
            << u"tools"_s << u"#include \"storage/config.h\""_s << false;
    QTest::newRow("tools: protocol")
            << u"tools"_s << u"#include \"protocol/jsonschema.h\""_s << true;
    QTest::newRow("storage: tools is beside it")
            << u"storage"_s << u"#include \"tools/commandrunner.h\""_s << false;
    QTest::newRow("storage: protocol")
            << u"storage"_s << u"#include \"protocol/history.h\""_s << true;
    QTest::newRow("files: base") << u"files"_s << u"#include \"base/result.h\""_s << true;
    QTest::newRow("files: tools is above it")
            << u"files"_s << u"#include \"tools/tool.h\""_s << false;
    QTest::newRow("tools: files") << u"tools"_s << u"#include \"files/workspace.h\""_s << true;
    QTest::newRow("permissions: tools")
            << u"permissions"_s << u"#include \"tools/tool.h\""_s << true;
    QTest::newRow("permissions: storage is not below it")
            << u"permissions"_s << u"#include \"storage/config.h\""_s << false;
    QTest::newRow("tools: permissions is above it")
            << u"tools"_s << u"#include \"permissions/permissionrules.h\""_s << false;
    QTest::newRow("mcp: tools") << u"mcp"_s << u"#include \"tools/tool.h\""_s << true;
    QTest::newRow("mcp: provider is not below it")
            << u"mcp"_s << u"#include \"provider/chatclient.h\""_s << false;
    QTest::newRow("agent: every room")
            << u"agent"_s << u"#include \"storage/conversationstore.h\""_s << true;
    QTest::newRow("agent: tools") << u"agent"_s << u"#include \"tools/shelltool.h\""_s << true;
    QTest::newRow("spaces in the directive")
            << u"base"_s << u"  #  include \"provider/chatclient.h\""_s << false;
    QTest::newRow("a header without a room") << u"agent"_s << u"#include \"error.h\""_s << false;
    QTest::newRow("a GUI header") << u"agent"_s << u"#include \"chat/chatmodel.h\""_s << false;
    QTest::newRow("the GUI's main window") << u"agent"_s << u"#include \"mainwindow.h\""_s << false;
    QTest::newRow("out of the core")
            << u"tools"_s << u"#include \"../cli/clioptions.h\""_s << false;
    QTest::newRow("Qt Core") << u"base"_s << u"#include <QString>"_s << true;
    QTest::newRow("Qt Network") << u"provider"_s << u"#include <QNetworkReply>"_s << true;
    QTest::newRow("the standard library") << u"base"_s << u"#include <optional>"_s << true;
    QTest::newRow("QWidget") << u"agent"_s << u"#include <QWidget>"_s << false;
    QTest::newRow("QApplication") << u"agent"_s << u"#include <QApplication>"_s << false;
    QTest::newRow("QtWidgets/...") << u"base"_s << u"#include <QtWidgets/QLabel>"_s << false;
    QTest::newRow("the Widgets module") << u"base"_s << u"#include <QtWidgets>"_s << false;
    QTest::newRow("a comment is no include")
            << u"base"_s << u"// #include \"provider/chatclient.h\""_s << true;
}

void tst_IncludeRules::checkerJudgesALine()
{
    QFETCH(QString, room);
    QFETCH(QString, line);
    QFETCH(bool, allowed);
    const QStringList found = violationsIn(room, u"x.cpp"_s, line);
    QVERIFY2(found.isEmpty() == allowed, qPrintable(found.join(u'\n')));
}

void tst_IncludeRules::checkerNamesFileLineAndInclude()
{
    const QString text = u"#include \"tools/shelltool.h\"\n"
                         u"\n"
                         u"#include \"provider/chatclient.h\"\n"
                         u"#include <QWidget>\n"_s;
    QCOMPARE(violationsIn(u"tools"_s, u"tools/shelltool.cpp"_s, text),
             (QStringList{u"tools/shelltool.cpp:3: #include \"provider/chatclient.h\": tools may "
                          u"include only base, files, protocol, tools"_s,
                          u"tools/shelltool.cpp:4: #include <QWidget>: a Qt Widgets header: the "
                          u"core is Qt Core and Network only"_s}));
}

void tst_IncludeRules::roomKeepsToItsRules_data()
{
    QTest::addColumn<QString>("room");
    // About half the files each room has now: enough to know the tree was really read.
    QTest::addColumn<int>("atLeast");
    QTest::newRow("base") << u"base"_s << 6;
    QTest::newRow("files") << u"files"_s << 3;
    QTest::newRow("protocol") << u"protocol"_s << 9;
    QTest::newRow("provider") << u"provider"_s << 4;
    QTest::newRow("tools") << u"tools"_s << 4;
    QTest::newRow("storage") << u"storage"_s << 2;
    QTest::newRow("agent") << u"agent"_s << 2;
}

void tst_IncludeRules::roomKeepsToItsRules()
{
    QFETCH(QString, room);
    QFETCH(int, atLeast);
    const QStringList files = sourcesBelow(room);
    QVERIFY2(files.size() >= atLeast,
             qPrintable(u"%1 files in %2: %3"_s.arg(files.size()).arg(room, files.join(u", "_s))));
    QStringList found;
    int includes = 0;
    for (const QString &file : files) {
        const QString text = readText(file);
        includes += int(includesIn(text).size());
        found << violationsIn(room, u"src/core/"_s + file, text);
    }
    QVERIFY2(includes >= files.size(), "fewer #include lines than files: the reader misses them");
    QVERIFY2(found.isEmpty(), qPrintable(u"\n"_s + found.join(u'\n')));
}

void tst_IncludeRules::everyFileIsInARoom()
{
    QStringList outside;
    for (const QString &file : sourcesBelow(QString())) {
        if (!rooms.contains(file.section(u'/', 0, 0)))
            outside << u"src/core/"_s + file;
    }
    QVERIFY2(outside.isEmpty(), qPrintable(u"in no room: "_s + outside.join(u", "_s)));
}

AGENTLOOP_TEST_MAIN(QCoreApplication, tst_IncludeRules)
#include "tst_includerules.moc"
