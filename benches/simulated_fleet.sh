#!/usr/bin/env bash
# The fleet report's band judged on simulated fleets (`survey --simulate`), seed after seed:
# how often a fleet of identical nodes names no outlier, and how often a node degraded on
# purpose (its memory bandwidth at 0.9x, then 0.8x) is named on a parameter of the memory
# (B_seq^comp, T_seq^max, T_par^max, T_par^max2), the nodes differing by the noise between
# runs of a real 16-core node (src/simulate/fleet.rs says its size and where it comes from).
#
#   bash benches/simulated_fleet.sh [SEEDS] [NODES] [RUNS] [METHOD] [K]
#       SEEDS   fleets per case, seeds 1..SEEDS (200 by default)
#       NODES   nodes per fleet (16)
#       RUNS    runs per node, 1 or 2 (2: the band knows the noise between runs)
#       METHOD  each node's calibration: fit or paper (paper: about 15 times faster)
#       K       --outlier-k (3)
#
# Uses target/debug/contention (cargo build first; CONTENTION=path to use another). Prints
# one line per case: the share of fleets that met the case's goal, and the seeds that did
# not. The goals (issue 34): no node flagged in >= 95 % of identical fleets; the 0.9x node
# flagged on a memory parameter in >= 90 %, the 0.8x one in >= 99 %.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-200}
nodes=${2:-16}
runs=${3:-2}
method=${4:-fit}
k=${5:-3}
bin=${CONTENTION:-target/debug/contention}
[ -x "$bin" ] || { echo "simulated_fleet: build first (cargo build), or set CONTENTION" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CONTENTION_RESULTS=$work

# One fleet: its report's outliers as `host parameter` lines.
fleet() {
    local seed=$1
    shift
    "$bin" survey --simulate paper:henri --nodes "$nodes" --runs "$runs" --method "$method" \
        --outlier-k "$k" --seed "$seed" --force -q -f json -o "$work/fleet.json" "$@" \
        >/dev/null 2>"$work/stderr" || {
        echo "simulated_fleet: seed $seed failed: $(tail -1 "$work/stderr")" >&2
        exit 1
    }
    jq -r '.outliers[] | "\(.host) \(.parameter)"' "$work/fleet.json"
}

memory='local\.(b_seq_comp|t_seq_max|t_par_max|t_par_max2)$'
case_line() {
    local name=$1 slow=$2
    local met=0 missed=()
    for seed in $(seq 1 "$seeds"); do
        if [ -z "$slow" ]; then
            out=$(fleet "$seed")
            if [ -z "$out" ]; then met=$((met + 1)); else missed+=("$seed"); fi
        else
            out=$(fleet "$seed" --slow "$slow")
            if grep -Eq "^node7 $memory" <<<"$out"; then met=$((met + 1)); else missed+=("$seed"); fi
        fi
    done
    printf '%-34s %5.1f %% of %d fleets%s\n' "$name" "$(echo "100 * $met / $seeds" | bc -l)" \
        "$seeds" "${missed:+ (missed: ${missed[*]:0:20})}"
}

echo "# $nodes nodes of paper:henri, $runs run(s) per node, --method $method, k = $k"
case_line "identical: no node flagged" ""
case_line "node7 at 0.9x memory: flagged" "node7=mem:0.9"
case_line "node7 at 0.8x memory: flagged" "node7=mem:0.8"
