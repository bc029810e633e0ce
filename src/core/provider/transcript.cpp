#include "provider/transcript.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace AgentLoop {

namespace {

struct TranscriptText
{
    Q_DECLARE_TR_FUNCTIONS(Transcript)
};

QJsonValue bodyValue(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error == QJsonParseError::NoError)
        return document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array());
    return QString::fromUtf8(body);
}

QJsonObject headersValue(const HeaderList &headers)
{
    QJsonObject object;
    for (const auto &[name, value] : headers)
        object.insert(QString::fromLatin1(name), QString::fromUtf8(value));
    return object;
}

} // namespace

Result<void> TranscriptWriter::open(const QString &path)
{
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return Error{Error::Io,
                     TranscriptText::tr("Cannot write the transcript %1: %2")
                             .arg(QDir::toNativeSeparators(path), m_file.errorString()),
                     TranscriptText::tr("Choose a file in a folder you can write to.")};
    }
    return {};
}

Result<void> TranscriptWriter::write(const Exchange &exchange)
{
    QJsonObject line{
            {u"turn"_s, exchange.turn},
            {u"method"_s, QString::fromLatin1(exchange.method)},
            {u"url"_s, exchange.url.toString()},
            {u"startedAt"_s, exchange.startedAt.toString(Qt::ISODateWithMs)},
            {u"status"_s, exchange.httpStatus},
            {u"durationMs"_s, exchange.durationMs},
            {u"firstByteMs"_s, exchange.firstByteMs},
            {u"requestHeaders"_s, headersValue(exchange.requestHeaders)},
            {u"request"_s, bodyValue(exchange.requestBody)},
            {u"response"_s, bodyValue(exchange.responseBody)},
    };
    if (!exchange.errorString.isEmpty())
        line.insert(u"error"_s, exchange.errorString);
    const QByteArray bytes = QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';
    if (m_file.write(bytes) != bytes.size() || !m_file.flush()) {
        return Error{Error::Io,
                     TranscriptText::tr("Cannot write the transcript %1: %2")
                             .arg(QDir::toNativeSeparators(m_file.fileName()), m_file.errorString()),
                     {}};
    }
    return {};
}

} // namespace AgentLoop
