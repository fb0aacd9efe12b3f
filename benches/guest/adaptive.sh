#!/usr/bin/env bash
# Full sweeps against adaptive ones (`measure --adaptive`) on real, if virtual, NUMA machines:
# the two QEMU guests of the tests (tests/vm/numa-guest.sh: 2 sockets x 1 NUMA node, and
# 2 sockets x 2 NUMA nodes), with more cores per socket than the tests give them so that
# there is something to choose (the first grid alone is 5 core counts).
#
#   bash benches/guest/adaptive.sh [CORES_PER_SOCKET [OUTDIR]]     (default 8, /tmp/adaptive-guest)
#
# Needs a release build (cargo build --release) and what `bash .ci/setup-tests` installs.
# Inside each guest, benches/guest/inside.sh measures the two sample placements with both
# sweeps and the two others with a full sweep, calibrates each pair of sample sweeps (the
# global fit) and evaluates both models on every full sweep. There is no truth to compare
# with on a real machine: the reference is the full sweeps' measurements of all four
# placements. Prints, per guest: the wall time and points of each kind of sweep of the
# sample placements, and each model's MAPE in parallel (evaluate's Table 2 average) on all
# placements. Each adaptive sweep gets a third of its full sweep's time as --budget, as in
# `cargo bench --bench adaptive`. Times are the sweeps' (a trace's first point to its last
# write: the adaptive sweep's fits between points included) and, apart, the wall time of the
# measure commands (mpirun's start and touching the buffers added).
#
# Bandwidths under TCG mean little and hours of guest time are not affordable: small
# buffers, short phases; the figures are for reading, nothing is asserted.
set -euo pipefail

cores=${1:-8}
out=${2:-/tmp/adaptive-guest}
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$repo/target/release/contention
[ -x "$bin" ] || { echo "adaptive-guest: no $bin; run cargo build --release first" >&2; exit 2; }
mkdir -p "$out"

for layout in 2x1 2x2; do
    rm -rf "${out:?}/$layout"
    GUEST_CORES=$cores GUEST_SCRIPT=$repo/benches/guest/inside.sh \
        bash "$repo/tests/vm/numa-guest.sh" "$layout" "$out/$layout" "$bin" ||
        echo "adaptive-guest: $layout failed; see $out/$layout/console.log" >&2
done

python3 - "$out" "$cores" <<'PY'
import json, os, sys

out, cores = sys.argv[1], sys.argv[2]
print(f"{cores} cores per socket; sample placements measured with each sweep; MAPE of each model"
      " on the full sweeps of all four placements (parallel, evaluate's average)")
print(f"{'guest':6} {'full s':>7} {'pts':>4} {'MAPE%':>6} | {'adapt s':>7} {'pts':>4} {'MAPE%':>6}"
      f" | {'time':>5} {'MAPE':>5} | {'wall s: full':>6} {'adapt':>6}")
for layout in ("2x1", "2x2"):
    d = os.path.join(out, layout)
    try:
        seconds = {}
        for line in open(os.path.join(d, "seconds.txt")):
            name, wall, sweep, points = line.split()
            seconds[name] = (float(wall), float(sweep), int(points))
        m = open(os.path.join(d, "first_node_of_socket1.txt")).read().strip()
        samples = ("0,0", f"{m},{m}")
        row = {}
        for kind in ("full", "adaptive"):
            wall, sweep, pts = (sum(seconds[f"{kind}-{p}"][i] for p in samples) for i in range(3))
            mape = json.load(open(os.path.join(d, f"evaluate-{kind}.json")))["parallel"]["average_percent"]
            row[kind] = (sweep, pts, mape, wall)
        f, a = row["full"], row["adaptive"]
        print(f"{layout:6} {f[0]:7.1f} {f[1]:4d} {f[2]:6.2f} | {a[0]:7.1f} {a[1]:4d} {a[2]:6.2f}"
              f" | {a[0] / f[0]:5.2f} {a[2] / f[2]:5.2f} | {f[3]:6.1f} {a[3]:6.1f}")
    except (OSError, KeyError, ValueError) as e:
        print(f"{layout:6} incomplete: {e} (see {d})")
PY
