# Sourced by build.sh and smoke-test.sh: a Wine prefix of Agent Loop's own, in which Windows
# programs find Qt's DLLs and the mingw runtime.

# "Z:\path\to\dir": how a Windows program sees a Linux path under Wine.
windows_path()
{
    local path=$1
    echo "Z:${path//\//\\}"
}

# Creates the prefix (once) and writes $out/wine.env, which wine-run.sh (CTest's emulator) and
# smoke-test.sh read.
prepare_wine()
{
    local prefix=$1 qt_prefix=$2
    local mingw_runtime mingw_threads
    mingw_runtime=$(dirname "$(x86_64-w64-mingw32-gcc-posix -print-file-name=libstdc++-6.dll)")
    mingw_threads=$(dirname "$(x86_64-w64-mingw32-gcc-posix -print-file-name=libwinpthread-1.dll)")
    cat >"$out/wine.env" <<ENV
export WINEPREFIX='$prefix'
export WINEARCH=win64
export WINEDEBUG=-all
# No Mono or Gecko: nothing here needs them, and their installers would ask.
export WINEDLLOVERRIDES='mscoree,mshtml='
export WINEPATH='$(windows_path "$qt_prefix/bin");$(windows_path "$mingw_runtime");$(windows_path "$mingw_threads")'
# Command lines and file names with Chinese characters cross from Linux intact.
export LC_ALL=C.UTF-8
ENV
    # shellcheck disable=SC1091
    source "$out/wine.env"
    if [[ ! -f "$prefix/system.reg" ]]; then
        log "creating the Wine prefix $prefix"
        wineboot --init >/dev/null 2>&1
        wineserver -w
    fi
    # Wine builds a Windows program's environment from the prefix's registry and drops the
    # QT_* variables of the Linux one: tests run offscreen and log to stderr this way. The
    # installed app is started with -platform windows, which overrides the first.
    wine reg add 'HKCU\Environment' /v QT_QPA_PLATFORM /d offscreen /f >/dev/null
    wine reg add 'HKCU\Environment' /v QT_FORCE_STDERR_LOGGING /d 1 /f >/dev/null
}
