#pragma once

// Shared by agentloop-bench-gui and agentloop-bench-barewindow: the JSON line format, memory
// figures from /proc, an event-loop stall probe, and the "shown" signal of the start-up case.

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QTimer>
#include <QWidget>
#include <QWindow>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace Bench {

using namespace Qt::StringLiterals;

// One sample, one line on stdout: {"case","metric","unit","value","higherIsBetter"}.
inline void report(const QString &caseId,
                   const QString &metric,
                   const QString &unit,
                   double value,
                   bool higherIsBetter = false)
{
    const QJsonObject line{{u"case"_s, caseId},
                           {u"metric"_s, metric},
                           {u"unit"_s, unit},
                           {u"value"_s, value},
                           {u"higherIsBetter"_s, higherIsBetter}};
    const QByteArray bytes = QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), or -1.
inline qint64 procStatusKb(QByteArrayView field)
{
    QFile file(u"/proc/self/status"_s);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = file.readAll();
    for (const QByteArray &line : text.split('\n')) {
        if (line.startsWith(field) && line.size() > field.size() && line.at(field.size()) == ':')
            return line.mid(field.size() + 1).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

// Resets VmHWM to the current RSS (Linux 4.0+: "5" > /proc/self/clear_refs).
inline bool resetPeakRss()
{
    QFile file(u"/proc/self/clear_refs"_s);
    return file.open(QIODevice::WriteOnly) && file.write("5") == 1;
}

// Nearest-rank percentile of values (0 < p <= 100); 0 when empty.
inline double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto rank = qsizetype(std::ceil(p / 100.0 * double(values.size())));
    return values.at(std::clamp<qsizetype>(rank - 1, 0, values.size() - 1));
}

// A 1 ms precise timer on the thread's event loop; each tick records the time since the one
// before. A gap much longer than 1 ms is a stall: the loop was busy with something else.
class StallProbe final : public QObject
{
public:
    StallProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            m_gapsMs.append(double(now - m_last) / 1e6);
            m_last = now;
        });
    }

    void start()
    {
        m_gapsMs.clear();
        m_clock.start();
        m_last = 0;
        m_timer.start();
    }
    void stop() { m_timer.stop(); }

    double longestMs() const { return m_gapsMs.isEmpty() ? 0 : percentile(m_gapsMs, 100); }
    double p99Ms() const { return percentile(m_gapsMs, 99); }
    qsizetype ticks() const { return m_gapsMs.size(); }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    QList<double> m_gapsMs;
};

// The start-up case's child side: once the window's first expose has been handled (its first
// frame painted), prints "shown" on stdout, then after a second of idling "rss <VmRSS kB>", and
// quits.
class ShownReporter final : public QObject
{
public:
    explicit ShownReporter(QWidget *window)
        : QObject(window)
    {
        window->winId(); // creates the QWindow so that its expose can be watched
        window->windowHandle()->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Expose && !m_shown) {
            m_shown = true;
            // Runs after the expose (and the paint it triggers) has been handled.
            QTimer::singleShot(0, this, [] {
                std::fputs("shown\n", stdout);
                std::fflush(stdout);
                QTimer::singleShot(1000, qApp, [] {
                    std::printf("rss %lld\n", procStatusKb("VmRSS"));
                    std::fflush(stdout);
                    QCoreApplication::quit();
                });
            });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool m_shown = false;
};

} // namespace Bench
