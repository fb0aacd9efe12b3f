#!/usr/bin/env bash
# Open MPI's rsh agent for the hosts of tests/vm/two-hosts.sh: `netns-rsh.sh HOST CMD...`
# runs CMD inside HOST's network and UTS namespaces, as ssh would run it on HOST.
# Open MPI may put ssh-style options before the host name; they are skipped.
set -euo pipefail
while [ $# -gt 0 ] && [[ $1 == -* ]]; do shift; done
host=${1:?usage: netns-rsh.sh HOST CMD...}
shift
dir=${CONTENTION_HOSTS_DIR:?netns-rsh.sh runs under tests/vm/two-hosts.sh}
[ -e "/run/netns/$host" ] && [ -e "$dir/$host.uts" ] || {
    echo "netns-rsh: no host '$host' (namespaces of tests/vm/two-hosts.sh in $dir)" >&2
    exit 255
}
exec nsenter --net="/run/netns/$host" --uts="$dir/$host.uts" sh -c "$*"
