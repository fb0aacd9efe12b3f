#!/usr/bin/env bash
# The communication thread against a plain MPI receive loop (benches/comm.rs) over every
# stack the transport tests force (tests/transports.rs): Open MPI's ob1 over shared memory
# and over TCP, its UCX PML, its cm PML over libfabric (OFI), and MPICH's ch4:ucx over shared
# memory and over TCP. Two ranks on this host; one table row per stack.
#
#   bash benches/transports.sh [MIB]        (MiB per message, 64 by default)
#
# Needs the set-up of the tests (`bash .ci/setup-tests`: Open MPI and MPICH). Builds the
# bench in release mode against Open MPI (target/) and against MPICH (target/mpich, as the
# docs/guide.md builds the MPICH flavour). The target: the thread within 5 % of the plain loop.
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-64}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cargo bench --locked --bench comm --no-run 2>/dev/null
MPICC=mpicc.mpich CARGO_TARGET_DIR=target/mpich cargo bench --locked --bench comm --no-run 2>/dev/null
bench_of() { ls -t "$1"/release/deps/comm-* 2>/dev/null | grep -v '\.d$' | head -1; }
ompi=$(bench_of target)
mpich=$(bench_of target/mpich)
[ -x "$ompi" ] && [ -x "$mpich" ] || { echo "transports: the comm bench did not build" >&2; exit 1; }

printf '%-22s %-46s %12s %12s %8s\n' stack "recorded as" "plain MB/s" "thread MB/s" ratio
row() {
    local name=$1 bin=$2
    shift 2
    local out
    out=$(env -u OMPI_MCA_pml -u OMPI_MCA_btl -u OMPI_MCA_mtl -u UCX_TLS "$@" "$bin" "$mib" --bench 2>&1) || {
        printf '%-22s failed: %s\n' "$name" "$(tail -1 <<<"$out")"
        return
    }
    local stack plain thread ratio
    stack=$(sed -n 's/^stack: //p' <<<"$out" | sed 's/ (chosen by.*//')
    plain=$(awk '/^plain receive loop/ {print $4}' <<<"$out")
    thread=$(awk '/^communication thread/ {print $3}' <<<"$out")
    ratio=$(awk '/^ratio/ {print $2}' <<<"$out")
    printf '%-22s %-46s %12s %12s %8s\n' "$name" "$stack" "$plain" "$thread" "$ratio"
}
row ob1-shared-memory "$ompi" OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
row ob1-tcp "$ompi" OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp
row ucx "$ompi" OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any
row cm-ofi "$ompi" OMPI_MCA_pml=cm OMPI_MCA_mtl=ofi
row mpich-shared-memory "$mpich" UCX_TLS=sm,self
row mpich-tcp "$mpich" UCX_TLS=tcp,self
