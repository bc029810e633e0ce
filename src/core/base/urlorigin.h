#pragma once

#include <QUrl>

namespace AgentLoop {

// Whether two URLs have one origin: the scheme, host and port (an https -> http downgrade is
// another origin). A request that carries a key or a server's headers follows a redirect only
// within its origin.
bool isSameOrigin(const QUrl &a, const QUrl &b);

} // namespace AgentLoop
