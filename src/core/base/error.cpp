#include "base/error.h"

namespace AgentLoop {

QString Error::toString() const
{
    if (hint.isEmpty())
        return message;
    return message + QLatin1Char('\n') + hint;
}

} // namespace AgentLoop
