# Sourced by build.sh: puts next to the Windows executables every DLL they need that Windows
# itself does not provide, the Qt plugins loaded at run time, and Qt's own Chinese translation.
# windeployqt does not run on Linux, so the DLLs are found by reading each file's imports.

mingw_objdump=x86_64-w64-mingw32-objdump
mingw_strip=x86_64-w64-mingw32-strip

# The DLL names a PE file imports, one per line.
dll_imports()
{
    "$mingw_objdump" -p "$1" | sed -n 's/^\s*DLL Name: //p'
}

# Copies into $1 the DLL named $2 if one of the search directories has it (a system DLL such as
# KERNEL32.dll is in none and stays behind), then the DLLs it imports in turn.
copy_dll_with_imports()
{
    local destination=$1 name=$2
    shift 2
    [[ -e "$destination/$name" ]] && return 0
    local directory
    for directory in "$@"; do
        if [[ -f "$directory/$name" ]]; then
            cp "$directory/$name" "$destination/"
            local imported
            for imported in $(dll_imports "$directory/$name"); do
                copy_dll_with_imports "$destination" "$imported" "$@"
            done
            return 0
        fi
    done
}

# The plugins Agent Loop loads: the Windows platform, the native style, and TLS through
# schannel (with the certificate-only backend Qt falls back to). Each is "folder/name" under Qt's plugins directory.
deployed_plugins=(
    platforms/qwindows
    styles/qwindowsvistastyle
    tls/qschannelbackend
    tls/qcertonlybackend
)

deploy_windows_runtime()
{
    local stage=$1 qt_prefix=$2
    local runtime_dirs=(
        "$qt_prefix/bin"
        "$(dirname "$(x86_64-w64-mingw32-gcc-posix -print-file-name=libstdc++-6.dll)")"
        "$(dirname "$(x86_64-w64-mingw32-gcc-posix -print-file-name=libwinpthread-1.dll)")"
    )
    local plugin
    for plugin in "${deployed_plugins[@]}"; do
        mkdir -p "$stage/$(dirname "$plugin")"
        cp "$qt_prefix/plugins/$plugin.dll" "$stage/$plugin.dll"
    done
    local file imported
    for file in "$stage"/*.exe "$stage"/*/*.dll; do
        for imported in $(dll_imports "$file"); do
            copy_dll_with_imports "$stage" "$imported" "${runtime_dirs[@]}"
        done
    done
    mkdir -p "$stage/translations"
    cp /usr/share/qt6/translations/qtbase_zh_CN.qm "$stage/translations/"
    find "$stage" \( -name '*.exe' -o -name '*.dll' \) -exec "$mingw_strip" --strip-unneeded {} +
    log "deployed: $(find "$stage" -type f | wc -l) files, $(du -sh "$stage" | cut -f1)"
}
