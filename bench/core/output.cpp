#include "output.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace AgentLoop::Bench {

void printSample(const QString &caseName,
                 const QString &metric,
                 const QString &unit,
                 double value,
                 bool higherIsBetter,
                 const QString &subject)
{
    QJsonObject sample{
            {u"case"_s, caseName},
            {u"metric"_s, metric},
            {u"unit"_s, unit},
            {u"value"_s, value},
            {u"higherIsBetter"_s, higherIsBetter},
    };
    if (!subject.isEmpty())
        sample.insert(u"subject"_s, subject);
    const QByteArray line = QJsonDocument(sample).toJson(QJsonDocument::Compact);
    std::fprintf(stdout, "%s\n", line.constData());
    std::fflush(stdout);
}

void note(const QString &text)
{
    std::fprintf(stderr, "%s\n", text.toUtf8().constData());
    std::fflush(stderr);
}

} // namespace AgentLoop::Bench
