#include "benchserver.h"

#include <QHostAddress>
#include <QTcpSocket>

namespace AgentLoop::Bench {

namespace {

constexpr qsizetype chunkSize = 16 * 1024;
constexpr qint64 maxBuffered = 1024 * 1024; // bytes queued in the socket before waiting

QByteArray encodeChunked(const QByteArray &body)
{
    QByteArray out;
    out.reserve(body.size() + body.size() / chunkSize * 12 + 16);
    for (qsizetype offset = 0; offset < body.size(); offset += chunkSize) {
        const qsizetype length = qMin(chunkSize, body.size() - offset);
        out.append(QByteArray::number(length, 16));
        out.append("\r\n");
        out.append(body.constData() + offset, length);
        out.append("\r\n");
    }
    out.append("0\r\n\r\n");
    return out;
}

// One connection: reads one request, then streams the response and closes.
class Connection final : public QObject
{
public:
    Connection(QTcpSocket *socket, const QByteArray &chunked)
        : QObject(socket)
        , m_socket(socket)
        , m_chunked(chunked)
    {
        connect(socket, &QTcpSocket::readyRead, this, &Connection::onReadyRead);
        connect(socket, &QTcpSocket::bytesWritten, this, &Connection::pump);
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

private:
    void onReadyRead()
    {
        m_request.append(m_socket->readAll());
        if (m_responding)
            return;
        const qsizetype headerEnd = m_request.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QByteArray head = m_request.left(headerEnd);
        qsizetype contentLength = 0;
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == "content-length")
                contentLength = line.mid(colon + 1).trimmed().toLongLong();
        }
        if (m_request.size() < headerEnd + 4 + contentLength)
            return; // the body is still arriving
        m_responding = true;
        const QList<QByteArray> requestLine = head.left(head.indexOf("\r\n")).split(' ');
        const bool isChat = requestLine.size() >= 2 && requestLine.at(0) == "POST"
                            && requestLine.at(1).endsWith("/chat/completions");
        if (!isChat) {
            m_socket->write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: "
                            "close\r\n\r\n");
            m_socket->disconnectFromHost();
            return;
        }
        m_socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: "
                        "no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        pump();
    }

    void pump()
    {
        if (!m_responding)
            return;
        while (m_offset < m_chunked.size() && m_socket->bytesToWrite() < maxBuffered) {
            const qsizetype length = qMin<qsizetype>(256 * 1024, m_chunked.size() - m_offset);
            m_socket->write(m_chunked.constData() + m_offset, length);
            m_offset += length;
        }
        if (m_offset >= m_chunked.size() && !m_closing) {
            m_closing = true;
            m_socket->disconnectFromHost(); // after the buffered bytes are written
        }
    }

    QTcpSocket *m_socket;
    const QByteArray &m_chunked;
    QByteArray m_request;
    qsizetype m_offset = 0;
    bool m_responding = false;
    bool m_closing = false;
};

} // namespace

BenchServer::BenchServer(QByteArray sseBody, QObject *parent)
    : QTcpServer(parent)
    , m_chunked(encodeChunked(sseBody))
{}

bool BenchServer::listenOnLoopback(quint16 port)
{
    return listen(QHostAddress::LocalHost, port);
}

void BenchServer::incomingConnection(qintptr socketDescriptor)
{
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    new Connection(socket, m_chunked);
}

} // namespace AgentLoop::Bench
