#!/usr/bin/env bash
# Two MPI "hosts" on one machine, then CMD run on the first of them.
#
#   tests/vm/two-hosts.sh HOST_A HOST_B -- CMD [ARGS...]
#
# tests/vm/hosts.sh for two hosts (see there): each host a network namespace with its own
# UTS namespace, the addresses 10.231.X.1 and 10.231.X.2/24, CMD run inside HOST_A's
# namespaces with the MPI launchers' rsh agent entering HOST_B's: `mpirun --host
# HOST_A,HOST_B --map-by node`, `mpiexec.mpich -hosts HOST_A,HOST_B` (or `contention measure
# --hosts HOST_A,HOST_B`) then place one rank on each and they talk TCP.
#
# Every namespace, veth and mount made is removed when it exits, also when CMD fails or the
# script is interrupted. Needs root, iproute2 (`ip`) and util-linux (`unshare`, `nsenter`).
# Exit status: CMD's, or 3 when the hosts could not be made.
set -euo pipefail

if [ $# -lt 4 ] || [ "$3" != "--" ]; then
    echo "usage: $0 HOST_A HOST_B -- CMD [ARGS...]" >&2
    exit 2
fi
a=$1 b=$2
shift 3
here=$(cd "$(dirname "$0")" && pwd)
for h in "$a" "$b"; do
    # Names become namespace, interface and file names: keep them plain.
    if ! [[ $h =~ ^[a-z][a-z0-9-]{0,10}$ ]]; then
        echo "two-hosts: host name '$h' must be 1-11 of a-z 0-9 - (a letter first)" >&2
        exit 2
    fi
done
exec "$here/hosts.sh" "$a" "$b" -- "$@"
