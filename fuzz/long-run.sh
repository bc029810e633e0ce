#!/usr/bin/env bash
# Long libFuzzer runs on demand, outside CI: every fuzzer for the given seconds (default 600), as
# many at a time as there are cores, in build/fuzz-long. What a run learns stays in
# build/fuzz-long/fuzz/corpus/<fuzzer> for the next run; a crash input is written to
# build/fuzz-long/fuzz/artifacts/ and the run fails, naming it.
#   fuzz/long-run.sh [seconds]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-600}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: fuzz/long-run.sh [seconds]" >&2; exit 2; }
build="$root/build/fuzz-long"

cmake --preset fuzz -B "$build" -DAGENTLOOP_FUZZ_SECONDS="$seconds" -DAGENTLOOP_FUZZ_RUNS=-1 >/dev/null
cmake --build "$build" --target fuzz_sseparser fuzz_completion fuzz_jsonschema fuzz_arguments \
    fuzz_permissions
ctest --test-dir "$build" -L fuzz --output-on-failure -j "$(nproc)"
