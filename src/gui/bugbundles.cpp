#include "bugbundles.h"

#include "agent/agentsession.h"
#include "base/background.h"
#include "inspector/inspector.h"
#include "inspector/turnmodel.h"
#include "settings/appsettings.h"
#include "showntext.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace AgentLoop;

namespace Gui {

namespace {

struct Made
{
    QList<ZipEntry> entries;
    QStringList secrets;
};

QString sizeText(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat);
}

} // namespace

BugBundles::BugBundles(AgentSession &session, Inspector *inspector, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_inspector(inspector)
    , m_window(window)
    , m_action(new QAction(tr("Save &bug bundle…"), this))
{
    m_action->setObjectName(u"saveBugBundleAction"_s);
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    m_action->setStatusTip(tr("Save the selected requests, the tool runs, the versions and the "
                              "settings as one zip for a bug report, the API key removed"));
    m_action->setToolTip(m_action->statusTip());
    connect(m_action, &QAction::triggered, this, &BugBundles::save);
}

void BugBundles::addAction(QMenu *menu)
{
    menu->addAction(m_action);
}

BugBundleContents BugBundles::contents() const
{
    BugBundleContents contents;
    contents.application = u"agentloop"_s;
    const ProviderSettings &provider = m_session.configuration().provider;
    contents.baseUrl = provider.baseUrl;
    contents.model = provider.model;
    contents.conversation = m_session.recorder().header();
    contents.history = m_session.controller().history();
    contents.compactions = m_session.controller().compactions();
    contents.audit = m_session.auditTrail();
    contents.secrets = m_knownKeys;
    contents.secrets << provider.apiKey;
    for (const ProviderSettings &fallback : m_session.configuration().fallbacks)
        contents.secrets << fallback.apiKey;
    const TurnModel *model = m_inspector->model();
    if (!model)
        return contents;
    QList<int> rows;
    if (const QItemSelectionModel *selection = m_inspector->table()->selectionModel()) {
        for (const QModelIndex &index : selection->selectedRows())
            rows.append(index.row());
    }
    if (rows.isEmpty()) {
        for (int row = 0; row < model->rowCount(); ++row)
            rows.append(row);
    }
    std::sort(rows.begin(), rows.end());
    for (const int row : std::as_const(rows)) {
        const TurnRecord &record = model->record(row);
        contents.exchanges.append({record.number, record.exchange});
    }
    return contents;
}

void BugBundles::save()
{
    if (m_busy)
        return;
    closeDialogs();
    m_busy = true;
    m_action->setEnabled(false);
    BugBundleContents made = contents();
    m_requestsIncluded = int(made.exchanges.size());
    m_requestsShown = m_inspector->model() ? m_inspector->model()->rowCount() : 0;
    const ProviderSettings provider = m_session.configuration().provider;
    const QString settingsPath = AppSettings::settingsFilePath();
    // The settings file and the removal of the key from tens of megabytes of responses: not on
    // the GUI thread.
    whenFinished(runInBackground<Made>([made = std::move(made), provider, settingsPath](
                                               const QPromise<Made> &) mutable {
                     QSettings file(settingsPath, QSettings::IniFormat);
                     made.settings = {{u"provider"_s, providerForBundle(provider)},
                                      {u"settings_file"_s,
                                       settingsFileForBundle(file, &made.secrets)}};
                     return Made{bugBundleEntries(made), made.secrets};
                 }),
                 this,
                 [this](const Made &result) {
                     m_busy = false;
                     m_action->setEnabled(true);
                     m_entries = result.entries;
                     m_secrets = result.secrets;
                     showList();
                 });
}

void BugBundles::showList()
{
    auto *dialog = new QDialog(m_window);
    dialog->setObjectName(u"bugBundleDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Save Bug Bundle"));
    auto *layout = new QVBoxLayout(dialog);
    qint64 total = 0;
    for (const ZipEntry &entry : std::as_const(m_entries))
        total += entry.data.size();
    auto *intro = new QLabel(tr("The bug bundle will hold these %n files, %1 in all. The API "
                                "key has been removed from every one of them (also URL-encoded, "
                                "base64, UTF-16 and JSON-escaped), and the zip is checked for it "
                                "again before it is kept.",
                                nullptr,
                                int(m_entries.size()))
                                     .arg(sizeText(total)),
                             dialog);
    intro->setObjectName(u"bugBundleIntro"_s);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *requests = new QLabel(tr("Requests: %1 of the %2 in the inspector, as selected there "
                                   "(none selected: all of them; Ctrl+click or Shift+click "
                                   "selects several).")
                                        .arg(m_requestsIncluded)
                                        .arg(m_requestsShown),
                                dialog);
    requests->setObjectName(u"bugBundleRequests"_s);
    requests->setWordWrap(true);
    layout->addWidget(requests);
    auto *list = new QTreeWidget(dialog);
    list->setObjectName(u"bugBundleFiles"_s);
    list->setAccessibleName(tr("Files in the bug bundle"));
    list->setToolTip(tr("Every file the zip will hold, with its size"));
    list->setRootIsDecorated(false);
    list->setHeaderLabels({tr("File"), tr("Size")});
    for (const ZipEntry &entry : std::as_const(m_entries)) {
        auto *item = new QTreeWidgetItem(list,
                                         {shownText(entry.name, 300).text,
                                          sizeText(entry.data.size())});
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    }
    list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    list->header()->setStretchLastSection(false);
    layout->addWidget(list, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, dialog);
    buttons->button(QDialogButtonBox::Save)->setText(tr("&Save…"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(dialog, &QDialog::accepted, this, &BugBundles::askWhere);
    dialog->resize(520, 420);
    m_list = dialog;
    dialog->open();
}

void BugBundles::askWhere()
{
    auto *dialog = new QFileDialog(m_window, tr("Save Bug Bundle"));
    dialog->setObjectName(u"bugBundleSaveDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    dialog->setNameFilter(tr("Zip archives (*.zip)"));
    dialog->setDefaultSuffix(u"zip"_s);
    const QString id = m_session.recorder().header().id;
    dialog->selectFile(
            u"agentloop-bug-"_s
            + (id.isEmpty() ? QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss"_s) : id)
            + u".zip"_s);
    m_saveDialog = dialog;
    connect(dialog, &QFileDialog::fileSelected, this, &BugBundles::write);
    dialog->open();
}

void BugBundles::write(const QString &path)
{
    m_busy = true;
    m_action->setEnabled(false);
    const QList<ZipEntry> entries = m_entries;
    const QStringList secrets = m_secrets;
    whenFinished(runInBackground<Result<void>>(
                         [path, entries, secrets](const QPromise<Result<void>> &) {
                             return writeBugBundle(path, entries, secrets);
                         }),
                 this,
                 [this, path](const Result<void> &written) {
                     m_busy = false;
                     m_action->setEnabled(true);
                     if (written) {
                         emit saved(path);
                         return;
                     }
                     showWarning(m_window, written.error().toString());
                 });
}

QDialog *BugBundles::listDialog() const
{
    return m_list;
}

QFileDialog *BugBundles::saveDialog() const
{
    return m_saveDialog;
}

void BugBundles::closeDialogs()
{
    if (m_list)
        m_list->reject();
    if (m_saveDialog)
        m_saveDialog->reject();
}

} // namespace Gui
