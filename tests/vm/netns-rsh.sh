#!/usr/bin/env bash
# The rsh agent of Open MPI's mpirun and MPICH's Hydra for the hosts of tests/vm/hosts.sh:
# `netns-rsh.sh HOST CMD...` runs CMD inside HOST's network and UTS namespaces, as ssh would
# run it on HOST (its name, or its address on the hosts' bridge). A launcher may put
# ssh-style options before the host name; they are skipped.
# With CONTENTION_HOSTS_LOW_MEMORY=HOST:MIB, HOST's CMD sees MIB MiB free on every NUMA node
# (MemFree, with no page cache or slab to reclaim on top). With CONTENTION_HOSTS_OWN_SYSFS=1,
# CMD sees a sysfs of HOST's own network namespace (its interfaces in /sys/class/net, which
# UCX reads to find its devices).
set -euo pipefail
while [ $# -gt 0 ] && [[ $1 == -* ]]; do shift; done
host=${1:?usage: netns-rsh.sh HOST CMD...}
shift
dir=${CONTENTION_HOSTS_DIR:?netns-rsh.sh runs under tests/vm/hosts.sh}
# A host given by its address (hosts.sh wrote which host has it).
if [ -f "$dir/$host.host" ]; then
    host=$(cat "$dir/$host.host")
fi
[ -e "/run/netns/$host" ] && [ -e "$dir/$host.uts" ] || {
    echo "netns-rsh: no host '$host' (namespaces of tests/vm/hosts.sh in $dir)" >&2
    exit 255
}
low=${CONTENTION_HOSTS_LOW_MEMORY:-}
if [ -n "$low" ] && [ "${low%%:*}" = "$host" ]; then
    mib=${low#*:}
    # A private mount namespace in which each node's meminfo says MIB MiB free and nothing
    # reclaimable (measure counts Inactive(file) and SReclaimable as available too).
    script='for f in /sys/devices/system/node/node*/meminfo; do
        n=${f%/meminfo}; n=${n##*node}
        fake="$HOSTS_DIR/$HOSTS_HOST-node$n.meminfo"
        sed -e "s/MemFree: *[0-9]* kB/MemFree: $((HOSTS_MIB * 1024)) kB/" \
            -e "s/Inactive(file): *[0-9]* kB/Inactive(file): 0 kB/" \
            -e "s/SReclaimable: *[0-9]* kB/SReclaimable: 0 kB/" "$f" > "$fake"
        mount --bind "$fake" "$f"
    done
    exec sh -c "$0"'
    exec nsenter --net="/run/netns/$host" --uts="$dir/$host.uts" \
        env HOSTS_DIR="$dir" HOSTS_HOST="$host" HOSTS_MIB="$mib" \
        unshare --mount --propagation private sh -c "$script" "$*"
fi
if [ "${CONTENTION_HOSTS_OWN_SYSFS:-0}" = 1 ]; then
    # The host's own view of /sys (a sysfs mounted in its network namespace lists its own
    # interfaces in /sys/class/net, as on a real host): UCX finds its devices there.
    exec nsenter --net="/run/netns/$host" --uts="$dir/$host.uts" \
        unshare --mount --propagation private sh -c 'mount -t sysfs sysfs /sys && exec sh -c "$0"' "$*"
fi
exec nsenter --net="/run/netns/$host" --uts="$dir/$host.uts" sh -c "$*"
