#include "rawoutputdialog.h"

#include "base/background.h"
#include "base/displaytext.h"
#include "showntext.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using AgentLoop::DecodedRows;
using AgentLoop::RawStream;
using AgentLoop::StreamDecoding;

namespace Gui {

namespace {

// Of the decoded text, the text view and the correction show at most this much.
constexpr qsizetype shownTextLimit = 256 * 1024;
constexpr qsizetype correctionTextLimit = 20000;

QFont monospaceFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const QFontMetricsF metrics(font);
    if (!qFuzzyCompare(metrics.horizontalAdvance(u"iiii"_s), metrics.horizontalAdvance(u"MMMM"_s))) {
        font.setFamily(u"monospace"_s);
        font.setStyleHint(QFont::TypeWriter);
        font.setFixedPitch(true);
    }
    return font;
}

struct Decoded
{
    DecodedRows rows;
    QString text;
};

} // namespace

void HexDumpModel::setBytes(QByteArray bytes)
{
    beginResetModel();
    m_bytes = std::move(bytes);
    m_rows = {};
    endResetModel();
}

void HexDumpModel::setRows(AgentLoop::DecodedRows rows)
{
    m_rows = std::move(rows);
    if (rowCount() > 0)
        emit dataChanged(index(0, TextColumn), index(rowCount() - 1, TextColumn));
}

int HexDumpModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int((m_bytes.size() + rowBytes - 1) / rowBytes);
}

int HexDumpModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HexDumpModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::AccessibleTextRole)
        return {};
    const qsizetype start = qsizetype(index.row()) * rowBytes;
    const QByteArrayView row = QByteArrayView(m_bytes).sliced(start,
                                                              std::min(rowBytes,
                                                                       m_bytes.size() - start));
    switch (index.column()) {
    case OffsetColumn:
        return u"%1"_s.arg(start, 8, 16, QChar(u'0'));
    case HexColumn: {
        QString hex;
        hex.reserve(rowBytes * 3 + 1);
        for (qsizetype i = 0; i < row.size(); ++i) {
            if (i > 0)
                hex += i == rowBytes / 2 ? u"  "_s : u" "_s;
            hex += u"%1"_s.arg(uchar(row.at(i)), 2, 16, QChar(u'0'));
        }
        return hex;
    }
    case TextColumn:
        if (index.row() + 1 >= m_rows.rowStarts.size())
            return {};
        // One line per row: line breaks and tabs are escapes too.
        return AgentLoop::displayedLine(m_rows.row(index.row()).toString());
    default:
        return {};
    }
}

QVariant HexDumpModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case OffsetColumn:
        return tr("Offset");
    case HexColumn:
        return tr("Bytes (hex)");
    case TextColumn:
        return tr("Text");
    default:
        return {};
    }
}

RawOutputDialog::RawOutputDialog(std::shared_ptr<const AgentLoop::RunRecord> record,
                                 QString toolCallId,
                                 QWidget *parent)
    : QDialog(parent)
    , m_record(std::move(record))
    , m_toolCallId(std::move(toolCallId))
    , m_tabs(new QTabWidget(this))
    , m_launch(new QPlainTextEdit(this))
    , m_encoding(new QComboBox(this))
    , m_correct(new QPushButton(tr("&Send correction to the model…"), this))
{
    setWindowTitle(tr("Raw output of %1").arg(AgentLoop::displayedLine(m_record->command, 80)));
    setObjectName(u"rawOutputDialog"_s);
    resize(960, 640);

    m_streams[0].raw = &m_record->standardOutput;
    m_streams[1].raw = &m_record->standardError;
    m_tabs->addTab(streamPage(m_streams[0], tr("Standard output")), tr("Standard &output"));
    m_tabs->addTab(streamPage(m_streams[1], tr("Standard error")), tr("Standard &error"));
    m_launch->setReadOnly(true);
    m_launch->setFont(monospaceFont());
    m_launch->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_launch->setPlainText(launchText());
    m_launch->setAccessibleName(tr("What was launched"));
    m_tabs->addTab(m_launch, tr("&Launch"));
    m_tabs->setAccessibleName(tr("Streams and launch"));
    // The stream that printed something first.
    if (m_record->standardOutput.totalBytes == 0 && m_record->standardError.totalBytes > 0)
        m_tabs->setCurrentIndex(1);

    const QString automatic = m_record->standardOutput.decoding.encoding.isEmpty()
                                      ? m_record->standardError.decoding.encoding
                                      : m_record->standardOutput.decoding.encoding;
    m_encoding->addItem(automatic.isEmpty() ? tr("As the model read it")
                                            : tr("As the model read it (%1)").arg(automatic),
                        QString());
    for (const AgentLoop::EncodingChoice &choice : AgentLoop::availableEncodings())
        m_encoding->addItem(choice.label, choice.encoding);
    m_encoding->setToolTip(tr("Show the bytes decoded in another encoding"));
    m_encoding->setAccessibleName(tr("Decode as"));
    auto *encodingLabel = new QLabel(tr("&Decode as:"), this);
    encodingLabel->setBuddy(m_encoding);
    connect(m_encoding, &QComboBox::currentIndexChanged, this, &RawOutputDialog::decode);

    m_correct->setObjectName(u"sendCorrectionButton"_s);
    m_correct->setToolTip(tr("Put the output, decoded as shown, into the prompt box as a "
                             "correction for the model; it is sent with your next message"));
    m_correct->setEnabled(false);
    connect(m_correct, &QPushButton::clicked, this, &RawOutputDialog::confirmCorrection);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(encodingLabel);
    bottom->addWidget(m_encoding);
    bottom->addWidget(m_correct);
    bottom->addStretch(1);
    bottom->addWidget(buttons);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs, 1);
    layout->addLayout(bottom);

    decode();
}

QWidget *RawOutputDialog::streamPage(Stream &stream, const QString &name)
{
    auto *page = new QWidget(this);
    stream.summary = new QLabel(page);
    stream.summary->setWordWrap(true);
    stream.summary->setTextFormat(Qt::PlainText);
    stream.summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    stream.model = new HexDumpModel(page);
    stream.model->setBytes(stream.raw->bytes());
    stream.table = new QTableView(page);
    stream.table->setModel(stream.model);
    stream.table->setFont(monospaceFont());
    stream.table->setAccessibleName(tr("%1 in hex and as text").arg(name));
    stream.table->setToolTip(tr("The bytes as the command wrote them, 16 a row, and the "
                                "characters they decode to"));
    stream.table->verticalHeader()->hide();
    // Fixed sizes: measuring every row of a large output would hold the window up.
    const QFontMetrics metrics(stream.table->font());
    stream.table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    stream.table->verticalHeader()->setDefaultSectionSize(metrics.height() + 4);
    QHeaderView *header = stream.table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Fixed);
    header->resizeSection(HexDumpModel::OffsetColumn, metrics.horizontalAdvance(u"00000000"_s) + 16);
    header->resizeSection(HexDumpModel::HexColumn,
                          metrics.horizontalAdvance(QString(49, u'0')) + 16);
    header->setStretchLastSection(true);
    stream.table->setWordWrap(false);
    stream.table->setSelectionBehavior(QAbstractItemView::SelectRows);

    stream.text = new QPlainTextEdit(page);
    stream.text->setReadOnly(true);
    stream.text->setFont(monospaceFont());
    stream.text->setAccessibleName(tr("%1 as decoded text").arg(name));
    stream.text->setToolTip(tr("The whole text in the chosen encoding; control and invisible "
                               "characters are shown as ⟨U+XXXX⟩"));

    auto *splitter = new QSplitter(Qt::Vertical, page);
    splitter->addWidget(stream.table);
    splitter->addWidget(stream.text);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(stream.summary);
    layout->addWidget(splitter, 1);
    return page;
}

HexDumpModel *RawOutputDialog::hexModel(int stream) const
{
    return m_streams[stream].model;
}

QPlainTextEdit *RawOutputDialog::textView(int stream) const
{
    return m_streams[stream].text;
}

QString RawOutputDialog::chosenEncoding() const
{
    return m_encoding->currentData().toString();
}

QString RawOutputDialog::decodingReason(const StreamDecoding &decoding,
                                        const AgentLoop::RunRecord &record)
{
    switch (decoding.basis) {
    case StreamDecoding::Basis::NoOutput:
        return tr("Nothing was printed on this stream.");
    case StreamDecoding::Basis::ValidUtf8:
        return tr("Decoded for the model as UTF-8: every byte was valid UTF-8, which the shell is "
                  "told to write.");
    case StreamDecoding::Basis::Utf8Bom:
        return tr("Decoded for the model as UTF-8: it began with a UTF-8 byte order mark (EF BB "
                  "BF), which was dropped.");
    case StreamDecoding::Basis::Utf16Bom:
        return tr("Decoded for the model as %1: it began with a UTF-16 byte order mark.")
                .arg(decoding.encoding);
    case StreamDecoding::Basis::Utf16Zeros:
        return tr("Decoded for the model as %1: every other byte of its beginning was zero, as in "
                  "UTF-16 text without a byte order mark.")
                .arg(decoding.encoding);
    case StreamDecoding::Basis::LegacyLines:
        return tr("Decoded for the model line by line: lines that were not valid UTF-8 as %1, the "
                  "system's code page, the others as UTF-8.")
                .arg(decoding.encoding);
    case StreamDecoding::Basis::InvalidUtf8:
        return record.legacyEncoding.isEmpty()
                       ? tr("Decoded for the model as UTF-8, though it was not valid UTF-8: the "
                            "system has no other code page to try, so invalid bytes became "
                            "U+FFFD.")
                       : tr("Decoded for the model as UTF-8, though it was not valid UTF-8: "
                            "invalid bytes became U+FFFD.");
    }
    return {};
}

QString RawOutputDialog::launchText() const
{
    const AgentLoop::RunRecord &r = *m_record;
    QStringList lines;
    lines << tr("Shell: %1").arg(AgentLoop::displayedLine(r.shellName));
    lines << tr("Program: %1").arg(AgentLoop::displayedLine(r.program));
    if (!r.nativeArguments.isEmpty()) {
        lines << tr("Command line (as given to the process, unquoted):")
              << u"  "_s + AgentLoop::displayedLine(r.nativeArguments);
    } else {
        lines << tr("Arguments, each as given to the process:");
        for (qsizetype i = 0; i < r.arguments.size(); ++i)
            lines << u"  [%1] %2"_s.arg(i).arg(AgentLoop::displayedLine(r.arguments.at(i)));
    }
    lines << tr("Working directory: %1")
                     .arg(AgentLoop::displayedLine(QDir::toNativeSeparators(r.workingDirectory)));
    if (r.environment.isEmpty()) {
        lines << tr("Environment: the app's own, unchanged");
    } else {
        lines << tr("Environment changes against the app's own:");
        for (const AgentLoop::EnvironmentChange &change : r.environment) {
            const QString name = AgentLoop::displayedLine(change.name);
            switch (change.kind) {
            case AgentLoop::EnvironmentChange::Removed:
                lines << tr("  - %1 (removed)").arg(name);
                continue;
            case AgentLoop::EnvironmentChange::Added:
            case AgentLoop::EnvironmentChange::Changed:
                break;
            }
            const QString sign = change.kind == AgentLoop::EnvironmentChange::Added ? u"+"_s
                                                                                    : u"~"_s;
            lines << (change.valueHidden
                              ? tr("  %1 %2 (value hidden)").arg(sign, name)
                              : u"  %1 %2=%3"_s.arg(sign,
                                                    name,
                                                    AgentLoop::displayedLine(change.value, 400)));
        }
    }
    if (!r.legacyEncoding.isEmpty())
        lines << tr("System code page for lines that are not UTF-8: %1").arg(r.legacyEncoding);
    if (!r.script.isEmpty()) {
        lines << QString() << tr("Script file it ran (UTF-8 with a byte order mark), decoded:");
        lines << AgentLoop::displayed(r.script);
    }
    return lines.join(u'\n');
}

void RawOutputDialog::decode()
{
    const QString encoding = chosenEncoding();
    const quint64 generation = ++m_generation;
    m_correct->setEnabled(false);
    m_pending = 2;
    for (int i = 0; i < 2; ++i) {
        Stream &stream = m_streams[i];
        const RawStream &raw = *stream.raw;
        // Two sources rather than %n: English has no catalogue to pick a plural form from.
        QString summary;
        if (raw.totalBytes > 0)
            summary = tr("Printed %1 in %2.")
                              .arg(QLocale().formattedDataSize(raw.totalBytes,
                                                               2,
                                                               QLocale::DataSizeTraditionalFormat),
                                   raw.chunks.size() == 1
                                           ? tr("one read")
                                           : tr("%1 reads")
                                                     .arg(QLocale().toString(
                                                             qsizetype(raw.chunks.size()))));
        if (raw.droppedBytes > 0)
            summary += u" "_s
                       + tr("Only the first %1 are kept here; %2 more were not (the full output "
                            "file has them).")
                                 .arg(QLocale().formattedDataSize(raw.totalBytes - raw.droppedBytes),
                                      QLocale().formattedDataSize(raw.droppedBytes));
        if (!raw.chunks.isEmpty())
            summary += u" "_s
                       + tr("The last read arrived %1 ms after the start.")
                                 .arg(raw.chunks.constLast().atMs);
        summary += u" "_s + decodingReason(raw.decoding, *m_record);
        if (raw.clixml)
            summary += u" "_s
                       + tr("PowerShell's CLIXML error records were turned into plain lines.");
        stream.summary->setText(summary.trimmed());

        const QByteArray bytes = stream.model->bytes();
        const StreamDecoding decoding = raw.decoding;
        const QString legacy = m_record->legacyEncoding;
        const bool clixml = raw.clixml;
        AgentLoop::whenFinished(
                AgentLoop::runInBackground<Decoded>([bytes, encoding, decoding, legacy, clixml](
                                                            const QPromise<Decoded> &) {
                    Decoded decoded;
                    decoded.rows = AgentLoop::decodeRows(bytes,
                                                         HexDumpModel::rowBytes,
                                                         encoding,
                                                         decoding,
                                                         legacy);
                    decoded.text = encoding.isEmpty()
                                           ? AgentLoop::decodeOutput(bytes, legacy, clixml).text
                                           : decoded.rows.text;
                    return decoded;
                }),
                this,
                [this, i, generation](const Decoded &decoded) {
                    if (generation != m_generation)
                        return; // another encoding was chosen meanwhile
                    Stream &target = m_streams[i];
                    target.model->setRows(decoded.rows);
                    target.decoded = decoded.text;
                    const ShownText shown = shownText(decoded.text, shownTextLimit);
                    QString text = shown.text;
                    if (shown.cutBytes > 0)
                        text += u"\n"_s
                                + tr("[%1 more not shown]")
                                          .arg(QLocale().formattedDataSize(shown.cutBytes));
                    target.text->setPlainText(text);
                    if (--m_pending == 0)
                        m_correct->setEnabled(!chosenEncoding().isEmpty()
                                              && (m_streams[0].raw->totalBytes > 0
                                                  || m_streams[1].raw->totalBytes > 0));
                });
    }
}

QString RawOutputDialog::correctionText() const
{
    // For the model: English, like every tool result. The text goes through the one sanitiser:
    // the prompt box shows it, and what it shows is what is sent.
    const QString label = m_encoding->currentText();
    QString text = u"Correction to the result of the shell call %1 (`%2`): its output was decoded "
                   u"with the wrong encoding. Decoded as %3 instead, it reads:"_s
                           .arg(m_toolCallId,
                                AgentLoop::displayedLine(m_record->command, 200),
                                label);
    const char *names[] = {"standard output", "standard error"};
    for (int i = 0; i < 2; ++i) {
        const Stream &stream = m_streams[i];
        if (stream.raw->totalBytes == 0)
            continue;
        AgentLoop::DisplayOptions options;
        options.maxLength = correctionTextLimit;
        const AgentLoop::DisplayText shown = AgentLoop::displayText(withLineFeeds(stream.decoded),
                                                                    options);
        text += u"\n\n%1:\n```\n%2\n```"_s.arg(QLatin1StringView(names[i]), shown.text);
        if (shown.cutCharacters > 0 || stream.raw->droppedBytes > 0)
            text += u"\n[... the rest of the %1 is not included]"_s.arg(QLatin1StringView(names[i]));
    }
    return text;
}

void RawOutputDialog::confirmCorrection()
{
    auto *box = new QMessageBox(QMessageBox::Question,
                                tr("Send correction to the model"),
                                tr("Tell the model that this command's output reads as decoded "
                                   "with %1?")
                                        .arg(m_encoding->currentText()),
                                QMessageBox::Yes | QMessageBox::Cancel,
                                this);
    box->setInformativeText(tr("The tool result it has already read cannot be changed. The "
                               "re-decoded text is put into the prompt box as a correction, and "
                               "reaches the model with your next message."));
    box->setDefaultButton(QMessageBox::Cancel);
    box->button(QMessageBox::Yes)->setText(tr("Put into the &prompt"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box](int) {
        if (box->clickedButton() == box->button(QMessageBox::Yes)) {
            emit correctionRequested(correctionText());
            accept();
        }
    });
    box->open();
}

} // namespace Gui
