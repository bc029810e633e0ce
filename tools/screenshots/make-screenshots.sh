#!/bin/sh
# Renders the screenshots in docs/screenshots: the main window after a demo conversation, the
# approval box (and one for a hostile call: bidi controls and a look-alike letter; and one for a
# file edit, with its diff), the settings dialog (with provider profiles, the presets, and a
# capability check answered by a local fake provider), the warning bar of an app run as
# administrator, one chat item of each kind and the chat's file changes, and the MCP screens (the
# servers page, an MCP call's approval, a workspace's trust question, a server's question; they
# need tests/mcp's npm servers, which tools/install-deps.sh installs), in English and Chinese,
# light and dark.
#
#   tools/screenshots/make-screenshots.sh [build-dir]      (default: build/dev)
#
# Needs the agentloop-screenshots target built, and fonts-noto-cjk for the Chinese screens. Runs
# on the offscreen platform (no display needed); set QT_QPA_PLATFORM=xcb under xvfb-run to render
# through a real X server instead.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-"$root/build/dev"}
out="$root/docs/screenshots"
tool="$build/tools/screenshots/agentloop-screenshots"

cmake --build "$build" --target agentloop-screenshots
mkdir -p "$out"

export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
for lang in en zh_CN; do
    for theme in light dark; do
        LANGUAGE="$lang" LC_ALL=C.UTF-8 "$tool" --out "$out" --lang "$lang" --theme "$theme"
        LANGUAGE="$lang" LC_ALL=C.UTF-8 "$tool" --out "$out" --lang "$lang" --theme "$theme" --gallery
        LANGUAGE="$lang" LC_ALL=C.UTF-8 "$tool" --out "$out" --lang "$lang" --theme "$theme" --mcp
    done
done
ls -l "$out"
