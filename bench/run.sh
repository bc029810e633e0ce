#!/usr/bin/env bash
# Builds the benchmarks in Release (build/bench), starts the loopback server, runs every case
# several times next to its peer and writes docs/benchmarks.md. See bench/README.md.
#
# Environment: STREAM_RUNS (5), RUNS (5), TOOL_RUNS (7), STREAM_BYTES (67108864), JOBS (nproc),
# CASES ("1 2 3 4 5 6 7 8 9 10 11 12": the cases to run; a run of only some of them writes its report to
# build/bench/benchmarks.md and leaves docs/benchmarks.md alone).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build/bench"
stream_runs=${STREAM_RUNS:-5}
runs=${RUNS:-5}
tool_runs=${TOOL_RUNS:-7}
stream_bytes=${STREAM_BYTES:-67108864}
jobs=${JOBS:-$(nproc)}
all_cases="1 2 3 4 5 6 7 8 9 10 11 12"
cases=${CASES:-$all_cases}
want() { [[ " $cases " == *" $1 "* ]]; }

work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

log() { printf '== %s\n' "$*" >&2; }

log "building (Release, $build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DAGENTLOOP_BUILD_BENCH=ON -DAGENTLOOP_BUILD_TESTS=OFF >"$work/configure.log" \
    || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$build" --parallel "$jobs" --target agentloop-bench
bench="$build/bench/core/agentloop-bench"
gui_bench=
# (grep reads all of it: with pipefail, grep -q closing the pipe early would fail the test)
if { want 3 || want 4 || want 5 || want 10 || want 11 || want 12; } \
    && cmake --build "$build" --target help | grep '^agentloop-bench-gui:' >/dev/null; then
    if cmake --build "$build" --parallel "$jobs" --target agentloop-bench-gui; then
        gui_bench="$build/bench/gui/agentloop-bench-gui"
    else
        log "agentloop-bench-gui does not build: cases 3-5 not measured"
    fi
fi

if want 1 || want 2; then
    log "installing the peers (npm ci)"
    (cd "$root/bench/peers" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
# Case 7's second peer; its row says "not measured" without it.
if want 7 && ! command -v rg >/dev/null && command -v apt-get >/dev/null; then
    log "installing ripgrep (apt-get)"
    sudo=
    [[ $(id -u) == 0 ]] || sudo="sudo -n"
    $sudo apt-get install -y ripgrep >&2 || log "ripgrep could not be installed: not measured"
fi

samples="$work/samples.jsonl"
: >"$samples"

bytes=$stream_bytes
if want 1; then
    log "starting the loopback server ($stream_bytes bytes of SSE)"
    "$bench" serve --bytes "$stream_bytes" --info "$work/server.json" &
    server_pid=$!
    for _ in $(seq 600); do [[ -s $work/server.json ]] && break; sleep 0.1; done
    [[ -s $work/server.json ]] || { log "the server did not start"; exit 1; }
    port=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).port)' "$work/server.json")
    bytes=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).bytes)' "$work/server.json")
    base="http://127.0.0.1:$port/v1"

    curl_once() {
        local out size seconds
        out=$(curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
            --data '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"stream":true}' \
            -w '%{size_download} %{time_total}' "$base/chat/completions")
        read -r size seconds <<<"$out"
        [[ $size == "$bytes" ]] || { log "curl got $size bytes, expected $bytes"; exit 1; }
        node -e 'const [b, s] = process.argv.slice(1).map(Number);
            console.log(JSON.stringify({case: "1-stream", metric: "throughput", unit: "MB/s",
                value: b / 1e6 / s, higherIsBetter: true, subject: "curl"}))' "$size" "$seconds"
    }

    log "case 1: stream consumption, $stream_runs runs each, interleaved"
    curl_once >/dev/null # warm-up: page cache, loopback
    for ((i = 1; i <= stream_runs; ++i)); do
        "$bench" stream --url "$base" --runs 1 --bytes "$bytes" >>"$samples"
        "$bench" drain --url "$base" --runs 1 --bytes "$bytes" >>"$samples"
        node "$root/bench/peers/stream.mjs" "$base" 1 "$bytes" >>"$samples"
        curl_once >>"$samples"
    done
    kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
    server_pid=
fi

if want 2; then
    log "case 2: request building, $runs runs each"
    "$bench" request --runs "$runs" --dump "$work" >>"$samples"
    node "$root/bench/peers/build.mjs" "$work" "$runs" >>"$samples"
fi

if want 6; then
    log "case 6: tool overhead, $tool_runs samples"
    "$bench" tool --runs "$tool_runs" >>"$samples"
fi

if want 7; then
    log "case 7: grep over a generated tree, $runs runs each"
    "$bench" grep --runs "$runs" --dir "$work/grep" >>"$samples" \
        || log "case 7 failed (exit $?): its rows say not measured"
    rm -rf "$work/grep"
fi

if want 8; then
    log "case 8: read_file of a 100 MB file, $runs runs"
    "$bench" read --runs "$runs" --dir "$work/read" >>"$samples" \
        || log "case 8 failed (exit $?): its rows say not measured"
    rm -rf "$work/read"
fi

if want 9; then
    log "case 9: compaction planning and token accounting, $runs runs"
    "$bench" context --runs "$runs" >>"$samples"
fi

if ! { want 3 || want 4 || want 5; }; then
    log "cases 3-5: not asked for (CASES=$cases)"
elif [[ -n $gui_bench ]]; then
    log "cases 3-5: $gui_bench"
    QT_QPA_PLATFORM=offscreen "$gui_bench" --case all --samples "$runs" >>"$samples" \
        || log "agentloop-bench-gui failed (exit $?): its rows say not measured"
else
    log "cases 3-5: agentloop-bench-gui not built, not measured"
fi

if want 10 && [[ -n $gui_bench ]]; then
    log "case 10: start-up with many saved conversations (writes 5 GB to a temporary folder)"
    QT_QPA_PLATFORM=offscreen "$gui_bench" --case 10-many-conversations --samples "$runs" \
        >>"$samples" || log "case 10 failed (exit $?): its rows say not measured"
fi

if want 11 && [[ -n $gui_bench ]]; then
    log "case 11: opening a conversation of 100 MB, $runs runs"
    QT_QPA_PLATFORM=offscreen "$gui_bench" --case 11-open-large-conversation --samples "$runs" \
        >>"$samples" || log "case 11 failed (exit $?): its rows say not measured"
fi

if want 12 && [[ -n $gui_bench ]]; then
    log "case 12: the Timeline of 1 000 turns shown, scrolled and zoomed, $runs runs"
    QT_QPA_PLATFORM=offscreen "$gui_bench" --case 12-timeline --samples "$runs" \
        >>"$samples" || log "case 12 failed (exit $?): its rows say not measured"
fi

qt_dir=$(grep -m1 '^Qt6Core_DIR:' "$build/CMakeCache.txt" | cut -d= -f2-)
gui_note=" (offscreen)"
[[ -n $gui_bench ]] || gui_note=": agentloop-bench-gui was not built in this run"
export M_CPU M_RAM M_KERNEL M_QT M_COMPILER M_OPENAI M_CURL M_GREP M_RG M_SETUP
M_CPU=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
M_RAM=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
M_KERNEL=$(uname -srm)
M_QT=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")/\1/p' "$qt_dir"/Qt6CoreConfigVersion*.cmake | head -1)
# (sed -n 1p reads all of it: with pipefail, head -1 closing the pipe early can fail the script)
M_COMPILER=$("$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2-)" --version | sed -n 1p)
M_OPENAI=$(node -p 'require(process.argv[1]).version' \
    "$root/bench/peers/node_modules/openai/package.json" 2>/dev/null || echo "not installed")
M_CURL=$(curl --version | sed -n 1p | cut -d' ' -f1-2)
M_GREP=$(grep --version | sed -n 1p)
M_RG="not installed"
if command -v rg >/dev/null; then M_RG=$(rg --version | sed -n 1p); fi
# One line per case that ran.
M_SETUP=
setup() { M_SETUP+="${M_SETUP:+$'\n'}$1"; }
want 1 && setup "Case 1: $bytes bytes of chat.completion.chunk SSE (text deltas, then 8 tool calls \
sent as argument fragments), generated by \`agentloop-bench serve\` and sent chunked (16 KiB \
chunks) from its own process; throughput = bytes / time from the request to the assembled message \
($stream_runs runs each, interleaved; curl: its time_total). QNAM alone: \`agentloop-bench drain\`, \
the same POST with a bare QNetworkAccessManager whose readyRead only calls readAll() and discards \
it: the most any QNAM client can get."
want 2 && setup "Case 2: histories of 100, 1 000 and 5 000 messages (system, then user / assistant \
with a shell call / tool triples) holding 20 MB of tool output, plus one 4 KiB tool message; time \
of one requestBody() after setHistory(), the history without the new message having been built \
once before (the previous turn). Node: JSON.stringify({model, messages, tools}) of the same \
request body after JSON.parse, warmed up once ($runs runs each)."
want 6 && setup "Case 6: ShellTool::prepare + invoke with ProcessCommandRunner vs QProcess /bin/sh \
-c, \`echo hi\` until finished; each sample is the mean of 40 interleaved spawns ($tool_runs \
samples)."
want 7 && setup "Case 7: the grep tool (pattern \`frobnicate_[0-9]+\\(\`, max_results 2000) over a \
generated tree of 20 000 files / 200 MB (C++-like sources of 2-18 kB in 200 folders, 1 in 97 \
GB18030, 1 in 50 CRLF; 20 binary files; a .gitignore'd build/ of 100 files / 1 MB with matches; an \
empty .git/), from prepare() to finished(), vs \`LC_ALL=C grep -rnI -E --exclude-dir=.git \
--exclude-dir=build\` (GNU grep reads no .gitignore; -I skips binary files as the tool does; the C \
locale because GB18030 is not UTF-8) and \`rg -n\` (reads the .gitignore itself, uses every core), \
from start() to finished() of a QProcess; one untimed warm-up each (page cache), then $runs \
interleaved runs; every subject must report the same matching lines (path:line), or the case \
fails. Stall: the longest gap between ticks of a 1 ms timer on the calling thread during the \
tool's run; the idle loop: the same timer for as long with nothing running (what the machine \
itself adds)."
want 8 && setup "Case 8: read_file with default arguments (offset 1, limit 2 000) of a generated \
100 MB UTF-8 file, from prepare() to finished(), after one untimed warm-up ($runs runs); peak RSS \
growth: VmHWM (reset before each run through /proc/self/clear_refs) minus VmRSS before."
want 9 && setup "Case 9: a history of 5 000 messages (as in case 2, 20 MB of tool output): \
planCompaction (stubs, then the summary range, down to 60 % of a 128 000-token window) and \
compactedHistory, the model's summary not included; and TokenLedger::append of a 4 KiB tool \
message with nextRequestTokens() at 5 000 messages ($runs runs)."
{ want 3 || want 4 || want 5; } && setup "Cases 3-5: agentloop-bench-gui$gui_note."
want 10 && setup "Case 10: start-up (process start to the first shown main window, offscreen) with \
1 000 saved conversations of 5 MB each (5 GB, a header and 1 kB user messages, in the page cache \
after the first start) vs an empty conversations folder, alternating ($runs runs); the first \
start, which reads every file whole and writes the index, is reported apart."
want 12 && setup "Case 12: the main window's Timeline dock with 1 000 turns (about 2 600 boxes: \
requests with their first byte, approvals, one or two tool runs, arrows), offscreen: 60 pages \
scrolled, Ctrl+wheel out to the whole session, 20 scrolls, back in, 30 pages back, one input per \
16 ms while a new turn joins every 100 ms; the stall is the longest gap of a 1 ms timer \
meanwhile. Then one paint of the whole session fitted to the view ($runs runs)."
setup "Medians are the figures to read: on a shared machine the max of a figure can show other load."
node -e '
const e = process.env;
require("fs").writeFileSync(process.argv[1], JSON.stringify({
  date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  machine: {
    "CPU": e.M_CPU, "Cores (nproc)": process.argv[2], "RAM": e.M_RAM, "Kernel": e.M_KERNEL,
    "Qt": e.M_QT, "Compiler": e.M_COMPILER, "Node": process.version,
    "openai (npm)": e.M_OPENAI, "curl": e.M_CURL, "GNU grep": e.M_GREP, "ripgrep": e.M_RG,
  },
  setup: e.M_SETUP.split("\n"),
}, null, 1));' "$work/machine.json" "$(nproc)"

report="$root/docs/benchmarks.md"
# A run of some of the cases would make every other row "not measured".
[[ $(echo $cases | tr ' ' '\n' | sort -n -u | tr '\n' ' ') == "$all_cases " ]] || report="$build/benchmarks.md"
mkdir -p "$(dirname "$report")"
node "$root/bench/report.mjs" "$samples" "$work/machine.json" "$report"
cp "$samples" "$build/samples.jsonl"
log "done: $report (raw samples: $build/samples.jsonl)"
