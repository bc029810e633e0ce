#include "mcp/mcptool.h"
