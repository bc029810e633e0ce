#include "files/unifieddiff.h"
