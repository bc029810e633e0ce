#!/usr/bin/env bash
# Installs, with apt, whatever the build, the tests and the app need and this Debian 12 machine
# lacks. Run as root (or through sudo). Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
    cmake ninja-build g++ pkg-config
    clang libclang-rt-14-dev  # the fuzz preset: libFuzzer, AddressSanitizer, UBSan
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n
    qtkeychain-qt6-dev
    json-schema-test-suite   # the official JSON Schema test suite, used by tst_jsonschema
    curl bsdutils            # tests drive the fake provider with curl and the CLI through script(1)
    fonts-noto-cjk           # Chinese text in the app's zh_CN translation
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: everything is already installed."
    exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
