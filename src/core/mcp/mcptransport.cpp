#include "mcp/mcptransport.h"
