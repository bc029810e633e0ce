/* Installed as src/3rdparty/wintab/wintab.h of the Qt source by qt.sh: Wine's wintab.h (copied
   next to it as wine-wintab.h), with the macros it otherwise takes from Wine's own headers. */
#ifndef AGENTLOOP_WINTAB_SHIM_H
#define AGENTLOOP_WINTAB_SHIM_H
#include <windows.h>
#ifndef WINELIB_NAME_AW
#  ifdef UNICODE
#    define WINELIB_NAME_AW(name) name##W
#  else
#    define WINELIB_NAME_AW(name) name##A
#  endif
#endif
#ifndef DECL_WINELIB_TYPE_AW
#  define DECL_WINELIB_TYPE_AW(type) typedef WINELIB_NAME_AW(type) type;
#endif
#ifndef API
#  define API WINAPI
#endif
#include "wine-wintab.h"
#endif
