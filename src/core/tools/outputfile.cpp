#include "tools/outputfile.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace AgentLoop {

OutputFileWriter::OutputFileWriter(QString directory, QString stem, qint64 maxBytes)
    : m_directory(std::move(directory))
    , m_stem(safeStem(stem))
    , m_maxBytes(std::max<qint64>(maxBytes, 0))
{}

QByteArray OutputFileWriter::capNote(qint64 maxBytes)
{
    return "\n[agentloop: the output file stops here, at its size limit of "
           + QByteArray::number(maxBytes) + " bytes; the command printed more.]\n";
}

QString OutputFileWriter::safeStem(const QString &text)
{
    QString stem;
    for (const QChar c : text.left(64)) {
        const bool safe = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z')
                          || (c >= u'0' && c <= u'9') || c == u'-' || c == u'_';
        stem.append(safe ? c : u'_');
    }
    return stem.isEmpty() ? u"output"_s : stem;
}

void OutputFileWriter::append(QByteArrayView bytes)
{
    if (!isEnabled() || bytes.isEmpty())
        return;
    if (m_started)
        write(bytes);
    else
        m_pending.append(bytes);
}

void OutputFileWriter::start()
{
    if (!isEnabled() || m_started)
        return;
    m_started = true;
    const QByteArray pending = std::exchange(m_pending, {});
    if (!QDir().mkpath(m_directory)) {
        m_result.problem = u"cannot create the folder %1"_s.arg(
                QDir::toNativeSeparators(m_directory));
        return;
    }
    const QDir directory(m_directory);
    for (int attempt = 1; attempt <= 100 && !m_file.isOpen(); ++attempt) {
        const QString name = attempt == 1 ? m_stem : u"%1-%2"_s.arg(m_stem).arg(attempt);
        m_file.setFileName(directory.filePath(name + u".log"_s));
        // NewOnly: a call id a provider reuses never overwrites an earlier call's output.
        if (!m_file.open(QIODevice::WriteOnly | QIODevice::NewOnly)
            && !QFileInfo::exists(m_file.fileName())) {
            break;
        }
    }
    if (!m_file.isOpen()) {
        m_result.problem = u"cannot create %1: %2"_s.arg(QDir::toNativeSeparators(m_file.fileName()),
                                                         m_file.errorString());
        return;
    }
    m_result.path = m_file.fileName();
    write(pending);
}

void OutputFileWriter::write(QByteArrayView bytes)
{
    if (!m_file.isOpen())
        return; // stopped: capped, or an error
    const qint64 room = m_maxBytes - m_result.bytes;
    const QByteArrayView part = bytes.first(std::min<qint64>(bytes.size(), room));
    if (m_file.write(part.data(), part.size()) != part.size()) {
        stop(writeProblem());
        return;
    }
    m_result.bytes += part.size();
    if (part.size() < bytes.size()) {
        m_file.write(capNote(m_maxBytes));
        stop(u"the file stops at its size limit of %1 bytes"_s.arg(m_maxBytes));
    }
}

QString OutputFileWriter::writeProblem() const
{
    return u"writing %1 failed: %2"_s.arg(QDir::toNativeSeparators(m_result.path),
                                          m_file.errorString());
}

void OutputFileWriter::stop(const QString &problem)
{
    m_result.problem = problem;
    m_file.close();
}

OutputFile OutputFileWriter::finish()
{
    m_pending.clear();
    if (m_file.isOpen()) {
        // Buffered bytes meet a full disk here at the latest.
        if (!m_file.flush()) {
            m_result.problem = writeProblem();
        }
        m_file.close();
    }
    m_result.complete = !m_result.path.isEmpty() && m_result.problem.isEmpty();
    return m_result;
}

} // namespace AgentLoop
