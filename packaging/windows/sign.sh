#!/usr/bin/env bash
# Authenticode signatures for the Windows build, made and checked with osslsigncode. Only options
# that osslsigncode 2.5 (Debian 12's) has are used.
#
#   sign.sh sign FILE...          signs each PE file in place (build.sh; makensis for the
#                                 uninstaller and the installer)
#   sign.sh verify CAFILE FILE... checks each file's signature against CAFILE ("" for
#                                 osslsigncode's default, the system's CA bundle)
#   sign.sh throwaway DIR         makes a self-signed code-signing certificate for CI in DIR:
#                                 certificate.pfx, its password in password, certificate.pem
#
# The certificate comes from the environment:
#   AGENTLOOP_SIGN_PFX            the certificate with its private key (.pfx or .p12)
#   AGENTLOOP_SIGN_PASSWORD_FILE  a file holding its password, or else
#   AGENTLOOP_SIGN_PASSWORD       the password itself
#   AGENTLOOP_SIGN_TIMESTAMP_URL  an RFC 3161 timestamp server; without it, no timestamp
# The password reaches osslsigncode only through a file (-readpass): a command line can be read
# by every user of the machine with ps.
#
# Sourced by build.sh for signing_password_to_file; run for everything else.
set -euo pipefail

# Moves AGENTLOOP_SIGN_PASSWORD into a temporary file only this user can read, removed when the
# shell exits, and names it in AGENTLOOP_SIGN_PASSWORD_FILE: no program started afterwards
# inherits the password in its environment (ps e shows that too).
signing_password_to_file()
{
    [[ -n "${AGENTLOOP_SIGN_PASSWORD_FILE:-}" || -z "${AGENTLOOP_SIGN_PASSWORD+set}" ]] && return 0
    local file
    file=$(mktemp)  # mode 600
    # shellcheck disable=SC2064  # the name is fixed now
    trap "rm -f '$file'" EXIT
    printf '%s' "$AGENTLOOP_SIGN_PASSWORD" >"$file"  # printf is a builtin: no command line
    unset AGENTLOOP_SIGN_PASSWORD
    export AGENTLOOP_SIGN_PASSWORD_FILE=$file
}

sign_files()
{
    [[ -f "${AGENTLOOP_SIGN_PFX:-}" ]] || { echo "sign.sh: no certificate at AGENTLOOP_SIGN_PFX='${AGENTLOOP_SIGN_PFX:-}'" >&2; return 1; }
    signing_password_to_file
    local options=(-pkcs12 "$AGENTLOOP_SIGN_PFX" -h sha256 -n "Agent Loop")
    # No password, or an empty one: osslsigncode reads no empty file, and needs none.
    [[ -s "${AGENTLOOP_SIGN_PASSWORD_FILE:-}" ]] && options+=(-readpass "$AGENTLOOP_SIGN_PASSWORD_FILE")
    [[ -n "${AGENTLOOP_SIGN_TIMESTAMP_URL:-}" ]] && options+=(-ts "$AGENTLOOP_SIGN_TIMESTAMP_URL")
    local file output
    for file in "$@"; do
        rm -f "$file.signed"
        if ! output=$(osslsigncode sign "${options[@]}" -in "$file" -out "$file.signed" 2>&1); then
            rm -f "$file.signed"
            echo "sign.sh: could not sign $file:" >&2
            tail -4 <<<"$output" >&2
            return 1
        fi
        mv "$file.signed" "$file"
    done
}

verify_files()
{
    local ca=$1 file output
    shift
    local options=()
    [[ -n "$ca" ]] && options=(-CAfile "$ca")
    for file in "$@"; do
        if ! output=$(osslsigncode verify "${options[@]}" -in "$file" 2>&1); then
            echo "sign.sh: no valid signature on $file:" >&2
            tail -4 <<<"$output" >&2
            return 1
        fi
    done
}

make_throwaway_certificate()
{
    local dir=$1
    rm -rf "$dir"
    mkdir -p "$dir"
    chmod 700 "$dir"
    openssl rand -hex 24 >"$dir/password"
    chmod 600 "$dir/password"
    # Valid for two days, for code signing only.
    openssl req -x509 -newkey rsa:3072 -sha256 -days 2 -nodes \
        -subj "/CN=Agent Loop CI throwaway code signing" \
        -addext "keyUsage=critical,digitalSignature" \
        -addext "extendedKeyUsage=critical,codeSigning" \
        -keyout "$dir/key.pem" -out "$dir/certificate.pem" 2>/dev/null
    openssl pkcs12 -export -inkey "$dir/key.pem" -in "$dir/certificate.pem" \
        -passout "file:$dir/password" -out "$dir/certificate.pfx"
    rm -f "$dir/key.pem"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    command=${1:-}
    shift || true
    case "$command" in
    sign) sign_files "$@" ;;
    verify) verify_files "$@" ;;
    throwaway) make_throwaway_certificate "$@" ;;
    *)
        echo "usage: sign.sh sign FILE... | verify CAFILE FILE... | throwaway DIR" >&2
        exit 2
        ;;
    esac
fi
