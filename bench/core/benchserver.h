#pragma once

#include <QByteArray>
#include <QTcpServer>

namespace AgentLoop::Bench {

// A minimal HTTP/1.1 server on 127.0.0.1 for the stream case: every POST whose path ends in
// /chat/completions is answered with the same SSE body, chunked (16 KiB chunks), as fast as the
// client reads it, then the connection is closed. Anything else gets 404.
class BenchServer final : public QTcpServer
{
    Q_OBJECT
public:
    explicit BenchServer(QByteArray sseBody, QObject *parent = nullptr);

    bool listenOnLoopback(quint16 port = 0);

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    QByteArray m_chunked; // the whole response body, already in chunked transfer encoding
};

} // namespace AgentLoop::Bench
