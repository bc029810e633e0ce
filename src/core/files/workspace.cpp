#include "files/workspace.h"
