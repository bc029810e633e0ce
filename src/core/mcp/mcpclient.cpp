#include "mcp/mcpclient.h"
