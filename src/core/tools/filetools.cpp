#include "tools/filetools.h"
