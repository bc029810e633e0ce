#include "inspector/replaydialog.h"

#include "base/background.h"
#include "base/displaytext.h"
#include "inspector/jsonformat.h"
#include "inspector/jsonhighlighter.h"
#include "inspector/recordtable.h"
#include "provider/chatclient.h"
#include "provider/demoprovider.h"
#include "showntext.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

using namespace Qt::StringLiterals;
using AgentLoop::JsonChange;
using AgentLoop::RequestCheck;
using AgentLoop::RequestProblem;

namespace Gui {

namespace {

// A response view shows at most this much of a body.
constexpr qsizetype maxShownBody = 2 * 1024 * 1024;

// The JSON text with every character a screen would hide or misread (bidi controls, invisible
// and unusual spaces) written as its \uXXXX escape: such characters are only valid inside a
// string, where the escape is the same value, so the body stays the same request and the editor
// shows nothing that is not what it seems.
QString editableJson(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        char32_t codePoint = c.unicode();
        qsizetype length = 1;
        if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            codePoint = QChar::surrogateToUcs4(c, text.at(i + 1));
            length = 2;
        }
        const bool whitespace = codePoint == u'\n' || codePoint == u'\t' || codePoint == u'\r';
        if (whitespace || !AgentLoop::isEscapedForDisplay(codePoint)) {
            out += QStringView(text).mid(i, length);
        } else {
            for (qsizetype k = 0; k < length; ++k)
                out += u"\\u%1"_s.arg(uint(text.at(i + k).unicode()), 4, 16, QChar(u'0'));
        }
        i += length - 1;
    }
    return out;
}

// A response as its view shows it: the assembled message of a stream (what was compared), else
// the body; pretty-printed, through the sanitiser, bounded.
QString shownResponse(const AgentLoop::Exchange &exchange)
{
    const QByteArray &bytes = exchange.streamed && !exchange.assembledMessage.isEmpty()
                                      ? exchange.assembledMessage
                                      : exchange.responseBody;
    const ShownText shown = shownText(withLineFeeds(prettyJson(bytes)), maxShownBody);
    if (shown.cutBytes == 0)
        return shown.text;
    return shown.text + u'\n'
           + ReplayDialog::tr("… %1 more not shown").arg(QLocale().formattedDataSize(shown.cutBytes));
}

QString compactValue(const QJsonValue &value)
{
    if (value.isUndefined())
        return {};
    const QByteArray json = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(json.mid(1, json.size() - 2)); // without the array's brackets
}

} // namespace

JsonDiffModel::JsonDiffModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void JsonDiffModel::setDiff(const AgentLoop::JsonDiff &diff)
{
    beginResetModel();
    m_diff = diff;
    endResetModel();
}

int JsonDiffModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return int(m_diff.changes.size()) + (m_diff.omitted > 0 ? 1 : 0);
}

int JsonDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JsonDiffModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (index.row() == m_diff.changes.size()) {
        if (index.column() != PathColumn)
            return {};
        return tr("… and %n more", nullptr, int(std::min<qsizetype>(m_diff.omitted, INT_MAX)));
    }
    const JsonChange &change = m_diff.changes.at(index.row());
    QString text;
    switch (index.column()) {
    case PathColumn:
        text = change.path.isEmpty() ? tr("(whole document)") : change.path;
        break;
    case ChangeColumn:
        switch (change.kind) {
        case JsonChange::Added:
            return tr("Added");
        case JsonChange::Removed:
            return tr("Removed");
        case JsonChange::Changed:
            return tr("Changed");
        }
        return {};
    case BeforeColumn:
        text = compactValue(change.before);
        break;
    case AfterColumn:
        text = compactValue(change.after);
        break;
    default:
        return {};
    }
    const QString shown = AgentLoop::displayedLine(text, maxValueLength);
    return role == Qt::ToolTipRole ? QVariant(plainToolTip(shown)) : QVariant(shown);
}

QVariant JsonDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PathColumn:
        return tr("Path");
    case ChangeColumn:
        return tr("Change");
    case BeforeColumn:
        return tr("Original");
    case AfterColumn:
        return tr("New");
    default:
        return {};
    }
}

ReplayDialog::ReplayDialog(const AgentLoop::Exchange &original,
                           const AgentLoop::ProviderSettings &provider,
                           bool demo,
                           QWidget *parent)
    : QDialog(parent)
    , m_originalExchange(original)
    , m_client(new AgentLoop::ChatClient(this))
    , m_editor(new QPlainTextEdit(this))
    , m_problems(new QLabel(this))
    , m_send(new QPushButton(tr("&Send"), this))
    , m_stop(new QPushButton(tr("S&top"), this))
    , m_original(newBodyView(u"originalResponseView"_s, tr("Original response"), this, true))
    , m_resent(newBodyView(u"newResponseView"_s, tr("New response"), this, true))
    , m_result(new QLabel(this))
    , m_diffTable(new QTableView(this))
    , m_diffModel(new JsonDiffModel(this))
{
    setObjectName(u"replayDialog"_s);
    setWindowTitle(tr("Edit and Resend Request %1").arg(original.turn));
    setAttribute(Qt::WA_DeleteOnClose);
    m_client->setSettings(provider);
    if (demo)
        m_client->setNetworkAccessManager(new AgentLoop::DemoNetworkAccessManager(m_client));

    m_editor->setObjectName(u"replayEditor"_s);
    m_editor->setAccessibleName(tr("Request body to send"));
    m_editor->setToolTip(tr("The request's exact JSON body; edit it, then send it on its own. "
                            "The conversation is not changed."));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_editor->setTabChangesFocus(false);
    m_editor->setPlainText(editableJson(prettyJson(original.requestBody)));
    m_editorHighlighter = new JsonHighlighter(m_editor->document());
    m_originalHighlighter = new JsonHighlighter(m_original->document());
    m_resentHighlighter = new JsonHighlighter(m_resent->document());

    m_problems->setObjectName(u"replayProblems"_s);
    m_problems->setTextFormat(Qt::PlainText);
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setAccessibleName(tr("Problems of the request body"));

    m_send->setObjectName(u"replaySendButton"_s);
    m_send->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_send->setToolTip(tr("Send this body to the provider as a side request (Ctrl+Enter)"));
    m_send->setAutoDefault(false);
    m_stop->setObjectName(u"replayStopButton"_s);
    m_stop->setToolTip(tr("Abandon the side request"));
    m_stop->setAutoDefault(false);

    m_original->setPlainText(shownResponse(original));
    m_original->setPlaceholderText(tr("The original request got no response body."));
    m_resent->setPlaceholderText(tr("Send the request to see its response here."));

    m_result->setObjectName(u"replayResult"_s);
    m_result->setTextFormat(Qt::PlainText);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_diffTable->setObjectName(u"replayDiffTable"_s);
    m_diffTable->setAccessibleName(tr("Differences between the responses"));
    setUpRecordTable(m_diffTable);
    m_diffTable->setModel(m_diffModel);
    m_diffTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_diffTable->horizontalHeader()->setStretchLastSection(true);
    m_diffTable->setColumnWidth(JsonDiffModel::PathColumn, 260);
    m_diffTable->setColumnWidth(JsonDiffModel::ChangeColumn, 90);
    m_diffTable->setColumnWidth(JsonDiffModel::BeforeColumn, 260);

    auto *editorPage = new QWidget(this);
    auto *editorLayout = new QVBoxLayout(editorPage);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    auto *editorLabel = new QLabel(tr("&Request body:"), editorPage);
    editorLabel->setBuddy(m_editor);
    editorLayout->addWidget(editorLabel);
    editorLayout->addWidget(m_editor, 1);
    editorLayout->addWidget(m_problems);

    const auto column = [this](QPlainTextEdit *view, const QString &title) {
        auto *page = new QWidget(this);
        auto *layout = new QVBoxLayout(page);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(new QLabel(title, page));
        layout->addWidget(view, 1);
        return page;
    };
    auto *responses = new QSplitter(Qt::Horizontal, this);
    responses->setObjectName(u"replayResponses"_s);
    responses->setChildrenCollapsible(false);
    responses->addWidget(column(m_original, tr("Original response")));
    responses->addWidget(column(m_resent, tr("New response")));

    auto *resultPage = new QWidget(this);
    auto *resultLayout = new QVBoxLayout(resultPage);
    resultLayout->setContentsMargins(0, 0, 0, 0);
    resultLayout->addWidget(responses, 3);
    resultLayout->addWidget(m_result);
    resultLayout->addWidget(m_diffTable, 2);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(u"replaySplitter"_s);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(editorPage);
    splitter->addWidget(resultPage);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_send, QDialogButtonBox::ActionRole);
    buttons->addButton(m_stop, QDialogButtonBox::ActionRole);
    QPushButton *close = buttons->addButton(QDialogButtonBox::Close);
    close->setToolTip(tr("Close; a side request still going is abandoned"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_send, &QPushButton::clicked, this, &ReplayDialog::send);
    connect(m_stop, &QPushButton::clicked, this, &ReplayDialog::stop);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);
    resize(1100, 800);

    connect(m_client,
            &AgentLoop::ChatClient::responseReceived,
            this,
            [this](const AgentLoop::Exchange &exchange) { m_reply = exchange; });
    connect(m_client, &AgentLoop::ChatClient::retryScheduled, this, [this](const QString &notice) {
        m_result->setText(AgentLoop::displayedLine(notice));
    });
    connect(m_client, &AgentLoop::ChatClient::completed, this, [this] {
        showReply();
        updateButtons();
    });
    connect(m_client, &AgentLoop::ChatClient::failed, this, [this](const AgentLoop::Error &error) {
        showFailure(error);
        updateButtons();
    });

    m_checkTimer.setSingleShot(true);
    m_checkTimer.setInterval(checkDelayMs);
    connect(&m_checkTimer, &QTimer::timeout, this, &ReplayDialog::startCheck);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &ReplayDialog::scheduleCheck);
    startCheck();
    updateButtons();
}

ReplayDialog::~ReplayDialog()
{
    m_client->abort();
}

QMessageBox *ReplayDialog::pendingWarning() const
{
    return m_warning;
}

bool ReplayDialog::isSending() const
{
    return m_client->isBusy();
}

void ReplayDialog::scheduleCheck()
{
    ++m_checkSerial; // a check still running is stale now
    m_check.reset();
    m_problems->setText(tr("Checking…"));
    updateButtons();
    m_checkTimer.start();
}

void ReplayDialog::startCheck()
{
    const quint64 serial = ++m_checkSerial;
    QByteArray body = m_editor->toPlainText().toUtf8();
    if (body.size() <= backgroundCheckBytes) {
        showCheck(AgentLoop::checkRequestBody(body));
        return;
    }
    AgentLoop::whenFinished(AgentLoop::runInBackground<RequestCheck>(
                                    [body = std::move(body)](const QPromise<RequestCheck> &) {
                                        return AgentLoop::checkRequestBody(body);
                                    }),
                            this,
                            [this, serial](RequestCheck check) {
                                if (serial == m_checkSerial)
                                    showCheck(std::move(check));
                            });
}

void ReplayDialog::showCheck(RequestCheck check)
{
    QStringList lines;
    for (const RequestProblem &problem : check.problems)
        lines.append(AgentLoop::displayedLine(problem.message, 500));
    constexpr qsizetype maxLines = 8;
    if (lines.size() > maxLines) {
        const qsizetype more = lines.size() - maxLines;
        lines.resize(maxLines);
        lines.append(tr("… and %n more problems", nullptr, int(more)));
    }
    if (check.isValid())
        m_problems->setText(tr("The body is a valid request."));
    else if (check.hasSyntaxError())
        m_problems->setText(tr("Not JSON, cannot be sent: %1").arg(lines.join(u'\n')));
    else
        m_problems->setText(lines.join(u'\n'));
    m_check = std::move(check);
    updateButtons();
    emit checked();
}

void ReplayDialog::updateButtons()
{
    const bool busy = isSending();
    m_send->setEnabled(!busy && m_check && !m_check->hasSyntaxError());
    m_stop->setEnabled(busy);
    m_editor->setReadOnly(busy);
}

void ReplayDialog::send()
{
    if (isSending() || m_warning)
        return;
    if (!m_check || m_checkTimer.isActive()) {
        // Typed a moment ago: check now, whatever the size, before anything goes out.
        m_checkTimer.stop();
        ++m_checkSerial;
        showCheck(AgentLoop::checkRequestBody(m_editor->toPlainText().toUtf8()));
    }
    if (m_check->hasSyntaxError())
        return;
    if (m_check->isValid()) {
        sendNow();
        return;
    }
    m_warning = new QMessageBox(QMessageBox::Warning,
                                tr("Send a Broken Request?"),
                                tr("This body is not a valid Chat Completions request:\n\n%1\n\n"
                                   "The provider will probably refuse it. Send it anyway?")
                                        .arg(m_problems->text()),
                                QMessageBox::NoButton,
                                this);
    m_warning->setObjectName(u"replayWarning"_s);
    m_warning->setTextFormat(Qt::PlainText);
    QPushButton *sendAnyway = m_warning->addButton(tr("Send &Anyway"), QMessageBox::AcceptRole);
    m_warning->addButton(QMessageBox::Cancel);
    m_warning->setDefaultButton(QMessageBox::Cancel);
    m_warning->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_warning, &QMessageBox::finished, this, [this, sendAnyway] {
        if (m_warning && m_warning->clickedButton() == sendAnyway)
            sendNow();
    });
    m_warning->open();
}

void ReplayDialog::sendNow()
{
    m_reply.reset();
    m_resent->clear();
    m_diffModel->setDiff({});
    m_result->setText(tr("Sending…"));
    m_client->postChatCompletion(m_originalExchange.turn, m_editor->toPlainText().toUtf8());
    updateButtons();
}

void ReplayDialog::stop()
{
    if (!isSending())
        return;
    m_client->abort();
    m_result->setText(tr("Stopped: the side request was abandoned."));
    updateButtons();
}

void ReplayDialog::showReply()
{
    if (!m_reply)
        return;
    m_resent->setPlainText(shownResponse(*m_reply));
    const AgentLoop::ComparedResponses compared = AgentLoop::comparableResponses(m_originalExchange,
                                                                                 *m_reply);
    const AgentLoop::JsonDiff diff = AgentLoop::diffJson(compared.before, compared.after);
    m_diffModel->setDiff(diff);
    const qsizetype count = diff.changes.size() + diff.omitted;
    // English has no catalogue to pick a plural form from: a source for one, %n for more.
    QString text = diff.isEmpty() ? tr("The responses are the same.")
                   : count == 1   ? tr("1 difference.")
                                  : tr("%n differences.",
                                     nullptr,
                                     int(std::min<qsizetype>(count, INT_MAX)));
    if (compared.messagesOnly)
        text += u' ' + tr("A stream is compared by its assembled message.");
    m_result->setText(
            tr("HTTP %1 in %2 ms. %3").arg(m_reply->httpStatus).arg(m_reply->durationMs).arg(text));
    emit replyShown();
}

void ReplayDialog::showFailure(const AgentLoop::Error &error)
{
    // An HTTP error has a body too: it is shown and compared like any answer.
    const QString reason = AgentLoop::displayedLine(error.message, 500);
    if (m_reply && m_reply->httpStatus != 0) {
        showReply();
        m_result->setText(tr("The side request failed: %1").arg(reason) + u'\n' + m_result->text());
    } else {
        m_result->setText(tr("The side request failed: %1").arg(reason));
        emit replyShown();
    }
}

void ReplayDialog::done(int result)
{
    m_client->abort();
    if (m_warning)
        m_warning->close();
    QDialog::done(result);
}

void ReplayDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        for (JsonHighlighter *highlighter :
             {m_editorHighlighter, m_originalHighlighter, m_resentHighlighter})
            highlighter->setPalette(palette());
    }
}

} // namespace Gui
