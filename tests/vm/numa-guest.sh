#!/usr/bin/env bash
# Boots a multi-socket NUMA virtual machine and runs tests/vm/guest-checks.sh inside it.
#
#   tests/vm/numa-guest.sh LAYOUT OUTDIR BINARY
#   tests/vm/numa-guest.sh --dry-run LAYOUT
#
# --dry-run boots nothing: it checks the tools and the kernel as a boot would, and prints the
# QEMU command line vng would run (vng through virtme-run, as for a boot; .ci/setup-tests runs
# it to prove the tooling).
# LAYOUT is `2x1` (2 sockets x 1 NUMA node, 2 cores each) or `2x2` (2 sockets x 2 NUMA
# nodes of one core each: sub-NUMA clustering). Either way a network card sits on the first
# NUMA node of socket 1 (a PCIe expander bridge with numa_node=M), so hwloc reports its
# locality and the plan should put the communication thread beside it.
#
# The guest is QEMU in TCG mode (a nested KVM guest hangs early in boot on the cloud VMs
# this was built on) started by virtme-ng (`vng`) with Debian's distribution kernel from
# /boot (the `-cloud` flavour lacks the 9p file system virtme-ng shares the root with). It
# sees this machine's root file system read-only, so BINARY, Open MPI and hwloc run
# unchanged; OUTDIR is shared read-write and receives everything the checks write.
# Bandwidths inside TCG mean nothing: the checks test behaviour, with tiny runs.
#
# Two variables change the guest for other uses (benches/guest/adaptive.sh):
#   GUEST_CORES   cores per socket (default 2; with 2x2, an even number, half on each node)
#   GUEST_SCRIPT  what runs inside instead of tests/vm/guest-checks.sh, with the same
#                 arguments OUT BINARY REPO; it must write OUT/done last
set -euo pipefail

dry_run=false
if [ "${1:-}" = --dry-run ] && [ $# -eq 2 ]; then
    dry_run=true layout=$2
elif [ $# -eq 3 ]; then
    layout=$1 out=$2 bin=$3
else
    echo "usage: $0 2x1|2x2 OUTDIR BINARY, or $0 --dry-run 2x1|2x2" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

cores=${GUEST_CORES:-2}
script=${GUEST_SCRIPT:-$repo/tests/vm/guest-checks.sh}
case $layout in
    2x1) nodes=2 nic_node=1 ;;
    2x2) nodes=4 nic_node=2 ;;
    *) echo "numa-guest: layout '$layout' is not 2x1 or 2x2" >&2; exit 2 ;;
esac
if ! [[ $cores =~ ^[1-9][0-9]?$ ]] || [ $((cores * 2 % nodes)) -ne 0 ] || [ "$cores" -gt 32 ]; then
    echo "numa-guest: GUEST_CORES=$cores cores per socket cannot be split over $((nodes / 2)) NUMA node(s) per socket; give 1-32, even with 2x2" >&2
    exit 2
fi
[ -f "$script" ] || { echo "numa-guest: GUEST_SCRIPT $script is not a file" >&2; exit 2; }
script=$(realpath "$script")
per_node=$((cores * 2 / nodes))
numa=()
for ((n = 0; n < nodes; n++)); do
    first=$((n * per_node)) last=$(((n + 1) * per_node - 1))
    range=$first
    [ "$last" -gt "$first" ] && range=$first-$last
    numa+=(--numa "$((4096 / nodes))M,cpus=$range")
done

kernel=$(find /boot -maxdepth 1 -name 'vmlinuz-*-amd64' ! -name '*-cloud-amd64' | sort -V | tail -1)
if [ -z "$kernel" ]; then
    echo "numa-guest: no /boot/vmlinuz-*-amd64 (Debian's linux-image-amd64; the -cloud kernel lacks 9p)" >&2
    exit 3
fi
# virtme-ng shares this machine's root file system with the guest over 9p on virtio: the
# kernel's modules must have it (Debian's image names its modules' directory as its file).
modules=/lib/modules/${kernel#/boot/vmlinuz-}
for m in 9p 9pnet_virtio; do
    if ! grep -Eqs "(^|/)$m\.ko" "$modules/modules.dep" "$modules/modules.builtin"; then
        echo "numa-guest: $kernel has no module $m in $modules (virtme-ng's 9p root; reinstall Debian's linux-image-amd64)" >&2
        exit 3
    fi
done
# vng runs virtme-run by name; virtme-run runs file (the kernel's version, busybox's linkage).
for tool in vng virtme-run qemu-system-x86_64 busybox file; do
    command -v "$tool" >/dev/null || { echo "numa-guest: '$tool' not found (bash .ci/setup-tests installs it)" >&2; exit 3; }
done
if $dry_run; then
    out=$(mktemp -d /tmp/numa-guest-dry-run.XXXXXX)
    trap 'rm -rf "$out"' EXIT
    bin=/bin/true
else
    bin=$(realpath "$bin")
    mkdir -p "$out"
    out=$(realpath "$out")
fi

qemu_opts="-smp $((cores * 2)),sockets=2,cores=$cores,threads=1"
qemu_opts+=" -device pxb-pcie,id=pxb1,bus_nr=32,numa_node=$nic_node,bus=pcie.0"
qemu_opts+=" -device pcie-root-port,id=rp1,bus=pxb1,chassis=9"
qemu_opts+=" -netdev user,id=n1,restrict=on -device virtio-net-pci,bus=rp1,netdev=n1"

vng_args=(--disable-kvm --run "$kernel" --cpus $((cores * 2)) --memory 4G "${numa[@]}"
    --qemu-opts="$qemu_opts" --rwdir "$out"
    --exec "bash $script $out $bin $repo")
if $dry_run; then
    echo "numa-guest: $layout would boot $(basename "$kernel") with:" >&2
    vng "${vng_args[@]}" --dry-run </dev/null
    exit
fi
echo "numa-guest: booting $layout ($(basename "$kernel"), TCG), network card on NUMA node $nic_node" >&2
start=$(date +%s%N)
set +e
# stdin from /dev/null: vng would otherwise hand the guest this terminal.
vng "${vng_args[@]}" </dev/null >"$out/console.log" 2>&1
rc=$?
set -e
end=$(date +%s%N)
ms=$(((end - start) / 1000000))
printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000)) >"$out/wall_seconds"
echo "numa-guest: $layout done in $(cat "$out/wall_seconds") s (vng exit $rc); console in $out/console.log" >&2
if [ ! -f "$out/done" ]; then
    echo "numa-guest: the checks did not finish inside the guest; last console lines:" >&2
    tail -20 "$out/console.log" >&2
    exit 1
fi
exit "$rc"
