#pragma once

#include "tools/runrecord.h"

#include <QAbstractTableModel>
#include <QDialog>

#include <memory>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;

namespace Gui {

// A hex dump of one stream, 16 bytes a row: the offset, the bytes in hex, and the characters
// those bytes decode to (shown through displayedLine(), so that controls, bidi and invisible
// characters are visible escapes). Only the rows on screen are ever formatted.
class HexDumpModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    static constexpr qsizetype rowBytes = 16;
    enum Column { OffsetColumn, HexColumn, TextColumn, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setBytes(QByteArray bytes);
    void setRows(AgentLoop::DecodedRows rows);
    const QByteArray &bytes() const { return m_bytes; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QByteArray m_bytes;
    AgentLoop::DecodedRows m_rows; // for the current encoding; may lag behind a change
};

// "Show raw output…" of a command: what was launched (program and arguments exactly as given to
// the process, PowerShell's script, the working directory, what the environment changes), and per
// stream the bytes as they arrived, in hex and decoded side by side, the encoding the model's text
// was decoded with and why. "Decode as" shows the bytes in another encoding (decoded off the GUI
// thread), and "Send correction to the model" hands the re-decoded text on, after a confirmation,
// as correctionRequested().
class RawOutputDialog final : public QDialog
{
    Q_OBJECT
public:
    RawOutputDialog(std::shared_ptr<const AgentLoop::RunRecord> record,
                    QString toolCallId,
                    QWidget *parent = nullptr);

    QComboBox *encodingBox() const { return m_encoding; }
    QPushButton *correctionButton() const { return m_correct; }
    QTabWidget *tabs() const { return m_tabs; }
    HexDumpModel *hexModel(int stream) const;   // 0: standard output, 1: standard error
    QPlainTextEdit *textView(int stream) const; // the decoded text
    QPlainTextEdit *launchView() const { return m_launch; }
    // The encoding "Decode as" shows now; empty: the one the model's text was decoded with.
    QString chosenEncoding() const;
    // Whether the decoding of the current choice has arrived.
    bool isDecoded() const { return m_pending == 0; }

    // The message the model gets: which call, which encoding, and the re-decoded streams.
    QString correctionText() const;
    // Why the runner decoded a stream as it did, in the user's words.
    static QString decodingReason(const AgentLoop::StreamDecoding &decoding,
                                  const AgentLoop::RunRecord &record);

signals:
    void correctionRequested(const QString &text);

private:
    struct Stream
    {
        const AgentLoop::RawStream *raw = nullptr;
        HexDumpModel *model = nullptr;
        QTableView *table = nullptr;
        QPlainTextEdit *text = nullptr;
        QLabel *summary = nullptr;
        QString decoded; // the whole text for the current choice
    };

    QWidget *streamPage(Stream &stream, const QString &name);
    QString launchText() const;
    void decode();
    void confirmCorrection();

    std::shared_ptr<const AgentLoop::RunRecord> m_record;
    QString m_toolCallId;
    Stream m_streams[2];
    QTabWidget *m_tabs;
    QPlainTextEdit *m_launch;
    QComboBox *m_encoding;
    QPushButton *m_correct;
    int m_pending = 0;
    quint64 m_generation = 0;
};

} // namespace Gui
