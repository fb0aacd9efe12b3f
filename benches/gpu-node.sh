#!/usr/bin/env bash
# A GPU node's check of `measure --engine gpu`, in one go (a lent node's minutes are few):
# the GPU and its link as nvidia-smi sees them, and the default plan; the engine's copies alone
# against the plain `cuMemcpyAsync` loop (benches/gpu_copy.rs); one full sweep of both
# directions, timed; a short sweep of every GPU at once (`--gpu all`, the driver path of
# several GPUs from one thread, whatever their number); then a second run of each, and a
# third if the time left allows, so that the model of one run can be held to the others; and
# each direction calibrated. Every output lands in OUT (traces under OUT/results).
#
#   bash benches/gpu-node.sh OUT [GPU_COPY_BENCH]
#
# Needs `contention` on the PATH (built anywhere: it finds the NVIDIA driver at run time) and
# a GPU; GPU_COPY_BENCH is the built bench (`cargo bench --bench gpu_copy --no-run` prints its
# path), skipped when not given. CONTENTION_GPU_ARGS adds options to every measure (`--gpu 1`,
# `--cores 1..14`). GPU_NODE_SECONDS (default 480) is the time the whole check may take: the
# third run is started only if the second run's time is left. A failed step stops the script
# at once (exit 1), so that a lent node is not held for nothing.
set -euo pipefail
out=${1:?usage: gpu-node.sh OUT [GPU_COPY_BENCH]}
bench=${2:-}
budget=${GPU_NODE_SECONDS:-480}
mkdir -p "$out"
export CONTENTION_RESULTS="$out/results"
command -v contention >/dev/null || { echo "gpu-node: contention is not on the PATH" >&2; exit 1; }
# shellcheck disable=SC2086 # the extra options are words on purpose
extra=(${CONTENTION_GPU_ARGS:-})
log() { echo "gpu-node: [$SECONDS s] $*" | tee -a "$out/summary.txt" >&2; }
# One measure of both directions; its output goes to OUT/measure.log, its time to the summary.
measure() {
    local what=$1 start=$SECONDS; shift
    if contention measure --engine gpu --direction both "$@" "${extra[@]}" 2>> "$out/measure.log"; then
        last=$((SECONDS - start)); log "both directions, $what: $last s"
    else
        log "both directions, $what: failed after $((SECONDS - start)) s (see measure.log)"; exit 1
    fi
}

{ nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,driver_version --format=csv || true
  nvidia-smi topo -m || true
  nproc; lscpu | grep -E 'Model name|Socket|NUMA node|L3' || true
  contention --version
  contention measure --engine gpu --direction both --dry-run "${extra[@]}" 2>&1 || true
} > "$out/node.txt" 2>&1

if [ -n "$bench" ]; then
    "$bench" --bench > "$out/gpu_copy.txt" 2>&1 || log "the gpu_copy bench failed (see gpu_copy.txt)"
    grep -E 'engine .* plain loop|skipped' "$out/gpu_copy.txt" | while read -r l; do log "$l"; done || true
fi

last=0
measure "one full sweep each (--runs 1)" --runs 1
# Every GPU at once, short: its own trace, outside the results; a failure is said, not fatal.
start=$SECONDS
if contention measure --engine gpu --gpu all --cores 1..2 --runs 1 --max-phase 0.5 \
    -o "$out/gpu-all.json" 2>> "$out/gpu-all.log"; then
    log "--gpu all, 2 core counts: $((SECONDS - start)) s"
    contention show "$out/gpu-all.json" 2>&1 | while read -r l; do log "--gpu all: $l"; done || true
else
    log "--gpu all: failed after $((SECONDS - start)) s (see gpu-all.log)"
fi
measure "a second run each" --runs 2 --resume
if [ $((budget - SECONDS)) -gt $((last + last / 5)) ]; then
    measure "a third run each" --runs 3 --resume
else
    log "no third run: $((budget - SECONDS)) s left of $budget, a run takes $last s"
fi
for trace in "$CONTENTION_RESULTS"/*/trace-*.json; do
    name=$(basename "$trace" .json)
    contention calibrate "$trace" -o "$out/$name.model.json" > "$out/$name.calibrate.txt" 2>&1 \
        || log "$name: calibrate failed (see $name.calibrate.txt)"
    grep -E '^model|held-out' "$out/$name.calibrate.txt" | while read -r l; do log "$name: $l"; done || true
done
log "traces, models and logs in $out"
