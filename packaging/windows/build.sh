#!/usr/bin/env bash
# Builds Agent Loop for 64-bit Windows on Debian 12, packages it, and checks it under Wine:
#
#   packaging/windows/build.sh            everything below, in order
#   packaging/windows/build.sh --no-test  build and package only
#   packaging/windows/build.sh --ci       (or CI=true) without a certificate, sign with a
#                                         throwaway one, so that signing is tested too
#
# 1. Installs what is missing (root: apt-get), including Debian's source lines for Qt.
# 2. Builds Qt 6 for Windows from Debian's qt6-base source package, once; later runs reuse it
#    from the cache directory ($AGENTLOOP_WINDOWS_CACHE, default ~/.cache/agentloop-windows).
# 3. Cross-builds the app, the CLI and the whole test suite with mingw-w64 (build/windows/build).
# 4. Deploys the DLLs and plugins the executables import next to them, strips them
#    (build/windows/stage), and makes "Agent Loop Setup <version>.exe" (NSIS) and
#    agentloop-<version>-win64.zip in build/windows. With a certificate (AGENTLOOP_SIGN_PFX, see
#    sign.sh) every .exe and .dll, the uninstaller and the installer are signed (Authenticode)
#    and every signature is verified.
# 5. Under Wine and Xvfb: runs the CTest suite as Windows programs; installs the installer
#    silently, runs the seed's example in the installed app against a fake provider, uninstalls
#    silently and checks that only the user's data is left (smoke-test.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${AGENTLOOP_WINDOWS_CACHE:-$HOME/.cache/agentloop-windows}
out=${AGENTLOOP_WINDOWS_OUT:-$root/build/windows}
jobs=$(nproc)
run_tests=1
ci=0
[[ "${CI:-}" == true ]] && ci=1
for argument in "$@"; do
    case "$argument" in
    --no-test) run_tests=0 ;;
    --ci) ci=1 ;;
    *)
        echo "usage: build.sh [--no-test] [--ci]" >&2
        exit 2
        ;;
    esac
done

log() { echo "[windows $(date +%T)] $*" >&2; }
started=$SECONDS
step_started=$SECONDS
step() {
    log "$1 (previous step: $((SECONDS - step_started)) s)"
    step_started=$SECONDS
}

# shellcheck source=packaging/windows/qt.sh
source "$here/qt.sh"
# shellcheck source=packaging/windows/deploy.sh
source "$here/deploy.sh"
# shellcheck source=packaging/windows/sign.sh
source "$here/sign.sh"

# Out of the environment before anything else runs: the compilers and Wine need no password.
signing_password_to_file
if [[ -n "${AGENTLOOP_SIGN_PFX:-}" && ! -f "$AGENTLOOP_SIGN_PFX" ]]; then
    log "AGENTLOOP_SIGN_PFX=$AGENTLOOP_SIGN_PFX: no such file"
    exit 1
fi

step "dependencies"
"$root/tools/install-deps.sh" --windows >&2
mkdir -p "$cache" "$out"

step "Qt for Windows"
qt_prefix=$(qt_for_windows)

step "cross-building Agent Loop"
build="$out/build"
cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$here/mingw-w64-x86_64.cmake" \
    -DCMAKE_PREFIX_PATH="$qt_prefix" -DCMAKE_FIND_ROOT_PATH="$qt_prefix" \
    -DQT_HOST_PATH=/usr -DQT_HOST_PATH_CMAKE_DIR=/usr/lib/x86_64-linux-gnu/cmake \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_BINDIR=. \
    -DAGENTLOOP_WERROR=ON \
    -DAGENTLOOP_BUILD_TESTS=ON \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$here/wine-run.sh;$out/wine.env" >&2
cmake --build "$build" --parallel "$jobs"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")

step "deploying and packaging $version"
stage="$out/stage"
rm -rf "$stage"
cmake --install "$build" --prefix "$stage" >&2
deploy_windows_runtime "$stage" "$qt_prefix"
cp "$root/LICENSE" "$stage/LICENSE.txt"
write_installer_file_list "$stage" "$out/installer-files.nsh"

# The CA the signatures are verified against, for smoke-test.sh too: the throwaway certificate
# itself, AGENTLOOP_SIGN_CAFILE, or (empty) osslsigncode's default, the system's CA bundle.
signature_ca=${AGENTLOOP_SIGN_CAFILE:-}
rm -rf "$out/signature-ca" "$out/throwaway-certificate"
if [[ -z "${AGENTLOOP_SIGN_PFX:-}" && $ci == 1 ]]; then
    log "CI: signing with a throwaway self-signed certificate"
    "$here/sign.sh" throwaway "$out/throwaway-certificate"
    export AGENTLOOP_SIGN_PFX="$out/throwaway-certificate/certificate.pfx"
    export AGENTLOOP_SIGN_PASSWORD_FILE="$out/throwaway-certificate/password"
    signature_ca="$out/throwaway-certificate/certificate.pem"
fi
signing=()
if [[ -n "${AGENTLOOP_SIGN_PFX:-}" ]]; then
    mapfile -t signed_files < <(find "$stage" -type f \( -iname '*.exe' -o -iname '*.dll' \) | sort)
    "$here/sign.sh" sign "${signed_files[@]}"
    log "signed ${#signed_files[@]} files in the stage"
    signing=(-DSIGN="$here/sign.sh")
else
    log "not signing: set AGENTLOOP_SIGN_PFX=/path/to/certificate.pfx (and AGENTLOOP_SIGN_PASSWORD or AGENTLOOP_SIGN_PASSWORD_FILE) to sign"
fi

installer="$out/Agent Loop Setup $version.exe"
# Verbose enough (MUI's own code too) that the log lists every compiled instruction:
# smoke-test.sh reads from it how the finish page starts the app.
if ! makensis -V4 -DMUI_VERBOSE=4 -INPUTCHARSET UTF8 \
    -DVERSION="$version" -DFILE_LIST="$out/installer-files.nsh" -DOUTFILE="$installer" \
    -DICON="$root/resources/icons/agentloop.ico" -DLICENSE="$root/LICENSE" "${signing[@]}" \
    "$here/installer.nsi" >"$out/makensis.log" 2>&1; then
    tail -30 "$out/makensis.log" >&2
    exit 1
fi
sed -n '/^[0-9]* warnings*:$/,$p' "$out/makensis.log" >&2  # the summary of makensis's warnings
if [[ ${#signing[@]} -gt 0 ]]; then
    "$here/sign.sh" verify "$signature_ca" "$installer" "${signed_files[@]}"
    echo "$signature_ca" >"$out/signature-ca"
    log "verified the signatures of the installer and of the ${#signed_files[@]} programs and DLLs in the stage"
fi
portable="$out/agentloop-$version-win64.zip"
rm -f "$portable"
(cd "$stage/.." && rm -rf "Agent Loop $version" && cp -r stage "Agent Loop $version" \
    && zip -qr -9 "$portable" "Agent Loop $version" && rm -rf "Agent Loop $version")
log "installer: $installer ($(du -h "$installer" | cut -f1)); portable: $portable ($(du -h "$portable" | cut -f1))"

if [[ $run_tests == 1 ]]; then
    # shellcheck source=packaging/windows/wine.sh
    source "$here/wine.sh"
    step "preparing Wine"
    prepare_wine "$out/wineprefix" "$qt_prefix"

    step "the test suite as Windows programs, under Wine"
    # One wineserver for the whole run, started before two tests race to start it.
    wineserver -p 2>/dev/null || true  # (it may be running already)
    wine cmd /c exit >/dev/null 2>&1
    suite=0
    # Most tests wait on processes and timers: twice as many as cores keeps the cores busy.
    (cd "$build" && ctest --output-on-failure --timeout 600 -j $((2 * jobs))) || suite=$?
    wineserver -k || true
    [[ $suite == 0 ]] || exit "$suite"

    step "installer, seed example and uninstaller under Wine"
    "$here/smoke-test.sh" "$installer" "$build"
fi
step "done in $((SECONDS - started)) s"
