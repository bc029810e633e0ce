#pragma once

#include <QString>

namespace AgentLoop::Bench {

// One sample as a JSON line on standard output, the format every benchmark executable shares
// (bench/README.md): {"case","metric","unit","value","higherIsBetter","subject"}.
void printSample(const QString &caseName,
                 const QString &metric,
                 const QString &unit,
                 double value,
                 bool higherIsBetter,
                 const QString &subject = QString());

// A human-readable progress line on standard error.
void note(const QString &text);

} // namespace AgentLoop::Bench
