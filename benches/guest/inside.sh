#!/usr/bin/env bash
# Runs inside a NUMA guest booted by benches/guest/adaptive.sh (through
# tests/vm/numa-guest.sh, GUEST_SCRIPT set to this file):
#
#   inside.sh OUT BINARY REPO
#
# Measures the guest's two sample placements (0,0 and m,m, m the first NUMA node of socket 1)
# with a full sweep and with --adaptive (its --budget a third of the full sweep's time), and
# the two other placements (0,m and m,0) with a full sweep only, as the reference every model
# is judged on; calibrates the full sweeps' samples
# and the adaptive ones (the global fit); evaluates both models on every full sweep. Leaves in
# OUT:
#   lstopo.txt, first_node_of_socket1.txt
#   full-C-M.json/.log, adaptive-C-M.json/.log   the traces and what measure said
#   seconds.txt                 one line per measure: NAME WALL_SECONDS SWEEP_SECONDS POINTS
#                               (the sweep's time from its trace's first point to its last
#                               write, fits between points included; the wall time adds
#                               mpirun's start and touching the buffers)
#   model-full.json, model-adaptive.json, and their calibrate logs
#   evaluate-full.json, evaluate-adaptive.json   evaluate --format json on all four placements
#   steps.txt                   NAME EXIT_STATUS per step; done, written last
set -uo pipefail

out=$1 bin=$2 # $3, the repository, is not needed here
cd "$out" || exit 1
rm -f done steps.txt seconds.txt
export HOME=$out/home
mkdir -p "$HOME"
# Under TCG bandwidths mean little and everything is slow: small buffers and short phases
# (a phase runs on to 4 x --max-phase to hold 30 rounds). The same options for both sweeps.
opts=(--message-size 1MiB --buffer-size 16MiB --message-buffers 2 --max-phase 0.3 --stable-within 5)

step() {
    local name=$1
    shift
    "$@"
    echo "$name $?" >>steps.txt
}

# measure NAME ARGS...: one run, its wall time, sweep time and points recorded in seconds.txt.
measure() {
    local name=$1 t0 t1 rc sweep
    shift
    t0=$(date +%s%N)
    "$bin" measure "${opts[@]}" --force -o "$name.json" "$@" >"$name.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    sweep=$(python3 - "$name.json" <<'PY' 2>/dev/null || echo "0 0"
import datetime, json, sys
t = json.load(open(sys.argv[1]))
at = lambda k: datetime.datetime.fromisoformat(t[k].replace("Z", "+00:00"))
print((at("updated_at") - at("started_at")).total_seconds(), len(t["points"]))
PY
)
    printf '%s %d.%03d %s\n' "$name" $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 1000000 % 1000)) "$sweep" >>seconds.txt
    return $rc
}

lstopo-no-graphics --of console >lstopo.txt 2>&1
m=$(hwloc-calc -N numa package:0)
echo "$m" >first_node_of_socket1.txt
for p in "0,0" "$m,$m"; do
    step "full-$p" measure "full-$p" --numa "$p"
    # The comparison of the simulated bench: the adaptive sweep gets a third of the full
    # sweep's time (its --budget counts the time its points take to measure).
    full=$(awk -v n="full-$p" '$1 == n { print int($3 / 3) + 1 }' seconds.txt)
    step "adaptive-$p" measure "adaptive-$p" --numa "$p" --adaptive --budget "${full}s"
done
for p in "0,$m" "$m,0"; do
    step "full-$p" measure "full-$p" --numa "$p"
done
step calibrate-full bash -c "'$bin' calibrate --method fit full-0,0.json full-$m,$m.json -o model-full.json >calibrate-full.log 2>&1"
step calibrate-adaptive bash -c "'$bin' calibrate --method fit adaptive-0,0.json adaptive-$m,$m.json -o model-adaptive.json >calibrate-adaptive.log 2>&1"
for model in full adaptive; do
    step "evaluate-$model" bash -c "'$bin' evaluate -m model-$model.json --format json full-*.json >evaluate-$model.json 2>evaluate-$model.log"
done
date >done
