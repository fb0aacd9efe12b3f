#!/usr/bin/env bash
# Runs inside the virtual machine of tests/vm/numa-guest.sh (as root, the host's root file
# system read-only, OUT writable):
#
#   guest-checks.sh OUT BINARY REPO
#
# and leaves in OUT what the integration test (tests/vm_guests.rs) checks:
#   lstopo.txt                 the guest's topology as hwloc sees it
#   plan.txt                   `measure --numa 0,0 --dry-run`
#   place-C-M.json/.csv/.log   a tiny `measure --numa C,M` for 0,0  m,m  0,m  m,0, where m is
#                              the first NUMA node of socket 1
#   numa_maps-C-M.txt          /proc/PID/numa_maps of rank 0, read from outside the tool
#                              while that run computes and receives
#   threads-C-M.txt            rank 0's threads seen from outside: NAME ALLOWED_CPUS LAST_CPU
#   attempts-C-M.txt           how many runs of that measure it took to see both threads
#   main/ and main.log         the main job (.ci/main-job) with tiny measure options;
#                              main-attempts.txt, main-starved-N.log (see main_job)
#   steps.txt                  one line per step: NAME EXIT_STATUS MILLISECONDS
#   done                       written last: the checks ran to the end
# Every step runs even when an earlier one failed; the test reads steps.txt.
set -uo pipefail

out=$1 bin=$2 repo=$3
cd "$out" || exit 1
rm -f done steps.txt
export HOME=$out/home
mkdir -p "$HOME"
# Bandwidths inside TCG mean nothing: one or two core counts, small messages and buffers,
# short phases (`phases`, which a placement's later runs replace: clap refuses an option twice),
# one run (the guests check placement and binding; the host's own main job runs the default's
# three).
sizes=(--message-size 1MiB --buffer-size 16MiB --message-buffers 2 --runs 1)
phases=(--max-phase 0.3 --stable-within 5)
tiny=("${sizes[@]}" "${phases[@]}")

step() {
    local name=$1
    shift
    local t0 t1 rc
    t0=$(date +%s%N)
    "$@"
    rc=$?
    t1=$(date +%s%N)
    echo "$name $rc $(((t1 - t0) / 1000000))" >>steps.txt
}

# PID of MPI rank 0 of `contention` (Open MPI puts the rank in each process's environment).
# Builtins only where it loops over every process: a fork costs milliseconds under TCG.
rank0_pid() {
    local p c
    for p in /proc/[0-9]*; do
        read -r c 2>/dev/null <"$p/comm" || continue
        [ "$c" = contention ] || continue
        # Ours runs in this directory (the guest runs nothing else, but a host might).
        [ "$p/cwd" -ef . ] || continue
        if grep -qzx 'OMPI_COMM_WORLD_RANK=0' "$p/environ" 2>/dev/null; then
            echo "${p#/proc/}"
            return 0
        fi
    done
    return 1
}

# Records, in the associative array `threads`, each of rank 0's computing and communication
# threads (named `compute-I` and `communication` by the tool) as "ALLOWED_CPUS LAST_CPU":
# its CPU affinity (Cpus_allowed_list) and the CPU it last ran on (field 39 of stat).
declare -A threads
snapshot_threads() {
    local pid=$1 t name line allowed="" stat
    for t in /proc/"$pid"/task/*; do
        read -r name 2>/dev/null <"$t/comm" || continue
        [[ $name == compute-* || $name == communication ]] || continue
        while read -r line; do
            [[ $line == Cpus_allowed_list:* ]] && allowed=${line##*[[:space:]]}
        done 2>/dev/null <"$t/status"
        read -r -a stat 2>/dev/null <"$t/stat" || continue
        [ -n "$allowed" ] && threads[$name]="$allowed ${stat[38]}"
    done
}

# Runs a tiny measure of placement C,M (measure_once), again with longer phases when the
# snapshots missed a thread or the measure failed: a guest emulated on a loaded host can poll
# /proc more slowly than a tiny run's phases last (each ends once stable, so a whole sweep may
# last a second), and its emulated shared-memory copies can fall under the tool's starvation
# threshold (22 MB/s seen once under TCG on a busy 2-core host, where a real node copies at
# GB/s); what is checked here is where the threads ran and where the pages lie, not how fast
# the guest is. `attempts-C-M.txt` says how many runs it took, and `failures-C-M.txt` why the
# failed ones failed (the error line of their log). A thread that never runs, or a measure
# that fails every time, is still missing after the last, and the step fails with the last
# run's exit status.
measure_placement() {
    local c=$1 m=$2 attempt=1 timing=("${phases[@]}") rc
    : >"failures-$c-$m.txt"
    while :; do
        rc=0
        measure_once "$c" "$m" "${timing[@]}" || rc=$?
        ((rc == 0)) && [[ -n ${threads[communication]:-} && -n ${threads[compute-0]:-} ]] && break
        if ((rc != 0)); then
            echo "attempt $attempt: exit $rc: $(grep -m1 '^error' "place-$c-$m.log")" \
                >>"failures-$c-$m.txt"
        fi
        ((attempt < 3)) || break
        attempt=$((attempt + 1))
        # Phases that never count as stable last --max-phase each.
        timing=(--max-phase $((2 * attempt)) --stable-within 0.01)
    done
    echo "$attempt" >"attempts-$c-$m.txt"
    return "$rc"
}

# One tiny measure of placement C,M (its phase options after C and M), keeping, while it
# runs, the latest of the snapshots of rank 0's numa_maps with the most regions bound by the
# tool (policy `bind:N`), and its threads' CPUs.
measure_once() {
    local c=$1 m=$2 pid="" maps rest count best=0 job name
    shift 2
    threads=()
    rm -f "numa_maps-$c-$m.txt"
    "$bin" measure --numa "$c,$m" --cores 1 "${sizes[@]}" "$@" --force \
        -o "place-$c-$m.json" >"place-$c-$m.log" 2>&1 &
    job=$!
    while kill -0 "$job" 2>/dev/null; do
        if [ -z "$pid" ] || [ ! -e "/proc/$pid" ]; then
            pid=$(rank0_pid) || pid=""
        fi
        if [ -n "$pid" ]; then
            # read -d '' reads the whole file (and reports the missing NUL as a failure).
            maps=""
            IFS= read -r -d '' maps 2>/dev/null <"/proc/$pid/numa_maps"
            # The snapshot with the most bound regions: at teardown buffers go one by one.
            rest=${maps//" bind:"/}
            count=$(((${#maps} - ${#rest}) / 6))
            if ((count > 0 && count >= best)); then
                best=$count
                printf '%s' "$maps" >"numa_maps-$c-$m.txt"
            fi
            snapshot_threads "$pid"
        fi
        sleep 0.2
    done
    for name in "${!threads[@]}"; do
        echo "$name ${threads[$name]}"
    done >"threads-$c-$m.txt"
    wait "$job"
}

hostname >hostname.txt
lstopo-no-graphics --of console >lstopo.txt 2>&1
m=$(hwloc-calc -N numa package:0)
echo "$m" >first_node_of_socket1.txt
step plan bash -c "'$bin' measure --numa 0,0 --dry-run >plan.txt 2>&1"
for p in "0 0" "$m $m" "0 $m" "$m 0"; do
    # shellcheck disable=SC2086
    step "place-${p/ /-}" measure_placement $p
done
# The main job, run again (at most 3 times) only when a measure stopped on starved
# communications: the guest's emulated shared-memory copies fall under the threshold on a
# busy host (16 MB/s seen under TCG while the 2-core host built the crate), as in
# measure_placement; any other failure fails the step at once. Each starved run's log is
# kept as main-starved-N.log, and main-attempts.txt says how many runs it took.
main_job() {
    local attempt=1 rc
    while :; do
        rc=0
        env RESULTS="$out/main" CONTENTION_BIN="$bin" MEASURE_ARGS="${tiny[*]}" \
            bash "$repo/.ci/main-job" >main.log 2>&1 || rc=$?
        ((rc != 0)) && grep -q '^error: communications .* are starved' main.log || break
        ((attempt < 3)) || break
        cp main.log "main-starved-$attempt.log"
        attempt=$((attempt + 1))
    done
    echo "$attempt" >main-attempts.txt
    return "$rc"
}
step main-job main_job
touch done
