#!/usr/bin/env bash
# The installer as a user meets it, under Wine and Xvfb (run by build.sh after prepare_wine):
#
#   smoke-test.sh "<out>/Agent Loop Setup x.y.z.exe" <cross-build folder>
#
# 0. Without Wine, from what build.sh left in <out>: the installer's file list is the stage's;
#    the finish page starts the app through Explorer, never directly (an elevated installer
#    would hand it its token: Wine has no elevation to show this, so the compiled script is
#    read from makensis's log); the PATH option is off by default.
# 1. Installs silently (/S /AddToPath), per machine, into a folder that already holds another
#    program's files, and checks the files (exactly the stage's, signed when build.sh signed
#    them, the uninstaller too), the Start menu shortcut, the "Apps & features" entry and the
#    folder appended to the user's PATH.
# 2. Runs the seed's example in the installed app: agentloop-fakeprovider answers on 127.0.0.1,
#    the app gets the task on its command line, the approval box is answered Yes with a key
#    press, and the provider must receive the tool's result "42" paired by tool_call_id and the
#    app must save the final answer in the conversation under %LOCALAPPDATA%.
# 3. Uninstalls silently and checks that the program, its shortcut, its registry entries and its
#    PATH entry are gone, while the other program's files, the rest of the PATH and the user's
#    settings and conversations are still there.
# shellcheck disable=SC2016  # $INSTDIR, $WINDIR and $(...) in quotes are NSIS's, matched as text
set -euo pipefail

installer=$(realpath "$1")
build=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(dirname "$installer")
log() { echo "[smoke $(date +%T)] $*" >&2; }
fail() {
    log "FAILED: $*"
    exit 1
}
# shellcheck source=packaging/windows/wine.sh
source "$here/wine.sh"
# shellcheck disable=SC1091
source "$out/wine.env"
# A Windows of its own, fresh each time, like a machine the app was never on. The installed app
# must find every DLL in its own folder: only the fake provider, run from the build, gets the
# DLL path of the build's Qt.
build_dll_path=$WINEPATH
unset WINEPATH
export WINEPREFIX="$out/wineprefix-smoke"
rm -rf "$WINEPREFIX"

work=$(mktemp -d)
xvfb_pid=
provider_pid=
app_pid=
cleanup() {
    if [[ -n "$app_pid" ]]; then kill "$app_pid" 2>/dev/null || true; fi
    if [[ -n "$provider_pid" ]]; then kill "$provider_pid" 2>/dev/null || true; fi
    wineserver -k 2>/dev/null || true
    if [[ -n "$xvfb_pid" ]]; then kill "$xvfb_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    local seconds=$1
    shift
    local deadline=$((SECONDS + seconds))
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.5
    done
}

# The files under folder $1, relative to it, one per line, sorted.
files_in() {
    (cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort)
}

log "0. the installer as compiled"
file_list="$out/installer-files.nsh"
stage="$out/stage"
# The file list's Delete lines, as paths relative to the installation folder.
listed=$(sed -n 's/^ *Delete "\$INSTDIR\\\(.*\)"$/\1/p' "$file_list" | tr "\\\\" / | LC_ALL=C sort)
[[ -n "$listed" && "$listed" == "$(files_in "$stage")" ]] \
    || fail "the uninstaller's list is not the stage: $(diff <(echo "$listed") <(files_in "$stage") | head -5)"
installed_by_list=$(sed -n 's/^ *File "\(.*\)"$/\1/p' "$file_list" | sed "s|^$stage/||" | LC_ALL=C sort)
[[ "$installed_by_list" == "$listed" ]] || fail "the installer's File lines are not the uninstaller's Delete lines"
# Every instruction that can start a program and names the app goes through Explorer.
makensis_log="$out/makensis.log"
starts=$(grep -E '^(Exec|ExecWait|ExecShell|ExecShellWait): ' "$makensis_log" | grep -i agentloop || true)
[[ -n "$starts" ]] || fail "the compiled installer never starts the app: $makensis_log"
if grep -vF 'Exec: ""$WINDIR\explorer.exe" "$INSTDIR\agentloop.exe""' <<<"$starts"; then
    fail "the installer starts the app other than through Explorer, with its own (elevated) token"
fi
grep -qx 'Call "RunAppUnelevated"' "$makensis_log" || fail "the finish page does not call RunAppUnelevated"
grep -q '^Section /o "\$(SectionPath)"' "$here/installer.nsi" || fail "the PATH option is not off by default"
log "   $(wc -l <<<"$listed") files listed, as staged; the finish page starts the app through Explorer"

log "0. a fresh Wine prefix"
wineboot --init >/dev/null 2>&1
wineserver -w

display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
export DISPLAY=$display
wait_for 10 xdpyinfo >/dev/null 2>&1 \
    || fail "Xvfb did not start on $display"

drive_c="$WINEPREFIX/drive_c"
program_dir="$drive_c/Program Files/Agent Loop"
start_menu="$drive_c/ProgramData/Microsoft/Windows/Start Menu/Programs/Agent Loop.lnk"
uninstall_key='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\AgentLoop'
user_dir=$(find "$drive_c/users" -mindepth 1 -maxdepth 1 -type d ! -name Public | head -1)
roaming="$user_dir/AppData/Roaming"
local_data="$user_dir/AppData/Local"
rm -rf "$program_dir" "$roaming/AgentLoop" "$local_data/AgentLoop"
# Another program's files in the folder, one in a folder of the same name as one of ours, and
# another entry on the user's PATH: the uninstaller must leave them all.
mkdir -p "$program_dir/platforms"
echo "not Agent Loop's" >"$program_dir/other.dll"
echo "not Agent Loop's" >"$program_dir/platforms/other.txt"
others=$(files_in "$program_dir")
other_path='C:\Other Program\bin'
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$other_path" /f >/dev/null
# The user's PATH as the registry holds it (REG_EXPAND_SZ, as Windows keeps it).
user_path() {
    wine reg query 'HKCU\Environment' /v Path 2>/dev/null | tr -d '\r' \
        | sed -n 's/^ *Path *REG_EXPAND_SZ *//p'
}

log "1. installing silently: $(basename "$installer") /S /AllUsers /AddToPath"
wine "$installer" /S /AllUsers /AddToPath
wineserver -w
[[ "$(files_in "$program_dir")" == "$(LC_ALL=C sort <<<"$listed"$'\n'"$others"$'\nUninstall.exe')" ]] \
    || fail "$program_dir does not hold exactly the stage's files, the uninstaller and the other files: $(files_in "$program_dir" | head -50)"
[[ -f "$start_menu" ]] || fail "no Start menu shortcut at $start_menu"
wine reg query "$uninstall_key" /v DisplayVersion | grep -q DisplayVersion \
    || fail "no Apps & features entry ($uninstall_key)"
[[ "$(user_path)" == "$other_path;C:\Program Files\Agent Loop" ]] \
    || fail "/AddToPath did not append the installation folder to the user's PATH: $(user_path)"
if [[ -f "$out/signature-ca" ]]; then
    mapfile -t signed < <(grep -iE '\.(exe|dll)$' <<<"$listed"$'\nUninstall.exe' | sed "s|^|$program_dir/|")
    "$here/sign.sh" verify "$(cat "$out/signature-ca")" "${signed[@]}" \
        || fail "an installed file has no valid signature"
    log "   signatures valid on all ${#signed[@]} installed programs and DLLs, the uninstaller too"
else
    log "   not signed (build.sh had no certificate): signatures not checked"
fi
log "   installed: $(find "$program_dir" -type f | wc -l) files, $(du -sh "$program_dir" | cut -f1); user PATH: $(user_path)"

log "2. the seed's example in the installed app against agentloop-fakeprovider"
WINEPATH=$build_dll_path wine "$build/agentloop-fakeprovider.exe" --port-file "$(windows_path "$work/url")" \
    --log "$(windows_path "$work/requests.jsonl")" >"$work/provider.log" 2>&1 &
provider_pid=$!
wait_for 30 test -s "$work/url" || fail "the fake provider did not start: $(cat "$work/provider.log")"
base_url=$(cat "$work/url")
# A workspace with a space and Chinese characters in its name.
workspace_name="Agent Loop 工作区"
mkdir -p "$user_dir/$workspace_name"
mkdir -p "$roaming/AgentLoop"
cat >"$roaming/AgentLoop/Agent Loop.ini" <<INI
[provider]
baseUrl=$base_url
model=gpt-4.1
storeKeyInPlainText=true
apiKey=sk-smoke-test-not-a-real-key
[agent]
demoMode=false
workspace=C:/users/$(basename "$user_dir")/$workspace_name
INI
task="运行 Write-Output 42,并告诉我结果"
(cd "$program_dir" && wine ./agentloop.exe -platform windows "$task" >"$work/app.log" 2>&1) &
app_pid=$!

wait_for 60 test -s "$work/requests.jsonl" \
    || fail "the app sent no request: $(tail -5 "$work/app.log")"
# The approval box takes no approval in its first 0.7 s and no bare letter ever approves: keys
# typed by accident (y, the Allow mnemonic's a, Enter on the default Deny... not pressed here)
# must not reach the provider; Alt+A after the delay does. Wine gives the box the focus as it
# maps; the key goes to whatever has it, so retry until the second request arrives.
approval=
for _ in $(seq 1 40); do
    approval=$(xdotool search --name "Approve tool call" 2>/dev/null | head -1 || true)
    [[ -n "$approval" ]] && break
    sleep 0.5
done
[[ -n "$approval" ]] || fail "no approval box appeared"
second_request() { [[ $(wc -l <"$work/requests.jsonl") -ge 2 ]]; }
xdotool windowfocus "$approval" 2>/dev/null || true
xdotool type --delay 50 "ya" 2>/dev/null || true
sleep 1.5
second_request && fail "a bare key approved the call"
for _ in $(seq 1 10); do
    xdotool windowfocus "$approval" 2>/dev/null || true
    xdotool key --clearmodifiers alt+a
    wait_for 3 second_request && break
done
second_request || fail "the approval was not answered: no second request reached the provider"

tool_message=$(sed -n 2p "$work/requests.jsonl" | jq -c '[.messages[] | select(.role == "tool")] | last')
[[ $(jq -r .tool_call_id <<<"$tool_message") == call_abc123 ]] \
    || fail "the tool's result is not paired with call_abc123: $tool_message"
[[ $(jq -r '.content | rtrimstr("\n") | rtrimstr("\r")' <<<"$tool_message") == 42 ]] \
    || fail "the tool's result is not 42: $tool_message"
log "   the provider received the tool's result: $tool_message"

conversations="$local_data/AgentLoop/AgentLoop/conversations"
answer_saved() { grep -qs "命令执行成功,输出是 42" "$conversations"/*.jsonl; }
wait_for 30 answer_saved || fail "no saved conversation with the final answer under $conversations"
log "   final answer saved in $(basename "$(ls "$conversations"/*.jsonl)")"
if command -v import >/dev/null; then
    sleep 1 # the answer is painted after it is saved
    import -window root "$out/smoke-test.png" && log "   screenshot: $out/smoke-test.png"
fi
xdotool search --name "Agent Loop" key --clearmodifiers ctrl+q 2>/dev/null || true
wait_for 15 bash -c "! kill -0 $app_pid 2>/dev/null" || kill "$app_pid" 2>/dev/null || true
app_pid=
kill "$provider_pid" 2>/dev/null || true
provider_pid=
wineserver -w

log "3. uninstalling silently"
wine "$program_dir/Uninstall.exe" /S /AllUsers
# The uninstaller copies itself to %TEMP% and runs from there: wait for its work, not its exit.
only_others_left() { [[ "$(files_in "$program_dir")" == "$others" && ! -e "$program_dir/styles" ]]; }
wait_for 60 only_others_left \
    || fail "$program_dir holds more than the other program's files: $(files_in "$program_dir" | head -20)"
wineserver -w
only_others_left || fail "the other program's files are not all there: $(files_in "$program_dir")"
leftover=$(cd "$program_dir" && find . -mindepth 1 -type d -printf '%P\n')
[[ "$leftover" == platforms ]] || fail "folders left that only Agent Loop used: $leftover"
[[ ! -e "$start_menu" ]] || fail "the Start menu shortcut is still there"
if wine reg query "$uninstall_key" >/dev/null 2>&1; then fail "the Apps & features entry is still there"; fi
[[ "$(user_path)" == "$other_path" ]] || fail "the user's PATH is not as before the install: $(user_path)"
[[ -f "$roaming/AgentLoop/Agent Loop.ini" ]] || fail "the user's settings were removed"
answer_saved || fail "the user's conversations were removed"
log "   program, shortcut, registry and PATH entries gone; the other program's files, the rest of"
log "   the PATH, settings and conversations kept"
log "passed"
