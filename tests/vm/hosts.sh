#!/usr/bin/env bash
# N MPI "hosts" on one machine, then CMD run on the first of them.
#
#   tests/vm/hosts.sh HOST_1 HOST_2 [HOST_3 ...] -- CMD [ARGS...]
#
# Each host is a network namespace (`ip netns`) with its own UTS namespace (its own host
# name, kept alive by a bind mount on a file). Every host has a veth pair whose other end is
# enslaved to a bridge in a switch namespace of its own, so any host reaches any other: host
# i has the address 10.231.X.i/24 (X from this script's PID, so parallel runs do not
# collide). CMD runs inside HOST_1's namespaces with tests/vm/netns-rsh.sh as the rsh agent
# of both MPI launchers (OMPI_MCA_plm_rsh_agent for Open MPI's mpirun, HYDRA_LAUNCHER=rsh
# and HYDRA_LAUNCHER_EXEC for MPICH's Hydra): it starts the remote daemon or proxy inside
# another host's namespaces. `mpirun --host HOST_1,HOST_2,... --map-by node`, `mpiexec.mpich
# -hosts HOST_1,HOST_2,...` (or `contention survey --hosts ...`) then place one rank on each,
# and they talk TCP through the bridge. Hydra's proxies call back to the launching host by
# name, which nothing resolves here: HYDRA_IFACE names HOST_1's interface, whose address
# they are given instead. CMD gets the hosts' addresses, in order, in
# CONTENTION_HOSTS_ADDRESSES (comma-separated), and the rsh agent takes an address for its
# host's name (`$dir/ADDRESS.host` names it), as a cluster's host list of addresses would be
# used: `sh -c 'contention survey --hosts "$CONTENTION_HOSTS_ADDRESSES"'`.
#
# A host made different on purpose: CONTENTION_HOSTS_LOW_MEMORY=HOST:MIB makes the daemon of
# HOST (not HOST_1, which runs CMD itself) see MIB MiB free on every NUMA node (a private
# mount namespace over /sys/devices/system/node/node*/meminfo), as a node with less free
# memory would: `measure`'s default buffer then shrinks on that host only.
#
# Host names resolve nowhere by default. CONTENTION_HOSTS_RESOLVE=1 gives CMD (alone: not
# the daemons) an /etc/hosts that maps every host's name to its address (a private mount
# namespace, the file bind-mounted over /etc/hosts), as a cluster's names resolve on the
# node where a survey is started.
#
# Every namespace, veth and mount this script made is removed when it exits, also when CMD
# fails or the script is interrupted (trap on EXIT, INT, TERM, HUP). Needs root, iproute2
# (`ip`) and util-linux (`unshare`, `nsenter`). Exit status: CMD's, or 3 when the hosts
# could not be made. tests/vm/two-hosts.sh is this script for two hosts.
set -euo pipefail

hosts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    hosts+=("$1")
    shift
done
if [ ${#hosts[@]} -lt 2 ] || [ $# -lt 2 ]; then
    echo "usage: $0 HOST_1 HOST_2 [HOST_3 ...] -- CMD [ARGS...]" >&2
    exit 2
fi
shift
if [ ${#hosts[@]} -gt 200 ]; then
    echo "hosts: at most 200 hosts" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
for h in "${hosts[@]}"; do
    # Names become namespace, interface and file names: keep them plain.
    if ! [[ $h =~ ^[a-z][a-z0-9-]{0,10}$ ]]; then
        echo "hosts: host name '$h' must be 1-11 of a-z 0-9 - (a letter first)" >&2
        exit 2
    fi
done
if [ "$(printf '%s\n' "${hosts[@]}" | sort | uniq -d)" != "" ]; then
    echo "hosts: a host is named twice: ${hosts[*]}" >&2
    exit 2
fi
for tool in ip unshare nsenter mount umount; do
    command -v "$tool" >/dev/null || { echo "hosts: '$tool' not found (iproute2, util-linux)" >&2; exit 3; }
done
[ "$(id -u)" -eq 0 ] || { echo "hosts: needs root (network namespaces)" >&2; exit 3; }

dir=$(mktemp -d /tmp/contention-hosts.XXXXXX)
subnet=10.231.$(($$ % 250 + 1))
switch=csw$$
made_ns=()

child=""
cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    # Deleting a namespace deletes the veth ends inside it, and so their peers.
    for ns in "${made_ns[@]}"; do
        ip netns del "$ns" 2>/dev/null || true
    done
    for h in "${hosts[@]}"; do
        ip link del "v$h" 2>/dev/null || true
        umount "$dir/$h.uts" 2>/dev/null || true
    done
    rm -rf "$dir"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

for h in "${hosts[@]}" "$switch"; do
    if ip netns list | grep -qw "^$h"; then
        echo "hosts: a network namespace '$h' exists already; pick other names" >&2
        exit 3
    fi
done

# Each step checked: `set -e` does not apply inside a function called before `||`.
make_switch() {
    ip netns add "$switch" || return 1
    made_ns+=("$switch")
    ip -n "$switch" link add br0 type bridge || return 1
    ip -n "$switch" link set br0 up || return 1
}

make_host() {
    local h=$1 addr=$2
    ip link add "v$h" type veth peer name "s$h" || return 1
    ip link set "s$h" netns "$switch" || return 1
    ip -n "$switch" link set "s$h" master br0 || return 1
    ip -n "$switch" link set "s$h" up || return 1
    ip netns add "$h" || return 1
    made_ns+=("$h")
    ip -n "$h" link set lo up || return 1
    # A persistent UTS namespace: unshare bind-mounts it on the file, and it outlives the
    # process that set the host name.
    touch "$dir/$h.uts" || return 1
    unshare --uts="$dir/$h.uts" hostname "$h" || return 1
    ip link set "v$h" netns "$h" || return 1
    ip -n "$h" addr add "$addr/24" dev "v$h" || return 1
    ip -n "$h" link set "v$h" up || return 1
    echo "$h" > "$dir/$addr.host" || return 1
}

if ! make_switch; then
    echo "hosts: cannot make the switch namespace" >&2
    exit 3
fi
i=0
addresses=()
for h in "${hosts[@]}"; do
    i=$((i + 1))
    if ! make_host "$h" "$subnet.$i"; then
        echo "hosts: cannot make host $h" >&2
        exit 3
    fi
    addresses+=("$subnet.$i")
done

# Open MPI's daemons and ranks find each other by TCP on the bridge's subnet (the only
# network inside the namespaces besides loopback, which Open MPI would otherwise take).
export CONTENTION_HOSTS_DIR=$dir
CONTENTION_HOSTS_ADDRESSES=$(IFS=,; echo "${addresses[*]}")
export CONTENTION_HOSTS_ADDRESSES
export OMPI_MCA_plm_rsh_agent="$here/netns-rsh.sh"
export OMPI_MCA_btl_tcp_if_include="$subnet.0/24"
export OMPI_MCA_oob_tcp_if_include="$subnet.0/24"
export HYDRA_LAUNCHER=rsh
export HYDRA_LAUNCHER_EXEC="$here/netns-rsh.sh"
export HYDRA_IFACE="v${hosts[0]}"
echo "hosts: ${hosts[*]} up on $subnet.0/24; running: $*" >&2
# In the background, then `wait`: bash runs a trap only once the foreground command ends,
# and `wait` returns at once on a signal, so an interrupted run is cleaned up at once.
run=("$@")
if [ "${CONTENTION_HOSTS_RESOLVE:-0}" = 1 ]; then
    { echo "127.0.0.1 localhost"; for i in "${!hosts[@]}"; do echo "${addresses[$i]} ${hosts[$i]}"; done; } > "$dir/hosts"
    # shellcheck disable=SC2016 # expanded by the inner shell
    run=(unshare --mount --propagation private sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$dir/hosts" "$@")
fi
if [ "${CONTENTION_HOSTS_OWN_SYSFS:-0}" = 1 ]; then
    # As netns-rsh.sh does for the other hosts: the first host's own /sys/class/net.
    # shellcheck disable=SC2016 # expanded by the inner shell
    run=(unshare --mount --propagation private sh -c 'mount -t sysfs sysfs /sys && exec "$@"' sh "${run[@]}")
fi
set +e
nsenter --net="/run/netns/${hosts[0]}" --uts="$dir/${hosts[0]}.uts" "${run[@]}" <&0 &
child=$!
wait "$child"
rc=$?
child=""
set -e
exit "$rc"
