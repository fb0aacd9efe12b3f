#!/usr/bin/env bash
# A GPU node's check of `measure --engine gpu`, in one go (a lent node's minutes are few):
# the GPU and its link as nvidia-smi sees them; the engine's copies alone against the plain
# `cuMemcpyAsync` loop (benches/gpu_copy.rs); a full sweep each way, timed, then two more runs
# of each (`--runs 3`), so that the model of one run can be held to the others; and each
# direction calibrated. Every output lands in OUT.
#
#   bash benches/gpu-node.sh OUT [GPU_COPY_BENCH]
#
# Needs `contention` on the PATH (built anywhere: it finds the NVIDIA driver at run time) and
# a GPU; GPU_COPY_BENCH is the built bench (`cargo bench --bench gpu_copy --no-run` prints its
# path), skipped when not given. CONTENTION_GPU_ARGS adds options to every measure (`--gpu 1`,
# `--cores 1..14`). On a 16-core node the sweeps take about 2 x 3 x 1 minute at most.
set -euo pipefail
out=${1:?usage: gpu-node.sh OUT [GPU_COPY_BENCH]}
bench=${2:-}
mkdir -p "$out"
command -v contention >/dev/null || { echo "gpu-node: contention is not on the PATH" >&2; exit 1; }
# shellcheck disable=SC2086 # the extra options are words on purpose
extra=(${CONTENTION_GPU_ARGS:-})
log() { echo "gpu-node: $*" | tee -a "$out/summary.txt" >&2; }

{ nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,driver_version --format=csv || true
  nproc; lscpu | grep -E 'Model name|Socket|NUMA node\(s\)' || true; } > "$out/node.txt" 2>&1
contention --version >> "$out/node.txt"

if [ -n "$bench" ]; then
    "$bench" --bench > "$out/gpu_copy.txt" 2>&1 || log "the gpu_copy bench failed (see gpu_copy.txt)"
    grep -E 'engine .* plain loop|skipped' "$out/gpu_copy.txt" | while read -r l; do log "$l"; done
fi

for dir in d2h h2d; do
    start=$SECONDS
    contention measure --engine gpu --direction "$dir" --runs 1 "${extra[@]}" \
        -o "$out/$dir.json" 2> "$out/$dir.log"
    log "$dir: one full sweep in $((SECONDS - start)) s"
    start=$SECONDS
    contention measure --engine gpu --direction "$dir" --runs 3 --resume "${extra[@]}" \
        -o "$out/$dir.json" 2>> "$out/$dir.log"
    log "$dir: two more runs in $((SECONDS - start)) s"
    contention calibrate "$out/$dir.json" -o "$out/$dir.model.json" > "$out/$dir.calibrate.txt" 2>&1
    grep -E '^model|held-out' "$out/$dir.calibrate.txt" | while read -r l; do log "$dir: $l"; done
done
log "traces, models and logs in $out"
