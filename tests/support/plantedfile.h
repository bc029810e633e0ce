#pragma once

#include <QString>

namespace AgentLoop {

// What a repository can put where the app expects a file of its own (AGENTS.md,
// .agentloop/permissions.json, .agentloop/mcp.json): a link to a file outside it, a link to a
// device, or a FIFO that would hang whoever opens it for reading.
enum class PlantedFile { LinkOut, LinkToDevice, Fifo };

// Plants it at path (a LinkOut leads to outsideFile); false when it could not. POSIX only: links
// need a privilege on Windows and FIFOs do not exist there.
bool plantFile(PlantedFile kind, const QString &path, const QString &outsideFile);

} // namespace AgentLoop
