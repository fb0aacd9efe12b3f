# shellcheck shell=bash
# Sourced by .ci/setup, .ci/setup-tests and .ci/run (not run by itself).
#
# A set-up declares what it needs with `need PACKAGES CHECK...`, then calls `install_missing`
# and `run_checks`: apt-get installs the Debian packages that are missing, then every CHECK
# (a bash command line) must exit 0 in the environment of a fresh login (`fresh`), where a
# program is found only under the name the scripts and tests call it by, on the PATH a fresh
# machine gives. A program installed by hand elsewhere, or on the PATH of the shell that ran
# the set-up only, does not count. Every failing check is named, with what to do.
#
# `--list` (the set-up's only argument) prints what it would install and check, and changes
# nothing.

# The PATH a fresh Debian machine gives root (login.defs' ENV_SUPATH, which login and su -
# set), and rustup's bin directory in front of it, as rustup's ~/.cargo/env (sourced by the
# ~/.profile rustup's installer writes) puts it for a login shell.
FRESH_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CARGO_BIN=${CARGO_HOME:-${HOME:?}/.cargo}/bin

# fresh CMD [ARGS...]: runs CMD in the environment of a fresh root login: HOME, rustup's bin
# directory then FRESH_PATH, and of this environment only the settings that say what to run
# and how to reach the network: CI (CI=true makes the tests on virtual test machines
# required), CONTENTION_VM_TESTS, rustup's homes and proxies (apt-get, pip). CMD may start
# with NAME=VALUE words, as for env.
fresh() {
    local keep=() v
    for v in CI CONTENTION_VM_TESTS CARGO_HOME RUSTUP_HOME http_proxy https_proxy no_proxy \
        HTTP_PROXY HTTPS_PROXY NO_PROXY; do
        if [ -n "${!v+set}" ]; then
            keep+=("$v=${!v}")
        fi
    done
    env -i HOME="$HOME" PATH="$CARGO_BIN:$FRESH_PATH" "${keep[@]}" "$@"
}

setup_name=$(basename "$0")
say() {
    echo "$setup_name: $*" >&2
}

listing=false
# setup_args "$@": a set-up's arguments: none, or --list.
setup_args() {
    case "${1:-}" in
        "") ;;
        --list) listing=true ;;
        *)
            echo "usage: bash $0 [--list]" >&2
            exit 2
            ;;
    esac
}

# as_root CMD [ARGS...]: CMD as root (through sudo when not root).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        say "need root (or sudo) to run: $*"
        exit 1
    fi
}

packages=()
checks=()
remedies=()

# check REMEDY CHECK: CHECK must pass after the installs; REMEDY says what to do otherwise.
check() {
    checks+=("$2")
    remedies+=("$1")
    if $listing; then
        echo "check $2"
    fi
}

# need "PACKAGE..." [CHECK...]: the Debian packages are installed when missing, and each CHECK
# (a bash command line, run in the fresh environment) must then exit 0 within a minute.
need() {
    local pkgs=$1 c
    shift
    # shellcheck disable=SC2206 # the package list is words
    packages+=($pkgs)
    if $listing; then
        echo "install $pkgs"
    fi
    for c in "$@"; do
        check "install or repair the Debian package(s): apt-get install --reinstall $pkgs" "$c"
    done
}

# Installs the packages of every `need` that dpkg does not list as installed.
install_missing() {
    local missing=() p
    $listing && return 0
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The program a check runs: its first word that is not a NAME=VALUE setting.
check_program() {
    local words w
    read -r -a words <<<"$1"
    for w in "${words[@]}"; do
        if [[ $w != *=* ]]; then
            echo "$w"
            return
        fi
    done
}

# Runs every check in the fresh environment; names each that fails, with its output's last
# lines and what to do, and exits 1 if any did.
run_checks() {
    local i c program out rc failed=0
    $listing && return 0
    for i in "${!checks[@]}"; do
        c=${checks[i]}
        program=$(check_program "$c")
        # type -P: a file on PATH, as exec finds it (not a shell builtin of that name).
        # shellcheck disable=SC2016 # $1 is for the inner bash
        if ! fresh bash -c 'type -P "$1"' bash "$program" >/dev/null; then
            say "FAILED: \`$program\` is not found on the PATH of a fresh login" \
                "($CARGO_BIN:$FRESH_PATH); ${remedies[i]}"
            failed=$((failed + 1))
            continue
        fi
        rc=0
        out=$(fresh timeout 60 bash -c "$c" 2>&1 </dev/null) || rc=$?
        if [ "$rc" -ne 0 ]; then
            say "FAILED: \`$c\` exited $rc$([ "$rc" -eq 124 ] && echo ' (ran past 60 s)');" \
                "${remedies[i]}. Its last lines:"
            tail -n 5 <<<"$out" | sed 's/^/    /' >&2
            failed=$((failed + 1))
        fi
    done
    if [ "$failed" -gt 0 ]; then
        say "$failed of ${#checks[@]} checks failed (see above)"
        exit 1
    fi
    say "${#checks[@]} checks passed in the environment of a fresh login"
}
