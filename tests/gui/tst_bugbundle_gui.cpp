// File › Save bug bundle…: the box lists the files of the inspector's selected requests, the zip
// written holds them, and the key is in none of them.

#include "base/ziparchive.h"
#include "bugbundles.h"
#include "fakechatserver.h"
#include "inspector/inspector.h"
#include "inspector/turnmodel.h"
#include "leaksearch.h"
#include "mainwindow.h"
#include "mainwindowfixture.h"
#include "temporarysettings.h"
#include "testmain.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace {

// The File menu's action with this object name, as the user finds it.
QAction *fileMenuAction(Gui::MainWindow *window, const QString &name)
{
    const QList<QAction *> menus = window->menuBar()->actions();
    for (QAction *menu : menus) {
        if (menu->text() != u"&File"_s || !menu->menu())
            continue;
        const QList<QAction *> actions = menu->menu()->actions();
        for (QAction *action : actions) {
            if (action->objectName() == name)
                return action;
        }
    }
    return nullptr;
}

QStringList listedFiles(QDialog *dialog)
{
    QStringList names;
    auto *list = dialog->findChild<QTreeWidget *>(u"bugBundleFiles"_s);
    for (int i = 0; list && i < list->topLevelItemCount(); ++i)
        names << list->topLevelItem(i)->text(0);
    return names;
}

} // namespace

class tst_BugBundleGui : public QObject
{
    Q_OBJECT

private slots:
    void savesTheSelectedRequestsWithoutTheKey();
    void allRequestsWhenNoneIsSelected();

private:
    TemporarySettings m_settings;
};

void tst_BugBundleGui::savesTheSelectedRequestsWithoutTheKey()
{
    MainWindowFixture f;
    // The provider echoes the key in the first answer.
    f.server.script({FakeResponse::answer(u"Your key is "_s + f.apiKey),
                     FakeResponse::answer(u"Second answer"_s)});
    f.openWindow();
    f.sendPasted(u"first"_s);
    QVERIFY(f.waitUntilFinished());
    f.sendPasted(u"second"_s);
    QVERIFY(f.waitUntilFinished());
    QCOMPARE(f.window->turnModel()->rowCount(), 2);
    // The first request alone.
    f.window->inspector()->table()->selectRow(0);

    QAction *action = fileMenuAction(f.window.get(), u"saveBugBundleAction"_s);
    QVERIFY(action);
    QCOMPARE(action->text(), u"Save &bug bundle…"_s);
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    action->trigger();
    QTRY_VERIFY(f.window->bugBundles()->listDialog()
                && f.window->bugBundles()->listDialog()->isVisible());
    QDialog *list = f.window->bugBundles()->listDialog();
    const QStringList names = listedFiles(list);
    QVERIFY2(names.contains(u"manifest.json"_s), qPrintable(names.join(u' ')));
    QVERIFY(names.contains(u"requests/001-request.json"_s));
    QCOMPARE(names.filter(u"responses/001-response."_s).size(), 1);
    QVERIFY(names.contains(u"settings.json"_s));
    QVERIFY2(!names.contains(u"requests/002-request.json"_s), qPrintable(names.join(u' ')));
    QVERIFY(list->findChild<QLabel *>(u"bugBundleIntro"_s)
                    ->text()
                    .contains(u"The API key has been removed"_s));
    QCOMPARE(list->findChild<QLabel *>(u"bugBundleRequests"_s)->text().left(38),
             u"Requests: 1 of the 2 in the inspector,"_s);
    // Sizes are shown beside the names.
    auto *tree = list->findChild<QTreeWidget *>(u"bugBundleFiles"_s);
    QVERIFY(!tree->topLevelItem(0)->text(1).isEmpty());

    list->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save)->click();
    QTRY_VERIFY(f.window->bugBundles()->saveDialog()
                && f.window->bugBundles()->saveDialog()->isVisible());
    QFileDialog *dialog = f.window->bugBundles()->saveDialog();
    QCOMPARE(dialog->acceptMode(), QFileDialog::AcceptSave);
    QTemporaryDir out;
    const QString path = out.filePath(u"bundle.zip"_s);
    dialog->selectFile(path);
    static_cast<QDialog *>(dialog)->accept(); // Save, as the user clicks it
    QTRY_VERIFY2(f.window->statusText().contains(u"Bug bundle saved to"_s),
                 qPrintable(f.window->statusText()));

    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const Result<QList<ZipEntry>> entries = readZipArchive(file.readAll());
    QVERIFY(entries);
    QStringList written;
    QStringList hits;
    for (const ZipEntry &entry : *entries) {
        written << entry.name;
        hits << keyHits(entry.data, entry.name, keyNeedles(f.apiKey));
    }
    QCOMPARE(written, names);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
    const ZipEntry response = *std::find_if(entries->cbegin(), entries->cend(), [](const auto &e) {
        return e.name.startsWith(u"responses/001-response."_s);
    });
    QVERIFY(response.data.contains("Your key is [REDACTED]"));
    const QJsonObject manifest = QJsonDocument::fromJson(entries->first().data).object();
    QCOMPARE(manifest[u"application"_s][u"name"_s].toString(), u"agentloop"_s);
    QCOMPARE(manifest[u"provider"_s][u"model"_s].toString(), u"gpt-test"_s);

    // Where it cannot be written: a warning, and nothing kept.
    const QString unwritable = out.filePath(u"missing/bundle.zip"_s);
    f.window->bugBundles()->save();
    QTRY_VERIFY(f.window->bugBundles()->listDialog()
                && f.window->bugBundles()->listDialog()->isVisible());
    f.window->bugBundles()->listDialog()->accept();
    QTRY_VERIFY(f.window->bugBundles()->saveDialog()
                && f.window->bugBundles()->saveDialog()->isVisible());
    emit f.window->bugBundles()->saveDialog()->fileSelected(unwritable);
    f.window->bugBundles()->saveDialog()->reject();
    QTRY_VERIFY(visibleMessageBox());
    QVERIFY2(visibleMessageBox()->text().contains(u"Cannot write the bug bundle"_s),
             qPrintable(visibleMessageBox()->text()));
    QVERIFY(!QFile::exists(unwritable));
    rejectVisibleMessageBoxes();
}

void tst_BugBundleGui::allRequestsWhenNoneIsSelected()
{
    MainWindowFixture f;
    f.server.script({FakeResponse::answer(u"one"_s), FakeResponse::answer(u"two"_s)});
    f.openWindow();
    f.sendPasted(u"first"_s);
    QVERIFY(f.waitUntilFinished());
    f.sendPasted(u"second"_s);
    QVERIFY(f.waitUntilFinished());
    f.window->inspector()->table()->clearSelection();
    f.window->bugBundles()->save();
    QTRY_VERIFY(f.window->bugBundles()->listDialog()
                && f.window->bugBundles()->listDialog()->isVisible());
    const QStringList names = listedFiles(f.window->bugBundles()->listDialog());
    QVERIFY(names.contains(u"requests/001-request.json"_s));
    QVERIFY(names.contains(u"requests/002-request.json"_s));
    f.window->bugBundles()->listDialog()->reject();
    QTRY_VERIFY(!f.window->bugBundles()->listDialog());
}

AGENTLOOP_TEST_MAIN(QApplication, tst_BugBundleGui)

#include "tst_bugbundle_gui.moc"
