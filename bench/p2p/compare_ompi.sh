#!/bin/bash
# Runs the p2p benchmark on 2 PEs with PlugSHMEM and with Open MPI's OSHMEM
# (Debian's openmpi-bin: oshcc, oshrun) in the same run, several rounds
# alternating, and prints both.  Open MPI needs `--mca osc ^rdma` here or
# every program segfaults at exit.
#   compare_ompi.sh [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
rounds=${1:-3}
command -v /usr/bin/oshcc >/dev/null || { echo "Open MPI's oshcc not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/oshcc -O2 -DHAVE_CALLGRIND -I"$here/.." "$here/p2p_bench.c" -o "$work/p2p_bench.ompi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ompi="/usr/bin/oshrun --mca osc ^rdma -np 2"
ours="$build/tools/oshrun -n 2"
for mode in lat rate; do
  for r in $(seq "$rounds"); do
    echo "== PlugSHMEM $mode (round $r)"; $ours "$build/bench/p2p/p2p_bench" $mode
    echo "== Open MPI $mode (round $r)"; $ompi "$work/p2p_bench.ompi" $mode 2>&1 | grep -v '^\[' || true
  done
done
echo "== PlugSHMEM instructions"; "$here/icount.sh" "$build/bench/p2p/p2p_bench" 10000
echo "== Open MPI instructions"; "$here/icount.sh" --launcher "$ompi" "$work/p2p_bench.ompi" 10000
