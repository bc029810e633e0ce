#pragma once

#include "tools/tool.h"

namespace AgentLoop {

// An edit of src/main.cpp, a GB18030 file with Windows line endings, as the file tools describe
// it to the approval and the chat: one line replaced by two.
FileChange sampleFileChange();

} // namespace AgentLoop
