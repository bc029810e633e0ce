#!/usr/bin/env bash
# CTest's emulator for the Windows build (CMAKE_CROSSCOMPILING_EMULATOR): runs a Windows program
# under Wine, in the prefix and with the DLL path build.sh wrote to the given file.
#   wine-run.sh <wine.env> program.exe [arguments...]
#
# Every process Wine starts keeps the Unix standard error of the one that started it, whatever
# the Windows handles say. So a descendant the test did not end would hold CTest's pipe open, and
# CTest would wait for it until the test's timeout although the test had passed. The program writes
# to a file instead, which is shown to CTest as it grows; what still holds that file once the
# program has exited is named and ended here.
#
# Under load Wine sometimes cannot create the hidden window through which Qt's event loop on
# Windows receives timers and socket events ("CreateWindow() for QEventDispatcherWin32 internal
# window failed", before the first test function); such a program waits for nothing and every
# test that uses the network fails. That is Wine's failure, not the test's: the program is run
# once more, and it says so.
set -euo pipefail
shopt -s extglob
# shellcheck disable=SC1090
source "$1"
shift

output=$(mktemp --tmpdir agentloop-wine-run.XXXXXX)
trap 'rm -f "$output"' EXIT

eventWindowFailed='CreateWindow() for QEventDispatcherWin32 internal window failed'

# Runs the program once; its result in $status.
run_once()
{
    : >"$output"
    wine "$@" >"$output" 2>&1 &
    program=$!
    # Follows the file until the program is gone, then prints what is left and stops. If CTest kills
    # this script at a timeout, what the program printed until then has reached it.
    tail -n +1 -s 0.2 -f --pid="$program" "$output" &
    follower=$!
    # A Qt Test program that has printed its totals is done; under Wine its exit sometimes never
    # ends (after the other threads are gone, the last one waits in NtWaitForMultipleObjects for
    # ever, in a DLL's teardown). Past a grace period it is ended here and its result is the one it
    # printed, said on standard error: a failed test still fails, and a hang before the totals still
    # runs into CTest's timeout.
    finishedGrace=20
    status=0
    finishedSince=
    endedHere=false
    while kill -0 "$program" 2>/dev/null; do
        if grep -qF "$eventWindowFailed" "$output"; then
            kill -KILL "$program" 2>/dev/null || true  # it would only wait, test after test
            endedHere=true
            status=1
            break
        fi
        if [[ -z $finishedSince ]] && grep -q '^\*\*\*\*\*\*\*\*\* Finished testing of ' "$output"; then
            finishedSince=$SECONDS
        fi
        if [[ -n $finishedSince ]] && ((SECONDS - finishedSince >= finishedGrace)); then
            totals=$(grep -E '^Totals: [0-9]+ passed, [0-9]+ failed' "$output" | tail -n 1 | tr -d '\r' || true)
            echo "wine-run.sh: the test printed its totals but did not exit within ${finishedGrace} s; ended: $totals" >&2
            kill -KILL "$program" 2>/dev/null || true
            endedHere=true
            status=1
            [[ $totals =~ ^Totals:\ [0-9]+\ passed,\ 0\ failed ]] && status=0
            break
        fi
        sleep 0.5
    done
    if $endedHere; then
        wait "$program" 2>/dev/null || true
    else
        wait "$program" || status=$?
    fi
    wait "$follower" || true

    # /proc/<pid>/fd/<n> of every open descriptor of that file, in one pass.
    # (find fails on the processes that end meanwhile.)
    holders=$({ find /proc/[0-9]*/fd -maxdepth 1 -lname "$output" 2>/dev/null || true; } | cut -d/ -f3 | sort -u)
    for pid in $holders; do
        # The server and the desktop (started by whichever program first needed it) serve every test.
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == @(wineserver*|explorer.exe) ]] && continue
        command=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
        echo "wine-run.sh: still running after the test ended, killed: pid $pid: $command" >&2
        kill -KILL "$pid" 2>/dev/null || true
    done
}

run_once "$@"
if [[ $status != 0 ]] && grep -qF "$eventWindowFailed" "$output"; then
    echo "wine-run.sh: Wine could not create the program's event window (its failure, not the test's); running the test once more" >&2
    run_once "$@"
fi
exit "$status"
