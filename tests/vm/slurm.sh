#!/usr/bin/env bash
# A real Slurm cluster on one machine, for the tests: Debian's slurmctld, slurmd and munge,
# every node a network + UTS namespace of its own ("host"), all joined by a bridge.
#
#   tests/vm/slurm.sh up NAME NODES          make cluster NAME: nodes NAME-1 .. NAME-NODES
#                                            (NODES: 1-16) and a login node NAME-login
#   tests/vm/slurm.sh login NAME CMD [ARG..] run CMD on the login node (srun, salloc, sbatch,
#                                            scancel, squeue, contention ...)
#   tests/vm/slurm.sh node NAME I CMD [ARG..] run CMD on node NAME-I
#   tests/vm/slurm.sh wait NAME JOB [SECONDS] wait until batch job JOB has ended (300 s at
#                                            most); print its state (COMPLETED, CANCELLED,
#                                            FAILED ...); exit 0 when it COMPLETED, 1 when
#                                            it ended otherwise, 124 when it still runs
#   tests/vm/slurm.sh down NAME              end every process of the cluster, remove it
#
# NAME (1-10 of a-z 0-9, a letter first) names the namespaces (NAME-login, NAME-1 ..,
# NAME-sw, the bridge's) and the state directory /tmp/contention-slurm-NAME: configuration,
# munge key and socket, spool directories and the daemons' logs (log/). Clusters of other
# names run side by side. `up` removes an old cluster of the same NAME first; a failed `up`
# prints the daemons' last log lines and removes what it made (exit 3: the cluster could not
# be made here). Needs root, iproute2, util-linux and the Debian packages slurmctld, slurmd,
# slurm-client and munge.
#
# The cluster: slurmctld on the login node; one slurmd per node, declared with 2 CPUs
# (`SlurmdParameters=config_overrides`: whatever this machine has); munged, private to the
# cluster (its own key and socket), on the login node; `ProctrackType=proctrack/linuxproc`
# and `TaskPlugin=task/none` (no cgroups: nothing outside the namespaces is touched);
# `MpiDefault=none`, as many sites leave it; nodes found by address (`NodeAddr`), so no name
# needs resolving. Inside every host the one network interface is `eth0` (10.77.0.I/24, the
# login node .254): MPICH's Hydra is told to use it (HYDRA_IFACE=eth0), as it would otherwise
# have the proxies resolve the launching host's name. No host has a default route: nothing
# leaves the namespaces.
#
# Pitfalls met on the way, and handled below:
# - munged wants its key owned by the user it runs as (munge) and mode 0600, and every
#   directory above its socket traversable by that user: the state directory is mode 755.
# - slurmstepd, srun and salloc ignore SIGTERM: `down` ends every process in the cluster's
#   namespaces with SIGKILL (the state is thrown away), until none is left.
# - A daemon killed is reparented to PID 1 and may stay a zombie a while: `kill -0` would
#   still see it, so a process counts as alive only while /proc/PID/stat says it is not one.
# - By default slurmctld starts a batch job at the next scheduler pass, about a second after
#   sbatch: `batch_sched_delay=0` tries at once.
# - Slurm's clients read SLURM_CONF and talk to slurmctld by its address: they must run
#   inside the namespaces (`login`, `node`), never in the machine's own.
set -euo pipefail

net=10.77.0
login_ip=$net.254

say() { echo "slurm: $*" >&2; }
usage() {
    sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# name NAME: checks NAME and sets the cluster's paths and namespace names.
name() {
    if ! [[ ${1:-} =~ ^[a-z][a-z0-9]{0,9}$ ]]; then
        say "cluster name '${1:-}' must be 1-10 of a-z 0-9 (a letter first)"
        exit 2
    fi
    tag=$1
    dir=/tmp/contention-slurm-$tag
    conf=$dir/slurm.conf
    socket=$dir/munge/socket
    switch=$tag-sw
}

# enter NS UTS CMD...: CMD inside the network namespace NS and the UTS namespace bound on
# the file UTS, with the cluster's configuration.
enter() {
    local ns=$1 uts=$2
    shift 2
    SLURM_CONF=$conf HYDRA_IFACE=eth0 nsenter --net="/run/netns/$ns" --uts="$uts" "$@"
}
on_login() { enter "$tag-login" "$dir/uts/login" "$@"; }
on_node() {
    local i=$1
    shift
    enter "$tag-$i" "$dir/uts/$i" "$@"
}

# Live and not a zombie.
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ -n "$state" ] && [ "$state" != Z ]
}

# The cluster's namespaces (switch, login, nodes).
namespaces() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$tag-(sw|login|[0-9]+)$" || true
}

# Every live process in the cluster's namespaces: daemons, job steps, tasks, clients.
processes() {
    local ns p
    for ns in $(namespaces); do
        ip netns pids "$ns" 2>/dev/null || true
    done | sort -un | while read -r p; do
        if alive "$p"; then echo "$p"; fi
    done
}

down() {
    local pids killed="" p left ns f _
    for _ in $(seq 100); do
        pids=$(processes | tr '\n' ' ')
        [ -n "${pids// /}" ] || break
        killed="$killed $pids"
        # shellcheck disable=SC2086 # a list of PIDs
        kill -KILL $pids 2>/dev/null || true
        sleep 0.05
    done
    # A killed process leaves its namespaces only once it has exited: wait for each.
    for _ in $(seq 100); do
        left=""
        for p in $killed; do
            if alive "$p"; then left="$left $p"; fi
        done
        [ -n "$left" ] || break
        sleep 0.05
    done
    [ -z "$left" ] || say "processes still exiting:$left"
    for ns in $(namespaces); do
        ip netns del "$ns" 2>/dev/null || say "cannot delete namespace $ns"
    done
    for f in "$dir"/uts/*; do
        [ -e "$f" ] || continue
        umount "$f" 2>/dev/null || true
    done
    rm -rf "$dir"
}

# host NS ADDR HOSTNAME UTS: a namespace with its own host name and eth0 on the bridge.
host() {
    local ns=$1 addr=$2 hostname=$3 uts=$4 port=p${1##*-}
    ip netns add "$ns" || return 1
    ip -n "$ns" link set lo up || return 1
    # Made inside the namespaces: no interface ever appears in the machine's own.
    ip -n "$ns" link add eth0 type veth peer name "$port" netns "$switch" || return 1
    ip -n "$switch" link set "$port" master br0 || return 1
    ip -n "$switch" link set "$port" up || return 1
    ip -n "$ns" addr add "$addr/24" dev eth0 || return 1
    ip -n "$ns" link set eth0 up || return 1
    touch "$uts" || return 1
    unshare --uts="$uts" hostname "$hostname" || return 1
}

write_conf() {
    local nodes=$1
    cat >"$conf" <<EOF
# tests/vm/slurm.sh, cluster $tag
ClusterName=$tag
SlurmctldHost=$tag-login($login_ip)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/ctld
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdSpoolDir=$dir/spool/%n
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SchedulerParameters=batch_sched_delay=0
KillWait=5
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$tag-[1-$nodes] NodeAddr=$net.[1-$nodes] CPUs=2 RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# Fails `up`: the daemons' last words, then nothing left behind.
fail() {
    local f
    say "$*"
    for f in "$dir"/log/*.log; do
        [ -s "$f" ] || continue
        say "last lines of $(basename "$f"):"
        tail -n 5 "$f" | sed 's/^/    /' >&2
    done
    down
    exit 3
}

up() {
    local nodes=$1 i idle=0 t
    if ! [[ $nodes =~ ^[0-9]+$ ]] || [ "$nodes" -lt 1 ] || [ "$nodes" -gt 16 ]; then
        say "NODES must be 1-16, not '$nodes'"
        exit 2
    fi
    [ "$(id -u)" -eq 0 ] || { say "needs root (network namespaces)"; exit 3; }
    for t in ip nsenter unshare runuser munged slurmctld slurmd sinfo; do
        command -v "$t" >/dev/null || { say "'$t' not found (bash .ci/setup-tests installs it)"; exit 3; }
    done
    down
    mkdir -p "$dir"/{log,run,ctld,uts,munge}
    chmod 755 "$dir"
    for i in $(seq "$nodes"); do
        mkdir -p "$dir/spool/$tag-$i" "$dir/tmp/$tag-$i"
        chmod 1777 "$dir/tmp/$tag-$i"
    done

    ip netns add "$switch" || fail "cannot make namespace $switch"
    if ! { ip -n "$switch" link set lo up && ip -n "$switch" link add br0 type bridge &&
        ip -n "$switch" link set br0 up; }; then
        fail "cannot make the bridge"
    fi
    host "$tag-login" "$login_ip" "$tag-login" "$dir/uts/login" || fail "cannot make the login node"
    for i in $(seq "$nodes"); do
        host "$tag-$i" "$net.$i" "$tag-$i" "$dir/uts/$i" || fail "cannot make node $tag-$i"
    done
    write_conf "$nodes"

    # munged, inside the login node's namespaces so that `down` finds it with the rest; its
    # origin address given, as it cannot look the login node's name up.
    chown munge:munge "$dir/munge"
    chmod 755 "$dir/munge"
    head -c 1024 /dev/urandom >"$dir/munge/key"
    chown munge:munge "$dir/munge/key"
    chmod 600 "$dir/munge/key"
    touch "$dir/log/munged.log"
    chown munge:munge "$dir/log/munged.log"
    on_login runuser -u munge -- munged --socket="$socket" --key-file="$dir/munge/key" \
        --pid-file="$dir/munge/pid" --seed-file="$dir/munge/seed" \
        --log-file="$dir/log/munged.log" --origin="$login_ip" || fail "munged did not start"
    on_node 1 sh -c "munge -S '$socket' -n | unmunge -S '$socket' >/dev/null" ||
        fail "a credential made on a node does not decode"

    on_login slurmctld -f "$conf" -c || fail "slurmctld did not start"
    for i in $(seq "$nodes"); do
        on_node "$i" slurmd -f "$conf" -N "$tag-$i" || fail "slurmd of $tag-$i did not start"
    done
    for t in $(seq 300); do
        idle=$(on_login sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
        [ "$idle" -ge "$nodes" ] && break
        sleep 0.1
    done
    [ "$idle" -ge "$nodes" ] || fail "$idle of $nodes nodes idle after 30 s"
    say "cluster $tag up: $nodes node(s) $tag-[1-$nodes], login node $tag-login"
}

# wait JOB SECONDS: polls squeue every 0.1 s (sbatch --wait polls every 10 s or so).
wait_job() {
    local job=$1 limit=${2:-300} t state=""
    for t in $(seq $((limit * 10))); do
        state=$(on_login squeue -h -j "$job" -o %T 2>/dev/null || true)
        [ -n "$state" ] || break
        sleep 0.1
    done
    if [ -n "$state" ]; then
        say "job $job still $state after $limit s"
        exit 124
    fi
    state=$(on_login scontrol -o show job "$job" | sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p')
    echo "$state"
    [ "$state" = COMPLETED ]
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
    up)
        [ $# -eq 2 ] || usage
        name "$1"
        up "$2"
        ;;
    down)
        [ $# -eq 1 ] || usage
        name "$1"
        down
        ;;
    login)
        [ $# -ge 2 ] || usage
        name "$1"
        shift
        [ -e "$dir/uts/login" ] || { say "no cluster $tag (tests/vm/slurm.sh up $tag N)"; exit 3; }
        on_login "$@"
        ;;
    node)
        [ $# -ge 3 ] || usage
        name "$1"
        [ -e "$dir/uts/$2" ] || { say "no node $tag-$2"; exit 3; }
        i=$2
        shift 2
        on_node "$i" "$@"
        ;;
    wait)
        [ $# -ge 2 ] || usage
        name "$1"
        wait_job "$2" "${3:-300}"
        ;;
    *) usage ;;
esac
