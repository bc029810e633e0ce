#include "mcp/mcpmanager.h"
