#include "mcp/mcpserver.h"
