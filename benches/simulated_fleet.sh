#!/usr/bin/env bash
# The survey's verdicts judged on simulated fleets (`survey --simulate`), seed after seed, with
# today's defaults (`--runs auto`: every node once, a second run for the suspects and a
# sample; a node named only when its second run confirms it), the nodes differing by the noise
# between runs of a real 16-core node (analysis/src/simulate/between.rs says its size and source).
#
#   bash benches/simulated_fleet.sh [SEEDS] [NODES] [RUNS] [METHOD] [K] [MACHINES] [CASES]
#       SEEDS     fleets per case and machine, seeds 1..SEEDS (200 by default)
#       NODES     nodes per fleet (16)
#       RUNS      runs per node: auto (the default), 1 or 2
#       METHOD    each node's calibration: fit (the default) or paper (about 7 times faster)
#       K         --outlier-k (3)
#       MACHINES  paper machines, comma-separated (henri,dahu,occigen; `contention predict
#                 --model paper:x` lists them all)
#       CASES     comma-separated, any of: clean mem comm check big (clean,mem,comm)
#
# The cases, each a line per machine: the share of fleets that met its goal, and the seeds
# that did not (the first 20):
#   clean  identical nodes: no node named;
#   mem    node7's memory at 0.9x (MEM_FACTOR): node7 named on a memory parameter
#          (B_seq^comp, T_seq^max, T_par^max, T_par^max2) and no other node named;
#   comm   node7's communications at 0.85x (COMM_FACTOR): node7 named on a communication
#          parameter (B_seq^comm, alpha) and no other node named;
#   check  two surveys of one healthy fleet (seeds S and S+1000, two days): the share of
#          nodes that pass `check --fleet`; and a fleet whose node3 lost 10 % of its memory
#          bandwidth between the two: how often node3 fails it;
#   big    10,000 identical nodes, once (seed 1): how many are named, and its node time.
# The clean, mem and comm lines also give the node time against one run per node (the nodes
# measured twice, from the report's `other_run`), the mean over their fleets.
#
# The goals (issue 43): clean >= 95 %; mem and comm >= 90 %; node time <= 1.5x; check >= 95 %
# of nodes; big <= 0.5 % named.
#
# Uses target/debug/contention (cargo build first; CONTENTION=path to use another) and jq.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-200}
nodes=${2:-16}
runs=${3:-auto}
method=${4:-fit}
k=${5:-3}
machines=${6:-henri,dahu,occigen}
cases=${7:-clean,mem,comm}
bin=${CONTENTION:-target/debug/contention}
[ -x "$bin" ] || { echo "simulated_fleet: build first (cargo build), or set CONTENTION" >&2; exit 1; }
command -v jq >/dev/null || { echo "simulated_fleet: needs jq" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One fleet of machine $1, seed $2, results under $work/$3, report in $work/$3.json; the
# rest of the arguments go to survey.
survey() {
    local machine=$1 seed=$2 name=$3
    shift 3
    CONTENTION_RESULTS=$work/$name "$bin" survey --simulate "paper:$machine" --nodes "$nodes" \
        --runs "$runs" --method "$method" --outlier-k "$k" --seed "$seed" --force -q -f json \
        -o "$work/$name.json" "$@" >/dev/null 2>"$work/stderr" || {
        echo "simulated_fleet: $machine seed $seed failed: $(tail -1 "$work/stderr")" >&2
        exit 1
    }
}

# The named nodes of a report, as `host parameter` lines.
named() { jq -r '.outliers[] | "\(.host) \(.parameter)"' "$1"; }
# Nodes measured twice in a report.
twice() { jq '[.nodes[] | select(.other_run != null)] | length' "$1"; }

memory='local\.(b_seq_comp|t_seq_max|t_par_max|t_par_max2)$'
communication='local\.(b_seq_comm|alpha)$'

# clean, mem or comm on one machine.
fleet_case() {
    local machine=$1 case=$2 met=0 missed=() second=0 slow=() want=''
    case $case in
    mem) slow=(--slow "node7=mem:${MEM_FACTOR:-0.9}") want=$memory ;;
    comm) slow=(--slow "node7=comm:${COMM_FACTOR:-0.85}") want=$communication ;;
    esac
    for seed in $(seq 1 "$seeds"); do
        survey "$machine" "$seed" f "${slow[@]}"
        out=$(named "$work/f.json")
        second=$((second + $(twice "$work/f.json")))
        if [ -z "$want" ]; then
            ok=$([ -z "$out" ] && echo 1 || echo 0)
        else
            ok=$(grep -Eq "^node7 $want" <<<"$out" && ! grep -vq '^node7 ' <<<"$out" &&
                echo 1 || echo 0)
        fi
        if [ "$ok" = 1 ]; then met=$((met + 1)); else missed+=("$seed"); fi
    done
    case $case in
    mem) case="mem${MEM_FACTOR:-0.9}" ;;
    comm) case="comm${COMM_FACTOR:-0.85}" ;;
    esac
    printf '%-8s %-9s %5.1f %% of %d fleets, node time %.2fx%s\n' "$machine" "$case" \
        "$(echo "100 * $met / $seeds" | bc -l)" "$seeds" \
        "$(echo "1 + $second / ($seeds * $nodes)" | bc -l)" \
        "${missed:+ (missed: ${missed[*]:0:20})}"
}

# Two surveys a day apart, then check --fleet: nodes passing; node3 degraded: caught.
check_case() {
    local machine=$1 pass=0 total=0 caught=0 missed=()
    for seed in $(seq 1 "$seeds"); do
        survey "$machine" "$seed" a
        survey "$machine" $((seed + 1000)) b
        survey "$machine" $((seed + 1000)) c --slow node3=mem:0.9
        for new in b c; do
            "$bin" check --fleet "$work/a/simulated-survey" "$work/$new/simulated-survey" \
                -f json -o "$work/check.json" >/dev/null 2>&1 || true
            if [ "$new" = b ]; then
                pass=$((pass + $(jq '[.nodes[] | select(.verdict == "pass")] | length' \
                    "$work/check.json")))
                total=$((total + $(jq '.nodes | length' "$work/check.json")))
            elif jq -e '.nodes[] | select(.host == "node3" and .verdict == "fail")' \
                "$work/check.json" >/dev/null; then
                caught=$((caught + 1))
            else
                missed+=("$seed")
            fi
        done
    done
    printf '%-8s check  %5.1f %% of %d nodes pass; node3 at 0.9x memory fails %5.1f %% of %d%s\n' \
        "$machine" "$(echo "100 * $pass / $total" | bc -l)" "$total" \
        "$(echo "100 * $caught / $seeds" | bc -l)" "$seeds" \
        "${missed:+ (missed: ${missed[*]:0:20})}"
}

# 10,000 identical nodes, once.
big_case() {
    local machine=$1 saved=$nodes start
    nodes=10000
    start=$(date +%s)
    survey "$machine" 1 big
    nodes=$saved
    printf '%-8s big    %d of 10000 nodes named (%.2f %%), node time %.2fx, %d s\n' "$machine" \
        "$(named "$work/big.json" | cut -d' ' -f1 | sort -u | wc -l)" \
        "$(echo "$(named "$work/big.json" | cut -d' ' -f1 | sort -u | wc -l) / 100" | bc -l)" \
        "$(echo "1 + $(twice "$work/big.json") / 10000" | bc -l)" $(($(date +%s) - start))
    rm -rf "$work/big" "$work/big.json"
}

echo "# $nodes nodes per fleet, --runs $runs, --method $method, k = $k, seeds 1..$seeds"
for machine in ${machines//,/ }; do
    for case in ${cases//,/ }; do
        case $case in
        clean | mem | comm) fleet_case "$machine" "$case" ;;
        check) check_case "$machine" ;;
        big) big_case "$machine" ;;
        *) echo "simulated_fleet: unknown case $case (clean mem comm check big)" >&2; exit 1 ;;
        esac
    done
done
