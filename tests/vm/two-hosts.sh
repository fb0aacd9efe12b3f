#!/usr/bin/env bash
# Two MPI "hosts" on one machine, then CMD run on the first of them.
#
#   tests/vm/two-hosts.sh HOST_A HOST_B -- CMD [ARGS...]
#
# Each host is a network namespace (`ip netns`) with its own UTS namespace (its own host
# name, kept alive by a bind mount on a file), the two joined by a veth pair with the
# addresses 10.231.X.1 and 10.231.X.2/24 (X from this script's PID, so parallel runs do
# not collide). CMD runs inside HOST_A's namespaces with OMPI_MCA_plm_rsh_agent pointing
# at tests/vm/netns-rsh.sh, which starts Open MPI's remote daemon inside the other host's
# namespaces: `mpirun --host HOST_A,HOST_B --map-by node` (or `contention measure --hosts
# HOST_A,HOST_B`) then places one rank on each and they talk TCP over the veth pair.
#
# Every namespace, veth and mount this script made is removed when it exits, also when CMD
# fails or the script is interrupted (trap on EXIT, INT, TERM, HUP). Needs root, iproute2
# (`ip`) and util-linux (`unshare`, `nsenter`). Exit status: CMD's, or 3 when the hosts
# could not be made.
set -euo pipefail

if [ $# -lt 4 ] || [ "$3" != "--" ]; then
    echo "usage: $0 HOST_A HOST_B -- CMD [ARGS...]" >&2
    exit 2
fi
a=$1 b=$2
shift 3
here=$(cd "$(dirname "$0")" && pwd)
for h in "$a" "$b"; do
    # Names become namespace, interface and file names: keep them plain.
    if ! [[ $h =~ ^[a-z][a-z0-9-]{0,10}$ ]]; then
        echo "two-hosts: host name '$h' must be 1-11 of a-z 0-9 - (a letter first)" >&2
        exit 2
    fi
done
for tool in ip unshare nsenter mount umount; do
    command -v "$tool" >/dev/null || { echo "two-hosts: '$tool' not found (iproute2, util-linux)" >&2; exit 3; }
done
[ "$(id -u)" -eq 0 ] || { echo "two-hosts: needs root (network namespaces)" >&2; exit 3; }

dir=$(mktemp -d /tmp/contention-hosts.XXXXXX)
subnet=10.231.$(($$ % 250 + 1))
made_ns=()

child=""
cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    for ns in "${made_ns[@]}"; do
        ip netns del "$ns" 2>/dev/null || true
    done
    for h in "$a" "$b"; do
        umount "$dir/$h.uts" 2>/dev/null || true
    done
    rm -rf "$dir"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Each step checked: `set -e` does not apply inside a function called before `||`.
make_host() {
    local h=$1 addr=$2 peer_if=$3
    ip netns add "$h" || return 1
    made_ns+=("$h")
    ip -n "$h" link set lo up || return 1
    # A persistent UTS namespace: unshare bind-mounts it on the file, and it outlives the
    # process that set the host name.
    touch "$dir/$h.uts" || return 1
    unshare --uts="$dir/$h.uts" hostname "$h" || return 1
    ip link set "$peer_if" netns "$h" || return 1
    ip -n "$h" addr add "$addr/24" dev "$peer_if" || return 1
    ip -n "$h" link set "$peer_if" up || return 1
}

for h in "$a" "$b"; do
    if ip netns list | grep -qw "^$h"; then
        echo "two-hosts: a network namespace '$h' exists already; pick other names" >&2
        exit 3
    fi
done
ip link add "v$a" type veth peer name "v$b" || { echo "two-hosts: cannot make a veth pair" >&2; exit 3; }
if ! make_host "$a" "$subnet.1" "v$a" || ! make_host "$b" "$subnet.2" "v$b"; then
    ip link del "v$a" 2>/dev/null || true
    echo "two-hosts: cannot make the namespaces" >&2
    exit 3
fi

# Open MPI's daemons and ranks find each other by TCP on the veth pair's subnet (the only
# network inside the namespaces besides loopback, which Open MPI would otherwise take).
export CONTENTION_HOSTS_DIR=$dir
export OMPI_MCA_plm_rsh_agent="$here/netns-rsh.sh"
export OMPI_MCA_btl_tcp_if_include="$subnet.0/24"
export OMPI_MCA_oob_tcp_if_include="$subnet.0/24"
echo "two-hosts: $a ($subnet.1) and $b ($subnet.2) up; running: $*" >&2
# In the background, then `wait`: bash runs a trap only once the foreground command ends,
# and `wait` returns at once on a signal, so an interrupted run is cleaned up at once.
set +e
nsenter --net="/run/netns/$a" --uts="$dir/$a.uts" "$@" <&0 &
child=$!
wait "$child"
rc=$?
child=""
set -e
exit "$rc"
