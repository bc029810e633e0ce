#!/usr/bin/env bash
# CTest's emulator for the Windows build (CMAKE_CROSSCOMPILING_EMULATOR): runs a Windows program
# under Wine, in the prefix and with the DLL path build.sh wrote to the given file.
#   wine-run.sh <wine.env> program.exe [arguments...]
set -euo pipefail
# shellcheck disable=SC1090
source "$1"
shift
exec wine "$@"
