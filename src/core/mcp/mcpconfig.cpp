#include "mcp/mcpconfig.h"
