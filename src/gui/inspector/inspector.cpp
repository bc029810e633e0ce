#include "inspector/inspector.h"

#include "base/displaytext.h"
#include "inspector/auditpage.h"
#include "inspector/jsonformat.h"
#include "inspector/jsonhighlighter.h"
#include "inspector/jsontreemodel.h"
#include "inspector/protocolstrip.h"
#include "inspector/recordtable.h"
#include "inspector/turnmodel.h"
#include "showntext.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Gui {

namespace {

// A word for a POSIX shell: single quotes, with each ' written as '\''.
QString headerLines(const AgentLoop::HeaderList &headers)
{
    QString text;
    for (const auto &[name, value] : headers)
        text += QString::fromLatin1(name) + u": "_s + QString::fromUtf8(value) + u'\n';
    return text;
}

void highlight(JsonHighlighter *highlighter, QTextDocument *document)
{
    if (highlighter->document() != document)
        highlighter->setDocument(document);
}

// A body as its page shows it: what the provider or the model wrote in its strings (bidi
// controls, invisible characters) as escapes, in a text as long as the body (a CRLF is a line
// end). Copy and Copy as curl take the exact bytes instead.
QString shownBody(const QString &text)
{
    return AgentLoop::displayed(withLineFeeds(text));
}

// An event stream's lines end in CRLF, LF or CR alike: a CR is shown as the line end it is.
QString shownEvents(const QByteArray &bytes)
{
    QString text = withLineFeeds(QString::fromUtf8(bytes));
    if (bytes.contains('\r'))
        text.replace(u'\r', u'\n');
    return AgentLoop::displayed(text);
}

} // namespace

Inspector::Inspector(QWidget *parent)
    : QWidget(parent)
    , m_pages(new QTabWidget(this))
    , m_auditPage(new AuditPage(this))
    , m_table(new QTableView(this))
    , m_tabs(new QTabWidget(this))
    , m_tree(new QTreeView(this))
    , m_treeSource(new QComboBox(this))
    , m_treeModel(new JsonTreeModel(this))
    , m_copyRequest(new QPushButton(tr("Copy &request"), this))
    , m_copyResponse(new QPushButton(tr("Copy re&sponse"), this))
    , m_copyCurl(new QPushButton(tr("Copy as c&url"), this))
    , m_wrap(new QCheckBox(tr("&Wrap lines"), this))
    , m_summary(new QLabel(this))
    , m_totals(new QLabel(this))
    , m_buttons(new QHBoxLayout)
    , m_protocolStrip(new ProtocolStrip(this))
{
    setObjectName(u"inspector"_s);

    m_table->setObjectName(u"turnTable"_s);
    m_table->setAccessibleName(tr("Requests"));
    setUpRecordTable(m_table);
    // Several requests at once for File › Save bug bundle… (Ctrl+click, Shift+click); the
    // current one is the one shown.
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_request = newBodyView(u"requestView"_s, tr("Request body"), this);
    m_response = newBodyView(u"responseView"_s, tr("Response body"), this);
    m_assembled = newBodyView(u"assembledView"_s, tr("Assembled message"), this);
    m_headers = newBodyView(u"headersView"_s, tr("Request and response headers"), this);
    m_request->setPlaceholderText(
            tr("Select a request above to see the exact JSON that was sent."));
    m_response->setPlaceholderText(
            tr("Select a request above to see the exact JSON that came back."));
    m_headers->setPlaceholderText(tr("Select a request above to see its HTTP headers."));
    m_assembled->setPlaceholderText(
            tr("The stream ended before a complete message could be assembled."));
    m_requestHighlighter = new JsonHighlighter(m_request->document());
    m_responseHighlighter = new JsonHighlighter(m_response->document());
    m_assembledHighlighter = new JsonHighlighter(m_assembled->document());

    m_tree->setObjectName(u"jsonTree"_s);
    m_tree->setAccessibleName(tr("JSON tree"));
    m_tree->setModel(m_treeModel);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(JsonTreeModel::ValueColumn, QHeaderView::Stretch);
    m_treeSource->setObjectName(u"treeSource"_s);
    m_treeSource->setAccessibleName(tr("JSON shown in the tree"));
    m_treeSource->addItem(tr("Request body"));
    m_treeSource->addItem(tr("Response body"));
    connect(m_treeSource, &QComboBox::currentIndexChanged, this, &Inspector::showTree);

    auto *treePage = new QWidget(this);
    auto *treeLayout = new QVBoxLayout(treePage);
    treeLayout->setContentsMargins(0, 0, 0, 0);
    auto *treeBar = new QHBoxLayout;
    auto *treeLabel = new QLabel(tr("S&how:"), treePage);
    treeLabel->setBuddy(m_treeSource);
    treeBar->addWidget(treeLabel);
    treeBar->addWidget(m_treeSource);
    treeBar->addStretch();
    treeLayout->addLayout(treeBar);
    treeLayout->addWidget(m_tree);

    m_tabs->setObjectName(u"inspectorTabs"_s);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_request, tr("Request"));
    m_tabs->addTab(m_response, tr("Response"));
    m_tabs->addTab(m_assembled, tr("Assembled"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_assembled),
                          tr("The assistant message put together from the streamed events: what "
                             "the agent acted on"));
    m_tabs->setTabVisible(m_tabs->indexOf(m_assembled), false);
    m_tabs->addTab(m_headers, tr("Headers"));
    m_tabs->addTab(treePage, tr("Tree"));

    m_copyRequest->setObjectName(u"copyRequestButton"_s);
    m_copyResponse->setObjectName(u"copyResponseButton"_s);
    m_copyCurl->setObjectName(u"copyCurlButton"_s);
    m_copyRequest->setToolTip(tr("Copy the request body"));
    m_copyResponse->setToolTip(tr("Copy the response body"));
    m_copyCurl->setToolTip(tr("Copy a curl command that sends this request again; the key is "
                              "written as $OPENAI_API_KEY"));
    connect(m_copyRequest, &QPushButton::clicked, this, &Inspector::copyRequest);
    connect(m_copyResponse, &QPushButton::clicked, this, &Inspector::copyResponse);
    connect(m_copyCurl, &QPushButton::clicked, this, &Inspector::copyCurl);

    m_wrap->setObjectName(u"wrapLines"_s);
    m_wrap->setToolTip(
            tr("Wrap long lines of the bodies and headers instead of scrolling sideways"));
    m_wrap->setChecked(true);
    const auto applyWrap = [this](bool wrap) {
        for (QPlainTextEdit *view : {m_request, m_response, m_assembled, m_headers})
            view->setLineWrapMode(wrap ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    };
    applyWrap(true);
    connect(m_wrap, &QCheckBox::toggled, this, applyWrap);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { fillResponsePages(false); });

    m_summary->setObjectName(u"inspectorSummary"_s);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(false);

    auto *details = new QWidget(this);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_summary);
    detailsLayout->addWidget(m_protocolStrip);
    detailsLayout->addWidget(m_tabs, 1);
    m_buttons->addWidget(m_copyRequest);
    m_buttons->addWidget(m_copyResponse);
    m_buttons->addWidget(m_copyCurl);
    m_buttons->addStretch();
    m_buttons->addWidget(m_wrap);
    detailsLayout->addLayout(m_buttons);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(u"inspectorSplitter"_s);
    splitter->setChildrenCollapsible(false);
    // The table with the conversation's running total under it.
    auto *requests = new QWidget(this);
    auto *requestsLayout = new QVBoxLayout(requests);
    requestsLayout->setContentsMargins(0, 0, 0, 0);
    requestsLayout->setSpacing(2);
    requestsLayout->addWidget(m_table, 1);
    m_totals->setObjectName(u"inspectorTotals"_s);
    m_totals->setTextFormat(Qt::PlainText);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_totals->setAccessibleName(tr("Conversation totals"));
    m_totals->setToolTip(tr("This conversation's requests since it was opened in this window: "
                            "how many, the time spent waiting for answers, the tokens the "
                            "provider reported and, with prices in Settings › Context, what "
                            "they cost"));
    requestsLayout->addWidget(m_totals);
    splitter->addWidget(requests);
    splitter->addWidget(details);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);

    m_pages->setObjectName(u"inspectorPages"_s);
    m_pages->addTab(splitter, tr("Re&quests"));
    m_pages->setTabToolTip(0, tr("The exact requests and responses of every turn"));
    m_pages->addTab(m_auditPage, tr("&Audit"));
    m_pages->setTabToolTip(1,
                           tr("Every call of this conversation: what was decided, by which rule "
                              "or by you, and how it ended"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_pages);

    showRow(-1);
}

void Inspector::setModel(TurnModel *model, AuditModel *audit)
{
    if (audit)
        m_auditPage->setModel(audit);
    m_model = model;
    m_table->setModel(model);
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TurnModel::FinishReasonColumn, QHeaderView::Stretch);
    connect(m_table->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            [this](const QModelIndex &current) { showRow(current.row()); });
    connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first) {
        onRowsInserted(first);
    });
    connect(model,
            &QAbstractItemModel::dataChanged,
            this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                if (m_shownRow >= topLeft.row() && m_shownRow <= bottomRight.row())
                    showRow(m_shownRow);
            });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { showRow(-1); });
    const auto showTotals = [this] {
        m_totals->setText(m_model->totalsText());
    };
    const auto showCostColumn = [this] {
        m_table->setColumnHidden(TurnModel::CostColumn, !m_model->hasPrices());
    };
    connect(model, &TurnModel::totalsChanged, this, showTotals);
    connect(model, &TurnModel::pricesChanged, this, showCostColumn);
    showTotals();
    showCostColumn();
}

QString Inspector::totalsText() const
{
    return m_totals->text();
}

void Inspector::onRowsInserted(int first)
{
    // Follow the newest request unless the user is reading an older one.
    const int selected = selectedRow();
    if (selected < 0 || selected == first - 1)
        selectRow(first);
}

int Inspector::selectedRow() const
{
    const QModelIndex current = m_table->selectionModel()
                                        ? m_table->selectionModel()->currentIndex()
                                        : QModelIndex();
    return current.isValid() ? current.row() : -1;
}

void Inspector::selectTurn(int number)
{
    if (m_model)
        selectRow(m_model->rowOfRequest(number));
}

void Inspector::selectRow(int row)
{
    if (m_model)
        selectTableRow(m_table, row);
}

int Inspector::currentTurn() const
{
    return m_model && m_shownRow >= 0 ? m_model->record(m_shownRow).number : 0;
}

QString Inspector::requestText() const
{
    return m_request->toPlainText();
}

QString Inspector::responseText()
{
    fillResponsePages(true);
    return m_response->toPlainText();
}

QString Inspector::assembledText()
{
    fillResponsePages(true);
    return m_assembled->toPlainText();
}

QString Inspector::headersText() const
{
    return m_headers->toPlainText();
}

QString Inspector::summaryText() const
{
    return m_summary->text();
}

QWidget *Inspector::assembledPage() const
{
    return m_assembled;
}

void Inspector::showRow(int row)
{
    const bool valid = m_model && row >= 0 && row < m_model->rowCount();
    if (!valid) {
        m_shownRow = -1;
        m_shownState = -1;
        m_request->clear();
        m_response->clear();
        m_assembled->clear();
        showAssembledTab(false);
        m_headers->clear();
        m_treeModel->clear();
        m_summary->setText(tr("No request selected"));
        m_protocolStrip->showReport(std::nullopt);
        m_copyRequest->setEnabled(false);
        m_copyResponse->setEnabled(false);
        m_copyCurl->setEnabled(false);
        emit rowShown(-1);
        return;
    }
    const TurnRecord &record = m_model->record(row);
    const int state = int(record.state) * 1000 + (record.usage ? 1 : 0)
                      + (record.finishReason.isEmpty() ? 0 : 2);
    if (row == m_shownRow && state == m_shownState)
        return;
    const bool sameRow = row == m_shownRow;
    m_shownRow = row;
    m_shownState = state;

    const AgentLoop::Exchange &exchange = record.exchange;
    if (!sameRow) {
        m_protocolStrip->showReport(record.protocol);
        // The highlighter is detached first: it would colour the text once per setPlainText().
        highlight(m_requestHighlighter, nullptr);
        m_request->setPlaceholderText(
                record.state == TurnRecord::State::NotSent
                        ? tr("Nothing was sent: the protocol check above failed, so the loop "
                             "stopped before the request.")
                        : tr("Select a request above to see the exact JSON that was sent."));
        m_request->setPlainText(shownBody(prettyJson(exchange.requestBody)));
        highlight(m_requestHighlighter,
                  isJsonDocument(exchange.requestBody) ? m_request->document() : nullptr);
    }
    const bool streamed = record.state == TurnRecord::State::Answered && exchange.streamed;
    // The usage and the finish reason arrive after the body: the pages stay as they are then.
    if (!sameRow || int(record.state) != m_responsePagesState) {
        m_responsePagesState = int(record.state);
        m_responsePagesFilled = false;
        fillResponsePages(false);
    }
    showAssembledTab(streamed);
    m_headers->setPlainText(headersText(record));
    showTree();

    QString status;
    switch (record.state) {
    case TurnRecord::State::Answered:
        status = exchange.httpStatus > 0 ? tr("HTTP %1").arg(exchange.httpStatus)
                                         : tr("no HTTP answer");
        break;
    case TurnRecord::State::Pending:
        status = tr("waiting");
        break;
    case TurnRecord::State::Aborted:
        status = tr("stopped");
        break;
    case TurnRecord::State::NotSent:
        status = tr("not sent");
        break;
    }
    if (record.state == TurnRecord::State::NotSent) {
        const QString summary = tr("Request %1 · not sent").arg(record.number);
        m_summary->setText(summary);
        m_summary->setToolTip(summary);
        m_copyRequest->setEnabled(false);
        m_copyResponse->setEnabled(false);
        m_copyCurl->setEnabled(false);
        return;
    }
    QString summary = exchange.attempt > 1 || !exchange.retryNotice.isEmpty()
                              ? tr("Request %1 · attempt %2").arg(record.number).arg(exchange.attempt)
                              : tr("Request %1").arg(record.number);
    summary = tr("%1 · %2 %3 · %4")
                      .arg(summary,
                           QString::fromLatin1(exchange.method),
                           exchange.url.toDisplayString(),
                           status);
    if (!exchange.retryNotice.isEmpty())
        summary += u" · "_s + exchange.retryNotice;
    summary = AgentLoop::displayedLine(summary, 1000);
    m_summary->setText(summary);
    m_summary->setToolTip(plainToolTip(summary));
    m_copyRequest->setEnabled(true);
    m_copyResponse->setEnabled(!exchange.responseBody.isEmpty());
    m_copyCurl->setEnabled(true);
    emit rowShown(row);
}

void Inspector::fillResponsePages(bool evenIfHidden)
{
    if (m_responsePagesFilled || !m_model || m_shownRow < 0)
        return;
    // A streamed body is megabytes of events: it goes into its page when someone looks at it,
    // not at the end of every turn.
    if (!evenIfHidden && m_tabs->currentWidget() != m_response
        && m_tabs->currentWidget() != m_assembled) {
        m_response->clear();
        m_assembled->clear();
        return;
    }
    m_responsePagesFilled = true;
    const TurnRecord &record = m_model->record(m_shownRow);
    const AgentLoop::Exchange &exchange = record.exchange;
    highlight(m_responseHighlighter, nullptr);
    highlight(m_assembledHighlighter, nullptr);
    m_assembled->clear();
    switch (record.state) {
    case TurnRecord::State::Pending:
        m_response->clear();
        m_response->setPlaceholderText(tr("Waiting for the response…"));
        break;
    case TurnRecord::State::Aborted:
        m_response->clear();
        m_response->setPlaceholderText(tr("The run was stopped before a response arrived."));
        break;
    case TurnRecord::State::NotSent:
        m_response->clear();
        m_response->setPlaceholderText(tr("Nothing was sent, so nothing came back."));
        break;
    case TurnRecord::State::Answered:
        if (exchange.responseBody.isEmpty()) {
            m_response->clear();
            m_response->setPlaceholderText(
                    exchange.errorString.isEmpty()
                            ? tr("The response had no body.")
                            : AgentLoop::displayedLine(exchange.errorString, 1000));
        } else if (exchange.streamed) {
            // The events exactly as they arrived: re-indenting them would hide what the provider
            // really sent (split lines, keep-alives, a missing [DONE]).
            m_response->setPlainText(shownEvents(exchange.responseBody));
            m_assembled->setPlainText(shownBody(prettyJson(exchange.assembledMessage)));
        } else {
            m_response->setPlainText(shownBody(prettyJson(exchange.responseBody)));
        }
        break;
    }
    const bool streamed = record.state == TurnRecord::State::Answered && exchange.streamed;
    m_responseHighlighter->setMode(streamed ? JsonHighlighter::Mode::ServerSentEvents
                                            : JsonHighlighter::Mode::Json);
    highlight(m_responseHighlighter,
              streamed || isJsonDocument(exchange.responseBody) ? m_response->document() : nullptr);
    highlight(m_assembledHighlighter,
              isJsonDocument(exchange.assembledMessage) ? m_assembled->document() : nullptr);
}

void Inspector::showTree()
{
    if (!m_model || m_shownRow < 0) {
        m_treeModel->clear();
        return;
    }
    const AgentLoop::Exchange &exchange = m_model->record(m_shownRow).exchange;
    // A stream is no JSON document: its tree is the message assembled from it.
    m_treeSource->setItemText(1, exchange.streamed ? tr("Assembled message") : tr("Response body"));
    m_treeModel->setJson(m_treeSource->currentIndex() == 0 ? exchange.requestBody
                         : exchange.streamed               ? exchange.assembledMessage
                                                           : exchange.responseBody);
    m_tree->expandToDepth(1);
    m_tree->resizeColumnToContents(JsonTreeModel::KeyColumn);
}

QString Inspector::headersText(const TurnRecord &record)
{
    const AgentLoop::Exchange &exchange = record.exchange;
    QString text = QString::fromLatin1(exchange.method) + u' ' + exchange.url.toString() + u'\n';
    text += headerLines(exchange.requestHeaders);
    text += u'\n';
    switch (record.state) {
    case TurnRecord::State::Pending:
        text += tr("(waiting for the response)") + u'\n';
        break;
    case TurnRecord::State::Aborted:
        text += tr("(stopped before a response arrived)") + u'\n';
        break;
    case TurnRecord::State::NotSent:
        return tr("(nothing was sent)");
    case TurnRecord::State::Answered:
        if (exchange.httpStatus > 0)
            text += u"HTTP %1 (%2 ms)\n"_s.arg(exchange.httpStatus).arg(exchange.durationMs);
        else
            text += tr("No HTTP answer: %1").arg(exchange.errorString) + u'\n';
        text += headerLines(exchange.responseHeaders);
        break;
    }
    // Header values and error strings are the provider's.
    return AgentLoop::displayed(text);
}

void Inspector::showAssembledTab(bool visible)
{
    const int tab = m_tabs->indexOf(m_assembled);
    if (m_tabs->isTabVisible(tab) == visible)
        return;
    if (!visible && m_tabs->currentIndex() == tab)
        m_tabs->setCurrentWidget(m_response);
    m_tabs->setTabVisible(tab, visible);
}

void Inspector::copyRequest()
{
    // The body itself, indented as the page shows it but not sanitised: it is there to be sent.
    if (m_model && m_shownRow >= 0)
        QGuiApplication::clipboard()->setText(
                prettyJson(m_model->record(m_shownRow).exchange.requestBody));
}

void Inspector::copyResponse()
{
    // An event stream is copied byte for byte (the view shows CRLF as plain line breaks).
    if (m_model && m_shownRow >= 0 && m_model->record(m_shownRow).exchange.streamed) {
        QGuiApplication::clipboard()->setText(
                QString::fromUtf8(m_model->record(m_shownRow).exchange.responseBody));
        return;
    }
    if (m_model && m_shownRow >= 0)
        QGuiApplication::clipboard()->setText(
                prettyJson(m_model->record(m_shownRow).exchange.responseBody));
}

void Inspector::copyCurl()
{
    if (m_model && m_shownRow >= 0)
        QGuiApplication::clipboard()->setText(
                AgentLoop::curlCommand(m_model->record(m_shownRow).exchange));
}

void Inspector::addRequestActions(const QList<QAction *> &actions)
{
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    for (QAction *action : actions) {
        m_table->addAction(action);
        addAction(action); // its shortcut, anywhere in the inspector
        auto *button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setObjectName(action->objectName() + u"Button"_s);
        // Before the stretch and the wrap box.
        m_buttons->insertWidget(m_buttons->count() - 2, button);
    }
}

void Inspector::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        m_requestHighlighter->setPalette(palette());
        m_responseHighlighter->setPalette(palette());
        m_assembledHighlighter->setPalette(palette());
    }
}

} // namespace Gui
