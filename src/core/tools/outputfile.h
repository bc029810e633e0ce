#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QFile>
#include <QString>

namespace AgentLoop {

// A file with the whole output of a command whose result shows only its head and tail.
struct OutputFile
{
    QString path;          // empty when no file was written
    qint64 bytes = 0;      // of the command's output in the file, the size cap's note not counted
    bool complete = false; // the file holds everything the command printed
    QString problem;       // why not complete, or why there is no file; English, for the model

    bool isEmpty() const { return path.isEmpty() && problem.isEmpty(); }
};

// The whole output of one command, stdout and stderr in the order their reads arrived, written to
// `<directory>/<stem>.log` once start() says it outgrew the result. Until then the bytes wait in
// memory (no more than the result keeps), so a short output leaves no file behind. Each append is
// one buffered write into the system's cache, which keeps the event loop responsive (bench case
// 4). Writing stops at maxBytes, with a note at the end of the file, or at the first error; the
// command is never affected.
class OutputFileWriter final
{
public:
    OutputFileWriter() = default; // disabled: keeps and writes nothing
    OutputFileWriter(QString directory, QString stem, qint64 maxBytes);

    bool isEnabled() const { return !m_directory.isEmpty(); }
    bool isStarted() const { return m_started; }
    void append(QByteArrayView bytes);
    // Creates the file (a new name if it exists) and writes what was kept so far.
    void start();
    // Closes the file; a run that never started leaves an empty OutputFile.
    OutputFile finish();

    // The size cap's note, the last line of a file that was cut: English, like the result.
    static QByteArray capNote(qint64 maxBytes);
    // A call id as a file name: letters, digits, '-' and '_' only, never empty or a path.
    static QString safeStem(const QString &text);

private:
    void write(QByteArrayView bytes);
    QString writeProblem() const;
    void stop(const QString &problem);

    QString m_directory;
    QString m_stem;
    qint64 m_maxBytes = 0;
    bool m_started = false;
    QByteArray m_pending; // before start()
    QFile m_file;
    OutputFile m_result;
};

} // namespace AgentLoop
