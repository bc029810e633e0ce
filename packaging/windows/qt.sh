# Sourced by build.sh: builds a small Qt for Windows (x86_64, mingw-w64) from Debian's own
# qt6-base source package, once; later runs reuse it from the cache directory.

qt_configure_options=(
    -G Ninja
    -DCMAKE_BUILD_TYPE=Release
    -DBUILD_SHARED_LIBS=ON
    # moc, rcc, uic and the CMake glue of the build machine's Qt (Debian's qt6-base-dev).
    -DQT_HOST_PATH=/usr
    -DQT_HOST_PATH_CMAKE_DIR=/usr/lib/x86_64-linux-gnu/cmake
    -DQT_BUILD_EXAMPLES=OFF
    -DQT_BUILD_TESTS=OFF
    # Only what Agent Loop links: Core, Gui, Widgets, Network, Test.
    -DFEATURE_sql=OFF
    -DFEATURE_dbus=OFF
    -DFEATURE_xml=OFF
    -DFEATURE_printsupport=OFF
    -DFEATURE_concurrent=OFF
    -DINPUT_opengl=no
    -DFEATURE_opengl=OFF
    # With Direct2D off, 6.4's qwindows plugin does not link with DirectWrite 3.
    -DFEATURE_direct2d=OFF
    -DFEATURE_directwrite3=OFF
    # TLS through the system's schannel: no OpenSSL DLLs to ship.
    -DFEATURE_schannel=ON
    -DFEATURE_openssl=OFF
    -DFEATURE_system_zlib=OFF
    -DFEATURE_system_pcre2=OFF
    -DFEATURE_system_harfbuzz=OFF
    -DFEATURE_system_freetype=OFF
    -DFEATURE_system_libpng=OFF
    -DFEATURE_system_jpeg=OFF
    # Nor what nothing in Agent Loop uses (its sources and tests name none of these classes):
    # each is a part of Qt that would otherwise be compiled on every cold CI run.
    -DFEATURE_graphicsview=OFF
    -DFEATURE_calendarwidget=OFF
    -DFEATURE_datetimeedit=OFF
    -DFEATURE_colordialog=OFF
    -DFEATURE_fontdialog=OFF
    -DFEATURE_fontcombobox=OFF
    -DFEATURE_wizard=OFF
    -DFEATURE_mdiarea=OFF
    -DFEATURE_columnview=OFF
    -DFEATURE_undoview=OFF
    -DFEATURE_keysequenceedit=OFF
    -DFEATURE_commandlinkbutton=OFF
    -DFEATURE_splashscreen=OFF
    -DFEATURE_toolbox=OFF
    -DFEATURE_errormessage=OFF
    -DFEATURE_progressdialog=OFF
    -DFEATURE_dial=OFF
    -DFEATURE_lcdnumber=OFF
    -DFEATURE_pdf=OFF
    -DFEATURE_textodfwriter=OFF
    -DFEATURE_movie=OFF
    -DFEATURE_gif=OFF
    -DFEATURE_jpeg=OFF
    -DFEATURE_tuiotouch=OFF
    -DFEATURE_sessionmanager=OFF
    -DFEATURE_networklistmanager=OFF
    -DFEATURE_networkdiskcache=OFF
    -DFEATURE_dnslookup=OFF
    -DFEATURE_localserver=OFF
    -DFEATURE_sharedmemory=OFF
    -DFEATURE_systemsemaphore=OFF
)

# Prints the prefix of the Windows Qt, building it first when the cache has none built with
# today's options.
qt_for_windows()
{
    local version
    version=$(dpkg-query -W -f='${Version}' qt6-base-dev)
    local key
    key=$(printf '%s\n' "$version" "${qt_configure_options[@]}" \
        "$(cat "$here/mingw-w64-x86_64.cmake" "$here/wintab-shim.h")" | sha256sum | cut -c1-12)
    local prefix="$cache/qt-$key"
    if [[ -f "$prefix/.complete" ]]; then
        log "Qt for Windows: reusing $prefix"
        echo "$prefix"
        return
    fi

    log "Qt for Windows: building Qt $version from Debian's source package into $prefix"
    local work="$cache/qt-build-$key"
    rm -rf "$work" "$prefix"
    mkdir -p "$work"
    (cd "$work" && apt-get source -q "qt6-base=$version" >&2)
    local source
    source=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'qt6-base-*')
    # Debian's +dfsg source drops src/3rdparty/wintab (tablet input). Wine's development package
    # has the same public headers; they take a few macros from Wine's own headers, which
    # wintab-shim.h defines.
    local wintab="$source/src/3rdparty/wintab"
    mkdir -p "$wintab"
    cp /usr/include/wine/wine/windows/wintab.h "$wintab/wine-wintab.h"
    cp /usr/include/wine/wine/windows/pktdef.h "$wintab/pktdef.h"
    cp "$here/wintab-shim.h" "$wintab/wintab.h"

    cmake -S "$source" -B "$work/build" "${qt_configure_options[@]}" \
        -DCMAKE_TOOLCHAIN_FILE="$here/mingw-w64-x86_64.cmake" \
        -DCMAKE_INSTALL_PREFIX="$prefix" >&2
    cmake --build "$work/build" --parallel "$jobs" >&2
    cmake --install "$work/build" >&2
    touch "$prefix/.complete"
    rm -rf "$work"
    echo "$prefix"
}
