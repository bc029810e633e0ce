#!/usr/bin/env bash
# The inner loop's check, in minutes: builds what changed (the `ci` preset: warnings are errors,
# ASan + UBSan) and runs the tests of the rooms the change touched; where a Windows path changed
# and the Windows job has been built here before, the same tests as Windows programs under Wine.
# Before a landing, run the whole of .ci/run: it is what CI runs on a fresh machine.
#
#   tools/check.sh [--base <rev>] [--all] [--list]
#     --base <rev>  the change is everything since <rev> (default: what is not committed yet)
#     --all         every test, whatever changed
#     --list        name the tests the change selects, and build and run nothing
#
# How a change selects tests: a test source selects itself; a source of src/core, src/gui or
# src/cli selects every test that includes a header of its folder (its room); a form in ui/ counts
# as its class's folder; the CLI's sources also select the tests that run the CLI (tests/cli); a
# translation selects tst_translations; build files and tests/support select everything.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

base=
all=0
list_only=0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --base)
        base=${2:?--base needs a revision}
        shift 2
        ;;
    --all)
        all=1
        shift
        ;;
    --list)
        list_only=1
        shift
        ;;
    *)
        echo "usage: tools/check.sh [--base <rev>] [--all] [--list]" >&2
        exit 2
        ;;
    esac
done

log() { echo "[check] $*" >&2; }

if [[ -n $base ]]; then
    mapfile -t changed < <(git diff --name-only "$base" --; git ls-files --others --exclude-standard)
else
    mapfile -t changed < <(git diff --name-only HEAD --; git ls-files --others --exclude-standard)
fi
mapfile -t changed < <(printf '%s\n' "${changed[@]}" | sed '/^$/d' | sort -u)

test_sources=(tests/core/tst_*.cpp tests/cli/tst_*.cpp tests/gui/tst_*.cpp)
selected=()
select_including() { # the tests that include one of the headers of folder $1 (include root $2)
    local folder=$1 include_root=$2 headers=() header
    for header in "$folder"/*.h; do
        [[ -e $header ]] && headers+=("${header#"$include_root"/}")
    done
    [[ ${#headers[@]} -gt 0 ]] || return 0
    local pattern
    pattern=$(printf '%s\n' "${headers[@]}" | sed 's/[.]/[.]/g' | paste -sd'|')
    mapfile -t -O "${#selected[@]}" selected < <(grep -lE "^#include \"($pattern)\"" "${test_sources[@]}" \
        | xargs -r -n1 basename | sed 's/[.]cpp$//')
}

windows=0
for file in "${changed[@]}"; do
    case "$file" in
    CMakeLists.txt | */CMakeLists.txt | *.cmake | CMakePresets.json | tests/support/* | third_party/*)
        all=1 ;;
    tests/*/tst_*.cpp)
        selected+=("$(basename "$file" .cpp)") ;;
    src/core/*/* | src/gui/*/* | src/gui/* | src/cli/*)
        library=$(cut -d/ -f1-2 <<<"$file")
        select_including "$(dirname "$file")" "$library"
        if [[ $file == src/cli/* ]]; then
            for test in tests/cli/tst_*.cpp; do selected+=("$(basename "$test" .cpp)"); done
        fi
        ;;
    ui/*.ui)
        form=$(basename "$file" .ui)
        class_header=$(find src/gui -name "$form.h" | head -n 1)
        [[ -n $class_header ]] && select_including "$(dirname "$class_header")" src/gui
        ;;
    translations/*.ts)
        selected+=(tst_translations) ;;
    esac
    # A Windows path: a file of the Windows job or the Windows backends, or a change to code under
    # a Windows #if.
    if [[ $file == packaging/windows/* || $file =~ _win[.]|windows ]]; then
        windows=1
    elif [[ $file =~ [.](cpp|h)$ ]] && { git diff "${base:-HEAD}" -- "$file" 2>/dev/null \
        | grep -qE '^[-+].*(Q_OS_WIN|_WIN32)' || { ! git ls-files --error-unmatch "$file" \
        >/dev/null 2>&1 && grep -qE 'Q_OS_WIN|_WIN32' "$file"; }; }; then
        windows=1
    fi
done

if [[ $all == 1 ]]; then
    tests_regex='.'
    log "running every test"
else
    mapfile -t selected < <(printf '%s\n' "${selected[@]}" | sed '/^$/d' | sort -u)
    if [[ ${#selected[@]} -eq 0 ]]; then
        log "the change (${#changed[@]} files) selects no test; building only"
    else
        log "tests of the change: ${selected[*]}"
    fi
    tests_regex="^($(printf '%s\n' "${selected[@]}" | paste -sd'|'))\$"
fi
[[ $list_only == 1 ]] && exit 0

[[ -f build/ci/CMakeCache.txt ]] || cmake --preset ci >/dev/null
cmake --build --preset ci
if [[ $all == 1 || ${#selected[@]} -gt 0 ]]; then
    ctest --preset ci -R "$tests_regex"
fi

if [[ $windows == 1 ]]; then
    windows_build=build/windows/build
    if [[ ! -f $windows_build/CMakeCache.txt || ! -f build/windows/wine.env ]]; then
        log "a Windows path changed: run packaging/windows/build.sh once (the whole Windows job);"
        log "after that, this check rebuilds it and runs these tests under Wine"
        exit 0
    fi
    [[ $(git diff --name-only "${base:-HEAD}" -- packaging/windows | wc -l) -gt 0 ]] \
        && log "packaging/windows changed: its packaging and installer run only in packaging/windows/build.sh"
    log "a Windows path changed: the Windows build, and these tests under Wine"
    cmake --build "$windows_build"
    # shellcheck disable=SC1091
    source build/windows/wine.env
    wineserver -p 2>/dev/null || true
    wine cmd /c exit >/dev/null 2>&1
    status=0
    ctest --test-dir "$windows_build" --output-on-failure --timeout 600 -j 4 -R "$tests_regex" \
        || status=$?
    wineserver -k || true
    exit $status
fi
