#!/bin/bash
# Runs coll_bench with PlugSHMEM and with Open MPI's OSHMEM (Debian's
# openmpi-bin: /usr/bin/oshcc, /usr/bin/oshrun) at the given PE counts,
# alternating, ROUNDS times each.
#   compare_ompi.sh [ROUNDS] [NPES...]      e.g. compare_ompi.sh 2 2 8 16
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${PLUGSHMEM_BUILD:-$here/../../build}
rounds=${1:-2}
shift || true
npes=${*:-2 8}
command -v /usr/bin/oshcc >/dev/null || { echo "Open MPI's oshcc not installed"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/oshcc -O2 "$here/coll_bench.c" -o "$work/coll_bench.ompi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for n in $npes; do
  for r in $(seq "$rounds"); do
    echo "== PlugSHMEM np$n (round $r)"; "$build/tools/oshrun" -n "$n" "$build/bench/coll/coll_bench_as" 65536 1000
    echo "== Open MPI np$n (round $r)"
    /usr/bin/oshrun --mca osc ^rdma --oversubscribe -np "$n" "$work/coll_bench.ompi" 65536 1000 2>&1 | grep -v '^\[' || true
  done
done
